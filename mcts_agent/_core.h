/* What the two files of the extension mcts_agent._core share (docs/guides/compiled-core.md).
 *
 * _core.c: the plain loop, leaf batching's rounds, the Mersenne Twister that continues a
 * random.Random's state; _chance_loop.c: the general loop for a stochastic model (chance
 * nodes), with native chance rollouts; _gym_rollouts.c: native rollouts of the deterministic
 * Gymnasium envs GymnasiumModel knows; _information_set_loop.c: the ISMCTS loop on
 * LeducModel (compiled_information_sets.py). The functions below are _core.c's, used by the others.
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

#endif
