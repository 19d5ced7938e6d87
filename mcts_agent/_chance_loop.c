/* mcts_agent._core's chance loop: mcts_agent.general_loop.run for a stochastic model, in C
 * (docs/guides/compiled-core.md, docs/guides/chance.md).
 *
 * The case compiled: a model with ``outcomes`` or ``sample_step`` (chance nodes,
 * mcts_agent/chance.py), UCT selection (value_normalization on or off), no evaluator, no
 * max_depth, no solver, one reward (no max^n), one leaf per iteration
 * (mcts_agent/compiled_chance.py says when). The loop is general_loop.run's for that case,
 * statement for statement: the same IEEE operations in the same order (built with
 * floating-point contraction off), the model's methods called in the same order with the
 * same arguments, the same checks (the slow paths are this package's Python functions), and
 * the same random numbers drawn from the planner's random.Random. It works on the
 * GuidedTree's own lists, which it changes in place as the Python loop does, so the trees
 * are the pure loop's bit for bit and every Python reader sees them as usual.
 *
 * Random numbers: drawn by rng.random() while the generator's state is Python's, or by the
 * Mersenne Twister of _core.c (mt_random) once a native rollout has taken the state over
 * (getstate); it goes back to Python (setstate) before any Python code that is handed the
 * generator (sample_step, a Python rollout) and when the chunk ends, so the generator ends
 * where the pure loop leaves it.
 *
 * Native chance: a capsule named "mcts_agent.native_chance" holding a NativeChance (below),
 * offered by the model's native_chance(): its rollout used where the pure loop would run the
 * model's own rollout or the generic one (compiled_chance.py), drawing exactly the random
 * numbers of the Python rollout it replaces, and its records in place of the model's outcomes
 * and keys when a chance node is made (the same results). A toy-text transition table's
 * (table_rollout: GymnasiumModel's slippery FrozenLake, CliffWalking, rainy Taxi; with a
 * CautiousRolloutPolicy's choices of actions per cell, GymnasiumModel.native_chance_for) and
 * Pig's (pig_rollout) are here.
 *
 * Memory: the small immutable tuples the loop makes (children, a chance node's priors, the
 * records and the states, results and keys in them) are taken out of the garbage collector's
 * lists at once, as CPython takes out tuples of atomic items at their first collection; the
 * collector's full walks over a large tree otherwise took a third of a search's time.
 */
#include "_core.h"

#include <math.h>
#include <string.h>
#include <structmember.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define TERMINAL (-1)
#define UNVISITED (-1)

/* ------------------------------------------------------------------ native chance rollouts */

#define NATIVE_CHANCE_NAME "mcts_agent.native_chance"
#define NATIVE_CHANCE_VERSION 1

/* The protocol, ``self`` the struct itself (its own data after these fields):
 *
 * rollout(self, state, random, rng, limit, gamma, &g) plays the rollout the model's Python
 * rollout would play from ``state`` (limit >= 1 moves), drawing every random number as
 * random(rng) (a float in [0, 1), random.Random.random's), and writes its return to *g.
 *
 * record(self, state, action, &cumulative, &results, &keys), or NULL: what
 * chance.new_record(outcomes, key, None, state, action) keeps in a new chance node's
 * ChanceRecord, as new tuples (the running sums of the probabilities, the last infinity; the
 * checked StepResults; their keys), with the model's outcomes and key that it fuses.
 *
 * Each returns 1; 0, having drawn and made nothing, for an input it does not take (the Python
 * code then runs); -1 with a Python exception set. */
typedef struct NativeChance {
    int version;
    int (*rollout)(struct NativeChance *self, PyObject *state, double (*random)(void *),
                   void *rng, long long limit, double gamma, double *g);
    int (*record)(struct NativeChance *self, PyObject *state, PyObject *action,
                  PyObject **cumulative, PyObject **results, PyObject **keys);
} NativeChance;

/* An exact int of [0, bound) as a Py_ssize_t, else -1 (no exception). */
static Py_ssize_t
small_index(PyObject *x, Py_ssize_t bound)
{
    if (!PyLong_CheckExact(x))
        return -1;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
    return overflow || v < 0 || v >= bound ? -1 : (Py_ssize_t)v;
}

/* A toy-text table: entries (probability, next cell, reward, terminated) of (cell, action),
 * and the legal actions after reaching each cell. */
typedef struct {
    double probability, reward;
    int32_t next;
    int terminated;
} TableEntry;

typedef struct {
    NativeChance base;
    Py_ssize_t cells, actions, entry_count;
    Py_ssize_t *first;       /* entries of (s, a): first[s * actions + a] to the next one */
    TableEntry *entries;
    Py_ssize_t *legal_first; /* legal actions after reaching s: legal[legal_first[s]...] */
    int32_t *legal;
    /* Or NULL: the actions a move from s draws from, choice[choice_first[c]...] with c = s,
     * or cells + s for the last move of a counted episode (a CautiousRolloutPolicy's). */
    Py_ssize_t *choice_first;
    int32_t *choice;
    /* For records: the legal actions' tuples by cell, GymnasiumState, StepResult, the
     * outcomes' rewards and cells as Python objects (by entry), the empty tuple. */
    PyObject **legal_tuples, *state_type, *result_type, **rewards, **next_cells, *empty;
} TableRollout;

/* Reads a state the table takes: a GymnasiumState (snapshot, steps_left, actions, observation)
 * whose snapshot is an exact tuple of exact ints (bools after the first two), the first a
 * cell (*s), its steps left None
 * (*counted 0) or an exact int (*steps_left), its actions an exact tuple. 1, or 0 for any other
 * state (then left to the Python code). */
static int
table_position(TableRollout *t, PyObject *state, Py_ssize_t *s, int *counted,
               long long *steps_left)
{
    if (Py_TYPE(state) != (PyTypeObject *)t->state_type || PyTuple_GET_SIZE(state) != 4)
        return 0;
    PyObject *snapshot = PyTuple_GET_ITEM(state, 0), *steps_obj = PyTuple_GET_ITEM(state, 1);
    if (!PyTuple_CheckExact(snapshot) || PyTuple_GET_SIZE(snapshot) < 2 ||
        !PyTuple_CheckExact(PyTuple_GET_ITEM(state, 2)))
        return 0;
    *s = small_index(PyTuple_GET_ITEM(snapshot, 0), t->cells);
    if (*s < 0)
        return 0;
    for (Py_ssize_t k = 2; k < PyTuple_GET_SIZE(snapshot); k++) /* (Taxi's: a bool, an int) */
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(snapshot, k)) &&
            !PyBool_Check(PyTuple_GET_ITEM(snapshot, k)))
            return 0;
    *steps_left = 0;
    *counted = steps_obj != Py_None;
    if (*counted) {
        int overflow;
        if (!PyLong_CheckExact(steps_obj))
            return 0;
        *steps_left = PyLong_AsLongLongAndOverflow(steps_obj, &overflow);
        if (overflow)
            return 0;
    }
    return 1;
}

/* The generic rollout (MCTS._rollouts) of a GymnasiumModel whose outcomes are its
 * TableOutcomes' (mcts_agent/adapters/gymnasium/stochastic.py), one player: the action
 * drawn[int(random() * len(drawn))], drawn the legal actions (no rollout_policy) or the
 * choices of the cell (a CautiousRolloutPolicy's safe actions: the choices of cells + s when
 * the steps left are 1, and then only states whose actions are their cell's legal ones are
 * taken, the policy's answers depending on these); the outcome drawn as chance.sampler draws
 * it (one random() if the action has more than one, the first whose running sum of
 * probabilities passes it, else the last); the steps left counted down (0 ends); G = sum of
 * coef * r, coef *= gamma after each move. State: GymnasiumState(snapshot, steps_left,
 * actions, observation), snapshot[0] the cell. */
static int
table_rollout(NativeChance *self, PyObject *state, double (*random)(void *), void *rng,
              long long limit, double gamma, double *g)
{
    TableRollout *t = (TableRollout *)self;
    Py_ssize_t s;
    int counted;
    long long steps_left;
    if (!table_position(t, state, &s, &counted, &steps_left))
        return 0;
    PyObject *first_actions = PyTuple_GET_ITEM(state, 2);
    Py_ssize_t count = PyTuple_GET_SIZE(first_actions);
    if (count == 0)
        return 0;
    for (Py_ssize_t k = 0; k < count; k++)
        if (small_index(PyTuple_GET_ITEM(first_actions, k), t->actions) < 0)
            return 0;
    /* Read, nothing drawn: from here on the rollout is the table's. */
    int32_t first_legal[64];
    const int32_t *legal = first_legal;
    if (count > 64)
        return 0;
    for (Py_ssize_t k = 0; k < count; k++)
        first_legal[k] = (int32_t)PyLong_AsLong(PyTuple_GET_ITEM(first_actions, k));
    if (t->choice != NULL) {
        if (count != t->legal_first[s + 1] - t->legal_first[s] ||
            memcmp(first_legal, &t->legal[t->legal_first[s]], (size_t)count * sizeof(int32_t)))
            return 0;
    }
    double total = 0.0, coef = 1.0;
    long long moves_left = limit;
    for (;;) {
        const int32_t *drawn_from = legal;
        Py_ssize_t choices = count;
        if (t->choice != NULL) {
            Py_ssize_t c = (counted && steps_left == 1 ? t->cells : 0) + s;
            drawn_from = &t->choice[t->choice_first[c]];
            choices = t->choice_first[c + 1] - t->choice_first[c];
        }
        Py_ssize_t a = drawn_from[(Py_ssize_t)(random(rng) * (double)choices)];
        Py_ssize_t at = s * t->actions + a;
        const TableEntry *entry = &t->entries[t->first[at]];
        Py_ssize_t outcomes = t->first[at + 1] - t->first[at];
        if (outcomes > 1) {
            double u = random(rng), running = 0.0;
            const TableEntry *drawn = NULL;
            for (Py_ssize_t k = 0; k < outcomes; k++) {
                running += entry[k].probability;
                if (drawn == NULL && u < running)
                    drawn = &entry[k];
            }
            entry = drawn != NULL ? drawn : &entry[outcomes - 1];
        }
        if (counted)
            steps_left -= 1;
        int ended = entry->terminated || (counted && steps_left == 0);
        total += coef * entry->reward;
        moves_left -= 1;
        if (ended || moves_left == 0)
            break;
        s = entry->next;
        legal = &t->legal[t->legal_first[s]];
        count = t->legal_first[s + 1] - t->legal_first[s];
        if (count == 0)
            break;
        coef *= gamma;
    }
    *g = total;
    return 1;
}

