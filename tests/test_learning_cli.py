"""``mcts-agent train``, and a checkpoint as ``--option evaluator=net.pt`` in the other commands."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch", reason="mcts-agent train needs PyTorch")

from mcts_agent.cli import build_parser, main  # noqa: E402
from mcts_agent.evaluation import MCTSPlayer, make_game, make_player  # noqa: E402
from mcts_agent.evaluation.specs import parse_settings, parse_spec  # noqa: E402
from mcts_agent.learning import NetworkEvaluator, load_checkpoint  # noqa: E402

TINY = ["--iterations", "10", "--games", "2", "--steps", "5", "--eval-games", "1", "--no-progress"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tic-tac-toe checkpoint of one generation: (directory, printed output)."""
    directory = tmp_path_factory.mktemp("train")
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(
            ["train", "--game", "tictactoe", "--generations", "1", "--seed", "1"]
            + TINY
            + ["--out", str(directory / "net.pt"), "--plot", str(directory / "curve.png")]
        )
    assert status == 0
    return directory, out.getvalue()


def test_train_prints_a_line_a_generation_and_writes_the_checkpoint_and_curve(trained):
    directory, printed = trained
    assert printed.startswith("training on tictactoe (tic_tac_toe encoding, input (2, 3, 3), 9")
    line = re.search(
        r"^generation 1: 2 games, \d+ positions \(buffer \d+\); loss policy [\d.]+, value [\d.]+; "
        r"score vs previous [\d.]+ \(W \d D \d L \d\), vs UCT\(10\) [\d.]+ \(W \d D \d L \d\)",
        printed,
        flags=re.MULTILINE,
    )
    assert line is not None, printed
    assert "trained 1 generations in" in printed
    checkpoint = load_checkpoint(directory / "net.pt")
    assert (checkpoint.game, checkpoint.generation, len(checkpoint.history)) == ("tictactoe", 1, 1)
    assert checkpoint.training["seed"] == 1
    assert (directory / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_evaluate_takes_the_checkpoint_as_an_option_and_in_an_agent_spec(
    trained, monkeypatch, capsys
):
    directory, _ = trained
    monkeypatch.chdir(directory)
    status = main(
        ["evaluate", "--game", "tictactoe", "--opponent", "random",
         "mcts:iterations=5,evaluator=net.pt", "--iterations", "10", "--games", "1",
         "--option", "evaluator=net.pt,selection=puct", "--no-progress", "--workers", "1"]
    )  # fmt: skip
    assert status == 0
    table = capsys.readouterr().out
    assert "evaluator = net.pt, selection = puct" in table
    assert re.search(r"^random\s+10\s+\d", table, flags=re.MULTILINE)
    assert re.search(r"^mcts\(.*evaluator=net\.pt.*\)\s+10\s+\d", table, flags=re.MULTILINE)


def test_search_and_tournament_take_the_checkpoint(trained, capsys):
    directory, _ = trained
    path = str(directory / "net.pt")
    assert main(["search", "--game", "tictactoe", "--position", "XX.OO....", "--iterations",
                 "200", "--option", f"evaluator={path},selection=puct"]) == 0  # fmt: skip
    assert "move played: 2" in capsys.readouterr().out
    assert main(["tournament", "--game", "classic/tictactoe-v3", "--agents",
                 f"mcts:iterations=10,evaluator={path},selection=puct", "random", "--games", "2",
                 "--no-progress", "--workers", "1"]) == 0  # fmt: skip
    assert f"evaluator={path}" in capsys.readouterr().out


def test_a_checkpoint_path_needs_no_quotes_in_specs_and_options():
    assert parse_spec("mcts:evaluator=runs/net-2.pt,selection=puct") == (
        "mcts", {"evaluator": "runs/net-2.pt", "selection": "puct"},
    )  # fmt: skip
    assert parse_settings("evaluator=heuristic,./nets/a.pt") == {
        "evaluator": ["heuristic", "./nets/a.pt"]
    }


def test_make_player_loads_the_checkpoint_for_its_game(trained):
    directory, _ = trained
    spec = f"mcts:iterations=5,evaluator={directory / 'net.pt'},selection=puct"
    player = make_player(spec, make_game("tictactoe"))
    assert isinstance(player, MCTSPlayer)
    assert isinstance(player.options["evaluator"], NetworkEvaluator)
    assert player.describe()["evaluator"] == str(directory / "net.pt")
    with pytest.raises(ValueError, match="trained on tictactoe"):
        make_player(
            f"mcts:iterations=5,evaluator={directory / 'net.pt'}", make_game("connect_four")
        )
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        make_player(f"mcts:iterations=5,evaluator={directory / 'none.pt'}", make_game("tictactoe"))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "--option", "evaluator=missing.pt"], "no checkpoint at 'missing.pt'"),
        (
            ["evaluate", "--game", "connect_four", "--option", "evaluator={net}"],
            "trained on tictactoe",
        ),
        (["search", "--option", "evaluator=deep"], "has no evaluator 'deep'"),
        (["train", "--out", "x.pt"], "give --minutes or --generations"),
        (["train", "--out", "x.pt", "--minutes", "0"], "expected a number > 0"),
        (
            ["train", "--out", "x.pt", "--generations", "1", "--game", "classic/chess-v6"],
            "no encoding",
        ),
    ],
    ids=["missing", "wrong-game", "unknown-name", "no-end", "zero-minutes", "chess"],
)
def test_argument_errors(trained, argv, message, monkeypatch, capsys, tmp_path):
    directory, _ = trained
    monkeypatch.chdir(tmp_path)
    argv = [a.replace("{net}", str(directory / "net.pt")) for a in argv]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_time_budget_trains_at_least_one_generation(tmp_path, capsys):
    assert main(["train", "--minutes", "0.0001", "--out", str(tmp_path / "t.pt")] + TINY) == 0
    assert load_checkpoint(tmp_path / "t.pt").generation == 1
    assert "trained 1 generations" in capsys.readouterr().out


def test_the_train_command_parses_its_documented_flags():
    args = build_parser().parse_args(
        ["train", "--game", "connect_four", "--minutes", "30", "--out", "net.pt", "--plot",
         "curve.png", "--selection", "gumbel", "--network", "conv", "--exploration", "sqrt(2)"]
    )  # fmt: skip
    assert (args.game, args.minutes, args.out, args.selection) == (
        "connect_four", 30.0, "net.pt", "gumbel",
    )  # fmt: skip
