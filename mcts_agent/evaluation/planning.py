"""Planning in Gymnasium envs: episodes of the MCTS agent and of a random policy, compared.

:func:`plan_episodes` plays episodes of one Gymnasium env with
:class:`~mcts_agent.agent.MCTSAgent` (any of its options) or with a uniformly
random policy (legal moves only where the env reports
``info["action_mask"]``), each episode ``i`` seeded from
``numpy.random.SeedSequence(seed, spawn_key=(i,))`` (the env's reset seed and
the policy's seed), so the results depend on the master seed only, not on
the number of worker processes. :class:`PlanResult` gives the mean return
with a 95% Student-t interval, the success rate where the env has a goal
(:data:`GOALS`), the mean length and the seconds per move.

Envs are named as games are (:func:`~mcts_agent.evaluation.specs.parse_spec`):
``FrozenLake-v1:is_slippery=False``, ``mcts_agent/GridMaze-v0``, or a user's
env as Gymnasium names it, ``my_module:MyEnv-v0:size=4`` (``my_module``,
which registers ``MyEnv-v0``, imported first:
:mod:`~mcts_agent.evaluation.user_modules`). The agent
plans through :class:`~mcts_agent.adapters.GymnasiumModel`, which refuses
stochastic envs: the first episode's first move raises its ValueError.
"""

from __future__ import annotations

import json
import os
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from mcts_agent._validation import require_int
from mcts_agent._workers import start_worker, stop_pools
from mcts_agent.evaluation.results import new_figure, save_figure, write_atomically
from mcts_agent.evaluation.runner import (
    BACKENDS,
    Backend,
    check_ray_address,
    ray_session,
)
from mcts_agent.evaluation.specs import format_options, import_path, parse_spec
from mcts_agent.evaluation.user_modules import import_user_module, user_code_error

__all__ = [
    "GOALS",
    "EpisodeRecord",
    "PlanResult",
    "check_agent_options",
    "check_plannable",
    "make_env",
    "plan_episodes",
    "play_episode",
    "plot",
    "save_json",
    "table",
]

GOALS: dict[str, Callable[[float, bool], bool]] = {
    "FrozenLakeEnv": lambda reward, terminated: terminated and reward > 0,
    "CliffWalkingEnv": lambda reward, terminated: terminated,  # only the goal terminates
    "TaxiEnv": lambda reward, terminated: terminated,  # only a delivery terminates
    "GridMazeEnv": lambda reward, terminated: terminated and reward > 0,  # not a trap
    "MountainCarEnv": lambda reward, terminated: terminated,  # only the flag terminates
    "Continuous_MountainCarEnv": lambda reward, terminated: terminated,  # the flag, too
    "PointRobotEnv": lambda reward, terminated: terminated and reward > 0,  # not a crash
}
"""Whether an episode reached the goal, by ``type(env.unwrapped).__name__``:
``goal(last reward, terminated)``. Other envs report no success rate."""


def make_env(env: str) -> Any:
    """Returns ``gymnasium.make(id, **options)`` for ``"id[:name=value,...]"``.

    ``mcts_agent/...`` ids are ours (:mod:`mcts_agent.envs` is imported
    first); ``module:id`` (:func:`~mcts_agent.evaluation.specs.import_path`)
    is Gymnasium's syntax for a user's env, ``module`` imported first.

    Raises:
        ValueError: if the spec is malformed, no env has the id, or it refuses an option.
        ImportError: if the ``module`` of ``module:id`` cannot be imported
            (:func:`~mcts_agent.evaluation.user_modules.import_user_module`).
        UserCodeError: if the env's creator raised anything else (a bug in
            it, or an entry point that cannot be loaded), naming the env, the
            exception and where it was raised
            (:func:`~mcts_agent.evaluation.user_modules.user_code_error`).
    """
    import gymnasium

    env_id, options = parse_spec(env, what="env")
    if env_id.startswith("mcts_agent/"):
        import mcts_agent.envs  # noqa: F401  (registers our envs)
    path = import_path(env_id)
    if path is not None:
        import_user_module(path[0], env)
    try:
        return gymnasium.make(env_id, **options)
    except gymnasium.error.Error as error:
        raise ValueError(f"env {env!r}: {error}") from error
    except Exception as error:
        # gymnasium re-raises a TypeError of the env's creator with its kwargs added
        origin = error.__context__ if isinstance(error, TypeError) else None
        if isinstance(origin, TypeError) and _raised_by_the_call(origin):
            raise ValueError(f"env {env!r}: {error}") from error  # refused an option
        raise user_code_error(origin or error, f"the env {env}") from error