/* Frees a TableRollout and drops its references. */
static void
table_clear(TableRollout *t)
{
    for (Py_ssize_t k = 0; t->rewards != NULL && k < t->entry_count; k++) {
        Py_XDECREF(t->rewards[k]);
        Py_XDECREF(t->next_cells[k]);
    }
    for (Py_ssize_t s = 0; t->legal_tuples != NULL && s < t->cells; s++)
        Py_XDECREF(t->legal_tuples[s]);
    Py_XDECREF(t->state_type);
    Py_XDECREF(t->result_type);
    Py_XDECREF(t->empty);
    PyMem_Free(t->rewards);
    PyMem_Free(t->next_cells);
    PyMem_Free(t->legal_tuples);
    PyMem_Free(t->first);
    PyMem_Free(t->entries);
    PyMem_Free(t->legal_first);
    PyMem_Free(t->legal);
    PyMem_Free(t->choice_first);
    PyMem_Free(t->choice);
    PyMem_Free(t);
}

/* ``x`` (a tuple, or a NamedTuple with no __dict__, of objects made before it: no cycle can
 * pass through it) taken out of the garbage collector's lists, as CPython takes out the
 * tuples of atomic items at their first collection: the trees' many small tuples cost the
 * collections nothing (a search's time went to them, not to the loop). NULL passes. */
static PyObject *
untracked(PyObject *x)
{
    if (x != NULL && PyObject_GC_IsTracked(x))
        PyObject_GC_UnTrack(x);
    return x;
}

/* A record's three new tuples of ``count`` items, untracked (their items will be immutable
 * objects made before them): 0, or -1 with the tuples made so far left to dropped(). */
static int
new_record(Py_ssize_t count, PyObject **cumulative, PyObject **results, PyObject **keys)
{
    *cumulative = untracked(PyTuple_New(count));
    *results = untracked(PyTuple_New(count));
    *keys = untracked(PyTuple_New(count));
    return *cumulative != NULL && *results != NULL && *keys != NULL ? 0 : -1;
}

/* A record's failure: its tuples dropped; -1. */
static int
dropped(PyObject **cumulative, PyObject **results, PyObject **keys)
{
    Py_CLEAR(*cumulative);
    Py_CLEAR(*results);
    Py_CLEAR(*keys);
    return -1;
}

/* A native chance capsule's pointer, or NULL (for its destructor: no exception left). */
static void *
capsule_data(PyObject *capsule)
{
    void *data = PyCapsule_GetPointer(capsule, NATIVE_CHANCE_NAME);
    if (data == NULL)
        PyErr_Clear();
    return data;
}

/* A tuple of the subclass ``type`` (a NamedTuple) holding ``count`` new references (stolen,
 * NULLs failing): what ``type(*items)`` makes, untracked (the items are immutable objects made
 * before it). */
static PyObject *
named_tuple(PyObject *type, int count, PyObject **items)
{
    PyObject *values = PyTuple_New(count), *made = NULL;
    for (int k = 0; k < count; k++) {
        if (items[k] == NULL || values == NULL) {
            for (int m = k; m < count; m++)
                Py_XDECREF(items[m]);
            Py_XDECREF(values);
            return NULL;
        }
        PyTuple_SET_ITEM(values, k, items[k]);
    }
    PyObject *args = PyTuple_Pack(1, values);
    Py_DECREF(values);
    if (args != NULL)
        made = PyTuple_Type.tp_new((PyTypeObject *)type, args, NULL); /* tuple.__new__(type, .) */
    Py_XDECREF(args);
    return untracked(made);
}

/* TableOutcomes.outcomes(state, action), checked (chance.checked_outcomes: the table's
 * probabilities were checked when the capsule was made), with snapshot_key's keys: each
 * outcome (probability, next cell, reward, terminated) gives
 * StepResult(GymnasiumState((next, action, *snapshot[2:]), steps_left - 1, next_actions, next),
 * reward, ended) and the key (((next, action, *snapshot[2:]), steps_left - 1), reward, ended),
 * ended = terminated or no step left, next_actions () if ended else the cell's legal actions.
 * Takes a GymnasiumState whose snapshot holds ints, ``action`` one of its actions. */
static int
table_record(NativeChance *self, PyObject *state, PyObject *action, PyObject **cumulative,
             PyObject **results, PyObject **keys)
{
    TableRollout *t = (TableRollout *)self;
    Py_ssize_t s, a = small_index(action, t->actions);
    int counted;
    long long steps_left;
    if (a < 0 || !table_position(t, state, &s, &counted, &steps_left))
        return 0;
    PyObject *snapshot = PyTuple_GET_ITEM(state, 0), *actions = PyTuple_GET_ITEM(state, 2);
    int legal = 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(actions); k++)
        if (PyTuple_GET_ITEM(actions, k) == action)
            legal = 1;
    if (!legal) /* outcomes raises (or compares by ==): the Python code decides */
        return 0;
    if (counted)
        steps_left -= 1;
    Py_ssize_t at = s * t->actions + a, first = t->first[at];
    Py_ssize_t count = t->first[at + 1] - first, size = PyTuple_GET_SIZE(snapshot);
    PyObject *steps = counted ? PyLong_FromLongLong(steps_left) : Py_NewRef(Py_None);
    if (steps == NULL || new_record(count, cumulative, results, keys) < 0)
        goto fail;
    double running = 0.0;
    for (Py_ssize_t k = 0; k < count; k++) {
        const TableEntry *e = &t->entries[first + k];
        running += e->probability;
        PyObject *sum = PyFloat_FromDouble(k == count - 1 ? INFINITY : running);
        if (sum == NULL)
            goto fail;
        PyTuple_SET_ITEM(*cumulative, k, sum);
        PyObject *next_snapshot = untracked(PyTuple_New(size)); /* ints */
        if (next_snapshot == NULL)
            goto fail;
        PyTuple_SET_ITEM(next_snapshot, 0, Py_NewRef(t->next_cells[first + k]));
        PyTuple_SET_ITEM(next_snapshot, 1, Py_NewRef(action));
        for (Py_ssize_t m = 2; m < size; m++)
            PyTuple_SET_ITEM(next_snapshot, m, Py_NewRef(PyTuple_GET_ITEM(snapshot, m)));
        int ended = e->terminated || (counted && steps_left == 0);
        PyObject *ended_obj = ended ? Py_True : Py_False;
        PyObject *state_items[4] = {Py_NewRef(next_snapshot), Py_NewRef(steps),
                                    Py_NewRef(ended ? t->empty : t->legal_tuples[e->next]),
                                    Py_NewRef(t->next_cells[first + k])};
        PyObject *next_state = named_tuple(t->state_type, 4, state_items);
        PyObject *result_items[3] = {next_state, Py_NewRef(t->rewards[first + k]),
                                     Py_NewRef(ended_obj)};
        PyObject *result = next_state == NULL ? NULL : named_tuple(t->result_type, 3, result_items);
        if (next_state == NULL) {
            Py_DECREF(result_items[1]);
            Py_DECREF(result_items[2]);
        }
        PyObject *visible = untracked(PyTuple_Pack(2, next_snapshot, steps));
        Py_DECREF(next_snapshot);
        PyObject *key =
            visible == NULL ? NULL
                            : untracked(PyTuple_Pack(3, visible, t->rewards[first + k], ended_obj));
        Py_XDECREF(visible);
        if (result == NULL || key == NULL) {
            Py_XDECREF(result);
            Py_XDECREF(key);
            goto fail;
        }
        PyTuple_SET_ITEM(*results, k, result);
        PyTuple_SET_ITEM(*keys, k, key);
    }
    Py_DECREF(steps);
    return 1;
fail:
    Py_XDECREF(steps);
    return dropped(cumulative, results, keys);
}

static void
table_free(PyObject *capsule)
{
    TableRollout *t = capsule_data(capsule);
    if (t != NULL)
        table_clear(t);
}

/* Reads table_rollout's ``choices`` into t (its legal actions read): 0, or -1 with an
 * exception. */
