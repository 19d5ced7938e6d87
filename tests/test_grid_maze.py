"""GridMaze-v0: Gymnasium conformance, solvable layouts, rules, masks, rendering, cloning."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mcts_agent.envs  # noqa: F401  (registers mcts_agent/GridMaze-v0)
from mcts_agent.envs.grid_maze import (
    AGENT,
    GOAL,
    TRAP,
    WALL,
    GridMazeEnv,
    MazeLayout,
    shortest_path,
)

MOVES = {0: (-1, 0), 1: (0, 1), 2: (1, 0), 3: (0, -1)}  # up, right, down, left


def action_between(size: int, cell: int, neighbour: int) -> int:
    return next(a for a, (dr, dc) in MOVES.items() if cell + dr * size + dc == neighbour)


@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_passes_gymnasium_check_env(render_mode):
    raw = gym.make("mcts_agent/GridMaze-v0", render_mode=render_mode).unwrapped  # has a spec
    assert isinstance(raw, GridMazeEnv)
    check_env(raw, skip_render_check=render_mode is None)


def test_registered_with_a_time_limit():
    env = gym.make("mcts_agent/GridMaze-v0", size=7)
    assert isinstance(env.unwrapped, GridMazeEnv) and env.unwrapped.size == 7
    assert env.spec.max_episode_steps == 200
    observation, info = env.reset(seed=0)
    assert observation.shape == (7, 7) and info["action_mask"].dtype == np.int8


@pytest.mark.parametrize(
    ("size", "num_traps", "loop_fraction"),
    [(5, 3, 0.0), (9, 4, 0.2), (11, 30, 0.0), (15, 60, 0.5)],
)
def test_every_layout_is_solvable_without_touching_a_trap(size, num_traps, loop_fraction):
    env = GridMazeEnv(size=size, num_traps=num_traps, loop_fraction=loop_fraction)
    for seed in range(60):
        env.reset(seed=seed)
        layout = env.layout
        cells = np.frombuffer(layout.cells, dtype=np.uint8)
        assert cells[layout.goal] == GOAL and list(cells).count(GOAL) == 1
        assert layout.start != layout.goal and cells[layout.start] not in (WALL, TRAP)
        path = shortest_path(layout, layout.start, layout.goal, avoid_traps=True)
        assert path[0] == layout.start and path[-1] == layout.goal
        assert all(cells[cell] not in (WALL, TRAP) for cell in path[:-1])
        # Outer walls all round: no move can leave the grid.
        grid = cells.reshape(size, size)
        assert (grid[0] == WALL).all() and (grid[-1] == WALL).all()
        assert (grid[:, 0] == WALL).all() and (grid[:, -1] == WALL).all()


def test_the_seed_picks_the_layout():
    env = GridMazeEnv()
    layouts = []
    for seed in (0, 1, 2, 0):
        env.reset(seed=seed)
        layouts.append(env.layout)
    assert layouts[0] == layouts[3]
    assert len({layouts[0], layouts[1], layouts[2]}) == 3


def test_masks_walls_and_step_costs():
    env = GridMazeEnv(step_cost=0.01)
    env.reset(seed=4)
    layout = env.layout
    cells, size = layout.cells, layout.size
    for cell in range(size * size):
        if cells[cell] == WALL:
            continue
        expected = [int(cells[cell + dr * size + dc] != WALL) for dr, dc in MOVES.values()]
        env.set_state((layout, cell))
        assert env.action_mask().tolist() == expected
    # Into a wall: the agent stays and pays the step cost.
    start = layout.start
    env.set_state((layout, start))
    blocked = env.action_mask().tolist().index(0)  # maze 4's start has a wall on some side
    observation, reward, terminated, truncated, info = env.step(blocked)
    assert env.agent_cell == start and reward == -0.01 and not terminated
    assert observation.ravel()[start] == AGENT and info["action_mask"][blocked] == 0


def test_a_trap_ends_the_episode_with_its_penalty():
    env = GridMazeEnv(step_cost=0.01, trap_penalty=1.0)
    env.reset(seed=0)
    layout = env.layout
    cells, size = layout.cells, layout.size
    trap = cells.index(TRAP)
    neighbour = next(
        trap - dr * size - dc for dr, dc in MOVES.values() if cells[trap - dr * size - dc] != WALL
    )
    env.set_state((layout, neighbour))
    assert not env.is_terminal()
    _, reward, terminated, truncated, _ = env.step(action_between(size, neighbour, trap))
    assert reward == pytest.approx(-1.01) and terminated and not truncated
    assert env.is_terminal()
    _, reward, terminated, _, _ = env.step(0)  # after the end: nothing more happens
    assert reward == 0.0 and terminated and env.agent_cell == trap


def test_the_shortest_path_reaches_the_goal_for_its_reward_less_step_costs():
    env = GridMazeEnv(step_cost=0.01, goal_reward=1.0)
    env.reset(seed=7)
    layout = env.layout
    path = shortest_path(layout, layout.start, layout.goal, avoid_traps=True)
    total = 0.0
    for cell, neighbour in zip(path, path[1:], strict=False):
        _, reward, terminated, _, info = env.step(action_between(layout.size, cell, neighbour))
        total += reward
        assert terminated == (neighbour == layout.goal) == env.is_terminal()
    assert total == pytest.approx(1.0 - 0.01 * (len(path) - 1))


def test_render_modes():
    env = GridMazeEnv(render_mode="ansi", size=7)
    observation, _ = env.reset(seed=1)
    text = env.render()
    rows = text.splitlines()
    assert len(rows) == 7 and all(len(row) == 7 for row in rows)
    assert text.count("A") == 1 and text.count("G") == 1
    symbols = {0: ".", 1: "#", 2: "x", 3: "G", 4: "A"}
    assert rows == ["".join(symbols[int(c)] for c in row) for row in observation]
    frames = GridMazeEnv(render_mode="rgb_array", size=7, cell_pixels=4)
    frames.reset(seed=1)
    frame = frames.render()
    assert frame.shape == (28, 28, 3) and frame.dtype == np.uint8
    row, column = divmod(frames.agent_cell, 7)
    agent_pixel = frame[row * 4 + 2, column * 4 + 2]
    wall_pixel = frame[0, 0]
    assert not np.array_equal(agent_pixel, wall_pixel)
    assert GridMazeEnv().render() is None


def test_get_state_and_set_state_round_trip():
    env = GridMazeEnv()
    env.reset(seed=2)
    saved = env.get_state()
    observation = env.step(int(np.flatnonzero(env.action_mask())[0]))[0]
    assert env.get_state() != saved
    env.set_state(saved)
    assert env.get_state() == saved
    again = env.step(int(np.flatnonzero(env.action_mask())[0]))[0]
    np.testing.assert_array_equal(observation, again)
    with pytest.raises(ValueError, match="MazeLayout"):
        env.set_state(("layout", 3))
    with pytest.raises(ValueError, match="not a free cell"):
        env.set_state((saved[0], 0))  # the corner is a wall
    assert isinstance(saved[0], MazeLayout)


def test_bad_arguments_and_early_calls_are_refused():
    with pytest.raises(ValueError, match="odd int"):
        GridMazeEnv(size=8)
    with pytest.raises(ValueError, match="render_mode"):
        GridMazeEnv(render_mode="human")
    with pytest.raises(ValueError, match="num_traps"):
        GridMazeEnv(num_traps=-1)
    env = GridMazeEnv()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        env.is_terminal()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(4)
