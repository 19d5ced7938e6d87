"""Games by id and agents by spec: parsing, checks before any game, and what they play."""

from __future__ import annotations

import math
import pickle
import re

import pytest

from mcts_agent import MCTS
from mcts_agent.envs.connect_four import ConnectFourModel, heuristic_evaluator
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel, from_pettingzoo_action
from mcts_agent.evaluation import (
    MatchSpec,
    MCTSPlayer,
    MinimaxPlayer,
    PerfectPlayer,
    PettingZooGame,
    RandomPlayer,
    make_game,
    make_player,
    parse_spec,
    play_match,
)
from mcts_agent.evaluation.specs import EvaluatorValue

TTT = make_game("tictactoe")
C4 = make_game("connect_four")


def test_specs_are_read_as_python_literals_and_words():
    kind, options = parse_spec(
        "mcts:iterations=400, exploration=2.83,selection=puct,root_noise=(0.3, 0.25),"
        "max_depth=None,name='a,b'"
    )
    assert kind == "mcts"
    assert options == {
        "iterations": 400,
        "exploration": 2.83,
        "selection": "puct",
        "root_noise": (0.3, 0.25),
        "max_depth": None,
        "name": "a,b",
    }
    assert list(options) == [
        "iterations",
        "exploration",
        "selection",
        "root_noise",
        "max_depth",
        "name",
    ]
    assert parse_spec("random") == ("random", {})
    assert parse_spec("classic/go-v5:board_size=9", what="game") == (
        "classic/go-v5",
        {"board_size": 9},
    )


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mcts:iterations", "expected name=value options"),
        ("mcts:iterations=1,iterations=2", "gives 'iterations' twice"),
        ("mcts:root_noise=(0.3, 0.25", "unclosed '('"),
        ("mcts:x=1)", "unbalanced ')'"),
        ("mcts:x=1+", "expected a Python literal or a word, got '1+'"),
        (":x=1", "has no agent before the colon"),
    ],
)
def test_malformed_specs_are_refused(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_spec(spec)


def test_agents_by_spec():
    assert make_player("random", TTT) == RandomPlayer()
    assert make_player("perfect", TTT) == PerfectPlayer()
    minimax = make_player("minimax:depth=2", C4)  # the game's evaluator at the horizon
    assert minimax == MinimaxPlayer(2, EvaluatorValue(heuristic_evaluator, C4.model, "heuristic"))
    state = ConnectFourModel().step(C4.initial_state, 3).next_state
    assert minimax.evaluation(state) == heuristic_evaluator(state, C4.model.actions(state)).value
    assert make_player("minimax:depth=2,evaluator=None", C4) == MinimaxPlayer(2)
    assert make_player("minimax", TTT) == MinimaxPlayer(4)  # tic-tac-toe has no evaluator
    mcts = make_player("mcts:iterations=50,gamma=0.9,selection=puct,evaluator=heuristic", C4)
    assert mcts == MCTSPlayer(50, gamma=0.9, selection="puct", evaluator=heuristic_evaluator)
    assert mcts.options["gamma"] == 0.9 and mcts.iterations == 50
    assert pickle.loads(pickle.dumps(mcts)) == mcts


def test_every_mcts_option_reaches_the_planner():
    options = {"gamma": 0.9, "rollout_limit": 3, "selection": "puct", "max_depth": 4}
    player = make_player(
        "mcts:iterations=60,exploration=1.5," + ",".join(f"{k}={v!r}" for k, v in options.items()),
        TTT,
    )
    planner = player(TTT.model, 7)
    direct = MCTS(TicTacToeModel(), 60, exploration=1.5, seed=7, **options)
    for name, value in {**options, "exploration": 1.5, "iterations": 60}.items():
        assert getattr(planner, name) == value
    planner.search(EMPTY_BOARD)
    direct.search(EMPTY_BOARD)
    assert planner.summary()._replace(elapsed=0) == direct.summary()._replace(elapsed=0)


@pytest.mark.parametrize(
    "spec, error, message",
    [
        ("alphazero", ValueError, "unknown agent 'alphazero'; valid agents: random, perfect"),
        ("random:depth=2", ValueError, "random takes no options"),
        ("perfect", ValueError, "perfect play needs a game small enough"),
        ("minimax:depth=0", ValueError, "depth must be >= 1"),
        ("minimax:width=3", TypeError, "unknown minimax option"),
        ("minimax:evaluator=deep", ValueError, "connect_four has no evaluator 'deep'"),
        ("mcts", TypeError, "a search needs a budget: give iterations"),
        ("mcts:iterations=0", ValueError, "iterations must be >= 1"),
        ("mcts:iterations=10,exploraton=2", TypeError, "unknown MCTS option 'exploraton'; valid"),
        ("mcts:iterations=10,selection=ucb", ValueError, "selection must be one of"),
        ("mcts:iterations=10,clone='snapshot'", TypeError, "unknown MCTS option 'clone'"),
        ("mcts:iterations=10,seed=3", TypeError, "takes no seed"),
    ],
)
def test_bad_agent_specs_are_refused_naming_the_spec(spec, error, message):
    with pytest.raises(error, match=f"agent spec {spec!r}: .*{message}"):
        make_player(spec, C4)


def test_agent_options_of_the_env_loop_are_checked_there():
    game = make_game("classic/connect_four-v3")
    player = make_player("mcts:iterations=10,native_models=False", game)
    assert player.options["native_models"] is False
    with pytest.raises(TypeError, match="native_models must be a bool"):
        make_player("mcts:iterations=10,native_models=1", game)
    with pytest.raises(TypeError, match="unknown MCTS option 'native_models'"):
        MatchSpec(C4, player, RandomPlayer())  # the match checks its players too


def test_any_pettingzoo_env_by_id_through_the_adapter():
    # tic-tac-toe with an env option goes the generic way: no model of ours, the
    # model-based players plan on PettingZooModel, MCTS acts through MCTSAgent.
    game = make_game("classic/tictactoe-v3:render_mode=None")
    assert isinstance(game, PettingZooGame) and game.model is None
    assert game.name == "classic/tictactoe-v3:render_mode=None"
    result = play_match(
        game,
        make_player("minimax:depth=9", game),
        make_player("mcts:iterations=20", game),
        games_per_seat=1,
        workers=1,
    )
    model = TicTacToeModel()
    for record in result.records:
        state, winner = EMPTY_BOARD, None
        for action in record.moves:
            mover = model.player(state)
            state, reward, _ = model.step(state, from_pettingzoo_action(action))
            winner = mover if reward else winner
        assert not model.actions(state)
        assert record.outcome != "loss"  # full-depth alpha-beta plays perfectly
        expected = (
            "draw" if winner is None else "win" if winner == 1 + record.agent_seat else "loss"
        )
        assert record.outcome == expected


def test_chess_by_id_is_planned_on_the_chess_model_with_its_evaluator():
    from mcts_agent.envs.chess import ChessModel
    from mcts_agent.envs.chess_evaluator import ChessEvaluator
    from mcts_agent.evaluation.specs import EvaluatorValue

    game = make_game("classic/chess-v6")
    assert game.name == "classic/chess-v6" and game.seat_names == ("white", "black")
    assert isinstance(game.model, ChessModel) and game.zero_sum
    [(name, evaluator)] = game.evaluators
    assert name == "heuristic" and isinstance(evaluator, ChessEvaluator)
    minimax = make_player("minimax:depth=1", game)
    assert minimax == MinimaxPlayer(1, EvaluatorValue(evaluator, game.model, "heuristic"))
    assert make_player("minimax:depth=1,evaluator=None", game) == MinimaxPlayer(1)


def test_go_by_id():
    game = make_game("classic/go-v5:board_size=5")
    assert game.name == "classic/go-v5:board_size=5"


@pytest.mark.parametrize(
    "name, error, message",
    [
        ("classic/hanabi-v5", ValueError, "hanabi_v5 is neither: .*ResampleFromInfostate"),
        ("classic/go-v5:board_sise=9", ValueError, "unexpected keyword argument 'board_sise'"),
        ("classic/nothing-v0", ValueError, "unknown game 'classic/nothing-v0': neither one of"),
        ("connect_four:rows=5", ValueError, "game 'connect_four' takes no options"),
    ],
)
def test_games_the_adapter_refuses_are_refused_at_once(name, error, message):
    with pytest.raises(error, match=message):
        make_game(name)


def test_budget_options_pass_through_by_name():
    player = make_player("mcts:time_limit=0.01,max_nodes=300,solve=True", TTT)
    assert player.iterations is None
    planner = player(TTT.model, 0)
    assert (planner.time_limit, planner.max_nodes, planner.solve) == (0.01, 300, True)
    planner.search(EMPTY_BOARD)
    assert planner.summary().nodes <= 300
    result = play_match(TTT, player, RandomPlayer(), games_per_seat=1, workers=1)
    assert result.tally().games == 2
    with pytest.raises(ValueError, match="agent spec 'mcts:time_limit=-1': .*time_limit"):
        make_player("mcts:time_limit=-1", TTT)


@pytest.mark.parametrize(
    ("name", "exploration"),
    [
        ("tictactoe", 2 * math.sqrt(2)),
        ("classic/chess-v6", 1.2),
        ("classic/go_v5:board_size=5", 0.0),
        ("classic/leduc_holdem-v4", 2.0),
    ],
)
def test_mcts_specs_without_exploration_get_the_agents_own_for_the_game(name, exploration):
    game = make_game(name)
    assert make_player("mcts:iterations=5", game).exploration == exploration
    assert make_player("mcts:iterations=5,exploration=0.5", game).exploration == 0.5
