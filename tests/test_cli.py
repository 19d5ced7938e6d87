"""The mcts-agent command line: evaluate, search, play, and its argument errors."""

from __future__ import annotations

import argparse
import contextlib
import csv
import errno
import importlib.metadata
import io
import json
import math
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pettingzoo
import pytest
from pettingzoo.env_registry.exceptions import FailedToImport

import mcts_agent
from mcts_agent.cli import MAX_GAMES, build_parser, main, parse_exploration
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.evaluation import (
    MCTSPlayer,
    PerfectPlayer,
    RandomPlayer,
    game_seeds,
    make_game,
    play_match,
    sweep,
)
from mcts_agent.evaluation import results as results_module

ROOT = Path(__file__).resolve().parent.parent

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
    assert "'4' is not a legal move; enter a cell number 0-8, row by row: 0, 1, 2, 3, 5," in output
    assert "'hello' is not a legal move" in output
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


class CtrlC(io.StringIO):
    def readline(self, *args):
        raise KeyboardInterrupt


def test_ctrl_c_in_play_exits_130_with_one_line(capsys):
    assert main(["play", "--iterations", "10"], stdin=CtrlC()) == 130
    assert capsys.readouterr().err == "\nmcts-agent: interrupted\n"


def test_every_command_has_a_description_and_every_option_its_default(monkeypatch, capsys):
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert sorted(commands.choices) == [
        "evaluate",
        "gtp",
        "multiplayer",
        "plan",
        "play",
        "search",
        "tournament",
        "train",
        "uci",
    ]
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


