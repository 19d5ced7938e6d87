/* mcts_agent._core's Go: a board with group and liberty tracking, and GoModel's light playout
 * (mcts_agent/envs/go.py, GoModel.rollout; docs/guides/go.md).
 *
 * The board (GoBoard, _core.h) has a border of one point on every side: point (r, c) of an
 * N x N board is (r + 1) * (N + 2) + c + 1, so the neighbours of a point are p +- 1 and
 * p +- (N + 2), diagonals included, with no bounds test. Each group keeps its stones in a
 * cycle (next), its size, and its pseudo-liberties: the count of (stone, empty neighbour)
 * adjacencies, with the sum and the sum of squares of those empty points; the group has no
 * liberty when the count is 0, and exactly one liberty (it is in atari) when count * squares
 * == sum * sum (all the pseudo-liberties are the same point: the equality case of
 * Cauchy-Schwarz), as in several fast Monte Carlo Go playouts.
 *
 * The playout is GoModel._playout statement for statement: the empty points in increasing
 * order each move, i = (int)(random() * n), the move played if legal (not the ko point, not a
 * suicide) and not an own eye, else swap-removed; a pass with none left; the end at two passes
 * (scored as GoModel.step scores it), at 3 * N * N moves (the board scored as it stands) or at
 * ``limit`` moves (0.0); coef *= -gamma after each move. The same draws, the same return.
 *
 * With b->capture_heuristic (GoModel's ``capture_heuristic``), a move after a stone of the
 * opponent's in the playout first tries GoModel._tactical_move's rule, drawing nothing: the
 * liberty of that stone's group if it is in atari and not the ko point (a capture), else the
 * smallest liberty, not the ko point, of the mover's groups in atari next to that stone that
 * leaves the mover's group there with two liberties (go_liberties_after).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "_core.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static inline void
go_add_liberty(GoBoard *b, int root, int point)
{
    b->liberties[root] += 1;
    b->liberty_sum[root] += point;
    b->liberty_squares[root] += (int64_t)point * point;
}

static inline void
go_remove_liberty(GoBoard *b, int root, int point)
{
    b->liberties[root] -= 1;
    b->liberty_sum[root] -= point;
    b->liberty_squares[root] -= (int64_t)point * point;
}

/* 1 if the group of representative ``root`` has exactly one liberty. */
static inline int
go_in_atari(const GoBoard *b, int root)
{
    return (int64_t)b->liberties[root] * b->liberty_squares[root] ==
           b->liberty_sum[root] * b->liberty_sum[root];
}

/* Puts a stone of ``colour`` on the empty ``point``, joins it to its own groups, and takes
 * ``point`` from the pseudo-liberties of the groups around it; no capture. */
static inline void
go_add_stone(GoBoard *b, int point, int colour)
{
    const int dirs[4] = {1, -1, b->stride, -b->stride};
    b->cell[point] = (uint8_t)colour;
    b->group[point] = (int16_t)point;
    b->next[point] = (int16_t)point;
    b->stones[point] = 1;
    b->liberties[point] = 0;
    b->liberty_sum[point] = 0;
    b->liberty_squares[point] = 0;
    for (int k = 0; k < 4; k++) {
        int n = point + dirs[k], v = b->cell[n];
        if (v == GO_EMPTY)
            go_add_liberty(b, point, n);
        else if (v != GO_BORDER)
            go_remove_liberty(b, b->group[n], point);
    }
    for (int k = 0; k < 4; k++) {
        int n = point + dirs[k];
        if (b->cell[n] != colour)
            continue;
        int keep = b->group[point], gone = b->group[n];
        if (keep == gone)
            continue;
        if (b->stones[keep] < b->stones[gone]) {
            int t = keep;
            keep = gone;
            gone = t;
        }
        int s = gone;
        do {
            b->group[s] = (int16_t)keep;
            s = b->next[s];
        } while (s != gone);
        int16_t t = b->next[keep];
        b->next[keep] = b->next[gone];
        b->next[gone] = t;
        b->stones[keep] += b->stones[gone];
        b->liberties[keep] += b->liberties[gone];
        b->liberty_sum[keep] += b->liberty_sum[gone];
        b->liberty_squares[keep] += b->liberty_squares[gone];
    }
}

/* The number of set bits of x. */
static inline int
go_bit_count(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int count = 0;
    for (; x; x &= x - 1)
        count++;
    return count;
#endif
}

