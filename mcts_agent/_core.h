/* What the two files of the extension mcts_agent._core share (docs/guides/compiled-core.md).
 *
 * _core.c: the plain loop, leaf batching's rounds, the Mersenne Twister that continues a
 * random.Random's state; _chance_loop.c: the general loop for a stochastic model (chance
 * nodes), with native chance rollouts; _gym_rollouts.c: native rollouts of the deterministic
 * Gymnasium envs GymnasiumModel knows; _information_set_loop.c: the ISMCTS loop on
 * LeducModel (compiled_information_sets.py); _go.c: Go's board and light playout; _rave_loop.c:
 * the RAVE/GRAVE loop on GoModel (compiled_rave.py). The functions
 * below are _core.c's, used by the others.
 */
#ifndef MCTS_AGENT_CORE_H
#define MCTS_AGENT_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t state[MT_N];
    int index;
} MTState;

/* The native rollout protocol (docs/guides/compiled-core.md): a capsule named
 * NATIVE_ROLLOUT_NAME whose pointer is a NativeRollout (its own data may follow these fields).
 * rollout(self, state, random, rng, limit, gamma, &g) plays the model's random rollout from
 * state (limit >= 1 moves, at least one legal action), drawing every random number as
 * random(rng) (a float in [0, 1), random.Random.random's), and writes its return to *g; it
 * returns 0, or -1 with a Python exception set. */
#define NATIVE_ROLLOUT_NAME "mcts_agent.native_rollout"
#define NATIVE_ROLLOUT_VERSION 2

typedef struct NativeRollout {
    int version;
    int (*rollout)(struct NativeRollout *self, PyObject *state, double (*random)(void *),
                   void *rng, long long limit, double gamma, double *g);
} NativeRollout;

/* 1 with a TypeError if a METH_FASTCALL function got ``nargs`` arguments, not ``expected``. */
int wrong_nargs(const char *name, Py_ssize_t nargs, Py_ssize_t expected);

/* CPython's genrand_uint32: the next 32 bits of the generator (getrandbits(32)). */
uint32_t mt_uint32(MTState *mt);
/* random.Random.random() drawn from an MTState (``rng`` points to it). */
double mt_random(void *rng);
/* Reads rng.getstate() into mt; returns the state tuple (new reference) or NULL. */
PyObject *mt_read(PyObject *rng, MTState *mt);
/* rng.setstate((version, mt's words and index, gauss_next of old)); 0 or -1. */
int mt_write(PyObject *rng, const MTState *mt, PyObject *old);

/* The pointer of args[0], a capsule named capsule_name, given to the METH_FASTCALL function
 * ``name`` of ``expected`` arguments; NULL with an exception otherwise. */
void *capsule_argument(const char *name, PyObject *const *args, Py_ssize_t nargs,
                       Py_ssize_t expected, const char *capsule_name);

/* One iteration of a compiled search (_information_set_loop.c, _rave_loop.c); 0, or -1 with an
 * exception set. */
typedef int (*SearchIteration)(void *search, MTState *mt, double c, double gamma,
                               long long limit);
/* Runs the iterations of (search, rng, c, gamma, rollout_limit, iterations) = args with a
 * Mersenne Twister continuing rng, left where they left it; None, or NULL with an exception. */
PyObject *run_iterations(void *search, SearchIteration iterate, PyObject *const *args,
                         long long signal_every);

/* next_state, reward, terminated = result (any iterable of exactly three; new references). */
int unpack3(PyObject *result, PyObject **a, PyObject **b, PyObject **c);
PyObject *call2(PyObject *f, PyObject *x, PyObject *y);
PyObject *call3(PyObject *f, PyObject *x, PyObject *y, PyObject *z);

/* path[depth++] = node, growing path (doubling); 0, or -1 with MemoryError set. */
int path_push(int32_t **path, Py_ssize_t *capacity, Py_ssize_t *depth, int32_t node);

/* Sets list[index] to a new reference (stolen); -1 if it is NULL. */
int set_new(PyObject *list, Py_ssize_t index, PyObject *value);

/* A float or an int of the tree's lists as a double (no Python code run); TypeError else. */
double as_double(PyObject *x);
/* uniform_priors(count) (mcts_agent.evaluator's), kept for counts up to 64: a new reference. */
PyObject *uniform(PyObject *uniform_priors, Py_ssize_t count);