def test_the_top_level_help_names_every_command_with_its_line(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    commands = build_parser()._subparsers._group_actions[0]
    for name, choice in zip(commands.choices, commands._choices_actions, strict=True):
        (line,) = [line for line in lines if line.split()[:1] == [name]]
        assert line.split(maxsplit=1)[1] == choice.help and len(line) <= 78  # one line each
    assert "evaluate, tournament, plan, search, multiplayer, play" in " ".join(lines)


def test_every_command_that_plans_takes_options_also_spelled_option():
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for name in ("evaluate", "tournament", "plan", "search", "multiplayer", "play"):
        flags = {flag for action in commands[name]._actions for flag in action.option_strings}
        assert {"--options", "--option"} <= flags, name
        if name != "tournament" and name != "multiplayer":
            assert "--time-limit" in flags and "--iterations" in flags, name
        help_text = commands[name].format_help()
        assert "--options NAME=VALUE,..., --option NAME=VALUE,..." in help_text, name
        spellings = commands[name]._option_string_actions
        assert spellings["--option"] is spellings["--options"], name  # one option, two names


def test_tournament_and_multiplayer_give_options_to_every_mcts_agent(capsys):
    argv = ["tournament", "--agents", "mcts:iterations=5", "random", "--games", "2"]
    argv += ["--workers", "1", "--no-progress", "--anchor", "mcts:iterations=5"]
    assert main([*argv, "--options", "gamma=0.9,max_depth=3"]) == 0
    out = capsys.readouterr().out
    assert "mcts:iterations=5,gamma=0.9,max_depth=3  random" in out
    assert re.search(r"mcts:iterations=5,gamma=0.9,max_depth=3 +\+0 ", out)  # the anchor
    assert re.search(r"^2 games, \S+ s$", out, re.MULTILINE) and "0.0 s" not in out
    with pytest.raises(SystemExit):
        main([*argv, "--options", "iterations=9"])
    assert "agent spec 'mcts:iterations=5' sets iterations too" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["tournament", "--agents", "random", "perfect", "--options", "gamma=0.9"])
    assert "argument --options: no mcts agent to give them to" in capsys.readouterr().err
    argv = ["multiplayer", "--game", "three_in_a_row", "--games", "1"]
    argv += ["--agents", "mcts:gamma=0.9", "random", "mcts", "--options", "iterations=4"]
    assert main(argv) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()[2:]]
    assert rows == ["mcts:gamma=0.9,iterations=4", "random", "mcts:iterations=4"]


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
        (
            ["evaluate", "--game", "chess"],
            "argument --game: unknown game 'chess': neither one of our models (tictactoe, ",
        ),
        (
            ["evaluate", "--opponent", "alphazero"],
            "argument --opponent: agent spec 'alphazero': unknown agent 'alphazero'; valid "
            "agents: random, perfect, minimax, mcts",
        ),
        (
            ["evaluate", "--game", "connect_four", "--opponent", "perfect"],
            "argument --opponent: agent spec 'perfect': perfect play needs a game small enough",
        ),
        (
            ["evaluate", "--game", "classic/hanabi-v5"],
            "argument --game: mcts_agent plans deterministic games of perfect information, and",
        ),
        (["tournament"], "the following arguments are required: --agents"),
        (["tournament", "--agents", "random"], "--agents: a tournament needs two agents or more"),
        (["tournament", "--agents", "random", "perfect", "--games", "3"], "expected an even"),
        (["tournament", "--agents", "random", "mcts:iterations=-1"], "iterations must be >= 1"),
        (
            ["tournament", "--agents", "random", "perfect", "minimax", "--sprt", "0,10"],
            "argument --sprt: a test of two agents, got 3",
        ),
        (["tournament", "--agents", "random", "perfect", "--sprt", "10,0"], "elo0 < elo1"),
        (["tournament", "--agents", "random", "perfect", "--anchor", "x"], "'x' is not one of"),
        (["evaluate", "--games", str(MAX_GAMES + 1)], "expected an int in [1, 100000], got 100001"),
        (["evaluate", "--games", str(10**12)], "expected an int in [1, 100000], got 1000000000000"),
        (["evaluate", "--iterations", "0"], "expected an int >= 1, got 0"),
        (["evaluate", "--games", "many"], "expected an int in [1, 100000], got 'many'"),
        (["evaluate", "--backend", "dask"], "(choose from 'process', 'ray')"),
        (["evaluate", "--address", "auto"], "--address: only with --backend ray"),
        (["evaluate", "--exploration", "big"], "expected a number >= 0"),
        (["search", "--board", "XXX"], "board must have 9 cells"),
        (["search", "--board", "XXXOO...."], "is a finished game"),
        (["search", "--board", "OO......."], "is not reachable in play"),
        (["search", "--game", "chess"], "unknown game 'chess': neither one of our models"),
        (["play", "--human", "Z"], "(choose from 'X', 'O', 'first', 'second')"),
        (["play", "--game", "classic/chess-v6", "--human", "X"], "choose from 'white', 'black'"),
        (["search", "--position", "4 4"], "move 2 of '4 4': '4' is not a legal move"),
        (["search", "--game", "connect_four", "--position", "7"], "'7' is not a legal move"),
        (["search", "--game", "classic/chess-v6", "--position", "e2e5"], "'e2e5' is not a legal"),
        (["search", "--position", "0 3 1 4 2 5"], "the game is over before move 6"),
        (["play", "--position", "XXXOO...."], "is a finished game; nothing to play"),
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


# ------------------------------------------------ defaults and the version


