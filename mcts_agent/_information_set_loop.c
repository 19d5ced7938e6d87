/* The ISMCTS loop of mcts_agent/information_sets.py on LeducModel, compiled
 * (mcts_agent/compiled_information_sets.py, docs/guides/compiled-core.md).
 *
 * run() of information_sets.py for its plain case (UCT, no evaluator, no max_depth, no value
 * normalisation, one reward, the generic random rollout of MCTS._rollouts) on
 * mcts_agent.envs.leduc.LeducModel, statement for statement: the same IEEE operations in the
 * same order (UCB1 as W / n + c * sqrt(log(A) / n), backup as r + (+-gamma) * g, rollout
 * returns as g += coef * r), floating-point contraction off (setup.py), and the same random
 * numbers: the world's cards by random.Random.randrange (CPython's
 * _randbelow_with_getrandbits: getrandbits(k) = genrand_uint32() >> (32 - k), k the bit
 * length of n, redrawn while >= n), the rollouts' actions by random(), from the Mersenne
 * Twister of _core.c continuing the planner's generator (getstate before a chunk, setstate
 * after).
 *
 * Leduc's information sets are dense: a betting position (first, history) is a small integer
 * of the table that compiled_information_sets.py makes from leduc._NODES (leduc_table), and an
 * information set of the player to move is (betting position, their card, the public card or
 * none). The search (leduc_search) keeps its nodes as C records, in the order the pure loop
 * makes them, with each node's action orders (first legal, first backed up, first reached)
 * and children, and writes them into the InformationSetTree once (leduc_search_write) with
 * the tree's add_node: the same keys, lists and dicts, in the same insertion orders.
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

#define LEDUC_ACTIONS 4 /* CALL, RAISE, FOLD, CHECK */
#define LEDUC_RANKS 3
#define PUBLIC_SLOTS 4 /* the public rank, or NOT_SEEN */
#define NOT_SEEN 3
#define MOST_CHILDREN 9 /* the next mover's card and the public card: 3 x 3 at most */
#define MOST_MOVES 32   /* a hand has at most 8 bets */
#define BIG_BLIND 2.0

static const char TABLE_NAME[] = "mcts_agent.leduc_table";
static const char SEARCH_NAME[] = "mcts_agent.leduc_search";

/* A betting position of leduc._NODES (everything but the cards). */
typedef struct {
    int player;                /* to move */
    int count;                 /* legal actions (increasing), 0 at the end */
    int actions[LEDUC_ACTIONS];
    int32_t next[LEDUC_ACTIONS]; /* by action number: the position after it, or -1 */
    int folded;                /* the player who folded, or -1 */
    int revealed;              /* the public card is seen */
    long chips[2];
    PyObject *history;         /* the history tuple (a reference) */
} Betting;

typedef struct {
    Py_ssize_t count;
    Betting *positions;
} LeducTable;

/* One information-set node: its statistics per action number, and its orders. */
typedef struct {
    int32_t information_set;
    int player;
    long long visits;
    long long edge_visits[LEDUC_ACTIONS], availability[LEDUC_ACTIONS];
    double edge_values[LEDUC_ACTIONS];
    int8_t seen[LEDUC_ACTIONS], tried[LEDUC_ACTIONS], reached[LEDUC_ACTIONS]; /* action orders */
    int8_t seen_count, tried_count, reached_count;
    int8_t child_count[LEDUC_ACTIONS];
    int32_t children[LEDUC_ACTIONS][MOST_CHILDREN];
} SetNode;

typedef struct {
    PyObject *table_capsule; /* keeps the table alive */
    LeducTable *table;
    int hands[2], public, first, root_player, revealed;
    int32_t root;             /* the root's betting position */
    int unseen[5], unseen_count; /* the cards the root player has not seen, as leduc's list */
    int32_t *node_of;         /* per information set: its node, or -1 */
    SetNode *nodes;
    Py_ssize_t count, capacity;
} Search;

static void
table_free(PyObject *capsule)
{
    LeducTable *t = PyCapsule_GetPointer(capsule, TABLE_NAME);
    if (t == NULL)
        return;
    for (Py_ssize_t i = 0; i < t->count; i++)
        Py_XDECREF(t->positions[i].history);
    PyMem_Free(t->positions);
    PyMem_Free(t);
}

