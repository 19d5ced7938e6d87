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

No finished game is lost: workers report their finished games at least every
:data:`REPORT_EVERY` seconds, and ``on_game`` sees each one as it arrives (give
it :meth:`GameLog.write <mcts_agent.evaluation.GameLog.write>` to keep them on
disk). When the run stops early (Ctrl-C, an error, a game's exception), the
worker processes are terminated at once rather than waited for. A worker
process that dies (killed, out of memory) has its unfinished games replayed
once in new processes; they are seeded by their index, so the results are
those of an undisturbed run.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import re
import socket
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Literal

import numpy as np

from mcts_agent._validation import require_int
from mcts_agent._workers import STOP_TIMEOUT, start_worker, stop_pools
from mcts_agent.evaluation.games import Game
from mcts_agent.evaluation.match_spec import MatchSpec, Seats
from mcts_agent.evaluation.players import DEFAULT_EXPLORATION, MCTSPlayer, Player
from mcts_agent.evaluation.results import GameRecord, MatchResult, SweepResult

__all__ = [
    "BACKENDS",
    "MAX_CHUNK",
    "RAY_CONNECT_TIMEOUT",
    "REPORT_EVERY",
    "STOP_TIMEOUT",
    "WorkerDiedError",
    "WorkerDiedWarning",
    "check_ray_address",
    "game_seeds",
    "play_match",
    "ray_session",
    "run_matches",
    "sweep",
]

Backend = Literal["process", "ray"]
BACKENDS = ("process", "ray")
"""The backends :func:`run_matches` accepts."""

RAY_CONNECT_TIMEOUT = 5.0
"""Seconds :func:`check_ray_address` waits for a Ray cluster's port to answer."""

REPORT_EVERY = 0.1
"""Seconds of play after which a worker sends its finished games (a game is never cut)."""

OnGame = Callable[[MatchSpec, GameRecord], None]
"""``on_game(spec, record)``: called in the calling process as each game finishes."""


class WorkerDiedWarning(RuntimeWarning):
    """A worker process died; its unfinished games are replayed in new processes."""


class WorkerDiedError(RuntimeError):
    """Workers died again while replaying (or Ray's retries ran out): games were not played."""


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
    if spec.opening_plies:
        opening = {"opening_plies": spec.opening_plies, "opening_seed": spec.opening_seed(index)}
        moves, seat_returns = spec.game.play(players, seeds, game_seed, **opening)
    else:
        moves, seat_returns = spec.game.play(players, seeds, game_seed)
    seconds = time.perf_counter() - start
    returns = seat_returns if seat == 0 else (seat_returns[1], seat_returns[0])
    return GameRecord(index, seat, (agent_seed, opponent_seed, game_seed), moves, returns, seconds)


def _play_chunk(
    specs: Sequence[MatchSpec], items: Sequence[tuple[int, int]], seconds: float = math.inf
) -> list[tuple[int, GameRecord]]:
    """Plays the games ``(match, index)`` of ``items`` in order until ``seconds`` have passed.

    Returns:
        ``(match, record)`` pairs of the games played: a prefix of ``items``,
        at least one game long.
    """
    start = time.perf_counter()
    pairs = []
    for match, index in items:
        pairs.append((match, _play_one(specs[match], index)))
        if time.perf_counter() - start >= seconds:
            break
    return pairs


_WORKER_SPECS: Sequence[MatchSpec] = ()


def _start_worker(specs: Sequence[MatchSpec], main: int) -> None:
    start_worker(main)  # Ctrl-C ignored (the parent stops the workers), ends with ``main``
    global _WORKER_SPECS
    _WORKER_SPECS = specs


def _play_worker_chunk(items: Sequence[tuple[int, int]]) -> list[tuple[int, GameRecord]]:
    return _play_chunk(_WORKER_SPECS, items, REPORT_EVERY)


MAX_CHUNK = 32
"""Most games handed to a worker at once: the games in flight stay near the lowest index."""


def _chunks(items: list[tuple[int, int]], workers: int) -> list[list[tuple[int, int]]]:
    size = max(1, min(MAX_CHUNK, math.ceil(len(items) / (workers * 8))))
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
    on_game: OnGame | None = None,
) -> tuple[MatchResult, ...]:
    """Plays every game of ``specs`` on the chosen backend; the core of the arena.

    The results are the same whatever ``workers`` and ``backend`` (each game is
    seeded from its match's seed and its index; only ``seconds`` varies). If
    the run stops early (an exception, Ctrl-C's ``KeyboardInterrupt``, or one
    raised by ``on_game``), the worker processes are terminated, not waited
    for, and the exception propagates; the games ``on_game`` saw are the ones
    finished.

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
        on_game: ``on_game(spec, record)``, called in this process with each
            game as it finishes (in the order games finish, within about
            :data:`REPORT_EVERY` seconds), e.g. :meth:`GameLog.write
            <mcts_agent.evaluation.GameLog.write>`.

    Returns:
        One :class:`MatchResult` per spec, in order.

    Raises:
        TypeError, ValueError: if an argument is invalid (see also
            :func:`check_ray_address`).
        ImportError: if ``backend="ray"`` and Ray is not installed.
        ConnectionError: if no Ray cluster answers at ``address`` (before any
            game is played).
        WorkerDiedError: if worker processes die again while replaying the
            games of a dead one (a dead worker first gives a
            :class:`WorkerDiedWarning`), or on Ray when its retries run out;
            the message counts the games not played.
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
        games = _run_items(specs, items, workers, backend, address)
        try:  # closing the generator stops its workers, whatever stops this loop
            for match, record in games:
                records[match][record.index] = record
                bar.update(1)
                if on_game is not None:
                    on_game(specs[match], record)
        finally:
            games.close()
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
) -> Iterator[tuple[int, GameRecord]]:
    """Yields ``(match, record)`` as games finish; closing it stops the workers at once."""
    if backend == "ray":
        yield from _run_on_ray(specs, items, workers, address)
        return
    workers = min(workers or os.cpu_count() or 1, len(items))
    if workers <= 1:
        for item in items:
            yield from _play_chunk(specs, [item])
        return
    unfinished = yield from _run_on_processes(specs, _chunks(items, workers), workers)
    if unfinished:
        warnings.warn(
            f"a worker process died (killed, or out of memory?); playing the {len(unfinished)} "
            f"unfinished games again in new processes",
            WorkerDiedWarning,
            stacklevel=2,
        )
        unfinished = yield from _run_on_processes(specs, _chunks(unfinished, workers), workers)
        if unfinished:
            raise WorkerDiedError(
                f"worker processes died again while replaying; {len(unfinished)} of "
                f"{len(items)} games were not played"
            )


def _next_chunks(queue: list[list[tuple[int, int]]], rests: list[list[tuple[int, int]]]) -> None:
    """Puts the unplayed ``rests`` of chunks back into ``queue``, which stays in game order."""
    queue.extend(rests)
    queue.sort(key=lambda chunk: chunk[0])


def _run_on_processes(
    specs: list[MatchSpec], chunks: list[list[tuple[int, int]]], workers: int
) -> Iterator[tuple[int, GameRecord]]:
    """Plays ``chunks`` on a new pool; yields pairs; returns the items a dead worker left.

    At most ``workers`` chunks are in flight, the lowest in game order first
    (a chunk's unplayed rest goes back into line before later chunks), so the
    games are played roughly in index order: a sequential test
    (:mod:`~mcts_agent.evaluation.sprt`) that counts them in order waits little.
    """
    pool = ProcessPoolExecutor(
        max_workers=workers, initializer=_start_worker, initargs=(specs, os.getpid())
    )
    try:
        queue = list(chunks)
        pending: dict[Future, list[tuple[int, int]]] = {}
        lost: list[tuple[int, int]] = []
        broken = False
        while True:
            while queue and not broken and len(pending) < workers:
                chunk = queue.pop(0)
                try:
                    pending[pool.submit(_play_worker_chunk, chunk)] = chunk
                except BrokenProcessPool:
                    lost.extend(chunk)
                    broken = True
            if not pending:
                break
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            rests = []
            for future in done:
                chunk = pending.pop(future)
                try:
                    pairs = future.result()
                except BrokenProcessPool:
                    lost.extend(chunk)
                    broken = True
                    continue
                yield from pairs
                if len(pairs) < len(chunk):
                    rests.append(chunk[len(pairs) :])
            _next_chunks(queue, rests)
        lost.extend(item for chunk in queue for item in chunk)
        return sorted(lost)
    finally:
        stop_pools([pool])


_RAY_HOST_PORT = re.compile(r"^(?:ray://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(?P<port>\d+)$")
_RAY_ADDRESS_FORMS = "'auto', 'local', 'host:port' or 'ray://host:port'"


def check_ray_address(address: str | None, timeout: float = RAY_CONNECT_TIMEOUT) -> None:
    """Checks a Ray address's form, and that something listens at a ``host:port``.

    Ray's forms (see ``ray.init``): None (a running local Ray, or a new one),
    ``"auto"`` (a running cluster, found from ``RAY_ADDRESS`` or the latest
    one started on this machine), ``"local"`` (a new local Ray),
    ``"host:port"`` (a cluster's GCS) and ``"ray://host:port"`` (Ray Client);
    IPv6 hosts in brackets. ``ray.init`` retries an unreachable ``host:port``
    for minutes without an error; this check tries one TCP connection and
    fails within ``timeout`` instead. Whether ``"auto"`` finds a cluster is
    known only when Ray looks (:func:`run_matches` raises ``ConnectionError``
    then, before any game).

    Args:
        address: the address given to :func:`run_matches`, or None.
        timeout: seconds to wait for the connection.

    Raises:
        TypeError: if ``address`` is neither None nor a str.
        ValueError: if ``address`` has none of the forms above (e.g.
            ``"localhost"`` without a port, or ``"host:abc"``), or its port is
            not in 1-65535.
        ConnectionError: if nothing accepts a connection at ``host:port``.
    """
    if address is None:
        return
    if not isinstance(address, str):
        raise TypeError(
            f"address must be a str such as 'auto' or 'ray://host:10001', got {address!r}"
        )
    if address in ("auto", "local"):
        return
    match = _RAY_HOST_PORT.match(address)
    if match is None or not 1 <= int(match["port"]) <= 65535:
        raise ValueError(
            f"a Ray address must be {_RAY_ADDRESS_FORMS} (port 1-65535), got {address!r}"
        )
    try:
        socket.create_connection(
            (match["host"].strip("[]"), int(match["port"])), timeout=timeout
        ).close()
    except OSError as error:
        raise ConnectionError(
            f"no Ray cluster answers at {address!r} ({error}); start one there with "
            f"'ray start --head', or give its address (or 'auto' for a cluster on this "
            f"machine, or no address to start a local Ray)"
        ) from error


@contextlib.contextmanager
def ray_session(address: str | None) -> Iterator[Any]:
    """Connects to Ray (or starts a local Ray) for the block, unless Ray is running already.

    Yields the ``ray`` module; a Ray started here is shut down when the block ends.

    Raises:
        ImportError: if Ray is not installed.
        ConnectionError: if no Ray cluster answers at ``address``.
    """
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
        try:
            ray.init(**options)
        except ConnectionError as error:
            raise ConnectionError(
                f"no Ray cluster found at address {address!r} ({error}); start one with "
                f"'ray start --head', or give no address to start a local Ray"
            ) from error
        started = True
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def _run_on_ray(
    specs: list[MatchSpec],
    items: list[tuple[int, int]],
    workers: int | None,
    address: str | None,
) -> Iterator[tuple[int, GameRecord]]:
    """Ray's counterpart of :func:`_run_on_processes` (Ray replays a dead worker's tasks)."""
    with ray_session(address) as ray:
        from ray.exceptions import NodeDiedError, OutOfMemoryError, WorkerCrashedError

        pending: dict[Any, list[tuple[int, int]]] = {}
        try:
            cpus = int(ray.cluster_resources().get("CPU", 1))
            play = ray.remote(num_cpus=1)(_play_chunk)
            specs_ref = ray.put(specs)
            queue = _chunks(items, workers or cpus)
            while True:  # at most `cpus` chunks in flight, in game order (see _run_on_processes)
                while queue and len(pending) < cpus:
                    chunk = queue.pop(0)
                    pending[play.remote(specs_ref, chunk, REPORT_EVERY)] = chunk
                if not pending:
                    break
                (done,), _ = ray.wait(list(pending), num_returns=1)
                chunk = pending.pop(done)
                try:
                    pairs = ray.get(done)
                except (WorkerCrashedError, NodeDiedError, OutOfMemoryError) as error:
                    unplayed = len(chunk) + sum(map(len, pending.values())) + sum(map(len, queue))
                    raise WorkerDiedError(
                        f"a Ray worker died and Ray's retries ran out ({type(error).__name__}); "
                        f"{unplayed} games were not played"
                    ) from error
                yield from pairs
                if len(pairs) < len(chunk):
                    _next_chunks(queue, [chunk[len(pairs) :]])
        finally:
            for ref in pending:  # stopped early: do not leave games running on the cluster
                ray.cancel(ref, force=True)


def play_match(
    game: Game,
    agent: Player,
    opponent: Player,
    games_per_seat: int = 100,
    *,
    seed: int = 0,
    seats: Seats = "alternate",
    opening_plies: int = 0,
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    progress: bool = False,
    on_game: OnGame | None = None,
) -> MatchResult:
    """Plays ``agent`` against ``opponent`` on ``game`` and counts the agent's results.

    Args:
        game: from :func:`make_game`, or a :class:`ModelGame` of your own.
        agent: ``player(model, seed) -> policy`` (e.g. ``MCTSPlayer(1000)``).
        opponent: the same for the other side (e.g. ``PerfectPlayer()``).
        games_per_seat: games with the agent in each seat it takes.
        seed: master seed of the match.
        seats: ``"alternate"``, ``"first"`` or ``"second"`` (see :class:`MatchSpec`).
        opening_plies: random moves that start each game (see :class:`MatchSpec`).
        workers: local processes (see :func:`run_matches`).
        backend: ``"process"`` or ``"ray"``.
        address: Ray's address, or None.
        progress: show a progress bar over games.
        on_game: called with ``(spec, record)`` as each game finishes (see
            :func:`run_matches`).

    Returns:
        The :class:`MatchResult`.
    """
    spec = MatchSpec(game, agent, opponent, games_per_seat, seed, seats, opening_plies)
    (result,) = run_matches(
        [spec],
        workers=workers,
        backend=backend,
        address=address,
        progress=progress,
        on_game=on_game,
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
    options: Mapping[str, Sequence[Any]] | None = None,
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    progress: bool = False,
    on_game: OnGame | None = None,
) -> SweepResult:
    """Plays MCTS at every (exploration, seed, iterations) against every opponent.

    E.g. "how many games does MCTS lose against perfect play at 400, 800, 1600
    and 2400 iterations per move, with c = sqrt(2) and c = 2 sqrt(2)?"::

        sweep(make_game("tictactoe"), [PerfectPlayer()], [400, 800, 1600, 2400],
              explorations=[math.sqrt(2), 2 * math.sqrt(2)], games_per_seat=300).table()

    Any other option of :class:`MCTSPlayer` is swept with ``options``, one
    match per combination of values: ``options={"gamma": [0.9, 1.0],
    "selection": ["uct", "puct"]}``. Every match alternates seats
    (``games_per_seat`` games as each) and uses the same game seeds for the
    same master seed.

    Args:
        game: the game to play.
        opponents: the opponents' players.
        iterations: MCTS iterations per move, one match each.
        explorations: c values, one match each.
        seeds: master seeds, one match each.
        games_per_seat: games as each seat per match.
        rollout_limit: MCTS's rollout limit.
        options: ``{option: values}``, more MCTS options to sweep (each
            combination of values is one match per iterations, exploration
            and seed; the table gets a column per option that varies).
        workers: local processes (see :func:`run_matches`).
        backend: ``"process"`` or ``"ray"``.
        address: Ray's address, or None.
        progress: show a progress bar over games.
        on_game: called with ``(spec, record)`` as each game finishes (see
            :func:`run_matches`); e.g. ``GameLog(path).write``.

    Returns:
        A :class:`SweepResult` (``table()``, ``save_json``, ``save_csv``, ``plot``).

    Raises:
        ValueError: if a sequence is empty or a value is invalid.
        TypeError: if an option is unknown (before any game).
        ConnectionError: if no Ray cluster answers at ``address``.
        WorkerDiedError: if workers die again while replaying a dead one's games.
    """
    options = dict(options or {})
    for name in ("iterations", "exploration", "rollout_limit", "seed"):
        if name in options:
            raise ValueError(f"options must not hold {name!r}: sweep it with its own argument")
    for name, values in (
        ("opponents", opponents),
        ("iterations", iterations),
        ("explorations", explorations),
        ("seeds", seeds),
        *((f"options[{k!r}]", v) for k, v in options.items()),
    ):
        if len(values) == 0:
            raise ValueError(f"{name} must not be empty")
    combinations = [
        dict(zip(options, values, strict=True)) for values in itertools.product(*options.values())
    ]
    specs = [
        MatchSpec(
            game,
            MCTSPlayer(n, exploration=c, rollout_limit=rollout_limit, **extra),
            opponent,
            games_per_seat,
            seed,
        )
        for opponent in opponents
        for c in explorations
        for seed in seeds
        for extra in combinations
        for n in iterations
    ]
    results = run_matches(
        specs,
        workers=workers,
        backend=backend,
        address=address,
        progress=progress,
        on_game=on_game,
    )
    return SweepResult(results)
