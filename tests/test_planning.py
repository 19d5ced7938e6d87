"""Planning in Gymnasium envs: episodes of MCTS and of a random policy, and the plan command."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from mcts_agent.cli import main
from mcts_agent.evaluation.planning import make_env, plan_episodes, play_episode

LAKE = "FrozenLake-v1:is_slippery=False"
MCTS_OPTIONS = {"iterations": 60, "exploration": 0.7, "gamma": 0.95, "rollout_limit": 50}


def test_mcts_reaches_the_goal_of_the_frozen_lake_and_random_play_mostly_does_not():
    planned = plan_episodes(LAKE, MCTS_OPTIONS, 3, seed=0)
    random = plan_episodes(LAKE, None, 30, seed=0)
    assert planned.success_rate == 1.0  # the 4x4 lake's goal is six moves away
    assert all(r.total_return == 1.0 and r.steps >= 6 for r in planned.records)
    assert random.success_rate < 0.2
    # A success is an episode that terminated with the goal's reward.
    assert [r.success for r in random.records] == [r.total_return > 0 for r in random.records]
    maze = plan_episodes("mcts_agent/GridMaze-v0", None, 10, seed=0)
    returns = np.array([r.total_return for r in maze.records])
    assert returns.std() > 0  # traps (-1) and step costs vary
    mean, low, high = maze.mean_return()
    assert mean == returns.mean()
    assert (low, high) == pytest.approx(
        stats.t.interval(0.95, len(returns) - 1, loc=returns.mean(), scale=stats.sem(returns))
    )
    assert planned.seconds_per_move > 0 and planned.mean_steps == np.mean(
        [r.steps for r in planned.records]
    )


def test_episodes_are_seeded_by_their_index_whatever_the_workers():
    one = plan_episodes("mcts_agent/GridMaze-v0", None, 4, seed=3, workers=1)
    two = plan_episodes("mcts_agent/GridMaze-v0", None, 4, seed=3, workers=2)
    strip = [(r.index, r.seeds, r.total_return, r.steps, r.success) for r in one.records]
    assert strip == [(r.index, r.seeds, r.total_return, r.steps, r.success) for r in two.records]
    assert play_episode("mcts_agent/GridMaze-v0", None, 3, 2).seeds == one.records[2].seeds
    # CliffWalking has no success rule of ours beyond termination; an unknown env has none.
    assert plan_episodes("CartPole-v1", None, 1).success_rate is None


def test_refusals_come_before_any_episode():
    with pytest.raises(ValueError, match="not deterministic"):
        plan_episodes("FrozenLake-v1", MCTS_OPTIONS, 1)
    with pytest.raises(TypeError, match="unknown MCTS option 'gama'"):
        plan_episodes(LAKE, {"iterations": 5, "gama": 1}, 1)
    with pytest.raises(ValueError, match="env 'FrozenLake-v1:slippery=False'"):
        make_env("FrozenLake-v1:slippery=False")


def test_the_plan_command_prints_both_policies_and_writes_json_and_png(tmp_path, capsys):
    argv = [
        "plan",
        "--env",
        LAKE,
        "--episodes",
        "2",
        "--iterations",
        "40",
        "60",
        "--options",
        "exploration=0.7,gamma=0.95,rollout_limit=50",
        "--workers",
        "1",
        "--no-progress",
        "--json",
        str(tmp_path / "p.json"),
        "--plot",
        str(tmp_path / "p.png"),
        "--jsonl",
        str(tmp_path / "p.jsonl"),
    ]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{LAKE}: 2 episodes each"
    assert [line.split()[0] for line in lines[2:5]] == [
        "random",
        "mcts:iterations=40,exploration=0.7,gamma=0.95,rollout_limit=50",
        "mcts:iterations=60,exploration=0.7,gamma=0.95,rollout_limit=50",
    ]
    data = json.loads((tmp_path / "p.json").read_text())
    assert [d["options"] and d["options"]["iterations"] for d in data] == [None, 40, 60]
    assert all(len(d["episodes_played"]) == 2 for d in data)
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    log = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert sorted((e["policy"], e["index"]) for e in log) == sorted(
        (d["policy"], e["index"]) for d in data for e in d["episodes_played"]
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--env", "FrozenLake-v1"], "argument --env: FrozenLakeEnv is not deterministic"),
        (["--env", LAKE, "--options", "gama=1"], "argument --options: unknown MCTS option 'gama'"),
        (["--env", LAKE, "--options", "iterations=3"], "give iterations with its own option"),
        (["--env", "Nope-v0"], "argument --env: env 'Nope-v0'"),
    ],
)
def test_plan_argument_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as error:
        main(["plan", *argv])
    assert error.value.code == 2
    assert message in capsys.readouterr().err
