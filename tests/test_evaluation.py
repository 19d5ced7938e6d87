"""The arena: counting, seats, seeds, files, and identical results on every backend."""

from __future__ import annotations

import csv
import errno
import json
import multiprocessing
import os
import random
import re
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from mcts_agent import MCTS
from mcts_agent.envs import connect_four
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import (
    EMPTY_BOARD,
    TicTacToeModel,
    from_pettingzoo_action,
    perfect_moves,
)
from mcts_agent.evaluation import (
    GAME_NAMES,
    GameLog,
    MatchSpec,
    MCTSPlayer,
    MinimaxPlayer,
    ModelGame,
    PerfectPlayer,
    RandomPlayer,
    Tally,
    WorkerDiedError,
    WorkerDiedWarning,
    check_ray_address,
    game_seeds,
    make_game,
    play_match,
    run_matches,
    sweep,
)
from mcts_agent.minimax import AlphaBetaMinimax

TTT = make_game("tictactoe")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@dataclass(frozen=True)
class ScriptedPlayer:
    """Plays the first cell of `script` that is legal (a picklable player factory)."""

    script: tuple[int, ...]

    def __call__(self, model, seed):
        def policy(state):
            legal = model.actions(state)
            return next(cell for cell in self.script if cell in legal)

        return policy


FIRST_LEGAL = ScriptedPlayer(tuple(range(9)))
LAST_LEGAL = ScriptedPlayer(tuple(range(8, -1, -1)))
# Both sides following this script draw: X 0 8 7 2 3, O 4 1 6 5.
DRAW_LINE = ScriptedPlayer((0, 4, 8, 1, 7, 6, 2, 5, 3))


def without_seconds(result):
    return [(r.index, r.agent_seat, r.seeds, r.moves, r.returns) for r in result.records]


def test_first_legal_against_itself_always_wins_as_x():
    # X 0, O 1, X 2, O 3, X 4, O 5, X 6: X completes the diagonal 2-4-6.
    result = play_match(TTT, FIRST_LEGAL, FIRST_LEGAL, games_per_seat=3, workers=1)
    assert [r.agent_seat for r in result.records] == [0, 1, 0, 1, 0, 1]
    assert all(r.moves == (0, 1, 2, 3, 4, 5, 6) for r in result.records)
    assert result.tally(0) == Tally(3, 0, 0)
    assert result.tally(1) == Tally(0, 0, 3)
    assert result.tally() == Tally(3, 0, 3)
    assert [r.returns for r in result.records] == [(1.0, 0.0), (0.0, 1.0)] * 3
    assert result.mean_length == 7
    assert result.moves_per_second > 0


def test_first_legal_against_last_legal():
    # Agent as X: X 0, O 8, X 1, O 7, X 2 wins the top row.
    # Agent as O: X 8, O 0, X 7, O 1, X 6 wins the bottom row.
    result = play_match(TTT, FIRST_LEGAL, LAST_LEGAL, games_per_seat=2, workers=1)
    assert [r.moves for r in result.records] == [(0, 8, 1, 7, 2), (8, 0, 7, 1, 6)] * 2
    assert [r.outcome for r in result.records] == ["win", "loss"] * 2
    assert result.tally(0) == Tally(2, 0, 0)
    assert result.tally(1) == Tally(0, 0, 2)
    assert result.mean_length == 5


def test_a_drawn_line_counts_as_draws_in_both_seats():
    result = play_match(TTT, DRAW_LINE, DRAW_LINE, games_per_seat=2, workers=1)
    assert all(r.moves == (0, 4, 8, 1, 7, 6, 2, 5, 3) for r in result.records)
    assert result.tally(0) == Tally(0, 2, 0) and result.tally(1) == Tally(0, 2, 0)
    assert all(r.returns == (0.0, 0.0) for r in result.records)


