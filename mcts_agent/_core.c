/* mcts_agent._core: the plain UCT loop of docs/concepts/iteration.md, compiled (docs/guides/compiled-core.md).
 *
 * The loop is MCTS._run of mcts_agent/search.py, statement for statement: the same IEEE
 * operations in the same order (UCB1 as Q + c * sqrt(log(N) / n), backup as r + d * g,
 * Q = W / N), built with floating-point contraction off (setup.py), so the trees are the
 * pure loop's bit for bit. The model's Python methods are called exactly as the pure loop
 * calls them; the off-fast-path checks call the same Python functions (mcts_agent._validation).
 *
 * Storage (Store): one C struct per node (N, W, Q, reward, discount, untried, first child,
 * next sibling), and three Python lists (states, players, actions) that the Tree holds
 * as they are; Column is a read-only sequence view of one numeric field or of the children.
 *
 * Native rollouts: a capsule named "mcts_agent.native_rollout" holding a NativeRollout
 * (below); the loop calls it with a Mersenne Twister that continues random.Random's state
 * exactly (read with getstate() before a chunk, written back with setstate() after), and
 * draws random() as random.Random does (genrand_res53). Tic-tac-toe's and connect four's
 * rollouts are here (native_rollout("tic_tac_toe"), native_rollout("connect_four")).
 *
 * Leaf batching (mcts_agent/leaf_batching.py, with PUCT): a round's selections and virtual
 * losses (select_leaves), its backup (backup_leaves) and its evaluations' checks
 * (checked_evaluations) on the general loop's tree lists, the same operations as the Python
 * steps; the expansions with a model's native step, a capsule named "mcts_agent.native_step"
 * holding a NativeStep (connect four's is here: native_step("connect_four")).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "_core.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* 1 with a TypeError if a METH_FASTCALL function got ``nargs`` arguments, not ``expected``. */
int
wrong_nargs(const char *name, Py_ssize_t nargs, Py_ssize_t expected)
{
    if (nargs == expected)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s takes %zd arguments, got %zd", name, expected, nargs);
    return 1;
}

/* ------------------------------------------------------------------ MT19937 */

