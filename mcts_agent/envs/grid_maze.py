"""GridMaze: a deterministic, procedurally generated grid maze (a Gymnasium env).

Registered as ``"mcts_agent/GridMaze-v0"`` when :mod:`mcts_agent.envs` is
imported (``max_episode_steps=200``)::

    import gymnasium
    import mcts_agent.envs  # registers the env
    env = gymnasium.make("mcts_agent/GridMaze-v0", render_mode="ansi")
    observation, info = env.reset(seed=3)   # the seed picks the layout

Without the import, name the module in the id (Gymnasium 1.x has no plugin
entry points): ``gymnasium.make("mcts_agent.envs:mcts_agent/GridMaze-v0")``.

The grid is ``size x size`` cells, walls all round. ``reset(seed=...)``
carves a maze (a randomised depth-first search over the cells of odd row and
column, Buck, 2015, "Mazes for Programmers", ch. 8), knocks down a few more
walls to make loops, puts the start and the goal far apart, and scatters
traps off one shortest path from start to goal, so the goal can always be
reached without touching a trap.

============== ==============================================================
Actions        ``Discrete(4)``: 0 up, 1 right, 2 down, 3 left. Moving into a
               wall leaves the agent where it is (and costs a step).
Action mask    ``info["action_mask"]``, int8 of shape ``[4]``, 1 where the
               neighbouring cell is not a wall; also :meth:`GridMazeEnv.action_mask`.
Observation    ``Box(0, 4, (size, size), uint8)``, the grid row by row: 0
               floor, 1 wall, 2 trap, 3 goal, 4 the agent.
Rewards        ``-step_cost`` per step; ``goal_reward`` on reaching the goal
               and ``-trap_penalty`` on stepping on a trap, both of which end
               the episode (``terminated=True``).
Render modes   ``"ansi"`` (text: ``#`` wall, ``.`` floor, ``x`` trap, ``G``
               goal, ``A`` agent) and ``"rgb_array"`` (``cell_pixels`` per cell).
============== ==============================================================

It is the worked example of an env made plannable by
:class:`~mcts_agent.adapters.GymnasiumModel`: it is deterministic, and its
whole position is the immutable :class:`MazeLayout` plus the agent's cell,
which :meth:`GridMazeEnv.get_state` returns and :meth:`GridMazeEnv.set_state`
restores; :meth:`GridMazeEnv.is_terminal` tells when the episode is over.
"""

from __future__ import annotations

from collections import deque
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium import spaces

__all__ = ["AGENT", "FLOOR", "GOAL", "TRAP", "WALL", "GridMazeEnv", "MazeLayout", "shortest_path"]

FLOOR, WALL, TRAP, GOAL, AGENT = 0, 1, 2, 3, 4
"""Cell codes of the observation (``AGENT`` only marks the agent's cell)."""

_MOVES = ((-1, 0), (0, 1), (1, 0), (0, -1))  # up, right, down, left, as (row, column)
_SYMBOLS = {FLOOR: ".", WALL: "#", TRAP: "x", GOAL: "G", AGENT: "A"}
_COLOURS = np.array(
    [
        (235, 235, 235),  # floor
        (40, 40, 60),  # wall
        (200, 40, 40),  # trap
        (40, 170, 60),  # goal
        (40, 90, 220),  # agent
    ],
    dtype=np.uint8,
)


class MazeLayout(NamedTuple):
    """One maze, immutable (shared by every snapshot of an episode).

    Attributes:
        size: int, rows = columns of the grid.
        cells: bytes of length ``size * size``, the cell codes row by row
            (``FLOOR``, ``WALL``, ``TRAP``, ``GOAL``).
        start: int, the start cell (``row * size + column``).
        goal: int, the goal cell.
        masks: tuple of ``size * size`` 4-tuples of ints, the action mask of
            each cell (1 where the neighbour is not a wall).
    """

    size: int
    cells: bytes
    start: int
    goal: int
    masks: tuple