@pytest.mark.parametrize("seats, seat", [("first", 0), ("second", 1)])
def test_fixed_seats(seats, seat):
    result = play_match(TTT, FIRST_LEGAL, LAST_LEGAL, games_per_seat=3, seats=seats, workers=1)
    assert len(result.records) == 3
    assert {r.agent_seat for r in result.records} == {seat}
    expected = Tally(3, 0, 0) if seat == 0 else Tally(0, 0, 3)
    assert result.tally(seat) == expected and result.tally(1 - seat) == Tally(0, 0, 0)


def test_games_are_seeded_from_the_master_seed_and_their_index():
    result = play_match(TTT, RandomPlayer(), RandomPlayer(), games_per_seat=5, seed=3, workers=1)
    seeds = [r.seeds for r in result.records]
    assert seeds == [game_seeds(3, i) for i in range(10)]
    assert len({s for triple in seeds for s in triple}) == 30  # all different
    again = play_match(TTT, RandomPlayer(), RandomPlayer(), games_per_seat=5, seed=3, workers=1)
    assert without_seconds(again) == without_seconds(result)
    other = play_match(TTT, RandomPlayer(), RandomPlayer(), games_per_seat=5, seed=4, workers=1)
    assert [r.moves for r in other.records] != [r.moves for r in result.records]


def test_every_game_is_legal_and_the_perfect_player_never_loses():
    result = play_match(TTT, RandomPlayer(), PerfectPlayer(), games_per_seat=20, workers=1)
    model = TicTacToeModel()
    for record in result.records:
        state = EMPTY_BOARD
        for ply, action in enumerate(record.moves):
            if (ply % 2 == 0) == (record.agent_seat == 1):  # the perfect player's move
                assert action in perfect_moves(state)
            state = model.step(state, action).next_state
        assert not model.actions(state)
    assert result.tally().wins == 0
    assert result.tally().losses > 20  # random play loses most games to perfect play


def sweep_small(**backend):
    return sweep(
        TTT,
        [RandomPlayer(), PerfectPlayer(), MinimaxPlayer(depth=2)],
        [5, 30],
        explorations=[1.0, 3.0],
        seeds=[0, 1],
        games_per_seat=3,
        **backend,
    )


def test_results_are_identical_with_one_or_two_worker_processes():
    serial = sweep_small(workers=1)
    parallel = sweep_small(workers=2)
    assert len(serial.matches) == 3 * 2 * 2 * 2
    for a, b in zip(serial.matches, parallel.matches, strict=True):
        assert a.spec == b.spec
        assert without_seconds(a) == without_seconds(b)
    assert serial.table() == parallel.table()


def test_ray_backend_on_a_local_instance_gives_identical_results():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'mcts-agent[ray]')")
    serial = sweep_small(workers=1)
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    try:
        on_ray = sweep_small(backend="ray")
        assert ray.is_initialized()  # a running instance is used, and left running
    finally:
        ray.shutdown()
    for a, b in zip(serial.matches, on_ray.matches, strict=True):
        assert without_seconds(a) == without_seconds(b)


