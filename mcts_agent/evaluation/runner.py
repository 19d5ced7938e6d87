"""Running matches: seeding, the process and Ray backends, matches and sweeps.

:func:`play_match` plays one agent against one opponent, alternating seats (or
in one seat); :func:`sweep` plays an MCTS agent at several iteration counts,
exploration constants and seeds against several opponents, and returns one
table. Game ``i`` of a match draws the seeds of both players and of the env from
``numpy.random.SeedSequence(seed, spawn_key=(i,))``, so a run's results depend
on the master seed only, not on the backend, the number of workers or the
order in which the games finish. Games run in local processes
(``backend="process"``, one per core by default) or on a Ray cluster
(``backend="ray"``, the optional extra ``mcts-agent[ray]``).
"""

from __future__ import annotations

import math
import os
import socket
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Literal

import numpy as np

from mcts_agent._validation import require_int
from mcts_agent.evaluation.games import Game
from mcts_agent.evaluation.match_spec import MatchSpec, Seats
from mcts_agent.evaluation.players import DEFAULT_EXPLORATION, MCTSPlayer, Player
from mcts_agent.evaluation.results import GameRecord, MatchResult, SweepResult

__all__ = [
    "BACKENDS",
    "RAY_CONNECT_TIMEOUT",
    "check_ray_address",
    "game_seeds",
    "play_match",
    "run_matches",
    "sweep",
]

Backend = Literal["process", "ray"]
BACKENDS = ("process", "ray")
"""The backends :func:`run_matches` accepts."""

RAY_CONNECT_TIMEOUT = 5.0
"""Seconds :func:`check_ray_address` waits for a Ray cluster's port to answer."""


def game_seeds(seed: int, index: int) -> tuple[int, int, int]:
    """Returns ``(agent's seed, opponent's seed, env's seed)`` of game ``index``.

    From ``numpy.random.SeedSequence(seed, spawn_key=(index,))``: independent
    streams per game, a function of the master seed and the index only.
    """
    state = np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(3, dtype=np.uint32)
    return int(state[0]), int(state[1]), int(state[2])


def _play_one(spec: MatchSpec, index: int) -> GameRecord:
    agent_seed, opponent_seed, game_seed = game_seeds(spec.seed, index)
    seat = spec.agent_seat(index)
    if seat == 0:
        players, seeds = (spec.agent, spec.opponent), (agent_seed, opponent_seed)
    else:
        players, seeds = (spec.opponent, spec.agent), (opponent_seed, agent_seed)
    start = time.perf_counter()
    moves, seat_returns = spec.game.play(players, seeds, game_seed)
    seconds = time.perf_counter() - start
    returns = seat_returns if seat == 0 else (seat_returns[1], seat_returns[0])
    return GameRecord(index, seat, (agent_seed, opponent_seed, game_seed), moves, returns, seconds)


def _play_chunk(
    specs: Sequence[MatchSpec], items: Sequence[tuple[int, int]]
) -> list[tuple[int, GameRecord]]:
    """Plays the games ``(match, index)`` of ``items``; returns ``(match, record)`` pairs."""
    return [(match, _play_one(specs[match], index)) for match, index in items]


_WORKER_SPECS: Sequence[MatchSpec] = ()


def _set_worker_specs(specs: Sequence[MatchSpec]) -> None:
    global _WORKER_SPECS
    _WORKER_SPECS = specs


def _play_worker_chunk(items: Sequence[tuple[int, int]]) -> list[tuple[int, GameRecord]]:
    return _play_chunk(_WORKER_SPECS, items)


def _chunks(items: list[tuple[int, int]], workers: int) -> list[list[tuple[int, int]]]:
    size = max(1, math.ceil(len(items) / (workers * 8)))
    return [items[i : i + size] for i in range(0, len(items), size)]


def _progress_bar(total: int, progress: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="game", disable=not progress, desc="games")


