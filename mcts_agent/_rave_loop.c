/* mcts_agent._core's RAVE/GRAVE loop on Go: mcts_agent.rave.run on GoModel, in C, with the
 * same trees (mcts_agent/compiled_rave.py, docs/guides/compiled-core.md).
 *
 * The search keeps its nodes in flat arrays: per node its record (RaveNode), its legal actions
 * (GoModel.actions' order: the points in increasing order, the pass last), its child per
 * action (-1 while untried), its board as it stands (for the tree's GoState, written once the
 * search ends) and its AMAF table, dense: count and value sum per (player, action), the key
 * (q, a) at (q - 1) * (N * N + 1) + a. An iteration copies the root's board and plays the
 * path's moves on the copy, so the tree holds no GoBoard.
 *
 * Every floating-point operation is rave.run's, in its order (rave.py's docstring): the score
 * ((1 - beta) * Q + beta * (W~ / N~)) + c * sqrt(log(N) / n) with beta = N~ / ((N~ + n) + (b *
 * N~) * n), UCB1 where N~ = 0; the backup G = r + d * G, W += G, Q = W / N; an AMAF entry made
 * at (1, ret), then N~ += 1, W~ += ret. The playout is go_playout (GoModel.amaf_rollout), its
 * random numbers drawn from a Mersenne Twister that continues the planner's random.Random.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "_core.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define RAVE_TERMINAL (-1) /* mcts_agent.tree.TERMINAL */

static const char SEARCH_NAME[] = "mcts_agent.go_rave_search";

typedef struct {
    int32_t parent;       /* -1 for the root */
    int32_t action_index; /* index of the action into it in its parent's actions; -1 root */
    int32_t action;       /* that action (GoModel's numbering); -1 for the root */
    int32_t player;       /* to move: 1 or 2; 0 once the game is over */
    int32_t mover;        /* the parent's player (who moved into it); 0 for the root */
    int32_t untried;      /* actions not yet tried, or RAVE_TERMINAL */
    int32_t action_count; /* legal actions (0 once over) */
    int32_t to_play, ko, passes; /* the GoState's fields (ko: an action or -1) */
    int64_t actions_at;   /* offset of its actions and children in the pools */
    long long visits;
    double reward, discount, value_sum, value;
} RaveNode;

typedef struct {
    GoBoard root;       /* the root's position */
    int cells;          /* N * N */
    int keys;           /* AMAF keys per node: 2 * (N * N + 1) */
    double bias;
    long long grave_ref;
    RaveNode *nodes;
    Py_ssize_t count, capacity;
    int16_t *actions;   /* pool: each node's legal actions */
    int32_t *children;  /* pool, parallel to actions: the child per action, -1 untried */
    int64_t pool_used, pool_capacity;
    uint8_t *boards;    /* node i's board at i * cells: 0 empty, 1 black, 2 white */
    int32_t *amaf_n;    /* node i's AMAF counts at i * keys */
    double *amaf_w;     /* and value sums */
    int32_t *path;      /* the nodes below the root chosen by an iteration */
    Py_ssize_t path_capacity;
    int32_t *moves;     /* the rollout's moves (player, action) */
    long long moves_capacity;
    int32_t *first;     /* per action: the player of its first occurrence so far, 0 none */
    int32_t *present;   /* the actions with first[a] != 0, in the order met */
    int present_count;
} RaveSearch;

static void
search_free(PyObject *capsule)
{
    RaveSearch *s = PyCapsule_GetPointer(capsule, SEARCH_NAME);
    if (s == NULL)
        return;
    PyMem_Free(s->nodes);
    PyMem_Free(s->actions);
    PyMem_Free(s->children);
    PyMem_Free(s->boards);
    PyMem_Free(s->amaf_n);
    PyMem_Free(s->amaf_w);
    PyMem_Free(s->path);
    PyMem_Free(s->moves);
    PyMem_Free(s->first);
    PyMem_Free(s->present);
    PyMem_Free(s);
}