def free_port():
    """A local TCP port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_ray_address_fails_at_once_naming_it():
    # Without the check, ray.init retries such an address for minutes; no Ray is needed here.
    port = free_port()
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(
            ConnectionError, match=f"no Ray cluster answers at {re.escape(repr(address))}"
        ):
            play_match(TTT, RandomPlayer(), RandomPlayer(), 1, backend="ray", address=address)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_ray_address(f"127.0.0.1:{server.getsockname()[1]}")  # something listens
        check_ray_address(f"ray://127.0.0.1:{server.getsockname()[1]}")
    for address in (None, "auto", "local"):  # left to Ray: no host:port to try
        check_ray_address(address)
    with pytest.raises(TypeError, match="address must be a str"):
        check_ray_address(6379)


def test_sweep_orders_matches_and_builds_one_table():
    result = sweep_small(workers=1)
    keys = [
        (m.spec.opponent.label, m.spec.agent.exploration, m.spec.seed, m.spec.agent.iterations)
        for m in result.matches
    ]
    assert keys[:4] == [("random", 1.0, 0, 5), ("random", 1.0, 0, 30), ("random", 1.0, 1, 5)] + [
        ("random", 1.0, 1, 30)
    ]
    assert keys[-1] == ("minimax(depth=2)", 3.0, 1, 30)
    lines = result.table().splitlines()
    assert "3 games per seat" in lines[0]
    assert lines[1].split() == ["as", "X", "as", "O"]
    assert lines[2].split() == ["opponent", "c", "seed", "iterations", *"WDLWDL"]
    assert len(lines) == 3 + len(result.matches)
    for line, match in zip(lines[3:], result.matches, strict=True):
        cells = line.split()
        assert cells[0] == match.spec.opponent.label
        assert [int(c) for c in cells[-6:]] == [*match.tally(0), *match.tally(1)]


@dataclass(frozen=True)
class DyingRandomPlayer:
    """A random player whose worker process is killed (SIGKILL) when it starts game `index`.

    With `marker`, only the first time (the marker file records it); it never kills the
    process that made it (the test's), so a serial run plays like RandomPlayer.
    """

    index: int
    parent: int
    marker: str | None = None

    def __call__(self, model, seed):
        dying = seed == game_seeds(0, self.index)[1] and os.getpid() != self.parent
        if dying and self.marker is not None:
            try:
                open(self.marker, "x").close()
            except FileExistsError:
                dying = False
        if dying:
            os.kill(os.getpid(), signal.SIGKILL)
        return RandomPlayer()(model, seed)


def test_a_dead_workers_games_are_replayed_and_the_results_unchanged(tmp_path):
    dying = DyingRandomPlayer(5, os.getpid(), str(tmp_path / "died"))
    seen = []
    with pytest.warns(WorkerDiedWarning, match="a worker process died"):
        result = play_match(
            TTT, MCTSPlayer(5), dying, 20, workers=2, on_game=lambda s, r: seen.append(r)
        )
    assert (tmp_path / "died").exists()  # a worker did die
    serial = play_match(TTT, MCTSPlayer(5), dying, 20, workers=1)
    assert without_seconds(result) == without_seconds(serial)
    assert sorted(r.index for r in seen) == list(range(40))  # each game once
    assert multiprocessing.active_children() == []


def test_workers_dying_again_are_reported_and_the_other_games_kept():
    seen = []
    with pytest.warns(WorkerDiedWarning), pytest.raises(WorkerDiedError) as error:
        play_match(
            TTT,
            MCTSPlayer(5),
            DyingRandomPlayer(5, os.getpid()),
            20,
            workers=2,
            on_game=lambda s, r: seen.append(r),
        )
    lost = int(re.search(r"(\d+) of 40 games were not played", str(error.value))[1])
    indices = [r.index for r in seen]
    assert 5 not in indices and len(set(indices)) == len(indices)
    assert lost == 40 - len(seen) >= 1
    assert multiprocessing.active_children() == []


def test_an_exception_in_on_game_stops_the_workers_at_once():
    seen = []

    def stop_after_three(spec, record):
        seen.append(record)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        play_match(TTT, MCTSPlayer(200), RandomPlayer(), 5000, workers=2, on_game=stop_after_three)
    assert len(seen) == 3
    assert multiprocessing.active_children() == []  # terminated, not left to finish 10,000 games


def test_the_game_log_writes_each_game_as_one_json_line(tmp_path):
    path = tmp_path / "games.jsonl"
    with GameLog(path) as log:
        result = sweep(TTT, [FIRST_LEGAL, PerfectPlayer()], [3], games_per_seat=2, workers=2,
                       on_game=log.write)  # fmt: skip
    assert log.kept == 8
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    by_key = {(line["opponent"]["kind"], line["index"]): line for line in lines}
    assert len(by_key) == 8
    for match in result.matches:
        match_dict = match.to_dict()
        for record in match.records:
            line = by_key[(match_dict["opponent"]["kind"], record.index)]
            assert line == {
                **{k: match_dict[k] for k in ("game", "agent", "opponent", "seed", "seats")},
                "games_per_seat": 2,
                "seat": "XO"[record.agent_seat],
                **record.to_dict(),
            }
    assert by_key[("ScriptedPlayer(script=(0, 1, 2, 3, 4, 5, 6, 7, 8))", 0)]["seat"] == "X"


def test_the_game_log_is_created_at_the_first_game_only(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text("an earlier run's games\n")
    GameLog(path).close()
    assert path.read_text() == "an earlier run's games\n"


def old_files(tmp_path):
    result = sweep(TTT, [FIRST_LEGAL], [2], games_per_seat=1, workers=1)
    paths = {name: tmp_path / f"out.{name}" for name in ("json", "csv", "png")}
    for path in paths.values():
        path.write_bytes(b"the previous run's good file")
    writers = {"json": result.save_json, "csv": result.save_csv, "png": result.plot}
    match = result.matches[0]
    writers_of_a_match = {"json": match.save_json, "csv": match.save_csv}
    return paths, [*writers.items(), *writers_of_a_match.items()]


def test_a_failed_write_leaves_the_previous_file_intact(tmp_path, monkeypatch):
    paths, writers = old_files(tmp_path)

    def full_disk(descriptor):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)  # fails after the content is written
    for name, write in writers:
        with pytest.raises(OSError, match="No space left on device"):
            write(paths[name])
        assert paths[name].read_bytes() == b"the previous run's good file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.json", "out.png"]


def test_an_interrupted_write_leaves_the_previous_file_intact(tmp_path, monkeypatch):
    paths, writers = old_files(tmp_path)
    real_dump = json.dump

    def interrupted_dump(data, f, **options):
        f.write('{"rows": [')
        raise KeyboardInterrupt

    monkeypatch.setattr(json, "dump", interrupted_dump)
    with pytest.raises(KeyboardInterrupt):
        writers[0][1](paths["json"])
    assert paths["json"].read_bytes() == b"the previous run's good file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.json", "out.png"]
    monkeypatch.setattr(json, "dump", real_dump)
    link = tmp_path / "link.json"
    link.symlink_to(paths["json"])
    writers[0][1](link)  # through a link: the link stays, its target gets the content
    assert link.is_symlink() and json.loads(paths["json"].read_text())["rows"][0]["games"] == 1


def test_match_files(tmp_path):
    result = play_match(TTT, FIRST_LEGAL, LAST_LEGAL, games_per_seat=2, workers=1)
    result.save_json(tmp_path / "match.json")
    data = json.loads((tmp_path / "match.json").read_text())
    assert data["tally"] == {
        "X": {"wins": 2, "draws": 0, "losses": 0},
        "O": {"wins": 0, "draws": 0, "losses": 2},
    }
    assert [g["moves"] for g in data["games"]] == [[0, 8, 1, 7, 2], [8, 0, 7, 1, 6]] * 2
    assert data["games"][1]["outcome"] == "loss"
    result.save_csv(tmp_path / "match.csv")
    rows = list(csv.DictReader((tmp_path / "match.csv").open()))
    assert [(r["seat"], r["outcome"], r["moves"]) for r in rows[:2]] == [
        ("X", "win", "0 8 1 7 2"),
        ("O", "loss", "8 0 7 1 6"),
    ]


def test_sweep_files(tmp_path):
    result = sweep(TTT, [PerfectPlayer()], [5], games_per_seat=4, workers=1)
    result.save_csv(tmp_path / "sweep.csv")
    rows = list(csv.DictReader((tmp_path / "sweep.csv").open()))
    assert [(r["seat"], r["games"]) for r in rows] == [("X", "4"), ("O", "4")]
    for row, seat in zip(rows, (0, 1), strict=True):
        tally = result.matches[0].tally(seat)
        assert (int(row["wins"]), int(row["draws"]), int(row["losses"])) == tally
    result.save_json(tmp_path / "sweep.json")
    data = json.loads((tmp_path / "sweep.json").read_text())
    assert data["matches"][0]["agent"] == {
        "kind": "mcts",
        "iterations": 5,
        "exploration": result.matches[0].spec.agent.exploration,
        "rollout_limit": 1000,
    }
    assert len(data["matches"][0]["games"]) == 8
    result.plot(tmp_path / "sweep.png")
    assert (tmp_path / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_pettingzoo_tic_tac_toe_plays_the_env_loop_with_converted_moves():
    game = make_game("classic/tictactoe-v3")
    # Our first legal cells 0, 1, 2, 3, 4, 5, 6 are PettingZoo's actions 0, 3, 6, 1, 4, 7, 2.
    result = play_match(game, FIRST_LEGAL, FIRST_LEGAL, games_per_seat=1, workers=1)
    assert [r.moves for r in result.records] == [(0, 3, 6, 1, 4, 7, 2)] * 2
    assert [r.returns for r in result.records] == [(1.0, -1.0), (-1.0, 1.0)]  # PettingZoo's +-1
    assert result.tally(0) == Tally(1, 0, 0) and result.tally(1) == Tally(0, 0, 1)


def test_pettingzoo_tic_tac_toe_with_mcts_random_and_perfect_players():
    game = make_game("classic/tictactoe-v3")
    specs = [
        MatchSpec(game, MCTSPlayer(200), RandomPlayer(), games_per_seat=3),
        MatchSpec(game, MCTSPlayer(200), PerfectPlayer(), games_per_seat=3),
    ]
    results = run_matches(specs, workers=1)
    model = TicTacToeModel()
    for result in results:
        for record in result.records:
            state = EMPTY_BOARD
            winner = None
            for action in record.moves:
                mover = model.player(state)
                state, reward, _ = model.step(state, from_pettingzoo_action(action))
                winner = mover if reward else winner
            assert not model.actions(state)
            agent_player = 1 + record.agent_seat
            expected = "draw" if winner is None else "win" if winner == agent_player else "loss"
            assert record.outcome == expected
    assert results[1].tally().wins == 0  # nobody beats perfect play
    assert [without_seconds(r) for r in run_matches(specs, workers=2)] == [
        without_seconds(r) for r in results
    ]


def test_pettingzoo_connect_four_with_minimax_and_random_players():
    game = make_game("classic/connect_four-v3")
    result = play_match(game, MinimaxPlayer(depth=2), RandomPlayer(), games_per_seat=2, workers=1)
    model = ConnectFourModel()
    for record in result.records:
        state = connect_four.EMPTY_BOARD
        for action in record.moves:
            mover = model.player(state)
            state, reward, _ = model.step(state, action)
        assert not model.actions(state)
        agent_player = 1 + record.agent_seat
        expected = "draw" if not reward else "win" if mover == agent_player else "loss"
        assert record.outcome == expected
        assert sorted(record.returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_make_game_names():
    for name in GAME_NAMES:
        assert make_game(name).name == name
    with pytest.raises(ValueError, match=r"unknown game 'chess': neither one of our models "):
        make_game("chess")


@dataclass(frozen=True)
class IllegalPlayer:
    def __call__(self, model, seed):
        return lambda state: 42


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="perfect play needs a game small enough"):
        MatchSpec(make_game("connect_four"), MCTSPlayer(10), PerfectPlayer())
    with pytest.raises(ValueError, match="seats must be one of alternate, first, second"):
        MatchSpec(TTT, MCTSPlayer(10), RandomPlayer(), seats="both")
    with pytest.raises(ValueError, match="games_per_seat must be >= 1"):
        MatchSpec(TTT, MCTSPlayer(10), RandomPlayer(), games_per_seat=0)
    with pytest.raises(TypeError, match="game must be a ModelGame or PettingZooGame"):
        MatchSpec("tictactoe", MCTSPlayer(10), RandomPlayer())
    with pytest.raises(TypeError, match="opponent must be a player"):
        MatchSpec(TTT, MCTSPlayer(10), "random")
    with pytest.raises(ValueError, match="iterations must be >= 1"):
        MCTSPlayer(0)
    with pytest.raises(ValueError, match="exploration must be a finite number >= 0"):
        MCTSPlayer(10, exploration=-1.0)
    with pytest.raises(ValueError, match="depth must be >= 1"):
        MinimaxPlayer(depth=0)
    with pytest.raises(ValueError, match="backend must be one of process, ray"):
        play_match(TTT, RandomPlayer(), RandomPlayer(), 1, backend="dask")
    with pytest.raises(ValueError, match="address is for backend='ray' only"):
        play_match(TTT, RandomPlayer(), RandomPlayer(), 1, address="auto")
    with pytest.raises(ValueError, match="workers must be >= 1"):
        play_match(TTT, RandomPlayer(), RandomPlayer(), 1, workers=0)
    with pytest.raises(ValueError, match=r"played 42, which is not one of the legal actions"):
        play_match(TTT, IllegalPlayer(), RandomPlayer(), 1, workers=1)
    with pytest.raises(ValueError, match="iterations must not be empty"):
        sweep(TTT, [RandomPlayer()], [])
    finished = ModelGame(TicTacToeModel(), 0b111 | 0b11 << 12, "finished")
    with pytest.raises(ValueError, match="has no legal actions"):
        play_match(finished, RandomPlayer(), RandomPlayer(), 1, workers=1)


def test_players_check_settings_as_the_searches_they_make_do():
    # One check each: the players' errors are those of AlphaBetaMinimax and MCTS.
    for settings in ({"depth": 0}, {"depth": 2.0}, {"evaluation": 0.5}):
        with pytest.raises((TypeError, ValueError)) as from_search:
            AlphaBetaMinimax(TTT.model, **settings)
        with pytest.raises(from_search.type, match=re.escape(str(from_search.value))):
            MinimaxPlayer(**settings)
    for settings in ({"exploration": -1.0}, {"exploration": "2"}, {"exploration": None}):
        with pytest.raises((TypeError, ValueError)) as from_search:
            MCTS(TTT.model, 10, **settings)
        with pytest.raises(from_search.type, match=re.escape(str(from_search.value))):
            MCTSPlayer(10, **settings)
    # Numpy numbers are stored as Python numbers: the players play and describe() is JSON.
    minimax = MinimaxPlayer(depth=np.int64(2))
    mcts = MCTSPlayer(np.int64(20), exploration=np.float32(1.5), rollout_limit=np.int8(9))
    assert json.loads(json.dumps(minimax.describe()))["depth"] == 2
    assert json.loads(json.dumps(mcts.describe())) == {
        "kind": "mcts",
        "iterations": 20,
        "exploration": 1.5,
        "rollout_limit": 9,
    }
    result = play_match(TTT, mcts, minimax, games_per_seat=1, workers=1)
    assert result.tally().games == 2
    assert all(5 <= len(r.moves) <= 9 for r in result.records)


def test_the_tic_tac_toe_example_runs_with_few_games():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "tic_tac_toe_mcts.py"), "--games", "2", "--workers", "2"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1].startswith("OK at 5000 iterations: every position right, no game lost")
    assert sum(": right (" in line for line in lines) == 4
    assert "move played: 4" in lines  # the centre, which random rollouts favour
    header = next(i for i, line in enumerate(lines) if line.startswith("opponent  iterations"))
    assert [line.split()[:2] for line in lines[header + 1 : header + 9]] == [
        [opponent, str(n)] for opponent in ("random", "perfect") for n in (10, 100, 1000, 5000)
    ]


def test_sweep_over_any_option_one_match_per_combination(tmp_path):
    result = sweep(
        TTT,
        [RandomPlayer()],
        [5, 10],
        options={"gamma": [0.9, 1.0], "selection": ["uct", "puct"]},
        games_per_seat=1,
        workers=1,
    )
    combos = [
        (m.spec.agent.options["gamma"], m.spec.agent.options["selection"]) for m in result.matches
    ]
    iterations = [m.spec.agent.iterations for m in result.matches]
    assert (
        combos
        == [(0.9, "uct")] * 2 + [(0.9, "puct")] * 2 + [(1.0, "uct")] * 2 + [(1.0, "puct")] * 2
    )
    assert iterations == [5, 10] * 4
    assert result.swept_options() == ["gamma", "selection"]
    lines = result.table().splitlines()
    assert lines[2].split()[:4] == ["opponent", "gamma", "selection", "iterations"]
    assert [line.split()[1:4] for line in lines[3:5]] == [["0.9", "uct", "5"], ["0.9", "uct", "10"]]
    assert {(r["gamma"], r["selection"]) for r in result.rows()} == set(combos)
    result.save_csv(tmp_path / "s.csv")
    header = (tmp_path / "s.csv").read_text().splitlines()[0].split(",")
    assert header[-2:] == ["gamma", "selection"]
    # A player of a swept match is the same as one made directly.
    assert result.matches[3].spec.agent == MCTSPlayer(10, gamma=0.9, selection="puct")
    with pytest.raises(TypeError, match="unknown MCTS option 'gama'"):
        sweep(TTT, [RandomPlayer()], [5], options={"gama": [1.0]})
    with pytest.raises(ValueError, match="sweep it with its own argument"):
        sweep(TTT, [RandomPlayer()], [5], options={"iterations": [1]})


def test_a_random_opening_is_shared_by_each_pair_of_games_and_differs_between_pairs():
    game = TTT
    first = MinimaxPlayer()  # deterministic: without an opening, every pair replays one game
    spec = MatchSpec(game, first, PerfectPlayer(), 4, seed=3, opening_plies=2)
    result = play_match(game, first, PerfectPlayer(), 4, seed=3, opening_plies=2, workers=1)
    openings = [record.moves[:2] for record in result.records]
    assert openings[0] == openings[1] and openings[2] == openings[3]
    assert len(set(openings)) > 1  # 4 pairs drawing 2 of 9 x 8 openings
    assert [spec.opening_seed(i) for i in range(4)] == [spec.opening_seed(0)] * 2 + [
        spec.opening_seed(2)
    ] * 2
    # the opening's moves are uniformly random picks, seeded as opening_seed says
    choose = random.Random(spec.opening_seed(0)).choice
    cell = choose(TicTacToeModel().actions(EMPTY_BOARD))
    assert openings[0][0] == cell
    assert result.to_dict()["opening_plies"] == 2


def test_an_env_game_plays_its_random_opening_in_the_env():
    game = make_game("classic/connect_four-v3")
    plain = game.play((RandomPlayer(), RandomPlayer()), (1, 2), 0)
    moves, _ = game.play((MinimaxPlayer(2), MinimaxPlayer(2)), (1, 2), 0, opening_plies=3)
    again, _ = game.play((MinimaxPlayer(2), MinimaxPlayer(2)), (1, 2), 0, opening_plies=3)
    choose = random.Random(0).choice
    assert list(moves[:3]) == [choose(range(7)) for _ in range(3)]  # no full column yet
    assert moves == again and plain[0] != moves


def test_opening_plies_must_be_a_count():
    game = ModelGame(TicTacToeModel(), EMPTY_BOARD, "tictactoe", ("X", "O"))
    with pytest.raises(ValueError, match="opening_plies"):
        MatchSpec(game, RandomPlayer(), RandomPlayer(), 1, opening_plies=-1)