static int
table_choices(TableRollout *t, PyObject *choices)
{
    if (!PyList_CheckExact(choices) || PyList_GET_SIZE(choices) != 2)
        goto malformed;
    Py_ssize_t total = 0;
    for (int v = 0; v < 2; v++) {
        PyObject *cells = PyList_GET_ITEM(choices, v);
        if (!PyList_CheckExact(cells) || PyList_GET_SIZE(cells) != t->cells)
            goto malformed;
        for (Py_ssize_t s = 0; s < t->cells; s++) {
            PyObject *drawn = PyList_GET_ITEM(cells, s);
            if (!PyTuple_CheckExact(drawn) ||
                (PyTuple_GET_SIZE(drawn) == 0) != (t->legal_first[s + 1] == t->legal_first[s]))
                goto malformed;
            total += PyTuple_GET_SIZE(drawn);
        }
    }
    t->choice_first = PyMem_Malloc((size_t)(2 * t->cells + 1) * sizeof(Py_ssize_t));
    t->choice = PyMem_Malloc((size_t)(total ? total : 1) * sizeof(int32_t));
    if (t->choice_first == NULL || t->choice == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t c = 0;
    for (int v = 0; v < 2; v++) {
        PyObject *cells = PyList_GET_ITEM(choices, v);
        for (Py_ssize_t s = 0; s < t->cells; s++) {
            PyObject *drawn = PyList_GET_ITEM(cells, s);
            t->choice_first[v * t->cells + s] = c;
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(drawn); k++, c++) {
                Py_ssize_t a = small_index(PyTuple_GET_ITEM(drawn, k), t->actions);
                int legal = 0;
                for (Py_ssize_t j = t->legal_first[s]; j < t->legal_first[s + 1]; j++)
                    legal |= t->legal[j] == a;
                if (!legal)
                    goto malformed;
                t->choice[c] = (int32_t)a;
            }
        }
    }
    t->choice_first[2 * t->cells] = c;
    return 0;
malformed:
    PyErr_SetString(PyExc_ValueError,
                    "table_rollout: choices must be None or a list of two lists of a tuple per "
                    "cell, each a non-empty tuple of legal actions of the cell (empty where the "
                    "cell has none)");
    return -1;
}

const char table_rollout_doc[] =
    "table_rollout(table, legal, state_type, result_type, choices) -> capsule: the native chance "
    "rollout and records of a toy-text table (GymnasiumModel's states and StepResults: "
    "``state_type`` and ``result_type``).\n\n"
    "``table[s][a]``: the tuple of (probability, next cell, reward, terminated) outcomes of "
    "action a in cell s (positive probabilities summing to 1 within the search's tolerance, "
    "in the order outcomes() gives them; cells and actions numbered from 0, every cell with "
    "the same number of actions); ``legal[s]``: the tuple of legal actions (ints) after a "
    "move into cell s that does not end the episode; ``choices``: None (the rollout's actions "
    "uniformly random legal ones) or two lists of a tuple per cell, the actions a move from s "
    "draws from uniformly (``choices[1]`` when the move is the last counted step), each a "
    "non-empty subset of legal[s] (empty where it is).";

PyObject *
core_table_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("table_rollout", nargs, 5))
        return NULL;
    PyObject *table = args[0], *legal = args[1], *choices = args[4];
    if (!PyType_Check(args[2]) || !PyType_IsSubtype((PyTypeObject *)args[2], &PyTuple_Type) ||
        !PyType_Check(args[3]) || !PyType_IsSubtype((PyTypeObject *)args[3], &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "table_rollout: the state and result types are "
                                         "NamedTuples");
        return NULL;
    }
    if (!PyList_CheckExact(table) || !PyList_CheckExact(legal) || PyList_GET_SIZE(table) == 0 ||
        PyList_GET_SIZE(legal) != PyList_GET_SIZE(table) ||
        !PyList_CheckExact(PyList_GET_ITEM(table, 0)) ||
        PyList_GET_SIZE(PyList_GET_ITEM(table, 0)) == 0) {
        PyErr_SetString(PyExc_TypeError,
                        "table_rollout: a non-empty list of cells (each a list of actions' "
                        "outcomes) and a list of legal actions per cell");
        return NULL;
    }
    TableRollout *t = PyMem_Calloc(1, sizeof(TableRollout));
    if (t == NULL)
        return PyErr_NoMemory();
    t->base.version = NATIVE_CHANCE_VERSION;
    t->base.rollout = table_rollout;
    t->base.record = table_record;
    t->state_type = Py_NewRef(args[2]);
    t->result_type = Py_NewRef(args[3]);
    t->empty = PyTuple_New(0);
    if (t->empty == NULL)
        goto fail;
    t->cells = PyList_GET_SIZE(table);
    t->actions = PyList_GET_SIZE(PyList_GET_ITEM(table, 0));
    Py_ssize_t entries = 0, legal_count = 0;
    for (Py_ssize_t s = 0; s < t->cells; s++) {
        PyObject *moves = PyList_GET_ITEM(table, s), *allowed = PyList_GET_ITEM(legal, s);
        if (!PyList_CheckExact(moves) || PyList_GET_SIZE(moves) != t->actions ||
            !PyTuple_CheckExact(allowed))
            goto malformed;
        for (Py_ssize_t a = 0; a < t->actions; a++) {
            PyObject *outcomes = PyList_GET_ITEM(moves, a);
            if (!PyTuple_CheckExact(outcomes) || PyTuple_GET_SIZE(outcomes) == 0)
                goto malformed;
            entries += PyTuple_GET_SIZE(outcomes);
        }
        legal_count += PyTuple_GET_SIZE(allowed);
    }
    t->first = PyMem_Malloc((size_t)(t->cells * t->actions + 1) * sizeof(Py_ssize_t));
    t->entries = PyMem_Malloc((size_t)entries * sizeof(TableEntry));
    t->legal_first = PyMem_Malloc((size_t)(t->cells + 1) * sizeof(Py_ssize_t));
    t->legal = PyMem_Malloc((size_t)(legal_count ? legal_count : 1) * sizeof(int32_t));
    t->rewards = PyMem_Calloc((size_t)entries, sizeof(PyObject *));
    t->next_cells = PyMem_Calloc((size_t)entries, sizeof(PyObject *));
    t->legal_tuples = PyMem_Calloc((size_t)t->cells, sizeof(PyObject *));
    t->entry_count = entries;
    if (t->first == NULL || t->entries == NULL || t->legal_first == NULL || t->legal == NULL ||
        t->rewards == NULL || t->next_cells == NULL || t->legal_tuples == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_ssize_t e = 0, l = 0;
    for (Py_ssize_t s = 0; s < t->cells; s++) {
        PyObject *moves = PyList_GET_ITEM(table, s), *allowed = PyList_GET_ITEM(legal, s);
        for (Py_ssize_t a = 0; a < t->actions; a++) {
            PyObject *outcomes = PyList_GET_ITEM(moves, a);
            t->first[s * t->actions + a] = e;
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(outcomes); k++, e++) {
                PyObject *o = PyTuple_GET_ITEM(outcomes, k);
                if (!PyTuple_CheckExact(o) || PyTuple_GET_SIZE(o) != 4 ||
                    !PyFloat_CheckExact(PyTuple_GET_ITEM(o, 0)) ||
                    !PyFloat_CheckExact(PyTuple_GET_ITEM(o, 2)) ||
                    !PyBool_Check(PyTuple_GET_ITEM(o, 3)))
                    goto malformed;
                Py_ssize_t next = small_index(PyTuple_GET_ITEM(o, 1), t->cells);
                if (next < 0)
                    goto malformed;
                double p = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(o, 0));
                double r = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(o, 2));
                if (!(p > 0.0 && isfinite(p) && isfinite(r)))
                    goto malformed;
                t->entries[e].probability = p;
                t->entries[e].next = (int32_t)next;
                t->entries[e].reward = r;
                t->entries[e].terminated = PyTuple_GET_ITEM(o, 3) == Py_True;
                t->rewards[e] = Py_NewRef(PyTuple_GET_ITEM(o, 2));
                t->next_cells[e] = Py_NewRef(PyTuple_GET_ITEM(o, 1));
            }
        }
        t->legal_first[s] = l;
        t->legal_tuples[s] = Py_NewRef(allowed);
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(allowed); k++, l++) {
            Py_ssize_t a = small_index(PyTuple_GET_ITEM(allowed, k), t->actions);
            if (a < 0)
                goto malformed;
            t->legal[l] = (int32_t)a;
        }
    }
    t->first[t->cells * t->actions] = e;
    t->legal_first[t->cells] = l;
    if (choices != Py_None && table_choices(t, choices) < 0)
        goto fail;
    PyObject *capsule = PyCapsule_New(t, NATIVE_CHANCE_NAME, table_free);
    if (capsule == NULL)
        goto fail;
    return capsule;
malformed:
    PyErr_SetString(PyExc_ValueError,
                    "table_rollout: table[s][a] must be a non-empty tuple of (positive float, "
                    "cell, finite float, bool) with cells in range, every cell with the same "
                    "number of actions, and legal[s] a tuple of actions in range");
fail:
    table_clear(t);
    return NULL;
}

/* Pig to ``goal`` (mcts_agent/envs/pig.py): PigModel.rollout, step for step, and the records
 * of PigModel.outcomes (PigState and StepResult the types it makes). */
typedef struct {
    NativeChance base;
    long long goal;
    PyObject *state_type, *result_type;
} PigRollout;

