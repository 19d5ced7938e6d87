"""The GTP client (mcts_agent.gtp_client) and GTP engines as players of PettingZoo's go.

A scripted engine (a small Python GTP engine written into tmp_path, run with
sys.executable) checks the commands sent, the answers read, ``?`` errors, a crash, a
timeout and a resignation; the vertex mapping is checked on every point against
PettingZoo's env; one game against GNU Go where it is installed.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys

import pytest

from mcts_agent import gtp_client
from mcts_agent.evaluation import PettingZooGame, RandomPlayer, make_game, make_player
from mcts_agent.evaluation.gtp_players import GTPPlayer, GTPPolicy
from mcts_agent.gtp import action_of, vertex_of
from mcts_agent.gtp_client import GTPClient, GTPCommandError, GTPError, resolve_command

pytest.importorskip("pettingzoo.classic.go")

ENGINE = r"""
import json, sys, time
log_path, config = sys.argv[1], json.loads(sys.argv[2])
moves = list(config.get("moves", []))
with open(log_path, "a") as log:
    for line in sys.stdin:
        log.write(line)
        log.flush()
        words = line.split()
        if not words:
            continue
        ident = words.pop(0) if words[0].isdigit() else ""
        name = words[0]
        if name == config.get("crash"):
            sys.stderr.write("scripted crash\n")
            sys.exit(3)
        if name == config.get("slow"):
            time.sleep(30)
        if name in config.get("fail", []):
            out = "?" + ident + " scripted failure"
        elif name == config.get("wrong_id"):
            out = "=999 D4"
        elif name == "genmove":
            out = "=" + ident + " " + moves.pop(0)
        elif name == "name":
            out = "=" + ident + " scripted\nsecond line"
        else:
            out = "=" + ident
        sys.stdout.write(out + "\n\n")
        sys.stdout.flush()
        if name == "quit":
            break
"""


@pytest.fixture
def engine(tmp_path):
    """``engine(**config) -> (command, log path)``: the scripted engine's command line."""
    script = tmp_path / "engine.py"
    script.write_text(ENGINE)

    def make(**config):
        log = tmp_path / f"log{len(list(tmp_path.iterdir()))}.txt"
        log.write_text("")
        command = shlex.join([sys.executable, str(script), str(log), json.dumps(config)])
        return command, log

    return make


def _sent(log):
    return log.read_text().splitlines()


def test_client_numbers_commands_and_reads_results(engine):
    command, log = engine(moves=["D4", "PASS"])
    with GTPClient(command, timeout=10) as client:
        client.boardsize(9)
        client.clear_board()
        client.komi(7.5)
        client.play("b", "C3")
        assert client.genmove("w") == "d4"
        assert client.genmove("w") == "pass"
        assert client.name() == "scripted\nsecond line"
        process = client._process
    assert process.returncode == 0  # quit answered, exited, waited for
    assert _sent(log) == [
        "1 boardsize 9",
        "2 clear_board",
        "3 komi 7.5",
        "4 play b C3",
        "5 genmove w",
        "6 genmove w",
        "7 name",
        "quit",
    ]


def test_question_mark_answer_is_a_command_error_and_the_engine_goes_on(engine):
    command, log = engine(fail=["play"], moves=["E5"])
    with GTPClient(command, timeout=10) as client:
        with pytest.raises(GTPCommandError, match=r"'play b A1' with '\? scripted failure'") as e:
            client.play("b", "A1")
        assert (e.value.command, e.value.message) == ("play b A1", "scripted failure")
        assert client.genmove("b") == "e5"


def test_engine_that_exits_is_an_error_with_its_status_and_stderr(engine):
    command, _ = engine(crash="genmove")
    client = GTPClient(command, timeout=10)
    client.boardsize(9)
    with pytest.raises(GTPError, match=r"exited with status 3 .*'genmove b'.*scripted crash"):
        client.genmove("b")
    assert client._process.returncode == 3  # reaped: no zombie
    with pytest.raises(GTPError, match="closed"):
        client.boardsize(9)
    client.close()  # twice is fine


def test_slow_answer_times_out_and_the_engine_is_killed(engine):
    command, _ = engine(slow="genmove")
    client = GTPClient(command, timeout=0.3)
    with pytest.raises(GTPError, match=r"did not answer 'genmove b' within 0.3 s"):
        client.genmove("b")
    assert client._process.returncode is not None
    assert not client.running


def test_answer_with_another_id_is_out_of_protocol(engine):
    command, _ = engine(wrong_id="genmove")
    with GTPClient(command, timeout=10) as client:
        with pytest.raises(GTPError, match=r"out of protocol: '=999 D4' \(expected '=1 \.\.\.'"):
            client.genmove("b")
        assert not client.running


def test_closed_by_the_garbage_collector(engine):
    import gc

    command, _ = engine()
    client = GTPClient(command, timeout=10)
    process = client._process
    del client
    gc.collect()
    assert process.returncode == 0