static int
read_ints(PyObject *seq, long *out, Py_ssize_t count)
{
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != count) {
        PyErr_SetString(PyExc_TypeError, "leduc_table: a field is not a tuple of the right size");
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        out[i] = PyLong_AsLong(PyTuple_GET_ITEM(seq, i));
        if (out[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

const char leduc_table_doc[] =
    "leduc_table(rows) -> capsule: the betting positions of LeducModel. Each row is "
    "(history, player, actions, next, chips, folded, revealed): the history tuple, the "
    "player to move, the legal actions (a tuple), the row of the position after each action "
    "number 0..3 (-1 where illegal), both players' chips, the folder (-1 for none), 0 or 1.";

PyObject *
core_leduc_table(PyObject *module, PyObject *rows)
{
    if (!PyList_Check(rows)) {
        PyErr_SetString(PyExc_TypeError, "leduc_table takes a list of rows");
        return NULL;
    }
    LeducTable *t = PyMem_Calloc(1, sizeof(LeducTable));
    if (t == NULL)
        return PyErr_NoMemory();
    Py_ssize_t count = PyList_GET_SIZE(rows);
    t->positions = PyMem_Calloc(count > 0 ? count : 1, sizeof(Betting));
    if (t->positions == NULL) {
        PyMem_Free(t);
        return PyErr_NoMemory();
    }
    t->count = count;
    PyObject *capsule = PyCapsule_New(t, TABLE_NAME, table_free);
    if (capsule == NULL) {
        PyMem_Free(t->positions);
        PyMem_Free(t);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        Betting *b = &t->positions[i];
        long player, folded, revealed, next[LEDUC_ACTIONS], actions[LEDUC_ACTIONS];
        PyObject *history, *legal, *after, *chips;
        if (!PyArg_ParseTuple(row, "O!lO!O!O!ll:leduc_table", &PyTuple_Type, &history, &player,
                              &PyTuple_Type, &legal, &PyTuple_Type, &after, &PyTuple_Type,
                              &chips, &folded, &revealed))
            goto fail;
        Py_ssize_t n = PyTuple_GET_SIZE(legal);
        if (n > LEDUC_ACTIONS || read_ints(legal, actions, n) < 0 ||
            read_ints(after, next, LEDUC_ACTIONS) < 0 || read_ints(chips, b->chips, 2) < 0)
            goto fail;
        if ((player != 0 && player != 1) || folded < -1 || folded > 1) {
            PyErr_SetString(PyExc_ValueError, "leduc_table: a player is not 0 or 1");
            goto fail;
        }
        b->player = (int)player;
        b->count = (int)n;
        for (int k = 0; k < LEDUC_ACTIONS; k++) {
            if (next[k] < -1 || next[k] >= count) {
                PyErr_SetString(PyExc_ValueError, "leduc_table: a next row out of range");
                goto fail;
            }
            b->next[k] = (int32_t)next[k];
        }
        for (Py_ssize_t k = 0; k < n; k++) {
            if (actions[k] < 0 || actions[k] >= LEDUC_ACTIONS || next[actions[k]] < 0) {
                PyErr_SetString(PyExc_ValueError, "leduc_table: a legal action has no next row");
                goto fail;
            }
            b->actions[k] = (int)actions[k];
        }
        b->folded = (int)folded;
        b->revealed = revealed != 0;
        Py_INCREF(history);
        b->history = history;
    }
    return capsule;
fail:
    Py_DECREF(capsule);
    return NULL;
}

static void
search_free(PyObject *capsule)
{
    Search *s = PyCapsule_GetPointer(capsule, SEARCH_NAME);
    if (s == NULL)
        return;
    Py_XDECREF(s->table_capsule);
    PyMem_Free(s->node_of);
    PyMem_Free(s->nodes);
    PyMem_Free(s);
}

static int32_t
information_set(int32_t position, int card, int public)
{
    return (position * LEDUC_RANKS + card) * PUBLIC_SLOTS + public;
}

/* Appends the node of information set ``set`` (player ``player``); its index, or -1. */
static int32_t
add_node(Search *s, int32_t set, int player)
{
    if (s->count == s->capacity) {
        Py_ssize_t capacity = s->capacity * 2;
        SetNode *nodes = PyMem_Realloc(s->nodes, capacity * sizeof(SetNode));
        if (nodes == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->nodes = nodes;
        s->capacity = capacity;
    }
    SetNode *node = &s->nodes[s->count];
    memset(node, 0, sizeof(SetNode));
    node->information_set = set;
    node->player = player;
    s->node_of[set] = (int32_t)s->count;
    return (int32_t)s->count++;
}

const char leduc_search_doc[] =
    "leduc_search(table, hands, public, first, position, root_player) -> capsule: an ISMCTS "
    "search of LeducModel from the root state (hands, public, first) at betting row "
    "position, root_player to move; its root node made.";

PyObject *
core_leduc_search(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("leduc_search", nargs, 6))
        return NULL;
    LeducTable *t = PyCapsule_GetPointer(args[0], TABLE_NAME);
    if (t == NULL)
        return NULL;
    long hands[2], public = PyLong_AsLong(args[2]), first = PyLong_AsLong(args[3]);
    long position = PyLong_AsLong(args[4]), player = PyLong_AsLong(args[5]);
    if (PyErr_Occurred() || read_ints(args[1], hands, 2) < 0)
        return NULL;
    if (position < 0 || position >= t->count || t->positions[position].count == 0 ||
        t->positions[position].player != player || public < 0 || public >= LEDUC_RANKS ||
        hands[0] < 0 || hands[0] >= LEDUC_RANKS || hands[1] < 0 || hands[1] >= LEDUC_RANKS ||
        (first != 0 && first != 1)) {
        PyErr_SetString(PyExc_ValueError, "leduc_search: not a Leduc position to search from");
        return NULL;
    }
    Search *s = PyMem_Calloc(1, sizeof(Search));
    if (s == NULL)
        return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(s, SEARCH_NAME, search_free);
    if (capsule == NULL) {
        PyMem_Free(s);
        return NULL;
    }
    Py_INCREF(args[0]);
    s->table_capsule = args[0];
    s->table = t;
    s->hands[0] = (int)hands[0];
    s->hands[1] = (int)hands[1];
    s->public = (int)public;
    s->first = (int)first;
    s->root = (int32_t)position;
    s->root_player = (int)player;
    s->revealed = t->positions[position].revealed;
    /* leduc's sample_world: the deck less the player's card (and the public card once seen) */
    static const int deck[6] = {0, 0, 1, 1, 2, 2};
    int removed_own = 0, removed_public = !s->revealed;
    for (int i = 0; i < 6; i++) {
        if (!removed_own && deck[i] == s->hands[player]) {
            removed_own = 1;
            continue;
        }
        s->unseen[s->unseen_count++] = deck[i];
    }
    if (!removed_public) {
        for (int i = 0; i < s->unseen_count; i++)
            if (s->unseen[i] == s->public) {
                memmove(&s->unseen[i], &s->unseen[i + 1],
                        (s->unseen_count - i - 1) * sizeof(int));
                s->unseen_count--;
                removed_public = 1;
                break;
            }
    }
    Py_ssize_t sets = t->count * LEDUC_RANKS * PUBLIC_SLOTS;
    s->node_of = PyMem_Malloc(sets * sizeof(int32_t));
    s->capacity = 64;
    s->nodes = PyMem_Malloc(s->capacity * sizeof(SetNode));
    if (s->node_of == NULL || s->nodes == NULL) {
        Py_DECREF(capsule);
        return PyErr_NoMemory();
    }
    if (!removed_public) {
        Py_DECREF(capsule);
        PyErr_SetString(PyExc_ValueError, "leduc_search: the public card is not in the deck");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < sets; i++)
        s->node_of[i] = -1;
    int seen_public = s->revealed ? s->public : NOT_SEEN;
    add_node(s, information_set(s->root, s->hands[player], seen_public), (int)player);
    return capsule;
}

/* The Search of args[0] (a capsule of this file's searches), after checking nargs; or NULL. */
static Search *
search_argument(const char *name, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t expected)
{
    return capsule_argument(name, args, nargs, expected, SEARCH_NAME);
}

const char leduc_search_size_doc[] = "leduc_search_size(search) -> int: the nodes it holds.";

PyObject *
core_leduc_search_size(PyObject *module, PyObject *capsule)
{
    Search *s = PyCapsule_GetPointer(capsule, SEARCH_NAME);
    return s == NULL ? NULL : PyLong_FromSsize_t(s->count);
}

/* random.Random.randrange(n) for 1 <= n <= 2**31: _randbelow_with_getrandbits. */
static int
randbelow(MTState *mt, uint32_t n)
{
    int k = 0;
    for (uint32_t m = n; m; m >>= 1)
        k++;
    uint32_t r = mt_uint32(mt) >> (32 - k);
    while (r >= n)
        r = mt_uint32(mt) >> (32 - k);
    return (int)r;
}

/* LeducModel.step's reward for ``mover``'s move into ``after`` (0.0 unless it ends the hand). */
static double
reward_of(const Betting *after, int mover, const int *hands, int public)
{
    if (after->count != 0)
        return 0.0;
    if (after->folded >= 0)
        return (double)(-after->chips[mover]) / BIG_BLIND;
    int mine = hands[mover], theirs = hands[1 - mover];
    double won;
    if (mine == public)
        won = 1.0;
    else if (theirs == public)
        won = 0.0;
    else if (mine == theirs)
        won = 0.5;
    else
        won = mine > theirs ? 1.0 : 0.0;
    return (won * (double)(after->chips[0] + after->chips[1]) - (double)after->chips[mover]) /
           BIG_BLIND;
}

/* MCTS._rollouts' generic rollout from ``position`` (``player`` to move): its return. */
static double
rollout(const LeducTable *t, MTState *mt, int32_t position, int player, const int *hands,
        int public, long long limit, double gamma)
{
    double g = 0.0, coef = 1.0;
    long long moves_left = limit;
    for (;;) {
        const Betting *b = &t->positions[position];
        int action = b->actions[(Py_ssize_t)(mt_random(mt) * (double)b->count)];
        position = b->next[action];
        const Betting *after = &t->positions[position];
        double reward = reward_of(after, b->player, hands, public);
        g += coef * reward;
        moves_left -= 1;
        if (after->count == 0 || moves_left == 0)
            return g;
        int mover = player;
        player = after->player;
        coef *= player == mover ? gamma : -gamma;
    }
}

typedef struct {
    int32_t node;
    int action, mover;
    double reward;
} Move;

/* One iteration of information_sets.run (see the file's comment); 0, or -1 with an error. */
static int
iterate(void *search, MTState *mt, double c, double gamma, long long limit)
{
    Search *s = search;
    const LeducTable *t = s->table;
    /* sample_world(root_state, root_player, rng) */
    int unseen[5], count = s->unseen_count;
    memcpy(unseen, s->unseen, sizeof(unseen));
    int i = randbelow(mt, (uint32_t)count);
    int theirs = unseen[i];
    memmove(&unseen[i], &unseen[i + 1], (count - i - 1) * sizeof(int));
    count--;
    int public = s->revealed ? s->public : unseen[randbelow(mt, (uint32_t)count)];
    int hands[2];
    hands[s->root_player] = s->hands[s->root_player];
    hands[1 - s->root_player] = theirs;

    Move path[MOST_MOVES];
    int depth = 0, leaf_player = -1;
    double g = 0.0;
    int32_t node = 0, position = s->root;
    for (;;) {
        const Betting *b = &t->positions[position];
        SetNode *n = &s->nodes[node];
        int action = -1;
        for (int k = 0; k < b->count; k++)
            if (n->edge_visits[b->actions[k]] == 0) {
                action = b->actions[k]; /* the first untried legal action */
                break;
            }
        int expanded = action >= 0;
        if (!expanded) {
            double best = -INFINITY;
            for (int k = 0; k < b->count; k++) {
                int a = b->actions[k];
                double visits = (double)n->edge_visits[a];
                double q = n->edge_values[a] / visits;
                double score = q + c * sqrt(log((double)n->availability[a]) / visits);
                if (score > best) {
                    best = score;
                    action = a;
                }
            }
            if (action < 0) {
                PyErr_SetString(PyExc_SystemError, "leduc ISMCTS: no action scored (NaN)");
                return -1;
            }
        }
        for (int k = 0; k < b->count; k++) { /* A(a) += 1, a new action joins the node's */
            int a = b->actions[k];
            if (n->availability[a]++ == 0)
                n->seen[n->seen_count++] = (int8_t)a;
        }
        int32_t next = b->next[action];
        const Betting *after = &t->positions[next];
        if (depth == MOST_MOVES) {
            PyErr_SetString(PyExc_SystemError, "leduc ISMCTS: a walk longer than a hand");
            return -1;
        }
        path[depth].node = node;
        path[depth].action = action;
        path[depth].mover = n->player;
        path[depth].reward = reward_of(after, b->player, hands, public);
        depth++;
        if (after->count == 0)
            break; /* terminated */
        position = next;
        int player = after->player;
        int32_t set = information_set(position, hands[player],
                                      after->revealed ? public : NOT_SEEN);
        int32_t child = s->node_of[set];
        if (child < 0) {
            child = add_node(s, set, player);
            if (child < 0)
                return -1;
            expanded = 1;
        }
        n = &s->nodes[node]; /* the nodes may have moved */
        if (n->child_count[action] == 0)
            n->reached[n->reached_count++] = (int8_t)action;
        int known = 0;
        for (int k = 0; k < n->child_count[action]; k++)
            known |= n->children[action][k] == child;
        if (!known) {
            if (n->child_count[action] == MOST_CHILDREN) {
                PyErr_SetString(PyExc_SystemError, "leduc ISMCTS: too many children");
                return -1;
            }
            n->children[action][n->child_count[action]++] = child;
        }
        if (expanded) { /* the leaf: a visit to it, as in the plain tree */
            SetNode *leaf = &s->nodes[child];
            leaf->visits += 1;
            for (int k = 0; k < after->count; k++) {
                int a = after->actions[k];
                if (leaf->availability[a]++ == 0)
                    leaf->seen[leaf->seen_count++] = (int8_t)a;
            }
            leaf_player = player;
            if (limit > 0)
                g = rollout(t, mt, position, player, hands, public, limit, gamma);
            break;
        }
        node = child;
    }
    /* _backup: negamax, leaf first */
    int next_player = leaf_player;
    for (int d = depth - 1; d >= 0; d--) {
        const Move *m = &path[d];
        if (next_player >= 0)
            g = m->reward + (next_player == m->mover ? gamma : -gamma) * g;
        else
            g = m->reward;
        SetNode *n = &s->nodes[m->node];
        if (n->edge_visits[m->action]++ == 0)
            n->tried[n->tried_count++] = (int8_t)m->action;
        n->edge_values[m->action] = n->edge_values[m->action] + g;
        n->visits += 1;
        next_player = m->mover;
    }
    return 0;
}

const char leduc_search_run_doc[] =
    "leduc_search_run(search, rng, c, gamma, rollout_limit, iterations) -> None: runs "
    "iterations ISMCTS iterations, drawing from rng (a random.Random, continued).";

PyObject *
core_leduc_search_run(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Search *s = search_argument("leduc_search_run", args, nargs, 6);
    return s == NULL ? NULL : run_iterations(s, iterate, args, 16384);
}

/* The key (player, (player, card, public or None, first, history)) of node ``node``. */
static PyObject *
node_key(const Search *s, const SetNode *node)
{
    int32_t set = node->information_set;
    int public = set % PUBLIC_SLOTS, card = (set / PUBLIC_SLOTS) % LEDUC_RANKS;
    const Betting *b = &s->table->positions[set / (PUBLIC_SLOTS * LEDUC_RANKS)];
    PyObject *seen = public == NOT_SEEN ? Py_NewRef(Py_None) : PyLong_FromLong(public);
    PyObject *player = PyLong_FromLong(node->player), *card_ = PyLong_FromLong(card);
    PyObject *first = PyLong_FromLong(s->first);
    PyObject *inner = NULL, *key = NULL;
    if (seen != NULL && player != NULL && card_ != NULL && first != NULL)
        inner = PyTuple_Pack(5, player, card_, seen, first, b->history);
    if (inner != NULL)
        key = PyTuple_Pack(2, player, inner);
    Py_XDECREF(seen);
    Py_XDECREF(player);
    Py_XDECREF(card_);
    Py_XDECREF(first);
    Py_XDECREF(inner);
    return key;
}

/* dict[action] = value (a new reference, stolen); 0 or -1. */
static int
set_item(PyObject *dict, int action, PyObject *value)
{
    PyObject *key = PyLong_FromLong(action);
    int done = key == NULL || value == NULL ? -1 : PyDict_SetItem(dict, key, value);
    Py_XDECREF(key);
    Py_XDECREF(value);
    return done;
}

/* field[i] of the tree, a list of per-node containers (borrowed), checked to be ``type``. */
static PyObject *
node_field(PyObject *fields[], int f, Py_ssize_t i, PyTypeObject *type)
{
    if (!PyList_Check(fields[f]) || i >= PyList_GET_SIZE(fields[f]) ||
        !Py_IS_TYPE(PyList_GET_ITEM(fields[f], i), type)) {
        PyErr_SetString(PyExc_TypeError, "leduc_search_write: the tree's lists are not its own");
        return NULL;
    }
    return PyList_GET_ITEM(fields[f], i);
}

const char leduc_search_write_doc[] =
    "leduc_search_write(search, tree) -> None: writes the search's nodes into the "
    "InformationSetTree (which holds its root only): add_node for each new node, then every "
    "node's visits, actions, edge_visits, edge_values, availability and children.";

PyObject *
core_leduc_search_write(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Search *s = search_argument("leduc_search_write", args, nargs, 2);
    if (s == NULL)
        return NULL;
    PyObject *tree = args[1];
    for (Py_ssize_t i = 1; i < s->count; i++) {
        PyObject *key = node_key(s, &s->nodes[i]);
        if (key == NULL)
            return NULL;
        PyObject *added = PyObject_CallMethod(tree, "add_node", "(NO)",
                                              PyLong_FromLong(s->nodes[i].player), key);
        Py_DECREF(key);
        if (added == NULL)
            return NULL;
        Py_ssize_t index = PyLong_AsSsize_t(added);
        Py_DECREF(added);
        if (index != i) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "leduc_search_write: the tree had nodes");
            return NULL;
        }
    }
    enum { VISITS, ACTIONS, EDGE_VISITS, EDGE_VALUES, AVAILABILITY, CHILDREN, FIELDS };
    static const char *names[FIELDS] = {"visits",      "actions",      "edge_visits",
                                        "edge_values", "availability", "children"};
    PyObject *fields[FIELDS] = {NULL};
    int failed = 0;
    for (int f = 0; f < FIELDS && !failed; f++)
        failed = (fields[f] = PyObject_GetAttrString(tree, names[f])) == NULL;
    for (Py_ssize_t i = 0; i < s->count && !failed; i++) {
        const SetNode *n = &s->nodes[i];
        PyObject *actions = node_field(fields, ACTIONS, i, &PyList_Type);
        PyObject *visits = node_field(fields, EDGE_VISITS, i, &PyDict_Type);
        PyObject *values = node_field(fields, EDGE_VALUES, i, &PyDict_Type);
        PyObject *available = node_field(fields, AVAILABILITY, i, &PyDict_Type);
        PyObject *children = node_field(fields, CHILDREN, i, &PyDict_Type);
        failed = actions == NULL || visits == NULL || values == NULL || available == NULL ||
                 children == NULL || node_field(fields, VISITS, i, &PyLong_Type) == NULL;
        if (!failed)
            failed = PyList_SetItem(fields[VISITS], i, PyLong_FromLongLong(n->visits)) < 0;
        for (int k = 0; k < n->seen_count && !failed; k++) {
            int a = n->seen[k];
            PyObject *action = PyLong_FromLong(a);
            failed = action == NULL || PyList_Append(actions, action) < 0;
            Py_XDECREF(action);
            if (!failed)
                failed = set_item(available, a, PyLong_FromLongLong(n->availability[a])) < 0;
        }
        for (int k = 0; k < n->tried_count && !failed; k++) {
            int a = n->tried[k];
            failed = set_item(visits, a, PyLong_FromLongLong(n->edge_visits[a])) < 0 ||
                     set_item(values, a, PyFloat_FromDouble(n->edge_values[a])) < 0;
        }
        for (int k = 0; k < n->reached_count && !failed; k++) {
            int a = n->reached[k];
            PyObject *reached = PyList_New(n->child_count[a]);
            for (int j = 0; reached != NULL && j < n->child_count[a]; j++) {
                PyObject *child = PyLong_FromLong(n->children[a][j]);
                if (child == NULL)
                    Py_CLEAR(reached);
                else
                    PyList_SET_ITEM(reached, j, child);
            }
            failed = set_item(children, a, reached) < 0;
        }
    }
    for (int f = 0; f < FIELDS; f++)
        Py_XDECREF(fields[f]);
    return failed ? NULL : Py_NewRef(Py_None);
}