/* The number of empty points below ``point``: its index in b->empty, or where it goes. */
static inline int
go_empty_rank(const GoBoard *b, int point)
{
    int rank = 0, w = point >> 6;
    for (int k = 0; k < w; k++)
        rank += go_bit_count(b->empty_bits[k]);
    return rank + go_bit_count(b->empty_bits[w] & ((1ULL << (point & 63)) - 1));
}

/* Makes ``point`` empty in b->empty_bits and b->empty. */
static inline void
go_add_empty(GoBoard *b, int point)
{
    int i = go_empty_rank(b, point);
    memmove(b->empty + i + 1, b->empty + i, (size_t)(b->empties - i) * sizeof(int16_t));
    b->empty[i] = (int16_t)point;
    b->empties += 1;
    b->empty_bits[point >> 6] |= 1ULL << (point & 63);
}

/* Removes the empty ``point`` from b->empty_bits and b->empty. */
static inline void
go_remove_empty(GoBoard *b, int point)
{
    int i = go_empty_rank(b, point);
    b->empties -= 1;
    memmove(b->empty + i, b->empty + i + 1, (size_t)(b->empties - i) * sizeof(int16_t));
    b->empty_bits[point >> 6] &= ~(1ULL << (point & 63));
}

/* Removes the group of representative ``root`` (its points join b->empty_bits); returns its
 * number of stones. */
static int
go_remove_group(GoBoard *b, int root)
{
    const int dirs[4] = {1, -1, b->stride, -b->stride};
    int s = root;
    do {
        b->cell[s] = GO_EMPTY;
        go_add_empty(b, s);
        s = b->next[s];
    } while (s != root);
    int count = 0;
    do {
        count++;
        for (int k = 0; k < 4; k++) {
            int n = s + dirs[k], v = b->cell[n];
            if (v == GO_BLACK || v == GO_WHITE)
                go_add_liberty(b, b->group[n], s);
        }
        s = b->next[s];
    } while (s != root);
    return count;
}

static inline int
go_point_of(const GoBoard *b, int action)
{
    return (action / b->size + 1) * b->stride + action % b->size + 1;
}

int
go_point(const GoBoard *b, int action)
{
    return go_point_of(b, action);
}

int
go_action(const GoBoard *b, int point)
{
    return (point / b->stride - 1) * b->size + point % b->stride - 1;
}

/* The int ``x`` as a long, or -2 (refused below) for an int past a long. */
static long
go_small_int(PyObject *x)
{
    long v = PyLong_AsLong(x);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return -2;
    }
    return v;
}

int
go_board_init(GoBoard *b, PyObject *state, double komi, int capture_heuristic)
{
    PyObject *board = NULL;
    long to_play = 0, ko = -2, passes = -1;
    Py_ssize_t cells = -1;
    int size = 0;
    if (PyTuple_Check(state) && PyTuple_GET_SIZE(state) == 4 &&
        PyBytes_Check(PyTuple_GET_ITEM(state, 0)) && PyLong_Check(PyTuple_GET_ITEM(state, 1)) &&
        PyLong_Check(PyTuple_GET_ITEM(state, 2)) && PyLong_Check(PyTuple_GET_ITEM(state, 3))) {
        board = PyTuple_GET_ITEM(state, 0);
        cells = PyBytes_GET_SIZE(board);
        while ((Py_ssize_t)size * size < cells && size <= GO_MAX_SIZE)
            size++;
        to_play = go_small_int(PyTuple_GET_ITEM(state, 1));
        ko = go_small_int(PyTuple_GET_ITEM(state, 2));
        passes = go_small_int(PyTuple_GET_ITEM(state, 3));
    }
    if (board == NULL || size < 2 || size > GO_MAX_SIZE || (Py_ssize_t)size * size != cells ||
        (to_play != GO_BLACK && to_play != GO_WHITE) || ko < -1 || ko >= cells ||
        passes < 0 || passes > 2) {
        PyErr_Format(PyExc_ValueError,
                     "the native Go board takes a GoState: a board of N*N bytes (N in 2..%d), "
                     "to_play 1 or 2, ko -1 or a point, passes 0, 1 or 2; got %R",
                     GO_MAX_SIZE, state);
        return -1;
    }
    const uint8_t *bytes = (const uint8_t *)PyBytes_AS_STRING(board);
    b->size = size;
    b->stride = size + 2;
    b->to_play = (int)to_play;
    b->passes = (int)passes;
    b->komi = komi;
    b->capture_heuristic = capture_heuristic;
    memset(b->cell, GO_BORDER, sizeof(b->cell));
    for (int a = 0; a < cells; a++) {
        if (bytes[a] > GO_WHITE) {
            PyErr_Format(PyExc_ValueError,
                         "a GoState's board cell is 0, 1 or 2; cell %d is %d in %R", a,
                         (int)bytes[a], state);
            return -1;
        }
        b->cell[go_point_of(b, a)] = GO_EMPTY;
    }
    for (int a = 0; a < cells; a++)
        if (bytes[a] != GO_EMPTY)
            go_add_stone(b, go_point_of(b, a), bytes[a]);
    for (int a = 0; a < cells; a++) {
        int p = go_point_of(b, a);
        if (b->cell[p] != GO_EMPTY && b->liberties[b->group[p]] == 0) {
            PyErr_Format(PyExc_ValueError,
                         "the stone on point %d has no liberty (no Go position has one) in %R",
                         a, state);
            return -1;
        }
    }
    if (ko >= 0 && bytes[ko] != GO_EMPTY) {
        PyErr_Format(PyExc_ValueError, "the ko point %ld is not empty in %R", ko, state);
        return -1;
    }
    b->ko = ko < 0 ? -1 : go_point_of(b, (int)ko);
    memset(b->empty_bits, 0, sizeof(b->empty_bits));
    b->empties = 0;
    for (int a = 0; a < cells; a++)
        if (bytes[a] == GO_EMPTY) {
            int p = go_point_of(b, a);
            b->empty_bits[p >> 6] |= 1ULL << (p & 63);
            b->empty[b->empties++] = (int16_t)p;
        }
    return 0;
}