/* CPython's genrand_uint32 (Modules/_randommodule.c), the reference MT19937 of Matsumoto & Nishimura. */
uint32_t
mt_uint32(MTState *mt)
{
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    uint32_t *s = mt->state;
    if (mt->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (s[kk] & 0x80000000U) | (s[kk + 1] & 0x7fffffffU);
            s[kk] = s[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (s[kk] & 0x80000000U) | (s[kk + 1] & 0x7fffffffU);
            s[kk] = s[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (s[MT_N - 1] & 0x80000000U) | (s[0] & 0x7fffffffU);
        s[MT_N - 1] = s[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        mt->index = 0;
    }
    y = s[mt->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* random.Random.random(): 53 random bits in [0, 1), as CPython's random_random. */
double
mt_random(void *rng)
{
    MTState *mt = (MTState *)rng;
    uint32_t a = mt_uint32(mt) >> 5, b = mt_uint32(mt) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* Reads rng.getstate() into mt; returns the state tuple (new reference) or NULL. */
PyObject *
mt_read(PyObject *rng, MTState *mt)
{
    PyObject *state = PyObject_CallMethod(rng, "getstate", NULL);
    if (state == NULL)
        return NULL;
    PyObject *words = PyTuple_Check(state) && PyTuple_GET_SIZE(state) == 3
                          ? PyTuple_GET_ITEM(state, 1) : NULL;
    if (words == NULL || !PyTuple_Check(words) || PyTuple_GET_SIZE(words) != MT_N + 1) {
        PyErr_SetString(PyExc_TypeError, "random.Random.getstate() has an unexpected form");
        Py_DECREF(state);
        return NULL;
    }
    for (int i = 0; i < MT_N; i++) {
        unsigned long w = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(words, i));
        if (w == (unsigned long)-1 && PyErr_Occurred()) {
            Py_DECREF(state);
            return NULL;
        }
        mt->state[i] = (uint32_t)w;
    }
    long index = PyLong_AsLong(PyTuple_GET_ITEM(words, MT_N));
    if (index == -1 && PyErr_Occurred()) {
        Py_DECREF(state);
        return NULL;
    }
    mt->index = (int)index;
    return state;
}

/* rng.setstate((version, mt's words and index, gauss_next of old)); 0 or -1. */
int
mt_write(PyObject *rng, const MTState *mt, PyObject *old)
{
    PyObject *words = PyTuple_New(MT_N + 1);
    if (words == NULL)
        return -1;
    for (int i = 0; i < MT_N; i++) {
        PyObject *w = PyLong_FromUnsignedLong(mt->state[i]);
        if (w == NULL) {
            Py_DECREF(words);
            return -1;
        }
        PyTuple_SET_ITEM(words, i, w);
    }
    PyObject *index = PyLong_FromLong(mt->index);
    if (index == NULL) {
        Py_DECREF(words);
        return -1;
    }
    PyTuple_SET_ITEM(words, MT_N, index);
    PyObject *state = PyTuple_Pack(3, PyTuple_GET_ITEM(old, 0), words, PyTuple_GET_ITEM(old, 2));
    Py_DECREF(words);
    if (state == NULL)
        return -1;
    PyObject *done = PyObject_CallMethod(rng, "setstate", "(O)", state);
    Py_DECREF(state);
    if (done == NULL)
        return -1;
    Py_DECREF(done);
    return 0;
}

/* The pointer of args[0], a capsule named capsule_name, given to the METH_FASTCALL function
 * ``name`` of ``expected`` arguments; NULL with a TypeError or ValueError otherwise. */
void *
capsule_argument(const char *name, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t expected,
                 const char *capsule_name)
{
    if (wrong_nargs(name, nargs, expected))
        return NULL;
    return PyCapsule_GetPointer(args[0], capsule_name);
}

/* Runs a compiled search's iterations: args are (search, rng, c, gamma, rollout_limit,
 * iterations); iterate(search, &mt, c, gamma, limit) runs one, drawing from a Mersenne Twister
 * that continues rng (random.Random), which is left where the iterations left it, even when one
 * fails. Signals are checked every signal_every iterations (a power of 2). */
PyObject *
run_iterations(void *search, SearchIteration iterate, PyObject *const *args,
               long long signal_every)
{
    double c = PyFloat_AsDouble(args[2]), gamma = PyFloat_AsDouble(args[3]);
    long long limit = PyLong_AsLongLong(args[4]), iterations = PyLong_AsLongLong(args[5]);
    if (PyErr_Occurred())
        return NULL;
    MTState mt;
    PyObject *old = mt_read(args[1], &mt);
    if (old == NULL)
        return NULL;
    int failed = 0;
    for (long long it = 0; it < iterations; it++) {
        if (iterate(search, &mt, c, gamma, limit) < 0 ||
            ((it & (signal_every - 1)) == signal_every - 1 && PyErr_CheckSignals() < 0)) {
            failed = 1;
            break;
        }
    }
    PyObject *error_type, *error, *traceback;
    PyErr_Fetch(&error_type, &error, &traceback);
    int written = mt_write(args[1], &mt, old); /* the generator where the iterations left it */
    Py_DECREF(old);
    if (failed) {
        PyErr_Restore(error_type, error, traceback);
        return NULL;
    }
    return written < 0 ? NULL : Py_NewRef(Py_None);
}

/* ------------------------------------------------------------------ native rollouts */

/* The protocol: NativeRollout, in _core.h. */

static uint8_t ttt_has_line[512];

static int
popcount64(uint64_t b)
{
    int count = 0;
    for (; b; b &= b - 1)
        count++;
    return count;
}

static int
ttt_rollout(NativeRollout *self, PyObject *state, double (*random)(void *), void *rng,
            long long limit, double gamma, double *g)
{
    /* TicTacToeModel.rollout: the empty cells in increasing order, a uniform index
     * int(random() * n), swap-remove, the mover's line test, coef *= -gamma. */
    long s = PyLong_Check(state) ? PyLong_AsLong(state) : -1;
    if (s == -1 && PyErr_Occurred())
        return -1;
    long x = s & 0x1ff, o = s >> 9;
    if (s < 0 || o > 0x1ff || (x & o)) {
        PyErr_Format(PyExc_ValueError, "not a tic-tac-toe state: %R", state);
        return -1;
    }
    int empty[9], n = 0;
    for (int i = 0; i < 9; i++)
        if (!((x | o) >> i & 1))
            empty[n++] = i;
    if (n == 0 || ttt_has_line[x] || ttt_has_line[o]) {
        PyErr_Format(PyExc_ValueError, "the tic-tac-toe game is over in state %R", state);
        return -1;
    }
    int x_to_move = popcount64((uint64_t)x) == popcount64((uint64_t)o);
    double coef = 1.0;
    for (;;) {
        int i = (int)(random(rng) * n);
        int cell = empty[i];
        n -= 1;
        empty[i] = empty[n];
        if (x_to_move) {
            x |= 1L << cell;
            if (ttt_has_line[x]) {
                *g = coef;
                return 0;
            }
        }
        else {
            o |= 1L << cell;
            if (ttt_has_line[o]) {
                *g = coef;
                return 0;
            }
        }
        limit -= 1;
        if (n == 0 || limit == 0) {
            *g = 0.0;
            return 0;
        }
        x_to_move = !x_to_move;
        coef *= -gamma;
    }
}

#define C4_TOP_ROW 0x810204081020ULL    /* bit 7 * c + 5 of every column c */
static uint64_t c4_full; /* the six cells of every column (set by the module's init) */

/* Inlined into the rollout's loop (as it was while the rollout was its only caller). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline int
c4_has_four(uint64_t b)
{
    uint64_t m = b & (b >> 1);
    if (m & (m >> 2))
        return 1;
    m = b & (b >> 7);
    if (m & (m >> 14))
        return 1;
    m = b & (b >> 6);
    if (m & (m >> 12))
        return 1;
    m = b & (b >> 8);
    return (m & (m >> 16)) != 0;
}

static int
c4_rollout(NativeRollout *self, PyObject *state, double (*random)(void *), void *rng,
           long long limit, double gamma, double *g)
{
    /* ConnectFourModel.rollout: free[] holds the lowest empty cell of each column not full,
     * in column order; a uniform index, the cell moves up (the column leaves when it fills),
     * the mover's four test, coef *= -gamma. */
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != 2) {
        PyErr_Format(PyExc_ValueError,
                     "a connect four state is a tuple (x, o) of two int bitboards, got %R", state);
        return -1;
    }
    unsigned long long xs = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(state, 0));
    if (xs == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    unsigned long long os = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(state, 1));
    if (os == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    uint64_t x = xs, o = os, mask = x | o;
    if ((x & o) || (mask & ~c4_full)) {
        PyErr_Format(PyExc_ValueError, "not a connect four state: %R", state);
        return -1;
    }
    uint64_t mover, other;
    if (popcount64(x) == popcount64(o)) {
        mover = x;
        other = o;
    }
    else {
        mover = o;
        other = x;
    }
    uint64_t free_cells[7];
    int n = 0;
    for (int c = 0; c < 7; c++) {
        uint64_t column = 0x3fULL << (7 * c);
        if (!(mask & (1ULL << (7 * c + 5))))
            free_cells[n++] = (mask + (1ULL << (7 * c))) & column;
    }
    if (n == 0) {
        PyErr_Format(PyExc_ValueError, "the connect four board is full in state %R", state);
        return -1;
    }
    double coef = 1.0;
    for (;;) {
        int i = (int)(random(rng) * n);
        uint64_t bit = free_cells[i];
        if (bit & C4_TOP_ROW) {
            n -= 1;
            free_cells[i] = free_cells[n];
        }
        else
            free_cells[i] = bit << 1;
        uint64_t b = mover | bit;
        if (c4_has_four(b)) {
            *g = coef;
            return 0;
        }
        limit -= 1;
        if (n == 0 || limit == 0) {
            *g = 0.0;
            return 0;
        }
        mover = other;
        other = b;
        coef *= -gamma;
    }
}

static NativeRollout ttt_native = {NATIVE_ROLLOUT_VERSION, ttt_rollout};
static NativeRollout c4_native = {NATIVE_ROLLOUT_VERSION, c4_rollout};

/* ------------------------------------------------------------------ native steps */

/* The protocol (docs/guides/compiled-core.md): a capsule named NATIVE_STEP_NAME whose
 * pointer is a NativeStep. expand(state, action, &next_state, &reward, &terminated, &actions,
 * &player) does what the model's Python methods do when a search expands a node: next_state,
 * reward, terminated = step(state, action); then, if not terminated, actions = actions(
 * next_state), and, if there are any, player = player(next_state). It writes new references
 * (*actions an empty tuple when terminated, *player NULL when there are no actions) and
 * returns 1; it returns 0, writing nothing, for an input it does not take (the caller then
 * calls the Python methods, which raise what they raise), or -1 with a Python exception set. */
#define NATIVE_STEP_NAME "mcts_agent.native_step"
#define NATIVE_STEP_VERSION 1

typedef struct {
    int version;
    int (*expand)(PyObject *state, PyObject *action, PyObject **next_state, double *reward,
                  int *terminated, PyObject **actions, PyObject **player);
} NativeStep;

static PyObject *c4_legal[128]; /* the tuple of columns not full, by full column (bit c) */
static PyObject *c4_players[3]; /* the ints 1 and 2 */

/* A connect four bitboard of ``x``, an exact int below 2 ** 64: 1, else 0 (not taken). */
static int
c4_bitboard(PyObject *x, uint64_t *b)
{
    if (!PyLong_CheckExact(x))
        return 0;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (overflow || v < 0) /* -1 with an error only for a non-int, excluded above */
        return 0;
    *b = (uint64_t)v;
    return 1;
}

/* ConnectFourModel's step, then its actions and player, for a state of two disjoint
 * bitboards on the board's cells (anything else is left to the Python methods). */
static int
c4_expand(PyObject *state, PyObject *action, PyObject **next_state, double *reward,
          int *terminated, PyObject **actions, PyObject **player)
{
    uint64_t x, o;
    if (!PyTuple_CheckExact(state) || PyTuple_GET_SIZE(state) != 2 ||
        !c4_bitboard(PyTuple_GET_ITEM(state, 0), &x) ||
        !c4_bitboard(PyTuple_GET_ITEM(state, 1), &o) || (x & o) || ((x | o) & ~c4_full) ||
        !PyLong_CheckExact(action))
        return 0;
    long column = PyLong_AsLong(action);
    if (column < 0 || column > 6) {
        PyErr_Clear(); /* an int past a long: not a column */
        return 0;
    }
    uint64_t mask = x | o;
    int x_count = popcount64(x), o_count = popcount64(o);
    if (c4_has_four(x_count > o_count ? x : o) || (mask & (1ULL << (7 * column + 5))))
        return 0; /* over, or a full column: step raises */
    uint64_t bit = (mask + (1ULL << (7 * column))) & (0x3fULL << (7 * column));
    int won;
    if (x_count == o_count) {
        x |= bit;
        won = c4_has_four(x);
    }
    else {
        o |= bit;
        won = c4_has_four(o);
    }
    mask |= bit;
    x_count = popcount64(x); /* counted again, as the Python methods do: a state with a gap */
    o_count = popcount64(o); /* in a column gains two pieces (and step, then, two bits) */
    PyObject *next = PyTuple_New(2);
    if (next == NULL)
        return -1;
    PyObject *x_obj = PyLong_FromUnsignedLongLong(x), *o_obj = PyLong_FromUnsignedLongLong(o);
    PyTuple_SET_ITEM(next, 0, x_obj);
    PyTuple_SET_ITEM(next, 1, o_obj);
    if (x_obj == NULL || o_obj == NULL) {
        Py_DECREF(next);
        return -1;
    }
    *next_state = next;
    *reward = won ? 1.0 : 0.0;
    *terminated = won || mask == c4_full;
    *player = NULL;
    if (*terminated || c4_has_four(x_count > o_count ? x : o)) {
        *actions = Py_NewRef(c4_legal[127]); /* () */
        return 1;
    }
    int full = 0;
    for (int c = 0; c < 7; c++)
        if (mask & (1ULL << (7 * c + 5)))
            full |= 1 << c;
    *actions = Py_NewRef(c4_legal[full]);
    if (full != 127)
        *player = Py_NewRef(c4_players[x_count == o_count ? 1 : 2]);
    return 1;
}

static NativeStep c4_native_step = {NATIVE_STEP_VERSION, c4_expand};

/* Builds c4_legal and c4_players; -1 with an exception set. */
static int
c4_tables(void)
{
    for (int full = 0; full < 128; full++) {
        PyObject *columns = PyTuple_New(7 - popcount64((uint64_t)full));
        if (columns == NULL)
            return -1;
        for (int c = 0, k = 0; c < 7; c++)
            if (!(full >> c & 1))
                PyTuple_SET_ITEM(columns, k++, PyLong_FromLong(c)); /* small ints: cached */
        c4_legal[full] = columns;
    }
    c4_players[1] = PyLong_FromLong(1);
    c4_players[2] = PyLong_FromLong(2);
    return 0;
}

/* ------------------------------------------------------------------ storage */

#define TERMINAL (-1)
#define NO_NODE (-1)

typedef struct {
    double value;      /* Q = W / N */
    int64_t visits;    /* N */
    int32_t next;      /* next sibling (the parent's next child in the model's order), or -1 */
    int32_t first;     /* first child, or -1 */
    int32_t untried;   /* actions not tried yet, or TERMINAL */
    int32_t last;      /* last child, or -1: an expansion links its child in O(1) */
    double value_sum;  /* W */
    double reward;
    double discount;   /* +gamma or -gamma (0.0 at the root) */
} NodeRecord;

typedef struct {
    PyObject_HEAD
    NodeRecord *nodes;
    Py_ssize_t size, capacity;
    PyObject *states, *players, *actions; /* lists, the Tree's own */
} StoreObject;

static PyTypeObject StoreType;
static PyTypeObject ColumnType;

static int
store_reserve(StoreObject *self, Py_ssize_t needed)
{
    if (needed <= self->capacity)
        return 0;
    Py_ssize_t grown = self->capacity + self->capacity / 8 + 64; /* at most 1/8 spare */
    Py_ssize_t capacity = needed > grown ? needed : grown;
    if ((size_t)capacity > PY_SSIZE_T_MAX / sizeof(NodeRecord) || capacity > INT32_MAX) {
        PyErr_NoMemory();
        return -1;
    }
    NodeRecord *nodes = PyMem_Realloc(self->nodes, (size_t)capacity * sizeof(NodeRecord));
    if (nodes == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->nodes = nodes;
    self->capacity = capacity;
    return 0;
}

static void
store_dealloc(StoreObject *self)
{
    PyObject_GC_UnTrack(self);
    PyMem_Free(self->nodes);
    Py_XDECREF(self->states);
    Py_XDECREF(self->players);
    Py_XDECREF(self->actions);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
store_traverse(StoreObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->states);
    Py_VISIT(self->players);
    Py_VISIT(self->actions);
    return 0;
}

static int
store_clear(StoreObject *self)
{
    Py_CLEAR(self->states);
    Py_CLEAR(self->players);
    Py_CLEAR(self->actions);
    return 0;
}

/* list[i] as a double: a float (an int converted); anything else is a TypeError (no Python
 * code, such as a __float__, runs while the lists are read unchecked). */
static double
float_item(PyObject *list, Py_ssize_t i, int *failed)
{
    PyObject *x = PyList_GET_ITEM(list, i);
    double v = -1.0;
    if (PyFloat_Check(x))
        v = PyFloat_AS_DOUBLE(x);
    else if (PyLong_Check(x))
        v = PyLong_AsDouble(x);
    else
        PyErr_Format(PyExc_TypeError, "a Tree's numeric fields hold floats, got %R", x);
    if (v == -1.0 && PyErr_Occurred())
        *failed = 1;
    return v;
}

/* Store(states, players, actions, rewards, discounts, children, untried, visits, value_sums,
 * values): the nodes of a Tree's lists; the first three lists are kept (not copied). */
static PyObject *
store_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *f[10];
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Store takes positional arguments only");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "Store", 10, 10, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5],
                           &f[6], &f[7], &f[8], &f[9]))
        return NULL;
    Py_ssize_t size = -1;
    for (int k = 0; k < 10; k++) {
        if (!PyList_CheckExact(f[k])) {
            PyErr_SetString(PyExc_TypeError, "Store takes the ten per-node lists of a Tree");
            return NULL;
        }
        if (size < 0)
            size = PyList_GET_SIZE(f[k]);
        else if (PyList_GET_SIZE(f[k]) != size) {
            PyErr_SetString(PyExc_ValueError, "a Tree's per-node lists differ in length");
            return NULL;
        }
    }
    StoreObject *self = (StoreObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->states = Py_NewRef(f[0]);
    self->players = Py_NewRef(f[1]);
    self->actions = Py_NewRef(f[2]);
    if (store_reserve(self, size > 0 ? size : 1) < 0)
        goto fail;
    self->size = size;
    int failed = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        NodeRecord *r = &self->nodes[i];
        r->reward = float_item(f[3], i, &failed);
        r->discount = float_item(f[4], i, &failed);
        if (!PyLong_Check(PyList_GET_ITEM(f[6], i)) || !PyLong_Check(PyList_GET_ITEM(f[7], i))) {
            PyErr_SetString(PyExc_TypeError, "a Tree's untried and visits hold ints");
            goto fail;
        }
        long untried = PyLong_AsLong(PyList_GET_ITEM(f[6], i));
        long long visits = PyLong_AsLongLong(PyList_GET_ITEM(f[7], i));
        if (PyErr_Occurred())
            goto fail;
        r->untried = (int32_t)untried;
        r->visits = visits;
        r->value_sum = float_item(f[8], i, &failed);
        r->value = float_item(f[9], i, &failed);
        r->first = r->next = r->last = NO_NODE;
        if (failed)
            goto fail;
        if (!PyTuple_Check(PyList_GET_ITEM(f[2], i))) {
            PyErr_SetString(PyExc_TypeError, "a Tree's actions are tuples");
            goto fail;
        }
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *kids = PyList_GET_ITEM(f[5], i);
        if (!PyTuple_Check(kids)) {
            PyErr_SetString(PyExc_TypeError, "a Tree's children are tuples");
            goto fail;
        }
        int32_t *link = &self->nodes[i].first;
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(kids); j++) {
            if (!PyLong_Check(PyTuple_GET_ITEM(kids, j))) {
                PyErr_SetString(PyExc_TypeError, "a Tree's children are tuples of ints");
                goto fail;
            }
            long child = PyLong_AsLong(PyTuple_GET_ITEM(kids, j));
            if (child == -1 && PyErr_Occurred())
                goto fail;
            if (child <= 0 || child >= size) {
                PyErr_Format(PyExc_ValueError, "child %ld of node %zd is not a node", child, i);
                goto fail;
            }
            *link = (int32_t)child;
            link = &self->nodes[child].next;
            self->nodes[i].last = (int32_t)child;
        }
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

static PyObject *
store_nbytes(StoreObject *self, void *closure)
{
    return PyLong_FromSsize_t(self->capacity * (Py_ssize_t)sizeof(NodeRecord));
}

static PyObject *
store_len_get(StoreObject *self, void *closure)
{
    return PyLong_FromSsize_t(self->size);
}

static PyGetSetDef store_getset[] = {
    {"nbytes", (getter)store_nbytes, NULL, "bytes of the node records held (capacity)", NULL},
    {"size", (getter)store_len_get, NULL, "nodes held", NULL},
    {NULL},
};

static PyMemberDef store_members[] = {
    {"states", T_OBJECT, offsetof(StoreObject, states), READONLY, "the nodes' states (a list)"},
    {"players", T_OBJECT, offsetof(StoreObject, players), READONLY, "the players (a list)"},
    {"actions", T_OBJECT, offsetof(StoreObject, actions), READONLY, "the actions (a list)"},
    {NULL},
};

static PyTypeObject StoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mcts_agent._core.Store",
    .tp_basicsize = sizeof(StoreObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A search tree's nodes as C records, plus its states, players and actions lists.",
    .tp_new = store_new,
    .tp_dealloc = (destructor)store_dealloc,
    .tp_traverse = (traverseproc)store_traverse,
    .tp_clear = (inquiry)store_clear,
    .tp_getset = store_getset,
    .tp_members = store_members,
};

/* ------------------------------------------------------------------ column views */

enum { F_REWARDS, F_DISCOUNTS, F_CHILDREN, F_UNTRIED, F_VISITS, F_VALUE_SUMS, F_VALUES, F_COUNT };
static const char *field_names[F_COUNT] = {"rewards",  "discounts", "children", "untried",
                                           "visits",   "value_sums", "values"};

typedef struct {
    PyObject_HEAD
    StoreObject *store;
    int field;
} ColumnObject;

static PyObject *
column_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *store;
    const char *name;
    if (!PyArg_ParseTuple(args, "O!s:Column", &StoreType, &store, &name))
        return NULL;
    int field = -1;
    for (int k = 0; k < F_COUNT; k++)
        if (strcmp(name, field_names[k]) == 0)
            field = k;
    if (field < 0) {
        PyErr_Format(PyExc_ValueError, "no field %s", name);
        return NULL;
    }
    ColumnObject *self = (ColumnObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->store = (StoreObject *)Py_NewRef(store);
    self->field = field;
    return (PyObject *)self;
}

static void
column_dealloc(ColumnObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_XDECREF(self->store);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
column_traverse(ColumnObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->store);
    return 0;
}

static int
column_clear(ColumnObject *self)
{
    Py_CLEAR(self->store);
    return 0;
}

static Py_ssize_t
column_len(ColumnObject *self)
{
    return self->store == NULL ? 0 : self->store->size;
}

static PyObject *
children_tuple(StoreObject *store, Py_ssize_t i)
{
    Py_ssize_t count = 0;
    for (int32_t c = store->nodes[i].first; c != NO_NODE; c = store->nodes[c].next)
        count++;
    PyObject *kids = PyTuple_New(count);
    if (kids == NULL)
        return NULL;
    Py_ssize_t j = 0;
    for (int32_t c = store->nodes[i].first; c != NO_NODE; c = store->nodes[c].next) {
        PyObject *index = PyLong_FromLong(c);
        if (index == NULL) {
            Py_DECREF(kids);
            return NULL;
        }
        PyTuple_SET_ITEM(kids, j++, index);
    }
    return kids;
}

static PyObject *
column_item(ColumnObject *self, Py_ssize_t i)
{
    StoreObject *store = self->store;
    if (store == NULL || i < 0 || i >= store->size) {
        PyErr_Format(PyExc_IndexError, "node index %zd out of range for %zd nodes", i,
                     column_len(self));
        return NULL;
    }
    NodeRecord *r = &store->nodes[i];
    switch (self->field) {
    case F_REWARDS: return PyFloat_FromDouble(r->reward);
    case F_DISCOUNTS: return PyFloat_FromDouble(r->discount);
    case F_CHILDREN: return children_tuple(store, i);
    case F_UNTRIED: return PyLong_FromLong(r->untried);
    case F_VISITS: return PyLong_FromLongLong(r->visits);
    case F_VALUE_SUMS: return PyFloat_FromDouble(r->value_sum);
    default: return PyFloat_FromDouble(r->value);
    }
}

static PyObject *
column_list(ColumnObject *self, PyObject *unused)
{
    Py_ssize_t n = column_len(self);
    PyObject *list = PyList_New(n);
    if (list == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = column_item(self, i);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *
column_subscript(ColumnObject *self, PyObject *key)
{
    if (PyIndex_Check(key)) {
        Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
        if (i == -1 && PyErr_Occurred())
            return NULL;
        if (i < 0)
            i += column_len(self);
        return column_item(self, i);
    }
    if (PySlice_Check(key)) {
        PyObject *all = column_list(self, NULL);
        if (all == NULL)
            return NULL;
        PyObject *part = PyObject_GetItem(all, key);
        Py_DECREF(all);
        return part;
    }
    PyErr_Format(PyExc_TypeError, "node indices must be integers or slices, not %.200s",
                 Py_TYPE(key)->tp_name);
    return NULL;
}

static PyObject *
column_richcompare(PyObject *a, PyObject *b, int op)
{
    /* Compares as lists (a Column equals the list of its items). */
    PyObject *la = PyObject_TypeCheck(a, &ColumnType) ? column_list((ColumnObject *)a, NULL)
                                                      : Py_NewRef(a);
    if (la == NULL)
        return NULL;
    PyObject *lb = PyObject_TypeCheck(b, &ColumnType) ? column_list((ColumnObject *)b, NULL)
                                                      : Py_NewRef(b);
    if (lb == NULL) {
        Py_DECREF(la);
        return NULL;
    }
    PyObject *result = Py_NotImplemented;
    Py_INCREF(result);
    if (PyList_Check(la) && PyList_Check(lb)) {
        Py_DECREF(result);
        result = PyObject_RichCompare(la, lb, op);
    }
    Py_DECREF(la);
    Py_DECREF(lb);
    return result;
}

static PyObject *
column_reduce(ColumnObject *self, PyObject *unused)
{
    /* A copy (copy.deepcopy, pickle) is the list of the items. */
    PyObject *list = column_list(self, NULL);
    if (list == NULL)
        return NULL;
    return Py_BuildValue("(O(N))", (PyObject *)&PyList_Type, list);
}

static PyObject *
column_repr(ColumnObject *self)
{
    PyObject *list = column_list(self, NULL);
    if (list == NULL)
        return NULL;
    PyObject *text = PyUnicode_FromFormat("Column(%s, %R)", field_names[self->field], list);
    Py_DECREF(list);
    return text;
}

static PyObject *
column_store(ColumnObject *self, void *closure)
{
    return Py_NewRef(self->store == NULL ? Py_None : (PyObject *)self->store);
}

static PySequenceMethods column_as_sequence = {
    .sq_length = (lenfunc)column_len,
    .sq_item = (ssizeargfunc)column_item,
};

static PyMappingMethods column_as_mapping = {
    .mp_length = (lenfunc)column_len,
    .mp_subscript = (binaryfunc)column_subscript,
};

static PyMethodDef column_methods[] = {
    {"tolist", (PyCFunction)column_list, METH_NOARGS, "The items as a new list."},
    {"__reduce__", (PyCFunction)column_reduce, METH_NOARGS, "Copies as a list."},
    {NULL},
};

static PyGetSetDef column_getset[] = {
    {"store", (getter)column_store, NULL, "the Store viewed", NULL},
    {NULL},
};

static PyTypeObject ColumnType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mcts_agent._core.Column",
    .tp_basicsize = sizeof(ColumnObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_SEQUENCE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)column_traverse,
    .tp_clear = (inquiry)column_clear,
    .tp_doc = "Column(store, field): a read-only sequence view of one per-node field of a Store.",
    .tp_new = column_new,
    .tp_dealloc = (destructor)column_dealloc,
    .tp_as_sequence = &column_as_sequence,
    .tp_as_mapping = &column_as_mapping,
    .tp_richcompare = column_richcompare,
    .tp_repr = (reprfunc)column_repr,
    .tp_methods = column_methods,
    .tp_getset = column_getset,
    .tp_hash = PyObject_HashNotImplemented,
};

/* ------------------------------------------------------------------ the loop */

/* next_state, reward, terminated = result (any iterable of exactly three; new references). */
int
unpack3(PyObject *result, PyObject **a, PyObject **b, PyObject **c)
{
    if (PyTuple_Check(result) && PyTuple_GET_SIZE(result) == 3) {
        *a = Py_NewRef(PyTuple_GET_ITEM(result, 0));
        *b = Py_NewRef(PyTuple_GET_ITEM(result, 1));
        *c = Py_NewRef(PyTuple_GET_ITEM(result, 2));
        return 0;
    }
    PyObject *it = PyObject_GetIter(result);
    if (it == NULL)
        return -1;
    PyObject *items[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3; k++) {
        items[k] = PyIter_Next(it);
        if (items[k] == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected 3, got %d)",
                             k);
            goto fail;
        }
    }
    PyObject *extra = PyIter_Next(it);
    if (extra != NULL) {
        Py_DECREF(extra);
        PyErr_SetString(PyExc_ValueError, "too many values to unpack (expected 3)");
        goto fail;
    }
    if (PyErr_Occurred())
        goto fail;
    Py_DECREF(it);
    *a = items[0];
    *b = items[1];
    *c = items[2];
    return 0;
fail:
    Py_DECREF(it);
    for (int k = 0; k < 3; k++)
        Py_XDECREF(items[k]);
    return -1;
}

PyObject *
call2(PyObject *f, PyObject *x, PyObject *y)
{
    PyObject *args[2] = {x, y};
    return PyObject_Vectorcall(f, args, 2, NULL);
}

PyObject *
call3(PyObject *f, PyObject *x, PyObject *y, PyObject *z)
{
    PyObject *args[3] = {x, y, z};
    return PyObject_Vectorcall(f, args, 3, NULL);
}

/* After step(state, action) failed with a TypeError or ValueError: check_step(model, state,
 * action) names the broken answer (its exception replaces the first, chained to it); if it
 * finds nothing, the first error stands. */
static void
step_failed(PyObject *check_step, PyObject *model, PyObject *state, PyObject *action)
{
    if (!PyErr_ExceptionMatches(PyExc_TypeError) && !PyErr_ExceptionMatches(PyExc_ValueError))
        return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL)
        PyException_SetTraceback(value, tb);
    PyObject *done = call3(check_step, model, state, action);
    if (done != NULL) {
        Py_DECREF(done);
        PyErr_Restore(type, value, tb);
        return;
    }
    PyObject *t2, *v2, *tb2;
    PyErr_Fetch(&t2, &v2, &tb2);
    PyErr_NormalizeException(&t2, &v2, &tb2);
    PyException_SetContext(v2, value); /* steals value */
    Py_DECREF(type);
    Py_XDECREF(tb);
    PyErr_Restore(t2, v2, tb2);
}