def run_matches(
    specs: Sequence[MatchSpec],
    *,
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    progress: bool = False,
) -> tuple[MatchResult, ...]:
    """Plays every game of ``specs`` on the chosen backend; the core of the arena.

    The results are the same whatever ``workers`` and ``backend`` (each game is
    seeded from its match's seed and its index; only ``seconds`` varies).

    Args:
        specs: the matches to play.
        workers: processes for ``backend="process"``: int >= 1, default
            ``os.cpu_count()``; 1 plays in this process. For ``"ray"``, the
            number of chunks in flight is a multiple of the cluster's CPUs and
            ``workers`` is only used to size the chunks (default: the cluster's
            CPU count).
        backend: ``"process"`` (local processes) or ``"ray"``.
        address: Ray's address (``"auto"``, ``"ray://host:10001"``...); None
            starts a local Ray instance unless one is running. Only for Ray.
        progress: show a tqdm progress bar over games (on stderr).

    Returns:
        One :class:`MatchResult` per spec, in order.

    Raises:
        TypeError, ValueError: if an argument is invalid.
        ImportError: if ``backend="ray"`` and Ray is not installed.
        ConnectionError: if ``address`` is ``host:port`` or ``ray://host:port``
            and nothing listens there (see :func:`check_ray_address`).
    """
    specs = list(specs)
    for spec in specs:
        if not isinstance(spec, MatchSpec):
            raise TypeError(f"specs must hold MatchSpec objects, got {spec!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    if workers is not None:
        require_int("workers", workers, 1)
    if address is not None and backend != "ray":
        raise ValueError(f"address is for backend='ray' only; got backend={backend!r}")
    check_ray_address(address)
    items = [(m, i) for m, spec in enumerate(specs) for i in range(spec.num_games)]
    records: list[list[GameRecord | None]] = [[None] * spec.num_games for spec in specs]
    with _progress_bar(len(items), progress) as bar:
        for match, record in _run_items(specs, items, workers, backend, address, bar):
            records[match][record.index] = record
    return tuple(
        MatchResult(spec, tuple(r for r in rs if r is not None))
        for spec, rs in zip(specs, records, strict=True)
    )


def _run_items(
    specs: list[MatchSpec],
    items: list[tuple[int, int]],
    workers: int | None,
    backend: str,
    address: str | None,
    bar: Any,
) -> Iterable[tuple[int, GameRecord]]:
    if backend == "ray":
        yield from _run_on_ray(specs, items, workers, address, bar)
        return
    workers = min(workers or os.cpu_count() or 1, len(items))
    if workers <= 1:
        for item in items:
            pairs = _play_chunk(specs, [item])
            bar.update(1)
            yield from pairs
        return
    with ProcessPoolExecutor(
        max_workers=workers, initializer=_set_worker_specs, initargs=(specs,)
    ) as pool:
        futures = [pool.submit(_play_worker_chunk, chunk) for chunk in _chunks(items, workers)]
        for future in as_completed(futures):
            pairs = future.result()
            bar.update(len(pairs))
            yield from pairs


def check_ray_address(address: str | None, timeout: float = RAY_CONNECT_TIMEOUT) -> None:
    """Checks that something listens at a Ray address of the form ``host:port``.

    ``ray.init`` retries an unreachable address for minutes without an error;
    this check fails within ``timeout`` instead. Addresses ``"host:port"`` and
    ``"ray://host:port"`` (IPv6 hosts in brackets) are checked with one TCP
    connection; None, ``"auto"``, ``"local"`` and other forms are left to Ray.

    Args:
        address: the address given to :func:`run_matches`, or None.
        timeout: seconds to wait for the connection.

    Raises:
        TypeError: if ``address`` is neither None nor a str.
        ConnectionError: if nothing accepts a connection at ``host:port``.
    """
    if address is None:
        return
    if not isinstance(address, str):
        raise TypeError(
            f"address must be a str such as 'auto' or 'ray://host:10001', got {address!r}"
        )
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as error:
        raise ConnectionError(
            f"no Ray cluster answers at {address!r} ({error}); start one there with "
            f"'ray start --head', or give its address (or 'auto' for a cluster on this "
            f"machine, or no address to start a local Ray)"
        ) from error


def _run_on_ray(
    specs: list[MatchSpec],
    items: list[tuple[int, int]],
    workers: int | None,
    address: str | None,
    bar: Any,
) -> Iterable[tuple[int, GameRecord]]:
    try:
        import ray
    except ImportError as error:
        raise ImportError(
            "backend='ray' needs Ray: pip install 'mcts-agent[ray]' (or ray)"
        ) from error
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"address": address, "logging_level": "WARNING"}
        if address is None:
            options["include_dashboard"] = False
        ray.init(**options)
        started = True
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        play = ray.remote(num_cpus=1)(_play_chunk)
        specs_ref = ray.put(specs)
        pending = [play.remote(specs_ref, chunk) for chunk in _chunks(items, workers or cpus)]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            pairs = ray.get(done[0])
            bar.update(len(pairs))
            yield from pairs
    finally:
        if started:
            ray.shutdown()