/* 1 if the empty ``point`` (not the ko point) is not a suicide for ``me``. */
static inline int
go_not_suicide(const GoBoard *b, int point, int me)
{
    const int dirs[4] = {1, -1, b->stride, -b->stride};
    for (int k = 0; k < 4; k++) {
        int n = point + dirs[k], v = b->cell[n];
        if (v == GO_EMPTY)
            return 1;
        if (v == GO_BORDER)
            continue;
        int atari = go_in_atari(b, b->group[n]);
        if (v == me ? !atari : atari)
            return 1; /* joins a group with another liberty, or captures */
    }
    return 0;
}

int
go_legal(const GoBoard *b, int action)
{
    if (b->passes >= 2 || action < 0 || action > b->size * b->size)
        return 0;
    if (action == b->size * b->size)
        return 1;
    int p = go_point_of(b, action);
    return b->cell[p] == GO_EMPTY && p != b->ko && go_not_suicide(b, p, b->to_play);
}

/* 1 if the empty ``point`` is an own eye of ``me``: its neighbours all ``me``'s (or off the
 * board), its diagonals holding at most one opponent stone, none on the edge. */
static inline int
go_own_eye(const GoBoard *b, int point, int me)
{
    int s = b->stride;
    const int dirs[4] = {1, -1, s, -s};
    for (int k = 0; k < 4; k++) {
        int v = b->cell[point + dirs[k]];
        if (v != me && v != GO_BORDER)
            return 0;
    }
    const int diagonals[4] = {s + 1, s - 1, -s + 1, -s - 1};
    int foes = 0, edge = 0;
    for (int k = 0; k < 4; k++) {
        int v = b->cell[point + diagonals[k]];
        foes += v == GO_BLACK + GO_WHITE - me;
        edge |= v == GO_BORDER;
    }
    return foes <= (edge ? 0 : 1);
}

/* 1 if the point ``m`` is empty once ``point`` is played: empty and not ``point``, or a stone of
 * one of the ``count`` groups ``captured`` (their representatives). */
static inline int
go_freed(const GoBoard *b, int m, int point, const int *captured, int count)
{
    int v = b->cell[m];
    if (v == GO_EMPTY)
        return m != point;
    if (v == GO_BORDER)
        return 0;
    for (int i = 0; i < count; i++)
        if (b->group[m] == captured[i])
            return 1;
    return 0;
}

/* The liberties, up to 2, of ``me``'s group on the empty ``point`` once ``me`` plays there (a
 * legal move or a suicide, 0): the empty points next to the joined group once the opponent
 * groups in atari next to ``point`` are taken. */