/* Whether the store's lists (the Tree's states, players and actions) still hold one entry per
 * node: Python code the search calls (the model, a rollout, a callback reading planner.tree)
 * can change them, and the core reads them unchecked. 0, or -1 with a RuntimeError naming
 * the list and ``during`` (what ran last). */
static __attribute__((cold, noinline)) int
lists_changed(StoreObject *store, const char *during)
{
    PyObject *lists[3] = {store->states, store->players, store->actions};
    static const char *names[3] = {"states", "players", "actions"};
    for (int k = 0; k < 3; k++)
        if (PyList_GET_SIZE(lists[k]) != store->size) {
            PyErr_Format(PyExc_RuntimeError,
                         "the search's tree was changed during the search (%s): tree.%s has "
                         "%zd entries, expected one per node (%zd); the tree's lists are "
                         "read-only outside the search",
                         during, names[k], PyList_GET_SIZE(lists[k]), store->size);
            return -1;
        }
    return 0;
}

static inline int
lists_intact(StoreObject *store, const char *during)
{
    Py_ssize_t size = store->size;
    if (PyList_GET_SIZE(store->states) == size && PyList_GET_SIZE(store->players) == size &&
        PyList_GET_SIZE(store->actions) == size)
        return 0;
    return lists_changed(store, during);
}

/* path[depth++] = node, growing path (doubling); 0, or -1 with MemoryError set. */
int
path_push(int32_t **path, Py_ssize_t *capacity, Py_ssize_t *depth, int32_t node)
{
    if (*depth == *capacity) {
        Py_ssize_t grown_capacity = *capacity ? 2 * *capacity : 64;
        int32_t *grown = PyMem_Realloc(*path, (size_t)grown_capacity * sizeof(int32_t));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        *path = grown;
        *capacity = grown_capacity;
    }
    (*path)[(*depth)++] = node;
    return 0;
}

typedef struct {
    PyObject *checked_reward, *checked_terminated, *checked_actions, *checked_player,
        *checked_return, *check_step, *backup_error;
} Checks;

static const char *run_doc =
    "run(store, tree, model, fused, generic, native, rng, exploration, gamma, limit, "
    "iterations, checks, value_range)\n\n"
    "Runs ``iterations`` of MCTS._run's loop on ``store`` (the views of ``tree``). ``fused``: "
    "the model's rollout(state, rng, limit, gamma) or None; ``generic``: rollout(state, "
    "actions, player) or None; ``native``: a native rollout capsule or None (then ``rng`` "
    "is a random.Random whose state it continues). ``checks``: the tuple (checked_reward, "
    "checked_terminated, checked_actions, checked_player, checked_return, check_step, "
    "backup_error) of mcts_agent.search's slow paths. ``value_range``: None, or the list "
    "[lo, hi] of value_normalization (MuZero's min-max statistics), read at the start and "
    "written back at the end.";

