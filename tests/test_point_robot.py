"""PointRobot-v0: dynamics, segment checks against the discs, rewards, seeding, cloning, renders."""

from __future__ import annotations

import math
import random

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mcts_agent.envs  # noqa: F401  (registers mcts_agent/PointRobot-v0)
from mcts_agent.envs.point_robot import (
    CRASH_REWARD,
    GOAL,
    GOAL_RADIUS,
    GOAL_REWARD,
    OBSTACLE,
    OBSTACLE_RADIUS,
    PointRobotEnv,
)


def at(x: float, y: float) -> PointRobotEnv:
    """A reset env with the robot put at (x, y)."""
    env = PointRobotEnv()
    env.reset(seed=0)
    env.set_state((x, y, False))
    return env


def goal_distance(x: float, y: float) -> float:
    return math.hypot(x - GOAL[0], y - GOAL[1])


def obstacle_distance(x: float, y: float) -> float:
    return math.hypot(x - OBSTACLE[0], y - OBSTACLE[1])


@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_passes_gymnasium_check_env(render_mode):
    raw = gym.make("mcts_agent/PointRobot-v0", render_mode=render_mode).unwrapped
    assert isinstance(raw, PointRobotEnv)
    check_env(raw, skip_render_check=render_mode is None)


def test_registered_with_a_time_limit_and_box_spaces():
    env = gym.make("mcts_agent/PointRobot-v0")
    assert env.spec.max_episode_steps == 100
    assert env.action_space == gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    assert env.observation_space == gym.spaces.Box(0.0, 10.0, (4,), np.float32)
    observation, info = env.reset(seed=0)
    assert observation.dtype == np.float32 and observation.shape == (4,)
    assert tuple(observation[2:]) == GOAL and info == {}


def test_reset_seed_jitters_the_start_reproducibly():
    env = PointRobotEnv()
    starts = [tuple(env.reset(seed=seed)[0][:2]) for seed in (0, 1, 2, 0)]
    assert starts[0] == starts[3]
    assert len({starts[0], starts[1], starts[2]}) == 3
    for seed in range(50):
        x, y = env.reset(seed=seed)[0][:2]
        assert 0.5 <= x <= 1.5 and 0.5 <= y <= 1.5 and not env.is_terminal()


def test_a_full_speed_diagonal_step_moves_half_root_two():
    env = at(2.0, 1.0)
    observation, reward, terminated, truncated, info = env.step(np.array([1.0, 1.0], np.float32))
    x, y, done = env.get_state()
    assert (x, y, done) == (2.5, 1.5, False)
    assert math.hypot(x - 2.0, y - 1.0) == pytest.approx(0.5 * math.sqrt(2))
    assert reward == pytest.approx(goal_distance(2.0, 1.0) - goal_distance(2.5, 1.5))
    assert not terminated and not truncated
    assert info == {"crashed": False, "reached_goal": False}
    np.testing.assert_array_equal(observation, np.array([2.5, 1.5, 9.0, 9.0], np.float32))


def test_commands_are_clipped_and_the_arena_clips_the_position():
    env = at(9.8, 0.1)
    env.step(np.array([1.0, -1.0], np.float32))
    assert env.get_state() == (10.0, 0.0, False)
    env.step(np.array([1.0, -1.0], np.float32))  # pressed into the corner: no move
    assert env.get_state() == (10.0, 0.0, False)
    env = at(3.0, 1.0)
    _, reward, *_ = env.step(np.array([3.0, -7.0]))  # a command beyond [-1, 1] is clipped
    assert env.get_state() == (3.5, 0.5, False)
    assert reward == pytest.approx(goal_distance(3.0, 1.0) - goal_distance(3.5, 0.5))


def test_a_step_crossing_the_obstacle_edge_crashes_though_both_ends_are_outside():
    # A diagonal step whose segment passes 1.98 from the obstacle's centre (radius 2):
    # the chord inside the disc is shorter than the step, both end points lie outside.
    normal = np.array([1.0, -1.0]) / math.sqrt(2)
    middle = np.array(OBSTACLE) + 1.98 * normal
    start, end = middle - 0.25, middle + 0.25
    assert obstacle_distance(*start) > OBSTACLE_RADIUS
    assert obstacle_distance(*end) > OBSTACLE_RADIUS
    env = at(*start)
    _, reward, terminated, truncated, info = env.step(np.array([1.0, 1.0], np.float32))
    assert terminated and not truncated and info == {"crashed": True, "reached_goal": False}
    x, y, done = env.get_state()
    assert done and env.is_terminal()
    assert obstacle_distance(x, y) == pytest.approx(
        OBSTACLE_RADIUS, abs=1e-9
    )  # stopped on the edge
    assert 0.0 < math.hypot(x - start[0], y - start[1]) < 0.5 * math.sqrt(2)
    assert reward == pytest.approx(goal_distance(*start) - goal_distance(x, y) + CRASH_REWARD)
    # Once ended, the env stays put: reward 0, terminated.
    _, reward, terminated, _, _ = env.step(np.array([1.0, 1.0], np.float32))
    assert (reward, terminated, env.get_state()) == (0.0, True, (x, y, True))


def test_a_step_passing_just_outside_the_obstacle_does_not_crash():
    normal = np.array([1.0, -1.0]) / math.sqrt(2)
    start = np.array(OBSTACLE) + 2.01 * normal - 0.25
    env = at(*start)
    _, _, terminated, _, info = env.step(np.array([1.0, 1.0], np.float32))
    assert not terminated and not info["crashed"]
    assert env.get_state()[:2] == pytest.approx(tuple(start + 0.5))