static int
go_liberties_after(const GoBoard *b, int point, int me)
{
    const int dirs[4] = {1, -1, b->stride, -b->stride};
    int other = GO_BLACK + GO_WHITE - me;
    int captured[4], mine[4], taken = 0, joined = 0, first = -1;
    for (int k = 0; k < 4; k++) {
        int n = point + dirs[k], v = b->cell[n];
        if (v == other && go_in_atari(b, b->group[n]))
            captured[taken++] = b->group[n];
        else if (v == me)
            mine[joined++] = b->group[n];
    }
    for (int k = 0; k < 4; k++) {
        int n = point + dirs[k];
        if (go_freed(b, n, point, captured, taken)) {
            if (first >= 0 && n != first)
                return 2;
            first = n;
        }
    }
    for (int j = 0; j < joined; j++) {
        int s = mine[j];
        do {
            for (int k = 0; k < 4; k++) {
                int m = s + dirs[k];
                if (go_freed(b, m, point, captured, taken)) {
                    if (first >= 0 && m != first)
                        return 2;
                    first = m;
                }
            }
            s = b->next[s];
        } while (s != mine[j]);
    }
    return first >= 0;
}

/* The liberty of the group of representative ``root``, which is in atari. */
static inline int
go_atari_liberty(const GoBoard *b, int root)
{
    return (int)(b->liberty_sum[root] / b->liberties[root]);
}

/* The capture heuristic's point after the opponent's stone on ``last`` (GoModel._tactical_move):
 * the capture, else the smallest saving escape, else -1. */
static int
go_tactical_point(const GoBoard *b, int last)
{
    const int dirs[4] = {1, -1, b->stride, -b->stride};
    int me = b->to_play, root = b->group[last];
    if (go_in_atari(b, root)) {
        int liberty = go_atari_liberty(b, root);
        if (liberty != b->ko)
            return liberty; /* it captures: never a suicide */
    }
    int best = -1;
    for (int k = 0; k < 4; k++) {
        int n = last + dirs[k];
        if (b->cell[n] != me || !go_in_atari(b, b->group[n]))
            continue;
        int liberty = go_atari_liberty(b, b->group[n]);
        if (liberty != b->ko && (best < 0 || liberty < best) &&
            go_liberties_after(b, liberty, me) >= 2)
            best = liberty;
    }
    return best;
}

/* go_play of the point ``point`` (an array index), or of the pass for -1. */
static inline void
go_play_point(GoBoard *b, int point)
{
    int me = b->to_play, other = GO_BLACK + GO_WHITE - me;
    b->to_play = other;
    if (point < 0) {
        b->ko = -1;
        b->passes += 1;
        return;
    }
    const int dirs[4] = {1, -1, b->stride, -b->stride};
    int koish = 1;
    for (int k = 0; k < 4; k++) {
        int v = b->cell[point + dirs[k]];
        if (v != other && v != GO_BORDER)
            koish = 0;
    }
    go_remove_empty(b, point);
    go_add_stone(b, point, me);
    int captured = 0, last = -1;
    for (int k = 0; k < 4; k++) {
        int n = point + dirs[k];
        if (b->cell[n] == other && b->liberties[b->group[n]] == 0) {
            captured += go_remove_group(b, b->group[n]);
            last = n;
        }
    }
    b->ko = captured == 1 && koish ? last : -1;
    b->passes = 0;
}

void
go_play(GoBoard *b, int action)
{
    go_play_point(b, action == b->size * b->size ? -1 : go_point_of(b, action));
}

double
go_score(const GoBoard *b)
{
    const int dirs[4] = {1, -1, b->stride, -b->stride};
    uint8_t seen[GO_MAX_CELLS];
    int16_t region[GO_MAX_CELLS];
    memset(seen, 0, sizeof(seen));
    int area[3] = {0, 0, 0};
    for (int r = 0; r < b->size; r++)
        for (int c = 0; c < b->size; c++) {
            int p = (r + 1) * b->stride + c + 1, v = b->cell[p];
            if (v != GO_EMPTY) {
                area[v] += 1;
                continue;
            }
            if (seen[p])
                continue;
            int count = 1, reaches = 0;
            region[0] = (int16_t)p;
            seen[p] = 1;
            for (int i = 0; i < count; i++)
                for (int k = 0; k < 4; k++) {
                    int n = region[i] + dirs[k], w = b->cell[n];
                    if (w == GO_EMPTY) {
                        if (!seen[n]) {
                            seen[n] = 1;
                            region[count++] = (int16_t)n;
                        }
                    }
                    else if (w != GO_BORDER)
                        reaches |= w;
                }
            if (reaches == GO_BLACK || reaches == GO_WHITE)
                area[reaches] += count;
        }
    return (double)(area[GO_BLACK] - area[GO_WHITE]) - b->komi;
}