static PyObject *
core_run(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("run", nargs, 13))
        return NULL;
    if (!PyObject_TypeCheck(args[0], &StoreType)) {
        PyErr_SetString(PyExc_TypeError, "run's first argument must be a Store");
        return NULL;
    }
    StoreObject *store = (StoreObject *)args[0];
    PyObject *tree = args[1], *model = args[2], *fused = args[3], *generic = args[4];
    PyObject *native_capsule = args[5], *rng = args[6];
    double c = PyFloat_AsDouble(args[7]);
    double gamma = PyFloat_AsDouble(args[8]);
    PyObject *gamma_obj = args[8], *limit_obj = args[9];
    long long limit = PyLong_AsLongLong(args[9]);
    long long iterations = PyLong_AsLongLong(args[10]);
    if (PyErr_Occurred())
        return NULL;
    Checks ck;
    if (!PyArg_UnpackTuple(args[11], "checks", 7, 7, &ck.checked_reward, &ck.checked_terminated,
                           &ck.checked_actions, &ck.checked_player, &ck.checked_return,
                           &ck.check_step, &ck.backup_error))
        return NULL;
    NativeRollout *native = NULL;
    if (native_capsule != Py_None) {
        native = PyCapsule_GetPointer(native_capsule, NATIVE_ROLLOUT_NAME);
        if (native == NULL)
            return NULL;
        if (native->version != NATIVE_ROLLOUT_VERSION) {
            PyErr_Format(PyExc_ValueError, "native rollout version %d, expected %d",
                         native->version, NATIVE_ROLLOUT_VERSION);
            return NULL;
        }
    }
    if (fused == Py_None)
        fused = NULL;
    if (generic == Py_None)
        generic = NULL;
    /* value_normalization: lo and hi of the values met so far in this search's backups; while
       span = hi - lo > 0, selection scores (Q - lo) / span in place of Q (MCTS._run's rule). */
    PyObject *value_range = args[12];
    int normalising = value_range != Py_None;
    double lo = 0.0, hi = 0.0, span = 0.0;
    if (normalising) {
        if (!PyList_CheckExact(value_range) || PyList_GET_SIZE(value_range) != 2 ||
            !PyFloat_CheckExact(PyList_GET_ITEM(value_range, 0)) ||
            !PyFloat_CheckExact(PyList_GET_ITEM(value_range, 1))) {
            PyErr_Format(PyExc_TypeError, "run's value_range must be None or a list of two "
                                          "floats [lo, hi], got %R",
                         value_range);
            return NULL;
        }
        lo = PyFloat_AS_DOUBLE(PyList_GET_ITEM(value_range, 0));
        hi = PyFloat_AS_DOUBLE(PyList_GET_ITEM(value_range, 1));
        span = hi - lo;
    }
    int scaled = span > 0.0;
    PyObject *step = PyObject_GetAttrString(model, "step");
    PyObject *model_actions = PyObject_GetAttrString(model, "actions");
    PyObject *model_player = PyObject_GetAttrString(model, "player");
    MTState *mt = NULL;
    PyObject *rng_state = NULL;
    int32_t *path = NULL;
    Py_ssize_t path_capacity = 0;
    PyObject *rollout_g = Py_NewRef(Py_None); /* the last rollout's return, as Python's */
    double rollout_value = 0.0;
    int native_rolled = 0;                    /* rollout_g is rollout_value's (native) */
    PyObject *result = NULL;
    double minus_gamma = -gamma;
    if (step == NULL || model_actions == NULL || model_player == NULL)
        goto done;
    if (native != NULL) {
        mt = PyMem_Malloc(sizeof(MTState));
        if (mt == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        rng_state = mt_read(rng, mt);
        if (rng_state == NULL)
            goto done;
    }
    PyObject *states = store->states, *players = store->players, *node_actions = store->actions;

    for (long long it = 0; it < iterations; it++) {
        if ((it & 1023) == 1023 && PyErr_CheckSignals() < 0)
            goto done;
        NodeRecord *nodes = store->nodes;
        int32_t node = 0;
        Py_ssize_t depth = 0;
        /* 1. Selection: descend while the node is not terminal and fully expanded. */
        while (nodes[node].untried == 0) {
            double log_n = log((double)nodes[node].visits);
            double best_score = NAN;
            int32_t best_child = NO_NODE;
            if (scaled) { /* value_normalization: Qn = (Q - lo) / (hi - lo) */
                for (int32_t child = nodes[node].first; child != NO_NODE;
                     child = nodes[child].next) {
                    double score = (nodes[child].value - lo) / span +
                                   c * sqrt(log_n / (double)nodes[child].visits);
                    if (!(score <= best_score)) {
                        best_score = score;
                        best_child = child;
                    }
                }
            }
            else {
                for (int32_t child = nodes[node].first; child != NO_NODE;
                     child = nodes[child].next) {
                    double score =
                        nodes[child].value + c * sqrt(log_n / (double)nodes[child].visits);
                    if (!(score <= best_score)) {
                        best_score = score;
                        best_child = child;
                    }
                }
            }
            if (best_child == NO_NODE) {
                PyErr_Format(PyExc_RuntimeError, "node %d has no child and no untried action",
                             node);
                goto done;
            }
            node = best_child;
            if (path_push(&path, &path_capacity, &depth, node) < 0)
                goto done;
        }

        /* 2. Expansion: the first untried action, stepped once for ever. */
        int32_t left = nodes[node].untried;
        if (left > 0) {
            if (lists_intact(store, "before an expansion") < 0)
                goto done;
            PyObject *state = PyList_GET_ITEM(states, node);
            PyObject *actions = PyList_GET_ITEM(node_actions, node);
            if (!PyTuple_Check(actions) || PyTuple_GET_SIZE(actions) < left) {
                PyErr_Format(PyExc_RuntimeError,
                             "the search's tree was changed during the search: tree.actions[%d] "
                             "is %R, expected the tuple of the node's %d actions or more; the "
                             "tree's lists are read-only outside the search",
                             node, actions, (int)left);
                goto done;
            }
            PyObject *action = PyTuple_GET_ITEM(actions, PyTuple_GET_SIZE(actions) - left);
            Py_INCREF(state);
            Py_INCREF(action);
            PyObject *next_state = NULL, *reward = NULL, *terminated = NULL;
            PyObject *child_actions = NULL, *child_player = NULL;
            PyObject *outcome = call2(step, state, action);
            int ok = outcome != NULL && unpack3(outcome, &next_state, &reward, &terminated) == 0;
            Py_XDECREF(outcome);
            if (!ok) {
                step_failed(ck.check_step, model, state, action);
                goto expansion_failed;
            }
            double r;
            if (Py_IS_TYPE(reward, &PyFloat_Type))
                r = PyFloat_AS_DOUBLE(reward);
            else {
                PyObject *checked = call3(ck.checked_reward, reward, state, action);
                if (checked == NULL)
                    goto expansion_failed;
                r = PyFloat_AsDouble(checked);
                Py_DECREF(checked);
                if (r == -1.0 && PyErr_Occurred())
                    goto expansion_failed;
            }
            if (terminated != Py_False && terminated != Py_True) {
                PyObject *checked = call3(ck.checked_terminated, terminated, state, action);
                if (checked == NULL)
                    goto expansion_failed;
                Py_SETREF(terminated, checked);
            }
            if (terminated == Py_False) {
                child_actions = PyObject_CallOneArg(model_actions, next_state);
                if (child_actions == NULL)
                    goto expansion_failed;
                if (!PyTuple_CheckExact(child_actions)) {
                    PyObject *checked = call2(ck.checked_actions, child_actions, next_state);
                    if (checked == NULL)
                        goto expansion_failed;
                    Py_SETREF(child_actions, checked);
                }
                if (PyTuple_GET_SIZE(child_actions)) {
                    child_player = PyObject_CallOneArg(model_player, next_state);
                    if (child_player == NULL)
                        goto expansion_failed;
                    if (!PyLong_CheckExact(child_player)) {
                        PyObject *checked = call2(ck.checked_player, child_player, next_state);
                        if (checked == NULL)
                            goto expansion_failed;
                        Py_DECREF(checked);
                    }
                }
            }
            else
                child_actions = PyTuple_New(0);
            if (child_player == NULL)
                child_player = Py_NewRef(Py_None);
            if (child_actions == NULL)
                goto expansion_failed;
            {
                /* gamma if child_player == players[node] else minus_gamma */
                if (lists_intact(store, "in the model's step, actions or player") < 0)
                    goto expansion_failed;
                PyObject *mover = Py_NewRef(PyList_GET_ITEM(players, node));
                PyObject *same = PyObject_RichCompare(child_player, mover, Py_EQ);
                Py_DECREF(mover);
                if (same == NULL)
                    goto expansion_failed;
                int truth = PyObject_IsTrue(same);
                Py_DECREF(same);
                if (truth < 0 || lists_intact(store, "in the players' ==") < 0)
                    goto expansion_failed;
                Py_ssize_t child = store->size;
                if (store_reserve(store, child + 1) < 0 ||
                    PyList_Append(states, next_state) < 0 ||
                    PyList_Append(players, child_player) < 0 ||
                    PyList_Append(node_actions, child_actions) < 0)
                    goto expansion_failed;
                nodes = store->nodes;
                NodeRecord *record = &nodes[child];
                Py_ssize_t count = PyTuple_GET_SIZE(child_actions);
                record->value = 0.0;
                record->visits = 0;
                record->next = NO_NODE;
                record->first = NO_NODE;
                record->last = NO_NODE;
                record->untried = count ? (int32_t)count : TERMINAL;
                record->value_sum = 0.0;
                record->reward = r;
                record->discount = truth ? gamma : minus_gamma;
                store->size = child + 1;
                /* after the last child (not a walk of the siblings: k actions cost O(k)) */
                if (nodes[node].last == NO_NODE)
                    nodes[node].first = (int32_t)child;
                else
                    nodes[nodes[node].last].next = (int32_t)child;
                nodes[node].last = (int32_t)child;
                nodes[node].untried = left - 1;
                node = (int32_t)child;
            }
            Py_DECREF(state);
            Py_DECREF(action);
            Py_DECREF(next_state);
            Py_DECREF(reward);
            Py_DECREF(terminated);
            Py_DECREF(child_actions);
            Py_DECREF(child_player);
            if (path_push(&path, &path_capacity, &depth, node) < 0)
                goto done;
            goto expanded;
        expansion_failed:
            Py_DECREF(state);
            Py_DECREF(action);
            Py_XDECREF(next_state);
            Py_XDECREF(reward);
            Py_XDECREF(terminated);
            Py_XDECREF(child_actions);
            Py_XDECREF(child_player);
            goto done;
        }
    expanded:;

        /* 3. Simulation: G = 0 at a terminal node or with rollouts off. */
        double g;
        nodes = store->nodes;
        if (nodes[node].untried == TERMINAL)
            g = 0.0;
        else if (native != NULL) {
            if (lists_intact(store, "before a rollout") < 0 ||
                native->rollout(native, PyList_GET_ITEM(states, node), mt_random, mt, limit, gamma,
                                &g) < 0)
                goto done;
            rollout_value = g;
            native_rolled = 1;
        }
        else if (fused != NULL || generic != NULL) {
            if (lists_intact(store, "before a rollout") < 0)
                goto done;
            /* held: the rollout may change the lists (then the error after it) */
            PyObject *state = Py_NewRef(PyList_GET_ITEM(states, node));
            PyObject *value;
            if (fused != NULL) {
                PyObject *fargs[4] = {state, rng, limit_obj, gamma_obj};
                value = PyObject_Vectorcall(fused, fargs, 4, NULL);
            }
            else {
                PyObject *actions = Py_NewRef(PyList_GET_ITEM(node_actions, node));
                PyObject *player = Py_NewRef(PyList_GET_ITEM(players, node));
                value = call3(generic, state, actions, player);
                Py_DECREF(actions);
                Py_DECREF(player);
            }
            if (value == NULL) {
                Py_DECREF(state);
                goto done;
            }
            if (lists_intact(store, "in a rollout") < 0) {
                Py_DECREF(state);
                Py_DECREF(value);
                goto done;
            }
            Py_DECREF(state); /* the tree holds it */
            state = PyList_GET_ITEM(states, node);
            Py_SETREF(rollout_g, value);
            native_rolled = 0;
            if (PyFloat_Check(value))
                g = PyFloat_AS_DOUBLE(value);
            else if (PyLong_Check(value)) {
                g = PyLong_AsDouble(value);
                if (g == -1.0 && PyErr_Occurred())
                    goto done;
            }
            else {
                PyObject *checked = call2(ck.checked_return, value, state);
                if (checked == NULL)
                    goto done;
                g = PyFloat_AsDouble(checked);
                Py_DECREF(checked);
                if (g == -1.0 && PyErr_Occurred())
                    goto done;
            }
        }
        else
            g = 0.0;

        /* 4. Backup, leaf first: G = r + gamma*G if the mover moves again, else r - gamma*G. */
        nodes = store->nodes; /* (a rollout that re-entered the core may have moved them) */
        for (Py_ssize_t k = depth - 1; k >= 0; k--) {
            NodeRecord *record = &nodes[path[k]];
            g = record->reward + record->discount * g;
            int64_t n = record->visits + 1;
            record->visits = n;
            double w = record->value_sum + g;
            record->value_sum = w;
            record->value = w / (double)n;
        }
        if (!isfinite(g)) {
            int32_t leaf = path[depth - 1];
            int rolled_out = limit > 0 && nodes[leaf].untried != TERMINAL;
            PyObject *path_list = PyList_New(depth);
            if (path_list == NULL)
                goto done;
            for (Py_ssize_t k = 0; k < depth; k++) {
                PyObject *index = PyLong_FromLong(path[k]);
                if (index == NULL) {
                    Py_DECREF(path_list);
                    goto done;
                }
                PyList_SET_ITEM(path_list, k, index);
            }
            PyObject *returned;
            if (!rolled_out)
                returned = Py_NewRef(Py_None);
            else if (native_rolled)
                returned = PyFloat_FromDouble(rollout_value);
            else
                returned = Py_NewRef(rollout_g);
            PyObject *error = returned ? call3(ck.backup_error, tree, path_list, returned) : NULL;
            Py_DECREF(path_list);
            Py_XDECREF(returned);
            if (error != NULL) {
                PyErr_SetObject((PyObject *)Py_TYPE(error), error);
                Py_DECREF(error);
            }
            goto done;
        }
        nodes[0].visits += 1;
        if (normalising) { /* the values the backup left, leaf first (mcts_agent.normalization) */
            for (Py_ssize_t k = depth - 1; k >= 0; k--) {
                double q = nodes[path[k]].value;
                if (q < lo)
                    lo = q;
                if (q > hi)
                    hi = q;
            }
            span = hi - lo;
            scaled = span > 0.0;
        }
    }
    if (normalising) { /* the statistics continue in the next chunk (a failed search drops them) */
        PyObject *lo_obj = PyFloat_FromDouble(lo), *hi_obj = PyFloat_FromDouble(hi);
        if (lo_obj == NULL || hi_obj == NULL) {
            Py_XDECREF(lo_obj);
            Py_XDECREF(hi_obj);
            goto done;
        }
        PyList_SetItem(value_range, 0, lo_obj); /* steals; the list's size was checked */
        PyList_SetItem(value_range, 1, hi_obj);
    }
    result = Py_NewRef(Py_None);

done:
    if (rng_state != NULL) { /* the planner's generator continues where the rollouts left it */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (mt_write(rng, mt, rng_state) < 0) {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            Py_CLEAR(result);
        }
        else
            PyErr_Restore(type, value, tb);
        Py_DECREF(rng_state);
    }
    PyMem_Free(mt);
    PyMem_Free(path);
    Py_DECREF(rollout_g);
    Py_XDECREF(step);
    Py_XDECREF(model_actions);
    Py_XDECREF(model_player);
    return result;
}

/* ------------------------------------------------------------------ leaf batching: a round's PUCT selection */

static PyObject *zero_int, *one_int; /* the ints 0 and 1 (set by the module's init) */

/* Sets list[index] to a new reference (stolen); -1 if it is NULL. */
int
set_new(PyObject *list, Py_ssize_t index, PyObject *value)
{
    if (value == NULL)
        return -1;
    PyList_SetItem(list, index, value);
    return 0;
}

/* A float of the tree's lists as a double: a float, or an int (visits) converted as Python's
 * arithmetic converts it (PyLong_AsDouble, correctly rounded). Anything else (the search puts
 * only these in the lists) is a TypeError: no Python code, such as a __float__, may run while
 * the round reads the lists unchecked. */
double
as_double(PyObject *x)
{
    if (PyFloat_CheckExact(x))
        return PyFloat_AS_DOUBLE(x);
    if (PyLong_CheckExact(x))
        return PyLong_AsDouble(x); /* what float(x) does, without the float object */
    if (PyFloat_Check(x)) /* subclasses: read as their base type, no Python code run */
        return PyFloat_AS_DOUBLE(x);
    if (PyLong_Check(x))
        return PyLong_AsDouble(x);
    PyErr_Format(PyExc_TypeError, "the tree's numeric fields hold floats and ints, got %R", x);
    return -1.0;
}

/* A round's virtual losses while the tree's lists keep the figures of before the round: the
 * touched nodes' (N, W, Q) as doubles (the very values leaf_batching.run would write into the
 * lists), in an open-addressing table keyed by node. */
typedef struct {
    Py_ssize_t node; /* -1: empty */
    double n, w, q;
} OverlayEntry;

typedef struct {
    OverlayEntry *entries;
    Py_ssize_t capacity, used; /* capacity a power of 2, at least twice used */
} Overlay;

typedef struct {
    PyObject *untried, *children, *visits, *value_sums, *values, *scaled_priors, *priors,
        *action_indices, *expansion_orders, *score_all, *fallback;
    double c, unvisited_value;
    /* The round's virtual losses: ``seen`` one bit per node (set once the node has one),
     * ``overlay`` their figures (NULL once they are written into the lists, the figures of
     * before the round then in ``saved``, as leaf_batching.run keeps them). */
    uint8_t *seen;
    Overlay *overlay;
    PyObject *saved;
    /* For the checks after Python code (puct_intact): the round's native expansion (or NULL)
     * and the most nodes the round may number. */
    struct Expansion *expansion;
    Py_ssize_t bound;
    /* value_normalization: while ``scaled``, a tried child's Q reads (Q - lo) / span. */
    double lo, span;
    int scaled;
} PuctLists;

/* Reads value_normalization's ``value_range`` (None, or the list [lo, hi] of two floats) into
 * *lo and *hi: returns 1 for a list, 0 for None (*lo = *hi = 0), -1 with TypeError for anything
 * else. */