def test_the_default_opponents_suit_the_game(capsys):
    # connect four has no perfect player: its defaults are random and minimax.
    argv = ["evaluate", "--iterations", "2", "--games", "1", "--workers", "1", "--no-progress"]
    assert main([*argv, "--game", "connect_four", "--minimax-depth", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[3:5]] == ["random", "minimax(depth=1)"]
    assert main([*argv, "--game", "tictactoe"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[3:5]] == ["random", "perfect"]
    # Leduc hides cards: minimax would see them, so random only (RLCard's agents by name).
    assert main([*argv, "--game", "classic/leduc_holdem-v4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[3:]][:2] == ["random", "2"]


def test_minimax_is_refused_on_a_hidden_information_game_before_any_game(capsys):
    argv = ["evaluate", "--game", "classic/leduc_holdem-v4", "--iterations", "2"]
    message = usage_error([*argv, "--opponent", "minimax"], capsys)
    assert "hides cards or moves, which minimax would see" in message


def test_the_version_is_the_installed_distributions_from_pyproject(capsys):
    pyproject = (ROOT / "pyproject.toml").read_text()
    (declared,) = re.findall(r'^version = "(.+)"$', pyproject, flags=re.MULTILINE)
    assert mcts_agent.__version__ == importlib.metadata.version("mcts-agent") == declared
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    backend = mcts_agent.core_backend()
    assert capsys.readouterr().out == f"mcts-agent {mcts_agent.__version__} (core: {backend})\n"


# ------------------------------------------------ output paths, Ray, checked before any game


def usage_error(argv, capsys):
    with pytest.raises(SystemExit) as error:
        main(argv)
    output = capsys.readouterr()
    assert error.value.code == 2 and output.out == ""
    assert output.err.startswith("usage: mcts-agent evaluate ")
    return output.err.splitlines()[-1]


@pytest.mark.parametrize(
    "options, message",
    [
        (["--json", "{tmp}/r", "--csv", "{tmp}/r"], "--csv: '{tmp}/r' is the same file as --json"),
        (
            ["--json", "{tmp}/r.png", "--plot", "{tmp}/./r.png"],
            "--plot: '{tmp}/./r.png' is the same file as --json '{tmp}/r.png'",
        ),
        (["--json", "{tmp}/r.json", "--csv", "{tmp}/r.jsonl"], "--json: its game log '{tmp}/r.jso"),
        (
            ["--jsonl", "{tmp}/g", "--csv", "{tmp}/g"],
            "--jsonl: '{tmp}/g' is the same file as --csv",
        ),
        (["--json", "{tmp}/new/r.json"], "--json: the directory '{tmp}/new' of '{tmp}/new/r.json"),
        (
            ["--json", "{tmp}/dangling"],
            "--json: '{tmp}/dangling' is a symbolic link to '{tmp}/gone'",
        ),
        (["--json", ""], "argument --json: expected a file name, got ''"),
        (["--csv", ""], "argument --csv: expected a file name, got ''"),
        (["--jsonl", ""], "argument --jsonl: expected a file name, got ''"),
        (["--json", "/dev/full"], "--json: '/dev/full' is not a regular file (a device, FIFO or "),
        (["--json", "/proc/r.json"], "--json: cannot create files in the directory '/proc' of "),
        (["--jsonl", "{tmp}"], "argument --jsonl: '{tmp}' is a directory; give a file name"),
    ],
)
def test_bad_output_paths_are_usage_errors(options, message, tmp_path, capsys):
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    argv = [*EVALUATE, *(option.format(tmp=tmp_path) for option in options)]
    assert message.format(tmp=tmp_path) in usage_error(argv, capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling"]  # nothing written


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any file")
def test_a_read_only_file_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "r.json").write_text("keep me")
    (tmp_path / "r.json").chmod(0o444)
    error = usage_error([*EVALUATE, "--json", str(tmp_path / "r.json")], capsys)
    assert f"argument --json: '{tmp_path}/r.json' is read-only" in error


def test_ray_without_ray_installed_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` does when it is missing
    error = usage_error([*EVALUATE, "--backend", "ray"], capsys)
    assert "argument --backend: 'ray' needs Ray: pip install 'mcts-agent[ray]'" in error


@pytest.mark.parametrize("address", ["localhost", "host:abc", "host:0", "host:70000", "ray://"])
def test_a_malformed_ray_address_is_a_usage_error(address, capsys):
    error = usage_error([*EVALUATE, "--backend", "ray", "--address", address], capsys)
    assert error.endswith(
        "argument --address: a Ray address must be 'auto', 'local', 'host:port' or "
        f"'ray://host:port' (port 1-65535), got {address!r}"
    )


def test_ray_auto_without_a_cluster_is_a_usage_error(tmp_path, monkeypatch, capsys):
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'mcts-agent[ray]')")

    def init_without_a_cluster(*args, **kwargs):
        # What ray.init(address="auto") raises when it finds no running cluster. Ray finds
        # clusters by scanning the machine's processes, so a real call would find the local
        # instance another test (another xdist worker) may have running at the same time.
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(ray, "init", init_without_a_cluster)
    log = tmp_path / "games.jsonl"
    log.write_text("an earlier run's games\n")
    argv = [*EVALUATE, "--backend", "ray", "--address", "auto", "--jsonl", str(log)]
    error = usage_error(argv, capsys)
    assert "argument --address: no Ray cluster found at address 'auto' (" in error
    assert log.read_text() == "an earlier run's games\n"  # no game played, nothing touched


# ------------------------------------------------ finished games are kept


def read_log(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def assert_log_games_are_real(lines, iterations):
    """Each logged game: seeded by its index, legal to the end, its outcome right."""
    model = TicTacToeModel()
    for line in lines:
        assert line["agent"] == {
            "kind": "mcts",
            "iterations": iterations,
            "exploration": 2 * math.sqrt(2),
            "rollout_limit": 1000,
        }
        assert line["seeds"] == list(game_seeds(0, line["index"]))
        assert line["agent_seat"] == line["index"] % 2 and line["seat"] == "XO"[line["index"] % 2]
        state, winner = EMPTY_BOARD, None
        for action in line["moves"]:
            assert action in model.actions(state)
            mover = model.player(state)
            state, reward, _ = model.step(state, action)
            winner = mover if reward else winner
        assert not model.actions(state)
        agent = 1 + line["agent_seat"]
        assert line["outcome"] == (
            "draw" if winner is None else "win" if winner == agent else "loss"
        )


def test_the_games_log_holds_every_game_and_follows_the_json_name(tmp_path, capsys):
    assert main([*EVALUATE, "--workers", "2", "--json", str(tmp_path / "r.json")]) == 0
    assert (
        capsys.readouterr().out.splitlines()[-1]
        == f"wrote {tmp_path}/r.jsonl (each game as it finished)"
    )
    data = json.loads((tmp_path / "r.json").read_text())
    lines = read_log(tmp_path / "r.jsonl")
    assert len(lines) == 24
    games = {
        (m["opponent"]["kind"], m["agent"]["iterations"], g["index"]): g
        for m in data["matches"]
        for g in m["games"]
    }
    for line in lines:
        game = games.pop((line["opponent"]["kind"], line["agent"]["iterations"], line["index"]))
        assert {k: line[k] for k in game} == game
    assert games == {}


def test_without_json_the_games_log_is_a_temporary_file_removed_at_the_end(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main([*EVALUATE, "--workers", "1"]) == 0
    assert list(tmp_path.iterdir()) == []


def cli(*args, cwd):
    """Starts `mcts-agent` in its own process group, as a shell starts a job."""
    return subprocess.Popen(
        [sys.executable, "-m", "mcts_agent.cli", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def wait_for_games(path, count, process, first=False, timeout=120):
    """Waits until `path` holds `count` games (and game 0 if `first`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text() if path.exists() else ""
        indices = [json.loads(line)["index"] for line in text.splitlines()]
        if len(indices) >= count and (0 in indices or not first):
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.02)
    process.kill()
    raise AssertionError(f"fewer than {count} games in {path} after {timeout} s")


LONG_RUN = ["evaluate", "--iterations", "300", "--games", "1000", "--no-progress"]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_keeps_the_finished_games_and_exits_130_at_once(workers, tmp_path):
    (tmp_path / "r.json").write_text("the previous run's results")
    process = cli(*LONG_RUN, "--workers", workers, "--json", "r.json", cwd=tmp_path)
    wait_for_games(tmp_path / "r.jsonl", 3, process, first=True)
    start = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: the whole foreground process group
    out, err = process.communicate(timeout=60)
    seconds = time.monotonic() - start
    assert process.returncode == 130
    assert out == ""
    kept = re.fullmatch(
        r"mcts-agent: interrupted; (\d+) of 4000 games kept in r\.jsonl "
        r"\(JSON Lines, one game per line\)\n",
        err,
    )
    assert kept, err  # one line, no traceback
    lines = read_log(tmp_path / "r.jsonl")
    assert len(lines) == int(kept[1]) >= 3
    assert len({(line["opponent"]["kind"], line["index"]) for line in lines}) == len(lines)
    assert_log_games_are_real(lines, 300)
    first = play_match(make_game("tictactoe"), MCTSPlayer(300), RandomPlayer(), 1, workers=1)
    (game_0,) = [line for line in lines if line["index"] == 0]
    assert game_0["moves"] == list(first.records[0].moves)
    assert (tmp_path / "r.json").read_text() == "the previous run's results"
    assert seconds < 10, f"{seconds:.2f} s from Ctrl-C to exit"  # the fix takes < 0.1 s here
    print(f"--workers {workers}: exit {seconds:.3f} s after Ctrl-C, {len(lines)} games kept")


def worker_pids(pid):
    """The processes `pid` forked (same command line): its pool's workers."""
    command = Path(f"/proc/{pid}/cmdline").read_bytes()
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                if (entry / "cmdline").read_bytes() == command:
                    pids.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return pids


def test_a_killed_worker_loses_no_game(tmp_path):
    run = ["evaluate", "--opponent", "random", "--iterations", "100", "--games", "300"]
    process = cli(*run, "--workers", "2", "--json", "r.json", "--no-progress", cwd=tmp_path)
    wait_for_games(tmp_path / "r.jsonl", 10, process)
    workers = worker_pids(process.pid)
    assert len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert re.fullmatch(
        r"mcts-agent: warning: a worker process died \(killed, or out of memory\?\); playing "
        r"the \d+ unfinished games again in new processes\n",
        err,
    )
    lines = read_log(tmp_path / "r.jsonl")
    assert sorted(line["index"] for line in lines) == list(range(600))  # each game once
    assert_log_games_are_real(lines, 100)
    (match,) = json.loads((tmp_path / "r.json").read_text())["matches"]
    assert [g["index"] for g in match["games"]] == list(range(600))
    by_index = {line["index"]: line for line in lines}
    assert all(by_index[g["index"]]["moves"] == g["moves"] for g in match["games"])
    assert "600 games, " in out


def test_a_full_disk_stops_the_run_keeping_whole_games(tmp_path):
    # A real write error: files may not grow past `limit` bytes (EFBIG, as ENOSPC would).
    limit = 4000

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    (tmp_path / "r.json").write_text("the previous run's results")
    done = subprocess.run(
        [sys.executable, "-m", "mcts_agent.cli", *EVALUATE, "--workers", "2", "--json", "r.json"],
        cwd=tmp_path,
        preexec_fn=small_files,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1 and done.stdout == ""
    kept = re.fullmatch(
        r"mcts-agent: error: \[Errno 27\] File too large: 'r\.jsonl'; (\d+) of 24 games kept "
        r"in r\.jsonl \(JSON Lines, one game per line\)\n",
        done.stderr,
    )
    assert kept, done.stderr
    text = (tmp_path / "r.jsonl").read_text()
    assert text.endswith("\n") and limit - 1000 < len(text) <= limit  # the cut line removed
    lines = read_log(tmp_path / "r.jsonl")
    assert len(lines) == int(kept[1]) >= 3
    assert (tmp_path / "r.json").read_text() == "the previous run's results"


def test_a_failed_final_write_leaves_the_old_file_and_keeps_the_games(
    tmp_path, monkeypatch, capsys
):
    def full_disk(descriptor):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(results_module.os, "fsync", full_disk)
    (tmp_path / "r.json").write_text("the previous run's results")
    assert main([*EVALUATE, "--workers", "1", "--json", str(tmp_path / "r.json")]) == 1
    output = capsys.readouterr()
    assert output.out.splitlines()[-1].startswith("24 games, ")  # the table was printed
    assert output.err == (
        f"mcts-agent: error: [Errno 28] No space left on device; {tmp_path}/r.json is left as it "
        f"was: '{tmp_path}/r.json'; 24 of 24 games kept in {tmp_path}/r.jsonl "
        "(JSON Lines, one game per line)\n"
    )
    assert (tmp_path / "r.json").read_text() == "the previous run's results"
    assert len(read_log(tmp_path / "r.jsonl")) == 24
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "r.jsonl"]


def test_the_final_files_keep_the_permissions_of_the_files_they_replace(tmp_path, capsys):
    private = [tmp_path / "r.json", tmp_path / "r.csv"]
    for path in private:
        path.write_text("the previous run's results")
        path.chmod(0o600)
    umask = os.umask(0o027)
    try:
        arguments = ["--workers", "1", "--json", str(private[0]), "--csv", str(private[1])]
        assert main([*EVALUATE, *arguments]) == 0
        assert main([*EVALUATE, "--workers", "1", "--json", str(tmp_path / "new.json")]) == 0
    finally:
        os.umask(umask)
    for path in private:
        assert path.read_text() != "the previous run's results"
        assert path.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o640  # 0o666 less the umask


def running(command):
    """The live processes (not zombies) whose command line is `command`."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if (entry / "cmdline").read_bytes() == command:
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    pids.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return pids


def wait_until(condition, timeout=10):
    """Polls `condition()` until it is true; false if it is still false after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def end_group(process):
    """Kills the process group of `process` (what a failure left running) and reaps it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def test_sigterm_is_ctrl_c_and_ends_the_workers(tmp_path):
    log = tmp_path / "e.jsonl"
    process = cli(
        *["plan", "--env", "mcts_agent/GridMaze-v0", "--episodes", "2", "--workers", "2"],
        # 10M iterations a move: the agent's first move alone takes seconds (with the
        # Gymnasium defaults' tree reuse, 1M took 1.8 s and later moves 0.2 s: too short)
        *["--iterations", "10000000", "--no-progress", "--jsonl", str(log)],
        cwd=tmp_path,
    )
    try:
        wait_for_games(log, 2, process)  # the random policy's: the agent's episodes follow
        command = Path(f"/proc/{process.pid}/cmdline").read_bytes()
        assert wait_until(lambda: len(running(command)) == 3)  # the CLI and its 2 workers
        os.kill(process.pid, signal.SIGTERM)  # what kill, timeout, systemd, container stops send
        out, err = process.communicate(timeout=60)
        assert process.returncode == 130
        assert err == f"mcts-agent: interrupted; 2 of 4 episodes kept in {log}\n"
        assert wait_until(lambda: running(command) == [])
    finally:
        end_group(process)


def test_the_workers_end_by_themselves_when_the_cli_is_killed(tmp_path):
    process = cli(*LONG_RUN, "--workers", "2", "--jsonl", "r.jsonl", cwd=tmp_path)
    try:
        wait_for_games(tmp_path / "r.jsonl", 1, process)
        command = Path(f"/proc/{process.pid}/cmdline").read_bytes()
        assert len(running(command)) == 3  # the CLI and its 2 workers
        os.kill(process.pid, signal.SIGKILL)
        process.communicate(timeout=30)  # the end of its stdout and stderr: no worker holds them
        assert wait_until(lambda: running(command) == [])
    finally:
        end_group(process)


def test_search_solves_a_position_and_says_why_it_stopped(capsys):
    assert main(["search", "--board", "X.O.O...X", "--solve", "--iterations", "20000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[3] == "X to move; 20000 iterations, c = 2.83, seed 0"
    assert re.fullmatch(
        r"\d+ iterations in [\d.e-]+ s \([\d,.]+ iterations/s\), \d+ nodes, stopped on solved; "
        r"proven value \+1",
        lines[-2],
    )
    assert lines[-1] == "move played: 6"  # the block that forks, proven a win


def test_search_with_a_time_limit_alone(capsys):
    assert main(["search", "--time-limit", "0.05"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[3] == "X to move; 0.05 s, c = 2.83, seed 0"
    assert lines[-2].endswith("stopped on time_limit")


def test_play_reuses_the_tree_from_move_to_move(capsys):
    inputs = "".join(f"{c}\n" for c in range(9)) * 3  # the person plays the lowest free cell
    main(["play", "--iterations", "500", "--reuse-tree"], stdin=io.StringIO(inputs))
    moves = re.findall(r"MCTS plays \d \((.*)\)", capsys.readouterr().out)
    assert len(moves) >= 2
    assert "reused" not in moves[0]  # the first search starts a tree
    for report in moves[1:]:  # the position after the person's reply was in the last tree
        reused = int(re.search(r"(\d+) visits reused", report).group(1))
        of = int(re.search(r"of (\d+) visits", report).group(1))
        assert 0 < reused and of == reused - 1 + 500  # the root's children: old N - 1 + new


def test_evaluate_sweeps_any_option_given_with_options(capsys):
    argv = [*EVALUATE[:6], "--iterations", "5", "--games", "1", "--workers", "1", "--no-progress"]
    assert main([*argv, "--options", "gamma=0.5,1.0,max_depth=2"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "max_depth = 2" in lines[0]
    assert lines[2].split()[:3] == ["opponent", "gamma", "iterations"]
    assert [line.split()[:3] for line in lines[3:7]] == [
        ["random", "0.5", "5"],
        ["random", "1.0", "5"],
        ["perfect", "0.5", "5"],
        ["perfect", "1.0", "5"],
    ]
    # The same settings in two --options, and spelled --option (the same option).
    assert main([*argv, "--options", "gamma=0.5,1.0", "--options", "max_depth=2"]) == 0
    assert table_of(capsys.readouterr().out) == table_of(out)
    assert main([*argv, "--option", "gamma=0.5,1.0", "--option", "max_depth=2"]) == 0
    captured = capsys.readouterr()
    assert table_of(captured.out) == table_of(out)
    assert captured.err == ""
    for option, message in [
        ("gama=1", "argument --options: unknown MCTS option 'gama'"),
        ("gamma=2", "gamma must be"),
        ("iterations=3", "argument --options: give iterations with its own option --iterations"),
        ("gamma", "expected name=value,... such as gamma=0.9 or selection=uct,puct; got 'gamma'"),
        ("gamma=0.5,selection=uct,gamma=1.0", "'gamma=0.5,selection=uct,gamma=1.0' gives 'gamma'"),
        ("evaluator=heuristic", "argument --options: tictactoe has no evaluator 'heuristic'"),
    ]:
        with pytest.raises(SystemExit):
            main([*argv, "--options", option])
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*argv, "--options", "gamma=0.5", "--options", "gamma=1.0"])
    assert "argument --options: 'gamma' given twice" in capsys.readouterr().err


def test_evaluate_takes_the_anytime_flags_as_the_agents_options(capsys):
    status = main(
        ["evaluate", "--opponent", "random", "--iterations", "50", "--games", "2", "--workers", "1"]
        + ["--time-limit", "0.01", "--solve", "--reuse-tree", "--no-progress"]
    )
    assert status == 0
    title = capsys.readouterr().out.splitlines()[0]
    for setting in ("time_limit = 0.01", "solve = True", "value_bounds = (-1.0, 1.0)"):
        assert setting in title
    assert "reuse_tree = True" in title
    with pytest.raises(SystemExit):
        main(["evaluate", "--games", "2", "--solve", "--options", "solve=True,False"])
    assert "argument --options: solve is set by its own flag too" in capsys.readouterr().err


def test_play_leduc_shows_the_human_their_own_hand_only_until_the_hand_ends(capsys):
    from pettingzoo.classic import leduc_holdem_v4

    env = leduc_holdem_v4.env()
    env.reset(seed=0)  # play's position: reset(seed=0)
    game = env.unwrapped.env.game
    mine, theirs = game.players[0].hand.get_index(), game.players[1].hand.get_index()
    argv = ["play", "--game", "classic/leduc_holdem-v4", "--iterations", "50"]
    assert main(argv, stdin=io.StringIO("2\n")) == 0  # player_0 folds at once
    out = capsys.readouterr().out
    during, after = out.split("your move:")
    assert f"your hand: {mine}" in during and theirs not in during.replace(mine, "")
    assert "moves: 0 call, 1 raise, 2 fold" in during
    assert f"player_0's hand: {mine}" in after and f"player_1's hand: {theirs}" in after
    assert "chips in the pot: player_0 1, player_1 2" in after and "MCTS (player_1) wins" in after


def test_a_hidden_information_game_refuses_the_solver_as_a_usage_error_and_reads_move_names(
    capsys,
):
    argv = ["search", "--game", "classic/leduc_holdem-v4", "--iterations", "50"]
    with pytest.raises(SystemExit) as error:
        main([*argv, "--solve"])
    output = capsys.readouterr()
    assert error.value.code == 2 and output.err.startswith("usage: mcts-agent search ")
    assert "does not compose with solve=True" in output.err
    message = usage_error(["evaluate", *argv[1:], "--games", "2", "--reuse-tree"], capsys)
    assert "does not compose with reuse_tree=True" in message
    assert main([*argv, "--position", "call raise"]) == 0
    out = capsys.readouterr().out
    assert "chips in the pot: player_0 2, player_1 4" in out and "moves: 0 call" in out
