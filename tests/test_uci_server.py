"""The UCI engine (mcts_agent.uci) and ``mcts-agent uci`` (mcts_agent.cli.uci)."""

from __future__ import annotations

import io
import os
import shlex
import sys
import threading

import chess
import chess.engine
import pytest

from mcts_agent import Evaluation, __version__
from mcts_agent.cli import main
from mcts_agent.evaluation.uci_players import UCIPolicy
from mcts_agent.uci import MAX_SEED, MOVE_OVERHEAD_MS, UCIEngine, centipawns, move_time

BACK_RANK_MATE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#, the only mate
SMOTHERED = "6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1"  # Nf7#
STOCKFISH = "/usr/games/stockfish"


class Lines:
    """The engine's output: a list of lines, and an event set on each ``bestmove``."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.bestmove = threading.Event()

    def __call__(self, line: str) -> None:
        self.lines.append(line)
        if line.startswith("bestmove"):
            self.bestmove.set()

    def take(self) -> list[str]:
        """The lines so far, forgotten."""
        lines, self.lines = self.lines, []
        self.bestmove.clear()
        return lines


def _engine(**kwargs) -> tuple[UCIEngine, Lines]:
    out = Lines()
    return UCIEngine(out, **kwargs), out


def _go(engine: UCIEngine, out: Lines, command: str) -> tuple[dict[str, str], str]:
    """Sends ``command`` (a ``go``), waits for ``bestmove``; returns the info's fields, the move."""
    engine.respond(command)
    assert out.bestmove.wait(timeout=60), out.lines
    *rest, info, bestmove = out.take()
    assert bestmove.startswith("bestmove ")
    return _fields(info), bestmove.split()[1]


def _fields(info: str) -> dict[str, str]:
    """``info nodes 5 time 3 ... pv a b`` as ``{"nodes": "5", ..., "pv": "a b"}``."""
    words = info.split()
    assert words[0] == "info"
    fields = {}
    index = 1
    while index < len(words):
        name = words[index]
        if name == "pv":
            fields[name] = " ".join(words[index + 1 :])
            break
        if name == "score":
            fields[name] = " ".join(words[index + 1 : index + 3])
            index += 3
            continue
        fields[name] = words[index + 1]
        index += 2
    return fields


def test_uci_answers_the_id_the_options_and_uciok_and_isready_readyok():
    engine, out = _engine(iterations=10)
    engine.respond("uci\n")
    engine.respond("isready")
    assert out.take() == [
        f"id name mcts_agent {__version__}",
        "id author the mcts_agent authors",
        f"option name Seed type spin default 0 min 0 max {MAX_SEED}",
        "uciok",
        "readyok",
    ]


def test_position_startpos_and_fen_with_moves_and_ucinewgame():
    engine, out = _engine(iterations=10)
    engine.respond("position startpos moves e2e4 e7e5 g1f3")
    expected = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3"):
        expected.push_uci(move)
    assert engine.board == expected and engine.board.move_stack == expected.move_stack
    engine.respond(f"position fen {BACK_RANK_MATE} moves g1f1 g8h8")
    assert engine.board.fen() == "7k/5ppp/8/8/8/8/5PPP/R4K2 w - - 2 2"
    engine.respond("ucinewgame")
    assert engine.board == chess.Board()
    assert out.take() == []  # none of these answers anything


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("position startpos moves e2e4 e7e5 e1e3", "move 'e1e3' is not legal in rnbqkbnr/pppp1ppp"),
        ("position startpos moves e2e4 nonsense", "move 'nonsense' is not legal"),
        ("position fen 8/8/8/8 w - - 0 1", "bad FEN"),
        ("position fen 8/8/8/8/8/8/8/8 w - - 0 1", "is not a legal position"),  # no kings
        ("position", "position expects 'startpos' or 'fen <FEN>'"),
    ],
)
def test_an_illegal_move_or_a_bad_fen_is_refused_and_the_position_kept(command, message):
    engine, out = _engine(iterations=10)
    engine.respond("position startpos moves d2d4")
    before = engine.board
    engine.respond(command)
    (line,) = out.take()
    assert line.startswith("info string ") and message in line
    assert engine.board == before and engine.board.move_stack == before.move_stack