def _raised_by_the_call(error: TypeError) -> bool:
    """True if gymnasium's call of the env's creator raised ``error`` (arguments refused).

    False if it was raised inside the creator (the user's code).
    """
    import gymnasium

    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and frames[-1].filename.startswith(os.path.dirname(gymnasium.__file__))


@dataclass(frozen=True)
class EpisodeRecord:
    """One episode.

    Attributes:
        index: the episode's index; its seeds come from it.
        seeds: ``(policy's seed, env's reset seed)``.
        total_return: the sum of the rewards (undiscounted).
        steps: moves played.
        success: True if it reached the goal (see :data:`GOALS`), None if the
            env has none.
        seconds: wall-clock seconds of the policy's moves (planning included).
    """

    index: int
    seeds: tuple[int, int]
    total_return: float
    steps: int
    success: bool | None
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """Returns the record as a JSON-ready dict."""
        return {
            "index": self.index,
            "seeds": list(self.seeds),
            "return": self.total_return,
            "steps": self.steps,
            "success": self.success,
            "seconds": self.seconds,
        }


def _seeds(seed: int, index: int) -> tuple[int, int]:
    state = np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(2, dtype=np.uint32)
    return int(state[0]), int(state[1])


def play_episode(env: str, options: dict[str, Any] | None, seed: int, index: int) -> EpisodeRecord:
    """Plays episode ``index`` of ``env`` with MCTS (``options``) or random moves (None).

    Raises:
        ValueError, ImportError: as :func:`make_env`.
        ValueError: as ``MCTSAgent.act`` refuses the env.
    """
    policy_seed, env_seed = _seeds(seed, index)
    live = make_env(env)
    try:
        _, info = live.reset(seed=env_seed)
        if options is None:
            space = live.action_space
            space.seed(policy_seed)

            def act(info: dict) -> Any:
                mask = info.get("action_mask")
                return space.sample() if mask is None else space.sample(mask=np.asarray(mask))

        else:
            from mcts_agent.agent import MCTSAgent

            agent = MCTSAgent(seed=policy_seed, **options)

            def act(info: dict) -> Any:
                return agent.act(live)

        goal = GOALS.get(type(live.unwrapped).__name__)
        total, steps, seconds = 0.0, 0, 0.0
        reward, terminated, truncated = 0.0, False, False
        while not (terminated or truncated):
            start = time.perf_counter()
            action = act(info)
            seconds += time.perf_counter() - start
            _, reward, terminated, truncated, info = live.step(action)
            total += float(reward)
            steps += 1
    finally:
        live.close()
    success = None if goal is None else bool(goal(float(reward), bool(terminated)))
    return EpisodeRecord(index, (policy_seed, env_seed), total, steps, success, seconds)


def check_agent_options(options: dict[str, Any]) -> None:
    """Checks, before any env is made, that ``MCTSAgent(**options)`` accepts ``options``.

    Args:
        options: the MCTS agent's options, e.g. ``{"iterations": 200, "gamma": 0.9}``.

    Raises:
        ValueError, TypeError: naming the option refused (an unknown one: the
            valid ones listed).
    """
    from mcts_agent.agent import MCTSAgent
    from mcts_agent.evaluation.players import _construct

    _construct(MCTSAgent, options)


def check_plannable(env: str, options: dict[str, Any] | None) -> None:
    """Checks, before any episode, that ``env`` can be made and the agent can plan in it.

    Makes the env, and for MCTS (``options`` not None) an ``MCTSAgent`` with
    ``options`` and a :class:`~mcts_agent.adapters.GymnasiumModel` of the
    env reset with seed 0 (whose start-up checks refuse stochastic envs and
    clones that are not exact).

    Raises:
        ValueError, TypeError: naming what was refused.
        ImportError: as :func:`make_env`.
    """
    live = make_env(env)
    try:
        if options is None:
            return
        check_agent_options(options)
        from mcts_agent.adapters.gymnasium import GymnasiumModel

        live.reset(seed=0)
        clone = options.get("clone")
        GymnasiumModel(live, **({} if clone is None else {"clone": clone}))
    finally:
        live.close()