def test_reaching_the_goal_stops_on_its_edge_with_the_bonus():
    env = at(8.2, 8.2)
    _, reward, terminated, _, info = env.step(np.array([1.0, 1.0], np.float32))
    assert terminated and info == {"crashed": False, "reached_goal": True}
    x, y, done = env.get_state()
    assert done and goal_distance(x, y) == pytest.approx(GOAL_RADIUS, abs=1e-9)
    assert reward == pytest.approx(goal_distance(8.2, 8.2) - GOAL_RADIUS + GOAL_REWARD)


def run_episode(policy, seed: int) -> tuple[float, float, float, dict, int]:
    """Plays ``policy(x, y) -> action`` through the registered env; returns
    (start distance, final distance, return, last info, steps)."""
    env = gym.make("mcts_agent/PointRobot-v0")
    env.reset(seed=seed)
    start = goal_distance(*env.unwrapped.get_state()[:2])  # float64, not the float32 observation
    total, steps, done = 0.0, 0, False
    while not done:
        x, y, _ = env.unwrapped.get_state()
        _, reward, terminated, truncated, info = env.step(policy(x, y))
        total += reward
        steps += 1
        done = terminated or truncated
    x, y, _ = env.unwrapped.get_state()
    return start, goal_distance(x, y), total, info, steps


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rewards_add_up_to_the_progress_plus_the_bonus(seed):
    def detour(x, y):  # along the bottom, then up the right: clear of the obstacle
        return np.array([1.0, 0.0] if x < 9.0 else [0.0, 1.0], np.float32)

    start, final, total, info, steps = run_episode(detour, seed)
    assert info["reached_goal"] and steps < 100
    assert final == pytest.approx(GOAL_RADIUS, abs=1e-9)
    assert total == pytest.approx(start - final + GOAL_REWARD, abs=1e-9)

    def greedy(x, y):  # straight at the goal: through the obstacle
        direction = np.array(GOAL) - (x, y)
        return (direction / np.linalg.norm(direction)).astype(np.float32)

    start, final, total, info, steps = run_episode(greedy, seed)
    assert info["crashed"] and steps < 10
    assert total == pytest.approx(start - final + CRASH_REWARD, abs=1e-9)


def test_get_state_set_state_round_trip():
    env = PointRobotEnv()
    env.reset(seed=5)
    for _ in range(3):
        env.step(np.array([0.3, 0.9], np.float32))
    state = env.get_state()
    assert isinstance(state, tuple) and hash(state) == hash(tuple(state))
    assert [type(v) for v in state] == [float, float, bool]
    other = PointRobotEnv()
    other.reset(seed=99)
    other.set_state(state)
    assert other.get_state() == state
    np.testing.assert_array_equal(other._get_obs(), env._get_obs())
    action = np.array([-0.4, 0.7], np.float32)
    first, second = env.step(action), other.step(action)
    assert first[1:] == second[1:] and env.get_state() == other.get_state()
    assert state != env.get_state()  # the snapshot did not move with the env


def test_bad_input_is_refused():
    env = PointRobotEnv()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2))
    with pytest.raises(RuntimeError, match="reset"):
        env.get_state()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        env.step(np.array([math.nan, 0.0]))
    with pytest.raises(ValueError, match="x, y, terminated"):
        env.set_state((1.0, 2.0))
    with pytest.raises(ValueError, match=r"in \[0, 10.0\]"):
        env.set_state((11.0, 2.0, False))
    with pytest.raises(ValueError, match="render_mode"):
        PointRobotEnv(render_mode="human")


def test_renders():
    env = PointRobotEnv(render_mode="rgb_array")
    env.reset(seed=0)
    env.set_state((1.0, 1.0, False))
    frame = env.render()
    assert frame.shape == (100, 100, 3) and frame.dtype == np.uint8
    assert tuple(frame[50, 50]) == (200, 40, 40)  # the obstacle's centre
    assert tuple(frame[10, 90]) == (40, 170, 60)  # the goal, (9, 9), top right
    assert tuple(frame[90, 10]) == (40, 90, 220)  # the robot, (1, 1), bottom left
    assert tuple(frame[0, 0]) == (235, 235, 235)
    env = PointRobotEnv(render_mode="ansi")
    env.reset(seed=0)
    env.set_state((1.0, 1.0, False))
    lines = env.render().splitlines()
    assert len(lines) == 10 and all(len(line) == 20 for line in lines)
    assert lines[8][2] == "R" and lines[0][18] == "G" and lines[5][10] == "#"
    assert PointRobotEnv().render() is None


def test_gymnasium_model_plans_on_it_through_its_own_methods():
    from mcts_agent.adapters import GymnasiumModel

    env = gym.make("mcts_agent/PointRobot-v0")
    env.reset(seed=0)
    model = GymnasiumModel(env)
    assert model.clone_method == "env_methods"
    assert not callable(getattr(model, "actions", None))
    state = model.state_of(env)
    live = env.unwrapped.get_state()
    result = model.step(state, (1.0, 1.0))
    x, y, _ = live
    assert result.reward == pytest.approx(goal_distance(x, y) - goal_distance(x + 0.5, y + 0.5))
    assert not result.terminated
    assert env.unwrapped.get_state() == live  # the live env did not move
    env_action = model.to_env_action((1.0, 1.0))
    assert env_action.shape == (2,) and env_action.dtype == np.float32
    action = model.sample_action(state, random.Random(0))
    assert len(action) == 2 and all(-1.0 <= v <= 1.0 for v in action)
    assert model.sample_action(state, random.Random(0)) == action
    # is_terminal(): planning from a crashed robot is refused.
    for _ in range(20):
        if env.step(np.array([1.0, 1.0], np.float32))[2]:
            break
    assert env.unwrapped.is_terminal()
    with pytest.raises(ValueError, match="terminated"):
        model.state_of(env)