@pytest.mark.parametrize(("fen", "mate"), [(BACK_RANK_MATE, "a1a8"), (SMOTHERED, "g5f7")])
def test_go_nodes_finds_the_mate_in_one(fen, mate):
    engine, out = _engine(iterations=10)
    engine.respond(f"position fen {fen}")
    info, move = _go(engine, out, "go nodes 200")
    board = chess.Board(fen)
    board.push_uci(move)
    assert board.is_checkmate() and move == mate
    assert info["nodes"] == "200" and info["score"] == "mate 1"
    assert info["pv"].split()[0] == mate
    assert int(info["nps"]) > 0 and int(info["time"]) >= 1


def test_the_pv_is_legal_and_the_score_is_the_best_moves_value_in_centipawns():
    engine, out = _engine(iterations=10)
    engine.respond("position startpos moves e2e4 d7d5")
    info, move = _go(engine, out, "go nodes 150")
    board = engine.board
    pv = info["pv"].split()
    assert pv[0] == move and len(pv) >= 2
    for step in pv:
        board.push(chess.Move.from_uci(step))  # raises if not legal
        assert board.is_valid()
    kind, cp = info["score"].split()
    assert kind == "cp" and -3000 < int(cp) < 3000


def test_another_evaluator_s_values_give_no_centipawn_score():
    # UCI's score is optional: with a user's evaluator the values have no known scale in cp
    def level(state, actions):
        return Evaluation(0.5, None)

    engine, out = _engine(iterations=10, options={"selection": "puct", "evaluator": level})
    info, move = _go(engine, out, "go nodes 10")
    assert "score" not in info and info["nodes"] == "10" and info["pv"].split()[0] == move


def test_centipawns_invert_the_evaluators_squashing():
    assert centipawns(0.0) == 0
    assert centipawns(0.3) == 298  # atanh(0.3 / 0.6) / 0.00184104 = 298.4
    assert centipawns(-0.3) == -298
    assert centipawns(1.0) == centipawns(0.6) == 2690  # capped, not infinite
    assert centipawns(0.8) == 2690  # a mating ending reads as the cap
    with pytest.raises(ValueError, match=r"in \[-1, 1\]"):
        centipawns(1.5)


def test_the_same_seed_and_nodes_give_the_same_move_and_line():
    first, out1 = _engine(iterations=10, seed=3)
    second, out2 = _engine(iterations=10)
    second.respond("setoption name Seed value 3")
    lines = []
    for engine, out in ((first, out1), (second, out2)):
        engine.respond("position startpos moves g1f3")
        info, move = _go(engine, out, "go nodes 60")
        lines.append((move, info["nodes"], info["score"], info["pv"]))
    assert lines[0] == lines[1]


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("setoption name Seed value -1", "Seed is an int in 0..2147483647, got '-1'"),
        ("setoption name Seed value x", "got 'x'"),
        ("setoption name Hash value 16", "no option 'Hash' (options: Seed)"),
        ("setoption Seed 3", "setoption expects 'name <id> [value <x>]'"),
    ],
)
def test_setoption_refuses_unknown_options_and_bad_values(command, message):
    engine, out = _engine(iterations=10)
    engine.respond(command)
    (line,) = out.take()
    assert line.startswith("info string ") and message in line


def test_go_movetime_searches_at_least_that_long():
    engine, out = _engine(iterations=10)
    engine.respond("position startpos")
    info, move = _go(engine, out, "go movetime 60")
    assert chess.Move.from_uci(move) in chess.Board().legal_moves
    assert int(info["time"]) >= 60  # a time limit never stops early (mcts_agent.budgets)
    assert int(info["nodes"]) >= 1


def test_move_time_shares_the_clock_over_the_moves_to_go():
    assert move_time(60_000) == 2_000  # 60 s over 30 moves
    assert move_time(60_000, 1_000) == 3_000
    assert move_time(10_000, 0, 1) == 10_000 - MOVE_OVERHEAD_MS  # the last move of a control
    assert move_time(10_000, 500, 4) == 3_000
    assert move_time(30, 0) == 1.0  # a flag about to fall: 1 ms, still a move
    with pytest.raises(ValueError, match="movestogo is an int >= 1"):
        move_time(1_000, 0, 0)