int
go_playout(GoBoard *b, double (*random)(void *), void *rng, long long limit, double gamma,
           int32_t *moves, long long *played, double *g)
{
    if (b->passes >= 2 || limit < 1) {
        PyErr_Format(PyExc_ValueError,
                     b->passes >= 2 ? "the game is over (two passes); no playout"
                                    : "limit must be an int >= 1, got %lld", limit);
        return -1;
    }
    int16_t empty[GO_MAX_SIZE * GO_MAX_SIZE];
    long long cap = 3LL * b->size * b->size, count = 0;
    double coef = 1.0;
    int last = -1; /* the stone of the previous move of the playout, -1 after a pass or none */
    for (;;) {
        /* The candidates: b->empty itself until the first refusal, then a copy of it that
         * the swap-removals change (most moves take their first draw). */
        int me = b->to_play, n = b->empties, point = -1;
        if (b->capture_heuristic && last >= 0)
            point = go_tactical_point(b, last);
        const int16_t *candidates = b->empty;
        while (point < 0 && n > 0) {
            int i = (int)(random(rng) * n);
            int p = candidates[i];
            if (p != b->ko && !go_own_eye(b, p, me) && go_not_suicide(b, p, me)) {
                point = p;
                break;
            }
            if (candidates != empty) {
                memcpy(empty, b->empty, (size_t)n * sizeof(int16_t));
                candidates = empty;
            }
            n -= 1;
            empty[i] = empty[n];
        }
        go_play_point(b, point);
        last = point;
        if (moves != NULL) {
            moves[2 * count] = me;
            moves[2 * count + 1] = point < 0 ? b->size * b->size : go_action(b, point);
        }
        count += 1;
        if (b->passes == 2 || count == cap) {
            int black_wins = go_score(b) > 0;
            *g = black_wins == (me == GO_BLACK) ? coef : -coef;
            break;
        }
        if (count == limit) {
            *g = 0.0;
            break;
        }
        coef *= -gamma;
    }
    if (played != NULL)
        *played = count;
    return 0;
}

/* ------------------------------------------------------------------ the capsule */

typedef struct {
    NativeRollout base;
    double komi;
    int capture_heuristic;
} GoRollout;

static int
go_rollout(NativeRollout *self, PyObject *state, double (*random)(void *), void *rng,
           long long limit, double gamma, double *g)
{
    GoBoard b;
    GoRollout *go = (GoRollout *)self;
    if (go_board_init(&b, state, go->komi, go->capture_heuristic) < 0)
        return -1;
    return go_playout(&b, random, rng, limit, gamma, NULL, NULL, g);
}

static void
go_rollout_free(PyObject *capsule)
{
    PyMem_Free(PyCapsule_GetPointer(capsule, NATIVE_ROLLOUT_NAME));
}

const char go_native_rollout_doc[] =
    "go_native_rollout(komi, capture_heuristic) -> capsule: GoModel's light playout with this "
    "komi (a finite float) and capture heuristic (a bool), boards of 2..19.";

/* The bool ``x`` as 0 or 1, or -1 with a ValueError for anything else. */
static int
go_flag(PyObject *x)
{
    if (!PyBool_Check(x)) {
        PyErr_Format(PyExc_ValueError, "capture_heuristic must be a bool, got %R", x);
        return -1;
    }
    return x == Py_True;
}

PyObject *
core_go_native_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("go_native_rollout", nargs, 2))
        return NULL;
    double komi = PyFloat_AsDouble(args[0]);
    if (komi == -1.0 && PyErr_Occurred())
        return NULL;
    if (!isfinite(komi)) {
        PyErr_Format(PyExc_ValueError, "komi must be finite, got %R", args[0]);
        return NULL;
    }
    int capture_heuristic = go_flag(args[1]);
    if (capture_heuristic < 0)
        return NULL;
    GoRollout *rollout = PyMem_Malloc(sizeof(GoRollout));
    if (rollout == NULL)
        return PyErr_NoMemory();
    rollout->base.version = NATIVE_ROLLOUT_VERSION;
    rollout->base.rollout = go_rollout;
    rollout->komi = komi;
    rollout->capture_heuristic = capture_heuristic;
    PyObject *capsule = PyCapsule_New(rollout, NATIVE_ROLLOUT_NAME, go_rollout_free);
    if (capsule == NULL)
        PyMem_Free(rollout);
    return capsule;
}

