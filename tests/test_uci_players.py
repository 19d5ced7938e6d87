"""UCI engines as players of PettingZoo's chess (mcts_agent.evaluation.uci_players)."""

from __future__ import annotations

import os
import pickle
import re
import sys

import chess
import pytest

from mcts_agent.envs.chess import ChessModel, action_of
from mcts_agent.evaluation import make_game, make_player
from mcts_agent.evaluation.specs import parse_spec
from mcts_agent.evaluation.uci_players import UCIError, UCIPlayer, UCIPolicy, parse_uci_spec

STOCKFISH = "/usr/games/stockfish"
needs_stockfish = pytest.mark.skipif(
    not os.access(STOCKFISH, os.X_OK),
    reason=f"Stockfish not at {STOCKFISH}: apt-get install stockfish",
)


def test_the_spec_splits_the_command_the_limits_and_the_uci_options():
    assert parse_spec("uci:stockfish:Skill Level=0,movetime=10") == (
        "uci",
        {"command": "stockfish", "options": {"Skill Level": "0", "movetime": 10}},
    )
    assert parse_spec("uci: stockfish ") == ("uci", {"command": "stockfish", "options": {}})
    assert parse_uci_spec("sf --x: depth=3 , Hash=16") == {
        "command": "sf --x",
        "options": {"depth": 3, "Hash": "16"},
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (":depth=3", "expected uci:COMMAND"),
        ("stockfish:Hash", "expected NAME=VALUE"),
        ("stockfish:=3", "expected NAME=VALUE"),
        ("stockfish:Hash=1,Hash=2", "'Hash' twice"),
        ("stockfish:movetime=0", "movetime is an integer > 0, got '0'"),
        ("stockfish:depth=two", "depth is an integer > 0, got 'two'"),
    ],
)
def test_a_malformed_spec_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_uci_spec(text)


def test_a_missing_program_names_the_package():
    with pytest.raises(FileNotFoundError, match="apt-get install stockfish"):
        UCIPlayer("/nonexistent/stockfish")
    with pytest.raises(FileNotFoundError, match="'no-such-uci-engine' was not found on PATH"):
        make_player("uci:no-such-uci-engine", make_game("classic/chess_v6"))


@needs_stockfish
def test_make_player_refuses_other_games_and_the_player_pickles():
    player = make_player("uci:stockfish:Skill Level=0,movetime=10", make_game("classic/chess_v6"))
    assert player == UCIPlayer("stockfish", {"Skill Level": "0", "movetime": 10})
    assert player.label == "uci:stockfish:Skill Level=0,movetime=10"
    assert player.describe()["kind"] == "uci"
    assert pickle.loads(pickle.dumps(player)) == player
    with pytest.raises(ValueError, match="plays chess: PettingZoo's classic/chess_v6"):
        make_player("uci:stockfish", make_game("tictactoe"))


@needs_stockfish
def test_stockfish_plays_legal_moves_and_leaves_the_env_consistent():
    env = make_game("classic/chess_v6").make_env()
    env.reset(seed=0)
    policy = UCIPlayer(STOCKFISH, {"Skill Level": "0", "movetime": 10}).env_policy(0, env)
    plies = 8
    try:
        for _ in range(plies):
            action = policy(env)
            assert env.last()[0]["action_mask"][action] == 1
            state = ChessModel().state_of(env)
            assert action in state.actions
            env.step(action)
        assert policy.engine is not None
    finally:
        policy.close()
        policy.close()  # twice is safe
    assert policy.engine is None
    board = env.unwrapped.board
    assert len(board.move_stack) == plies
    assert board.is_valid()
    replay = chess.Board()
    for move in board.move_stack:
        assert move in replay.legal_moves
        replay.push(move)
    assert replay.fen() == board.fen()
    assert ChessModel().state_of(env).board.fen() == board.fen()


