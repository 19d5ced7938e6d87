"""The mcts-agent command line: evaluate, search, play, and its argument errors."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import socket
import subprocess
import sys

import pettingzoo
import pytest
from pettingzoo.env_registry.exceptions import FailedToImport

from mcts_agent.cli import build_parser, main, parse_exploration
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.evaluation import PerfectPlayer, RandomPlayer, make_game, sweep

EVALUATE = [
    "evaluate",
    "--game",
    "tictactoe",
    "--opponent",
    "random",
    "perfect",
    "--iterations",
    "5",
    "40",
    "--games",
    "3",
    "--seed",
    "2",
    "--no-progress",
]


def table_of(output):
    """The table printed by evaluate: its title up to the line before the games count."""
    lines = output.splitlines()
    end = next(i for i, line in enumerate(lines) if re.match(r"\d+ games, ", line))
    return "\n".join(lines[:end])


def test_evaluate_prints_the_table_and_writes_json_csv_and_png(tmp_path, capsys):
    files = {name: tmp_path / f"out.{name}" for name in ("json", "csv", "png")}
    status = main(
        [*EVALUATE, "--workers", "1"]
        + ["--json", str(files["json"]), "--csv", str(files["csv"]), "--plot", str(files["png"])]
    )
    assert status == 0
    output = capsys.readouterr().out
    expected = sweep(
        make_game("tictactoe"), [RandomPlayer(), PerfectPlayer()], [5, 40], seeds=[2],
        games_per_seat=3, workers=1,
    )  # fmt: skip
    assert table_of(output) == expected.table()
    lines = output.splitlines()
    assert lines[0].startswith("tictactoe: MCTS vs each opponent, 3 games per seat, c = 2.83")
    assert lines[2].split() == ["opponent", "iterations", *"WDLWDL"]
    assert [line.split()[:2] for line in lines[3:7]] == [
        ["random", "5"],
        ["random", "40"],
        ["perfect", "5"],
        ["perfect", "40"],
    ]
    assert lines[7].startswith("24 games, ")

    data = json.loads(files["json"].read_text())
    assert len(data["matches"]) == 4
    assert all(len(m["games"]) == 6 for m in data["matches"])
    varying = "moves_per_second"
    assert [{k: v for k, v in row.items() if k != varying} for row in data["rows"]] == [
        {k: v for k, v in row.items() if k != varying} for row in expected.rows()
    ]
    rows = list(csv.DictReader(files["csv"].open()))
    assert len(rows) == 8
    for row, line in zip(rows[::2], lines[3:7], strict=True):
        assert [row["wins"], row["draws"], row["losses"]] == line.split()[2:5]
    assert files["png"].stat().st_size > 10_000
    assert files["png"].read_bytes()[:4] == b"\x89PNG"


def test_evaluate_gives_the_same_table_with_two_workers_and_on_ray(capsys):
    main([*EVALUATE, "--workers", "1"])
    serial = table_of(capsys.readouterr().out)
    main([*EVALUATE, "--workers", "2"])
    assert table_of(capsys.readouterr().out) == serial
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'mcts-agent[ray]')")
    main([*EVALUATE, "--backend", "ray"])  # starts and stops its own local Ray instance
    assert table_of(capsys.readouterr().out) == serial


def test_evaluate_sweeps_exploration_and_seeds_in_one_table(capsys):
    main(
        ["evaluate", "--opponent", "minimax", "--minimax-depth", "2", "--iterations", "5"]
        + ["--exploration", "sqrt(2)", "2*sqrt(2)", "--seed", "0", "1", "--games", "1"]
        + ["--workers", "1", "--no-progress"]
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split() == ["opponent", "c", "seed", "iterations", *"WDLWDL"]
    assert [line.split()[:4] for line in lines[3:7]] == [
        ["minimax(depth=2)", "1.41", "0", "5"],
        ["minimax(depth=2)", "1.41", "1", "5"],
        ["minimax(depth=2)", "2.83", "0", "5"],
        ["minimax(depth=2)", "2.83", "1", "5"],
    ]


def test_evaluate_counts_a_repeated_value_once_keeping_the_order(capsys):
    main(
        ["evaluate", "--opponent", "random", "random", "--iterations", "7", "5", "7", "5"]
        + ["--seed", "1", "1", "--exploration", "sqrt(2)", "1.4142135623730951", "--games", "1"]
        + ["--workers", "1", "--no-progress"]
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split() == ["opponent", "iterations", *"WDLWDL"]  # one c, one seed
    assert [line.split()[:2] for line in lines[3:5]] == [["random", "7"], ["random", "5"]]
    assert lines[5].startswith("4 games, ")


def test_search_lays_the_root_statistics_out_on_the_board(capsys):
    assert main(["search", "--board", "XX.OO....", "--iterations", "3000", "--seed", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["X X .", "O O .", ". . ."]
    assert lines[3] == "X to move; 3000 iterations, c = 2.83, seed 1"
    board_rows = [line.split("|") for line in lines[5:10:2]]
    assert [cell.strip() for cell in board_rows[0][:2]] == ["X", "X"]
    assert [cell.strip() for cell in board_rows[1][:2]] == ["O", "O"]
    stats = {}
    for cell, text in enumerate(cell for row in board_rows for cell in row):
        if text.strip() not in ("X", "O"):
            visits, value = text.split()
            stats[cell] = (int(visits), float(value))
    assert sorted(stats) == [2, 5, 6, 7, 8]
    assert sum(v for v, _ in stats.values()) == 3000
    assert max(stats, key=lambda c: stats[c][0]) == 2
    assert stats[2][1] == 1.0  # the win, for X
    assert lines[-1] == "move played: 2"


def test_search_from_an_o_position_reports_values_for_o(capsys):
    main(["search", "--board", "XX..O....", "--iterations", "2000"])
    output = capsys.readouterr().out
    assert "O to move" in output and "value for O" in output
    assert output.splitlines()[-1] == "move played: 2"  # the block


def test_play_reads_moves_from_stdin_and_reports_the_result(capsys):
    # The person (X) tries an occupied cell and a word, then plays the lowest free cell each turn.
    inputs = "4\n4\nhello\n" + "".join(f"{c}\n" for c in range(9)) * 3
    assert main(["play", "--iterations", "300", "--seed", "3"], stdin=io.StringIO(inputs)) == 0
    output = capsys.readouterr().out
    assert "'4' is not a free cell" in output
    assert "'hello' is not a free cell" in output
    # Replay: X plays 4, then the lowest free cell; O plays what MCTS said.
    machine_moves = [int(m) for m in re.findall(r"MCTS plays (\d)", output)]
    model = TicTacToeModel()
    state, winner = EMPTY_BOARD, None
    machine = iter(machine_moves)
    first = True
    while model.actions(state):
        mover = model.player(state)
        if mover == 1:
            action = 4 if first else min(model.actions(state))
            first = False
        else:
            action = next(machine)
        state, reward, _ = model.step(state, action)
        winner = mover if reward else winner
    assert next(machine, None) is None
    expected = {None: "draw", 1: "you win", 2: "MCTS (O) wins"}[winner]
    assert output.splitlines()[-1] == expected


def test_play_as_o_and_quit(capsys):
    status = main(["play", "--human", "O", "--iterations", "50"], stdin=io.StringIO("q\n"))
    assert status == 0
    output = capsys.readouterr().out
    assert re.search(r"MCTS plays \d \(\d+ of 50 visits", output)
    assert output.rstrip().endswith("game abandoned")
    main(["play", "--iterations", "50"], stdin=io.StringIO(""))  # end of input
    assert capsys.readouterr().out.rstrip().endswith("game abandoned")


def test_every_command_has_a_description_and_every_option_its_default(monkeypatch, capsys):
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert sorted(commands.choices) == ["evaluate", "play", "search"]
    for name, command in commands.choices.items():
        assert command.description, name
        for action in command._actions:
            if action.default not in (None, False, argparse.SUPPRESS):
                assert "(default: " in action.help, (name, action.dest)
    monkeypatch.setenv("COLUMNS", "200")  # no line wrapping in the help
    for command, iterations in (("search", 5000), ("play", 2000)):
        with pytest.raises(SystemExit) as done:
            main([command, "--help"])
        assert done.value.code == 0
        assert f"iterations per move (default: {iterations})" in capsys.readouterr().out


def test_parse_exploration():
    assert parse_exploration("2.5") == 2.5
    assert parse_exploration("sqrt(2)") == math.sqrt(2)
    assert parse_exploration("2*sqrt(2)") == 2 * math.sqrt(2)
    assert parse_exploration("2sqrt2") == 2 * math.sqrt(2)
    assert parse_exploration("0.5 * sqrt(8)") == 0.5 * math.sqrt(8)
    for bad in ("-1", "nan", "inf", "two", "sqrt(-2)", ""):
        with pytest.raises(Exception, match="expected a number >= 0"):
            parse_exploration(bad)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "--game", "chess"], "invalid choice: 'chess' (choose from 'tictactoe', "),
        (["evaluate", "--opponent", "alphazero"], "(choose from 'random', 'perfect', 'minimax')"),
        (["evaluate", "--game", "connect_four"], "'perfect' needs a game small enough"),
        (["evaluate", "--iterations", "0"], "expected an int >= 1, got 0"),
        (["evaluate", "--games", "many"], "expected an int >= 1, got 'many'"),
        (["evaluate", "--backend", "dask"], "(choose from 'process', 'ray')"),
        (["evaluate", "--address", "auto"], "--address: only with --backend ray"),
        (["evaluate", "--exploration", "big"], "expected a number >= 0"),
        (["search", "--board", "XXX"], "board must have 9 cells"),
        (["search", "--board", "XXXOO...."], "is a finished game"),
        (["search", "--board", "OO......."], "is not reachable in play"),
        (["search", "--game", "chess"], "(choose from 'tictactoe')"),
        (["play", "--human", "Z"], "(choose from 'X', 'O')"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_bad_arguments_exit_2_naming_the_valid_choices(argv, message, capsys):
    with pytest.raises(SystemExit) as error:
        main(argv)
    assert error.value.code == 2
    assert message in capsys.readouterr().err


def test_an_unreachable_ray_address_is_an_argument_error(capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SystemExit) as error:
        main([*EVALUATE, "--backend", "ray", "--address", f"127.0.0.1:{port}"])
    assert error.value.code == 2
    assert f"argument --address: no Ray cluster answers at '127.0.0.1:{port}'" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    "option, name, message",
    [
        ("--json", "missing/x.json", "argument --json: the directory '{tmp}/missing' of "),
        ("--csv", "missing/x.csv", "argument --csv: the directory '{tmp}/missing' of "),
        ("--plot", "missing/x.png", "argument --plot: the directory '{tmp}/missing' of "),
        ("--json", ".", "argument --json: '{tmp}/.' is a directory"),
        ("--plot", "p.txt", "argument --plot: matplotlib cannot write '{tmp}/p.txt'; end the "),
        ("--plot", "p", "argument --plot: matplotlib cannot write '{tmp}/p'; end the "),
    ],
)
def test_bad_output_files_are_argument_errors_before_any_game(
    option, name, message, tmp_path, capsys
):
    # Checked before the sweep: the table is not printed, and no game result is lost.
    with pytest.raises(SystemExit) as error:
        main([*EVALUATE, option, f"{tmp_path}/{name}"])
    assert error.value.code == 2
    output = capsys.readouterr()
    assert output.out == ""
    assert message.format(tmp=tmp_path) in output.err
    if name == "p.txt":
        assert ".pdf, .pgf, .png, .ps" in output.err


def no_pygame(env_type, env_id):
    raise ImportError("No module named 'pygame'")


def no_pygame_in_the_registry(env_type, env_id):
    # What pettingzoo.make raises when the entry point's import fails.
    try:
        no_pygame(env_type, env_id)
    except ImportError as error:
        raise FailedToImport(f"Failed to import entry point for {env_id!r}") from error


@pytest.mark.parametrize("maker", [no_pygame, no_pygame_in_the_registry])
def test_a_pettingzoo_game_without_its_extra_is_an_argument_error(maker, monkeypatch, capsys):
    monkeypatch.setattr(pettingzoo, "make", maker)
    argv = [*EVALUATE[:1], "--game", "classic/tictactoe-v3", *EVALUATE[3:]]
    with pytest.raises(SystemExit) as error:
        main(argv)
    assert error.value.code == 2
    output = capsys.readouterr()
    assert output.out == ""
    assert (
        "argument --game: classic/tictactoe-v3 needs PettingZoo and its classic envs: "
        "pip install 'mcts-agent[classic]' (No module named 'pygame')"
    ) in output.err


def test_plot_without_matplotlib_is_a_clear_error(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(SystemExit):
        main([*EVALUATE, "--plot", str(tmp_path / "p.png")])
    assert "needs matplotlib (pip install 'mcts-agent[plot]')" in capsys.readouterr().err
    result = sweep(make_game("tictactoe"), [RandomPlayer()], [2], games_per_seat=1, workers=1)
    with pytest.raises(ImportError, match=r"pip install 'mcts-agent\[plot\]'"):
        result.plot(tmp_path / "p.png")


def test_the_module_runs_as_a_program():
    done = subprocess.run(
        [sys.executable, "-m", "mcts_agent.cli", "search", "--board", "X.O.O...X"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "move played: 6"