static int
read_value_range(PyObject *value_range, const char *caller, double *lo, double *hi)
{
    *lo = 0.0;
    *hi = 0.0;
    if (value_range == Py_None)
        return 0;
    if (!PyList_CheckExact(value_range) || PyList_GET_SIZE(value_range) != 2 ||
        !PyFloat_CheckExact(PyList_GET_ITEM(value_range, 0)) ||
        !PyFloat_CheckExact(PyList_GET_ITEM(value_range, 1))) {
        PyErr_Format(PyExc_TypeError,
                     "%s: value_range must be None or a list of two floats [lo, hi], got %R",
                     caller, value_range);
        return -1;
    }
    *lo = PyFloat_AS_DOUBLE(PyList_GET_ITEM(value_range, 0));
    *hi = PyFloat_AS_DOUBLE(PyList_GET_ITEM(value_range, 1));
    return 1;
}

struct Expansion;
static int puct_intact(PuctLists *t, struct Expansion *e, Py_ssize_t bound, const char *during);

static inline int
is_seen(PuctLists *t, Py_ssize_t node)
{
    return t->seen[node >> 3] >> (node & 7) & 1;
}

static inline Py_ssize_t
overlay_slot(Overlay *o, Py_ssize_t node)
{
    size_t mask = (size_t)o->capacity - 1;
    size_t slot = ((size_t)node * (size_t)0x9E3779B97F4A7C15ULL) & mask;
    while (o->entries[slot].node != node && o->entries[slot].node != -1)
        slot = (slot + 1) & mask;
    return (Py_ssize_t)slot;
}

/* The overlay's entry of ``node`` if it has a virtual loss and the overlay is on, else NULL. */
static inline OverlayEntry *
overlay_find(PuctLists *t, Py_ssize_t node)
{
    if (t->overlay == NULL || !is_seen(t, node))
        return NULL;
    return &t->overlay->entries[overlay_slot(t->overlay, node)];
}

/* A new entry for ``node`` (not in the overlay); NULL with MemoryError. */
static OverlayEntry *
overlay_add(Overlay *o, Py_ssize_t node)
{
    if (2 * (o->used + 1) > o->capacity) {
        Py_ssize_t old_capacity = o->capacity;
        OverlayEntry *old = o->entries;
        Py_ssize_t capacity = old_capacity ? 2 * old_capacity : 256;
        OverlayEntry *entries = PyMem_Malloc((size_t)capacity * sizeof(OverlayEntry));
        if (entries == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        for (Py_ssize_t k = 0; k < capacity; k++)
            entries[k].node = -1;
        o->entries = entries;
        o->capacity = capacity;
        for (Py_ssize_t k = 0; k < old_capacity; k++)
            if (old[k].node != -1)
                o->entries[overlay_slot(o, old[k].node)] = old[k];
        PyMem_Free(old);
    }
    OverlayEntry *entry = &o->entries[overlay_slot(o, node)];
    entry->node = node;
    o->used++;
    return entry;
}

/* Writes the overlay's figures into the lists (the figures of before the round into
 * ``saved``) and turns the overlay off: leaf_batching.run's state of the round, for the
 * Python rule to read. -1 with an exception set. */
static int
overlay_write(PuctLists *t)
{
    Overlay *o = t->overlay;
    t->overlay = NULL;
    for (Py_ssize_t k = 0; k < o->capacity; k++) {
        OverlayEntry *e = &o->entries[k];
        if (e->node == -1)
            continue;
        PyObject *key = PyLong_FromSsize_t(e->node);
        PyObject *old = PyTuple_Pack(3, PyList_GET_ITEM(t->visits, e->node),
                                     PyList_GET_ITEM(t->value_sums, e->node),
                                     PyList_GET_ITEM(t->values, e->node));
        int stored = key == NULL || old == NULL ? -1 : PyDict_SetItem(t->saved, key, old);
        Py_XDECREF(key);
        Py_XDECREF(old);
        if (stored < 0 || set_new(t->visits, e->node, PyFloat_FromDouble(e->n)) < 0 ||
            set_new(t->value_sums, e->node, PyFloat_FromDouble(e->w)) < 0 ||
            set_new(t->values, e->node, PyFloat_FromDouble(e->q)) < 0)
            return -1;
    }
    return 0;
}

/* mcts_agent.selection.expansion_order(priors, c) for a tuple of at most 64 floats: a new
 * reference to the same answer (a range when every prior is equal, else a list of the
 * indices, highest prior first, ties in the model's order; ``score_all`` itself), or a new
 * reference to None for the priors it does not take (the caller then calls the Python
 * function). NULL with an exception set. */
static PyObject *
expansion_order(PyObject *priors, double c, PyObject *score_all)
{
    if (c == 0.0)
        return Py_NewRef(score_all);
    Py_ssize_t count = PyTuple_CheckExact(priors) ? PyTuple_GET_SIZE(priors) : 0;
    if (count < 1 || count > 64)
        Py_RETURN_NONE;
    double p[64], sorted[64];
    int order[64];
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *x = PyTuple_GET_ITEM(priors, k);
        if (!PyFloat_CheckExact(x) || isnan(PyFloat_AS_DOUBLE(x)))
            Py_RETURN_NONE;
        p[k] = sorted[k] = PyFloat_AS_DOUBLE(x);
    }
    for (Py_ssize_t k = 1; k < count; k++) /* insertion sorts: a node has few actions */
        for (Py_ssize_t j = k; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double swap = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = swap;
        }
    int distinct = 1;
    for (Py_ssize_t k = 1; k < count; k++)
        if (sorted[k] != sorted[k - 1]) {
            double low = sorted[k - 1], high = sorted[k]; /* consecutive distinct values */
            if (high - low <= 1e-12 * high)
                return Py_NewRef(score_all);
            distinct++;
        }
    if (distinct == 1)
        return PyObject_CallFunction((PyObject *)&PyRange_Type, "n", count);
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_ssize_t j = k;
        for (; j > 0 && p[order[j - 1]] < p[k]; j--) /* stable, highest first */
            order[j] = order[j - 1];
        order[j] = (int)k;
    }
    PyObject *list = PyList_New(count);
    for (Py_ssize_t k = 0; list != NULL && k < count; k++) {
        PyObject *index = PyLong_FromLong(order[k]);
        if (index == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, k, index);
    }
    return list;
}

/* mcts_agent.selection.puct_select at ``node`` (not terminal): *i the action's index, *child
 * its child or -1 if untried. The off-fast-path cases (no expansion order yet, SCORE_ALL, no
 * child scored above -inf) call the Python function (``fallback(node) -> (i, child)``), which
 * is the rule itself. Returns -1 with an exception set. */
static int
puct_choose(PuctLists *t, Py_ssize_t node, Py_ssize_t *i_out, Py_ssize_t *child_out)
{
    OverlayEntry *mine = overlay_find(t, node);
    double n = mine != NULL ? mine->n : as_double(PyList_GET_ITEM(t->visits, node));
    if (n == -1.0 && PyErr_Occurred())
        return -1;
    double root_n = sqrt(n > 1 ? n : 1.0);
    double best_score = -INFINITY;
    Py_ssize_t child = -1;
    PyObject *kids = PyList_GET_ITEM(t->children, node);
    if (!PyTuple_CheckExact(kids))
        goto fallback; /* GuidedTree keeps tuples; anything else takes the Python rule */
    Py_ssize_t count = PyTuple_GET_SIZE(kids);
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_ssize_t kid = PyLong_AsSsize_t(PyTuple_GET_ITEM(kids, k));
        if (kid < 0 || kid >= PyList_GET_SIZE(t->values)) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_IndexError, "node %zd has the child %zd, not in the tree",
                             node, kid);
            return -1;
        }
        OverlayEntry *lost = overlay_find(t, kid);
        double q, v;
        if (lost != NULL) {
            q = lost->q;
            v = lost->n;
        }
        else {
            q = as_double(PyList_GET_ITEM(t->values, kid));
            v = as_double(PyList_GET_ITEM(t->visits, kid));
        }
        double p = as_double(PyList_GET_ITEM(t->scaled_priors, kid));
        if (PyErr_Occurred())
            return -1;
        if (t->scaled) /* value_normalization: Qn = (Q - lo) / (hi - lo) */
            q = (q - t->lo) / t->span;
        double score = q + p * root_n / (1.0 + v);
        if (score > best_score) {
            best_score = score;
            child = kid;
        }
    }
    long untried = PyLong_AsLong(PyList_GET_ITEM(t->untried, node));
    if (untried == -1 && PyErr_Occurred())
        return -1;
    if (untried) {
        PyObject *order = PyList_GET_ITEM(t->expansion_orders, node);
        if (order == Py_None) {
            order = expansion_order(PyList_GET_ITEM(t->priors, node), t->c, t->score_all);
            if (order == NULL)
                return -1;
            if (order == Py_None) {
                Py_DECREF(order);
                goto fallback; /* the Python rule works it out */
            }
            PyList_SetItem(t->expansion_orders, node, order); /* steals */
        }
        if (order == t->score_all)
            goto fallback;
        PyObject *i_obj = PySequence_GetItem(order, count);
        if (i_obj == NULL)
            return -1;
        Py_ssize_t i = PyLong_AsSsize_t(i_obj);
        Py_DECREF(i_obj);
        if (i == -1 && PyErr_Occurred())
            return -1;
        PyObject *node_priors = PyList_GET_ITEM(t->priors, node);
        PyObject *p_obj = PySequence_GetItem(node_priors, i);
        if (p_obj == NULL)
            return -1;
        double p = as_double(p_obj);
        Py_DECREF(p_obj);
        if (p == -1.0 && PyErr_Occurred())
            return -1;
        double score = t->unvisited_value + t->c * p * root_n; /* / (1 + 0) */
        if (child == -1) {
            if (!(score > best_score))
                goto fallback; /* an untried score of -inf or NaN: the Python rule */
            *i_out = i;
            *child_out = -1;
            return 0;
        }
        Py_ssize_t child_action = PyLong_AsSsize_t(PyList_GET_ITEM(t->action_indices, child));
        if (score > best_score || (score == best_score && i < child_action)) {
            *i_out = i;
            *child_out = -1;
            return 0;
        }
    }
    else if (child == -1) /* every score NaN or -inf (a W overflowed) */
        goto fallback;
    *i_out = PyLong_AsSsize_t(PyList_GET_ITEM(t->action_indices, child));
    *child_out = child;
    return PyErr_Occurred() ? -1 : 0;

fallback:
    if (t->overlay != NULL && overlay_write(t) < 0) /* the Python rule reads the lists */
        return -1;
    PyObject *answer = PyObject_CallFunction(t->fallback, "n", node);
    if (answer == NULL || puct_intact(t, t->expansion, t->bound, "in the PUCT rule") < 0) {
        Py_XDECREF(answer);
        return -1;
    }
    if (!PyTuple_Check(answer) || PyTuple_GET_SIZE(answer) != 2) {
        Py_DECREF(answer);
        PyErr_SetString(PyExc_TypeError, "the PUCT fallback must return (i, child)");
        return -1;
    }
    *i_out = PyLong_AsSsize_t(PyTuple_GET_ITEM(answer, 0));
    *child_out = PyLong_AsSsize_t(PyTuple_GET_ITEM(answer, 1));
    Py_DECREF(answer);
    return PyErr_Occurred() ? -1 : 0;
}

/* One node's virtual loss, as mcts_agent.leaf_batching.run applies it: N += loss, W -= loss,
 * Q = W / N, in the overlay while it is on; else in the lists, the node's (N, W, Q) of before
 * the round saved in ``saved`` (under ``key``, the node's index as an int object) the first
 * time in the round. */
static int
add_virtual_loss(PuctLists *t, PyObject *key, Py_ssize_t node, double loss)
{
    int first = !is_seen(t, node);
    t->seen[node >> 3] |= (uint8_t)(1 << (node & 7));
    PyObject *n_obj = PyList_GET_ITEM(t->visits, node);
    PyObject *w_obj = PyList_GET_ITEM(t->value_sums, node);
    if (t->overlay != NULL) {
        OverlayEntry *e;
        if (first) {
            e = overlay_add(t->overlay, node);
            if (e == NULL)
                return -1;
            e->n = as_double(n_obj);
            e->w = as_double(w_obj);
            if (PyErr_Occurred())
                return -1;
        }
        else
            e = overlay_find(t, node);
        e->n = e->n + loss;
        e->w = e->w - loss;
        e->q = e->w / e->n;
        return 0;
    }
    if (first) {
        PyObject *old = PyTuple_Pack(3, n_obj, w_obj, PyList_GET_ITEM(t->values, node));
        int stored = old == NULL ? -1 : PyDict_SetItem(t->saved, key, old);
        Py_XDECREF(old);
        if (stored < 0)
            return -1;
    }
    double n = as_double(n_obj) + loss;
    double w = as_double(w_obj) - loss;
    if (PyErr_Occurred())
        return -1;
    if (set_new(t->visits, node, PyFloat_FromDouble(n)) < 0 ||
        set_new(t->value_sums, node, PyFloat_FromDouble(w)) < 0 ||
        set_new(t->values, node, PyFloat_FromDouble(w / n)) < 0)
        return -1;
    return 0;
}

/* The lists of a GuidedTree that an expansion appends to, beyond PuctLists', and the model's
 * native step (mcts_agent.leaf_batching.run's ``expand``, in C). */
typedef struct Expansion {
    NativeStep *native;
    PyObject *uniform_priors; /* mcts_agent.evaluator.uniform_priors */
    double gamma;
    PyObject *states, *players, *rewards, *discounts, *actions, *leaf_values, *proven_values,
        *chance_records;
} Expansion;

/* uniform_priors(count) (mcts_agent.evaluator's, a shared tuple per count): a new reference,
 * kept here for counts up to 64 after the first call. NULL with an exception set. */
static PyObject *uniform_cache[65];

PyObject *
uniform(PyObject *uniform_priors, Py_ssize_t count)
{
    if (count < 0 || count > 64)
        return PyObject_CallFunction(uniform_priors, "n", count);
    if (uniform_cache[count] == NULL) {
        PyObject *priors = PyObject_CallFunction(uniform_priors, "n", count);
        if (priors == NULL)
            return NULL;
        if (!PyTuple_CheckExact(priors))
            return priors; /* not a tuple: not kept */
        uniform_cache[count] = priors;
    }
    return Py_NewRef(uniform_cache[count]);
}

