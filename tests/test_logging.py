"""logging.getLogger("mcts_agent"): one DEBUG record per search, nothing at INFO or above."""

import logging
import math

import pettingzoo
import pytest
from scripted_games import ScriptedGame

from mcts_agent import MCTS, MCTSAgent
from mcts_agent.envs.tic_tac_toe import TicTacToeModel, parse_board
from mcts_agent.search import LOG_LINE_MOVES, LOG_TOP_ACTIONS

C = 2 * math.sqrt(2)


def records(caplog):
    return [r for r in caplog.records if r.name.startswith("mcts_agent")]


def test_each_search_logs_one_debug_record_with_its_figures(caplog):
    caplog.set_level(logging.DEBUG, logger="mcts_agent")
    planner = MCTS(TicTacToeModel(), 3000, exploration=C, seed=0)
    state = parse_board("XX.OO....")
    planner.search(state)
    planner.search(state, iterations=500)
    first, second = records(caplog)
    assert (first.levelno, first.name) == (logging.DEBUG, "mcts_agent.search")
    assert first.summary.iterations == 3000 and second.summary == planner.summary()
    assert second.principal_variation == planner.principal_variation()
    summary = second.summary
    message = second.getMessage()
    assert message.startswith(f"search: 500 iterations in {summary.elapsed:.4f} s (")
    assert f"{summary.nodes} nodes, stopped on iterations; player 1 to move;" in message
    # The most visited root actions, first the move played, with N and Q; then the line.
    best = summary.actions.index(summary.action)
    assert f"top actions: 2 N={summary.visit_counts[best]} Q=+1.000, " in message
    assert message.count(" N=") == LOG_TOP_ACTIONS
    assert message.endswith("principal variation: 2")
    assert "P=" not in message  # a plain UCT tree has no priors


def test_the_record_shows_priors_proofs_and_reuse(caplog):
    caplog.set_level(logging.DEBUG, logger="mcts_agent")
    planner = MCTS(TicTacToeModel(), 3000, exploration=C, seed=0, solve=True, value_bounds=(-1, 1))
    planner.search(parse_board("XX.OO...."))
    (record,) = records(caplog)
    message = record.getMessage()
    assert "stopped on solved" in message and ", proven value +1;" in message
    assert "top actions: 2 N=1 Q=+1.000 P=0.200 V=+1, " in message


def test_a_long_principal_variation_is_cut_in_the_message_only(caplog):
    chain = {str(i): (i % 2, {"a": (str(i + 1), 0.0, i == 29)}) for i in range(30)}
    planner = MCTS(ScriptedGame(chain), 100, seed=0, rollout_limit=0)
    caplog.set_level(logging.DEBUG, logger="mcts_agent")
    planner.search("0")
    (record,) = records(caplog)
    assert len(record.principal_variation) == 30
    assert record.getMessage().endswith(
        "principal variation: " + " ".join(["'a'"] * LOG_LINE_MOVES) + " ... (20 more)"
    )


def test_nothing_is_logged_at_info_or_above(caplog):
    caplog.set_level(logging.INFO, logger="mcts_agent")
    state = parse_board("X...O....")
    MCTS(TicTacToeModel(), 200, exploration=C, seed=0).search(state)
    MCTS(TicTacToeModel(), time_limit=0.01, seed=0, solve=True).search(state)
    MCTS(TicTacToeModel(), 200, selection="puct", max_nodes=50, reuse_tree=True).search(state)
    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    env.reset(seed=0)
    MCTSAgent(iterations=100, seed=0, native_models=False).act(env)
    assert records(caplog) == []


def test_a_failed_search_logs_nothing(caplog):
    caplog.set_level(logging.DEBUG, logger="mcts_agent")
    game = ScriptedGame({"": (1, {"a": ("A", math.nan, True)})})
    with pytest.raises(ValueError, match="NaN"):
        MCTS(game, 10, seed=0).search("")
    assert records(caplog) == []


def test_the_package_logger_has_only_a_null_handler():
    handlers = logging.getLogger("mcts_agent").handlers
    assert [type(h) for h in handlers] == [logging.NullHandler]
