"""mcts-agent search and play for every game: the files search writes, its refusals, play."""

import io
import json
import re

import pydot
import pytest

from mcts_agent.cli import main
from mcts_agent.envs import connect_four
from mcts_agent.export import from_dict

PNG = b"\x89PNG\r\n\x1a\n"


def test_search_writes_every_file_it_promises(tmp_path, capsys):
    files = {name: tmp_path / f"out.{ext}" for name, ext in (
        ("dot", "dot"), ("json", "json"), ("plot", "png"), ("trace", "svg")
    )}  # fmt: skip
    argv = ["search", "--position", "XX.OO....", "--iterations", "400", "--seed", "1"]
    for name, path in files.items():
        argv += [f"--{name}", str(path)]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-4:] == [f"wrote {files[name]}" for name in ("dot", "json", "plot", "trace")]
    assert "principal variation: 2" in lines and "move played: 2" in lines
    (graph,) = pydot.graph_from_dot_data(files["dot"].read_text())
    assert graph.get_node("n0")[0].get("label") == '"root\\nto move: 1\\nN=400"'
    saved = from_dict(json.loads(files["json"].read_text()))
    assert saved[0].visits == 400 and sum(saved[c].visits for c in saved[0].children) == 400
    assert files["plot"].read_bytes()[:8] == PNG
    assert files["trace"].read_text().lstrip().startswith("<?xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in files.values())


@pytest.mark.parametrize(
    "options, message",
    [
        (["--dot", "{tmp}/missing/t.dot"], "argument --dot: the directory '{tmp}/missing' of"),
        (["--json", "{tmp}"], "argument --json: '{tmp}' is a directory; give a file name"),
        (["--plot", "{tmp}/root.txt"], "argument --plot: matplotlib cannot write '{tmp}/root.txt'"),
        (["--trace", "{tmp}/t.tree"], "argument --trace: matplotlib cannot write '{tmp}/t.tree'"),
        (["--trace", "/proc/t.png"], "--trace: cannot create files in the directory '/proc'"),
        (
            ["--plot", "{tmp}/a.png", "--trace", "{tmp}/a.png"],
            "argument --trace: '{tmp}/a.png' is the same file as --plot",
        ),
        (["--dot", ""], "argument --dot: expected a file name, got ''"),
    ],
)
def test_bad_output_paths_are_refused_before_the_search(options, message, tmp_path, capsys):
    argv = ["search", "--iterations", "100"] + [o.format(tmp=tmp_path) for o in options]
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    captured = capsys.readouterr()
    assert message.format(tmp=tmp_path) in captured.err
    assert captured.out == ""  # nothing searched, nothing printed
    assert list(tmp_path.iterdir()) == []


def test_search_on_connect_four_lists_the_moves_and_a_legal_line(tmp_path, capsys):
    plot = tmp_path / "c4.png"
    argv = ["search", "--game", "connect_four", "--position", "3 3 2", "--iterations", "2000"]
    assert main(argv + ["--plot", str(plot)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:6] == [".......", ".......", ".......", ".......", "...O...", "..XX..."]
    assert lines[6] == "O to move; 2000 iterations, c = 2.83, seed 0"
    table = lines[8 : 8 + 8]
    assert table[0].split() == ["move", "visits", "share", "value"]
    rows = [row.split() for row in table[1:]]
    assert sorted(int(r[0]) for r in rows) == list(range(7))
    assert sum(int(r[1]) for r in rows) == 2000
    assert [int(r[1]) for r in rows] == sorted((int(r[1]) for r in rows), reverse=True)
    assert lines[16].startswith("principal variation: ")
    line = [int(m) for m in lines[16].removeprefix("principal variation: ").split()]
    assert line[0] == int(rows[0][0]) == int(lines[-2].removeprefix("move played: "))
    model, state = (
        connect_four.ConnectFourModel(),
        connect_four.parse_board("." * 28 + "...O..." + "..XX..."),
    )
    for move in line:  # the line is legal from the position searched
        assert move in model.actions(state)
        state = model.step(state, move).next_state
    assert plot.read_bytes()[:8] == PNG


def test_pettingzoo_chess_finds_the_mate_and_names_moves_in_san(capsys):
    # Scholar's mate: after 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6, Qxf7 mates (the moves typed in UCI).
    opening = "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6"
    argv = ["search", "--game", "classic/chess-v6", "--position", opening, "--solve"]
    assert main(argv + ["--iterations", "200", "--rollout-limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "8 r . b q k b . r" and lines[8] == "  a b c d e f g h"
    assert lines[9].startswith("white to move; 200 iterations")
    assert lines[11].split()[:2] == ["move", "visits"]
    # PUCT with ChessEvaluator (the chess defaults): the mate is proven at its first visit.
    assert lines[12].split()[:4] == ["Qxf7#", "1", "50.0%", "+1.000"]
    assert lines[12].split()[-1] == "+1"
    assert lines[13].split()[0] == "Bxf7+" and lines[13].split()[-1] == "-"
    assert lines[27] == "... 28 fewer visited moves"
    assert "principal variation: Qxf7#" in lines
    assert re.search(r"stopped on solved; proven value \+1$", lines[-2])
    assert lines[-1] == "move played: Qxf7#"


def test_play_chess_as_black_typing_uci_moves_named_in_san(capsys):
    inputs = io.StringIO("e7e4\ne7e5\nq\n")
    argv = ["play", "--game", "classic/chess-v6", "--human", "black", "--iterations", "3"]
    assert main(argv + ["--rollout-limit", "1"], stdin=inputs) == 0
    output = capsys.readouterr().out
    assert output.startswith("You play black, MCTS plays white (3 iterations per move). ")
    assert len(re.findall(r"MCTS plays (?:[NBRQK]?[a-h][1-8]) \(\d+ of 3 visits", output)) == 2
    assert "'e7e4' is not a legal move; enter a move in UCI (e2e4, e7e8q) or SAN" in output
    assert "or SAN (e4, Nf3, O-O, exd8=Q): a6, a5, Na6, Nc6," in output
    assert output.rstrip().endswith("game abandoned")


def test_play_connect_four_to_the_end(capsys):
    # The person drops every disc in the lowest-numbered column with room.
    inputs = io.StringIO("".join(f"{c}\n" for c in range(7) for _ in range(6)))
    assert main(["play", "--game", "connect_four", "--iterations", "200"], stdin=inputs) == 0
    output = capsys.readouterr().out.rstrip().splitlines()
    assert output[0].startswith("You play X, MCTS plays O (200 iterations per move). Enter a ")
    assert output[-1] in ("draw", "you win", "MCTS (O) wins")
    assert output[-1] == "MCTS (O) wins"  # so naive a player loses to 200 iterations
    assert output[-2] == "0123456"


def test_play_from_a_position_as_the_second_player(capsys):
    inputs = io.StringIO("q\n")
    argv = ["play", "--position", "4", "--human", "second", "--iterations", "50"]
    assert main(argv, stdin=inputs) == 0
    output = capsys.readouterr().out
    assert output.startswith("You play O, MCTS plays X (50 iterations per move).")
    assert " 0 | 1 | 2\n---+---+---\n 3 | X | 5" in output  # O to move after X's 4


@pytest.mark.parametrize(
    "game, message",
    [
        ("classic/hanabi-v5", "hidden information"),
        ("classic/nothing-v0", "unknown game 'classic/nothing-v0'"),
    ],
)
def test_games_the_adapter_cannot_plan_are_argument_errors(game, message, capsys):
    with pytest.raises(SystemExit) as done:
        main(["search", "--game", game, "--iterations", "10"])
    assert done.value.code == 2
    assert message in capsys.readouterr().err


def test_pettingzoo_tictactoe_is_searched_on_our_model(capsys):
    argv = ["search", "--game", "classic/tictactoe-v3", "--position", "XX.OO...."]
    assert main(argv + ["--iterations", "500"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "move played: 2"


def test_search_takes_an_evaluator_and_any_option_with_options(capsys):
    argv = ["search", "--game", "connect_four", "--iterations", "300"]
    assert main([*argv, "--options", "evaluator=heuristic,selection=puct"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[8].split() == ["move", "visits", "share", "value", "prior"]  # the evaluator's
    rows = [line.split() for line in lines[9:16]]
    assert sum(int(row[1]) for row in rows) == 300
    assert sum(float(row[4]) for row in rows) == pytest.approx(1.0, abs=0.01)
    assert rows[0][0] == "3" and float(rows[0][4]) == max(float(row[4]) for row in rows)
    assert lines[-1] == "move played: 3"  # the centre column, first in the heuristic's priors
    assert main(argv) == 0  # without an evaluator: uniform priors, no prior column
    assert capsys.readouterr().out.splitlines()[8].split() == ["move", "visits", "share", "value"]


@pytest.mark.parametrize(
    "options, message",
    [
        (["evaluator=heuristic"], "tictactoe has no evaluator 'heuristic' (it has: none;"),
        (["gama=1"], "unknown MCTS option 'gama'; valid options: "),
        (["exploration=1"], "give exploration with its own option --exploration"),
        (["gamma=0.9,1.0"], "gamma takes one value here (evaluate sweeps several), got 0.9, 1.0"),
        (["gamma=0.9", "gamma=1.0"], "'gamma' given twice"),
    ],
)
def test_search_option_errors_name_the_option(options, message, capsys):
    argv = ["search", "--iterations", "10"]
    with pytest.raises(SystemExit) as done:
        main(argv + [arg for option in options for arg in ("--options", option)])
    assert done.value.code == 2
    captured = capsys.readouterr()
    assert f"argument --options: {message}" in captured.err and captured.out == ""


def test_play_takes_options_spelled_option_too(capsys):
    argv = [
        "play",
        "--game",
        "connect_four",
        "--iterations",
        "50",
        "--option",
        "evaluator=heuristic",
    ]
    assert main(argv, stdin=io.StringIO("0\nq\n")) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # --option is --options, not a deprecated spelling
    assert re.search(r"MCTS plays \d \(\d+ of 50 visits", captured.out)


def test_a_tiny_search_prints_its_time_and_rate_not_zero(capsys):
    assert main(["search", "--iterations", "1"]) == 0
    line = capsys.readouterr().out.splitlines()[-2]
    match = re.fullmatch(r"1 iteration in (\S+) s \(([\d,.]+) iterations/s\), 2 nodes, .*", line)
    assert match and float(match[1]) > 0 and float(match[2].replace(",", "")) > 0
    assert "0.000 s" not in line


def test_search_goes_on_when_the_env_cannot_draw_its_text_board(capsys):
    # PettingZoo's tic-tac-toe accepts render_mode="ansi" but draws with pygame, and raises:
    # the board line says so, and the search is still printed.
    assert (
        main(["search", "--game", "classic/tictactoe-v3:render_mode=ansi", "--iterations", "50"])
        == 0
    )
    out = capsys.readouterr().out
    assert "(no board to show: tictactoe_v3's render() in render_mode='ansi' raised" in out
    assert "visits and value for player_1 of each move:" in out