static int
pig_rollout(NativeChance *self, PyObject *state, double (*random)(void *), void *rng,
            long long limit, double gamma, double *g)
{
    long long goal = ((PigRollout *)self)->goal;
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != 4)
        return 0;
    long long v[3];
    for (int k = 0; k < 3; k++) {
        PyObject *x = PyTuple_GET_ITEM(state, k + 1);
        int overflow;
        if (!PyLong_CheckExact(x))
            return 0;
        v[k] = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || v[k] < -(1LL << 40) || v[k] > (1LL << 40))
            return 0;
    }
    long long i = v[0], j = v[1], k = v[2];
    const double sixth = 1.0 / 6.0;
    double coef = 1.0; /* the discount and sign of the next move's reward */
    for (long long move = 0; move < limit; move++) {
        if ((long long)(random(rng) * 2.0) == 0) { /* ROLL */
            double u = random(rng), running = 0.0;
            int face = 6;
            for (int f = 1; f <= 6; f++) {
                running += sixth;
                if (u < running) {
                    face = f;
                    break;
                }
            }
            if (face != 1) {
                k += face;
                if (i + k >= goal) {
                    *g = coef; /* the mover wins: reward 1 */
                    return 1;
                }
                coef *= gamma; /* the same player moves again */
                continue;
            }
            long long banked = i; /* a 1: the turn total is lost */
            i = j;
            j = banked;
            k = 0;
        }
        else { /* HOLD */
            if (i + k >= goal) {
                *g = coef;
                return 1;
            }
            long long banked = i + k;
            i = j;
            j = banked;
            k = 0;
        }
        coef *= -gamma;
    }
    *g = 0.0;
    return 1;
}

/* StepResult(PigState(player, score, other, turn_total), reward, ended) (a new reference). */
static PyObject *
pig_result(PigRollout *p, long long player, long long i, long long j, long long k, int won)
{
    PyObject *items[4] = {PyLong_FromLongLong(player), PyLong_FromLongLong(i),
                          PyLong_FromLongLong(j), PyLong_FromLongLong(k)};
    PyObject *state = named_tuple(p->state_type, 4, items);
    if (state == NULL)
        return NULL;
    PyObject *fields[3] = {state, PyFloat_FromDouble(won ? 1.0 : 0.0),
                           Py_NewRef(won ? Py_True : Py_False)};
    return named_tuple(p->result_type, 3, fields);
}

/* PigModel.outcomes(state, action), checked, its keys the outcomes themselves
 * ((next_state, reward, terminated): Pig has no key): HOLD banks i + k (_bank), ROLL gives the
 * six faces, each 1/6 (_face). Takes a PigState of ints, not over, and ROLL or HOLD. */
static int
pig_record(NativeChance *self, PyObject *state, PyObject *action, PyObject **cumulative,
           PyObject **results, PyObject **keys)
{
    PigRollout *p = (PigRollout *)self;
    if (Py_TYPE(state) != (PyTypeObject *)p->state_type || PyTuple_GET_SIZE(state) != 4)
        return 0;
    long long v[4];
    for (int m = 0; m < 4; m++) {
        PyObject *x = PyTuple_GET_ITEM(state, m);
        int overflow;
        if (!PyLong_CheckExact(x))
            return 0;
        v[m] = PyLong_AsLongLongAndOverflow(x, &overflow);
        if (overflow || v[m] < -(1LL << 40) || v[m] > (1LL << 40))
            return 0;
    }
    Py_ssize_t roll = small_index(action, 2) == 0;
    if (small_index(action, 2) < 0 || v[2] >= p->goal) /* outcomes raises: Python says why */
        return 0;
    long long player = v[0], i = v[1], j = v[2], k = v[3], goal = p->goal;
    Py_ssize_t count = roll ? 6 : 1;
    if (new_record(count, cumulative, results, keys) < 0)
        goto fail;
    const double sixth = 1.0 / 6.0;
    double running = 0.0;
    for (Py_ssize_t face = 1; face <= count; face++) {
        PyObject *result;
        if (!roll) /* _bank(player, i + k, j) */
            result = pig_result(p, 3 - player, j, i + k, 0, i + k >= goal);
        else if (face == 1)
            result = pig_result(p, 3 - player, j, i, 0, 0);
        else if (i + k + face >= goal) /* _bank(player, i + k + face, j) */
            result = pig_result(p, 3 - player, j, i + k + face, 0, 1);
        else
            result = pig_result(p, player, i, j, k + face, 0);
        running += roll ? sixth : 1.0;
        PyObject *sum = PyFloat_FromDouble(face == count ? INFINITY : running);
        PyObject *key = result == NULL ? NULL
                                       : untracked(PyTuple_Pack(3, PyTuple_GET_ITEM(result, 0),
                                                                PyTuple_GET_ITEM(result, 1),
                                                                PyTuple_GET_ITEM(result, 2)));
        if (result == NULL || sum == NULL || key == NULL) {
            Py_XDECREF(result);
            Py_XDECREF(sum);
            Py_XDECREF(key);
            goto fail;
        }
        PyTuple_SET_ITEM(*cumulative, face - 1, sum);
        PyTuple_SET_ITEM(*results, face - 1, result);
        PyTuple_SET_ITEM(*keys, face - 1, key);
    }
    return 1;
fail:
    return dropped(cumulative, results, keys);
}

static void
pig_free(PyObject *capsule)
{
    PigRollout *p = capsule_data(capsule);
    if (p == NULL)
        return;
    Py_XDECREF(p->state_type);
    Py_XDECREF(p->result_type);
    PyMem_Free(p);
}

const char pig_rollout_doc[] =
    "pig_rollout(goal, state_type, result_type) -> capsule: the native chance rollout of Pig "
    "to ``goal`` points (mcts_agent.envs.pig.PigModel.rollout) and its chance records "
    "(PigModel.outcomes: PigState and StepResult are ``state_type`` and ``result_type``).";

PyObject *
core_pig_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("pig_rollout", nargs, 3))
        return NULL;
    for (int m = 1; m < 3; m++)
        if (!PyType_Check(args[m]) || !PyType_IsSubtype((PyTypeObject *)args[m], &PyTuple_Type)) {
            PyErr_SetString(PyExc_TypeError, "pig_rollout: the state and result types are "
                                             "NamedTuples");
            return NULL;
        }
    long long goal = PyLong_AsLongLong(args[0]);
    if (goal == -1 && PyErr_Occurred())
        return NULL;
    if (goal < 1 || goal > (1LL << 40)) {
        PyErr_Format(PyExc_ValueError, "pig_rollout: goal must be in [1, 2**40], got %lld", goal);
        return NULL;
    }
    PigRollout *p = PyMem_Malloc(sizeof(PigRollout));
    if (p == NULL)
        return PyErr_NoMemory();
    p->base.version = NATIVE_CHANCE_VERSION;
    p->base.rollout = pig_rollout;
    p->base.record = pig_record;
    p->goal = goal;
    p->state_type = Py_NewRef(args[1]);
    p->result_type = Py_NewRef(args[2]);
    PyObject *capsule = PyCapsule_New(p, NATIVE_CHANCE_NAME, pig_free);
    if (capsule == NULL)
        PyMem_Free(p);
    return capsule;
}

/* The capsule's NativeChance, checked; NULL with an exception. */
static NativeChance *
native_chance_of(PyObject *capsule)
{
    NativeChance *native = PyCapsule_GetPointer(capsule, NATIVE_CHANCE_NAME);
    if (native != NULL && native->version != NATIVE_CHANCE_VERSION) {
        PyErr_Format(PyExc_ValueError, "native chance rollout version %d, expected %d",
                     native->version, NATIVE_CHANCE_VERSION);
        return NULL;
    }
    return native;
}

const char call_chance_rollout_doc[] =
    "call_chance_rollout(capsule, state, rng, limit, gamma) -> float, or None if the native "
    "chance rollout does not take ``state``: one rollout drawn from ``rng`` (a random.Random, "
    "whose state it continues).";

PyObject *
core_call_chance_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("call_chance_rollout", nargs, 5))
        return NULL;
    NativeChance *native = native_chance_of(args[0]);
    long long limit = PyLong_AsLongLong(args[3]);
    double gamma = PyFloat_AsDouble(args[4]);
    if (native == NULL || PyErr_Occurred())
        return NULL;
    if (limit < 1) {
        PyErr_SetString(PyExc_ValueError, "call_chance_rollout: limit must be >= 1");
        return NULL;
    }
    MTState mt;
    PyObject *saved = mt_read(args[2], &mt);
    if (saved == NULL)
        return NULL;
    double g;
    int taken = native->rollout(native, args[1], mt_random, &mt, limit, gamma, &g);
    int written = mt_write(args[2], &mt, saved);
    Py_DECREF(saved);
    if (taken < 0 || written < 0)
        return NULL;
    if (taken == 0)
        Py_RETURN_NONE;
    return PyFloat_FromDouble(g);
}

/* ------------------------------------------------------------------ the loop */

/* GuidedTree's lists, in GuidedTree.append_node's order. */
enum {
    STATES, PLAYERS, REWARDS, DISCOUNTS, ACTIONS, CHILDREN, UNTRIED, VISITS, VALUE_SUMS, VALUES,
    ACTION_INDICES, PRIORS, SCALED_PRIORS, LEAF_VALUES, EXPANSION_ORDERS, PROVEN_VALUES,
    CHANCE_RECORDS, LIST_COUNT
};