const char go_amaf_rollout_doc[] =
    "go_amaf_rollout(komi, capture_heuristic, state, rng, limit, gamma) -> (g, moves): "
    "GoModel.amaf_rollout in C "
    "through go_playout's moves buffer, drawing from rng (a random.Random, continued).";

PyObject *
core_go_amaf_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("go_amaf_rollout", nargs, 6))
        return NULL;
    double komi = PyFloat_AsDouble(args[0]);
    int capture_heuristic = go_flag(args[1]);
    long long limit = PyLong_AsLongLong(args[4]);
    double gamma = PyFloat_AsDouble(args[5]);
    if (PyErr_Occurred())
        return NULL;
    GoBoard b;
    if (go_board_init(&b, args[2], komi, capture_heuristic) < 0)
        return NULL;
    long long cap = 3LL * b.size * b.size;
    long long most = limit < cap ? limit : cap; /* moves played, at most */
    int32_t *moves = PyMem_Malloc(2 * sizeof(int32_t) * (size_t)(most > 1 ? most : 1));
    if (moves == NULL)
        return PyErr_NoMemory();
    MTState mt;
    PyObject *old = mt_read(args[3], &mt);
    if (old == NULL) {
        PyMem_Free(moves);
        return NULL;
    }
    long long played = 0;
    double g = 0.0;
    int failed = go_playout(&b, mt_random, &mt, limit, gamma, moves, &played, &g) < 0;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    failed |= mt_write(args[3], &mt, old) < 0;
    Py_DECREF(old);
    PyErr_Restore(type, value, tb);
    PyObject *list = failed ? NULL : PyList_New((Py_ssize_t)played);
    for (long long i = 0; list != NULL && i < played; i++) {
        PyObject *pair = Py_BuildValue("(ii)", moves[2 * i], moves[2 * i + 1]);
        if (pair == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, pair);
    }
    PyMem_Free(moves);
    return list == NULL ? NULL : Py_BuildValue("(dN)", g, list);
}

const char go_actions_doc[] =
    "go_actions(state) -> list: the legal actions of a GoState by go_legal (GoModel.actions' "
    "order: the points in increasing order, the pass last; [] once over).";

PyObject *
core_go_actions(PyObject *module, PyObject *state)
{
    GoBoard b;
    if (go_board_init(&b, state, 0.0, 0) < 0)
        return NULL;
    PyObject *list = PyList_New(0);
    for (int a = 0; list != NULL && a <= b.size * b.size; a++) {
        if (!go_legal(&b, a))
            continue;
        PyObject *x = PyLong_FromLong(a);
        if (x == NULL || PyList_Append(list, x) < 0)
            Py_CLEAR(list);
        Py_XDECREF(x);
    }
    return list;
}

const char go_step_doc[] =
    "go_step(state, action) -> (board, to_play, ko, passes): the position after a legal action "
    "by go_play (GoModel.step's next state as a plain tuple); ValueError for an illegal one.";

PyObject *
core_go_step(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("go_step", nargs, 2))
        return NULL;
    GoBoard b;
    if (go_board_init(&b, args[0], 0.0, 0) < 0)
        return NULL;
    long action = PyLong_AsLong(args[1]);
    if (action == -1 && PyErr_Occurred())
        return NULL;
    if (action < INT_MIN || action > INT_MAX || !go_legal(&b, (int)action)) {
        PyErr_Format(PyExc_ValueError, "action %ld is not legal in %R", action, args[0]);
        return NULL;
    }
    go_play(&b, (int)action);
    PyObject *board = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)b.size * b.size);
    if (board == NULL)
        return NULL;
    char *cells = PyBytes_AS_STRING(board);
    for (int a = 0; a < b.size * b.size; a++)
        cells[a] = (char)b.cell[go_point_of(&b, a)];
    return Py_BuildValue("(Niii)", board, b.to_play, b.ko < 0 ? -1 : go_action(&b, b.ko),
                         b.passes);
}