def test_go_on_a_clock_reads_the_side_to_moves_time():
    engine, out = _engine(iterations=10)
    engine.respond("position startpos moves e2e4")  # black to move: btime, not wtime
    info, move = _go(engine, out, "go wtime 1 btime 3000 winc 0 binc 0")
    assert int(info["time"]) >= 100  # 3000 ms / 30 moves; wtime would have given 1 ms
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(move) in board.legal_moves


def test_go_infinite_runs_until_stop_and_stop_answers_bestmove_at_once():
    engine, out = _engine(iterations=10)
    engine.respond("position startpos")
    engine.respond("go infinite")
    engine.respond("isready")  # answered while the search runs
    assert engine.searching and out.lines == ["readyok"]
    engine.respond("go nodes 5")  # one search at a time
    engine.respond("position startpos moves e2e4")
    assert engine.board == chess.Board()
    engine.respond("stop")  # returns once bestmove is written
    assert not engine.searching
    lines = out.take()
    assert lines[1:3] == [
        "info string go refused: a search is running; send stop first",
        "info string position refused: a search is running; send stop first",
    ]
    assert lines[-1].startswith("bestmove ") and int(_fields(lines[-2])["nodes"]) >= 1
    engine.respond("stop")  # no search: nothing
    assert out.take() == []


def test_go_infinite_waits_for_stop_even_when_the_search_ends_first():
    engine, out = _engine(iterations=10, options={"max_nodes": 5})
    engine.respond("go infinite")
    assert not out.bestmove.wait(timeout=0.5)  # the spec: bestmove only after stop
    assert engine.searching
    engine.respond("stop")
    *_, info, bestmove = out.take()
    assert _fields(info)["nodes"] == "4" and bestmove.startswith("bestmove ")


def test_depth_and_other_unsupported_go_tokens_are_ignored_with_a_note():
    engine, out = _engine(iterations=20)
    engine.respond("go depth 5 ponder")
    assert out.bestmove.wait(timeout=60)
    lines = out.take()
    assert lines[0] == (
        "info string go: depth 5, ponder not supported by this MCTS engine (no fixed depth, "
        "no pondering); ignored"
    )
    assert _fields(lines[1])["nodes"] == "20"  # the engine's own budget


def test_searchmoves_restricts_the_root_and_the_budget_after_them_is_read():
    engine, out = _engine(iterations=20)
    engine.respond("go searchmoves a2a3 h2h3 nodes 7")
    assert out.bestmove.wait(timeout=60)
    info, bestmove = out.take()
    assert _fields(info)["nodes"] == "7"  # nodes after the moves is go's budget
    assert bestmove in ("bestmove a2a3", "bestmove h2h3")
    # Scholar's mate on the board: with the mate among them it is played; without, another
    engine.respond("position startpos moves e2e4 e7e5 d1h5 b8c6 f1c4 g8f6")
    engine.respond("go searchmoves h5f7 a2a3 nodes 30")
    assert out.bestmove.wait(timeout=60)
    assert out.take()[-1] == "bestmove h5f7"
    engine.respond("go searchmoves a2a3 b2b3 nodes 30")
    assert out.bestmove.wait(timeout=60)
    assert out.take()[-1] in ("bestmove a2a3", "bestmove b2b3")
    engine.respond("go searchmoves e2e5 nodes 5")
    assert out.take() == [
        "info string go refused: searchmoves' 'e2e5' is not legal in "
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    ]


def test_go_refuses_a_budget_that_is_not_a_positive_int():
    engine, out = _engine(iterations=10)
    engine.respond("go movetime soon")
    engine.respond("go nodes 0")
    assert out.take() == [
        "info string go refused: movetime takes an integer, got 'soon'",
        "info string go refused: nodes is an int >= 1, got 0",
    ]
    assert not engine.searching


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        ("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1", "checkmate, no legal move"),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "stalemate, no legal move"),
        ("7k/8/8/8/8/8/8/K7 w - - 0 1", "insufficient material (neither side can mate), a draw"),
    ],
)
def test_go_when_the_game_is_over_says_why_and_answers_no_move(fen, reason):
    engine, out = _engine(iterations=10)
    engine.respond(f"position fen {fen}")
    engine.respond("go nodes 10")
    assert out.bestmove.wait(timeout=60)
    info, bestmove = out.take()
    assert info == f"info string the game is over: {reason}" and bestmove == "bestmove (none)"