static const char *list_names[LIST_COUNT] = {
    "states",         "players",       "rewards",     "discounts",        "actions",
    "children",       "untried",       "visits",      "value_sums",       "values",
    "action_indices", "priors",        "scaled_priors", "leaf_values",    "expansion_orders",
    "proven_values",  "chance_records"};

typedef struct {
    PyObject *list[LIST_COUNT];
    Py_ssize_t size; /* nodes */
    /* the planner's generator: Python's, or mt's while ``saved`` holds its getstate() */
    PyObject *rng, *random, *saved;
    MTState mt;
    /* the model's methods and the Python functions of the slow paths */
    NativeChance *records; /* the model's native records, or NULL */
    PyObject *model_actions, *model_player, *outcomes, *sample_step, *key, *new_record,
        *record_class,
        *checked_result, *outcome_key, *uniform_priors, *checked_reward, *checked_terminated,
        *checked_actions, *checked_player, *checked_return;
    /* ChanceRecord's slots: their names, and where an exact ChanceRecord holds them */
    PyObject *slot_names[5];
    Py_ssize_t slot_offsets[5];
    double c, gamma;
} Loop;

enum { SLOT_INDEX, SLOT_CUMULATIVE, SLOT_RESULTS, SLOT_KEYS, SLOT_ACTION };
static const char *slot_names[5] = {"index", "cumulative", "results", "keys", "action"};

/* A float of the tree's lists: a float read in place, else as_double's. */
static inline double
number(PyObject *x)
{
    return PyFloat_CheckExact(x) ? PyFloat_AS_DOUBLE(x) : as_double(x);
}

/* record.<slot> (a new reference, or NULL with an exception): read in place in an exact
 * ChanceRecord (its __slots__' member descriptors say where), else by getattr. */
static PyObject *
record_slot(Loop *t, PyObject *record, int slot)
{
    if ((PyObject *)Py_TYPE(record) == t->record_class && t->slot_offsets[slot] >= 0) {
        PyObject *value = *(PyObject **)((char *)record + t->slot_offsets[slot]);
        if (value != NULL)
            return Py_NewRef(value);
    }
    return PyObject_GetAttr(record, t->slot_names[slot]);
}

#define ITEM(t, field, i) PyList_GET_ITEM((t)->list[field], (i))

/* Whether the tree's lists still hold one entry per node: the Python code the loop calls (the
 * model, a rollout, a key's __eq__ or __hash__) could change them, and the loop reads them
 * unchecked. 0, or -1 with a RuntimeError naming the list and ``during``. */
static int
intact(Loop *t, const char *during)
{
    for (int k = 0; k < LIST_COUNT; k++)
        if (PyList_GET_SIZE(t->list[k]) != t->size) {
            PyErr_Format(PyExc_RuntimeError,
                         "the search's tree was changed during the search (%s): tree.%s has "
                         "%zd entries, expected one per node (%zd); the tree's lists are "
                         "read-only outside the search",
                         during, list_names[k], PyList_GET_SIZE(t->list[k]), t->size);
            return -1;
        }
    return 0;
}

/* One rng.random(): mt's while it holds the generator's state, else Python's. */
static int
draw(Loop *t, double *u)
{
    if (t->saved != NULL) {
        *u = mt_random(&t->mt);
        return 0;
    }
    PyObject *x = PyObject_CallNoArgs(t->random);
    if (x == NULL)
        return -1;
    *u = PyFloat_AsDouble(x); /* random.Random.random: a float */
    Py_DECREF(x);
    return *u == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* The generator's state to mt (before a native rollout), or back to Python (before Python
 * code handed the generator, and at the end). 0 or -1. */
static int
rng_to_c(Loop *t)
{
    if (t->saved == NULL)
        t->saved = mt_read(t->rng, &t->mt);
    return t->saved != NULL ? 0 : -1;
}

static int
rng_to_python(Loop *t)
{
    if (t->saved == NULL)
        return 0;
    int written = mt_write(t->rng, &t->mt, t->saved);
    Py_CLEAR(t->saved);
    return written;
}

/* An int entry of a list (untried, visits, action_indices): -1 with an exception if it is not
 * an int (check PyErr_Occurred). */
static inline long long
int_item(PyObject *list, Py_ssize_t i)
{
    PyObject *x = PyList_GET_ITEM(list, i);
    if (!PyLong_Check(x)) {
        PyErr_Format(PyExc_TypeError, "the tree's int fields hold ints, got %R", x);
        return -1;
    }
    return PyLong_AsLongLong(x);
}


/* Appends one node to every list (``fields`` in GuidedTree.append_node's order, new references,
 * all stolen, NULLs failing); returns its index, or -1 with an exception. */
static Py_ssize_t
append_node(Loop *t, PyObject *fields[LIST_COUNT])
{
    int status = 0;
    if (t->size >= INT32_MAX) { /* paths hold int32 node numbers, as the plain core's */
        PyErr_SetString(PyExc_OverflowError, "the tree has 2**31 - 1 nodes, the most it may");
        status = -1;
    }
    for (int k = 0; k < LIST_COUNT; k++)
        if (status == 0 && (fields[k] == NULL || PyList_Append(t->list[k], fields[k]) < 0))
            status = -1;
    for (int k = 0; k < LIST_COUNT; k++)
        Py_XDECREF(fields[k]);
    if (status < 0)
        return -1;
    return t->size++;
}

/* Links ``child`` (made by action ``i``) into ``parent``'s children in the model's order of
 * their actions: after the last if ``append_fast`` and that one's action comes before ``i``
 * (general_loop.run's expansion), else at bisect.bisect(kids, i, key=action_indices) (both
 * loops' insertion); then parent's untried = ``left`` - 1. 0 or -1. */
static int
link_child(Loop *t, Py_ssize_t parent, Py_ssize_t child, Py_ssize_t i, long long left,
           int append_fast)
{
    PyObject *kids = ITEM(t, CHILDREN, parent);
    if (!PyTuple_Check(kids)) {
        PyErr_Format(PyExc_TypeError, "tree.children[%zd] is %R, expected a tuple", parent, kids);
        return -1;
    }
    Py_ssize_t size = PyTuple_GET_SIZE(kids), lo = 0, hi = size;
    long long last = -1;
    if (append_fast && size > 0) {
        Py_ssize_t kid = PyLong_AsSsize_t(PyTuple_GET_ITEM(kids, size - 1));
        if (kid < 0 || kid >= t->size)
            goto bad_child;
        last = int_item(t->list[ACTION_INDICES], kid);
        if (last == -1 && PyErr_Occurred())
            return -1;
    }
    if (append_fast && (size == 0 || last < i))
        lo = size;
    else
        while (lo < hi) { /* bisect_right by action index */
            Py_ssize_t mid = (lo + hi) / 2;
            Py_ssize_t kid = PyLong_AsSsize_t(PyTuple_GET_ITEM(kids, mid));
            if (kid < 0 || kid >= t->size)
                goto bad_child;
            long long index = int_item(t->list[ACTION_INDICES], kid);
            if (index == -1 && PyErr_Occurred())
                return -1;
            if (i < index)
                hi = mid;
            else
                lo = mid + 1;
        }
    PyObject *linked = untracked(PyTuple_New(size + 1)); /* ints */
    if (linked == NULL)
        return -1;
    for (Py_ssize_t k = 0, j = 0; k <= size; k++)
        PyTuple_SET_ITEM(linked, k,
                         k == lo ? PyLong_FromSsize_t(child) : Py_NewRef(PyTuple_GET_ITEM(kids, j++)));
    if (PyTuple_GET_ITEM(linked, lo) == NULL) {
        Py_DECREF(linked);
        return -1;
    }
    PyList_SetItem(t->list[CHILDREN], parent, linked);
    return set_new(t->list[UNTRIED], parent, PyLong_FromLongLong(left - 1));
bad_child:
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_IndexError, "node %zd has a child not in the tree", parent);
    return -1;
}

/* The ``i``-th item of tuple ``x`` (a borrowed reference), or NULL with an IndexError. */
static PyObject *
tuple_item(PyObject *x, Py_ssize_t i, const char *what, Py_ssize_t node)
{
    if (!PyTuple_Check(x) || i < 0 || i >= PyTuple_GET_SIZE(x)) {
        PyErr_Format(PyExc_IndexError, "tree.%s[%zd] is %R: no item %zd", what, node, x, i);
        return NULL;
    }
    return PyTuple_GET_ITEM(x, i);
}

/* chance.crossing's new chance node: action i of decision node ``node``, its ChanceRecord made
 * by chance.new_record (outcomes asked here), appended as chance._add_chance_node appends it.
 * Returns the chance node, or -1 with an exception. */
