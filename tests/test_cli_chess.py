"""Chess in the CLI (issue 34): --fen, moves in SAN, --pgn, --option."""

from __future__ import annotations

import io
import json
import re
import sys
import warnings

import chess
import chess.pgn
import pytest

from mcts_agent import defaults
from mcts_agent.boards import ChessBoard, board_for
from mcts_agent.cli import main
from mcts_agent.envs.chess import ChessModel, action_of, board_of
from mcts_agent.evaluation import make_game

# 1. e4 e5 2. Bc4 Nc6 3. Qf3 a6: white mates with 4. Qxf7#.
MATE_IN_ONE = "r1bqkbnr/1ppp1ppp/p1n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 0 4"


def test_search_from_a_fen_finds_the_mate_and_names_it_in_san(capsys):
    argv = ["search", "--game", "classic/chess-v6", "--fen", MATE_IN_ONE, "--iterations", "50"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "8 r . b q k b n r" and lines[5] == "3 . . . . . Q . ."
    assert lines[9].startswith("white to move; 50 iterations, c = 1.2, seed 0")  # chess defaults
    assert lines[12].split()[0] == "Qxf7#"  # the most visited move, named in SAN
    assert "principal variation: Qxf7#" in lines
    assert lines[-1] == "move played: Qxf7#"


def test_fen_then_position_plays_moves_in_san_or_uci_with_move_numbers(capsys):
    start = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"  # after 1. e4
    argv = ["search", "--game", "classic/chess-v6", "--fen", start, "--iterations", "20"]
    assert main([*argv, "--position", "1... e5 2. Nf3 b8c6"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["8 r . b q k b n r", "7 p p p p . p p p", "6 . . n . . . . ."]
    assert lines[5] == "3 . . . . . N . ."
    assert lines[9].startswith("white to move")
    # The principal variation is played through: each move in SAN where it is played.
    line = next(x for x in lines if x.startswith("principal variation: ")).split(": ")[1]
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    for san in line.split():
        board.push_san(san)  # raises unless legal, and SAN as python-chess writes it
    assert board.move_stack


@pytest.mark.parametrize(
    ("position", "error"),
    [
        ("7. e4 e5", "move number 7. in '7. e4 e5' is not the next move's: 1. (white to move)"),
        ("1. e4 2. e5", "move number 2. in '1. e4 2. e5' is not the next move's: 1... (black"),
        ("1... e4", "move number 1... in '1... e4' is not the next move's: 1. (white to move)"),
    ],
)
def test_a_move_number_must_be_the_next_moves(position, error):
    board = board_for(make_game("classic/chess-v6"))
    with pytest.raises(ValueError, match=re.escape(error)):
        board.set_position(position)
    board = board_for(make_game("classic/chess-v6"))
    board.set_position("1.e4 1...e5 2. Nf3 Nc6 3.Bb5")  # PGN's numbers, with or without a space
    assert board_of(board.state).fen() == (
        "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
    )


def test_chess_board_keeps_the_env_in_step_with_the_fen():
    board = board_for(make_game("classic/chess-v6"))
    assert isinstance(board, ChessBoard)
    board.set_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    env = board.env
    assert env.agent_selection == "player_1" and board.player() == 1
    mask = env.observe("player_1")["action_mask"]
    assert sorted(mask.nonzero()[0].tolist()) == list(board.legal)
    history = env.unwrapped.board_history
    assert history[:, :, :13].any() and not history[:, :, 13:].any()  # this position alone
    board.play(board.parse_move("e5"))
    board.play(board.parse_move("d1h5"))
    assert env.agent_selection == "player_1"
    assert env.unwrapped.board.fen() == board.state.board.fen()
    position = env.unwrapped.board  # 1. e4 e5 2. Qh5
    expected = sorted(position.san(move) for move in position.legal_moves)
    assert sorted(board.label(a) for a in board.legal) == expected and "g6" in expected


def test_play_from_a_fen_writes_the_game_as_pgn(tmp_path, capsys):
    pgn = tmp_path / "game.pgn"
    argv = ["play", "--game", "classic/chess-v6", "--fen", MATE_IN_ONE, "--iterations", "5"]
    assert main([*argv, "--pgn", str(pgn)], stdin=io.StringIO("Qxf7\nQxf7#\n")) == 0
    out = capsys.readouterr().out
    assert "'Qxf7' is not a legal move" not in out  # SAN without its '#' is read too
    assert "you win" in out and f"wrote {pgn}" in out
    game = chess.pgn.read_game(io.StringIO(pgn.read_text()))
    assert game.headers["FEN"] == MATE_IN_ONE and game.headers["Result"] == "1-0"
    assert game.headers["White"] == "you" and game.headers["Black"].startswith("mcts (5 it")
    assert [m.uci() for m in game.mainline_moves()] == ["f3f7"]
    assert game.end().board().is_checkmate()


def test_play_as_black_quits_and_the_pgn_says_the_game_goes_on(tmp_path, capsys):
    pgn = tmp_path / "game.pgn"
    argv = ["play", "--game", "classic/chess-v6", "--human", "black", "--iterations", "3"]
    # a move number typed before the move is skipped, as in --position
    assert main([*argv, "--pgn", str(pgn)], stdin=io.StringIO("1... e7e5\n2...Nc6\nq\n")) == 0
    assert "game abandoned" in capsys.readouterr().out
    game = chess.pgn.read_game(io.StringIO(pgn.read_text()))
    assert game.headers["Result"] == "*" and game.headers["Black"] == "you"
    moves = [m.uci() for m in game.mainline_moves()]
    assert len(moves) == 5 and moves[1] == "e7e5" and moves[3] == "b8c6"


def _replayed(pgn_text: str) -> list[chess.pgn.Game]:
    games, stream = [], io.StringIO(pgn_text)
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors, game.errors
        games.append(game)
    return games


def _check_against_records(games: list[chess.pgn.Game], records: list[dict]) -> None:
    """Each PGN game's moves are its record's actions, and its result the record's outcome."""
    model = ChessModel()
    for game, record in zip(games, records, strict=True):
        state, actions = model.initial_state(), []
        for move in game.mainline_moves():
            actions.append(action_of(state, move))
            state, _, _ = model.step(state, actions[-1])
        assert actions == record["moves"]
        assert not model.actions(state)  # played to the end
        white_return = record["returns"][record["agent_seat"]]
        black_return = record["returns"][1 - record["agent_seat"]]
        expected = "1-0" if white_return > black_return else "0-1"
        expected = "1/2-1/2" if white_return == black_return else expected
        assert game.headers["Result"] == expected
        board = game.end().board()
        assert board.is_checkmate() == (expected != "1/2-1/2")


def test_evaluate_writes_every_game_as_pgn(tmp_path, capsys):
    pgn, log = tmp_path / "games.pgn", tmp_path / "games.jsonl"
    argv = ["evaluate", "--game", "classic/chess-v6", "--opponent", "random"]
    argv += ["--iterations", "5", "--games", "1", "--workers", "1", "--no-progress"]
    assert main([*argv, "--pgn", str(pgn), "--jsonl", str(log)]) == 0
    out = capsys.readouterr().out
    assert f"wrote {pgn} (2 games as PGN)" in out
    assert "c = 1.2, seed 0" in out  # MCTSAgent's chess exploration, not 2*sqrt(2)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert {record["agent"]["exploration"] for record in records} == {1.2}
    games = _replayed(pgn.read_text())
    assert [g.headers["Round"] for g in games] == ["1", "2"]
    assert {g.headers["Event"] for g in games} == {"mcts-agent evaluate"}
    for game, record in zip(games, records, strict=True):
        seats = [record["agent"]["kind"], "random"]
        white, black = seats if record["agent_seat"] == 0 else seats[::-1]
        assert game.headers["White"].startswith(white) and game.headers["Black"].startswith(black)
    _check_against_records(games, records)


def test_tournament_writes_every_game_as_pgn(tmp_path, capsys):
    pgn, log = tmp_path / "games.pgn", tmp_path / "games.jsonl"
    argv = ["tournament", "--game", "classic/chess-v6", "--agents", "mcts:iterations=3"]
    argv += ["minimax:depth=1", "--games", "2", "--workers", "1", "--no-progress"]
    assert main([*argv, "--pgn", str(pgn), "--jsonl", str(log), "--option", "max_depth=2"]) == 0
    capsys.readouterr()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    games = _replayed(pgn.read_text())
    mcts, minimax = "mcts(iterations=3, c=1.2, max_depth=2)", "minimax(depth=1)"
    assert [(g.headers["White"], g.headers["Black"]) for g in games] == [
        (mcts, minimax) if r["agent_seat"] == 0 else (minimax, mcts) for r in records
    ]
    assert {g.headers["Event"] for g in games} == {"mcts-agent tournament"}
    _check_against_records(games, records)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["search", "--game", "classic/chess-v6", "--fen", "rnbqkbnr/pppppppp w"],
            "argument --fen: 'rnbqkbnr/pppppppp w' is not a FEN python-chess reads: expected "
            "8 rows in position part of fen",
        ),
        (
            ["play", "--game", "classic/chess-v6", "--fen", "8/8/8/8/8/8/8/K6k w - - 0 1"],
            "argument --fen: '8/8/8/8/8/8/8/K6k w - - 0 1' is a finished game (insufficient "
            "material, a draw); nothing to play",
        ),
        (
            ["search", "--game", "classic/chess-v6", "--position", "f3 e5 g4 Qh4"],
            "argument --position: 'f3 e5 g4 Qh4' is a finished game (checkmate, black wins); "
            "nothing to search",
        ),
        (
            ["search", "--game", "classic/chess-v6", "--fen", "7k/8/5K2/8/8/8/8/6Q1 w - - 150 80"],
            "has a half-move clock of 150: PettingZoo's chess observation holds at most 127",
        ),
        (
            ["search", "--game", "classic/chess-v6", "--position", "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1"],
            "is a finished game (threefold repetition can be claimed with the next move, a "
            "draw); nothing to search",
        ),
        (
            ["search", "--game", "classic/chess-v6", "--position", "Nf3 a6 Nc3 a5 Nd4 a4 Nb5"],
            "'Nb5' is ambiguous: it names Ncb5 and Ndb5; enter one of them",
        ),
        (
            ["search", "--game", "classic/chess-v6", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"],
            "is not a legal chess position (python-chess: no_white_king, no_black_king, empty)",
        ),
        (
            ["search", "--game", "tictactoe", "--fen", MATE_IN_ONE],
            "argument --fen: a FEN is a chess position (classic/chess-v6); tictactoe starts "
            "from --position",
        ),
        (
            ["evaluate", "--game", "connect_four", "--pgn", "games.pgn"],
            "argument --pgn: PGN records chess games (classic/chess-v6); connect_four is not chess",
        ),
        (
            ["play", "--game", "tictactoe", "--pgn", "game.pgn"],
            "argument --pgn: PGN records chess games (classic/chess-v6); tictactoe is not chess",
        ),
    ],
)
def test_chess_io_errors(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as done:
        main(argv, stdin=io.StringIO(""))
    assert done.value.code == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing written


def test_search_warns_when_chess_is_searched_with_random_rollouts(monkeypatch, capsys):
    monkeypatch.setattr(defaults, "_warned_random_rollouts", set())
    argv = ["search", "--game", "classic/chess-v6", "--fen", MATE_IN_ONE, "--iterations", "5"]
    with pytest.warns(
        UserWarning, match="chess is searched with uniformly random rollouts"
    ) as warned:
        assert main([*argv, "--option", "evaluator=None", "--rollout-limit", "2"]) == 0
    assert "give --option evaluator=heuristic" in str(warned[0].message)  # the CLI's spelling
    assert "c = 2.83" in capsys.readouterr().out  # the chess defaults stood aside


def test_the_command_line_shows_a_warning_as_one_line_without_python_source(monkeypatch, capsys):
    monkeypatch.setattr(defaults, "_warned_random_rollouts", set())
    argv = ["search", "--game", "classic/chess-v6", "--fen", MATE_IN_ONE, "--iterations", "5"]

    def show(message, category, filename, lineno, file=None, line=None):  # Python's default
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

    with warnings.catch_warnings():  # pytest records warnings: print them as Python does
        warnings.simplefilter("always")
        warnings.showwarning = show
        assert main([*argv, "--option", "evaluator=None", "--rollout-limit", "2"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(
        "mcts-agent: warning: chess is searched with uniformly random rollouts"
    )
    assert warnings.formatwarning is not None and "mcts-agent" not in warnings.formatwarning(
        "x", UserWarning, "f.py", 1
    )  # Python's own form is back after main