/* Grows *array (of ``size``-byte items) to hold ``needed`` items; 0, or -1 with MemoryError. */
static int
grow(void **array, size_t size, int64_t needed, int64_t *capacity)
{
    if (needed <= *capacity)
        return 0;
    int64_t wanted = *capacity > 0 ? *capacity : 64;
    while (wanted < needed)
        wanted *= 2;
    void *bigger = PyMem_Realloc(*array, (size_t)wanted * size);
    if (bigger == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *array = bigger;
    *capacity = wanted;
    return 0;
}

/* Appends a node for the position *b (its legal actions listed unless ``over``); returns its
 * index, or -1 with MemoryError. */
static int32_t
add_node(RaveSearch *s, const GoBoard *b, int over)
{
    if (s->count == s->capacity) {
        int64_t capacity = s->capacity;
        if (grow((void **)&s->nodes, sizeof(RaveNode), s->count + 1, &capacity) < 0)
            return -1;
        size_t cells = (size_t)capacity * s->cells, keys = (size_t)capacity * s->keys;
        uint8_t *boards = PyMem_Realloc(s->boards, cells);
        if (boards == NULL)
            return PyErr_NoMemory(), -1;
        s->boards = boards;
        int32_t *amaf_n = PyMem_Realloc(s->amaf_n, keys * sizeof(int32_t));
        if (amaf_n == NULL)
            return PyErr_NoMemory(), -1;
        s->amaf_n = amaf_n;
        double *amaf_w = PyMem_Realloc(s->amaf_w, keys * sizeof(double));
        if (amaf_w == NULL)
            return PyErr_NoMemory(), -1;
        s->amaf_w = amaf_w;
        s->capacity = (Py_ssize_t)capacity;
    }
    int cells = s->cells;
    if (!over) {
        int64_t capacity = s->pool_capacity;
        int64_t needed = s->pool_used + cells + 1;
        if (grow((void **)&s->actions, sizeof(int16_t), needed, &capacity) < 0)
            return -1;
        capacity = s->pool_capacity;
        if (grow((void **)&s->children, sizeof(int32_t), needed, &capacity) < 0)
            return -1;
        s->pool_capacity = capacity;
    }
    int32_t index = (int32_t)s->count++;
    RaveNode *node = &s->nodes[index];
    memset(node, 0, sizeof(RaveNode));
    node->parent = node->action_index = node->action = -1;
    node->to_play = b->to_play;
    node->ko = b->ko < 0 ? -1 : go_action(b, b->ko);
    node->passes = b->passes;
    node->actions_at = s->pool_used;
    uint8_t *board = &s->boards[(size_t)index * cells];
    for (int a = 0; a < cells; a++)
        board[a] = b->cell[go_point(b, a)];
    memset(&s->amaf_n[(size_t)index * s->keys], 0, (size_t)s->keys * sizeof(int32_t));
    memset(&s->amaf_w[(size_t)index * s->keys], 0, (size_t)s->keys * sizeof(double));
    if (over) {
        node->untried = RAVE_TERMINAL;
        return index;
    }
    int16_t *actions = &s->actions[s->pool_used];
    int count = 0;
    for (int a = 0; a <= cells; a++)
        if (go_legal(b, a))
            actions[count++] = (int16_t)a;
    for (int k = 0; k < count; k++)
        s->children[s->pool_used + k] = -1;
    s->pool_used += count;
    node->action_count = count;
    node->untried = count; /* the pass is always legal: never 0 */
    node->player = b->to_play;
    return index;
}

const char go_rave_search_doc[] =
    "go_rave_search(state, komi, capture_heuristic, rave_bias, grave_ref) -> search: a "
    "RAVE/GRAVE search of Go from the GoState ``state`` (not over) with ``komi`` and the "
    "playout's ``capture_heuristic`` (0 or 1), holding its root only.";

PyObject *
core_go_rave_search(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("go_rave_search", nargs, 5))
        return NULL;
    double komi = PyFloat_AsDouble(args[1]), bias = PyFloat_AsDouble(args[3]);
    int capture_heuristic = PyObject_IsTrue(args[2]);
    long long grave_ref = PyLong_AsLongLong(args[4]);
    if (PyErr_Occurred())
        return NULL;
    RaveSearch *s = PyMem_Calloc(1, sizeof(RaveSearch));
    if (s == NULL)
        return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(s, SEARCH_NAME, search_free);
    if (capsule == NULL) {
        PyMem_Free(s);
        return NULL;
    }
    if (go_board_init(&s->root, args[0], komi, capture_heuristic) < 0) {
        Py_DECREF(capsule);
        return NULL;
    }
    s->cells = s->root.size * s->root.size;
    s->keys = 2 * (s->cells + 1);
    s->bias = bias;
    s->grave_ref = grave_ref;
    s->first = PyMem_Calloc((size_t)s->cells + 1, sizeof(int32_t));
    s->present = PyMem_Calloc((size_t)s->cells + 1, sizeof(int32_t));
    if (s->first == NULL || s->present == NULL) {
        Py_DECREF(capsule);
        return PyErr_NoMemory();
    }
    if (add_node(s, &s->root, 0) < 0) {
        Py_DECREF(capsule);
        return NULL;
    }
    return capsule;
}

