"""PointRobot: a 2-D point robot steered to a goal around a disc (a Gymnasium env).

Registered as ``"mcts_agent/PointRobot-v0"`` when :mod:`mcts_agent.envs` is
imported (``max_episode_steps=100``)::

    import gymnasium
    import mcts_agent.envs  # registers the env
    env = gymnasium.make("mcts_agent/PointRobot-v0", render_mode="ansi")
    observation, info = env.reset(seed=0)  # the seed jitters the start

The arena is the square ``[0, 10] x [0, 10]`` (units of length). The robot
starts near ``(1, 1)`` (each coordinate jittered uniformly by up to ``0.5``
from ``np_random`` at reset), the goal is the disc of radius ``0.5`` around
``(9, 9)``, and the obstacle, the disc of radius ``2`` around ``(5, 5)``,
lies straight in the way: the greedy straight line crashes, a plan goes
around it.

============== ==============================================================
Actions        ``Box(-1, 1, (2,), float32)``: a velocity command ``(vx, vy)``
               (clipped to ``[-1, 1]``). A step moves the robot by
               ``STEP_LENGTH * action`` = ``0.5 * action`` units (``max_speed
               * dt`` at full command), then clips the end point to the arena.
Observation    ``Box(0, 10, (4,), float32)``: the robot's position ``x, y``
               and the goal's centre ``x, y``, in units of length.
Rewards        Progress toward the goal, ``previous_distance -
               new_distance`` (distances from the goal's centre), on every
               step: potential-based shaping, which keeps the optimal
               policies of the sparse task (Ng, Harada & Russell, 1999,
               "Policy invariance under reward transformations"). Plus
               ``GOAL_REWARD`` (+10) on reaching the goal and
               ``CRASH_REWARD`` (-10) on entering the obstacle, both of which
               end the episode (``terminated=True``).
Render modes   ``"ansi"`` (a 20 x 10 text grid: ``#`` obstacle, ``G`` the
               goal's centre, ``R`` the robot, ``.`` free) and ``"rgb_array"`` (a 100 x 100 x 3
               uint8 frame, y pointing up).
============== ==============================================================

A step's motion is the straight segment from the old position to the
(clipped) new one, and it is checked against both discs, not only its end
point: a step cannot jump through the obstacle's edge, nor pass through the
goal without reaching it. The robot stops at the first point where the
segment enters either disc (on its edge), so the rewards of an episode add
up to the start's distance to the goal minus the final distance, plus the
bonus that ended it.

The env is deterministic (``step`` draws nothing; only ``reset`` draws), and
plannable through :class:`~mcts_agent.adapters.GymnasiumModel`:
:meth:`PointRobotEnv.get_state` returns the whole position as an immutable
tuple ``(x, y, terminated)``, :meth:`PointRobotEnv.set_state` restores it,
:meth:`PointRobotEnv.is_terminal` tells when the episode has ended.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

__all__ = [
    "ARENA_SIZE",
    "CRASH_REWARD",
    "GOAL",
    "GOAL_RADIUS",
    "GOAL_REWARD",
    "OBSTACLE",
    "OBSTACLE_RADIUS",
    "START",
    "START_JITTER",
    "STEP_LENGTH",
    "PointRobotEnv",
]

ARENA_SIZE = 10.0
"""Side of the square arena ``[0, ARENA_SIZE]^2``, units of length."""
STEP_LENGTH = 0.5
"""Distance moved per step along an axis at full command (``max_speed * dt``)."""
START = (1.0, 1.0)
"""Centre of the start region."""
START_JITTER = 0.5
"""Each start coordinate is ``START[i] + uniform(-START_JITTER, START_JITTER)``."""
GOAL = (9.0, 9.0)
"""Centre of the goal disc."""
GOAL_RADIUS = 0.5
"""Radius of the goal disc: the goal is reached on entering it."""
OBSTACLE = (5.0, 5.0)
"""Centre of the obstacle disc."""
OBSTACLE_RADIUS = 2.0
"""Radius of the obstacle disc: entering it is a crash."""
GOAL_REWARD = 10.0
"""Bonus on reaching the goal (added to the step's progress)."""
CRASH_REWARD = -10.0
"""Penalty on entering the obstacle (added to the step's progress)."""

_OBSERVATION = np.array((0.0, 0.0, GOAL[0], GOAL[1]), dtype=np.float32)  # _get_obs copies it
_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))  # _command reads them directly
_FRAME_PIXELS = 100  # side of an "rgb_array" frame
_TEXT_COLUMNS, _TEXT_ROWS = 20, 10  # the "ansi" grid (text cells are about twice as tall)
_ROBOT_DRAW_RADIUS = 0.25
_BACKGROUND = (235, 235, 235)
_OBSTACLE_COLOUR = (200, 40, 40)
_GOAL_COLOUR = (40, 170, 60)
_ROBOT_COLOUR = (40, 90, 220)