/* Whether the tree's lists still hold one entry per node, and at most ``bound`` nodes (the
 * round's bitmap): the Python code a round calls (the model's methods in ``expand``, the PUCT
 * fallback, a player's ==) could change them, and the core reads them unchecked. 0, or -1
 * with a RuntimeError naming the list and ``during``. */
static int
puct_intact(PuctLists *t, Expansion *e, Py_ssize_t bound, const char *during)
{
    PyObject *lists[17] = {t->untried,        t->children,      t->visits,       t->value_sums,
                           t->values,         t->scaled_priors, t->priors,       t->action_indices,
                           t->expansion_orders};
    static const char *names[17] = {"untried", "children", "visits", "value_sums", "values",
                                    "scaled_priors", "priors", "action_indices",
                                    "expansion_orders", "states", "players", "rewards",
                                    "discounts", "actions", "leaf_values", "proven_values",
                                    "chance_records"};
    int count = 9;
    if (e != NULL) {
        PyObject *more[8] = {e->states,  e->players,     e->rewards,       e->discounts,
                             e->actions, e->leaf_values, e->proven_values, e->chance_records};
        for (int k = 0; k < 8; k++)
            lists[count++] = more[k];
    }
    Py_ssize_t size = PyList_GET_SIZE(t->values);
    for (int k = 0; k < count; k++)
        if (PyList_GET_SIZE(lists[k]) != size || size > bound || size == 0) {
            PyErr_Format(PyExc_RuntimeError,
                         "the search's tree was changed during the search (%s): tree.%s has "
                         "%zd entries, tree.values %zd (at most %zd this round); the tree's "
                         "lists are read-only outside the search",
                         during, names[k], PyList_GET_SIZE(lists[k]), size, bound);
            return -1;
        }
    return 0;
}

/* Appends one node to every list of the tree, in GuidedTree.append_node's order. */
static int
append_node(PuctLists *t, Expansion *e, PyObject *state, PyObject *player, double reward,
            double discount, PyObject *actions, Py_ssize_t untried, Py_ssize_t i,
            PyObject *priors, double scaled_prior)
{
    PyObject *fields[17] = {Py_NewRef(state),
                            Py_NewRef(player),
                            PyFloat_FromDouble(reward),
                            PyFloat_FromDouble(discount),
                            Py_NewRef(actions),
                            PyTuple_New(0),
                            PyLong_FromSsize_t(untried),
                            Py_NewRef(zero_int),
                            PyFloat_FromDouble(0.0),
                            PyFloat_FromDouble(0.0),
                            PyLong_FromSsize_t(i),
                            Py_NewRef(priors),
                            PyFloat_FromDouble(scaled_prior),
                            Py_NewRef(Py_None),
                            Py_NewRef(Py_None),
                            Py_NewRef(Py_None),
                            Py_NewRef(Py_None)};
    PyObject *lists[17] = {e->states,         e->players,          e->rewards,
                           e->discounts,      e->actions,          t->children,
                           t->untried,        t->visits,           t->value_sums,
                           t->values,         t->action_indices,   t->priors,
                           t->scaled_priors,  e->leaf_values,      t->expansion_orders,
                           e->proven_values,  e->chance_records};
    int status = 0;
    for (int k = 0; k < 17; k++)
        if (status == 0 && (fields[k] == NULL || PyList_Append(lists[k], fields[k]) < 0))
            status = -1;
    for (int k = 0; k < 17; k++)
        Py_XDECREF(fields[k]);
    return status;
}

/* leaf_batching.run's expand(node, i) with the native step: *child the new node, or -1 if
 * the native step does not take the state (the caller then calls the Python expand).
 * Returns -1 with an exception set. */
static int
native_expand(PuctLists *t, Expansion *e, Py_ssize_t node, Py_ssize_t i, Py_ssize_t *child)
{
    /* Read with no Python code run: the node's actions and priors as GuidedTree keeps them,
     * tuples (anything else is left to the Python expand, which decides, or raises). */
    PyObject *node_actions = PyList_GET_ITEM(e->actions, node);
    PyObject *parent_priors = PyList_GET_ITEM(t->priors, node);
    if (!PyTuple_CheckExact(node_actions) || !PyTuple_CheckExact(parent_priors) || i < 0 ||
        i >= PyTuple_GET_SIZE(node_actions) || i >= PyTuple_GET_SIZE(parent_priors)) {
        *child = -1;
        return 0;
    }
    PyObject *action = Py_NewRef(PyTuple_GET_ITEM(node_actions, i));
    PyObject *p_obj = Py_NewRef(PyTuple_GET_ITEM(parent_priors, i));
    PyObject *next_state = NULL, *actions = NULL, *player = NULL, *priors = NULL;
    double reward;
    int terminated;
    int taken = e->native->expand(PyList_GET_ITEM(e->states, node), action, &next_state,
                                  &reward, &terminated, &actions, &player);
    Py_DECREF(action);
    if (taken <= 0) {
        Py_DECREF(p_obj);
        *child = -1;
        return taken;
    }
    int status = -1;
    Py_ssize_t count = PyTuple_GET_SIZE(actions);
    if (player == NULL)
        player = Py_NewRef(Py_None);
    priors = count ? uniform(e->uniform_priors, count) : PyTuple_New(0);
    PyObject *mover = Py_NewRef(PyList_GET_ITEM(e->players, node));
    int same = PyObject_RichCompareBool(player, mover, Py_EQ);
    int python = !(PyLong_CheckExact(mover) || mover == Py_None); /* an __eq__ of the model's */
    Py_DECREF(mover);
    if (same >= 0 && python && puct_intact(t, e, t->bound, "in the players' ==") < 0)
        same = -1;
    if (priors != NULL && p_obj != NULL && same >= 0) {
        double p = as_double(p_obj);
        Py_ssize_t made = PyList_GET_SIZE(e->states);
        if (!PyErr_Occurred() &&
            append_node(t, e, next_state, player, reward, same ? e->gamma : -e->gamma, actions,
                        count ? count : TERMINAL, i, priors, t->c * p) == 0) {
            /* Linked into the parent's children in the model's order (bisect by action index),
             * and one fewer untried action. */
            PyObject *kids = PyList_GET_ITEM(t->children, node);
            Py_ssize_t size = PyTuple_GET_SIZE(kids), at = 0;
            while (at < size) {
                Py_ssize_t kid = PyLong_AsSsize_t(PyTuple_GET_ITEM(kids, at));
                if (kid < 0 || kid >= made) {
                    if (!PyErr_Occurred())
                        PyErr_Format(PyExc_IndexError,
                                     "node %zd has the child %zd, not in the tree", node, kid);
                    break;
                }
                Py_ssize_t index = PyLong_AsSsize_t(PyList_GET_ITEM(t->action_indices, kid));
                if (index > i)
                    break;
                at++;
            }
            PyObject *linked = PyTuple_New(size + 1);
            PyObject *made_obj = PyLong_FromSsize_t(made);
            long untried = PyLong_AsLong(PyList_GET_ITEM(t->untried, node));
            PyObject *left = PyLong_FromLong(untried - 1);
            if (linked != NULL && made_obj != NULL && left != NULL && !PyErr_Occurred()) {
                for (Py_ssize_t k = 0, j = 0; k <= size; k++)
                    PyTuple_SET_ITEM(linked, k,
                                     Py_NewRef(k == at ? made_obj : PyTuple_GET_ITEM(kids, j++)));
                PyList_SetItem(t->children, node, linked); /* steals */
                PyList_SetItem(t->untried, node, left);
                linked = left = NULL;
                *child = made;
                status = 0;
            }
            Py_XDECREF(linked);
            Py_XDECREF(made_obj);
            Py_XDECREF(left);
        }
    }
    Py_XDECREF(p_obj);
    Py_XDECREF(priors);
    Py_DECREF(next_state);
    Py_DECREF(actions);
    Py_DECREF(player);
    return status;
}

static const char *select_leaves_doc =
    "select_leaves(size, first_new, horizon, loss, expand, fallback, c, unvisited_value, "
    "score_all, untried, children, visits, value_sums, values, scaled_priors, priors, "
    "action_indices, expansion_orders, native, value_range) -> (paths, saved)\n\n"
    "Step 1 of a round of mcts_agent.leaf_batching.run with PUCT, in C: ``size`` selections "
    "from the root (PUCT's fast path; ``fallback(node) -> (i, child)``, "
    "mcts_agent.selection.puct_select, off it), each stopping at a terminal node, the horizon or "
    "a node numbered ``first_new`` or more, or at an untried action (``expand(node, i) -> "
    "child``); each path (a list, root excluded) gets the virtual loss ``loss`` (if not 0), the "
    "nodes' (N, W, Q) before the round kept in ``saved`` (a dict). The virtual losses live in C "
    "(the lists keep their figures) until the Python rule must read them: then they are written "
    "into the lists, the figures before the round into ``saved``; so after the call the lists "
    "differ from before the round only at the nodes of ``saved``, which backup_leaves puts "
    "back. The tree's lists are GuidedTree's, changed in place. ``native``: None, or (capsule, uniform_priors, gamma, "
    "states, players, rewards, discounts, actions, leaf_values, proven_values, chance_records) "
    "to expand in C with the model's native step capsule (``expand`` for the states it does "
    "not take), appending to the tree's lists as GuidedTree.append_node does. ``value_range``: "
    "None, or value_normalization's [lo, hi]: while hi > lo a tried child's Q scores as "
    "(Q - lo) / (hi - lo) (mcts_agent.selection.puct_select's rule).";

static PyObject *
core_select_leaves(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("select_leaves", nargs, 20))
        return NULL;
    Py_ssize_t size = PyLong_AsSsize_t(args[0]);
    Py_ssize_t first_new = PyLong_AsSsize_t(args[1]);
    Py_ssize_t horizon = PyLong_AsSsize_t(args[2]);
    double loss = PyFloat_AsDouble(args[3]);
    PyObject *expand = args[4];
    PuctLists t = {args[9],  args[10], args[11], args[12], args[13], args[14],
                   args[15], args[16], args[17], args[8],  args[5]};
    t.c = PyFloat_AsDouble(args[6]);
    t.unvisited_value = PyFloat_AsDouble(args[7]);
    if (PyErr_Occurred())
        return NULL;
    double hi;
    if (read_value_range(args[19], "select_leaves", &t.lo, &hi) < 0)
        return NULL;
    t.span = hi - t.lo;
    t.scaled = t.span > 0.0;
    for (int k = 9; k < 18; k++)
        if (!PyList_CheckExact(args[k])) {
            PyErr_SetString(PyExc_TypeError, "select_leaves: the tree's fields must be lists");
            return NULL;
        }
    Expansion e, *native = NULL;
    if (args[18] != Py_None) {
        PyObject *n = args[18];
        if (!PyTuple_CheckExact(n) || PyTuple_GET_SIZE(n) != 11) {
            PyErr_SetString(PyExc_TypeError, "select_leaves: native must be None or an 11-tuple");
            return NULL;
        }
        e.native = PyCapsule_GetPointer(PyTuple_GET_ITEM(n, 0), NATIVE_STEP_NAME);
        if (e.native == NULL)
            return NULL;
        if (e.native->version != NATIVE_STEP_VERSION) {
            PyErr_Format(PyExc_ValueError, "native step version %d, expected %d",
                         e.native->version, NATIVE_STEP_VERSION);
            return NULL;
        }
        e.uniform_priors = PyTuple_GET_ITEM(n, 1);
        e.gamma = PyFloat_AsDouble(PyTuple_GET_ITEM(n, 2));
        PyObject **lists[8] = {&e.states,    &e.players,     &e.rewards,       &e.discounts,
                               &e.actions,   &e.leaf_values, &e.proven_values, &e.chance_records};
        for (int k = 0; k < 8; k++) {
            *lists[k] = PyTuple_GET_ITEM(n, 3 + k);
            if (!PyList_CheckExact(*lists[k])) {
                PyErr_SetString(PyExc_TypeError, "select_leaves: the tree's fields must be lists");
                return NULL;
            }
        }
        if (PyErr_Occurred())
            return NULL;
        native = &e;
    }
    PyObject *paths = PyList_New(0);
    PyObject *saved = PyDict_New();
    /* A round adds at most ``size`` nodes: they are all numbered below ``bound``. */
    Py_ssize_t bound = PyList_GET_SIZE(t.values) + (size > 0 ? size : 0);
    Overlay overlay = {NULL, 0, 0};
    t.seen = PyMem_Calloc((size_t)(bound / 8 + 1), 1);
    t.overlay = &overlay;
    t.saved = saved;
    t.expansion = native;
    t.bound = bound;
    if (t.seen == NULL)
        PyErr_NoMemory();
    if (paths == NULL || saved == NULL || t.seen == NULL ||
        puct_intact(&t, native, bound, "before the round") < 0)
        goto error;
    for (Py_ssize_t round = 0; round < size; round++) {
        PyObject *path = PyList_New(0);
        if (path == NULL)
            goto error;
        int appended = PyList_Append(paths, path);
        Py_DECREF(path); /* paths holds it */
        if (appended < 0)
            goto error;
        Py_ssize_t node = 0, depth = 0;
        for (;;) {
            long untried = PyLong_AsLong(PyList_GET_ITEM(t.untried, node));
            if (untried == -1) {
                if (PyErr_Occurred())
                    goto error;
                break; /* TERMINAL */
            }
            if (depth >= horizon || node >= first_new)
                break;
            depth++;
            Py_ssize_t i, child;
            if (puct_choose(&t, node, &i, &child) < 0)
                goto error;
            if (child < -1 || child >= PyList_GET_SIZE(t.values)) {
                PyErr_Format(PyExc_IndexError, "node %zd has the child %zd, not in the tree",
                             node, child);
                goto error;
            }
            if (child == -1) {
                if (native != NULL && native_expand(&t, native, node, i, &child) < 0)
                    goto error;
                PyObject *made = child != -1 ? PyLong_FromSsize_t(child)
                                             : PyObject_CallFunction(expand, "nn", node, i);
                if (made == NULL ||
                    (child == -1 && puct_intact(&t, native, bound, "in an expansion") < 0)) {
                    Py_XDECREF(made);
                    goto error;
                }
                appended = PyList_Append(path, made);
                Py_DECREF(made);
                if (appended < 0)
                    goto error;
                break;
            }
            node = child;
            PyObject *node_obj = PyLong_FromSsize_t(node);
            if (node_obj == NULL)
                goto error;
            appended = PyList_Append(path, node_obj);
            Py_DECREF(node_obj);
            if (appended < 0)
                goto error;
        }
        if (loss != 0.0) {
            if (add_virtual_loss(&t, zero_int, 0, loss) < 0)
                goto error;
            Py_ssize_t length = PyList_GET_SIZE(path);
            for (Py_ssize_t k = 0; k < length; k++) {
                PyObject *key = PyList_GET_ITEM(path, k);
                Py_ssize_t on_path = PyLong_AsSsize_t(key);
                if (on_path == -1 && PyErr_Occurred())
                    goto error;
                if (on_path < 0 || on_path >= bound || on_path >= PyList_GET_SIZE(t.values)) {
                    PyErr_Format(PyExc_IndexError, "select_leaves: node %zd is not in the tree",
                                 on_path);
                    goto error;
                }
                if (add_virtual_loss(&t, key, on_path, loss) < 0)
                    goto error;
            }
        }
    }
    PyMem_Free(overlay.entries);
    PyMem_Free(t.seen);
    return Py_BuildValue("(NN)", paths, saved);