def _episodes(
    env: str,
    options: dict[str, Any] | None,
    seed: int,
    episodes: int,
    workers: int | None,
    backend: str,
    address: str | None,
) -> Iterator[EpisodeRecord]:
    """Yields the episodes as they finish; closing it stops the workers (or Ray tasks) at once."""
    if backend == "ray":
        with ray_session(address) as ray:
            play = ray.remote(num_cpus=1)(play_episode)
            pending = [play.remote(env, options, seed, i) for i in range(episodes)]
            try:
                while pending:
                    (done,), pending = ray.wait(pending, num_returns=1)
                    yield ray.get(done)
            finally:  # stopped early: do not leave episodes running on the cluster
                for ref in pending:
                    ray.cancel(ref, force=True)
        return
    workers = min(workers or os.cpu_count() or 1, episodes)
    if workers == 1:
        for index in range(episodes):
            yield play_episode(env, options, seed, index)
        return
    pool = ProcessPoolExecutor(workers, initializer=start_worker, initargs=(os.getpid(),))
    try:  # one task per episode: each is reported as it finishes
        futures = [pool.submit(play_episode, env, options, seed, i) for i in range(episodes)]
        for future in as_completed(futures):
            yield future.result()
    finally:  # stopped early (Ctrl-C, an error): the running episodes are not waited for
        stop_pools([pool])


@dataclass(frozen=True)
class PlanResult:
    """The episodes of one policy on one env.

    Attributes:
        env: the env's spec.
        options: the agent's ``MCTSAgent`` options, or None for the random policy.
        records: every episode, in index order.
    """

    env: str
    options: dict[str, Any] | None
    records: tuple[EpisodeRecord, ...]

    @property
    def label(self) -> str:
        """``random`` or ``mcts`` with its options (``mcts:iterations=200,...``)."""
        if self.options is None:
            return "random"
        return "mcts" + format_options(tuple(self.options.items()))

    @property
    def display_label(self) -> str:
        """:attr:`label` as the table prints it: floats with at most 4 significant digits."""
        if self.options is None:
            return "random"
        return "mcts" + format_options(tuple(self.options.items()), display=True)

    def mean_return(self, confidence: float = 0.95) -> tuple[float, float, float]:
        """Returns ``(mean, low, high)``: the mean return and its Student-t interval."""
        returns = np.array([r.total_return for r in self.records])
        mean = float(returns.mean())
        if len(returns) < 2 or returns.std() == 0:
            return mean, mean, mean
        half = stats.t.ppf(0.5 + confidence / 2, len(returns) - 1) * stats.sem(returns)
        return mean, mean - float(half), mean + float(half)

    @property
    def success_rate(self) -> float | None:
        """Share of episodes that reached the goal, or None if the env has none."""
        successes = [r.success for r in self.records]
        return None if None in successes else sum(successes) / len(successes)

    @property
    def mean_steps(self) -> float:
        """Mean episode length in moves."""
        return sum(r.steps for r in self.records) / len(self.records)

    @property
    def seconds_per_move(self) -> float:
        """The policy's wall-clock seconds per move (MCTS: planning)."""
        return sum(r.seconds for r in self.records) / max(1, sum(r.steps for r in self.records))

    def row(self) -> dict[str, Any]:
        """Returns the summary as a dict (the table's columns)."""
        mean, low, high = self.mean_return()
        return {
            "env": self.env,
            "policy": self.label,
            "episodes": len(self.records),
            "mean_return": mean,
            "return_low": low,
            "return_high": high,
            "success_rate": self.success_rate,
            "mean_steps": self.mean_steps,
            "seconds_per_move": self.seconds_per_move,
        }

    def to_dict(self) -> dict[str, Any]:
        """Returns the summary and every episode as a JSON-ready dict."""
        return {
            **self.row(),
            "options": self.options,
            "episodes_played": [r.to_dict() for r in self.records],
        }


