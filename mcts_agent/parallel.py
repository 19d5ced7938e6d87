"""Root parallelism: independent searches in worker processes or Ray actors, their roots merged.

``MCTS(..., workers=k)`` with k > 1 (``docs/guides/parallel.md``)
runs every search as k independent searches of the planner's full budget
(``iterations`` and/or ``time_limit`` each), one per worker, and merges their
roots: for each root action the visits are summed and the value sums too, so
the merged value is the visit-weighted mean of the workers' values (root
parallelism; Chaslot, Winands & van den Herik, 2008, "Parallel Monte-Carlo
Tree Search"; Cazenave & Jouandeau, 2007, "single-run parallelisation").

Workers. Each worker is one long-lived process (``backend="process"``: a
:class:`concurrent.futures.ProcessPoolExecutor` of one process per worker,
started by the planner's first search and kept until :meth:`RootParallel.close`,
the planner's ``close()``, the end of its ``with`` block, or its garbage
collection) or one Ray actor (``backend="ray"``, on the cluster of ``address``:
``ray.init(address=address)`` unless Ray is already initialised in this
process). A worker keeps its own planner (an :class:`~mcts_agent.search.MCTS`
with the same options and ``workers=1``) from search to search, so its
generator continues from move to move and ``reuse_tree`` reuses the worker's
own tree.

What is sent. The model and the planner's options (evaluator, rollout
policy, clock...) are pickled once, when the planner is made: anything that
cannot be pickled is refused there with a TypeError, before any search. Each
search then sends the root state (pickled before any worker starts: an
unpicklable state is refused the same way) and gets back a digest of each
worker's tree (:func:`digest`). Pickling goes through :func:`dumps`, the
standard pickle with one change: an instance of ``gymnasium.utils.EzPickle``
(PettingZoo's classic envs, many Gymnasium envs) is sent as its attributes, not
rebuilt from its constructor's arguments (EzPickle's pickle returns a *fresh*
game, PettingZoo issues #1186, #1307), its pygame objects (window, clock) left
out. So :class:`~mcts_agent.adapters.PettingZooModel` sends its scratch env
once, as it is, and each search its position snapshot.

Seeds (:func:`worker_seeds`): worker 0 searches with the planner's own seed,
so ``workers=k`` runs the ``workers=1`` search and k - 1 others; worker
i >= 1 with the i-th draw of ``random.Random(seed).getrandbits(63)``. A given
``(seed, workers)`` and iteration budget therefore gives the same merged tree
in every run, on either backend. ``seed=None``: every worker draws fresh
entropy.

Errors. A worker's exception reaches the caller as the exception itself (its
type kept), its traceback in the worker attached (``concurrent.futures``: as
its ``__cause__``; Ray: in the message of its ``RayTaskError``), and a note
naming the worker; the planner keeps its previous tree and stays usable (the
other workers' searches of that call are dropped). A worker process or actor
that died (``BrokenProcessPool``, ``RayActorError``) is replaced at the next
search, with a new planner (seeded as at the start). A ``KeyboardInterrupt``
(Ctrl-C) in the planner's process ends the search at once: the worker
processes are terminated (the actors killed), not waited for, and replaced at
the next search; the planner keeps its previous tree. Worker processes ignore
Ctrl-C and end by themselves when the planner's process is gone
(:func:`mcts_agent._workers.start_worker`). A :class:`RootParallel`, and so a
planner with workers, cannot be copied or pickled (TypeError).

The ``forkserver`` start (where there is one; else ``spawn``) imports the
main module in each worker process, so a script must start its searches
under ``if __name__ == "__main__":`` (``multiprocessing``'s rule), and the
classes sent are found by reference (those of ``__main__`` included; with
Ray they must be importable on the cluster). The fork server itself is
``multiprocessing``'s, one per program, not a worker: it stays.
"""

from __future__ import annotations

import io
import math
import os
import pickle
import random
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from mcts_agent._validation import require_int
from mcts_agent._workers import start_worker, stop_pools
from mcts_agent.evaluator import uniform_priors
from mcts_agent.reuse import node_fields
from mcts_agent.tree import ROOT, UNVISITED, GuidedTree, Tree

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

__all__ = [
    "BACKENDS",
    "RootParallel",
    "WorkerResult",
    "checked_backend",
    "digest",
    "dumps",
    "merge",
    "value_range",
    "worker_seeds",
]

