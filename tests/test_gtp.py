"""The GTP engine (mcts_agent.gtp) and ``mcts-agent gtp``: the protocol's required commands."""

from __future__ import annotations

import io
import queue
import subprocess
import sys
import threading
from typing import TextIO

import pytest

from mcts_agent.cli import main
from mcts_agent.defaults import GO_EXPLORATION
from mcts_agent.envs.go import BLACK, WHITE, GoModel, GoState, parse_board
from mcts_agent.gtp import COMMANDS, GTPEngine, action_of, vertex_of


def _engine(**kwargs) -> GTPEngine:
    kwargs.setdefault("iterations", 20)
    return GTPEngine(**kwargs)


def test_vertices_count_rows_from_the_bottom_and_skip_i():
    assert action_of("A1", 9) == 72  # bottom-left: row 8, column 0
    assert action_of("a9", 9) == 0  # top-left, any case
    assert action_of("J9", 9) == 8  # no I: J is the ninth column
    assert action_of("H2", 9) == 7 * 9 + 7
    assert action_of("T19", 19) == 18  # top-right of 19x19
    assert action_of("A19", 19) == 0
    assert action_of("pass", 9) == action_of("PASS", 9) == 81
    assert vertex_of(72, 9) == "A1"
    assert vertex_of(8, 9) == "J9"
    assert vertex_of(18, 19) == "T19"
    assert vertex_of(360, 19) == "T1"
    assert vertex_of(81, 9) == "pass"
    for size in (2, 9, 19, 25):
        for action in range(size * size + 1):
            assert action_of(vertex_of(action, size), size) == action


@pytest.mark.parametrize("vertex", ["I5", "K1", "A10", "A0", "E", "5A", "", "pas"])
def test_a_vertex_off_a_9x9_board_is_refused(vertex):
    with pytest.raises(ValueError, match="vertex"):
        action_of(vertex, 9)


def test_vertex_of_refuses_actions_and_sizes_out_of_range():
    with pytest.raises(ValueError, match=r"0\.\.81, got 82"):
        vertex_of(82, 9)
    with pytest.raises(ValueError, match=r"2\.\.25, got 26"):
        vertex_of(0, 26)


def test_the_administrative_commands_echo_their_ids():
    engine = _engine()
    assert engine.respond("protocol_version") == "= 2\n\n"
    assert engine.respond("7 protocol_version\n") == "=7 2\n\n"
    assert engine.respond("3 name") == "=3 mcts-agent\n\n"
    assert engine.respond("known_command genmove") == "= true\n\n"
    assert engine.respond("4 known_command resign") == "=4 false\n\n"
    assert engine.respond("5 list_commands") == "=5 " + "\n".join(COMMANDS) + "\n\n"
    for required in ("protocol_version", "name", "version", "known_command", "list_commands"):
        assert required in COMMANDS
    assert engine.respond("8 frobnicate") == "?8 unknown command\n\n"
    assert engine.respond("known_command").startswith("? syntax error")
    assert not engine.quit
    assert engine.respond("9 quit") == "=9 \n\n"
    assert engine.quit


def test_comments_empty_lines_and_control_characters_are_ignored():
    engine = _engine()
    assert engine.respond("# a comment") == ""
    assert engine.respond("   \n") == ""
    assert engine.respond("\tname\x07 # trailing comment") == "= mcts-agent\n\n"


def test_boardsize_clear_board_and_komi_make_a_new_game():
    engine = _engine()
    assert engine.respond("play black E5") == "= \n\n"
    assert engine.respond("1 boardsize 5") == "=1 \n\n"
    assert engine.model.board_size == 5
    assert engine.state == GoModel(5).initial_state()  # boardsize clears the board
    assert engine.respond("2 boardsize 1") == "?2 unacceptable size\n\n"
    assert engine.respond("boardsize 26") == "? unacceptable size\n\n"
    assert engine.respond("boardsize nine").startswith("? syntax error")
    assert engine.model.board_size == 5
    assert engine.respond("play b C3") == "= \n\n"
    assert engine.respond("3 komi 0.5") == "=3 \n\n"
    assert engine.model.komi == 0.5
    assert engine.state.board.count(BLACK) == 1  # komi keeps the position
    assert engine.respond("komi -3") == "= \n\n"
    assert engine.model.komi == -3.0
    assert engine.respond("komi lots").startswith("? syntax error")
    assert engine.respond("komi nan").startswith("? syntax error")
    assert engine.respond("4 clear_board") == "=4 \n\n"
    assert engine.state == GoModel(5, -3.0).initial_state()