@pytest.mark.parametrize(
    ("fen", "moves"),
    [
        # the fifty-move rule: claimable, so PettingZoo's game is over, but a UCI GUI plays on
        ("7k/8/8/8/8/8/P7/K7 w - - 100 80", ()),
        # the start position a second time, black to move: a knight move back makes it a third
        (chess.STARTING_FEN, ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1")),
    ],
)
def test_go_where_a_draw_can_be_claimed_still_answers_a_legal_move(fen, moves):
    board = chess.Board(fen)
    for uci in moves:
        board.push_uci(uci)
    assert board.can_claim_draw() and board.outcome() is None
    engine, out = _engine(iterations=10)
    engine.respond(f"position fen {fen}" + (f" moves {' '.join(moves)}" if moves else ""))
    engine.respond("go nodes 10")
    assert out.bestmove.wait(timeout=60)
    info, bestmove = out.take()
    assert info.startswith("info string a draw can be claimed here")
    assert chess.Move.from_uci(bestmove.split()[1]) in board.legal_moves


def test_unknown_commands_are_noted_and_unknown_words_before_a_command_skipped():
    engine, out = _engine(iterations=10)
    engine.respond("hello there")
    engine.respond("joho isready")  # the spec: ignore the unknown token, parse the rest
    engine.respond("   ")
    assert out.take() == ["info string unknown command 'hello there'; ignored", "readyok"]


def test_quit_stops_a_search_and_nothing_is_written_after_it():
    engine, out = _engine(iterations=10)
    engine.respond("go infinite")
    engine.respond("quit")
    assert engine.quit and not engine.searching
    engine.respond("isready")
    assert out.take() == []


def test_the_engine_refuses_its_own_options_and_options_mcts_refuses():
    with pytest.raises(ValueError, match=r"options \['on_iteration', 'seed'\] are the engine's"):
        UCIEngine(print, options={"seed": 1, "on_iteration": None})
    with pytest.raises(ValueError, match="on_iteration"):
        UCIEngine(print, options={"workers": 2})  # searched in workers: stop could not reach
    with pytest.raises(TypeError, match="output must be a callable"):
        UCIEngine("stdout")


SESSION = """\
uci
isready
position startpos moves e2e4
quit
go nodes 5
"""


def test_the_cli_answers_a_scripted_session_and_stops_at_quit(capsys):
    assert main(["uci", "--iterations", "10", "--seed", "2"], stdin=io.StringIO(SESSION)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"id name mcts_agent {__version__}"
    assert lines[2:] == [
        f"option name Seed type spin default 2 min 0 max {MAX_SEED}",
        "uciok",
        "readyok",
    ]


@pytest.mark.parametrize(
    ("commands", "last"),
    [
        ("position startpos moves e2e4\ngo nodes 30\n", "bestmove "),  # piped, no quit
        ("go infinite\n", "bestmove "),  # stopped at the end of input, as by stop
        ("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 80\ngo nodes 5\n", "bestmove (none)"),
    ],
)
def test_the_cli_says_bestmove_when_the_input_ends_during_a_search(commands, last, capsys):
    assert main(["uci", "--iterations", "10"], stdin=io.StringIO(commands)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith(last)
    if last == "bestmove ":
        board = chess.Board()
        if "e2e4" in commands:
            board.push_uci("e2e4")
        assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    if "nodes 30" in commands:
        assert _fields(lines[-2])["nodes"] == "30"  # the search ran its whole budget


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--options", "workers=2"], "argument --options: on_iteration"),
        (["--options", "iterations=5"], "give iterations with its own option --iterations"),
        (["--seed", str(MAX_SEED + 1)], "argument --seed: expected an int in 0..2147483647"),
        (["--options", "bogus=1"], "unknown MCTS option 'bogus'; valid options: iterations"),
        (["--options", "evaluator=nothing"], "has no evaluator 'nothing' (it has: 'heuristic'"),
    ],
)
def test_the_cli_refuses_bad_options_before_reading_commands(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["uci", *argv], stdin=io.StringIO("uci\n"))
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


UCI_COMMAND = [sys.executable, "-m", "mcts_agent.cli", "uci", "--iterations", "50"]


def test_python_chess_plays_a_game_against_the_cli_engine():
    # python-chess's own UCI client, as a GUI drives an engine: handshake, position, go, stop
    engine = chess.engine.SimpleEngine.popen_uci(UCI_COMMAND, timeout=60)
    try:
        assert engine.id["name"] == f"mcts_agent {__version__}"
        assert "Seed" in engine.options
        engine.configure({"Seed": 5})
        board = chess.Board()
        limits = [
            chess.engine.Limit(nodes=30),
            chess.engine.Limit(time=0.05),
            chess.engine.Limit(white_clock=3, black_clock=3, white_inc=0, black_inc=0),
            None,  # go with no budget: the engine's --iterations 50
        ] * 2
        for limit in limits:
            if limit is None:
                result = engine.play(board, chess.engine.Limit(), info=chess.engine.INFO_ALL)
            else:
                result = engine.play(board, limit, info=chess.engine.INFO_ALL)
            assert result.move in board.legal_moves
            assert result.info["nodes"] >= 1 and result.info["pv"][0] == result.move
            board.push(result.move)
        assert len(board.move_stack) == 8
        with engine.analysis(board) as analysis:  # go infinite, then stop
            for info in analysis:
                if info.get("nodes", 0) >= 1:
                    break
        assert analysis.wait().move in board.legal_moves
        board.set_fen(BACK_RANK_MATE)
        assert engine.play(board, chess.engine.Limit(nodes=200)).move == chess.Move.from_uci("a1a8")
    finally:
        engine.quit()


@pytest.mark.skipif(
    not os.access(STOCKFISH, os.X_OK),
    reason=f"Stockfish not at {STOCKFISH}: apt-get install stockfish",
)
def test_the_cli_engine_and_stockfish_play_moves_in_the_pettingzoo_env():
    from mcts_agent.envs.chess import ChessModel
    from mcts_agent.evaluation import make_game

    env = make_game("classic/chess_v6").make_env()
    env.reset(seed=0)
    ours = UCIPolicy(shlex.join(UCI_COMMAND), {"nodes": 20})
    stockfish = UCIPolicy(STOCKFISH, {"Skill Level": "0", "depth": 1})
    try:
        for ply in range(6):
            policy = (ours, stockfish)[ply % 2]
            action = policy(env)
            assert action in ChessModel().state_of(env).actions
            env.step(action)
    finally:
        ours.close()
        stockfish.close()
    assert len(env.unwrapped.board.move_stack) == 6


def test_the_cli_takes_chess_s_evaluator_by_name_as_search_does(capsys, monkeypatch):
    made = []
    monkeypatch.setattr("mcts_agent.cli.uci.UCIEngine", lambda *a, **k: made.append(k) or None)
    with pytest.raises(AttributeError):  # the stand-in engine cannot answer: made is enough
        main(
            ["uci", "--options", "evaluator=heuristic", "--exploration", "2.0"],
            stdin=io.StringIO(""),
        )
    from mcts_agent.envs.chess_evaluator import ChessEvaluator

    options = made[0]["options"]
    assert set(options) == {"evaluator", "exploration"} and options["exploration"] == 2.0
    assert isinstance(options["evaluator"], ChessEvaluator)  # make_game's "heuristic"


def test_uci_takes_exploration_as_search_does(capsys):
    # --exploration, as search and play spell it; in --options it is refused with that advice
    with pytest.raises(SystemExit):
        main(["uci", "--options", "exploration=2.0"], stdin=io.StringIO(""))
    assert "give exploration with its own option --exploration" in capsys.readouterr().err
    assert main(["uci", "--exploration", "2*sqrt(2)"], stdin=io.StringIO("quit\n")) == 0