class GridMazeEnv(gym.Env[np.ndarray, int]):
    """A deterministic grid maze with walls, traps, a goal and a cost per step.

    See the module docstring for the spaces, rewards and rendering.

    Args:
        render_mode: None, ``"ansi"`` or ``"rgb_array"``.
        size: int, odd, >= 5: the grid's rows and columns, outer walls included.
        num_traps: int >= 0, traps per maze (fewer if the maze has too few
            cells off the start-goal path).
        loop_fraction: float in [0, 1], the share of the remaining inner walls
            between two corridors knocked down to make loops.
        step_cost: float >= 0, paid on every step. Keep ``step_cost *
            max_episode_steps`` below ``trap_penalty``, so that a trap is
            always worse than running out of time (else a planner that cannot
            find the goal may rightly prefer the trap).
        trap_penalty: float >= 0, paid on stepping on a trap.
        goal_reward: float, received on reaching the goal.
        cell_pixels: int >= 1, side of one cell in ``"rgb_array"`` frames.

    Raises:
        ValueError: if an argument is out of range.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        size: int = 9,
        num_traps: int = 4,
        loop_fraction: float = 0.2,
        step_cost: float = 0.002,
        trap_penalty: float = 1.0,
        goal_reward: float = 1.0,
        cell_pixels: int = 16,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        if isinstance(size, bool) or not isinstance(size, int) or size < 5 or size % 2 == 0:
            raise ValueError(f"size must be an odd int >= 5, got {size!r}")
        if isinstance(num_traps, bool) or not isinstance(num_traps, int) or num_traps < 0:
            raise ValueError(f"num_traps must be an int >= 0, got {num_traps!r}")
        if not 0.0 <= loop_fraction <= 1.0:
            raise ValueError(f"loop_fraction must be in [0, 1], got {loop_fraction!r}")
        if step_cost < 0 or trap_penalty < 0:
            raise ValueError(
                f"step_cost and trap_penalty must be >= 0, got {step_cost!r} and {trap_penalty!r}"
            )
        if isinstance(cell_pixels, bool) or not isinstance(cell_pixels, int) or cell_pixels < 1:
            raise ValueError(f"cell_pixels must be an int >= 1, got {cell_pixels!r}")
        self.render_mode = render_mode
        self.size = size
        self.num_traps = num_traps
        self.loop_fraction = float(loop_fraction)
        self.step_cost = float(step_cost)
        self.trap_penalty = float(trap_penalty)
        self.goal_reward = float(goal_reward)
        self.cell_pixels = cell_pixels
        self.observation_space = spaces.Box(0, AGENT, shape=(size, size), dtype=np.uint8)
        self.action_space = spaces.Discrete(4)
        self._offsets = tuple(dr * size + dc for dr, dc in _MOVES)
        self._layout: MazeLayout | None = None
        self._position = -1

    # ------------------------------------------------------------ Gymnasium

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Draws a new maze (from ``seed`` if given) and puts the agent on its start.

        Args:
            seed: seed of ``np_random``, which picks the layout.
            options: unused.

        Returns:
            ``(observation, {"action_mask": mask})``.
        """
        super().reset(seed=seed)
        self._layout = _generate(self.np_random, self.size, self.num_traps, self.loop_fraction)
        self._position = self._layout.start
        return self._get_obs(), {"action_mask": self.action_mask()}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Moves the agent one cell (a wall stops it); see the module docstring.

        Args:
            action: int in [0, 4): up, right, down, left.

        Returns:
            ``(observation, reward, terminated, truncated=False, info)`` with
            ``info["action_mask"]`` of the new position. After the episode has
            ended, every step returns reward 0 and ``terminated=True``.

        Raises:
            RuntimeError: if called before ``reset``.
            ValueError: if ``action`` is not in the action space.
        """
        layout = self._layout
        if layout is None:
            raise RuntimeError("call reset() before step()")
        if not 0 <= action < 4:
            raise ValueError(f"action must be an int in [0, 4), got {action!r}")
        cells = layout.cells
        position = self._position
        if cells[position] in (GOAL, TRAP):
            return self._get_obs(), 0.0, True, False, {"action_mask": self.action_mask()}
        target = position + self._offsets[action]
        if cells[target] != WALL:
            position = self._position = target
        code = cells[position]
        if code == GOAL:
            reward, terminated = self.goal_reward - self.step_cost, True
        elif code == TRAP:
            reward, terminated = -self.trap_penalty - self.step_cost, True
        else:
            reward, terminated = -self.step_cost, False
        return (
            self._get_obs(),
            reward,
            terminated,
            False,
            {"action_mask": np.array(layout.masks[position], dtype=np.int8)},
        )

    def render(self) -> str | np.ndarray | None:
        """Returns the text (``"ansi"``) or an RGB frame (``"rgb_array"``), else None.

        Raises:
            RuntimeError: if called before ``reset``.
        """
        if self.render_mode is None:
            return None
        grid = self._get_obs()
        if self.render_mode == "ansi":
            return "\n".join("".join(_SYMBOLS[int(code)] for code in row) for row in grid) + "\n"
        pixels = self.cell_pixels
        return np.repeat(np.repeat(_COLOURS[grid], pixels, axis=0), pixels, axis=1)

    # ------------------------------------------------------------- planning

    def action_mask(self) -> np.ndarray:
        """Returns the action mask of the agent's cell: int8 ``[4]``, 1 = no wall that way.

        Raises:
            RuntimeError: if called before ``reset``.
        """
        if self._layout is None:
            raise RuntimeError("call reset() before action_mask()")
        return np.array(self._layout.masks[self._position], dtype=np.int8)

    def is_terminal(self) -> bool:
        """Returns True once the agent is on the goal or a trap (the episode has terminated).

        Raises:
            RuntimeError: if called before ``reset``.
        """
        if self._layout is None:
            raise RuntimeError("call reset() before is_terminal()")
        return self._layout.cells[self._position] in (GOAL, TRAP)

    def get_state(self) -> tuple[MazeLayout, int]:
        """Returns the whole position: ``(layout, agent_cell)``, immutable.

        Raises:
            RuntimeError: if called before ``reset``.
        """
        if self._layout is None:
            raise RuntimeError("call reset() before get_state()")
        return self._layout, self._position

    def set_state(self, state: tuple[MazeLayout, int]) -> None:
        """Puts the env in a position returned by :meth:`get_state`.

        Args:
            state: ``(layout, agent_cell)``.

        Raises:
            ValueError: if ``state`` is not such a pair for this env's size.
        """
        layout, position = state
        if not isinstance(layout, MazeLayout) or layout.size != self.size:
            raise ValueError(
                f"state must be (MazeLayout of size {self.size}, cell) from get_state(), "
                f"got {state!r}"
            )
        if not 0 <= position < self.size * self.size or layout.cells[position] == WALL:
            raise ValueError(f"cell {position!r} is not a free cell of the layout")
        self._layout = layout
        self._position = position

    @property
    def layout(self) -> MazeLayout | None:
        """The current maze (None before the first ``reset``)."""
        return self._layout

    @property
    def agent_cell(self) -> int:
        """The agent's cell, ``row * size + column`` (-1 before the first ``reset``)."""
        return self._position

    def _get_obs(self) -> np.ndarray:
        """The observation of the current position (the method name of Gymnasium's envs)."""
        if self._layout is None:
            raise RuntimeError("call reset() first")
        grid = np.frombuffer(self._layout.cells, dtype=np.uint8).copy()
        grid[self._position] = AGENT
        return grid.reshape(self.size, self.size)