def play_match(
    game: Game,
    agent: Player,
    opponent: Player,
    games_per_seat: int = 100,
    *,
    seed: int = 0,
    seats: Seats = "alternate",
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    progress: bool = False,
) -> MatchResult:
    """Plays ``agent`` against ``opponent`` on ``game`` and counts the agent's results.

    Args:
        game: from :func:`make_game`, or a :class:`ModelGame` of your own.
        agent: ``player(model, seed) -> policy`` (e.g. ``MCTSPlayer(1000)``).
        opponent: the same for the other side (e.g. ``PerfectPlayer()``).
        games_per_seat: games with the agent in each seat it takes.
        seed: master seed of the match.
        seats: ``"alternate"``, ``"first"`` or ``"second"`` (see :class:`MatchSpec`).
        workers: local processes (see :func:`run_matches`).
        backend: ``"process"`` or ``"ray"``.
        address: Ray's address, or None.
        progress: show a progress bar over games.

    Returns:
        The :class:`MatchResult`.
    """
    spec = MatchSpec(game, agent, opponent, games_per_seat, seed, seats)
    (result,) = run_matches(
        [spec], workers=workers, backend=backend, address=address, progress=progress
    )
    return result


def sweep(
    game: Game,
    opponents: Sequence[Player],
    iterations: Sequence[int],
    *,
    explorations: Sequence[float] = (DEFAULT_EXPLORATION,),
    seeds: Sequence[int] = (0,),
    games_per_seat: int = 100,
    rollout_limit: int = 1000,
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    progress: bool = False,
) -> SweepResult:
    """Plays MCTS at every (exploration, seed, iterations) against every opponent.

    E.g. "how many games does MCTS lose against perfect play at 400, 800, 1600
    and 2400 iterations per move, with c = sqrt(2) and c = 2 sqrt(2)?"::

        sweep(make_game("tictactoe"), [PerfectPlayer()], [400, 800, 1600, 2400],
              explorations=[math.sqrt(2), 2 * math.sqrt(2)], games_per_seat=300).table()

    Every match alternates seats (``games_per_seat`` games as each) and uses
    the same game seeds for the same master seed.

    Args:
        game: the game to play.
        opponents: the opponents' players.
        iterations: MCTS iterations per move, one match each.
        explorations: c values, one match each.
        seeds: master seeds, one match each.
        games_per_seat: games as each seat per match.
        rollout_limit: MCTS's rollout limit.
        workers: local processes (see :func:`run_matches`).
        backend: ``"process"`` or ``"ray"``.
        address: Ray's address, or None.
        progress: show a progress bar over games.

    Returns:
        A :class:`SweepResult` (``table()``, ``save_json``, ``save_csv``, ``plot``).

    Raises:
        ValueError: if a sequence is empty or a value is invalid.
        ConnectionError: if nothing listens at a ``host:port`` Ray ``address``.
    """
    for name, values in (
        ("opponents", opponents),
        ("iterations", iterations),
        ("explorations", explorations),
        ("seeds", seeds),
    ):
        if len(values) == 0:
            raise ValueError(f"{name} must not be empty")
    specs = [
        MatchSpec(
            game,
            MCTSPlayer(n, exploration=c, rollout_limit=rollout_limit),
            opponent,
            games_per_seat,
            seed,
        )
        for opponent in opponents
        for c in explorations
        for seed in seeds
        for n in iterations
    ]
    results = run_matches(
        specs, workers=workers, backend=backend, address=address, progress=progress
    )
    return SweepResult(results)