def test_resolve_command_looks_in_usr_games_and_names_the_package(tmp_path, monkeypatch):
    games = tmp_path / "games"
    games.mkdir()
    program = games / "gnugo"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(gtp_client, "EXTRA_PATHS", (str(games),))
    assert resolve_command("gnugo --mode gtp --level '1'") == [
        str(program),
        "--mode",
        "gtp",
        "--level",
        "1",
    ]
    monkeypatch.setattr(gtp_client, "EXTRA_PATHS", ())
    with pytest.raises(FileNotFoundError, match="'gnugo' was not found.*apt-get install gnugo"):
        resolve_command("gnugo --mode gtp")
    with pytest.raises(FileNotFoundError, match="'/no/such/engine' was not found"):
        resolve_command("/no/such/engine --gtp")
    with pytest.raises(ValueError, match="empty"):
        resolve_command("  ")
    with pytest.raises(ValueError, match="timeout"):
        GTPClient(f"{sys.executable} -c pass", timeout=0)


@pytest.mark.parametrize("size", [9, 19])
def test_vertices_on_every_point_both_ways(size):
    letters = "ABCDEFGHJKLMNOPQRST"[:size]
    seen = set()
    for action in range(size * size + 1):
        vertex = vertex_of(action, size)
        assert action_of(vertex, size) == action
        assert action_of(vertex.lower(), size) == action
        seen.add(vertex)
        if action < size * size:
            row, column = divmod(action, size)
            assert vertex == f"{letters[column]}{size - row}"
            assert "I" not in vertex
    assert len(seen) == size * size + 1
    assert vertex_of((size - 1) * size, size) == "A1"  # bottom left
    assert vertex_of(size - 1, size) == f"{letters[-1]}{size}"  # top right
    assert vertex_of(size * size, size) == "pass"
    assert action_of("J1", size) == (size - 1) * size + 8  # J is the ninth column
    with pytest.raises(ValueError):
        action_of("I1", size)


@pytest.mark.parametrize("size", [9, 19])
def test_vertices_against_the_env(size):
    """The env's action for each vertex puts the stone on minigo's point of that vertex."""
    from pettingzoo.classic import go_v5
    from pettingzoo.classic.go import coords

    env = go_v5.env(board_size=size)
    for action in range(size * size + 1):
        env.reset(seed=0)
        env.step(action)
        move = env.unwrapped._go.recent[-1].move
        assert coords.to_gtp(move) == vertex_of(action, size)
        if move is not None:
            assert env.unwrapped._go.board[move] == 1  # black's stone there
    env.close()


def test_policy_syncs_the_env_history_and_maps_moves(engine):
    """Engine as white after black's moves: it is told black's moves, its vertices are played."""
    from pettingzoo.classic import go_v5

    command, log = engine(moves=["D4", "pass"])
    env = go_v5.env(board_size=5, komi=6.5)
    env.reset(seed=0)
    policy = GTPPolicy(command, timeout=10)
    try:
        env.step(action_of("C3", 5))  # black
        white = policy(env)
        assert white == action_of("D4", 5) == 1 * 5 + 3
        env.step(white)
        env.step(action_of("B2", 5))  # black
        assert policy(env) == 25  # pass
    finally:
        policy.close()
    assert _sent(log) == [
        "1 boardsize 5",
        "2 clear_board",
        "3 komi 6.5",
        "4 play b C3",
        "5 genmove w",
        "6 play b B2",
        "7 genmove w",
        "quit",
    ]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("Z99", "answered genmove w with 'z99', which is not a move on the 5x5 board"),
        ("", "answered genmove w with '', which is not a move on the 5x5 board"),
        ("C3", r"answered genmove w with 'c3' \(action 12\), which is not legal in the env"),
    ],
)
def test_a_move_the_env_cannot_play_is_an_engine_error_naming_the_engine(engine, answer, message):
    from pettingzoo.classic import go_v5

    command, _ = engine(moves=[answer])
    env = go_v5.env(board_size=5, komi=6.5)
    env.reset(seed=0)
    env.step(action_of("C3", 5))  # black's stone on C3: white cannot play there
    policy = GTPPolicy(command, timeout=10)
    try:
        with pytest.raises(GTPError, match=message) as raised:
            policy(env)
        assert repr(command) in str(raised.value)
    finally:
        policy.close()


def test_resignation_loses_the_game_and_engines_are_stopped(engine):
    command, log = engine(moves=["C3", "resign"])
    game = make_game("classic/go_v5:board_size=5")
    moves, returns = game.play((GTPPlayer(command, 10), RandomPlayer()), (0, 1), 0)
    assert returns == (-1.0, 1.0)  # the engine (seat 0, black) resigned
    assert len(moves) == 2 and moves[0] == action_of("C3", 5)
    assert _sent(log)[-1] == "quit"
    assert _sent(log)[-2] == "6 genmove b"


def test_engine_failure_stops_the_game_and_the_engine(engine):
    command, log = engine(fail=["play"], moves=["C3"])
    game = make_game("classic/go_v5:board_size=5")
    with pytest.raises(GTPCommandError, match="scripted failure"):
        game.play((RandomPlayer(), GTPPlayer(command, 10)), (0, 1), 0)
    assert _sent(log)[-1] == "quit"