def shortest_path(layout: MazeLayout, source: int, target: int, *, avoid_traps: bool) -> list[int]:
    """Returns a shortest list of cells from ``source`` to ``target`` (both included).

    Breadth-first search over the cells that are not walls (nor traps, if
    ``avoid_traps``); moves go up, right, down and left, in that order.

    Args:
        layout: the maze.
        source: the first cell.
        target: the last cell.
        avoid_traps: if True, paths may not cross a trap (``target`` excepted).

    Returns:
        The cells of the path; an empty list if ``target`` cannot be reached.
    """
    size, cells = layout.size, layout.cells
    blocked = {WALL, TRAP} if avoid_traps else {WALL}
    previous = {source: source}
    queue = deque([source])
    while queue:
        cell = queue.popleft()
        if cell == target:
            path = [cell]
            while cell != source:
                cell = previous[cell]
                path.append(cell)
            return path[::-1]
        for dr, dc in _MOVES:
            neighbour = cell + dr * size + dc
            if neighbour not in previous and (
                neighbour == target or cells[neighbour] not in blocked
            ):
                previous[neighbour] = cell
                queue.append(neighbour)
    return []


def _generate(
    rng: np.random.Generator, size: int, num_traps: int, loop_fraction: float
) -> MazeLayout:
    """Carves a maze with ``rng``: start and goal far apart, traps off a shortest path."""
    grid = np.full((size, size), WALL, dtype=np.uint8)
    rooms = [(r, c) for r in range(1, size, 2) for c in range(1, size, 2)]
    first = rooms[int(rng.integers(len(rooms)))]
    grid[first] = FLOOR
    stack = [first]
    while stack:  # randomised depth-first search (recursive backtracker)
        r, c = stack[-1]
        unvisited = [
            (r + 2 * dr, c + 2 * dc)
            for dr, dc in _MOVES
            if 0 < r + 2 * dr < size and 0 < c + 2 * dc < size and grid[r + 2 * dr, c + 2 * dc]
        ]
        if not unvisited:
            stack.pop()
            continue
        nr, nc = unvisited[int(rng.integers(len(unvisited)))]
        grid[(r + nr) // 2, (c + nc) // 2] = FLOOR
        grid[nr, nc] = FLOOR
        stack.append((nr, nc))
    inner_walls = [
        (r, c)
        for r in range(1, size - 1)
        for c in range(1, size - 1)
        if grid[r, c] == WALL and (r % 2) != (c % 2)
    ]
    for index in rng.permutation(len(inner_walls))[: round(loop_fraction * len(inner_walls))]:
        grid[inner_walls[int(index)]] = FLOOR

    cells = grid.ravel()
    free = [int(i) for i in np.flatnonzero(cells == FLOOR)]
    start = free[int(rng.integers(len(free)))]
    bare = _layout(size, cells, start, start)
    distances = _distances(bare, start)
    far = max(distances.values())
    goal_candidates = [cell for cell in free if 2 * distances[cell] >= far and cell != start]
    goal = goal_candidates[int(rng.integers(len(goal_candidates)))]
    cells[goal] = GOAL
    path = set(shortest_path(bare, start, goal, avoid_traps=False))
    off_path = [cell for cell in free if cell not in path]
    for index in rng.permutation(len(off_path))[:num_traps]:
        cells[off_path[int(index)]] = TRAP
    return _layout(size, cells, start, goal)


def _distances(layout: MazeLayout, source: int) -> dict[int, int]:
    """Steps from ``source`` to every reachable cell (breadth-first, walls block)."""
    size, cells = layout.size, layout.cells
    distances = {source: 0}
    queue = deque([source])
    while queue:
        cell = queue.popleft()
        for dr, dc in _MOVES:
            neighbour = cell + dr * size + dc
            if neighbour not in distances and cells[neighbour] != WALL:
                distances[neighbour] = distances[cell] + 1
                queue.append(neighbour)
    return distances


def _layout(size: int, cells: np.ndarray, start: int, goal: int) -> MazeLayout:
    masks = tuple(
        (0, 0, 0, 0)
        if cells[cell] == WALL
        else tuple(int(cells[cell + dr * size + dc] != WALL) for dr, dc in _MOVES)
        for cell in range(size * size)
    )
    return MazeLayout(size, cells.tobytes(), start, goal, masks)