BACKENDS = ("process", "ray")
"""Where the workers run: local processes, or Ray actors."""


def checked_backend(workers: Any, backend: Any, address: Any) -> tuple[int, str, str | None]:
    """Returns ``(workers, backend, address)``, checked.

    Raises:
        TypeError: if ``workers`` is not an int or ``address`` neither None nor a str.
        ValueError: if ``workers < 1``, ``backend`` is not one of :data:`BACKENDS`,
            or ``address`` is given with ``backend="process"``.
    """
    workers = require_int("workers", workers, 1)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if address is not None:
        if not isinstance(address, str):
            raise TypeError(f"address must be a Ray address (a str) or None, got {address!r}")
        if backend != "ray":
            raise ValueError(
                f"address is the Ray cluster's address, read with backend='ray' only; got "
                f"address={address!r} with backend={backend!r}"
            )
    return workers, backend, address


def worker_seeds(seed: int | None, workers: int) -> list[int | None]:
    """Returns the seed of each worker's planner: ``seed``, then draws from ``Random(seed)``.

    Args:
        seed: the planner's seed, or None (then every worker gets None: fresh entropy).
        workers: int >= 1.

    Returns:
        ``[seed, r.getrandbits(63), ...]`` with ``r = random.Random(seed)``,
        ``workers`` entries (so worker i's seed does not depend on ``workers``).
    """
    if seed is None:
        return [None] * workers
    draws = random.Random(seed)
    return [seed] + [draws.getrandbits(63) for _ in range(workers - 1)]


# ------------------------------------------------------------------ pickling


def _restore_attributes(cls: type, attributes: dict) -> Any:
    """An instance of ``cls`` with ``attributes``, made without its constructor."""
    obj = object.__new__(cls)
    obj.__dict__.update(attributes)
    return obj


class _Pickler(pickle.Pickler):
    """The standard pickler, sending ``EzPickle`` instances as their attributes."""

    def reducer_override(self, obj: Any) -> Any:
        from gymnasium.utils import EzPickle

        if isinstance(obj, EzPickle) and not isinstance(obj, type):
            from mcts_agent.adapters.env_probe import is_render_object

            attributes = {
                name: None if is_render_object(value) else value
                for name, value in vars(obj).items()
            }
            return _restore_attributes, (type(obj), attributes)
        return NotImplemented


def dumps(obj: Any) -> bytes:
    """Pickles ``obj`` as the workers receive it (module docstring); ``pickle.loads`` reads it.

    Raises:
        pickle.PicklingError, TypeError, AttributeError: if part of ``obj``
            cannot be pickled (a lambda, a local function, a lock...).
    """
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def _sendable(what: str, obj: Any, workers: int) -> bytes:
    """``dumps(obj)``, or a TypeError saying that ``what`` cannot be sent to the workers."""
    try:
        return dumps(obj)
    except Exception as error:
        raise TypeError(
            f"workers={workers} sends {what} to each worker with pickle, but it cannot be "
            f"pickled ({type(error).__name__}: {error}). Use module-level functions and "
            "classes (no lambdas or local functions), models whose attributes pickle, and "
            "no locks or open handles; or plan with workers=1"
        ) from error


# ------------------------------------------------------------------ digests and merging


class WorkerResult(NamedTuple):
    """What one worker sends back after a search.

    Attributes:
        summary: the worker's :class:`~mcts_agent.search.SearchSummary`.
        tree: :func:`digest` of the worker's tree.
    """

    summary: Any
    tree: GuidedTree


_PER_NODE_FIELDS = [field for field in node_fields(GuidedTree) if field != "widened"]
"""GuidedTree's per-node lists (``widened`` is a dict of the whole tree)."""