/* The RaveSearch of args[0] (a capsule of this file's searches), after checking nargs; or NULL. */
static RaveSearch *
search_argument(const char *name, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t expected)
{
    return capsule_argument(name, args, nargs, expected, SEARCH_NAME);
}

const char go_rave_search_size_doc[] = "go_rave_search_size(search) -> int: the nodes it holds.";

PyObject *
core_go_rave_search_size(PyObject *module, PyObject *capsule)
{
    RaveSearch *s = PyCapsule_GetPointer(capsule, SEARCH_NAME);
    return s == NULL ? NULL : PyLong_FromSsize_t(s->count);
}

/* Notes the move (player, action) walking the iteration's moves from its end: it is now the
 * first occurrence of ``action``. The pass is kept out (GoModel.amaf_excluded). */
static inline void
note_first(RaveSearch *s, int player, int action)
{
    if (action == s->cells)
        return;
    if (s->first[action] == 0)
        s->present[s->present_count++] = action;
    s->first[action] = player;
}

/* Adds one iteration to node ``node``'s table: each first occurrence (q, a), the return
 * ``ret`` from ``mover``'s point of view (negated for the other player). */
static inline void
add_amaf(RaveSearch *s, int32_t node, int mover, double ret)
{
    int32_t *counts = &s->amaf_n[(size_t)node * s->keys];
    double *sums = &s->amaf_w[(size_t)node * s->keys];
    double minus = -ret;
    int width = s->cells + 1;
    for (int k = 0; k < s->present_count; k++) {
        int a = s->present[k], q = s->first[a];
        int key = (q - 1) * width + a;
        double value = q == mover ? ret : minus;
        if (counts[key] == 0)
            sums[key] = value; /* a new entry is (1, ret): -0.0 stays -0.0 */
        else
            sums[key] += value;
        counts[key] += 1;
    }
}