def test_play_places_stones_captures_and_refuses_illegal_moves():
    engine = _engine(board_size=5)
    for line in ("play b B5", "play w A5", "play b A4"):  # black takes the corner stone
        assert engine.respond(line) == "= \n\n"
    assert engine.state.board[0] == 0 and engine.state.board[1] == BLACK
    assert engine.respond("1 play w B5") == "?1 illegal move\n\n"  # occupied
    assert engine.respond("play w A5") == "? illegal move\n\n"  # suicide
    assert engine.respond("2 play b C3") == "?2 white is to move, not black " + (
        "(this engine has the colours alternate)\n\n"
    )
    assert engine.respond("play w Z9").startswith("? syntax error: a 5x5 GTP vertex")
    assert engine.respond("play green C3").startswith("? syntax error: a colour")
    assert engine.respond("play w").startswith("? syntax error: expected a colour and a vertex")
    assert engine.respond("play WHITE pass") == "= \n\n"
    assert engine.respond("play b pass") == "= \n\n"
    assert engine.respond("play w C3") == "? game is over (two passes)\n\n"
    assert engine.respond("genmove w") == "? game is over (two passes)\n\n"
    assert engine.respond("showboard").endswith("\ngame over (two passes), komi 7.5\n\n")


def test_simple_ko_is_refused_for_one_move():
    # black's D3 takes white's C3 in a ko shape: white may not retake at C3 at once
    engine = _engine(board_size=5)
    for line in [
        "play b B3", "play w D4", "play b C4", "play w E3",
        "play b C2", "play w D2", "play b A1", "play w C3", "play b D3",
    ]:  # fmt: skip
        assert engine.respond(line) == "= \n\n", line
    assert engine.state.board.count(WHITE) == 3
    assert engine.respond("play w C3") == "? illegal move\n\n"
    assert engine.respond("play w A5") == "= \n\n"
    assert engine.respond("play b A4") == "= \n\n"
    assert engine.respond("play w C3") == "= \n\n"  # a move later, the retake is legal
    assert engine.state.board.count(BLACK) == 5


def test_genmove_plays_a_legal_move_for_the_colour_to_move():
    engine = _engine(board_size=9, iterations=30, seed=1)
    model = GoModel(9)
    state = model.initial_state()
    for colour in ("b", "white", "B", "w"):
        response = engine.respond(f"12 genmove {colour}")
        assert response.startswith("=12 ") and response.endswith("\n\n")
        action = action_of(response[4:-2], 9)
        assert action in model.actions(state)
        state = model.step(state, action).next_state
        assert engine.state == state
    assert engine.respond("genmove w") == "? black is to move, not white " + (
        "(this engine has the colours alternate)\n\n"
    )
    assert engine.respond("genmove").startswith("? syntax error")


def test_genmove_captures_a_group_in_atari():
    # white's three stones have one liberty, D4: black takes them (and the game)
    engine = _engine(board_size=5, iterations=400, seed=0)
    for line in [
        "play b B4", "play w pass", "play b C4", "play w pass", "play b A3", "play w pass",
        "play b E3", "play w pass", "play b B2", "play w B3", "play b C2", "play w C3",
        "play b D2", "play w D3",
    ]:  # fmt: skip
        assert engine.respond(line) == "= \n\n", line
    assert engine.state == GoState(parse_board(".....\n.XX..\nXOOOX\n.XXX.\n....."), BLACK, -1, 0)
    assert engine.respond("genmove b") == "= D4\n\n"
    assert engine.state.board.count(WHITE) == 0


def test_showboard_draws_the_board_with_gtp_coordinates():
    engine = _engine(board_size=3, komi=0.5)
    engine.respond("play b A1")
    engine.respond("play w C3")
    assert engine.respond("showboard") == (
        "= \n   A B C\n 3 . . O 3\n 2 . . . 2\n 1 X . . 1\n   A B C\nblack to move, komi 0.5\n\n"
    )