static Py_ssize_t
add_chance_node(Loop *t, Py_ssize_t node, Py_ssize_t i)
{
    PyObject *state = Py_NewRef(ITEM(t, STATES, node));
    PyObject *action = tuple_item(ITEM(t, ACTIONS, node), i, "actions", node);
    if (action == NULL) {
        Py_DECREF(state);
        return -1;
    }
    Py_INCREF(action);
    PyObject *record = NULL, *cumulative = NULL, *results = NULL, *keys = NULL;
    int taken = 0;
    if (t->records != NULL && t->records->record != NULL)
        taken = t->records->record(t->records, state, action, &cumulative, &results, &keys);
    if (taken > 0) { /* ChanceRecord(action) holding them */
        record = PyObject_CallOneArg(t->record_class, action);
        if (record != NULL &&
            (PyObject_SetAttr(record, t->slot_names[SLOT_CUMULATIVE], cumulative) < 0 ||
             PyObject_SetAttr(record, t->slot_names[SLOT_RESULTS], results) < 0 ||
             PyObject_SetAttr(record, t->slot_names[SLOT_KEYS], keys) < 0))
            Py_CLEAR(record);
        Py_DECREF(cumulative);
        Py_DECREF(results);
        Py_DECREF(keys);
    }
    else if (taken == 0) {
        PyObject *args[5] = {t->outcomes, t->key, Py_None, state, action};
        record = PyObject_Vectorcall(t->new_record, args, 5, NULL);
    }
    Py_DECREF(state);
    Py_DECREF(action);
    if (record == NULL || intact(t, "in the model's outcomes or key") < 0) {
        Py_XDECREF(record);
        return -1;
    }
    PyObject *p_obj = tuple_item(ITEM(t, PRIORS, node), i, "priors", node);
    double scaled_prior = p_obj == NULL ? 0.0 : t->c * number(p_obj); /* c * priors[node][i] */
    long long left = int_item(t->list[UNTRIED], node);
    if (PyErr_Occurred()) {
        Py_DECREF(record);
        return -1;
    }
    PyObject *fields[LIST_COUNT] = {Py_NewRef(ITEM(t, STATES, node)),
                                    Py_NewRef(ITEM(t, PLAYERS, node)),
                                    PyFloat_FromDouble(0.0),
                                    PyFloat_FromDouble(1.0),
                                    PyTuple_New(0),
                                    PyTuple_New(0),
                                    PyLong_FromLong(0),
                                    PyLong_FromLong(0),
                                    PyFloat_FromDouble(0.0),
                                    PyFloat_FromDouble(0.0),
                                    PyLong_FromSsize_t(i),
                                    PyTuple_New(0),
                                    PyFloat_FromDouble(scaled_prior),
                                    Py_NewRef(Py_None),
                                    Py_NewRef(Py_None),
                                    Py_NewRef(Py_None),
                                    record};
    Py_ssize_t chance = append_node(t, fields);
    if (chance < 0 || link_child(t, node, chance, i, left, 0) < 0)
        return -1;
    return chance;
}

/* general_loop.run's expansion of outcome ``i`` of chance node ``node``, drawn as ``result``
 * (a checked StepResult): the outcome's decision node, appended and linked. Returns it, or -1
 * with an exception. */
static Py_ssize_t
expand(Loop *t, Py_ssize_t node, Py_ssize_t i, PyObject *result)
{
    PyObject *state = Py_NewRef(ITEM(t, STATES, node));
    PyObject *action = tuple_item(ITEM(t, ACTIONS, node), i, "actions", node);
    PyObject *next_state = NULL, *reward = NULL, *terminated = NULL, *child_actions = NULL;
    PyObject *child_player = NULL, *child_priors = NULL;
    Py_ssize_t child = -1;
    Py_XINCREF(action);
    long long left = int_item(t->list[UNTRIED], node);
    if (action == NULL || (left == -1 && PyErr_Occurred()) ||
        unpack3(result, &next_state, &reward, &terminated) < 0)
        goto done;
    double r;
    if (!PyFloat_CheckExact(reward) || !isfinite(PyFloat_AS_DOUBLE(reward))) {
        Py_SETREF(reward, call3(t->checked_reward, reward, state, action));
        if (reward == NULL)
            goto done;
    }
    r = PyFloat_AsDouble(reward);
    if (r == -1.0 && PyErr_Occurred())
        goto done;
    if (terminated != Py_False && terminated != Py_True) {
        Py_SETREF(terminated, call3(t->checked_terminated, terminated, state, action));
        if (terminated == NULL)
            goto done;
    }
    int truth = PyObject_IsTrue(terminated);
    if (truth < 0)
        goto done;
    if (!truth) {
        child_actions = PyObject_CallOneArg(t->model_actions, next_state);
        if (child_actions == NULL)
            goto done;
        if (!PyTuple_CheckExact(child_actions)) {
            Py_SETREF(child_actions, call2(t->checked_actions, child_actions, next_state));
            if (child_actions == NULL)
                goto done;
        }
        if (PyTuple_GET_SIZE(child_actions)) {
            child_player = PyObject_CallOneArg(t->model_player, next_state);
            if (child_player == NULL)
                goto done;
            if (!PyLong_CheckExact(child_player)) {
                PyObject *checked = call2(t->checked_player, child_player, next_state);
                if (checked == NULL)
                    goto done;
                Py_DECREF(checked);
            }
            child_priors = uniform(t->uniform_priors, PyTuple_GET_SIZE(child_actions));
            if (child_priors == NULL)
                goto done;
        }
    }
    else
        child_actions = PyTuple_New(0);
    if (child_actions == NULL || intact(t, "in the model's actions or player") < 0)
        goto done;
    if (child_player == NULL)
        child_player = Py_NewRef(Py_None);
    if (child_priors == NULL)
        child_priors = PyTuple_New(0);
    if (child_priors == NULL)
        goto done;
    /* gamma if child_player == players[node] else minus_gamma, then c * priors[node][i] */
    PyObject *mover = Py_NewRef(ITEM(t, PLAYERS, node));
    PyObject *same = PyObject_RichCompare(child_player, mover, Py_EQ);
    Py_DECREF(mover);
    truth = same == NULL ? -1 : PyObject_IsTrue(same);
    Py_XDECREF(same);
    if (truth < 0 || intact(t, "in the players' ==") < 0)
        goto done;
    PyObject *p_obj = tuple_item(ITEM(t, PRIORS, node), i, "priors", node);
    if (p_obj == NULL)
        goto done;
    double scaled_prior = t->c * number(p_obj);
    if (scaled_prior == -1.0 && PyErr_Occurred())
        goto done;
    Py_ssize_t count = PyTuple_GET_SIZE(child_actions);
    PyObject *fields[LIST_COUNT] = {Py_NewRef(next_state),
                                    Py_NewRef(child_player),
                                    PyFloat_FromDouble(r),
                                    PyFloat_FromDouble(truth ? t->gamma : -t->gamma),
                                    Py_NewRef(child_actions),
                                    PyTuple_New(0),
                                    PyLong_FromSsize_t(count ? count : TERMINAL),
                                    PyLong_FromLong(0),
                                    PyFloat_FromDouble(0.0),
                                    PyFloat_FromDouble(0.0),
                                    PyLong_FromSsize_t(i),
                                    Py_NewRef(child_priors),
                                    PyFloat_FromDouble(scaled_prior),
                                    Py_NewRef(Py_None),
                                    Py_NewRef(Py_None),
                                    Py_NewRef(Py_None),
                                    Py_NewRef(Py_None)};
    Py_ssize_t made = append_node(t, fields);
    if (made >= 0 && link_child(t, node, made, i, left, 1) == 0)
        child = made;
done:
    Py_DECREF(state);
    Py_XDECREF(action);
    Py_XDECREF(next_state);
    Py_XDECREF(reward);
    Py_XDECREF(terminated);
    Py_XDECREF(child_actions);
    Py_XDECREF(child_player);
    Py_XDECREF(child_priors);
    return child;
}

/* chance.crossing's draw at chance node ``chance`` (of decision node ``node``): the outcome's
 * index *j and its node (*child; UNVISITED for a new outcome, then *result its StepResult, a
 * new reference, the outcome added to the chance node's actions). 0 or -1. */