def test_gtp_spec(engine):
    command, _ = engine()
    go = make_game("classic/go_v5:board_size=5")
    player = make_player(f"gtp:{command}", go)
    assert player == GTPPlayer(command)
    assert player.label == f"gtp:{command}"
    assert player.describe() == {"kind": "gtp", "command": command, "timeout": 60.0}
    with pytest.raises(ValueError, match="plays Go: PettingZoo's classic/go_v5"):
        make_player(f"gtp:{command}", make_game("tictactoe"))
    with pytest.raises(ValueError, match="expected gtp:COMMAND"):
        make_player("gtp:", go)
    with pytest.raises(FileNotFoundError, match="no-such-engine"):
        make_player("gtp:no-such-engine --gtp", go)
    with pytest.raises(TypeError, match="env_policy"):
        player(None, 0)


GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_a_game_against_gnugo():
    game = make_game("classic/go_v5:board_size=5,komi=7.5")
    assert isinstance(game, PettingZooGame)
    gnugo = make_player("gtp:gnugo --mode gtp --level 0 --chinese-rules --capture-all-dead", game)
    agent = make_player("mcts:iterations=20", game)
    moves, returns = game.play((agent, gnugo), (0, 1), 0)
    assert sorted(returns) == [-1.0, 1.0]
    assert len(moves) >= 2
    assert all(0 <= move <= 25 for move in moves)


def test_cli_search_shows_go_with_gtp_coordinates(capsys):
    from mcts_agent.cli import main

    game = "classic/go_v5:board_size=5,komi=0.5"
    # Black C3, white C4, black passes: white passing ends the game, white winning by komi.
    assert main(["search", "--game", game, "--iterations", "200", "--position", "C3 c4 pass"]) == 0
    output = capsys.readouterr().out
    assert output.startswith(
        "   A B C D E\n 5 . . . . . 5\n 4 . . O . . 4\n 3 . . X . . 3\n"
        " 2 . . . . . 2\n 1 . . . . . 1\n   A B C D E\nwhite to move, komi 0.5\n"
    )
    assert "move played: pass" in output


def test_cli_play_go_by_vertices(capsys):
    import io

    from mcts_agent.cli import main

    inputs = io.StringIO("C3\nI2\nq\n")
    argv = ["play", "--game", "classic/go_v5:board_size=5", "--iterations", "20"]
    assert main(argv, stdin=inputs) == 0
    output = capsys.readouterr().out
    assert "You play black, MCTS plays white (20 iterations per move). Enter a vertex" in output
    assert re.search(r"MCTS plays ([A-HJ][1-5]|pass) \(\d+ of 20 visits", output)
    assert "'I2' is not a legal move" in output


def test_cli_evaluate_against_a_gtp_engine(engine, capsys):
    from mcts_agent.cli import main

    command, log = engine(moves=["resign", "resign"])
    argv = ["evaluate", "--game", "classic/go_v5:board_size=5", "--opponent", f"gtp:{command}"]
    argv += ["--iterations", "5", "--games", "1", "--workers", "1", "--no-progress"]
    assert main(argv) == 0
    output = capsys.readouterr().out
    # The engine resigns at once in both games: MCTS wins as first and as second.
    assert re.search(r"gtp:.*engine\.py.*\s5\s+1\s+0\s+0\s+1\s+0\s+0", output)
    assert _sent(log).count("quit") == 2
    with pytest.raises(SystemExit):
        main(["evaluate", "--game", "tictactoe", "--opponent", f"gtp:{command}"])
    assert "plays Go: PettingZoo's classic/go_v5" in capsys.readouterr().err


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_gnugo_sees_the_envs_board():
    """After random black moves and GNU Go's white ones, both boards agree."""
    import numpy as np
    from pettingzoo.classic import go_v5

    from mcts_agent.envs.go import GoModel
    from mcts_agent.gtp import board_text

    env = go_v5.env(board_size=7, komi=7.5)
    env.reset(seed=0)
    policy = GTPPolicy("gnugo --mode gtp --level 0 --never-resign --seed 1", 30)
    rng = np.random.default_rng(0)
    try:
        for _ in range(20):  # 40 moves, black passing only when it must
            legal = np.flatnonzero(env.last()[0]["action_mask"])
            env.step(int(rng.choice(legal[:-1] if len(legal) > 1 else legal)))
            if env.terminations["white_0"]:
                break
            env.step(policy(env))  # the engine knows every move but its own, which it made
            if env.terminations["black_0"]:
                break
        theirs = policy.client.send("showboard").splitlines()[1:8]
    finally:
        policy.close()
    ours = board_text(GoModel(7, 7.5).state_of(env), 7.5).splitlines()[1:8]
    assert [row.split()[1:8] for row in ours] == [
        [cell.replace("+", ".") for cell in row.split()[1:8]] for row in theirs
    ]
    assert env.unwrapped._go.board.any()