def table(results: Sequence[PlanResult]) -> str:
    """Returns one line per result: return with its 95% interval, success, steps, s/move.

    Seconds per move are written with three significant digits (``1.52e-05``, ``0.00152``).
    """
    width = max(len(r.display_label) for r in results)
    lines = [
        f"{results[0].env}: {len(results[0].records)} episodes each",
        f"{'policy'.ljust(width)}  {'mean return':>11}  {'95% interval':>19}  success  "
        "steps    s/move",
    ]
    for result in results:
        row = result.row()
        success = "-" if row["success_rate"] is None else f"{row['success_rate']:.0%}"
        lines.append(
            f"{result.display_label.ljust(width)}  {row['mean_return']:11.3f}  "
            f"{row['return_low']:9.3f} {row['return_high']:9.3f}  {success:>7}  "
            f"{row['mean_steps']:5.1f}  {row['seconds_per_move']:8.3g}"
        )
    return "\n".join(lines)


def save_json(results: Sequence[PlanResult], path: str | os.PathLike) -> None:
    """Writes every result (summary and episodes) to ``path`` as JSON, atomically."""
    with write_atomically(path) as f:
        json.dump([r.to_dict() for r in results], f, indent=1)


def plot(results: Sequence[PlanResult], path: str | os.PathLike) -> None:
    """Draws the mean return (95% interval) against MCTS iterations, random as a line.

    Raises:
        ImportError: if matplotlib is not installed.
    """
    figure = new_figure(figsize=(6, 4))
    axes = figure.subplots()
    planned = [r for r in results if r.options is not None and r.options.get("iterations")]
    xs = [r.options["iterations"] for r in planned]
    means = [r.mean_return() for r in planned]
    axes.errorbar(
        xs,
        [m for m, _, _ in means],
        yerr=[[m - lo for m, lo, _ in means], [hi - m for m, _, hi in means]],
        fmt="o-",
        capsize=4,
        label="MCTS",
    )
    for r in results:
        if r.options is None:
            axes.axhline(r.mean_return()[0], color="grey", linestyle="--", label="random")
    axes.set_xscale("log")
    axes.set_xlabel("MCTS iterations per move")
    axes.set_ylabel("mean return (95% interval)")
    axes.set_title(results[0].env)
    axes.grid(True, alpha=0.3)
    axes.legend()
    save_figure(figure, path)


def plan_episodes(
    env: str,
    options: dict[str, Any] | None,
    episodes: int = 20,
    *,
    seed: int = 0,
    workers: int | None = 1,
    backend: Backend = "process",
    address: str | None = None,
    on_episode: Callable[[EpisodeRecord], None] | None = None,
) -> PlanResult:
    """Plays ``episodes`` episodes of ``env`` with MCTS (``options``) or random moves (None).

    Args:
        env: ``"id[:name=value,...]"`` or ``"module:id[:name=value,...]"``
            (see :func:`make_env`).
        options: ``MCTSAgent`` keywords (``iterations``, ``time_limit``,
            ``gamma``...), or None for the random policy.
        episodes: int >= 1.
        seed: master seed.
        workers: processes (1: this process; None: one per core); Ctrl-C or
            an error terminates them at once.
        backend: ``"process"`` or ``"ray"`` (one Ray task per episode).
        address: Ray's address, or None (see
            :func:`~mcts_agent.evaluation.check_ray_address`).
        on_episode: called with each episode as it finishes (in this process).

    Returns:
        The :class:`PlanResult`.

    Raises:
        ValueError, TypeError: if the env, the options or the backend are
            refused (the options are checked by making an ``MCTSAgent``
            before any episode).
        ImportError: as :func:`make_env` (a user's module), or
            :func:`~mcts_agent.evaluation.run_matches` (Ray).
        ConnectionError: as :func:`~mcts_agent.evaluation.run_matches`.
    """
    require_int("episodes", episodes, 1)
    check_plannable(env, options)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError(f"address is for backend='ray' only; got backend={backend!r}")
    check_ray_address(address)
    records: list[EpisodeRecord] = []
    for record in _episodes(env, options, seed, episodes, workers, backend, address):
        records.append(record)
        if on_episode is not None:
            on_episode(record)
    return PlanResult(env, options, tuple(sorted(records, key=lambda r: r.index)))