static int
cross(Loop *t, Py_ssize_t node, Py_ssize_t chance, Py_ssize_t *j, Py_ssize_t *child,
      PyObject **result)
{
    PyObject *record = Py_NewRef(ITEM(t, CHANCE_RECORDS, chance));
    PyObject *outcome = NULL, *index = NULL;
    int status = -1;
    *result = NULL;
    if (t->sample_step == NULL) {
        PyObject *cumulative = record_slot(t, record, SLOT_CUMULATIVE);
        PyObject *results = record_slot(t, record, SLOT_RESULTS);
        PyObject *keys = record_slot(t, record, SLOT_KEYS);
        Py_ssize_t drawn = 0;
        int ok = cumulative != NULL && results != NULL && keys != NULL;
        if (ok && (!PyTuple_CheckExact(cumulative) || !PyTuple_CheckExact(results) ||
                   !PyTuple_CheckExact(keys))) {
            PyErr_SetString(PyExc_TypeError, "a chance record's cumulative, results and keys "
                                             "are tuples");
            ok = 0;
        }
        if (ok && PyTuple_GET_SIZE(cumulative) != 1) {
            double u = 0.0;
            ok = draw(t, &u) == 0;
            /* bisect.bisect_right(cumulative, u): the first running sum above u */
            Py_ssize_t lo = 0, hi = PyTuple_GET_SIZE(cumulative);
            while (ok && lo < hi) {
                Py_ssize_t mid = (lo + hi) / 2;
                double sum = number(PyTuple_GET_ITEM(cumulative, mid));
                if (sum == -1.0 && PyErr_Occurred())
                    ok = 0;
                else if (u < sum)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            drawn = lo;
        }
        if (ok && (drawn >= PyTuple_GET_SIZE(results) || drawn >= PyTuple_GET_SIZE(keys))) {
            PyErr_SetString(PyExc_IndexError, "tuple index out of range");
            ok = 0;
        }
        if (ok) {
            *result = Py_NewRef(PyTuple_GET_ITEM(results, drawn));
            outcome = Py_NewRef(PyTuple_GET_ITEM(keys, drawn));
        }
        Py_XDECREF(cumulative);
        Py_XDECREF(results);
        Py_XDECREF(keys);
        if (!ok)
            goto done;
    }
    else {
        PyObject *state = Py_NewRef(ITEM(t, STATES, node));
        PyObject *action = record_slot(t, record, SLOT_ACTION);
        PyObject *drawn = NULL;
        if (action != NULL && rng_to_python(t) == 0) {
            PyObject *sampled = call3(t->sample_step, state, action, t->rng);
            if (sampled != NULL) {
                PyObject *args[4] = {sampled, state, action, Py_None};
                drawn = PyObject_Vectorcall(t->checked_result, args, 4, NULL);
                Py_DECREF(sampled);
            }
        }
        if (drawn != NULL)
            outcome = call2(t->outcome_key, t->key, drawn);
        Py_DECREF(state);
        Py_XDECREF(action);
        *result = drawn;
        if (outcome == NULL || intact(t, "in the model's sample_step or key") < 0)
            goto done;
    }
    /* j = record.index.get(outcome) */
    index = record_slot(t, record, SLOT_INDEX);
    if (index == NULL)
        goto done;
    if (!PyDict_CheckExact(index)) {
        PyErr_SetString(PyExc_TypeError, "a chance record's index is a dict");
        goto done;
    }
    PyObject *found = PyDict_GetItemWithError(index, outcome);
    if (found != NULL) {
        Py_INCREF(found);
        Py_ssize_t at = PyLong_AsSsize_t(found);
        Py_DECREF(found);
        if (at == -1 && PyErr_Occurred())
            goto done;
        if (intact(t, "in an outcome key's == or hash") < 0)
            goto done;
        PyObject *kid = tuple_item(ITEM(t, CHILDREN, chance), at, "children", chance);
        if (kid == NULL)
            goto done;
        *child = PyLong_AsSsize_t(kid);
        if (*child == -1 && PyErr_Occurred())
            goto done;
        if (*child < 0 || *child >= t->size) {
            PyErr_Format(PyExc_IndexError, "node %zd has the child %zd, not in the tree", chance,
                         *child);
            goto done;
        }
        *j = at;
        Py_CLEAR(*result);
        status = 0;
        goto done;
    }
    if (PyErr_Occurred() || intact(t, "in an outcome key's == or hash") < 0)
        goto done;
    /* j = record.index[outcome] = len(actions[chance]); actions[chance] += (outcome,);
     * priors[chance] += (0.0,); untried[chance] += 1 */
    PyObject *outcomes = ITEM(t, ACTIONS, chance);
    if (!PyTuple_CheckExact(outcomes) || !PyTuple_CheckExact(ITEM(t, PRIORS, chance))) {
        PyErr_Format(PyExc_TypeError, "chance node %zd's actions and priors are tuples", chance);
        goto done;
    }
    Py_ssize_t new_j = PyTuple_GET_SIZE(outcomes);
    PyObject *j_obj = PyLong_FromSsize_t(new_j);
    if (j_obj == NULL)
        goto done;
    int stored = PyDict_SetItem(index, outcome, j_obj);
    Py_DECREF(j_obj);
    if (stored < 0 || intact(t, "in an outcome key's == or hash") < 0)
        goto done;
    outcomes = ITEM(t, ACTIONS, chance);
    PyObject *priors = ITEM(t, PRIORS, chance);
    if (!PyTuple_CheckExact(outcomes) || !PyTuple_CheckExact(priors)) {
        PyErr_Format(PyExc_TypeError, "chance node %zd's actions and priors are tuples", chance);
        goto done;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(outcomes), priors_count = PyTuple_GET_SIZE(priors);
    PyObject *grown = PyTuple_New(count + 1);
    PyObject *grown_priors = untracked(PyTuple_New(priors_count + 1)); /* floats */
    PyObject *zero = PyFloat_FromDouble(0.0);
    long long untried = int_item(t->list[UNTRIED], chance);
    if (grown == NULL || grown_priors == NULL || zero == NULL ||
        (untried == -1 && PyErr_Occurred())) {
        Py_XDECREF(grown);
        Py_XDECREF(grown_priors);
        Py_XDECREF(zero);
        goto done;
    }
    for (Py_ssize_t k = 0; k < count; k++)
        PyTuple_SET_ITEM(grown, k, Py_NewRef(PyTuple_GET_ITEM(outcomes, k)));
    PyTuple_SET_ITEM(grown, count, Py_NewRef(outcome));
    for (Py_ssize_t k = 0; k < priors_count; k++)
        PyTuple_SET_ITEM(grown_priors, k, Py_NewRef(PyTuple_GET_ITEM(priors, k)));
    PyTuple_SET_ITEM(grown_priors, priors_count, zero);
    PyList_SetItem(t->list[ACTIONS], chance, grown);
    PyList_SetItem(t->list[PRIORS], chance, grown_priors);
    if (set_new(t->list[UNTRIED], chance, PyLong_FromLongLong(untried + 1)) < 0)
        goto done;
    *j = new_j;
    *child = UNVISITED;
    status = 0;
done:
    if (status < 0)
        Py_CLEAR(*result);
    Py_DECREF(record);
    Py_XDECREF(outcome);
    Py_XDECREF(index);
    return status;
}

/* A rollout's return as the pure loop backs it up: a float as it is, anything else through
 * checked_return(value, states[node]). Steals ``value``; 0 or -1. */
static int
rollout_return(Loop *t, PyObject *value, Py_ssize_t node, double *g)
{
    if (value == NULL)
        return -1;
    if (intact(t, "in a rollout") < 0) {
        Py_DECREF(value);
        return -1;
    }
    if (!PyFloat_CheckExact(value)) {
        Py_SETREF(value, call2(t->checked_return, value, ITEM(t, STATES, node)));
        if (value == NULL)
            return -1;
    }
    *g = PyFloat_AsDouble(value);
    Py_DECREF(value);
    return *g == -1.0 && PyErr_Occurred() ? -1 : 0;
}

const char chance_run_doc[] =
    "chance_run(tree, model, natives, rng, exploration, gamma, limit, iterations, "
    "value_range, helpers)\n\n"
    "Runs ``iterations`` of mcts_agent.general_loop.run's loop for a stochastic model (UCT, no "
    "evaluator, no max_depth, no solver, one reward) on ``tree``, a GuidedTree whose lists it "
    "changes in place: the same trees, model calls and random numbers as the Python loop. "
    "``model``: (actions, player, outcomes or None, sample_step or None, key or None); "
    "``natives``: (fused or None, generic or None, a native chance capsule for the rollouts or "
    "None, one for the chance nodes' records or None); "
    "``rng``: the planner's random.Random; ``value_range``: the planner's [lo, hi] list "
    "(value_normalization), updated in place, or None; ``helpers``: (new_record, "
    "ChanceRecord, checked_result, outcome_key, uniform_priors, checked_reward, checked_terminated, "
    "checked_actions, checked_player, checked_return).";

PyObject *
core_chance_run(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("chance_run", nargs, 10))
        return NULL;
    PyObject *tree = args[0], *rng = args[3], *value_range = args[8];
    PyObject *fused, *generic, *native_capsule, *records_capsule;
    Loop t;
    memset(&t, 0, sizeof t);
    if (!PyArg_UnpackTuple(args[1], "model", 5, 5, &t.model_actions, &t.model_player,
                           &t.outcomes, &t.sample_step, &t.key) ||
        !PyArg_UnpackTuple(args[2], "natives", 4, 4, &fused, &generic, &native_capsule,
                           &records_capsule) ||
        !PyArg_UnpackTuple(args[9], "helpers", 10, 10, &t.new_record, &t.record_class,
                           &t.checked_result,
                           &t.outcome_key, &t.uniform_priors, &t.checked_reward,
                           &t.checked_terminated, &t.checked_actions, &t.checked_player,
                           &t.checked_return))
        return NULL;
    t.c = PyFloat_AsDouble(args[4]);
    t.gamma = PyFloat_AsDouble(args[5]);
    PyObject *gamma_obj = args[5], *limit_obj = args[6];
    long long limit = PyLong_AsLongLong(args[6]);
    long long iterations = PyLong_AsLongLong(args[7]);
    if (PyErr_Occurred())
        return NULL;
    if ((t.outcomes == Py_None) == (t.sample_step == Py_None)) {
        PyErr_SetString(PyExc_ValueError, "chance_run: the model has outcomes or sample_step");
        return NULL;
    }
    if (t.outcomes != Py_None)
        t.sample_step = NULL; /* outcomes drawn from the record's running sums */
    if (fused == Py_None)
        fused = NULL;
    if (generic == Py_None)
        generic = NULL;
    NativeChance *native = NULL;
    if (native_capsule != Py_None && (native = native_chance_of(native_capsule)) == NULL)
        return NULL;
    if (records_capsule != Py_None && (t.records = native_chance_of(records_capsule)) == NULL)
        return NULL;
    double lo = 0.0, hi = 0.0;
    int normalising = value_range != Py_None;
    if (normalising) {
        if (!PyList_CheckExact(value_range) || PyList_GET_SIZE(value_range) != 2) {
            PyErr_SetString(PyExc_TypeError, "chance_run: value_range is None or [lo, hi]");
            return NULL;
        }
        lo = number(PyList_GET_ITEM(value_range, 0));
        hi = number(PyList_GET_ITEM(value_range, 1));
        if (PyErr_Occurred())
            return NULL;
    }
    double span = hi - lo;
    int scaled = normalising && span > 0.0;
    int32_t *path = NULL;
    Py_ssize_t capacity = 0;
    PyObject *result = NULL;
    int lists_read = 0;
    for (int k = 0; k < LIST_COUNT; k++) {
        t.list[k] = PyObject_GetAttrString(tree, list_names[k]);
        if (t.list[k] == NULL)
            goto done;
        if (!PyList_CheckExact(t.list[k])) {
            PyErr_Format(PyExc_TypeError, "chance_run: tree.%s must be a list", list_names[k]);
            goto done;
        }
    }
    lists_read = 1;
    t.size = PyList_GET_SIZE(t.list[STATES]);
    t.rng = rng;
    t.random = PyObject_GetAttrString(rng, "random");
    if (t.random == NULL)
        goto done;
    for (int k = 0; k < 5; k++) {
        t.slot_names[k] = PyUnicode_InternFromString(slot_names[k]);
        if (t.slot_names[k] == NULL)
            goto done;
        PyObject *member = PyObject_GetAttr(t.record_class, t.slot_names[k]);
        if (member == NULL)
            goto done;
        t.slot_offsets[k] = -1;
        if (Py_IS_TYPE(member, &PyMemberDescr_Type) &&
            ((PyMemberDescrObject *)member)->d_member->type == T_OBJECT_EX)
            t.slot_offsets[k] = ((PyMemberDescrObject *)member)->d_member->offset;
        Py_DECREF(member);
    }
    if (intact(&t, "before the search's chunk") < 0)
        goto done;
    if (t.size == 0) {
        PyErr_SetString(PyExc_ValueError, "chance_run: the tree has no root");
        goto done;
    }

    for (long long it = 0; it < iterations; it++) {
        if ((it & 1023) == 1023 && PyErr_CheckSignals() < 0)
            goto done;
        Py_ssize_t node = 0, depth = 0;
        /* 1. Selection, down to a terminal node or an untried action i; every action leads
         * through its chance node, where one outcome is drawn. */
        for (;;) {
            long long left = int_item(t.list[UNTRIED], node);
            if (left == -1 && PyErr_Occurred())
                goto done;
            if (left == TERMINAL)
                break;
            PyObject *kids = ITEM(&t, CHILDREN, node);
            if (!PyTuple_Check(kids)) {
                PyErr_Format(PyExc_TypeError, "tree.children[%zd] is %R, expected a tuple", node,
                             kids);
                goto done;
            }
            Py_ssize_t i = -1, child = UNVISITED;
            if (left) /* UCT: the first untried action */
                i = PyTuple_GET_SIZE(kids);
            else { /* UCT: UCB1, the first of the highest */
                PyObject *n_obj = ITEM(&t, VISITS, node);
                double n = number(n_obj);
                if (n == -1.0 && PyErr_Occurred())
                    goto done;
                if (!(n > 0.0)) {
                    PyErr_SetString(PyExc_ValueError, "math domain error"); /* math.log */
                    goto done;
                }
                if (PyTuple_GET_SIZE(kids) == 0) {
                    PyErr_SetString(PyExc_IndexError, "tuple index out of range");
                    goto done;
                }
                double log_n = log(n), best_score = -INFINITY;
                for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kids); k++) {
                    Py_ssize_t kid = PyLong_AsSsize_t(PyTuple_GET_ITEM(kids, k));
                    if (kid < 0 || kid >= t.size) {
                        if (!PyErr_Occurred())
                            PyErr_Format(PyExc_IndexError,
                                         "node %zd has the child %zd, not in the tree", node, kid);
                        goto done;
                    }
                    if (k == 0)
                        child = kid;
                    double q = number(ITEM(&t, VALUES, kid));
                    double visits = number(ITEM(&t, VISITS, kid));
                    if (PyErr_Occurred())
                        goto done;
                    if (visits == 0.0) {
                        PyErr_SetString(PyExc_ZeroDivisionError, "float division by zero");
                        goto done;
                    }
                    double ratio = log_n / visits;
                    if (ratio < 0.0) {
                        PyErr_SetString(PyExc_ValueError, "math domain error"); /* math.sqrt */
                        goto done;
                    }
                    double score = scaled ? (q - lo) / span + t.c * sqrt(ratio)
                                          : q + t.c * sqrt(ratio);
                    if (score > best_score) {
                        best_score = score;
                        child = kid;
                    }
                }
            }
            /* On to the action's chance node (made if the action is untried), one outcome
             * drawn there. */
            Py_ssize_t chance = child;
            if (chance == UNVISITED && (chance = add_chance_node(&t, node, i)) < 0)
                goto done;
            if (path_push(&path, &capacity, &depth, (int32_t)chance) < 0)
                goto done;
            Py_ssize_t j = 0, outcome = UNVISITED;
            PyObject *drawn;
            if (cross(&t, node, chance, &j, &outcome, &drawn) < 0)
                goto done;
            if (outcome != UNVISITED) {
                node = outcome;
                if (path_push(&path, &capacity, &depth, (int32_t)node) < 0)
                    goto done;
                continue;
            }
            /* 2. Expansion of the new outcome j drawn at the chance node. */
            node = expand(&t, chance, j, drawn);
            Py_DECREF(drawn);
            if (node < 0 || path_push(&path, &capacity, &depth, (int32_t)node) < 0)
                goto done;
            break;
        }

        /* 3. Simulation: 0 at a terminal node, else a rollout. */
        double g = 0.0;
        long long left = int_item(t.list[UNTRIED], node);
        if (left == -1 && PyErr_Occurred())
            goto done;
        PyObject *leaf_value = ITEM(&t, LEAF_VALUES, node);
        if (left == TERMINAL)
            g = 0.0;
        else if (leaf_value != Py_None) {
            g = number(leaf_value);
            if (g == -1.0 && PyErr_Occurred())
                goto done;
        }
        else if (fused != NULL || generic != NULL) {
            int taken = 0;
            if (native != NULL) {
                if (rng_to_c(&t) < 0)
                    goto done;
                taken = native->rollout(native, ITEM(&t, STATES, node), mt_random, &t.mt, limit,
                                        t.gamma, &g);
                if (taken < 0)
                    goto done;
            }
            if (!taken) {
                if (rng_to_python(&t) < 0)
                    goto done;
                PyObject *state = Py_NewRef(ITEM(&t, STATES, node)), *value;
                if (fused != NULL) {
                    PyObject *fargs[4] = {state, rng, limit_obj, gamma_obj};
                    value = PyObject_Vectorcall(fused, fargs, 4, NULL);
                }
                else {
                    PyObject *actions = Py_NewRef(ITEM(&t, ACTIONS, node));
                    PyObject *player = Py_NewRef(ITEM(&t, PLAYERS, node));
                    value = call3(generic, state, actions, player);
                    Py_DECREF(actions);
                    Py_DECREF(player);
                }
                Py_DECREF(state);
                if (rollout_return(&t, value, node, &g) < 0)
                    goto done;
            }
        }

        /* 4. Backup, leaf first: G = r + d * G (d: gamma, -gamma, or 1.0 at a chance node),
         * N += 1, W += G, Q = W / N; then the root's N; then lo and hi widened by the path's Q,
         * leaf first. */
        for (Py_ssize_t k = depth - 1; k >= 0; k--) {
            Py_ssize_t at = path[k];
            double r = number(ITEM(&t, REWARDS, at));
            double d = number(ITEM(&t, DISCOUNTS, at));
            long long n = int_item(t.list[VISITS], at);
            double w = number(ITEM(&t, VALUE_SUMS, at));
            if (PyErr_Occurred())
                goto done;
            g = r + d * g;
            n += 1;
            w = w + g;
            double q = w / (double)n;
            if (set_new(t.list[VISITS], at, PyLong_FromLongLong(n)) < 0 ||
                set_new(t.list[VALUE_SUMS], at, PyFloat_FromDouble(w)) < 0 ||
                set_new(t.list[VALUES], at, PyFloat_FromDouble(q)) < 0)
                goto done;
            if (normalising) {
                if (q < lo)
                    lo = q;
                if (q > hi)
                    hi = q;
            }
        }
        long long root_n = int_item(t.list[VISITS], 0);
        if ((root_n == -1 && PyErr_Occurred()) ||
            set_new(t.list[VISITS], 0, PyLong_FromLongLong(root_n + 1)) < 0)
            goto done;
        if (normalising) {
            span = hi - lo;
            scaled = span > 0.0;
        }
    }
    result = Py_NewRef(Py_None);

done:
    {
        /* The generator back to Python, lo and hi to the planner: on errors too. */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        int failed = rng_to_python(&t) < 0;
        if (!failed && normalising && lists_read) {
            failed = set_new(value_range, 0, PyFloat_FromDouble(lo)) < 0 ||
                     set_new(value_range, 1, PyFloat_FromDouble(hi)) < 0;
        }
        if (failed) {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            Py_CLEAR(result);
        }
        else
            PyErr_Restore(type, value, tb);
    }
    Py_XDECREF(t.saved);
    PyMem_Free(path);
    for (int k = 0; k < LIST_COUNT; k++)
        Py_XDECREF(t.list[k]);
    Py_XDECREF(t.random);
    for (int k = 0; k < 5; k++)
        Py_XDECREF(t.slot_names[k]);
    return result;
}