/* One iteration of rave.run; 0, or -1 with an exception set. */
static int
iterate(void *search, MTState *mt, double c, double gamma, long long limit)
{
    RaveSearch *s = search;
    GoBoard b;
    memcpy(&b, &s->root, sizeof(GoBoard));
    int width = s->cells + 1;
    int32_t node = 0, ref = 0;
    Py_ssize_t depth = 0;
    /* 1. Selection, with GRAVE's reference node. */
    for (;;) {
        RaveNode *n = &s->nodes[node];
        if (n->untried == RAVE_TERMINAL)
            break;
        if (n->visits >= s->grave_ref)
            ref = node;
        if (n->untried)
            break;
        const int32_t *counts = &s->amaf_n[(size_t)ref * s->keys];
        const double *sums = &s->amaf_w[(size_t)ref * s->keys];
        int base = (n->player - 1) * width;
        double log_n = log((double)n->visits);
        double best_score = -INFINITY;
        const int32_t *kids = &s->children[n->actions_at];
        const int16_t *actions = &s->actions[n->actions_at];
        int32_t child = kids[0];
        for (int k = 0; k < n->action_count; k++) {
            const RaveNode *kid = &s->nodes[kids[k]];
            double visits = (double)kid->visits, score;
            int key = base + actions[k];
            if (counts[key] == 0) {
                score = kid->value + c * sqrt(log_n / visits);
            }
            else {
                double n_amaf = (double)counts[key];
                double beta = n_amaf / ((n_amaf + visits) + (s->bias * n_amaf) * visits);
                score = ((1.0 - beta) * kid->value + beta * (sums[key] / n_amaf)) +
                        c * sqrt(log_n / visits);
            }
            if (score > best_score) {
                best_score = score;
                child = kids[k];
            }
        }
        go_play(&b, s->nodes[child].action);
        node = child;
        if (path_push(&s->path, &s->path_capacity, &depth, node) < 0)
            return -1;
    }
    RaveNode *leaf = &s->nodes[node];
    /* 2. Expansion of the untried action of largest Q~ (data first; ties: model order). */
    if (leaf->untried > 0) {
        const int32_t *counts = &s->amaf_n[(size_t)ref * s->keys];
        const double *sums = &s->amaf_w[(size_t)ref * s->keys];
        int base = (leaf->player - 1) * width;
        int i = -1, first_untried = -1;
        double best_amaf = -INFINITY;
        for (int j = 0; j < leaf->action_count; j++) {
            if (s->children[leaf->actions_at + j] >= 0)
                continue;
            if (first_untried < 0)
                first_untried = j;
            int key = base + s->actions[leaf->actions_at + j];
            if (counts[key] > 0) {
                double q_amaf = sums[key] / (double)counts[key];
                if (q_amaf > best_amaf || i < 0) {
                    best_amaf = q_amaf;
                    i = j;
                }
            }
        }
        if (i < 0)
            i = first_untried;
        int mover = leaf->player, action = s->actions[leaf->actions_at + i];
        go_play(&b, action);
        int over = b.passes >= 2;
        double reward = 0.0;
        if (over) {
            int black_wins = go_score(&b) > 0;
            reward = black_wins == (mover == GO_BLACK) ? 1.0 : -1.0;
        }
        int32_t parent = node;
        int32_t child = add_node(s, &b, over); /* may move s->nodes */
        if (child < 0)
            return -1;
        RaveNode *kid = &s->nodes[child];
        kid->parent = parent;
        kid->action_index = i;
        kid->action = action;
        kid->mover = mover;
        kid->reward = reward;
        kid->discount = kid->player == mover ? gamma : -gamma;
        s->children[s->nodes[parent].actions_at + i] = child;
        s->nodes[parent].untried -= 1;
        node = child;
        if (path_push(&s->path, &s->path_capacity, &depth, node) < 0)
            return -1;
    }
    /* 3. Simulation, its moves recorded. */
    double g = 0.0;
    long long played = 0;
    leaf = &s->nodes[node];
    if (leaf->untried != RAVE_TERMINAL && limit > 0) {
        long long cap = 3LL * s->cells, most = limit < cap ? limit : cap;
        if (most > s->moves_capacity) {
            int32_t *moves = PyMem_Realloc(s->moves, 2 * sizeof(int32_t) * (size_t)most);
            if (moves == NULL)
                return PyErr_NoMemory(), -1;
            s->moves = moves;
            s->moves_capacity = most;
        }
        if (go_playout(&b, mt_random, mt, limit, gamma, s->moves, &played, &g) < 0)
            return -1;
    }
    /* 4. Backup and AMAF updates, leaf first. */
    s->present_count = 0;
    for (long long k = played - 1; k >= 0; k--) /* from the end: the first occurrence wins */
        note_first(s, s->moves[2 * k], s->moves[2 * k + 1]);
    if (s->present_count)
        add_amaf(s, node, leaf->player, g);
    for (Py_ssize_t k = depth - 1; k >= 0; k--) {
        RaveNode *n = &s->nodes[s->path[k]];
        g = n->reward + n->discount * g;
        n->visits += 1;
        n->value_sum = n->value_sum + g;
        n->value = n->value_sum / (double)n->visits;
        note_first(s, n->mover, n->action);
        add_amaf(s, k ? s->path[k - 1] : 0, n->mover, g);
    }
    s->nodes[0].visits += 1;
    for (int k = 0; k < s->present_count; k++)
        s->first[s->present[k]] = 0;
    return 0; /* |G| <= 1 in Go: always finite */
}

