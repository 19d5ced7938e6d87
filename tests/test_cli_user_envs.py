"""A user's own envs from the command line: ``module:attr`` specs and ``--env-kwargs``.

The user's module is tests/user_envs.py (on sys.path under pytest, as a user's module is
through PYTHONPATH): it registers the Gymnasium env ``Corridor-v0`` and has ``race``, a
factory of PettingZoo AEC envs. The Python API's side (``make_game``, ``plan_episodes``,
minimax's rule): tests/test_user_games.py.
"""

from __future__ import annotations

import argparse
import io
import json
import sys

import pytest
import user_envs

from mcts_agent.cli import main
from mcts_agent.cli.options import keyword_arguments
from mcts_agent.evaluation import parse_spec
from mcts_agent.evaluation.specs import display_value, import_path

PLAN = ["plan", "--episodes", "2", "--iterations", "100", "--options", "gamma=0.9"]
PLAN += ["--workers", "1", "--no-progress"]


def error_of(argv, capsys) -> str:
    """The last line of stderr of ``main(argv)``, which must exit with status 2."""
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


@pytest.mark.parametrize(
    "spec, what, read",
    [
        ("my_module:MyEnv-v0", "env", ("my_module:MyEnv-v0", {})),
        (
            "pkg.envs:ns/MyEnv-v0:size=4,fast=True",
            "env",
            ("pkg.envs:ns/MyEnv-v0", {"size": 4, "fast": True}),
        ),
        ("my_module:env:size=4,name=x", "game", ("my_module:env", {"size": 4, "name": "x"})),
        # kind:options as before: a path that is not a module's, or an = after the colon
        ("classic/go-v5:board_size=9", "game", ("classic/go-v5", {"board_size": 9})),
        ("FrozenLake-v1:is_slippery=False", "env", ("FrozenLake-v1", {"is_slippery": False})),
        ("tictactoe:size=3", "game", ("tictactoe", {"size": 3})),
        ("connect_four", "game", ("connect_four", {})),
        ("mcts:iterations=5", "agent", ("mcts", {"iterations": 5})),
    ],
)
def test_module_paths_are_told_from_options(spec, what, read):
    assert parse_spec(spec, what=what) == read


@pytest.mark.parametrize(
    "spec, what",
    [
        ("mcts:iterations", "agent"),  # agents name no module: a malformed option still
        ("my_module:", "game"),
        ("my_module:env:", "game"),
        ("classic/go-v5:board_size", "game"),
    ],
)
def test_what_was_malformed_stays_malformed(spec, what):
    with pytest.raises(ValueError, match="expected name=value options"):
        parse_spec(spec, what=what)


def test_import_path():
    assert import_path("a.b_2:env") == ("a.b_2", "env")
    assert import_path("my_module:Factory.make") == ("my_module", "Factory.make")
    for kind in ("classic/go-v5", "tictactoe", "a-b:env", "a:", ":env", "a:b=1", "a..b:env"):
        assert import_path(kind) is None, kind


def test_plan_makes_the_users_env_with_its_kwargs(tmp_path, capsys):
    path = tmp_path / "plan.json"
    argv = [*PLAN, "--env", "user_envs:Corridor-v0", "--env-kwargs", "size=4", "--json", str(path)]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "user_envs:Corridor-v0:size=4: 2 episodes each"
    assert [line.split()[0] for line in out[2:4]] == [
        "random",
        "mcts:iterations=100,gamma=0.9,exploration=2.828",
    ]
    random_policy, mcts = json.loads(path.read_text())
    assert mcts["env"] == "user_envs:Corridor-v0:size=4"
    # size=4 reached the env: the goal is 3 steps away (5 cells, the default, would be 4)
    assert [e["steps"] for e in mcts["episodes_played"]] == [3, 3]
    assert [e["return"] for e in mcts["episodes_played"]] == [1.0, 1.0]
    assert all(e["steps"] >= 3 for e in random_policy["episodes_played"])
    # the options in --env and in --env-kwargs together
    argv = [*PLAN, "--env", "user_envs:Corridor-v0:size=3", "--env-kwargs", "goal_reward=2.5"]
    assert main([*argv, "--env-kwargs", "render_mode=None", "--json", str(path)]) == 0
    assert capsys.readouterr().out.startswith(
        "user_envs:Corridor-v0:size=3,goal_reward=2.5,render_mode=None: 2 episodes each\n"
    )
    episodes = json.loads(path.read_text())[1]["episodes_played"]
    assert [(e["steps"], e["return"]) for e in episodes] == [(2, 2.5), (2, 2.5)]