def test_the_engine_refuses_a_bad_setup():
    with pytest.raises(ValueError, match=r"2\.\.25, got 30"):
        GTPEngine(30, iterations=1)
    with pytest.raises(TypeError, match="a search needs a budget"):
        GTPEngine(9)
    with pytest.raises(TypeError):
        _engine().respond(b"name")


SESSION = """\
1 protocol_version
# GoGui sends comments too
2 boardsize 5
3 komi 0.5
4 play black C3
5 genmove white
6 list_commands
7 quit
8 name
"""


def test_the_cli_answers_a_scripted_session(capsys):
    status = main(
        ["gtp", "--game", "go:7", "--iterations", "10", "--seed", "3"], stdin=io.StringIO(SESSION)
    )
    assert status == 0
    responses = capsys.readouterr().out.split("\n\n")
    assert responses[:4] == ["=1 2", "=2 ", "=3 ", "=4 "]
    assert responses[4].startswith("=5 ")
    model = GoModel(5)
    after_c3 = model.step(model.initial_state(), action_of("C3", 5)).next_state
    assert action_of(responses[4][3:], 5) in model.actions(after_c3)
    assert responses[5] == "=6 " + "\n".join(COMMANDS)
    assert responses[6:] == ["=7 ", ""]  # nothing after quit


def _put_lines(stream: TextIO, lines: queue.Queue) -> None:
    """Puts each line of ``stream`` into ``lines`` as it comes, then ``""`` at its end."""
    for line in stream:
        lines.put(line)
    lines.put("")


def _read_response(lines: queue.Queue) -> str:
    """One response from ``lines`` (the engine's stdout, a line at a time), up to its empty
    line; fails after 60 s without a line."""
    response = []
    while (line := lines.get(timeout=60)) != "\n":
        assert line, f"the engine closed stdout; so far {response!r}"
        response.append(line)
    return "".join(response)


def test_the_cli_answers_each_command_as_it_comes_and_stops_at_the_end_of_stdin():
    # a controller waits for each response before its next command: no buffering
    process = subprocess.Popen(
        [sys.executable, "-m", "mcts_agent.cli", "gtp", "--iterations", "5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_put_lines, args=(process.stdout, lines), daemon=True).start()
    try:
        process.stdin.write("name\n")
        process.stdin.flush()
        assert _read_response(lines) == "= mcts-agent\n"
        process.stdin.write("3 genmove b\n")
        process.stdin.flush()
        move = _read_response(lines)
        assert move.startswith("=3 ")
        assert action_of(move[3:-1], 9) in GoModel(9).actions(GoModel(9).initial_state())
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        assert lines.get(timeout=60) == ""  # nothing more
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize("game", ["go:1", "go:26", "tictactoe", "go"])
def test_the_cli_refuses_a_game_that_is_not_go_of_a_gtp_size(game, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["gtp", "--game", game])
    assert exit_info.value.code == 2
    assert "expected go:N with a board size N in 2..25" in capsys.readouterr().err


def test_the_engine_takes_other_mcts_options_over_the_go_defaults():
    engine = GTPEngine(5, iterations=10, options={"rollout_limit": 7, "rave_bias": 0.5})
    planner = engine._planner
    assert planner.rollout_limit == 7 and planner.rave_bias == 0.5
    assert planner.exploration == GO_EXPLORATION  # the go default kept where not given
    assert (
        GTPEngine(
            5, iterations=10, exploration=1.5, options={"exploration": 3.0}
        )._planner.exploration
        == 1.5
    )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("gama=1", "unknown MCTS option 'gama'"),
        ("evaluator=heuristic", "has no evaluator 'heuristic'"),
        ("rollout_limit=-1", "rollout_limit"),
    ],
)
def test_the_cli_refuses_bad_options_before_any_command(option, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["gtp", "--iterations", "5", "--option", option], stdin=io.StringIO("name\n"))
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_the_cli_passes_options_to_the_search(capsys):
    argv = ["gtp", "--game", "go:5", "--iterations", "10", "--option", "rollout_limit=3"]
    assert main(argv, stdin=io.StringIO("genmove b\nquit\n")) == 0
    move = capsys.readouterr().out.split("\n\n")[0]
    assert move.startswith("= ") and action_of(move[2:], 5) in GoModel(5).actions(
        GoModel(5).initial_state()
    )