error:
    PyMem_Free(overlay.entries);
    PyMem_Free(t.seen);
    Py_XDECREF(paths);
    Py_XDECREF(saved);
    return NULL;
}

static const char *backup_leaves_doc =
    "backup_leaves(paths, returns, saved, rewards, discounts, visits, value_sums, values, "
    "value_range)\n\n"
    "Step 3 of a round of mcts_agent.leaf_batching.run, in C: every node of ``saved`` gets "
    "its (N, W, Q) back, then each path (root excluded, leaf last), in order, backs up its "
    "return ``returns[j]`` as the plain loop does (leaf first: G = r + d * G, N += 1, "
    "W += G, Q = W / N; then the root's N += 1). ``value_range``: None, or "
    "value_normalization's [lo, hi], widened by the Q of each path's nodes after its backup "
    "(mcts_agent.normalization.widen) and written back.";

static PyObject *
core_backup_leaves(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("backup_leaves", nargs, 9))
        return NULL;
    PyObject *value_range = args[8];
    double lo, hi;
    int normalising = read_value_range(value_range, "backup_leaves", &lo, &hi);
    if (normalising < 0)
        return NULL;
    PyObject *paths = args[0], *returns = args[1], *saved = args[2], *rewards = args[3];
    PyObject *discounts = args[4], *visits = args[5], *value_sums = args[6], *values = args[7];
    if (!PyList_CheckExact(paths) || !PyList_CheckExact(returns) || !PyDict_CheckExact(saved)) {
        PyErr_SetString(PyExc_TypeError, "backup_leaves: paths and returns lists, saved a dict");
        return NULL;
    }
    for (int k = 3; k < 8; k++)
        if (!PyList_CheckExact(args[k])) {
            PyErr_SetString(PyExc_TypeError, "backup_leaves: the tree's fields must be lists");
            return NULL;
        }
    if (PyList_GET_SIZE(returns) != PyList_GET_SIZE(paths)) {
        PyErr_SetString(PyExc_ValueError, "backup_leaves: one return per path");
        return NULL;
    }
    Py_ssize_t size = PyList_GET_SIZE(visits);
    for (int k = 3; k < 8; k++)
        if (PyList_GET_SIZE(args[k]) != size) {
            PyErr_SetString(PyExc_ValueError, "backup_leaves: the tree's lists differ in length");
            return NULL;
        }
    PyObject *key, *old;
    Py_ssize_t position = 0;
    while (PyDict_Next(saved, &position, &key, &old)) {
        Py_ssize_t node = PyLong_AsSsize_t(key);
        if (node == -1 && PyErr_Occurred())
            return NULL;
        if (node < 0 || node >= size || !PyTuple_Check(old) || PyTuple_GET_SIZE(old) != 3) {
            PyErr_SetString(PyExc_ValueError,
                            "backup_leaves: saved maps nodes of the tree to (N, W, Q)");
            return NULL;
        }
        if (set_new(visits, node, Py_NewRef(PyTuple_GET_ITEM(old, 0))) < 0 ||
            set_new(value_sums, node, Py_NewRef(PyTuple_GET_ITEM(old, 1))) < 0 ||
            set_new(values, node, Py_NewRef(PyTuple_GET_ITEM(old, 2))) < 0)
            return NULL;
    }
    if (size == 0 && PyList_GET_SIZE(paths) > 0) {
        PyErr_SetString(PyExc_ValueError, "backup_leaves: no root to back up to");
        return NULL;
    }
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(paths); j++) {
        PyObject *path = PyList_GET_ITEM(paths, j);
        if (!PyList_CheckExact(path)) {
            PyErr_SetString(PyExc_TypeError, "backup_leaves: each path is a list of nodes");
            return NULL;
        }
        double g = as_double(PyList_GET_ITEM(returns, j));
        if (g == -1.0 && PyErr_Occurred())
            return NULL;
        for (Py_ssize_t k = PyList_GET_SIZE(path) - 1; k >= 0; k--) {
            Py_ssize_t node = PyLong_AsSsize_t(PyList_GET_ITEM(path, k));
            if (node == -1 && PyErr_Occurred())
                return NULL;
            if (node < 0 || node >= size) {
                PyErr_Format(PyExc_IndexError, "backup_leaves: node %zd is not in the tree", node);
                return NULL;
            }
            double r = as_double(PyList_GET_ITEM(rewards, node));
            double d = as_double(PyList_GET_ITEM(discounts, node));
            PyObject *n_obj = PyList_GET_ITEM(visits, node);
            double w = as_double(PyList_GET_ITEM(value_sums, node));
            if (PyErr_Occurred())
                return NULL;
            g = r + d * g;
            PyObject *n_new;
            double n;
            if (PyLong_CheckExact(n_obj)) { /* N an int, as the pure loop keeps it */
                n_new = PyNumber_Add(n_obj, one_int);
                n = n_new == NULL ? 0.0 : PyLong_AsDouble(n_new);
            }
            else {
                n = as_double(n_obj) + 1.0;
                n_new = PyFloat_FromDouble(n);
            }
            w = w + g;
            double q = w / n;
            if (set_new(visits, node, n_new) < 0 || set_new(value_sums, node, PyFloat_FromDouble(w)) < 0 ||
                set_new(values, node, PyFloat_FromDouble(q)) < 0)
                return NULL;
            if (q < lo) /* value_normalization's range, leaf first (the nodes are distinct) */
                lo = q;
            if (q > hi)
                hi = q;
        }
        PyObject *root_n = PyNumber_Add(PyList_GET_ITEM(visits, 0), one_int);
        if (set_new(visits, 0, root_n) < 0)
            return NULL;
    }
    if (normalising && (set_new(value_range, 0, PyFloat_FromDouble(lo)) < 0 ||
                        set_new(value_range, 1, PyFloat_FromDouble(hi)) < 0))
        return NULL;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ leaf batching: the evaluations' checks */

/* checked_evaluation(answer, state, actions)'s fast path: a new reference to (value, priors),
 * or a new reference to None where the Python function must decide (it raises, or handles the
 * rare cases: a value of another real type, priors of another type, a sum that overflows). */
static PyObject *
checked_fast(PyObject *answer, Py_ssize_t count, PyObject *evaluation_type,
             PyObject *uniform_priors, PyObject *fsum)
{
    if (!(PyTuple_CheckExact(answer) || Py_TYPE(answer) == (PyTypeObject *)evaluation_type) ||
        PyTuple_GET_SIZE(answer) != 2)
        Py_RETURN_NONE;
    PyObject *value = PyTuple_GET_ITEM(answer, 0), *priors = PyTuple_GET_ITEM(answer, 1);
    if (value != Py_None &&
        !(PyFloat_CheckExact(value) && isfinite(PyFloat_AS_DOUBLE(value))))
        Py_RETURN_NONE;
    if (priors == Py_None) {
        PyObject *priors = uniform(uniform_priors, count);
        PyObject *pair = priors == NULL ? NULL : PyTuple_Pack(2, value, priors);
        Py_XDECREF(priors);
        return pair;
    }
    if (!(PyList_CheckExact(priors) || PyTuple_CheckExact(priors)) ||
        PySequence_Fast_GET_SIZE(priors) != count || count > 256)
        Py_RETURN_NONE;
    PyObject **items = PySequence_Fast_ITEMS(priors);
    double weights[256];
    for (Py_ssize_t k = 0; k < count; k++) {
        if (!PyFloat_CheckExact(items[k]))
            Py_RETURN_NONE;
        weights[k] = PyFloat_AS_DOUBLE(items[k]);
        if (!(isfinite(weights[k]) && weights[k] >= 0.0))
            Py_RETURN_NONE;
    }
    PyObject *total_obj = PyObject_CallOneArg(fsum, priors); /* math.fsum: the exact sum */
    if (total_obj == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return NULL;
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    double total = PyFloat_AsDouble(total_obj);
    Py_DECREF(total_obj);
    if (!(0.0 < total && total < INFINITY))
        Py_RETURN_NONE;
    PyObject *normalised = PyTuple_New(count);
    for (Py_ssize_t k = 0; normalised != NULL && k < count; k++) {
        PyObject *p = PyFloat_FromDouble(weights[k] / total);
        if (p == NULL)
            Py_CLEAR(normalised);
        else
            PyTuple_SET_ITEM(normalised, k, p);
    }
    PyObject *pair = normalised == NULL ? NULL : PyTuple_Pack(2, value, normalised);
    Py_XDECREF(normalised);
    return pair;
}

static const char *checked_evaluations_doc =
    "checked_evaluations(answers, states, actions_list, checked_evaluation, evaluation_type, "
    "uniform_priors, fsum) -> list of (value, priors)\n\n"
    "[checked_evaluation(answer, state, actions) for each], in C: an answer that is a tuple or "
    "an ``evaluation_type`` with a finite float value (or None) and None priors, or priors "
    "that are a list or tuple of finite floats >= 0 of the right length with a positive finite "
    "``fsum``, is checked and normalised here exactly as the Python function does it; any other "
    "answer is handed to ``checked_evaluation``.";

static PyObject *
core_checked_evaluations(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("checked_evaluations", nargs, 7))
        return NULL;
    PyObject *answers = args[0], *states = args[1], *actions_list = args[2];
    if (!PyList_CheckExact(states) || !PyList_CheckExact(actions_list) ||
        !PySequence_Check(answers)) {
        PyErr_SetString(PyExc_TypeError, "checked_evaluations: answers a sequence, states and "
                                         "actions_list lists");
        return NULL;
    }
    Py_ssize_t size = PyList_GET_SIZE(states);
    if (PySequence_Size(answers) != size || PyList_GET_SIZE(actions_list) != size) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "checked_evaluations: one answer per state");
        return NULL;
    }
    PyObject *checked = PyList_New(size);
    for (Py_ssize_t j = 0; checked != NULL && j < size; j++) {
        PyObject *answer = PySequence_GetItem(answers, j);
        PyObject *result = NULL;
        if (answer != NULL && (PyList_GET_SIZE(states) != size ||
                               PyList_GET_SIZE(actions_list) != size)) {
            /* the Python code of an answer (its __getitem__, __float__...) changed them */
            PyErr_Format(PyExc_RuntimeError,
                         "checked_evaluations: the states or actions_list (of %zd) were changed "
                         "while the answers were read (%zd and %zd left)",
                         size, PyList_GET_SIZE(states), PyList_GET_SIZE(actions_list));
            Py_CLEAR(answer);
        }
        PyObject *actions = answer == NULL ? NULL : Py_NewRef(PyList_GET_ITEM(actions_list, j));
        PyObject *state = answer == NULL ? NULL : Py_NewRef(PyList_GET_ITEM(states, j));
        if (answer != NULL) {
            Py_ssize_t count = PyObject_Length(actions);
            if (count >= 0)
                result = checked_fast(answer, count, args[4], args[5], args[6]);
            if (result == Py_None) {
                Py_DECREF(result);
                result = PyObject_CallFunctionObjArgs(args[3], answer, state, actions, NULL);
            }
            Py_DECREF(answer);
        }
        Py_XDECREF(actions);
        Py_XDECREF(state);
        if (result == NULL)
            Py_CLEAR(checked);
        else
            PyList_SET_ITEM(checked, j, result);
    }
    return checked;
}

/* ------------------------------------------------------------------ leaf batching: a round's bookkeeping */

static const char *pending_leaves_doc =
    "pending_leaves(first_new, untried, states, actions) -> (pending, states, actions_list)\n\n"
    "Step 2 of mcts_agent.leaf_batching.run: the nodes numbered from ``first_new`` that are not "
    "terminal (untried != -1), with their states and actions, as three lists.";