def test_env_kwargs_values_are_read_as_options_values():
    text = "size=4,ratio=0.5,slippery=False,mode=ansi,name='8x8',shape=(3, 4),seed=None"
    assert keyword_arguments(text) == {
        "size": 4,
        "ratio": 0.5,
        "slippery": False,
        "mode": "ansi",
        "name": "8x8",
        "shape": (3, 4),
        "seed": None,
    }
    assert [type(v) for v in keyword_arguments("a=1,b=1.0,c=True").values()] == [int, float, bool]
    for bad in ("size", "=4", "size=", "size=1+", "a=1,a=2", "a=1,b"):
        with pytest.raises(argparse.ArgumentTypeError, match=r"^expected name=value,\.\.\. "):
            keyword_arguments(bad)


def test_plan_errors_name_the_module_the_env_and_the_bad_item(tmp_path, monkeypatch, capsys):
    message = error_of([*PLAN, "--env", "no_such_module:Corridor-v0"], capsys)
    assert message.startswith(
        "mcts-agent plan: error: argument --env: cannot import module 'no_such_module' of "
        "'no_such_module:Corridor-v0': ModuleNotFoundError: No module named 'no_such_module'; "
        "it is imported from sys.path: add its directory to PYTHONPATH"
    )
    # a module found whose own import fails: its ImportError, and no word of PYTHONPATH
    (tmp_path / "needs_more.py").write_text("import not_installed_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "needs_more", raising=False)
    message = error_of([*PLAN, "--env", "needs_more:Corridor-v0"], capsys)
    assert message == (
        "mcts-agent plan: error: argument --env: cannot import module 'needs_more' of "
        "'needs_more:Corridor-v0': ModuleNotFoundError: No module named 'not_installed_anywhere'"
    )
    message = error_of([*PLAN, "--env", "user_envs:Missing-v0"], capsys)
    assert message.startswith("mcts-agent plan: error: argument --env: env 'user_envs:Missing-v0':")
    assert "Missing" in message.split(":", 4)[-1]  # Gymnasium's words on the id
    message = error_of([*PLAN, "--env", "user_envs:Corridor-v0", "--env-kwargs", "size"], capsys)
    assert message == (
        "mcts-agent plan: error: argument --env-kwargs: expected name=value,... such as "
        "size=4,is_slippery=False; got 'size'"
    )
    message = error_of(
        [*PLAN, "--env", "user_envs:Corridor-v0", "--env-kwargs", "size=4,5"], capsys
    )
    assert "one value each" in message and "got size=4,5" in message
    argv = [*PLAN, "--env", "user_envs:Corridor-v0:size=4", "--env-kwargs", "size=5"]
    assert "argument --env-kwargs: 'size' given twice" in error_of(argv, capsys)
    argv = [*PLAN, "--env", "user_envs:Corridor-v0", "--env-kwargs", "width=4"]
    message = error_of(argv, capsys)
    assert "argument --env-kwargs: env 'user_envs:Corridor-v0:width=4'" in message
    assert "unexpected keyword argument 'width'" in message


@pytest.mark.parametrize(
    "args, option, words",
    [
        # the env's constructor refuses a value of --env-kwargs, or a name: --env-kwargs
        (["--env-kwargs", "size='x'"], "--env-kwargs", "env \"user_envs:Corridor-v0:size='x'\""),
        # a name --env gives is refused, though --env-kwargs is fine: --env
        (["--env-kwargs", "size=3"], "--env", "unexpected keyword argument 'width'"),
        # an MCTS option's value or name: --options, not --env
        (["--options", "gamma=2"], "--options", "gamma must be a finite number"),
        (["--options", "nosuch=1"], "--options", "unknown MCTS option 'nosuch'"),
    ],
)
def test_plan_errors_name_the_argument_at_fault(args, option, words, capsys):
    env = "user_envs:Corridor-v0:width=4" if option == "--env" else "user_envs:Corridor-v0"
    argv = ["plan", "--episodes", "1", "--no-progress", "--env", env, *args]
    message = error_of(argv, capsys)
    assert message.startswith(f"mcts-agent plan: error: argument {option}: ")
    assert words in message


def assert_race_played(game: dict, target: int) -> None:
    """A game of the race to ``target``: its winner alone reached it, and MCTS first won."""
    assert sorted(game["returns"]) == [-1.0, 1.0]  # (the agent's, the opponent's)
    winner = game["agent_seat"] if game["returns"][0] == 1.0 else 1 - game["agent_seat"]
    scores = [sum(move + 1 for move in game["moves"][seat::2]) for seat in (0, 1)]
    assert scores[winner] >= target > scores[1 - winner]
    assert len(game["moves"]) % 2 == (1 if winner == 0 else 0)  # the winner moved last
    if game["agent_seat"] == 0:  # the first player can always win
        assert game["outcome"] == "win"


def evaluate(tmp_path, *argv) -> dict:
    path = tmp_path / "evaluate.json"
    argv = ["evaluate", "--iterations", "100", "--games", "3", "--no-progress", *argv]
    assert main([*argv, "--json", str(path)]) == 0
    return json.loads(path.read_text())


def test_evaluate_plays_two_agents_in_the_users_aec_env(tmp_path, capsys):
    result = evaluate(tmp_path, "--game", "user_envs:race:target=6", "--workers", "1")
    (match,) = result["matches"]  # the default opponent of a game not known to be zero-sum
    assert match["game"] == "user_envs:race:target=6"
    assert match["opponent"] == {"kind": "random"}
    assert match["tally"]["first"] == {"wins": 3, "draws": 0, "losses": 0}
    for game in match["games"]:
        assert_race_played(game, 6)
    # the game is pickled to worker processes, which import the module again: the same games
    again = evaluate(tmp_path, "--game", "user_envs:race:target=6", "--workers", "2")
    assert [g["moves"] for g in again["matches"][0]["games"]] == [
        g["moves"] for g in match["games"]
    ]
    capsys.readouterr()


def test_evaluate_plays_random_in_a_game_without_action_masks(tmp_path, capsys):
    # no "action_mask": every action of the Discrete space is legal, as the adapter reads it
    argv = ["--opponent", "random", "--workers", "1"]
    unmasked = evaluate(tmp_path, "--game", "user_envs:unmasked_race:target=6", *argv)
    masked = evaluate(tmp_path, "--game", "user_envs:race:target=6", *argv)
    (match,) = unmasked["matches"]
    assert match["tally"]["first"] == {"wins": 3, "draws": 0, "losses": 0}
    for game in match["games"]:
        assert_race_played(game, 6)
    # the same legal actions (all of them), the same seeded draws: the same games
    assert [g["moves"] for g in match["games"]] == [
        g["moves"] for g in masked["matches"][0]["games"]
    ]
    capsys.readouterr()


def test_tournament_and_search_take_the_users_game(tmp_path, capsys):
    argv = ["tournament", "--game", "user_envs:race:target=5", "--agents", "mcts:iterations=200"]
    argv += ["random", "--games", "4", "--workers", "1", "--no-progress"]
    assert main([*argv, "--json", str(tmp_path / "t.json")]) == 0
    assert capsys.readouterr().out.startswith("user_envs:race:target=5: round robin")
    result = json.loads((tmp_path / "t.json").read_text())
    assert result["game"] == "user_envs:race:target=5"
    assert [g["agent_seat"] for g in result["games"]] == [0, 1, 0, 1]
    for game in result["games"]:
        assert_race_played(game, 5)
    # to 6, each player must score 2 at every move: one point less and the other wins first
    assert main(["search", "--game", "user_envs:race", "--iterations", "2000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "(no board to show: masked_race_v0 does not render as text)"
    assert lines[-1] == "move played: 1"
    argv = ["search", "--game", "user_envs:race", "--position", "0", "--iterations", "2000"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("player_1 to move")
    assert lines[-1] == "move played: 1"


@pytest.mark.parametrize(
    "game, message",
    [
        (
            "no_such_module:env",
            "cannot import module 'no_such_module' of 'no_such_module:env': "
            "ModuleNotFoundError: No module named 'no_such_module'",
        ),
        (
            "user_envs:nmi",
            f"user_envs:nmi: module 'user_envs' ({user_envs.__file__}) has no attribute 'nmi'",
        ),
        (
            "user_envs:CORRIDOR_ID",
            "user_envs:CORRIDOR_ID: user_envs.CORRIDOR_ID is a str, not a callable that "
            "returns a PettingZoo AEC env",
        ),
        (
            "user_envs:Corridor",
            "user_envs:Corridor: user_envs.Corridor() returned a user_envs.Corridor, expected "
            "a PettingZoo AEC env (pettingzoo.AECEnv)",
        ),
        (
            "user_envs:race:size=3",
            "user_envs:race:size=3: race() got an unexpected keyword argument 'size'",
        ),
    ],
)
def test_a_bad_game_factory_is_an_argument_error_naming_it(game, message, capsys):
    err = error_of(["evaluate", "--game", game], capsys)
    assert err.startswith(f"mcts-agent evaluate: error: argument --game: {message}")


def test_minimax_is_refused_on_a_game_not_known_to_be_zero_sum(capsys):
    argv = ["evaluate", "--game", "user_envs:race", "--opponent", "random", "minimax:depth=2"]
    assert error_of(argv, capsys) == (
        "mcts-agent evaluate: error: argument --opponent: agent spec 'minimax:depth=2': "
        "minimax(depth=2) searches two-player zero-sum games on the mover's reward; "
        "user_envs:race is not known to be one, so it is planned with every agent's reward: "
        "play random or MCTS players"
    )
    argv = ["tournament", "--game", "user_envs:race", "--agents", "random", "minimax"]
    assert "argument --agents: agent spec 'minimax': minimax(depth=4) searches" in error_of(
        argv, capsys
    )


def test_search_and_play_an_env_without_render_mode(capsys):
    # BareRace has no render_mode attribute: no board to show, said plainly, and on it goes
    assert main(["search", "--game", "user_envs:BareRace", "--iterations", "2000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "(no board to show: masked_race_v0 does not render as text)"
    assert lines[1].startswith("player_0 to move; 2000 iterations")
    assert lines[-1] == "move played: 1"
    # the person scores 2 at each move and reaches 6 first: MCTS, second, cannot stop it
    argv = ["play", "--game", "user_envs:BareRace", "--iterations", "50"]
    assert main(argv, stdin=io.StringIO("1\n1\n1\n")) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("You play player_0, MCTS plays player_1 (50 iterations per move)")
    assert out[1] == "(no board to show: masked_race_v0 does not render as text)"
    assert len([line for line in out if line.startswith("your move: MCTS plays ")]) == 2
    assert out[-1] == "you win"


def test_search_shows_the_text_an_ansi_env_renders(capsys):
    argv = ["search", "--game", "user_envs:race:render_mode=ansi", "--position", "1 0"]
    assert main([*argv, "--iterations", "500"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "scores: player_0 2, player_1 1"
    assert lines[1].startswith("player_0 to move; 500 iterations")


def test_labels_print_floats_to_four_significant_digits(tmp_path, capsys):
    argv = ["plan", "--env", "user_envs:Corridor-v0", "--iterations", "20", "--episodes", "1"]
    argv += ["--workers", "1", "--no-progress", "--options", "gamma=0.123456789"]
    assert main([*argv, "--json", str(tmp_path / "plan.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[3].startswith("mcts:iterations=20,gamma=0.1235,exploration=2.828  ")
    # the saved results keep the full values
    saved = json.loads((tmp_path / "plan.json").read_text())[1]
    assert saved["policy"] == "mcts:iterations=20,gamma=0.123456789,exploration=2.8284271247461903"
    argv = ["evaluate", "--game", "tictactoe", "--opponent", "random", "--iterations", "20"]
    argv += ["--games", "1", "--workers", "1", "--no-progress"]
    assert main([*argv, "--options", "gamma=0.987654321"]) == 0
    assert ", gamma = 0.9877 (W/D/L of MCTS)" in capsys.readouterr().out.splitlines()[0]
    assert main([*argv, "--options", "gamma=0.987654321,0.5"]) == 0  # swept: a column
    rows = capsys.readouterr().out.splitlines()[3:5]
    assert [row.split()[:2] for row in rows] == [["random", "0.9877"], ["random", "0.5"]]
    assert [display_value(v) for v in (1.0, 0.95, 1e-06, 2 / 3, 123456.0, 3, "x")] == [
        "1.0",
        "0.95",
        "1e-06",
        "0.6667",
        "1.235e+05",
        "3",
        "x",
    ]


def line_of(text: str, start: int = 0) -> int:
    """The first line of tests/user_envs.py after line ``start`` that holds ``text``."""
    with open(user_envs.__file__) as module:
        return next(n for n, line in enumerate(module, 1) if n > start and text in line)


FACTORY_BUG = line_of("the factory's own bug")
INIT_BUG = line_of("the env's own bug")


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["evaluate", "--game", "user_envs:failing_factory"],
            "the factory user_envs:failing_factory raised RuntimeError: the factory's own bug "
            f"(at {user_envs.__file__}:{FACTORY_BUG})",
        ),
        (  # a TypeError inside the user's code: not read as a bad spec
            ["tournament", "--game", "user_envs:FailingReset", "--agents", "random", "random"],
            "the env user_envs:FailingReset: reset raised TypeError: 'module' object is not "
            f"callable (at {user_envs.__file__}:{line_of('np()  # not callable')})",
        ),
        (
            ["plan", "--env", "user_envs:FailingInit-v0"],
            "the env user_envs:FailingInit-v0 raised RuntimeError: the env's own bug "
            f"(at {user_envs.__file__}:{INIT_BUG})",
        ),
        (
            ["plan", "--env", "user_envs:FailingInit-v0", "--env-kwargs", "error='type'"],
            "the env user_envs:FailingInit-v0:error='type' raised TypeError: 'module' object is "
            f"not callable (at {user_envs.__file__}:"
            f"{line_of('np()  # not callable', start=line_of('class FailingInit'))})",
        ),
        (
            ["plan", "--env", "user_envs:MissingEntryPoint-v0"],
            "the env user_envs:MissingEntryPoint-v0 raised AttributeError: module 'user_envs' "
            "has no attribute 'NoSuchEnv' (at ",
        ),
    ],
)
def test_an_error_in_the_users_code_is_a_usage_error_naming_it(argv, message, capsys):
    command = argv[0]
    error = error_of([*argv, "--no-progress"], capsys)
    assert error.startswith(f"mcts-agent {command}: error: {message}")