def digest(tree: Tree, exploration: float) -> GuidedTree:
    """Returns the part of ``tree`` the merge reads, as a new :class:`GuidedTree`.

    It holds the root, each tried root child, and below each of these the
    line of robust children (most visits, then value, then first: the
    principal variation's rule), down to a terminal node, a node with no
    child tried, or a chance node. Every node keeps its fields (N, W, Q,
    state, priors...); a node's ``children`` hold only the kept ones. From a
    plain :class:`Tree` the guided fields are made: uniform priors, the
    action indices, ``scaled_priors = exploration * P``, no evaluations.

    Args:
        tree: a worker's tree after its search (not changed).
        exploration: the planner's c (for ``scaled_priors`` of a plain tree).
    """
    guided = isinstance(tree, GuidedTree)
    records = getattr(tree, "chance_records", None)
    kept = [ROOT]
    parent_of = {ROOT: -1}
    index_of = {ROOT: -1}
    for i, child in enumerate(tree.children_by_action(ROOT)):
        if child == UNVISITED:
            continue
        node, index, parent = child, i, ROOT
        while True:
            kept.append(node)
            parent_of[node] = parent
            index_of[node] = index
            if records is not None and records[node] is not None:
                break  # a chance node: its outcomes are draws, not a line
            index = tree.robust_child(node)
            if index < 0:
                break
            parent, node = node, tree.children_by_action(node)[index]
    new_index = {old: new for new, old in enumerate(kept)}
    new = object.__new__(GuidedTree)
    new.widened = {}  # progressive widening is searched by one process (MCTS refuses workers)
    for field in _PER_NODE_FIELDS:
        if guided or field in Tree.__slots__:
            values = getattr(tree, field)
            setattr(new, field, [values[n] for n in kept])
    new.children = [
        tuple(new_index[child] for child in tree.children[n] if child in new_index) for n in kept
    ]
    if not guided:
        new.action_indices = [index_of[n] for n in kept]
        new.priors = [uniform_priors(len(a)) if a else () for a in new.actions]
        new.scaled_priors = [
            0.0 if n == ROOT else exploration * new.priors[new_index[parent_of[n]]][index_of[n]]
            for n in kept
        ]
        count = len(kept)
        new.leaf_values = [None] * count
        new.expansion_orders = [None] * count
        new.proven_values = [None] * count
        new.chance_records = [None] * count
    return new


def _graft(merged: GuidedTree, parent: int, source: GuidedTree, node: int) -> int:
    """Appends ``source``'s ``node`` and its kept line to ``merged`` under ``parent``."""
    fields = _PER_NODE_FIELDS
    new = -1
    while True:
        at = len(merged)
        for field in fields:
            getattr(merged, field).append(getattr(source, field)[node])
        merged.children[at] = ()
        merged.children[parent] += (at,)
        if new < 0:
            new = at
        line = source.children[node]
        if not line:
            return new
        parent, node = at, line[0]


def value_range(summaries: Sequence[Any]) -> tuple[float, float] | None:
    """The merged search's ``SearchSummary.value_range``: the union of the workers' ranges.

    With ``value_normalization=True`` each worker's search normalises by its
    own statistics (``(lo, hi)`` of the node values met in its backups); the
    merged summary reports the smallest ``lo`` and the largest ``hi`` among
    them, the range of every node value any worker's backups met. None if no
    worker reports a range (the option off).

    Args:
        summaries: the workers' :class:`~mcts_agent.search.SearchSummary`, worker 0 first.
    """
    ranges = [summary.value_range for summary in summaries if summary.value_range is not None]
    if not ranges:
        return None
    return min(lo for lo, _ in ranges), max(hi for _, hi in ranges)


def merge(trees: Sequence[GuidedTree]) -> GuidedTree:
    """Returns the merged tree of the workers' digests (:func:`digest`), root first.

    The root: the first digest's state, player and actions; N the sum of the
    roots' N; priors the mean of the roots' priors (they differ only by the
    root noise); proven if a digest's root is. For each root action tried
    by at least one worker, one child: N and W the sums over the workers that
    tried it, Q = W / N (the visit-weighted mean of their values); proven if
    one worker proved it (a proof is exact in every worker); its other fields
    (state, reward, priors...) and the line below it those of the worker
    with the most visits there (the first such worker on ties), with that
    worker's statistics.

    Args:
        trees: the digests, worker 0 first, all searched from the same state.
    """
    first = trees[0]
    actions = first.actions[ROOT]
    count = len(trees)
    priors = tuple(
        math.fsum(tree.priors[ROOT][i] for tree in trees) / count for i in range(len(actions))
    )
    merged = GuidedTree(
        first.states[ROOT], first.players[ROOT], actions, priors, first.leaf_values[ROOT]
    )
    merged.visits[ROOT] = sum(tree.visits[ROOT] for tree in trees)
    merged.proven_values[ROOT] = next(
        (tree.proven_values[ROOT] for tree in trees if tree.proven_values[ROOT] is not None), None
    )
    by_action = [tree.children_by_action(ROOT) for tree in trees]
    tried = 0
    for i in range(len(actions)):
        entries = [
            (tree, kids[i])
            for tree, kids in zip(trees, by_action, strict=True)
            if kids[i] != UNVISITED
        ]
        if not entries:
            continue
        tried += 1
        best_tree, best_child = entries[0]
        for tree, child in entries[1:]:
            if tree.visits[child] > best_tree.visits[best_child]:
                best_tree, best_child = tree, child
        child = _graft(merged, ROOT, best_tree, best_child)
        n = sum(tree.visits[kid] for tree, kid in entries)
        w = sum(tree.value_sums[kid] for tree, kid in entries)
        merged.visits[child] = n
        merged.value_sums[child] = w
        merged.values[child] = w / n if n else 0.0
        proofs = [tree.proven_values[kid] for tree, kid in entries]
        merged.proven_values[child] = next((v for v in proofs if v is not None), None)
    merged.untried[ROOT] = len(actions) - tried
    return merged


