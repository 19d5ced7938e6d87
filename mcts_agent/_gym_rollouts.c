/* mcts_agent._core's native rollouts of the deterministic Gymnasium envs that GymnasiumModel
 * knows (docs/guides/compiled-core.md, docs/guides/gymnasium.md).
 *
 * Each is GymnasiumModel.rollout (mcts_agent/adapters/gymnasium/model.py), the fused rollout,
 * for one env, statement for statement: the action actions[int(random() * len(actions))],
 * the env's step, g += coef * reward, the moves left (min(limit, steps left)) counted down,
 * the end at termination, at no move left or at no legal action, coef *= gamma; with
 * rollout_actions="repeated", the action kept while it has repeats left and is legal, else a
 * new one and its duration int(1.0 / (1.0 - random())) drawn after it. The steps
 * are the ones the Python rollout runs, with the same IEEE operations in the same order
 * (built with floating-point contraction off; cos and sin are the C library's, which numpy
 * and math call on the machines where mcts_agent/adapters/gymnasium/native_rollouts.py's
 * start-up check passes):
 *
 * - "table": a deterministic toy-text table (FrozenLake, CliffWalking, Taxi): known_envs.py's
 *   _TableStepper, its next cell, reward and termination by (cell, action), and the legal
 *   actions after reaching each cell (Taxi's masks);
 * - "cartpole": known_envs.py's _CartPoleStepper (CartPoleEnv.step);
 * - "mountain_car": MountainCarEnv.step (Gymnasium 1.4);
 * - "acrobot": AcrobotEnv.step (Gymnasium 1.4, no torque noise): _dsdt, rk4 over [0, dt],
 *   wrap and bound, the terminal test;
 * - "pendulum": PendulumEnv.step (Gymnasium 1.4) and "mountain_car_continuous":
 *   Continuous_MountainCarEnv.step, with sampled actions (a Box of shape (1,), float32): each
 *   action drawn as action_spaces.py's _Numbers.draw, float(np.float32(min(low + span *
 *   random(), high))), with "repeated" its duration drawn after it (a sampled action stays
 *   legal: no legality test). Their steps mix numpy scalars and Python floats, so each
 *   operation takes numpy's type (NEP 50, below: a float32 with a Python float stays float32,
 *   the Python float rounded to float32 first; with a float64, float64); x ** 2 of a numpy
 *   scalar is the C library's pow (float64) or powf (float32), as numpy's;
 * - "point_robot": mcts_agent/envs/point_robot.py's PointRobotEnv.step (cloned by its
 *   get_state/set_state: the snapshot is (x, y, terminated)), with sampled actions (its Box of
 *   shape (2,), float32: two numbers drawn as above, then the step); Python floats throughout,
 *   the module's constants copied into the capsule; the distance to the goal is math.hypot's
 *   own (called through Python: CPython's hypot is not the C library's), sqrt the C library's
 *   (correctly rounded, as math.sqrt).
 *
 * The env's parameters are copied into the capsule when it is made (native_rollouts.py makes
 * a new one when they change). gym_step runs one of its steps, for the start-up check.
 * Listed actions: the model's actions are numbered k = 0..A-1 in the model's order (a dict
 * maps each to its k); the capsule holds, by k, what the env's step reads of the inner action
 * (CartPole's force, MountainCar's (action - 1) * force, Acrobot's torque; the table's
 * columns are by k). Sampled actions ("pendulum", "mountain_car_continuous", "point_robot"): no
 * numbers, the
 * action is its float.
 */
#include "_core.h"

#include <math.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define GYM_PI 3.141592653589793 /* numpy.pi, math.pi */

/* x ** 2 as Python and numpy compute it: the C library's pow (powf for a float32), which is
 * not always x * x rounded. The exponent is read from a volatile so that the compiler cannot
 * replace the call by x * x (GCC does for a constant 2.0). */
static volatile double gym_two = 2.0;
#define GYM_SQUARE(x) pow((x), gym_two)
#define GYM_SQUARE_F32(x) powf((x), (float)gym_two)

/* x rounded to float32 (numpy's cast), through a volatile: GCC at -O2 was seen to drop the
 * rounding of (float) of a sum stored back into a double. */
static inline double
gym_float32(double x)
{
    volatile float rounded = (float)x;
    return rounded;
}
#define GYM_MAX_ACTIONS 64

enum { GYM_TABLE, GYM_CARTPOLE, GYM_MOUNTAIN_CAR, GYM_ACROBOT, GYM_PENDULUM,
       GYM_MOUNTAIN_CAR_CONTINUOUS, GYM_POINT_ROBOT, GYM_KINDS };
/* The kinds from GYM_PENDULUM on have sampled actions. */
#define GYM_SAMPLED(kind) ((kind) >= GYM_PENDULUM)
/* The numbers of a sampled kind's action. */
#define GYM_DIMENSIONS(kind) ((kind) == GYM_POINT_ROBOT ? 2 : 1)

static const char *const gym_kinds[] = {"table",    "cartpole", "mountain_car",
                                        "acrobot",  "pendulum", "mountain_car_continuous",
                                        "point_robot"};
static const Py_ssize_t gym_parameter_counts[] = {0, 10, 6, 11, 8, 11, 16};

/* CartPole's parameters, in the order gym_rollout takes them. */
enum { CP_GRAVITY, CP_MASSPOLE, CP_TOTAL_MASS, CP_LENGTH, CP_POLEMASS_LENGTH, CP_TAU, CP_EULER,
       CP_THETA_THRESHOLD, CP_X_THRESHOLD, CP_SUTTON_BARTO };
/* MountainCar's. */
enum { MC_GRAVITY, MC_MAX_SPEED, MC_MIN_POSITION, MC_MAX_POSITION, MC_GOAL_POSITION,
       MC_GOAL_VELOCITY };
/* Acrobot's (LINK_MASS_1, LINK_MASS_2, LINK_LENGTH_1, LINK_COM_POS_1, LINK_COM_POS_2,
 * LINK_MOI twice, MAX_VEL_1, MAX_VEL_2, dt, book_or_nips == "nips"). */
enum { AC_M1, AC_M2, AC_L1, AC_LC1, AC_LC2, AC_I1, AC_I2, AC_MAX_VEL_1, AC_MAX_VEL_2, AC_DT,
       AC_NIPS };
/* The sampled kinds' first three per number of the action: the Box's low, high - low and high
 * (the action drawn). */
enum { DRAW_LOW, DRAW_SPAN, DRAW_HIGH, DRAW_COUNT };
/* Pendulum's after them: 3 * g / (2 * l) and 3.0 / (m * l**2) (Python's, computed by
 * native_rollouts.py), dt, max_speed, max_torque. */