@needs_stockfish
def test_stockfish_beats_the_random_player_in_the_env_loop():
    game = make_game("classic/chess_v6")
    stockfish = make_player("uci:stockfish:depth=2,Threads=1", game)
    _, returns = game.play((stockfish, make_player("random", game)), (0, 1), 0)
    assert returns == (1, -1)


def test_an_engine_that_is_not_uci_stops_the_game_with_an_error_naming_it():
    env = make_game("classic/chess_v6").make_env()
    env.reset(seed=0)
    policy = UCIPolicy("true")  # starts and exits at once: no UCI handshake
    with pytest.raises(UCIError, match="'true' failed to start"):
        policy(env)
    assert policy.engine is None


FAKE_ENGINE = """\
import sys

import chess

mode = sys.argv[1]
board = chess.Board()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name fake", flush=True)
        print("uciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:8]))
        for move in words[words.index("moves") + 1 :] if "moves" in words else ():
            board.push_uci(move)
    elif words[0] == "go":
        if mode == "exit" and board.move_stack:
            sys.exit(0)  # mid-game, after its first move
        if mode == "illegal":
            print("bestmove e2e5", flush=True)
        else:
            print("bestmove " + min(move.uci() for move in board.legal_moves), flush=True)
    elif words[0] == "quit":
        break
"""


@pytest.fixture
def fake_engine(tmp_path):
    """``mode -> command``: a scripted UCI engine, run by this Python, that answers in ``mode``.

    ``legal``: the first legal move in UCI order; ``illegal``: ``e2e5``; ``exit``: exits at its
    second ``go``.
    """
    script = tmp_path / "fake_uci.py"
    script.write_text(FAKE_ENGINE)
    return lambda mode: f"{sys.executable} {script} {mode}"


def _chess_env():
    env = make_game("classic/chess_v6").make_env()
    env.reset(seed=0)
    return env


def test_a_scripted_engine_s_legal_move_becomes_the_env_action(fake_engine):
    env = _chess_env()
    policy = make_player(f"uci:{fake_engine('legal')}", make_game("classic/chess_v6")).env_policy(
        0, env
    )
    try:
        for _ in range(4):
            board = env.unwrapped.board
            expected = min(board.legal_moves, key=chess.Move.uci)
            action = policy(env)
            assert action == action_of(ChessModel().state_of(env), expected)
            env.step(action)
            assert env.unwrapped.board.peek() == expected
    finally:
        policy.close()
    assert [m.uci() for m in env.unwrapped.board.move_stack] == ["a2a3", "a7a5", "a1a2", "a5a4"]


def test_a_scripted_engine_s_illegal_move_is_a_uci_error_naming_it(fake_engine):
    env = _chess_env()
    command = fake_engine("illegal")
    policy = UCIPolicy(command)
    try:
        with pytest.raises(UCIError, match=re.escape(f"the UCI engine {command!r} failed in")):
            policy(env)
    finally:
        policy.close()
    assert not env.unwrapped.board.move_stack  # nothing played


def test_a_scripted_engine_that_exits_mid_game_is_a_uci_error_naming_it(fake_engine):
    env = _chess_env()
    command = fake_engine("exit")
    policy = UCIPolicy(command)
    try:
        env.step(policy(env))  # its first move
        with pytest.raises(UCIError, match=re.escape(f"the UCI engine {command!r} failed in")):
            policy(env)
    finally:
        policy.close()
    assert policy.engine is None


def test_a_program_that_is_not_uci_is_refused_with_the_spec_before_any_game():
    with pytest.raises(ValueError, match="the UCI engine 'true' failed to start"):
        make_player("uci:true", make_game("classic/chess_v6"))


@needs_stockfish
def test_a_misspelt_uci_option_is_refused_with_the_spec_before_any_game():
    game = make_game("classic/chess_v6")
    with pytest.raises(
        ValueError, match="refuses its options: engine does not support option Skil"
    ):
        make_player("uci:stockfish:Skil Level=0,movetime=10", game)
    assert make_player("uci:stockfish:Skill Level=0,movetime=10", game).options == {
        "Skill Level": "0",
        "movetime": 10,
    }