def _entry_time(x: float, y: float, dx: float, dy: float, centre: tuple, radius: float) -> float:
    """The first ``t`` in [0, 1] at which ``(x, y) + t * (dx, dy)`` is in the disc, else inf.

    A point on the edge counts as in. The start point is assumed outside.
    """
    fx, fy = x - centre[0], y - centre[1]
    a = dx * dx + dy * dy
    c = fx * fx + fy * fy - radius * radius
    if c <= 0.0:
        return 0.0
    if a == 0.0:
        return math.inf
    b = fx * dx + fy * dy  # half the linear coefficient of |f + t d|^2 - r^2
    discriminant = b * b - a * c
    if discriminant < 0.0:
        return math.inf
    t = (-b - math.sqrt(discriminant)) / a  # the smaller root: where the segment enters
    return t if 0.0 <= t <= 1.0 else math.inf


class PointRobotEnv(gym.Env[np.ndarray, np.ndarray]):
    """A point robot in a square arena, steered by velocity commands to a goal around a disc.

    See the module docstring for the arena, spaces, rewards and rendering.

    Args:
        render_mode: None, ``"ansi"`` or ``"rgb_array"``.

    Raises:
        ValueError: if ``render_mode`` is not one of those.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 10}

    def __init__(self, render_mode: str | None = None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, ARENA_SIZE, shape=(4,), dtype=np.float32)
        self.action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        self._x = math.nan
        self._y = math.nan
        self._terminated = False

    # ------------------------------------------------------------ Gymnasium

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Puts the robot near ``START`` (jittered from ``np_random``, seeded by ``seed``).

        Args:
            seed: seed of ``np_random``, which draws the start.
            options: unused.

        Returns:
            ``(observation, {})``, the observation float32 of shape ``(4,)``.
        """
        super().reset(seed=seed)
        jitter = self.np_random.uniform(-START_JITTER, START_JITTER, size=2)
        self._x = START[0] + float(jitter[0])
        self._y = START[1] + float(jitter[1])
        self._terminated = False
        return self._get_obs(), {}

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Moves the robot by ``STEP_LENGTH * action``; see the module docstring.

        Args:
            action: array-like of shape ``(2,)``, the velocity command ``(vx,
                vy)``, each clipped to ``[-1, 1]``.

        Returns:
            ``(observation, reward, terminated, truncated=False, info)``:
            observation float32 ``(4,)``; reward the step's progress toward
            the goal (units of length) plus ``GOAL_REWARD`` or
            ``CRASH_REWARD`` when the step ends the episode; ``info`` is
            ``{"crashed": bool, "reached_goal": bool}``. After the episode has
            ended, every step returns reward 0 and ``terminated=True``.

        Raises:
            RuntimeError: if called before ``reset``.
            ValueError: if ``action`` is not of shape ``(2,)`` or not finite.
        """
        if math.isnan(self._x):
            raise RuntimeError("call reset() before step()")
        vx, vy = _command(action)
        if self._terminated:
            return self._get_obs(), 0.0, True, False, {"crashed": False, "reached_goal": False}
        x, y = self._x, self._y
        vx = min(max(vx, -1.0), 1.0)
        vy = min(max(vy, -1.0), 1.0)
        new_x = min(max(x + STEP_LENGTH * vx, 0.0), ARENA_SIZE)
        new_y = min(max(y + STEP_LENGTH * vy, 0.0), ARENA_SIZE)
        dx, dy = new_x - x, new_y - y
        crash_t = _entry_time(x, y, dx, dy, OBSTACLE, OBSTACLE_RADIUS)
        goal_t = _entry_time(x, y, dx, dy, GOAL, GOAL_RADIUS)
        crashed = crash_t <= goal_t and crash_t <= 1.0
        reached_goal = not crashed and goal_t <= 1.0
        if crashed or reached_goal:  # stop where the segment enters the disc
            t = crash_t if crashed else goal_t
            new_x = min(max(x + t * dx, 0.0), ARENA_SIZE)
            new_y = min(max(y + t * dy, 0.0), ARENA_SIZE)
        reward = _goal_distance(x, y) - _goal_distance(new_x, new_y)
        if crashed:
            reward += CRASH_REWARD
        elif reached_goal:
            reward += GOAL_REWARD
        self._x, self._y = new_x, new_y
        self._terminated = crashed or reached_goal
        info = {"crashed": crashed, "reached_goal": reached_goal}
        return self._get_obs(), reward, self._terminated, False, info

    def render(self) -> str | np.ndarray | None:
        """Returns the text (``"ansi"``) or an RGB frame (``"rgb_array"``), else None.

        Returns:
            ``"ansi"``: a string of 10 lines of 20 characters (each a cell of
            0.5 x 1 units, top line the highest y). ``"rgb_array"``: uint8 of
            shape ``(100, 100, 3)``, 10 pixels per unit, top row the highest y.

        Raises:
            RuntimeError: if called before ``reset``.
        """
        if self.render_mode is None:
            return None
        if math.isnan(self._x):
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "ansi":
            xs = (np.arange(_TEXT_COLUMNS) + 0.5) * (ARENA_SIZE / _TEXT_COLUMNS)
            ys = (np.arange(_TEXT_ROWS)[::-1] + 0.5) * (ARENA_SIZE / _TEXT_ROWS)
            grid = np.full((_TEXT_ROWS, _TEXT_COLUMNS), ".")
            grid[self._disc_mask(xs, ys, OBSTACLE, OBSTACLE_RADIUS)] = "#"
            grid[_text_cell(*GOAL)] = "G"
            grid[_text_cell(self._x, self._y)] = "R"
            return "\n".join("".join(line) for line in grid) + "\n"
        centres = (np.arange(_FRAME_PIXELS) + 0.5) * (ARENA_SIZE / _FRAME_PIXELS)
        frame = np.empty((_FRAME_PIXELS, _FRAME_PIXELS, 3), dtype=np.uint8)
        frame[:] = _BACKGROUND
        xs, ys = centres, centres[::-1]
        frame[self._disc_mask(xs, ys, OBSTACLE, OBSTACLE_RADIUS)] = _OBSTACLE_COLOUR
        frame[self._disc_mask(xs, ys, GOAL, GOAL_RADIUS)] = _GOAL_COLOUR
        frame[self._disc_mask(xs, ys, (self._x, self._y), _ROBOT_DRAW_RADIUS)] = _ROBOT_COLOUR
        return frame

    @staticmethod
    def _disc_mask(xs: np.ndarray, ys: np.ndarray, centre: tuple, radius: float) -> np.ndarray:
        """Boolean ``(len(ys), len(xs))``: which grid points lie in the disc."""
        return (xs[None, :] - centre[0]) ** 2 + (ys[:, None] - centre[1]) ** 2 <= radius**2

    # ------------------------------------------------------------- planning

    def is_terminal(self) -> bool:
        """Returns True once the robot has reached the goal or crashed (the episode has ended).

        Raises:
            RuntimeError: if called before ``reset``.
        """
        if math.isnan(self._x):
            raise RuntimeError("call reset() before is_terminal()")
        return self._terminated

    def get_state(self) -> tuple[float, float, bool]:
        """Returns the whole position: ``(x, y, terminated)``, Python floats and a bool.

        Raises:
            RuntimeError: if called before ``reset``.
        """
        if math.isnan(self._x):
            raise RuntimeError("call reset() before get_state()")
        return self._x, self._y, self._terminated

    def set_state(self, state: tuple[float, float, bool]) -> None:
        """Puts the env in a position returned by :meth:`get_state`.

        Args:
            state: ``(x, y, terminated)``, ``x`` and ``y`` in ``[0, ARENA_SIZE]``.

        Raises:
            ValueError: if ``state`` is not such a triple.
        """
        try:
            x, y, terminated = state
        except (TypeError, ValueError):
            raise ValueError(
                f"state must be (x, y, terminated) from get_state(), got {state!r}"
            ) from None
        if not (
            isinstance(terminated, bool)
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y))
            and 0.0 <= x <= ARENA_SIZE
            and 0.0 <= y <= ARENA_SIZE
        ):
            raise ValueError(
                f"state must be (x, y, terminated) with x, y floats in [0, {ARENA_SIZE}] and "
                f"terminated a bool, got {state!r}"
            )
        self._x, self._y, self._terminated = float(x), float(y), terminated

    def _get_obs(self) -> np.ndarray:
        """The observation of the current position (the method name of Gymnasium's envs)."""
        if math.isnan(self._x):
            raise RuntimeError("call reset() first")
        observation = _OBSERVATION.copy()  # the goal's centre; then the position, rounded
        observation[0] = self._x
        observation[1] = self._y
        return observation


def _command(action: Any) -> tuple[float, float]:
    """The velocity command ``(vx, vy)`` of a step's ``action``, as Python floats (float64).

    A float32 or float64 array of shape ``(2,)`` (what planners and the
    ``Box`` pass) is read directly, else through ``np.asarray(action,
    dtype=np.float64)``: the same numbers either way.

    Raises:
        ValueError: if ``action`` is not of shape ``(2,)`` or not finite.
    """
    if type(action) is np.ndarray and action.shape == (2,) and action.dtype in _FLOAT_DTYPES:
        vx, vy = action.tolist()  # exact: a float32 or float64 is a Python float
        if math.isfinite(vx) and math.isfinite(vy):
            return vx, vy
    else:
        command = np.asarray(action, dtype=np.float64)
        if command.shape == (2,) and np.all(np.isfinite(command)):
            return float(command[0]), float(command[1])
    raise ValueError(f"action must be 2 finite numbers (vx, vy), shape (2,), got {action!r}")


def _text_cell(x: float, y: float) -> tuple[int, int]:
    """``(row, column)`` of the ``"ansi"`` grid's cell holding the point ``(x, y)``."""
    column = min(int(x / ARENA_SIZE * _TEXT_COLUMNS), _TEXT_COLUMNS - 1)
    row = min(int(y / ARENA_SIZE * _TEXT_ROWS), _TEXT_ROWS - 1)
    return _TEXT_ROWS - 1 - row, column


def _goal_distance(x: float, y: float) -> float:
    """Euclidean distance from ``(x, y)`` to the goal's centre, units of length."""
    return math.hypot(x - GOAL[0], y - GOAL[1])
