"""benchmarks/gymnasium_suite.py's own pieces: optima, the interval, success rules and targets.

Not the agent's strength: no episode of the agent is played here.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import mcts_agent.envs  # noqa: F401 (registers mcts_agent/PointRobot-v0)
from mcts_agent.evaluation.planning import GOALS, EpisodeRecord, PlanResult, plan_episodes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import gymnasium_suite as suite  # noqa: E402
from exact_values import finite_horizon_values, start_value  # noqa: E402


def records(returns, successes=None):
    successes = successes or [None] * len(returns)
    return tuple(
        EpisodeRecord(i, (i, i), float(g), 1, s, 0.1)
        for i, (g, s) in enumerate(zip(returns, successes, strict=True))
    )


def result(returns, successes=None):
    return PlanResult("env", None, records(returns, successes))


@pytest.mark.parametrize(
    "name, expected",
    [
        ("FrozenLake-v1-4x4", "0.744"),  # 0.74419 at 100 steps
        ("FrozenLake-v1-8x8", "0.913"),  # 0.91322 at 200 steps
        ("CliffWalking-v1", "-13.00"),
        ("Taxi-v4", "7.93"),  # the mean over Taxi's 300 starts
    ],
)
def test_value_iteration_optimum_of_each_toy_text_case(name, expected):
    assert suite.optimum(suite.CASES[name]) == expected


def test_value_iteration_frozen_lake_figures():
    four = gym.make("FrozenLake-v1", is_slippery=True, map_name="4x4")
    eight = gym.make("FrozenLake-v1", is_slippery=True, map_name="8x8")
    assert start_value(four, 100) == pytest.approx(0.744190, abs=1e-6)
    assert start_value(eight, 200) == pytest.approx(0.913220, abs=1e-6)
    assert start_value(four, 100, "random") == pytest.approx(0.013940, abs=1e-6)
    # One step left: only the cell next to the goal (14) gets there, with 1/3 at best.
    one = finite_horizon_values(four.unwrapped.P, 4, 1)
    assert one[14] == pytest.approx(1 / 3) and one[13] == 0.0


def test_value_iteration_refuses_bad_arguments():
    table = gym.make("FrozenLake-v1").unwrapped.P
    with pytest.raises(ValueError, match="policy must be one of"):
        finite_horizon_values(table, 4, 10, "greedy")
    with pytest.raises(ValueError, match="horizon must be an int >= 0, got -1"):
        finite_horizon_values(table, 4, -1)
    with pytest.raises(ValueError, match="no outcomes for action 4"):
        finite_horizon_values(table, 5, 1)


def test_interval_is_student_t_on_a_known_sample():
    # 1..5: mean 3, standard error sqrt(2.5 / 5), t(0.975, 4 df) = 2.776445.
    mean, low, high = result([1, 2, 3, 4, 5]).mean_return()
    assert mean == 3.0
    assert low == pytest.approx(3 - 1.963243, abs=1e-6)
    assert high == pytest.approx(3 + 1.963243, abs=1e-6)
    assert suite.interval_text(result([1, 2, 3, 4, 5])) == "3 [1.037, 4.963]"


def test_success_rules():
    cliff, taxi = suite.CASES["CliffWalking-v1"], suite.CASES["Taxi-v4"]
    optimal, detour = records([-13, -17], [True, True])  # both reached the goal
    assert cliff.success(optimal) and not cliff.success(detour)
    for name in ("Taxi-v4", "MountainCar-v0", "FrozenLake-v1-4x4", "FrozenLake-v1-8x8"):
        assert suite.CASES[name].success is suite.goal_reached
    delivered, not_delivered = records([8, -200], [True, False])
    assert taxi.success(delivered) and not taxi.success(not_delivered)
    for name in ("CartPole-v1", "Acrobot-v1", "LunarLander-v3"):
        assert suite.CASES[name].success is None
        assert suite.success_rate(suite.CASES[name], result([1.0])) is None


def test_mountain_car_success_is_the_flag_not_the_time_limit():
    env = gym.make("MountainCar-v0")
    env.reset(seed=0)
    env.unwrapped.state = [0.49, 0.06]  # one push right from the flag (at 0.5)
    _, reward, terminated, truncated, _ = env.step(2)
    assert terminated and not truncated
    assert GOALS["MountainCarEnv"](reward, terminated)
    # Random moves never reach it in 200 steps: truncated, no success.
    (episode,) = plan_episodes("MountainCar-v0", None, 1).records
    assert episode.steps == 200 and episode.success is False
    assert not suite.CASES["MountainCar-v0"].success(episode)


def test_targets():
    cases = suite.CASES
    assert cases["CliffWalking-v1"].meets_target(result([-13] * 10))
    assert not cases["CliffWalking-v1"].meets_target(result([-13] * 9 + [-15]))
    assert cases["CartPole-v1"].meets_target(result([500] * 10))
    assert not cases["CartPole-v1"].meets_target(result([500] * 9 + [499]))
    assert cases["Taxi-v4"].meets_target(result([7, 7, 7]))
    assert not cases["Taxi-v4"].meets_target(result([7, 7, 6.9]))
    assert cases["Acrobot-v1"].meets_target(result([-100, -100]))
    assert not cases["Acrobot-v1"].meets_target(result([-100, -101]))
    car = cases["MountainCar-v0"]
    assert car.meets_target(result([-150, -150], [True, True]))
    assert not car.meets_target(result([-150, -151], [True, True]))
    assert not car.meets_target(result([-100, -100], [True, False]))
    lake = cases["FrozenLake-v1-4x4"]
    assert lake.meets_target(result([1] * 3 + [0] * 2, [True] * 3 + [False] * 2))
    assert not lake.meets_target(result([1] * 2 + [0] * 3, [True] * 2 + [False] * 3))
    assert cases["LunarLander-v3"].meets_target(result([200]))
    assert not cases["LunarLander-v3"].meets_target(result([199.9]))
    assert cases["Pendulum-v1"].meets_target(result([-150, -250]))
    assert not cases["Pendulum-v1"].meets_target(result([-150, -251]))
    continuous_car = cases["MountainCarContinuous-v0"]
    assert continuous_car.meets_target(result([90, 95], [True, True]))
    assert not continuous_car.meets_target(result([89, 90], [True, True]))
    assert not continuous_car.meets_target(result([95, 95], [True, False]))
    assert cases["LunarLanderContinuous-v3"].meets_target(result([200]))
    robot = cases["PointRobot-v0"]
    assert robot.meets_target(result([12, 13], [True, True]))
    assert not robot.meets_target(result([12, -5], [True, False]))


def test_the_continuous_cases_success_is_their_goal():
    env = gym.make("MountainCarContinuous-v0")
    env.reset(seed=0)
    env.unwrapped.state = np.array([0.44, 0.06], dtype=np.float32)  # one push from the flag
    _, reward, terminated, _, _ = env.step(np.array([1.0], dtype=np.float32))
    assert terminated and GOALS["Continuous_MountainCarEnv"](reward, terminated)
    robot = gym.make("mcts_agent/PointRobot-v0")
    robot.reset(seed=0)
    robot.unwrapped.set_state((8.6, 8.6, False))  # one step from the goal's edge
    _, reward, terminated, _, info = robot.step(np.array([1.0, 1.0], dtype=np.float32))
    assert info["reached_goal"] and GOALS["PointRobotEnv"](reward, terminated)
    robot.unwrapped.set_state((5.0, 2.6, False))  # one step below the obstacle
    _, reward, terminated, _, info = robot.step(np.array([0.0, 1.0], dtype=np.float32))
    assert info["crashed"] and not GOALS["PointRobotEnv"](reward, terminated)


def test_missing_module_skips_the_env_with_a_message():
    case = replace(suite.CASES["LunarLander-v3"], needs="no_such_module_for_the_suite")
    args = argparse.Namespace(episodes=1, time_limit=0.1, seed=0, processes=1)
    row = suite.run_case(case, args)
    assert row.agent is None and row.random is None
    assert row.note == (
        "skipped: no_such_module_for_the_suite is not installed (pip install -e '.[box2d]')"
    )
    assert suite.cells(row)[-1] == "skipped"


def test_rl_zoo_cells_name_the_best_agent():
    assert suite.rl_zoo(suite.CASES["LunarLander-v3"]) == (
        "ppo 242.119 ± 31.823 (LunarLander-v2), 5 agents 70.236 to 242.119, "
        "trained 200k, 100k, 1M, 100k, 200k steps"
    )
    assert suite.rl_zoo(suite.CASES["CartPole-v1"]) == (
        "a2c 500 ± 0, all 6 agents, trained 500k, 50k, 50k, 100k, 50k, 100k steps"
    )
    assert suite.rl_zoo(suite.CASES["Taxi-v4"]) == "not in the table"