static PyObject *
core_pending_leaves(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("pending_leaves", nargs, 4))
        return NULL;
    Py_ssize_t first_new = PyLong_AsSsize_t(args[0]);
    PyObject *untried = args[1], *states = args[2], *actions = args[3];
    if (first_new == -1 && PyErr_Occurred())
        return NULL;
    if (!PyList_CheckExact(untried) || !PyList_CheckExact(states) || !PyList_CheckExact(actions) ||
        PyList_GET_SIZE(untried) != PyList_GET_SIZE(states) ||
        PyList_GET_SIZE(actions) != PyList_GET_SIZE(states) || first_new < 0) {
        PyErr_SetString(PyExc_TypeError, "pending_leaves: the tree's fields must be lists");
        return NULL;
    }
    PyObject *pending = PyList_New(0), *pending_states = PyList_New(0);
    PyObject *pending_actions = PyList_New(0);
    if (pending == NULL || pending_states == NULL || pending_actions == NULL)
        goto error;
    for (Py_ssize_t n = first_new; n < PyList_GET_SIZE(states); n++) {
        long left = PyLong_AsLong(PyList_GET_ITEM(untried, n));
        if (left == -1) {
            if (PyErr_Occurred())
                goto error;
            continue; /* TERMINAL */
        }
        PyObject *index = PyLong_FromSsize_t(n);
        int failed = index == NULL || PyList_Append(pending, index) < 0 ||
                     PyList_Append(pending_states, PyList_GET_ITEM(states, n)) < 0 ||
                     PyList_Append(pending_actions, PyList_GET_ITEM(actions, n)) < 0;
        Py_XDECREF(index);
        if (failed)
            goto error;
    }
    return Py_BuildValue("(NNN)", pending, pending_states, pending_actions);

error:
    Py_XDECREF(pending);
    Py_XDECREF(pending_states);
    Py_XDECREF(pending_actions);
    return NULL;
}

static const char *store_evaluations_doc =
    "store_evaluations(pending, checked, leaf_values, priors)\n\n"
    "Step 2 of mcts_agent.leaf_batching.run: ``leaf_values[n], priors[n] = checked[j]`` for "
    "each ``n = pending[j]`` (``checked`` a list of (value, priors) pairs, one per node).";

static PyObject *
core_store_evaluations(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("store_evaluations", nargs, 4))
        return NULL;
    PyObject *pending = args[0], *checked = args[1], *leaf_values = args[2], *priors = args[3];
    if (!PyList_CheckExact(pending) || !PyList_CheckExact(checked) ||
        !PyList_CheckExact(leaf_values) || !PyList_CheckExact(priors) ||
        PyList_GET_SIZE(pending) != PyList_GET_SIZE(checked)) {
        PyErr_SetString(PyExc_TypeError,
                        "store_evaluations: lists, one (value, priors) pair per pending node");
        return NULL;
    }
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(pending); j++) {
        Py_ssize_t n = PyLong_AsSsize_t(PyList_GET_ITEM(pending, j));
        PyObject *pair = PyList_GET_ITEM(checked, j);
        if (n == -1 && PyErr_Occurred())
            return NULL;
        if (n < 0 || n >= PyList_GET_SIZE(leaf_values) || n >= PyList_GET_SIZE(priors) ||
            !PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_ValueError, "store_evaluations: a node or a pair out of shape");
            return NULL;
        }
        set_new(leaf_values, n, Py_NewRef(PyTuple_GET_ITEM(pair, 0)));
        set_new(priors, n, Py_NewRef(PyTuple_GET_ITEM(pair, 1)));
    }
    Py_RETURN_NONE;
}

static const char *leaf_returns_doc =
    "leaf_returns(paths, untried, leaf_values) -> list\n\n"
    "Step 3 of mcts_agent.leaf_batching.run: per path, its leaf's G where it needs no rollout "
    "(0.0 at a terminal leaf, else the leaf's value), None where it does.";

static PyObject *
core_leaf_returns(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("leaf_returns", nargs, 3))
        return NULL;
    PyObject *paths = args[0], *untried = args[1], *leaf_values = args[2];
    if (!PyList_CheckExact(paths) || !PyList_CheckExact(untried) ||
        !PyList_CheckExact(leaf_values)) {
        PyErr_SetString(PyExc_TypeError, "leaf_returns: paths and the tree's fields as lists");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(paths);
    PyObject *returns = PyList_New(count);
    for (Py_ssize_t j = 0; returns != NULL && j < count; j++) {
        PyObject *path = PyList_GET_ITEM(paths, j);
        Py_ssize_t leaf = -1;
        if (PyList_CheckExact(path) && PyList_GET_SIZE(path) > 0)
            leaf = PyLong_AsSsize_t(PyList_GET_ITEM(path, PyList_GET_SIZE(path) - 1));
        if (leaf < 0 || leaf >= PyList_GET_SIZE(untried) || leaf >= PyList_GET_SIZE(leaf_values)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "leaf_returns: a path without a leaf");
            Py_CLEAR(returns);
            break;
        }
        long left = PyLong_AsLong(PyList_GET_ITEM(untried, leaf));
        if (left == -1 && PyErr_Occurred()) {
            Py_CLEAR(returns);
            break;
        }
        PyObject *g = left == -1 ? PyFloat_FromDouble(0.0)
                                 : Py_NewRef(PyList_GET_ITEM(leaf_values, leaf));
        if (g == NULL)
            Py_CLEAR(returns);
        else
            PyList_SET_ITEM(returns, j, g);
    }
    return returns;
}

/* ------------------------------------------------------------------ module */

static PyObject *
core_native_step(PyObject *module, PyObject *name)
{
    if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "connect_four") == 0)
        return PyCapsule_New(&c4_native_step, NATIVE_STEP_NAME, NULL);
    PyErr_Format(PyExc_ValueError, "no native step for %R; the core has 'connect_four'", name);
    return NULL;
}

static PyObject *
core_native_rollout(PyObject *module, PyObject *name)
{
    const char *game = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    if (game == NULL) {
        PyErr_SetString(PyExc_TypeError, "native_rollout takes a game name (str)");
        return NULL;
    }
    if (strcmp(game, "tic_tac_toe") == 0)
        return PyCapsule_New(&ttt_native, NATIVE_ROLLOUT_NAME, NULL);
    if (strcmp(game, "connect_four") == 0)
        return PyCapsule_New(&c4_native, NATIVE_ROLLOUT_NAME, NULL);
    PyErr_Format(PyExc_ValueError, "no native rollout for %R; there are 'tic_tac_toe' and "
                 "'connect_four'", name);
    return NULL;
}

static PyObject *
core_call_native(PyObject *module, PyObject *args)
{
    /* call_native(capsule, state, rng, limit, gamma, count=None): one native rollout's
     * return (a float), or the list of ``count`` returns of as many rollouts in a row,
     * drawn from rng (a random.Random, continued as the rollouts leave it). */
    PyObject *capsule, *state, *rng, *count_obj = Py_None;
    long long limit;
    double gamma;
    if (!PyArg_ParseTuple(args, "OOOLd|O:call_native", &capsule, &state, &rng, &limit, &gamma,
                          &count_obj))
        return NULL;
    NativeRollout *native = PyCapsule_GetPointer(capsule, NATIVE_ROLLOUT_NAME);
    if (native == NULL)
        return NULL;
    Py_ssize_t count = 1;
    if (count_obj != Py_None) {
        count = PyLong_AsSsize_t(count_obj);
        if (count == -1 && PyErr_Occurred())
            return NULL;
        if (count < 0) {
            PyErr_SetString(PyExc_ValueError, "count must be >= 0");
            return NULL;
        }
    }
    MTState mt;
    PyObject *old = mt_read(rng, &mt);
    if (old == NULL)
        return NULL;
    PyObject *returns = PyList_New(count);
    for (Py_ssize_t i = 0; returns != NULL && i < count; i++) {
        double g = 0.0;
        PyObject *x = native->rollout(native, state, mt_random, &mt, limit, gamma, &g) < 0
                          ? NULL : PyFloat_FromDouble(g);
        if (x == NULL)
            Py_CLEAR(returns);
        else
            PyList_SET_ITEM(returns, i, x);
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    int written = mt_write(rng, &mt, old);
    Py_DECREF(old);
    PyErr_Restore(type, value, tb);
    if (returns == NULL || written < 0) {
        Py_XDECREF(returns);
        return NULL;
    }
    if (count_obj != Py_None)
        return returns;
    PyObject *g = Py_NewRef(PyList_GET_ITEM(returns, 0));
    Py_DECREF(returns);
    return g;
}

static PyObject *
core_call_native_step(PyObject *module, PyObject *args)
{
    /* call_native_step(capsule, state, action): (next_state, reward, terminated, actions,
     * player) from the native step (player None when there are no actions), or None when it
     * does not take the input. */
    PyObject *capsule, *state, *action;
    if (!PyArg_ParseTuple(args, "OOO:call_native_step", &capsule, &state, &action))
        return NULL;
    NativeStep *native = PyCapsule_GetPointer(capsule, NATIVE_STEP_NAME);
    if (native == NULL)
        return NULL;
    PyObject *next_state, *actions, *player;
    double reward;
    int terminated;
    int taken = native->expand(state, action, &next_state, &reward, &terminated, &actions,
                               &player);
    if (taken < 0)
        return NULL;
    if (taken == 0)
        Py_RETURN_NONE;
    return Py_BuildValue("(NdNNN)", next_state, reward, PyBool_FromLong(terminated), actions,
                         player == NULL ? Py_NewRef(Py_None) : player);
}

static PyObject *
core_expansion_order(PyObject *module, PyObject *args)
{
    /* expansion_order(priors, c, score_all): the C expansion order (None where it leaves the
     * priors to the Python function). */
    PyObject *priors, *score_all;
    double c;
    if (!PyArg_ParseTuple(args, "OdO:expansion_order", &priors, &c, &score_all))
        return NULL;
    return expansion_order(priors, c, score_all);
}

static PyObject *
core_random(PyObject *module, PyObject *args)
{
    /* random(rng, count): ``count`` draws of rng.random() by the C generator (rng continued). */
    PyObject *rng;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "On:random", &rng, &count))
        return NULL;
    MTState mt;
    PyObject *old = mt_read(rng, &mt);
    if (old == NULL)
        return NULL;
    PyObject *list = PyList_New(count > 0 ? count : 0);
    for (Py_ssize_t i = 0; list != NULL && i < count; i++) {
        PyObject *x = PyFloat_FromDouble(mt_random(&mt));
        if (x == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, x);
    }
    if (list != NULL && mt_write(rng, &mt, old) < 0)
        Py_CLEAR(list);
    Py_DECREF(old);
    return list;
}

static PyMethodDef core_methods[] = {
    {"run", (PyCFunction)(void (*)(void))core_run, METH_FASTCALL, NULL},
    {"native_rollout", (PyCFunction)core_native_rollout, METH_O,
     "native_rollout(game) -> capsule: 'tic_tac_toe' or 'connect_four'."},
    {"call_native", (PyCFunction)core_call_native, METH_VARARGS,
     "call_native(capsule, state, rng, limit, gamma, count=None) -> float, or a list of "
     "count floats: native rollouts drawn from rng."},
    {"native_step", (PyCFunction)core_native_step, METH_O,
     "native_step(game) -> capsule: 'connect_four'."},
    {"select_leaves", (PyCFunction)(void (*)(void))core_select_leaves, METH_FASTCALL, NULL},
    {"backup_leaves", (PyCFunction)(void (*)(void))core_backup_leaves, METH_FASTCALL, NULL},
    {"checked_evaluations", (PyCFunction)(void (*)(void))core_checked_evaluations, METH_FASTCALL,
     NULL},
    {"pending_leaves", (PyCFunction)(void (*)(void))core_pending_leaves, METH_FASTCALL, NULL},
    {"store_evaluations", (PyCFunction)(void (*)(void))core_store_evaluations, METH_FASTCALL,
     NULL},
    {"leaf_returns", (PyCFunction)(void (*)(void))core_leaf_returns, METH_FASTCALL, NULL},
    {"call_native_step", (PyCFunction)core_call_native_step, METH_VARARGS,
     "call_native_step(capsule, state, action) -> (next_state, reward, terminated, actions, "
     "player), or None where the native step leaves the input to the model's methods."},
    {"expansion_order", (PyCFunction)core_expansion_order, METH_VARARGS,
     "expansion_order(priors, c, score_all) -> what mcts_agent.selection.expansion_order "
     "returns, or None where the core leaves the priors to it."},
    {"random", (PyCFunction)core_random, METH_VARARGS,
     "random(rng, count) -> list of floats: rng.random() drawn by the C generator."},
    CHANCE_LOOP_METHODS /* _chance_loop.c */
    GYM_ROLLOUT_METHODS /* _gym_rollouts.c */
    INFORMATION_SET_LOOP_METHODS /* _information_set_loop.c */
    GO_METHODS /* _go.c */
    RAVE_LOOP_METHODS /* _rave_loop.c */
    {NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "mcts_agent._core",
    "The compiled plain UCT loop of mcts_agent (see mcts_agent/compiled.py).", -1, core_methods,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    static const int lines[8] = {0x7, 0x38, 0x1c0, 0x49, 0x92, 0x124, 0x111, 0x54};
    for (int marks = 0; marks < 512; marks++) {
        ttt_has_line[marks] = 0;
        for (int k = 0; k < 8; k++)
            if ((marks & lines[k]) == lines[k])
                ttt_has_line[marks] = 1;
    }
    c4_full = 0;
    for (int col = 0; col < 7; col++)
        c4_full |= 0x3fULL << (7 * col);
    core_methods[0].ml_doc = run_doc;
    core_methods[4].ml_doc = select_leaves_doc;
    core_methods[5].ml_doc = backup_leaves_doc;
    core_methods[6].ml_doc = checked_evaluations_doc;
    core_methods[7].ml_doc = pending_leaves_doc;
    core_methods[8].ml_doc = store_evaluations_doc;
    core_methods[9].ml_doc = leaf_returns_doc;
    if (c4_tables() < 0)
        return NULL;
    zero_int = PyLong_FromLong(0);
    one_int = PyLong_FromLong(1);
    if (zero_int == NULL || one_int == NULL)
        return NULL;
    if (PyType_Ready(&StoreType) < 0 || PyType_Ready(&ColumnType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Store", (PyObject *)&StoreType) < 0 ||
        PyModule_AddObjectRef(m, "Column", (PyObject *)&ColumnType) < 0 ||
        PyModule_AddIntConstant(m, "NODE_BYTES", (long)sizeof(NodeRecord)) < 0 ||
        PyModule_AddIntConstant(m, "NATIVE_ROLLOUT_VERSION", NATIVE_ROLLOUT_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "NATIVE_STEP_VERSION", NATIVE_STEP_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