const char go_rave_search_run_doc[] =
    "go_rave_search_run(search, rng, c, gamma, rollout_limit, iterations) -> None: runs "
    "iterations RAVE/GRAVE iterations, drawing from rng (a random.Random, continued).";

PyObject *
core_go_rave_search_run(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    RaveSearch *s = search_argument("go_rave_search_run", args, nargs, 6);
    return s == NULL ? NULL : run_iterations(s, iterate, args, 1024);
}

const char go_rave_amaf_doc[] =
    "go_rave_amaf(search, node) -> dict: node's AMAF table, {(player, action): [count, "
    "value_sum]} (an entry of RaveTree.amaf_tables).";

PyObject *
core_go_rave_amaf(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    RaveSearch *s = search_argument("go_rave_amaf", args, nargs, 2);
    if (s == NULL)
        return NULL;
    Py_ssize_t node = PyLong_AsSsize_t(args[1]);
    if (node == -1 && PyErr_Occurred())
        return NULL;
    if (node < 0 || node >= s->count) {
        PyErr_Format(PyExc_IndexError, "node %zd out of range for a tree of %zd nodes", node,
                     s->count);
        return NULL;
    }
    const int32_t *counts = &s->amaf_n[(size_t)node * s->keys];
    const double *sums = &s->amaf_w[(size_t)node * s->keys];
    int width = s->cells + 1;
    PyObject *table = PyDict_New();
    for (int key = 0; table != NULL && key < s->keys; key++) {
        if (counts[key] == 0)
            continue;
        PyObject *k = Py_BuildValue("(ii)", key / width + 1, key % width);
        PyObject *v = Py_BuildValue("[id]", counts[key], sums[key]);
        if (k == NULL || v == NULL || PyDict_SetItem(table, k, v) < 0)
            Py_CLEAR(table);
        Py_XDECREF(k);
        Py_XDECREF(v);
    }
    return table;
}

/* Appends ``value`` (a new reference, stolen) to ``list``; 0, or -1 if it is NULL. */
static int
append_new(PyObject *list, PyObject *value)
{
    if (value == NULL)
        return -1;
    int done = PyList_Append(list, value);
    Py_DECREF(value);
    return done;
}

const char go_rave_search_write_doc[] =
    "go_rave_search_write(search, tree, go_state, uniform_priors) -> None: writes the "
    "search's nodes into the RaveTree (which holds its root only): every per-node list of a "
    "GuidedTree plus amaf_keys, and the root's untried, children and visits; the AMAF tables "
    "are read with go_rave_amaf. go_state makes a GoState, uniform_priors(count) the priors.";