enum { PD_GRAVITY_TERM = 3, PD_TORQUE_TERM, PD_DT, PD_MAX_SPEED, PD_MAX_TORQUE };
/* Continuous_MountainCarEnv's after them. */
enum { MCC_MIN_ACTION = 3, MCC_MAX_ACTION, MCC_POWER, MCC_MAX_SPEED, MCC_MIN_POSITION,
       MCC_MAX_POSITION, MCC_GOAL_POSITION, MCC_GOAL_VELOCITY };
/* point_robot.py's constants after the two numbers' bounds: ARENA_SIZE, STEP_LENGTH,
 * OBSTACLE, OBSTACLE_RADIUS, GOAL, GOAL_RADIUS, GOAL_REWARD, CRASH_REWARD. */
enum { RB_ARENA_SIZE = 6, RB_STEP_LENGTH, RB_OBSTACLE_X, RB_OBSTACLE_Y, RB_OBSTACLE_RADIUS,
       RB_GOAL_X, RB_GOAL_Y, RB_GOAL_RADIUS, RB_GOAL_REWARD, RB_CRASH_REWARD };

typedef struct {
    NativeRollout base;
    int kind;
    int repeated;           /* rollout_actions == "repeated" */
    PyObject *action_index; /* dict: the model's action -> k (None for sampled actions) */
    PyObject *hypot;        /* "point_robot": math.hypot; else NULL */
    Py_ssize_t actions;     /* A */
    double push[GYM_MAX_ACTIONS];
    int32_t every[GYM_MAX_ACTIONS]; /* every[k] = k */
    double p[16];
    /* "table": by cell s and k, at s * A + k; legal actions (k) after reaching s:
     * legal[legal_first[s] .. legal_first[s + 1]) */
    Py_ssize_t cells;
    int32_t *next;
    double *reward;
    uint8_t *terminated;
    Py_ssize_t *legal_first;
    int32_t *legal;
} GymRollout;

/* A state's parts: its snapshot, the moves the rollout may play (min(limit, steps left)) and
 * the k of its legal actions; 0, or -1 with ValueError. */
static int
gym_position(GymRollout *t, PyObject *state, long long limit, PyObject **snapshot,
             long long *moves_left, int32_t *first, Py_ssize_t *count)
{
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != 4 ||
        !PyTuple_Check(PyTuple_GET_ITEM(state, 0)) ||
        !(PyTuple_Check(PyTuple_GET_ITEM(state, 2)) || PyTuple_GET_ITEM(state, 2) == Py_None)) {
        PyErr_Format(PyExc_ValueError,
                     "a native Gymnasium rollout takes a GymnasiumState (snapshot, steps_left, "
                     "actions, observation), got %R", state);
        return -1;
    }
    *snapshot = PyTuple_GET_ITEM(state, 0);
    PyObject *steps = PyTuple_GET_ITEM(state, 1), *actions = PyTuple_GET_ITEM(state, 2);
    if (GYM_SAMPLED(t->kind) != (actions == Py_None)) {
        PyErr_Format(PyExc_ValueError, "a native Gymnasium rollout of %s takes a state whose "
                     "actions are %s, got %R", gym_kinds[t->kind],
                     GYM_SAMPLED(t->kind) ? "None (sampled)" : "a tuple", state);
        return -1;
    }
    *moves_left = limit;
    if (steps != Py_None) {
        long long steps_left = PyLong_AsLongLong(steps);
        if (steps_left == -1 && PyErr_Occurred())
            return -1;
        if (steps_left < limit)
            *moves_left = steps_left;
    }
    if (actions == Py_None) {
        *count = 0;
        return 0;
    }
    *count = PyTuple_GET_SIZE(actions);
    if (*count == 0 || *count > t->actions) {
        PyErr_Format(PyExc_ValueError, "a native Gymnasium rollout needs 1 to %zd legal "
                     "actions, got %R", t->actions, actions);
        return -1;
    }
    for (Py_ssize_t i = 0; i < *count; i++) {
        PyObject *k = PyDict_GetItemWithError(t->action_index, PyTuple_GET_ITEM(actions, i));
        if (k == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "%R is not an action of the model",
                             PyTuple_GET_ITEM(actions, i));
            return -1;
        }
        first[i] = (int32_t)PyLong_AsLong(k);
    }
    return 0;
}

/* snapshot[index] as a double, or item ``item`` of it when item >= 0 (a sequence); -1 with an
 * exception set (*x unset) on failure, else 0. */