# ------------------------------------------------------------------ the workers


class _Worker:
    """A worker's planner; made by its first search (in its process or Ray actor)."""

    def __init__(self) -> None:
        self.planner: Any = None

    def search(
        self,
        payload: bytes | None,
        seed: int | None,
        state: bytes,
        iterations: int | None,
        time_limit: float | None,
    ) -> bytes:
        """Searches ``state`` (pickled); returns the pickled :class:`WorkerResult`.

        ``payload`` (pickled ``(model, options)``) is given with the first
        search only: the worker's planner is made from it, seeded ``seed``.
        """
        if self.planner is None:
            from mcts_agent.search import MCTS

            model, options = pickle.loads(payload)
            self.planner = MCTS(model, seed=seed, **options)
        planner = self.planner
        planner.search(pickle.loads(state), iterations=iterations, time_limit=time_limit)
        return dumps(WorkerResult(planner.summary(), digest(planner.tree, planner.exploration)))


_PROCESS_WORKER = _Worker()
"""The worker of this process, when it is a worker process (``backend="process"``)."""


def _search_in_process(*arguments: Any) -> bytes:
    return _PROCESS_WORKER.search(*arguments)


def _process_context() -> Any:
    """``forkserver`` where there is one (a fork of a clean server process), else ``spawn``."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _shut_down(executors: list, actors: list) -> None:
    """Ends the workers (the finalizer of :class:`RootParallel`: it holds no planner)."""
    for executor in executors:
        executor.shutdown(wait=True, cancel_futures=True)
    executors.clear()
    if actors:
        import ray

        if ray.is_initialized():
            for actor in actors:
                ray.kill(actor, no_restart=True)
        actors.clear()


class RootParallel:
    """The workers of one planner (``MCTS(workers=k)``, k > 1): see the module docstring.

    Args:
        model: the planner's model (pickled now).
        options: the planner's other options, as ``MCTS`` keywords, without
            ``seed`` and ``workers`` (pickled now, with the model).
        seed: the planner's seed, or None.
        workers: int >= 2.
        backend: ``"process"`` or ``"ray"``.
        address: the Ray cluster's address for ``ray.init``, or None.

    Raises:
        TypeError: if the model or an option cannot be pickled (the message
            says what the workers need).
    """

    def __init__(
        self,
        model: Any,
        options: dict[str, Any],
        seed: int | None,
        workers: int,
        backend: str,
        address: str | None,
    ) -> None:
        self.workers = workers
        self.backend = backend
        self.address = address
        self.seeds = worker_seeds(seed, workers)
        self._payload = _sendable("the model and the search options", (model, options), workers)
        self._executors: list[ProcessPoolExecutor] = []
        self._actors: list[Any] = []
        self._started = False
        self.closed = False
        self.last_summaries: tuple | None = None
        self._finalizer = weakref.finalize(self, _shut_down, self._executors, self._actors)

    def search(
        self, state: Any, iterations: int | None, time_limit: float | None
    ) -> tuple[GuidedTree, int, str, int]:
        """Runs one search in every worker; returns the merged tree and the search's figures.

        Returns:
            ``(tree, iterations, stop_reason, reused_visits)``: the merged tree
            (:func:`merge`), the iterations of all workers, the stop reason
            (``"solved"`` if a worker proved the root, else worker 0's) and
            the reused visits of all workers.

        Raises:
            RuntimeError: if the planner was closed.
            TypeError: if ``state`` cannot be pickled.
            Exception: a worker's exception (module docstring).
        """
        if self.closed:
            raise RuntimeError("the planner was closed (close() ends its worker processes)")
        sent = _sendable("the root state", state, self.workers)
        payload = None if self._started else self._payload
        arguments = [(payload, seed, sent, iterations, time_limit) for seed in self.seeds]
        answers = self._run(arguments)
        self._started = True
        results = [pickle.loads(answer) for answer in answers]
        summaries = tuple(result.summary for result in results)
        self.last_summaries = summaries
        tree = merge([result.tree for result in results])
        reasons = [summary.stop_reason for summary in summaries]
        stop_reason = "solved" if "solved" in reasons else reasons[0]
        return (
            tree,
            sum(summary.iterations for summary in summaries),
            stop_reason,
            sum(summary.reused_visits for summary in summaries),
        )

    def _run(self, arguments: list[tuple]) -> list[bytes]:
        """Each worker's answer, in worker order; raises the first worker's error."""
        if self.backend == "ray":
            return self._run_ray(arguments)
        from concurrent.futures import ProcessPoolExecutor  # here: only workers need it
        from concurrent.futures.process import BrokenProcessPool

        if not self._executors:
            context = _process_context()
            self._executors.extend(
                ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=context,
                    initializer=start_worker,
                    initargs=(os.getpid(),),
                )
                for _ in arguments
            )
        answers: list[bytes] = []
        failure: BaseException | None = None
        try:
            futures = [
                executor.submit(_search_in_process, *args)
                for executor, args in zip(self._executors, arguments, strict=True)
            ]
            for i, future in enumerate(futures):
                try:
                    answers.append(future.result())
                except Exception as error:  # every future is waited for, the first error kept
                    if failure is None:
                        failure = _noted(error, i, self.workers)
        except BaseException:  # Ctrl-C (SIGINT): the workers are ended now, new ones next time
            executors = self._executors[:]
            self._executors.clear()
            self._started = False
            stop_pools(executors)
            raise
        if failure is not None:
            if isinstance(failure, BrokenProcessPool):  # a worker died: new ones next time
                _shut_down(self._executors, [])
                self._started = False
            raise failure
        return answers

    def _run_ray(self, arguments: list[tuple]) -> list[bytes]:
        import ray

        if not self._actors:
            if not ray.is_initialized():
                ray.init(address=self.address)
            elif self.address is not None:
                raise ValueError(
                    f"Ray is already initialised in this process, so the planner uses that "
                    f"cluster: pass address=None, not {self.address!r}"
                )
            actor_class = ray.remote(num_cpus=1)(_Worker)
            self._actors.extend(actor_class.remote() for _ in arguments)
        refs = [
            actor.search.remote(*args) for actor, args in zip(self._actors, arguments, strict=True)
        ]
        answers: list[bytes] = []
        failure: BaseException | None = None
        try:
            for i, ref in enumerate(refs):
                try:
                    answers.append(ray.get(ref))
                except Exception as error:
                    if failure is None:
                        failure = _noted(error, i, self.workers)
        except BaseException:  # Ctrl-C (SIGINT): the actors are killed now, new ones next time
            self._started = False
            _shut_down([], self._actors)
            raise
        if failure is not None:
            if isinstance(failure, ray.exceptions.RayActorError):  # an actor died: new ones next
                _shut_down([], self._actors)
                self._started = False
            raise failure
        return answers

    def close(self) -> None:
        """Ends the worker processes (or kills the Ray actors); a later search is a RuntimeError."""
        self.closed = True
        self._finalizer()

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Refuses every copy (``copy``, ``copy.deepcopy``, ``pickle``) with a TypeError.

        The workers belong to this planner: a copy would share them, or close
        their pipes when it is dropped. Nothing is touched, so the planner
        goes on searching.
        """
        raise TypeError(
            f"a planner with workers={self.workers} cannot be copied or pickled: its worker "
            f"{'actors' if self.backend == 'ray' else 'processes'} belong to it (a copy would "
            "share them or close their pipes); make another MCTS with the same options instead"
        )

    def worker_pids(self) -> list[int]:
        """The process ids of the live worker processes (``backend="process"``), for tests."""
        return [pid for executor in self._executors for pid in executor._processes or ()]


def _noted(error: BaseException, worker: int, workers: int) -> BaseException:
    """``error`` with a note naming the worker it came from (Python >= 3.11)."""
    if hasattr(error, "add_note"):
        error.add_note(f"(raised in worker {worker} of {workers} of MCTS(workers={workers}))")
    return error