/* _chance_loop.c's functions, in the module's method table (_core.c). */
PyObject *core_chance_run(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_table_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_pig_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_call_chance_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
extern const char chance_run_doc[], table_rollout_doc[], pig_rollout_doc[],
    call_chance_rollout_doc[];

#define CHANCE_LOOP_METHODS                                                                    \
    {"chance_run", (PyCFunction)(void (*)(void))core_chance_run, METH_FASTCALL,               \
     chance_run_doc},                                                                          \
        {"table_rollout", (PyCFunction)(void (*)(void))core_table_rollout, METH_FASTCALL,      \
         table_rollout_doc},                                                                   \
        {"pig_rollout", (PyCFunction)(void (*)(void))core_pig_rollout, METH_FASTCALL,          \
         pig_rollout_doc},                                                                     \
        {"call_chance_rollout", (PyCFunction)(void (*)(void))core_call_chance_rollout,         \
         METH_FASTCALL, call_chance_rollout_doc},

/* _gym_rollouts.c's functions, in the module's method table (_core.c). */
PyObject *core_gym_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_gym_step(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
extern const char gym_rollout_doc[], gym_step_doc[];

#define GYM_ROLLOUT_METHODS                                                                    \
    {"gym_rollout", (PyCFunction)(void (*)(void))core_gym_rollout, METH_FASTCALL,              \
     gym_rollout_doc},                                                                         \
        {"gym_step", (PyCFunction)(void (*)(void))core_gym_step, METH_FASTCALL, gym_step_doc},

/* _information_set_loop.c's functions, in the module's method table (_core.c). */
PyObject *core_leduc_table(PyObject *module, PyObject *rows);
PyObject *core_leduc_search(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_leduc_search_size(PyObject *module, PyObject *search);
PyObject *core_leduc_search_run(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_leduc_search_write(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
extern const char leduc_table_doc[], leduc_search_doc[], leduc_search_size_doc[],
    leduc_search_run_doc[], leduc_search_write_doc[];

#define INFORMATION_SET_LOOP_METHODS                                                           \
    {"leduc_table", (PyCFunction)core_leduc_table, METH_O, leduc_table_doc},                   \
        {"leduc_search", (PyCFunction)(void (*)(void))core_leduc_search, METH_FASTCALL,        \
         leduc_search_doc},                                                                    \
        {"leduc_search_size", (PyCFunction)core_leduc_search_size, METH_O,                     \
         leduc_search_size_doc},                                                               \
        {"leduc_search_run", (PyCFunction)(void (*)(void))core_leduc_search_run,               \
         METH_FASTCALL, leduc_search_run_doc},                                                 \
        {"leduc_search_write", (PyCFunction)(void (*)(void))core_leduc_search_write,           \
         METH_FASTCALL, leduc_search_write_doc},

/* _go.c: Go's board and GoModel's light playout (mcts_agent/envs/go.py, docs/guides/go.md),
 * for native rollouts and a compiled loop on Go. A point (r, c) of the N x N board is
 * (r + 1) * stride + c + 1 in the arrays (a border of GO_BORDER cells around the board); an
 * action is r * N + c, the pass N * N, as GoModel's. Per group (at its representative,
 * group[p]): its stones, its pseudo-liberties (count, sum, sum of squares). */
#define GO_MAX_SIZE 19
#define GO_MAX_CELLS ((GO_MAX_SIZE + 2) * (GO_MAX_SIZE + 2))
#define GO_EMPTY 0
#define GO_BLACK 1
#define GO_WHITE 2
#define GO_BORDER 3

typedef struct {
    int size, stride;   /* N in 2..GO_MAX_SIZE, N + 2 */
    int to_play;        /* GO_BLACK or GO_WHITE */
    int ko;             /* the ko point (an array index, not an action), -1 for none */
    int passes;         /* passes just played in a row, 0..2 */
    double komi;        /* points given to white */
    int capture_heuristic; /* 1: go_playout's capture / atari-escape rule (GoModel's option) */
    uint8_t cell[GO_MAX_CELLS];
    int16_t group[GO_MAX_CELLS], next[GO_MAX_CELLS], stones[GO_MAX_CELLS];
    int32_t liberties[GO_MAX_CELLS];
    int64_t liberty_sum[GO_MAX_CELLS], liberty_squares[GO_MAX_CELLS];
    uint64_t empty_bits[(GO_MAX_CELLS + 63) / 64]; /* bit p: point p is empty */
    int16_t empty[GO_MAX_SIZE * GO_MAX_SIZE];     /* the empty points, in increasing order */
    int empties;                                  /* their number */
} GoBoard;

/* Sets *b to a GoState (board bytes, to_play, ko, passes) with ``komi`` and the playout's
 * ``capture_heuristic`` (0 or 1); 0, or -1 with a ValueError for anything else (a size out of
 * 2..19, a group without a liberty, a stone on the ko point, passes out of 0..2). */
int go_board_init(GoBoard *b, PyObject *state, double komi, int capture_heuristic);
/* An action's array index, and back. */
int go_point(const GoBoard *b, int action);
int go_action(const GoBoard *b, int point);
/* 1 if ``action`` (0..N*N) is legal for the player to move (GoModel.actions: none once
 * two passes ended the game), else 0. */
int go_legal(const GoBoard *b, int action);
/* Plays the legal ``action`` (GoModel.step: captures, ko, passes, the player to move). */
void go_play(GoBoard *b, int action);
/* GoModel.score: black's area - white's area - komi (Tromp-Taylor). */
double go_score(const GoBoard *b);
/* GoModel.rollout from *b (played on it; the capture heuristic if b->capture_heuristic),
 * drawing random(rng); writes the return to *g and, unless NULL, the moves to moves[2 k],
 * moves[2 k + 1] = (player, action) (room for 2 * min(limit, 3 * N * N) ints) and their
 * number to *played. 0, or -1 with a ValueError (the game over, limit < 1). */
int go_playout(GoBoard *b, double (*random)(void *), void *rng, long long limit, double gamma,
               int32_t *moves, long long *played, double *g);

PyObject *core_go_native_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_go_amaf_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_go_actions(PyObject *module, PyObject *state);
PyObject *core_go_step(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
extern const char go_native_rollout_doc[], go_amaf_rollout_doc[], go_actions_doc[],
    go_step_doc[];

#define GO_METHODS                                                                             \
    {"go_native_rollout", (PyCFunction)(void (*)(void))core_go_native_rollout, METH_FASTCALL, \
     go_native_rollout_doc},                                                                   \
        {"go_amaf_rollout", (PyCFunction)(void (*)(void))core_go_amaf_rollout, METH_FASTCALL,  \
         go_amaf_rollout_doc},                                                                 \
        {"go_actions", (PyCFunction)core_go_actions, METH_O, go_actions_doc},                  \
        {"go_step", (PyCFunction)(void (*)(void))core_go_step, METH_FASTCALL, go_step_doc},


/* _rave_loop.c's functions (mcts_agent/compiled_rave.py), in the module's method table. */
PyObject *core_go_rave_search(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_go_rave_search_size(PyObject *module, PyObject *search);
PyObject *core_go_rave_search_run(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_go_rave_amaf(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *core_go_rave_search_write(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
extern const char go_rave_search_doc[], go_rave_search_size_doc[], go_rave_search_run_doc[],
    go_rave_amaf_doc[], go_rave_search_write_doc[];

#define RAVE_LOOP_METHODS                                                                      \
    {"go_rave_search", (PyCFunction)(void (*)(void))core_go_rave_search, METH_FASTCALL,        \
     go_rave_search_doc},                                                                      \
        {"go_rave_search_size", (PyCFunction)core_go_rave_search_size, METH_O,                 \
         go_rave_search_size_doc},                                                             \
        {"go_rave_search_run", (PyCFunction)(void (*)(void))core_go_rave_search_run,           \
         METH_FASTCALL, go_rave_search_run_doc},                                               \
        {"go_rave_amaf", (PyCFunction)(void (*)(void))core_go_rave_amaf, METH_FASTCALL,        \
         go_rave_amaf_doc},                                                                    \
        {"go_rave_search_write", (PyCFunction)(void (*)(void))core_go_rave_search_write,       \
         METH_FASTCALL, go_rave_search_write_doc},

#endif