static int
gym_number(PyObject *snapshot, Py_ssize_t index, Py_ssize_t item, double *x)
{
    if (PyTuple_GET_SIZE(snapshot) <= index) {
        PyErr_Format(PyExc_ValueError, "a snapshot of %zd items, got %R", index + 1, snapshot);
        return -1;
    }
    PyObject *v = PyTuple_GET_ITEM(snapshot, index);
    if (item >= 0) {
        v = PySequence_GetItem(v, item);
        if (v == NULL)
            return -1;
    }
    else
        Py_INCREF(v);
    *x = PyFloat_AsDouble(v);
    Py_DECREF(v);
    return *x == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* The numpy scalar types a sampled kind's step mixes (NEP 50): a Python float (or int),
 * numpy.float32, numpy.float64. */
enum { NUM_PY, NUM_F32, NUM_F64 };

/* Where the rollout is: a table's cell, or the physical state (and CartPole's
 * steps_beyond_terminated, -1 for None; the sampled kinds' numpy type of each number; the
 * point robot's terminated, and its distance to the goal in x[2]). */
typedef struct {
    Py_ssize_t cell;
    double x[4];
    long long beyond;
    int type[2];
    int terminated;
} Position;

/* math.hypot(x - GOAL[0], y - GOAL[1]) (point_robot.py's _goal_distance) into *distance; 0, or
 * -1 with an exception. */
static int
robot_goal_distance(GymRollout *t, double x, double y, double *distance)
{
    PyObject *args[2] = {PyFloat_FromDouble(x - t->p[RB_GOAL_X]),
                         PyFloat_FromDouble(y - t->p[RB_GOAL_Y])};
    PyObject *d = args[0] != NULL && args[1] != NULL
                      ? PyObject_Vectorcall(t->hypot, args, 2, NULL)
                      : NULL;
    Py_XDECREF(args[0]);
    Py_XDECREF(args[1]);
    if (d == NULL)
        return -1;
    *distance = PyFloat_AsDouble(d);
    Py_DECREF(d);
    return *distance == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* The point robot's snapshot (x, y, terminated), as PointRobotEnv.set_state takes it; 0, or -1
 * with ValueError. */
static int
robot_read_position(GymRollout *t, PyObject *snapshot, Position *at)
{
    int valid = PyTuple_GET_SIZE(snapshot) == 3 && PyBool_Check(PyTuple_GET_ITEM(snapshot, 2));
    for (Py_ssize_t i = 0; valid && i < 2; i++) {
        PyObject *v = PyTuple_GET_ITEM(snapshot, i);
        valid = (PyFloat_Check(v) || PyLong_Check(v)) && !PyBool_Check(v);
        if (valid) {
            at->x[i] = PyFloat_AsDouble(v);
            if (at->x[i] == -1.0 && PyErr_Occurred())
                return -1;
            valid = 0.0 <= at->x[i] && at->x[i] <= t->p[RB_ARENA_SIZE];
        }
    }
    if (!valid) {
        PyErr_Format(PyExc_ValueError, "a native point robot rollout takes a snapshot (x, y, "
                     "terminated) with x, y floats in [0, ARENA_SIZE] and terminated a bool, got "
                     "%R", snapshot);
        return -1;
    }
    at->terminated = PyTuple_GET_ITEM(snapshot, 2) == Py_True;
    return robot_goal_distance(t, at->x[0], at->x[1], &at->x[2]);
}

/* The state's item i (a numpy.float32 or numpy.float64, the env's array's) into x[i] and
 * type[i]; 0, or -1 with an exception. */
static int
gym_numpy_number(PyObject *snapshot, Py_ssize_t i, Position *at)
{
    PyObject *v = PySequence_GetItem(PyTuple_GET_ITEM(snapshot, 0), i);
    if (v == NULL)
        return -1;
    const char *name = Py_TYPE(v)->tp_name;
    at->type[i] = strcmp(name, "numpy.float32") == 0   ? NUM_F32
                  : strcmp(name, "numpy.float64") == 0 ? NUM_F64
                                                       : -1;
    if (at->type[i] < 0) {
        PyErr_Format(PyExc_ValueError, "a native Gymnasium rollout takes an env's state of "
                     "numpy.float32 or numpy.float64 numbers (an array's), got %R in %R", v,
                     snapshot);
        Py_DECREF(v);
        return -1;
    }
    at->x[i] = PyFloat_AsDouble(v);
    Py_DECREF(v);
    return at->x[i] == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* Reads the snapshot (known_envs.KNOWN_SNAPSHOTS' attributes) into *at; 0, or -1 with an
 * exception. */
static int
gym_read_position(GymRollout *t, PyObject *snapshot, Position *at)
{
    if (t->kind == GYM_TABLE) {
        /* (s, lastaction, ...): the cell; the table stepper reads nothing else */
        at->cell = PyTuple_GET_SIZE(snapshot) == 0
                       ? -1
                       : PyNumber_AsSsize_t(PyTuple_GET_ITEM(snapshot, 0), PyExc_OverflowError);
        if (at->cell == -1 && PyErr_Occurred())
            return -1;
        if (at->cell < 0 || at->cell >= t->cells) {
            PyErr_Format(PyExc_ValueError, "not a cell of the table (0 to %zd): %R",
                         t->cells - 1, snapshot);
            return -1;
        }
        return 0;
    }
    if (t->kind == GYM_POINT_ROBOT)
        return robot_read_position(t, snapshot, at);
    /* (state,), CartPole's (state, steps_beyond_terminated) or Pendulum's (state, last_u) */
    Py_ssize_t size = t->kind == GYM_CARTPOLE || t->kind == GYM_PENDULUM ? 2 : 1;
    Py_ssize_t dimension = t->kind == GYM_CARTPOLE || t->kind == GYM_ACROBOT ? 4 : 2;
    if (PyTuple_GET_SIZE(snapshot) != size) {
        PyErr_Format(PyExc_ValueError, "a %s snapshot has %zd items, got %R", gym_kinds[t->kind],
                     size, snapshot);
        return -1;
    }
    for (Py_ssize_t i = 0; i < dimension; i++)
        if (GYM_SAMPLED(t->kind) ? gym_numpy_number(snapshot, i, at) < 0
                                 : gym_number(snapshot, 0, i, &at->x[i]) < 0)
            return -1;
    if (t->kind == GYM_PENDULUM && (at->type[0] != NUM_F64 || at->type[1] != NUM_F64)) {
        /* np.sin of a float32 is numpy's own, not the C library's */
        PyErr_Format(PyExc_ValueError, "a native Pendulum rollout takes a state of numpy.float64 "
                     "numbers (the env's), got %R", snapshot);
        return -1;
    }
    at->beyond = -1;
    if (t->kind == GYM_CARTPOLE && PyTuple_GET_ITEM(snapshot, 1) != Py_None) {
        at->beyond = PyLong_AsLongLong(PyTuple_GET_ITEM(snapshot, 1));
        if (at->beyond == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* The steps: each moves *at by action k, sets *reward and returns 1 if the episode terminated.
 * After a step that does not end it the legal actions are *legal[0 .. *count). */

static int
table_step(GymRollout *t, Position *at, int32_t k, double *reward, const int32_t **legal,
           Py_ssize_t *count)
{
    /* _TableStepper.step: the table's entry, and the mask of the cell reached (Taxi's
     * info["action_mask"]) */
    Py_ssize_t entry = at->cell * t->actions + k, s = t->next[entry];
    *reward = t->reward[entry];
    at->cell = s;
    *legal = &t->legal[t->legal_first[s]];
    *count = t->legal_first[s + 1] - t->legal_first[s];
    return t->terminated[entry];
}

static int
cartpole_step(GymRollout *t, Position *at, int32_t k, double *reward, const int32_t **legal,
              Py_ssize_t *count)
{
    /* _CartPoleStepper.step */
    const double *p = t->p;
    double x = at->x[0], x_dot = at->x[1], theta = at->x[2], theta_dot = at->x[3];
    double force = t->push[k];
    double costheta = cos(theta);
    double sintheta = sin(theta);
    double temp = (force + p[CP_POLEMASS_LENGTH] * (theta_dot * theta_dot) * sintheta) /
                  p[CP_TOTAL_MASS];
    double thetaacc =
        (p[CP_GRAVITY] * sintheta - costheta * temp) /
        (p[CP_LENGTH] * (4.0 / 3.0 - p[CP_MASSPOLE] * (costheta * costheta) / p[CP_TOTAL_MASS]));
    double xacc = temp - p[CP_POLEMASS_LENGTH] * thetaacc * costheta / p[CP_TOTAL_MASS];
    double tau = p[CP_TAU];
    if (p[CP_EULER] != 0.0) {
        x = x + tau * x_dot;
        x_dot = x_dot + tau * xacc;
        theta = theta + tau * theta_dot;
        theta_dot = theta_dot + tau * thetaacc;
    }
    else { /* semi-implicit Euler */
        x_dot = x_dot + tau * xacc;
        x = x + tau * x_dot;
        theta_dot = theta_dot + tau * thetaacc;
        theta = theta + tau * theta_dot;
    }
    at->x[0] = x;
    at->x[1] = x_dot;
    at->x[2] = theta;
    at->x[3] = theta_dot;
    int terminated = x < -p[CP_X_THRESHOLD] || x > p[CP_X_THRESHOLD] ||
                     theta < -p[CP_THETA_THRESHOLD] || theta > p[CP_THETA_THRESHOLD];
    int sutton_barto = p[CP_SUTTON_BARTO] != 0.0;
    if (!terminated)
        *reward = sutton_barto ? 0.0 : 1.0;
    else if (at->beyond < 0) {
        at->beyond = 0;
        *reward = sutton_barto ? -1.0 : 1.0;
    }
    else {
        at->beyond += 1;
        *reward = sutton_barto ? -1.0 : 0.0;
    }
    *legal = t->every;
    *count = t->actions;
    return terminated;
}

/* np.clip(x, lo, hi) of a float64 scalar (no NaN here: the min of the max). */
static inline double
gym_clip(double x, double lo, double hi)
{
    double y = x >= lo ? x : lo;
    return y <= hi ? y : hi;
}

static int
mountain_car_step(GymRollout *t, Position *at, int32_t k, double *reward,
                  const int32_t **legal, Py_ssize_t *count)
{
    /* MountainCarEnv.step; state (position, velocity) */
    const double *p = t->p;
    double position = at->x[0], velocity = at->x[1];
    velocity = velocity + (t->push[k] + cos(3.0 * position) * (-p[MC_GRAVITY]));
    velocity = gym_clip(velocity, -p[MC_MAX_SPEED], p[MC_MAX_SPEED]);
    position = position + velocity;
    position = gym_clip(position, p[MC_MIN_POSITION], p[MC_MAX_POSITION]);
    if (position == p[MC_MIN_POSITION] && velocity < 0.0)
        velocity = 0.0;
    at->x[0] = position;
    at->x[1] = velocity;
    *reward = -1.0;
    *legal = t->every;
    *count = t->actions;
    return position >= p[MC_GOAL_POSITION] && velocity >= p[MC_GOAL_VELOCITY];
}

/* AcrobotEnv._dsdt of y = (theta1, theta2, dtheta1, dtheta2, torque). */
static void
acrobot_dsdt(const double *p, const double *y, double *dy)
{
    double m1 = p[AC_M1], m2 = p[AC_M2], l1 = p[AC_L1], lc1 = p[AC_LC1], lc2 = p[AC_LC2];
    double I1 = p[AC_I1], I2 = p[AC_I2], g = 9.8;
    double a = y[4], theta1 = y[0], theta2 = y[1], dtheta1 = y[2], dtheta2 = y[3];
    double d1 =
        m1 * GYM_SQUARE(lc1) + m2 * (GYM_SQUARE(l1) + GYM_SQUARE(lc2) + 2.0 * l1 * lc2 * cos(theta2)) + I1 +
        I2;
    double d2 = m2 * (GYM_SQUARE(lc2) + l1 * lc2 * cos(theta2)) + I2;
    double phi2 = m2 * lc2 * g * cos(theta1 + theta2 - GYM_PI / 2.0);
    double phi1 = -m2 * l1 * lc2 * GYM_SQUARE(dtheta2) * sin(theta2) -
                  2.0 * m2 * l1 * lc2 * dtheta2 * dtheta1 * sin(theta2) +
                  (m1 * lc1 + m2 * l1) * g * cos(theta1 - GYM_PI / 2.0) + phi2;
    double ddtheta2;
    if (p[AC_NIPS] != 0.0)
        ddtheta2 = (a + d2 / d1 * phi1 - phi2) / (m2 * GYM_SQUARE(lc2) + I2 - GYM_SQUARE(d2) / d1);
    else
        ddtheta2 = (a + d2 / d1 * phi1 - m2 * l1 * lc2 * GYM_SQUARE(dtheta1) * sin(theta2) - phi2) /
                   (m2 * GYM_SQUARE(lc2) + I2 - GYM_SQUARE(d2) / d1);
    double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    dy[0] = dtheta1;
    dy[1] = dtheta2;
    dy[2] = ddtheta1;
    dy[3] = ddtheta2;
    dy[4] = 0.0;
}

/* acrobot.py's wrap(x, -pi, pi). */
static double
acrobot_wrap(double x)
{
    double m = -GYM_PI, M = GYM_PI, diff = M - m;
    while (x > M)
        x = x - diff;
    while (x < m)
        x = x + diff;
    return x;
}

/* acrobot.py's bound(x, -M, M): min(max(x, m), M) of Python's builtins. */
static double
acrobot_bound(double x, double M)
{
    double m = -M;
    double y = m > x ? m : x;
    return M < y ? M : y;
}

static int
acrobot_step(GymRollout *t, Position *at, int32_t k, double *reward, const int32_t **legal,
             Py_ssize_t *count)
{
    /* AcrobotEnv.step: rk4 over t = [0, dt] of (state, torque), then wrap and bound */
    const double *p = t->p;
    double dt = p[AC_DT] - 0.0, dt2 = dt / 2.0;
    double y0[5] = {at->x[0], at->x[1], at->x[2], at->x[3], t->push[k]};
    double k1[5], k2[5], k3[5], k4[5], y[5];
    acrobot_dsdt(p, y0, k1);
    for (int i = 0; i < 5; i++)
        y[i] = y0[i] + dt2 * k1[i];
    acrobot_dsdt(p, y, k2);
    for (int i = 0; i < 5; i++)
        y[i] = y0[i] + dt2 * k2[i];
    acrobot_dsdt(p, y, k3);
    for (int i = 0; i < 5; i++)
        y[i] = y0[i] + dt * k3[i];
    acrobot_dsdt(p, y, k4);
    double *s = at->x;
    for (int i = 0; i < 4; i++)
        s[i] = y0[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    s[0] = acrobot_wrap(s[0]);
    s[1] = acrobot_wrap(s[1]);
    s[2] = acrobot_bound(s[2], p[AC_MAX_VEL_1]);
    s[3] = acrobot_bound(s[3], p[AC_MAX_VEL_2]);
    int terminated = -cos(s[0]) - cos(s[1] + s[0]) > 1.0;
    *reward = terminated ? 0.0 : -1.0;
    *legal = t->every;
    *count = t->actions;
    return terminated;
}

static int (*const gym_steps[])(GymRollout *, Position *, int32_t, double *, const int32_t **,
                                Py_ssize_t *) = {table_step, cartpole_step, mountain_car_step,
                                                 acrobot_step};

/* A number of a sampled kind's step with its numpy type; the operations below give numpy's
 * result (NEP 50): float32 with float32 or a Python float (rounded to float32 first) is
 * float32; with a float64, float64; Python floats (and ints) give Python floats. */
typedef struct {
    double v;
    int type;
} Num;

static inline Num
num(double v, int type)
{
    Num n = {v, type};
    return n;
}

static inline int
num_type(Num a, Num b)
{
    return a.type == NUM_F64 || b.type == NUM_F64   ? NUM_F64
           : a.type == NUM_F32 || b.type == NUM_F32 ? NUM_F32
                                                    : NUM_PY;
}

static Num
num_add(Num a, Num b)
{
    int type = num_type(a, b);
    return type == NUM_F32 ? num((float)a.v + (float)b.v, type) : num(a.v + b.v, type);
}

static Num
num_sub(Num a, Num b)
{
    int type = num_type(a, b);
    return type == NUM_F32 ? num((float)a.v - (float)b.v, type) : num(a.v - b.v, type);
}

static Num
num_mul(Num a, Num b)
{
    int type = num_type(a, b);
    return type == NUM_F32 ? num((float)a.v * (float)b.v, type) : num(a.v * b.v, type);
}

/* a < b: a float32 with a Python float compares in float32 (numpy), else in float64. */
static int
num_less(Num a, Num b)
{
    if (num_type(a, b) == NUM_F32)
        return (float)a.v < (float)b.v;
    return a.v < b.v;
}

static int
num_equal(Num a, Num b)
{
    if (num_type(a, b) == NUM_F32)
        return (float)a.v == (float)b.v;
    return a.v == b.v;
}

/* numpy's remainder of float64 (npy_divmod's, Python's convention: the sign of b). */
static double
gym_remainder(double a, double b)
{
    double mod = fmod(a, b);
    if (mod != 0.0) {
        if ((b < 0.0) != (mod < 0.0))
            mod += b;
    }
    else
        mod = copysign(0.0, b);
    return mod;
}

static int
pendulum_step(GymRollout *t, Position *at, const double *actions, double *reward)
{
    double action = actions[0];
    /* PendulumEnv.step: th, thdot float64; u = np.clip(u, -max_torque, max_torque)[0] a
     * float32 (numpy's clip: the max, then the min) */
    const double *p = t->p;
    double th = at->x[0], thdot = at->x[1];
    float u = (float)action, lo = (float)-p[PD_MAX_TORQUE], hi = (float)p[PD_MAX_TORQUE];
    u = u > lo ? u : lo;
    u = u < hi ? u : hi;
    /* angle_normalize(th) ** 2 + 0.1 * thdot**2 + 0.001 * (u**2): float64, float64, float32 */
    double normalized = gym_remainder(th + GYM_PI, 2.0 * GYM_PI) - GYM_PI;
    float effort = (float)0.001 * GYM_SQUARE_F32(u);
    double costs = GYM_SQUARE(normalized) + 0.1 * GYM_SQUARE(thdot) + (double)effort;
    /* newthdot = thdot + (3 * g / (2 * l) * np.sin(th) + 3.0 / (m * l**2) * u) * dt */
    float torque = (float)p[PD_TORQUE_TERM] * u;
    double newthdot = thdot + (p[PD_GRAVITY_TERM] * sin(th) + (double)torque) * p[PD_DT];
    double speed = p[PD_MAX_SPEED];
    newthdot = newthdot > -speed ? newthdot : -speed;
    newthdot = newthdot < speed ? newthdot : speed;
    at->x[0] = th + newthdot * p[PD_DT];
    at->x[1] = newthdot;
    *reward = -costs;
    return 0;
}

static int
mountain_car_continuous_step(GymRollout *t, Position *at, const double *actions,
                             double *reward)
{
    double action = actions[0];
    /* Continuous_MountainCarEnv.step: position, velocity the state's numpy scalars (float32,
     * or float64 at reset); the parameters Python floats; action[0] a float32 */
    const double *p = t->p;
    Num position = num(at->x[0], at->type[0]), velocity = num(at->x[1], at->type[1]);
    Num a = num(action, NUM_F32), min_action = num(p[MCC_MIN_ACTION], NUM_PY),
        max_action = num(p[MCC_MAX_ACTION], NUM_PY);
    /* force = min(max(action[0], min_action), max_action): Python's builtins */
    Num force = num_less(a, min_action) ? min_action : a;
    force = num_less(max_action, force) ? max_action : force;
    /* velocity += force * power - 0.0025 * math.cos(3 * position) */
    double cosine = cos(num_mul(num(3.0, NUM_PY), position).v);
    velocity = num_add(velocity, num_sub(num_mul(force, num(p[MCC_POWER], NUM_PY)),
                                         num(0.0025 * cosine, NUM_PY)));
    Num max_speed = num(p[MCC_MAX_SPEED], NUM_PY), min_speed = num(-p[MCC_MAX_SPEED], NUM_PY);
    if (num_less(max_speed, velocity))
        velocity = max_speed;
    if (num_less(velocity, min_speed))
        velocity = min_speed;
    position = num_add(position, velocity);
    Num max_position = num(p[MCC_MAX_POSITION], NUM_PY),
        min_position = num(p[MCC_MIN_POSITION], NUM_PY);
    if (num_less(max_position, position))
        position = max_position;
    if (num_less(position, min_position))
        position = min_position;
    if (num_equal(position, min_position) && num_less(velocity, num(0.0, NUM_PY)))
        velocity = num(0.0, NUM_PY);
    int terminated = !num_less(position, num(p[MCC_GOAL_POSITION], NUM_PY)) &&
                     !num_less(velocity, num(p[MCC_GOAL_VELOCITY], NUM_PY));
    /* reward = 100.0 if terminated else 0; reward -= math.pow(action[0], 2) * 0.1 */
    *reward = (terminated ? 100.0 : 0.0) - GYM_SQUARE(action) * 0.1;
    /* self.state = np.array([position, velocity], dtype=np.float32) */
    at->x[0] = gym_float32(position.v);
    at->x[1] = gym_float32(velocity.v);
    at->type[0] = at->type[1] = NUM_F32;
    return terminated;
}

/* Python's min(max(x, lo), hi) of floats (no NaN here). */
static inline double
robot_clip(double x, double lo, double hi)
{
    double y = lo > x ? lo : x;
    return hi < y ? hi : y;
}

/* point_robot.py's _entry_time(x, y, dx, dy, (cx, cy), radius). */
static double
robot_entry_time(double x, double y, double dx, double dy, double cx, double cy, double radius)
{
    double fx = x - cx, fy = y - cy;
    double a = dx * dx + dy * dy;
    double c = fx * fx + fy * fy - radius * radius;
    if (c <= 0.0)
        return 0.0;
    if (a == 0.0)
        return INFINITY;
    double b = fx * dx + fy * dy;
    double discriminant = b * b - a * c;
    if (discriminant < 0.0)
        return INFINITY;
    double entry = (-b - sqrt(discriminant)) / a;
    return 0.0 <= entry && entry <= 1.0 ? entry : INFINITY;
}

static int
point_robot_step(GymRollout *t, Position *at, const double *action, double *reward)
{
    /* PointRobotEnv.step; (x, y) in at->x[0..1], their distance to the goal in at->x[2]
     * (_goal_distance's, kept from the step before); -1 with an exception (from math.hypot) */
    const double *p = t->p;
    if (at->terminated) {
        *reward = 0.0;
        return 1;
    }
    double x = at->x[0], y = at->x[1], arena = p[RB_ARENA_SIZE];
    double vx = robot_clip(action[0], -1.0, 1.0), vy = robot_clip(action[1], -1.0, 1.0);
    double new_x = robot_clip(x + p[RB_STEP_LENGTH] * vx, 0.0, arena);
    double new_y = robot_clip(y + p[RB_STEP_LENGTH] * vy, 0.0, arena);
    double dx = new_x - x, dy = new_y - y;
    double crash_t = robot_entry_time(x, y, dx, dy, p[RB_OBSTACLE_X], p[RB_OBSTACLE_Y],
                                      p[RB_OBSTACLE_RADIUS]);
    double goal_t = robot_entry_time(x, y, dx, dy, p[RB_GOAL_X], p[RB_GOAL_Y], p[RB_GOAL_RADIUS]);
    int crashed = crash_t <= goal_t && crash_t <= 1.0;
    int reached_goal = !crashed && goal_t <= 1.0;
    if (crashed || reached_goal) { /* stop where the segment enters the disc */
        double entry = crashed ? crash_t : goal_t;
        new_x = robot_clip(x + entry * dx, 0.0, arena);
        new_y = robot_clip(y + entry * dy, 0.0, arena);
    }
    double distance;
    if (robot_goal_distance(t, new_x, new_y, &distance) < 0)
        return -1;
    *reward = at->x[2] - distance;
    if (crashed)
        *reward += p[RB_CRASH_REWARD];
    else if (reached_goal)
        *reward += p[RB_GOAL_REWARD];
    at->x[0] = new_x;
    at->x[1] = new_y;
    at->x[2] = distance;
    at->terminated = crashed || reached_goal;
    return at->terminated;
}

/* The sampled kinds' steps: each moves *at by the action (its GYM_DIMENSIONS numbers), sets
 * *reward and returns 1 if the episode terminated, 0 if not, -1 with an exception. */
static int (*const gym_sampled_steps[])(GymRollout *, Position *, const double *, double *) = {
    pendulum_step, mountain_car_continuous_step, point_robot_step};

/* A sampled action: _Numbers.draw of a float32 Box, its numbers drawn in order into action. */
static inline void
gym_draw(const GymRollout *t, double (*random)(void *), void *rng, double *action)
{
    for (int i = 0; i < GYM_DIMENSIONS(t->kind); i++) {
        const double *p = &t->p[DRAW_COUNT * i];
        double x = p[DRAW_LOW] + p[DRAW_SPAN] * random(rng);
        action[i] = gym_float32(p[DRAW_HIGH] < x ? p[DRAW_HIGH] : x);
    }
}

/* GymnasiumModel._sampled_moves's loop from *at; the return into *g; 0, or -1 with an
 * exception. */
static int
gym_sampled_rollout(GymRollout *t, Position *at, double (*random)(void *), void *rng,
                    long long moves_left, double gamma, double *g)
{
    int (*step)(GymRollout *, Position *, const double *, double *) =
        gym_sampled_steps[t->kind - GYM_PENDULUM];
    double total = 0.0, coef = 1.0, action[2] = {0.0, 0.0};
    long long repeats = 0; /* "repeated": the action played for how many more steps */
    for (;;) {
        double reward;
        if (!t->repeated)
            gym_draw(t, random, rng, action);
        else {
            if (repeats == 0) { /* every sampled action stays legal */
                gym_draw(t, random, rng, action);
                repeats = (long long)(1.0 / (1.0 - random(rng)));
            }
            repeats -= 1;
        }
        int terminated = step(t, at, action, &reward);
        if (terminated < 0)
            return -1;
        total += coef * reward;
        moves_left -= 1;
        if (terminated || moves_left <= 0)
            break;
        coef *= gamma;
    }
    *g = total;
    return 0;
}

static int
gym_rollout(NativeRollout *self, PyObject *state, double (*random)(void *), void *rng,
            long long limit, double gamma, double *g)
{
    /* GymnasiumModel.rollout's loop */
    GymRollout *t = (GymRollout *)self;
    PyObject *snapshot;
    long long moves_left;
    int32_t first[GYM_MAX_ACTIONS];
    Py_ssize_t count;
    Position at;
    if (gym_position(t, state, limit, &snapshot, &moves_left, first, &count) < 0 ||
        gym_read_position(t, snapshot, &at) < 0)
        return -1;
    if (GYM_SAMPLED(t->kind))
        return gym_sampled_rollout(t, &at, random, rng, moves_left, gamma, g);
    int (*step)(GymRollout *, Position *, int32_t, double *, const int32_t **, Py_ssize_t *) =
        gym_steps[t->kind];
    const int32_t *legal = first;
    double total = 0.0, coef = 1.0;
    int32_t k = -1;         /* "repeated": the action played */
    long long repeats = 0;  /* and for how many more steps */
    for (;;) {
        double reward;
        if (!t->repeated)
            k = legal[(Py_ssize_t)(random(rng) * (double)count)];
        else {
            int is_legal = 0;
            for (Py_ssize_t i = 0; i < count && !is_legal; i++)
                is_legal = legal[i] == k;
            if (repeats == 0 || !is_legal) {
                k = legal[(Py_ssize_t)(random(rng) * (double)count)];
                repeats = (long long)(1.0 / (1.0 - random(rng)));
            }
            repeats -= 1;
        }
        int terminated = step(t, &at, k, &reward, &legal, &count);
        total += coef * reward;
        moves_left -= 1;
        if (terminated || moves_left <= 0 || count == 0)
            break;
        coef *= gamma;
    }
    *g = total;
    return 0;
}

static void
gym_free(PyObject *capsule)
{
    GymRollout *t = PyCapsule_GetPointer(capsule, NATIVE_ROLLOUT_NAME);
    if (t == NULL) {
        PyErr_Clear();
        return;
    }
    Py_XDECREF(t->action_index);
    Py_XDECREF(t->hypot);
    PyMem_Free(t->next);
    PyMem_Free(t->reward);
    PyMem_Free(t->terminated);
    PyMem_Free(t->legal_first);
    PyMem_Free(t->legal);
    PyMem_Free(t);
}

/* Reads the table (next, reward, terminated, legal) into t; 0, or -1 with an exception. */
static int
gym_read_table(GymRollout *t, PyObject *table)
{
    PyObject *next, *reward, *terminated, *legal;
    if (!PyTuple_Check(table) ||
        !PyArg_UnpackTuple(table, "table", 4, 4, &next, &reward, &terminated, &legal))
        return -1;
    if (!PyList_CheckExact(next) || !PyList_CheckExact(reward) ||
        !PyList_CheckExact(terminated) || !PyList_CheckExact(legal) ||
        PyList_GET_SIZE(legal) == 0 ||
        PyList_GET_SIZE(next) != PyList_GET_SIZE(legal) * t->actions ||
        PyList_GET_SIZE(reward) != PyList_GET_SIZE(next) ||
        PyList_GET_SIZE(terminated) != PyList_GET_SIZE(next)) {
        PyErr_SetString(PyExc_TypeError, "gym_rollout: the table is (next, reward, terminated, "
                        "legal), lists of cells * actions entries and of one tuple per cell");
        return -1;
    }
    t->cells = PyList_GET_SIZE(legal);
    Py_ssize_t entries = PyList_GET_SIZE(next), legal_count = 0;
    for (Py_ssize_t s = 0; s < t->cells; s++) {
        if (!PyTuple_CheckExact(PyList_GET_ITEM(legal, s))) {
            PyErr_SetString(PyExc_TypeError, "gym_rollout: legal[s] is a tuple of action "
                                             "numbers");
            return -1;
        }
        legal_count += PyTuple_GET_SIZE(PyList_GET_ITEM(legal, s));
    }
    t->next = PyMem_Malloc((size_t)entries * sizeof(int32_t));
    t->reward = PyMem_Malloc((size_t)entries * sizeof(double));
    t->terminated = PyMem_Malloc((size_t)entries);
    t->legal_first = PyMem_Malloc((size_t)(t->cells + 1) * sizeof(Py_ssize_t));
    t->legal = PyMem_Malloc((size_t)(legal_count ? legal_count : 1) * sizeof(int32_t));
    if (t->next == NULL || t->reward == NULL || t->terminated == NULL ||
        t->legal_first == NULL || t->legal == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t e = 0; e < entries; e++) {
        Py_ssize_t cell = PyLong_AsSsize_t(PyList_GET_ITEM(next, e));
        double r = PyFloat_AsDouble(PyList_GET_ITEM(reward, e));
        if (PyErr_Occurred())
            return -1;
        if (cell < 0 || cell >= t->cells || !isfinite(r) ||
            !PyBool_Check(PyList_GET_ITEM(terminated, e))) {
            PyErr_Format(PyExc_ValueError, "gym_rollout: entry %zd of the table is not a cell, "
                         "a finite reward and a bool", e);
            return -1;
        }
        t->next[e] = (int32_t)cell;
        t->reward[e] = r;
        t->terminated[e] = PyList_GET_ITEM(terminated, e) == Py_True;
    }
    Py_ssize_t l = 0;
    for (Py_ssize_t s = 0; s < t->cells; s++) {
        PyObject *allowed = PyList_GET_ITEM(legal, s);
        t->legal_first[s] = l;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(allowed); i++, l++) {
            Py_ssize_t k = PyLong_AsSsize_t(PyTuple_GET_ITEM(allowed, i));
            if (k == -1 && PyErr_Occurred())
                return -1;
            if (k < 0 || k >= t->actions) {
                PyErr_Format(PyExc_ValueError, "gym_rollout: legal[%zd] has %zd, not an action "
                             "number", s, k);
                return -1;
            }
            t->legal[l] = (int32_t)k;
        }
    }
    t->legal_first[t->cells] = l;
    return 0;
}

const char gym_rollout_doc[] =
    "gym_rollout(kind, action_index, push, parameters, table, repeated) -> capsule: the native "
    "rollout of "
    "a deterministic Gymnasium env (GymnasiumModel.rollout; mcts_agent/adapters/gymnasium/"
    "native_rollouts.py makes and checks it).\n\n"
    "``kind``: 'table', 'cartpole', 'mountain_car', 'acrobot' (listed actions), 'pendulum', "
    "'mountain_car_continuous' (sampled actions: a float32 Box of one number) or 'point_robot' "
    "(sampled: a float32 Box of two numbers; the snapshot PointRobotEnv.get_state's). "
    "``action_index``: a dict, the "
    "model's action -> its number k (0 to A - 1, the model's order; A <= 64); None for sampled "
    "actions. ``push``: a tuple "
    "of A floats, by k (CartPole's force, MountainCar's (action - 1) * force, Acrobot's torque; "
    "empty for a table and for sampled actions). ``parameters``: a tuple of floats, the env's "
    "(_gym_rollouts.c's order for the kind, after the Box's low, high - low and high of each "
    "number for sampled actions; empty for a table). ``table``: None, or for 'table' (next, reward, "
    "terminated, legal): lists of the next cell, reward and termination at s * A + k, and "
    "legal[s] the tuple of the k legal after reaching cell s. ``repeated``: a bool, True for "
    "GymnasiumModel(rollout_actions='repeated') (each action drawn repeated for a duration "
    "int(1.0 / (1.0 - random())) drawn after it, while legal), False for uniform draws.";

PyObject *
core_gym_rollout(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("gym_rollout", nargs, 6))
        return NULL;
    const char *name = PyUnicode_Check(args[0]) ? PyUnicode_AsUTF8(args[0]) : NULL;
    int kind = -1;
    for (int i = 0; name != NULL && i < GYM_KINDS; i++)
        if (strcmp(name, gym_kinds[i]) == 0)
            kind = i;
    if (kind < 0) {
        PyErr_Format(PyExc_ValueError, "gym_rollout: kind must be 'table', 'cartpole', "
                     "'mountain_car', 'acrobot', 'pendulum', 'mountain_car_continuous' or "
                     "'point_robot', got %R", args[0]);
        return NULL;
    }
    PyObject *action_index = args[1], *push = args[2], *parameters = args[3], *table = args[4];
    if (!PyBool_Check(args[5])) {
        PyErr_Format(PyExc_TypeError, "gym_rollout: repeated must be a bool, got %R", args[5]);
        return NULL;
    }
    Py_ssize_t actions = PyDict_CheckExact(action_index) ? PyDict_GET_SIZE(action_index) : -1;
    if (GYM_SAMPLED(kind) && (action_index != Py_None || !PyTuple_CheckExact(push) ||
                              PyTuple_GET_SIZE(push) != 0)) {
        PyErr_Format(PyExc_TypeError, "gym_rollout: %s's actions are sampled: action_index "
                     "None and push ()", name);
        return NULL;
    }
    if (GYM_SAMPLED(kind))
        actions = 0;
    else if (actions > GYM_MAX_ACTIONS || !PyTuple_CheckExact(push) ||
             PyTuple_GET_SIZE(push) != (kind == GYM_TABLE ? 0 : actions))
        actions = -1;
    if (actions < 0 || (actions == 0 && !GYM_SAMPLED(kind)) || !PyTuple_CheckExact(parameters) ||
        PyTuple_GET_SIZE(parameters) != gym_parameter_counts[kind] ||
        (kind == GYM_TABLE) == (table == Py_None)) {
        PyErr_Format(PyExc_TypeError, "gym_rollout: a dict of 1 to %d actions, a tuple of a push "
                     "per action (none for a table), a tuple of %zd parameters, a table for "
                     "'table' only", GYM_MAX_ACTIONS, gym_parameter_counts[kind]);
        return NULL;
    }
    GymRollout *t = PyMem_Calloc(1, sizeof(GymRollout));
    if (t == NULL)
        return PyErr_NoMemory();
    t->base.version = NATIVE_ROLLOUT_VERSION;
    t->base.rollout = gym_rollout;
    t->kind = kind;
    t->repeated = args[5] == Py_True;
    t->actions = actions;
    t->action_index = Py_NewRef(action_index); /* None for sampled actions */
    PyObject *capsule = PyCapsule_New(t, NATIVE_ROLLOUT_NAME, gym_free);
    if (capsule == NULL) {
        Py_DECREF(t->action_index);
        PyMem_Free(t);
        return NULL;
    }
    /* from here on the capsule frees t */
    if (kind == GYM_POINT_ROBOT) {
        PyObject *math = PyImport_ImportModule("math");
        t->hypot = math == NULL ? NULL : PyObject_GetAttrString(math, "hypot");
        Py_XDECREF(math);
        if (t->hypot == NULL)
            goto fail;
    }
    Py_ssize_t position = 0;
    PyObject *key, *value;
    int seen[GYM_MAX_ACTIONS] = {0};
    while (actions > 0 && PyDict_Next(action_index, &position, &key, &value)) {
        Py_ssize_t k = PyLong_CheckExact(value) ? PyLong_AsSsize_t(value) : -1;
        if (k < 0 || k >= actions || seen[k]) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "gym_rollout: action_index must number the "
                                              "actions 0 to A - 1, each once");
            goto fail;
        }
        seen[k] = 1;
        t->every[k] = (int32_t)k;
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(push); k++)
        t->push[k] = PyFloat_AsDouble(PyTuple_GET_ITEM(push, k));
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(parameters); i++)
        t->p[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(parameters, i));
    if (PyErr_Occurred())
        goto fail;
    if (kind == GYM_TABLE && gym_read_table(t, table) < 0)
        goto fail;
    return capsule;
fail:
    Py_DECREF(capsule);
    return NULL;
}

const char gym_step_doc[] =
    "gym_step(capsule, snapshot, k) -> (position, reward, terminated): one step of a "
    "gym_rollout capsule's env from ``snapshot`` (a GymnasiumState's) by the action numbered "
    "k (for sampled actions: the action, a tuple of its floats); ``position`` the cell (an "
    "int) or the tuple of the state's floats (the point robot's (x, y)). For the start-up "
    "check, which compares it with the Python step.";

PyObject *
core_gym_step(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (wrong_nargs("gym_step", nargs, 3))
        return NULL;
    GymRollout *t = PyCapsule_GetPointer(args[0], NATIVE_ROLLOUT_NAME);
    if (t == NULL)
        return NULL;
    if (t->base.rollout != gym_rollout || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "gym_step takes a gym_rollout capsule and a snapshot");
        return NULL;
    }
    Position at;
    double reward;
    if (GYM_SAMPLED(t->kind)) {
        /* the action: a tuple of GYM_DIMENSIONS floats (the model's) */
        int dimensions = GYM_DIMENSIONS(t->kind);
        double action[2];
        if (!PyTuple_Check(args[2]) || PyTuple_GET_SIZE(args[2]) != dimensions) {
            PyErr_Format(PyExc_TypeError, "gym_step: %s's action is a tuple of %d float(s), "
                         "got %R", gym_kinds[t->kind], dimensions, args[2]);
            return NULL;
        }
        for (int i = 0; i < dimensions; i++) {
            action[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(args[2], i));
            if (action[i] == -1.0 && PyErr_Occurred())
                return NULL;
        }
        if (gym_read_position(t, args[1], &at) < 0)
            return NULL;
        int ended = gym_sampled_steps[t->kind - GYM_PENDULUM](t, &at, action, &reward);
        if (ended < 0)
            return NULL;
        return Py_BuildValue("((dd)dN)", at.x[0], at.x[1], reward, PyBool_FromLong(ended));
    }
    long k = PyLong_AsLong(args[2]);
    if (k == -1 && PyErr_Occurred())
        return NULL;
    if (k < 0 || k >= t->actions) {
        PyErr_Format(PyExc_ValueError, "gym_step: action number %ld out of 0 to %zd", k,
                     t->actions - 1);
        return NULL;
    }
    if (gym_read_position(t, args[1], &at) < 0)
        return NULL;
    const int32_t *legal;
    Py_ssize_t count;
    int terminated = gym_steps[t->kind](t, &at, (int32_t)k, &reward, &legal, &count);
    PyObject *position;
    if (t->kind == GYM_TABLE)
        position = PyLong_FromSsize_t(at.cell);
    else if (t->kind == GYM_MOUNTAIN_CAR)
        position = Py_BuildValue("(dd)", at.x[0], at.x[1]);
    else
        position = Py_BuildValue("(dddd)", at.x[0], at.x[1], at.x[2], at.x[3]);
    if (position == NULL)
        return NULL;
    return Py_BuildValue("(NdN)", position, reward, PyBool_FromLong(terminated));
}