PyObject *
core_go_rave_search_write(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    RaveSearch *s = search_argument("go_rave_search_write", args, nargs, 4);
    if (s == NULL)
        return NULL;
    PyObject *tree = args[1], *go_state = args[2], *uniform_priors = args[3];
    enum {
        STATES, PLAYERS, REWARDS, DISCOUNTS, ACTIONS, CHILDREN, UNTRIED, VISITS, VALUE_SUMS,
        VALUES, ACTION_INDICES, PRIORS, SCALED_PRIORS, LEAF_VALUES, EXPANSION_ORDERS,
        PROVEN_VALUES, CHANCE_RECORDS, AMAF_KEYS, FIELDS
    };
    static const char *names[FIELDS] = {
        "states", "players", "rewards", "discounts", "actions", "children",
        "untried", "visits", "value_sums", "values", "action_indices", "priors",
        "scaled_priors", "leaf_values", "expansion_orders", "proven_values",
        "chance_records", "amaf_keys"};
    PyObject *fields[FIELDS] = {NULL};
    int failed = 0;
    for (int f = 0; f < FIELDS && !failed; f++) {
        fields[f] = PyObject_GetAttrString(tree, names[f]);
        failed = fields[f] == NULL || !PyList_CheckExact(fields[f]) ||
                 PyList_GET_SIZE(fields[f]) != 1;
    }
    if (failed && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError,
                        "go_rave_search_write: the tree must hold its root only");
    int cells = s->cells;
    /* uniform_priors(count) per count, made once (a tuple: nodes may share it) */
    PyObject **uniform = PyMem_Calloc((size_t)cells + 2, sizeof(PyObject *));
    if (uniform == NULL && !failed) {
        PyErr_NoMemory();
        failed = 1;
    }
    for (Py_ssize_t i = 0; i < s->count && !failed; i++) {
        const RaveNode *n = &s->nodes[i];
        PyObject *children = PyList_New(0), *actions = PyTuple_New(n->action_count);
        failed = children == NULL || actions == NULL;
        for (int k = 0; k < n->action_count && !failed; k++) {
            int32_t child = s->children[n->actions_at + k];
            PyObject *action = PyLong_FromLong(s->actions[n->actions_at + k]);
            failed = action == NULL;
            if (!failed)
                PyTuple_SET_ITEM(actions, k, action);
            if (!failed && child >= 0)
                failed = append_new(children, PyLong_FromLong(child)) < 0;
        }
        PyObject *kids = failed ? NULL : PyList_AsTuple(children);
        Py_XDECREF(children);
        failed = failed || kids == NULL;
        if (i == 0) { /* the root: its untried, children and visits */
            failed = failed || PyList_SetItem(fields[CHILDREN], 0, kids) < 0 ||
                     PyList_SetItem(fields[UNTRIED], 0, PyLong_FromLong(n->untried)) < 0 ||
                     PyList_SetItem(fields[VISITS], 0, PyLong_FromLongLong(n->visits)) < 0;
            Py_XDECREF(actions);
            continue;
        }
        PyObject *board = failed ? NULL
                                 : PyBytes_FromStringAndSize(
                                       (const char *)&s->boards[(size_t)i * cells], cells);
        PyObject *state = board == NULL ? NULL
                                        : PyObject_CallFunction(go_state, "(Oiii)", board,
                                                                n->to_play, n->ko, n->passes);
        Py_XDECREF(board);
        PyObject *priors = NULL;
        if (state != NULL && uniform[n->action_count] == NULL)
            uniform[n->action_count] =
                n->action_count ? PyObject_CallFunction(uniform_priors, "(i)", n->action_count)
                                : PyTuple_New(0);
        if (state != NULL)
            priors = Py_XNewRef(uniform[n->action_count]);
        PyObject *row[FIELDS] = {
            state,
            n->player ? PyLong_FromLong(n->player) : Py_NewRef(Py_None),
            PyFloat_FromDouble(n->reward),
            PyFloat_FromDouble(n->discount),
            actions,
            kids,
            PyLong_FromLong(n->untried),
            PyLong_FromLongLong(n->visits),
            PyFloat_FromDouble(n->value_sum),
            PyFloat_FromDouble(n->value),
            PyLong_FromLong(n->action_index),
            priors,
            PyFloat_FromDouble(0.0),
            Py_NewRef(Py_None),
            Py_NewRef(Py_None),
            Py_NewRef(Py_None),
            Py_NewRef(Py_None),
            Py_BuildValue("(ii)", n->mover, n->action),
        };
        for (int f = 0; f < FIELDS; f++) {
            failed = failed || row[f] == NULL || PyList_Append(fields[f], row[f]) < 0;
            Py_XDECREF(row[f]);
        }
    }
    for (int f = 0; f < FIELDS; f++)
        Py_XDECREF(fields[f]);
    for (int k = 0; uniform != NULL && k <= cells + 1; k++)
        Py_XDECREF(uniform[k]);
    PyMem_Free(uniform);
    return failed ? NULL : Py_NewRef(Py_None);
}
