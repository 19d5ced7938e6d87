"""UCT: Monte Carlo Tree Search with UCB1 selection, exactly as ``docs/concepts/iteration.md``.

Sources: Kocsis & Szepesvári (2006), "Bandit based Monte-Carlo planning"
(UCT); Browne et al. (2012), "A survey of Monte Carlo tree search methods",
§3.3 (UCT) and §5.4 ("robust child"); Sutton & Barto (2018), §8.11.

Each iteration does selection (UCB1, ties to the first child), expansion (the
first untried action, ``step`` called once per edge), simulation (a random
rollout, or G = 0 at a terminal node) and backup (negamax sign rule: a node's
value is from the point of view of the player who moved into it).
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, NamedTuple

from mcts_agent import (
    budgets,
    chance,
    compiled,
    compiled_information_sets,
    compiled_rave,
    export,
    general_loop,
    gumbel,
    information_sets,
    leaf_batching,
    maxn,
    parallel,
    rave,
    reuse,
    solver,
)
from mcts_agent import selection as selection_
from mcts_agent import widening as widening_
from mcts_agent._validation import (
    checked_actions,
    checked_player,
    checked_return,
    checked_reward,
    checked_step_result,
    checked_terminated,
    describe,
    require_float,
    require_int,
    require_seed,
)
from mcts_agent.evaluator import Evaluator, uniform_priors
from mcts_agent.model import Model, StateT
from mcts_agent.normalization import normalizer, widen
from mcts_agent.summary import format_summary
from mcts_agent.tree import ROOT, TERMINAL, UNVISITED, GuidedTree, Node, Tree
from mcts_agent.widening import ActionSampler

__all__ = ["LOG_LINE_MOVES", "LOG_TOP_ACTIONS", "MCTS", "RolloutPolicy", "SearchSummary"]

_logger = logging.getLogger(__name__)
"""``mcts_agent.search``, under ``logging.getLogger("mcts_agent")``: one DEBUG record per search."""

LOG_TOP_ACTIONS = 5
"""The root actions (most visited first) a search's DEBUG record lists."""

LOG_LINE_MOVES = 10
"""The most moves of the principal variation a search's DEBUG record lists."""

_NOT_STEPPED = object()
"""What the generic rollout holds as the state last stepped, before its first step."""

_COPIED_CHILDREN = 64
"""``MCTS._run`` links a new child by copying its parent's tuple up to this many actions (the
fastest for narrow nodes), and above it by appending to a list (O(1) each: a node of k actions
costs O(k) to expand, not O(k^2))."""

_MAX_ROLLOUT_LIMIT = 2**63 - 1
"""The largest ``rollout_limit`` (the compiled core counts a rollout's moves in 64 bits)."""

SELECTIONS = ("uct", "puct", "rave", "gumbel")
"""The selection rules: UCB1 (the default), PUCT (``docs/concepts/iteration.md``) and RAVE/GRAVE
(:mod:`mcts_agent.rave`, ``docs/guides/rave.md``)."""

RolloutPolicy = Callable[[Any, Sequence[Any], random.Random], Any]
"""``(state, actions, rng) -> action``: picks one of ``actions`` in a rollout."""


class SearchSummary(NamedTuple):
    """The root's statistics after a search (mctx's ``SearchSummary``).

    Attributes:
        actions: tuple, shape ``[num_actions]``: the root's legal actions in the
            model's order.
        visit_counts: tuple of ints, shape ``[num_actions]``: N of each action's
            child (0 if the action was never tried).
        values: tuple of floats, shape ``[num_actions]``: Q of each action's
            child from the point of view of the player to move at the root
            (``nan`` if never tried).
        action: the action played (``MCTS.best_action``).
        player: the player to move at the root.
        priors: tuple of floats, shape ``[num_actions]``: the root's priors as
            the search used them, normalised, after the root noise (uniform
            when no evaluator gave any; plain UCT selection ignores them).
        visit_distribution: tuple of floats, shape ``[num_actions]``: each
            action's share of the root's visits, ``N(a) / sum N``, the search
            policy AlphaZero-style training uses as its target (mctx's
            ``action_weights`` at temperature 1).
        iterations: int, the iterations this search ran.
        elapsed: float, seconds the search took on the planner's clock (from
            the call of ``search`` to its end, re-rooting included).
        nodes: int, the nodes the tree holds.
        stop_reason: why the search stopped: ``"iterations"``,
            ``"time_limit"``, ``"max_nodes"``, ``"solved"`` or
            ``"on_iteration"`` (:data:`mcts_agent.budgets.STOP_REASONS`);
            ``"running"`` while it runs (read from an ``on_iteration``
            callback).
        reused_visits: int, the visits of the subtree kept from the previous
            search (``reuse_tree=True``), 0 for a new tree.
        proven_value: float or None: the root's proven value from the point of
            view of the player to move at the root (``solve=True``), or None.
        proven: tuple, shape ``[num_actions]``: each action's proven value
            (from the root player's point of view), or None where unproven or
            untried (all None without the solver).
        principal_variation: tuple: the line the search expects, from the
            root (:meth:`MCTS.principal_variation`; ``()`` by default). Left
            out of ``repr``, which shows the fields above as it always has.
        value_range: ``(lo, hi)`` floats, or None: the smallest and largest
            node values met in the search's backups, by which selection
            normalised Q (``value_normalization=True``); None with
            value_normalization off. Left out of ``repr``, as
            ``principal_variation``.

    ``str(summary)`` is the table ``mcts-agent search`` prints
    (:func:`mcts_agent.summary.format_summary`): each action's visits, share,
    value, prior (where they differ) and proven value, the principal
    variation, and the iterations, seconds, nodes and stop reason.
    """

    actions: tuple
    visit_counts: tuple[int, ...]
    values: tuple[float, ...]
    action: Any
    player: Hashable
    priors: tuple[float, ...]
    visit_distribution: tuple[float, ...]
    iterations: int
    elapsed: float
    nodes: int
    stop_reason: str
    reused_visits: int
    proven_value: float | None
    proven: tuple
    principal_variation: tuple = ()
    value_range: tuple[float, float] | None = None

    def __repr__(self) -> str:
        """``SearchSummary(actions=..., ..., proven=...)``: all fields but the last two."""
        shown = zip(self._fields[:-2], self[:-2], strict=True)
        fields = ", ".join(f"{name}={value!r}" for name, value in shown)
        return f"{type(self).__name__}({fields})"

    def __str__(self) -> str:
        """The root's table, the principal variation and the search's figures, one per line."""
        return format_summary(self)


class _SearchRecord(NamedTuple):
    """What the planner keeps of its last search, for :meth:`MCTS.summary`."""

    iterations: int
    elapsed: float
    stop_reason: str
    reused_visits: int
    value_range: tuple[float, float] | None = None


class MCTS(Generic[StateT]):
    """A UCT (or PUCT) planner over a :class:`~mcts_agent.model.Model` (``docs/concepts/``).

    Usage::

        planner = MCTS(model, iterations=10_000, exploration=2 * math.sqrt(2), seed=42)
        action = planner(state)          # planner.search(state); planner.best_action()
        root = planner.tree[0]           # Node: state, player, visits, value, children...

    Each search builds a new tree (unless ``reuse_tree``). The planner owns one ``random.Random``
    seeded with ``seed``, used by rollouts only; a new planner with the same
    seed, model and state builds the same tree, whatever the program does
    with ``random`` or numpy's global state. Later searches continue the
    same generator.

    Guided search (``docs/guides/guided-search.md``): ``evaluator``,
    ``selection="puct"``, ``max_depth`` and ``root_noise`` run the general
    loop of :mod:`mcts_agent.general_loop`; with all of them off the plain
    UCT loop runs (the same trees either way). ``solve`` runs the general
    loop too; budgets and ``reuse_tree`` work with either loop.

    Anytime and exact (``docs/guides/anytime-and-solver.md``, "Budgets", "Tree reuse",
    "Solver"): ``iterations`` and/or ``time_limit`` bound a search (whichever
    comes first, after at least one iteration; :mod:`mcts_agent.budgets`),
    ``max_nodes`` caps the tree, ``reuse_tree`` continues the subtree of the
    previous tree whose state is the new root's (:mod:`mcts_agent.reuse`),
    and ``solve`` proves game values (MCTS-Solver, :mod:`mcts_agent.solver`).

    Chance (``docs/guides/chance.md``): a model with ``sample_step`` or
    ``outcomes`` (:class:`~mcts_agent.model.StochasticModel`) is planned
    with chance nodes (:mod:`mcts_agent.chance`) in the general loop; its
    ``step`` is never called. Every outcome is drawn from the planner's
    generator, so the same seed, model and state still give the same tree.

    Every player's reward (``docs/guides/every-players-reward.md``): a
    model with ``reward_players`` (every player's id) reports each step's
    rewards as a mapping ``{player: reward}``; the search then backs up one
    return per player (max^n, :mod:`mcts_agent.maxn`) in the general loop.

    Synonyms: ``iterations`` is mctx's ``num_simulations``; ``exploration`` is
    OpenSpiel's ``uct_c`` (and PUCT's c, AlphaZero's ``c_puct``); ``visits``
    is OpenSpiel's ``explore_count``; ``max_depth`` is mctx's ``max_depth``;
    ``root_noise`` is AlphaZero's ``(dirichlet_alpha, exploration_fraction)``.

    Args:
        model: the model to plan in (``actions``, ``step``, ``player``; or
            ``actions``, ``player`` and ``sample_step`` or ``outcomes``, and
            optionally ``key``, for a stochastic model; ``sample_action``
            instead of, or beside, ``actions`` for actions that are drawn,
            not listed: ``widening``). If it
            also has ``rollout(state, rng, limit, gamma)`` and no
            ``rollout_policy`` is given, that fused rollout is used.
        iterations: int >= 1, selection-expansion-simulation-backup passes per
            search, or None (then ``time_limit`` must be given).
        exploration: c >= 0 of UCB1, ``Q + c * sqrt(ln N(parent) / N(child))``.
            sqrt(2) suits returns in [0, 1]; scale it by the range of the
            returns (2 * sqrt(2) for tic-tac-toe's [-1, 1]).
        gamma: discount rate in [0, 1].
        rollout_limit: int in [0, 2**63 - 1], most moves in one rollout; 0 disables rollouts
            (G = 0 at every new leaf).
        rollout_policy: optional ``(state, actions, rng) -> action`` used in
            rollouts instead of uniformly random moves; must return one of
            ``actions``.
        seed: int seed of the planner's generator (rollouts, root noise,
            :meth:`sample_action`), or None for fresh entropy.
        evaluator: optional ``(state, actions) -> Evaluation(value, priors)``
            (:mod:`mcts_agent.evaluator`), called once for every non-terminal
            node when it is made and once for the root. Its value (from the
            point of view of the player to move in ``state``) replaces the
            rollout at that node (None: roll out); its priors guide PUCT.
        selection: ``"uct"`` (UCB1, priors ignored), ``"puct"``
            (``Q(a) + c * P(a) * sqrt(max(N(s), 1)) / (1 + N(a))``, with
            ``c = exploration``) or ``"rave"`` (RAVE/GRAVE, :mod:`mcts_agent.rave`,
            ``docs/guides/rave.md``: ``(1 - beta) * Q + beta * Q~ + c * sqrt(ln N / n)``
            with the AMAF value Q~ of a model declaring ``amaf_actions = True``) or
            ``"gumbel"`` (Gumbel root search, :mod:`mcts_agent.gumbel`,
            ``docs/guides/gumbel.md``: Gumbel-Top-k and sequential halving over the
            ``iterations`` at the root, the deterministic rule ``argmax pi'(a) - N(a) /
            (1 + sum N)`` below it; Danihelka et al., 2022).
        considered_actions: int >= 1, or None: the root actions Gumbel-Top-k samples
            (mctx's ``max_num_considered_actions``); None is 16. Only with
            ``selection="gumbel"``, which needs ``iterations`` and refuses (ValueError)
            ``root_noise``, ``solve``, ``value_normalization``, ``reuse_tree``,
            ``leaf_batch > 1``, ``workers > 1``, widening, stochastic, hidden-information
            and every-player's-reward models.
        c_visit: float >= 0, or None: ``c_visit`` of ``sigma(q) = (c_visit + max_b N(b)) *
            c_scale * q`` (the paper's; mctx's ``maxvisit_init``); None is 50. Only with
            ``selection="gumbel"``.
        c_scale: float > 0, or None: ``c_scale`` of sigma (mctx's ``value_scale``); None
            is 0.1. Only with ``selection="gumbel"``.
        rave_bias: float b >= 0 (finite), or None: RAVE's bias in ``beta = N~ / (N~ + n +
            b * N~ * n)`` (Gelly & Silver, 2011); None is 1e-5 (Ludii's ``UCB1GRAVE``).
            Only with ``selection="rave"``.
        grave_ref: int >= 0, or None: GRAVE's threshold (Cazenave, 2015): the AMAF
            statistics are read at the deepest node of the path visited at least this
            many times (the root if none; 0: the node itself, plain RAVE); None is 100
            (Ludii's). Only with ``selection="rave"``, which refuses (ValueError) a
            model without ``amaf_actions = True``, a fused ``rollout`` without
            ``amaf_rollout`` (unless ``rollout_policy`` is given), and ``evaluator``,
            ``max_depth``, ``solve``, ``value_normalization``, ``reuse_tree``,
            ``leaf_batch > 1``, ``workers > 1``, widening, stochastic, hidden-information
            and every-player's-reward models.
        unvisited_value: float, PUCT's Q of an untried action (AlphaZero: 0;
            some use -1, "first play urgency"), or ``"parent"``: the value of
            the node it leaves for its player to move, the mean of the node's
            evaluation and of every return backed up through its tried
            children (:func:`mcts_agent.selection.parent_value`; Leela Chess
            Zero's first-play urgency with no reduction). Only with
            ``"puct"``; ``"parent"`` not with ``leaf_batch > 1``, widening or
            a hidden-information model.
        max_depth: int >= 1 or None: the horizon. A node at that depth (the
            root is at 0) is never expanded; every iteration that reaches it
            takes G from its evaluator value, else from a new rollout.
        root_noise: ``(alpha, fraction)`` with alpha > 0 and fraction in
            [0, 1], or None: Dirichlet(alpha) noise mixed into the root's
            priors once per search, drawn from the planner's generator
            (AlphaZero: ``(0.3, 0.25)`` for chess); PUCT only.
        value_normalization: if True, selection uses ``Qn = (Q - lo) / (hi -
            lo)`` in place of each child's Q, with ``lo`` and ``hi`` the
            smallest and largest node values (``W / N`` just after a node's
            update, from its own point of view; chance nodes included, the
            root not) met in the backups of the current search, reset by every
            :meth:`search`; while ``hi <= lo``, ``Qn = Q``. UCT scores
            ``Qn + c * sqrt(ln N / n)``, PUCT ``Qn(a) + c * P(a) * sqrt(max(N,
            1)) / (1 + N(a))`` (an untried action's ``unvisited_value`` is
            taken as already normalised), the solver compares a proven child's
            value normalised the same way. The exploration term is unchanged,
            so ``c`` is scale-free: returns of any range behave as returns in
            [0, 1]. The values stored in the tree, the summary and the move
            played are not normalised; ``SearchSummary.value_range`` reports
            ``(lo, hi)``. MuZero's min-max statistics (Schrittwieser et al.,
            2020, Appendix B; mctx's ``qtransform_by_min_max``);
            ``docs/guides/guided-search.md``, "Value normalisation". With
            ``leaf_batch > 1`` only with ``virtual_loss=0.0`` (a virtual loss
            is in reward units, not scale-free).
        widening: ``(k, alpha)`` with k > 0 and alpha in [0, 1], or None:
            progressive widening (Couëtoux et al., 2011; :mod:`mcts_agent.widening`,
            ``docs/guides/continuous-actions.md``). A decision node visited
            ``N`` times (this visit included) has at most ``ceil(k *
            N**alpha)`` children; while it has fewer, the iteration draws an
            action (``action_sampler``, else ``model.sample_action(state,
            rng)``, else a uniformly random legal action) and an equal one
            joins its child; otherwise the search's rule (UCB1, PUCT)
            selects among the children. None: off for a model with
            ``actions``, :data:`~mcts_agent.widening.DEFAULT_WIDENING`
            ``(10, 0.5)`` (MCTS.jl's) for a model without (whose actions are
            only sampled: continuous actions). Not with ``solve``,
            ``root_noise``, ``leaf_batch > 1``, ``workers > 1`` or a model
            reporting every player's reward.
        state_widening: ``(k, alpha)`` or None (off): double progressive
            widening of a stochastic model's outcomes. A chance node visited
            ``n`` times has at most ``ceil(k * n**alpha)`` outcome children;
            once it has them, an existing outcome is picked with probability
            proportional to the times it was drawn
            (:func:`mcts_agent.chance.crossing`). Only for a stochastic model.
        action_sampler: ``(state, rng, tried) -> action``, or None: draws the
            actions widening adds, in place of ``model.sample_action``
            (``tried``: the node's ``(action, visits, value)`` so far;
            :mod:`mcts_agent.action_samplers` has a Gaussian around the best
            child). Only with widening on.
        time_limit: float > 0, seconds a search may take on ``clock``, or None.
            The search stops at the first iteration boundary after it (the
            overshoot is about 1 ms, :data:`mcts_agent.budgets.CHUNK_SECONDS`);
            only an iteration budget reproduces a tree for a given seed.
            OpenSpiel's ``max_wall_clock_time``.
        max_nodes: int >= 1, or None: the search stops before an iteration
            when the tree holds that many nodes (a memory cap; OpenSpiel's
            ``max_memory_mb`` in nodes).
        reuse_tree: if True, a search first looks in the previous tree,
            nearest the root first, for a node other than the root whose state
            equals the new root's (``model.key(state)`` when the model has
            ``key``, else ``==``), and continues that subtree, statistics kept
            (Ludii's and OpenSpiel C++'s tree reuse); else a new tree.
        solve: if True, the MCTS-Solver (Winands, Björnsson & Saito, 2008):
            proven values are backed up, a proven child scores its proven
            value in selection, and the search stops once the root is proven.
        value_bounds: ``(lo, hi)`` with lo < hi, bounds on every node's value
            (e.g. ``(-1, 1)`` for a win/loss game), or None: with the solver,
            one child proven at ``hi`` proves its parent. Only with ``solve``.
            A search that meets a terminal reward or proves a value outside
            them raises ValueError (:func:`mcts_agent.solver.check_bounded`).
        clock: ``() -> float`` seconds, the clock ``time_limit`` and
            ``elapsed`` read (:func:`time.perf_counter`; inject another to
            test budgets without timing). Under a time limit, a reading that
            is not a finite number is a TypeError or ValueError, and a clock
            that has not advanced over ``budgets.STALLED_CHUNKS`` chunks ends
            the search with ValueError (:func:`mcts_agent.budgets.run`).
        on_iteration: ``(planner, iteration) -> bool | None``, or None: called
            after every iteration of every search with this planner and the
            iterations the search has run (1, 2, ...), for progress bars,
            traces (:class:`mcts_agent.trace.RootTrace`) and custom stopping.
            Returning True stops the search (``stop_reason
            "on_iteration"``; ``"solved"`` if that iteration proved the root);
            False or None go on; anything else is a TypeError. Inside it,
            ``tree``, ``summary()`` (``stop_reason`` :data:`mcts_agent.budgets.RUNNING`),
            ``best_action()`` and ``principal_variation()`` describe the
            search so far; if it raises, the search fails (the previous tree
            kept, as after any failed search, a KeyboardInterrupt included).
            With a callback the loop runs one iteration at a time
            (``mcts_agent.budgets``); with None nothing of it runs. Beware
            callbacks whose last call returns True by accident:
            ``lambda planner, i: bar.update()`` stops at tqdm's first redraw
            (``update`` returns True then); write ``bar.update()`` in a
            ``def`` that returns None.
        leaf_batch: int >= 1: with k > 1 the search runs in rounds of up to k
            iterations whose new leaves are evaluated together, in one
            ``evaluator.batch(states, actions_list)`` call if the evaluator
            has that method, with a virtual loss on the paths taken
            (:mod:`mcts_agent.leaf_batching`; ``docs/guides/parallel.md``, "Parallel
            search"). Not with ``solve``, a stochastic model, a model
            reporting every player's reward or ``on_iteration`` (which
            would make every round a round of one).
        virtual_loss: float >= 0: with ``leaf_batch > 1``, each path of a
            round adds ``N += virtual_loss`` and ``W -= virtual_loss`` to its
            nodes until the round's backups (0: none).
        workers: int >= 1: with k > 1 each search runs k independent
            searches of the full budget in k long-lived workers, seeded from
            ``seed``, and merges their roots (:mod:`mcts_agent.parallel`); the
            model and options must pickle (checked here). Not with
            ``on_iteration`` or a model reporting every player's reward.
            ``close()`` (or a ``with`` block) ends them.
        backend: ``"process"`` (worker processes on this machine) or
            ``"ray"`` (Ray actors); read with ``workers > 1``.
        address: the Ray cluster's address for ``ray.init`` (None: a local
            instance, or the one this process already initialised); only
            with ``backend="ray"``.

    Raises:
        TypeError: if ``model`` lacks a method (``actions`` or ``sample_action``,
            ``step`` or ``sample_step``/``outcomes``, ``player``) or an argument has the wrong
            type, or neither ``iterations`` nor ``time_limit`` is given.
        ValueError: if an argument is out of range, ``selection`` is unknown,
            ``root_noise`` or ``unvisited_value`` is given with UCT,
            ``unvisited_value="parent"`` with an option it does not compose with,
            ``state_widening`` for a deterministic model, ``action_sampler``
            without widening, widening with an option it does not compose
            with (above), ``value_bounds`` without ``solve``, ``leaf_batch > 1`` with
            ``solve``, a stochastic model or ``on_iteration``, ``workers > 1`` with
            ``on_iteration``, or ``address`` without ``backend="ray"``.
        TypeError: also if ``workers > 1`` and the model or an option cannot
            be pickled.

    :meth:`search` raises ``TypeError`` for a model that breaks the protocol and
    ``ValueError`` for NaN or infinite rewards, returns and value sums.
    """

    def __init__(
        self,
        model: Model[StateT],
        iterations: int | None = None,
        *,
        time_limit: float | None = None,
        max_nodes: int | None = None,
        reuse_tree: bool = False,
        solve: bool = False,
        value_bounds: tuple[float, float] | None = None,
        clock: Callable[[], float] = time.perf_counter,
        on_iteration: Callable[[MCTS, int], bool | None] | None = None,
        exploration: float = math.sqrt(2),
        gamma: float = 1.0,
        rollout_limit: int = 1000,
        rollout_policy: RolloutPolicy | None = None,
        seed: int | None = None,
        evaluator: Evaluator | None = None,
        selection: str = "uct",
        unvisited_value: float | str = 0.0,
        max_depth: int | None = None,
        root_noise: tuple[float, float] | None = None,
        value_normalization: bool = False,
        widening: tuple[float, float] | None = None,
        state_widening: tuple[float, float] | None = None,
        action_sampler: ActionSampler | None = None,
        leaf_batch: int = 1,
        virtual_loss: float = 1.0,
        workers: int = 1,
        backend: str = "process",
        address: str | None = None,
        determinize: bool = False,
        rave_bias: float | None = None,
        grave_ref: int | None = None,
        considered_actions: int | None = None,
        c_visit: float | None = None,
        c_scale: float | None = None,
    ) -> None:
        # The options a worker's planner gets (workers > 1; mcts_agent.parallel): these arguments.
        worker_options = dict(locals())
        for name in ("self", "model", "seed", "workers", "backend", "address"):
            del worker_options[name]
        self._options = worker_options  # and the planner of a world (determinize=True)
        self._world_search: MCTS | None = None
        self.stochastic = chance.is_stochastic(model)
        # A model without actions samples them (sample_action): progressive widening.
        self.listed = widening_.lists_actions(model)
        if not self.listed and not callable(getattr(model, "sample_action", None)):
            raise TypeError(
                f"model must have callable actions(state) (the legal actions, listed) or "
                f"sample_action(state, rng) (actions drawn, e.g. continuous ones, planned with "
                f"progressive widening); {type(model).__name__} has neither"
            )
        for method in ("player",) if self.stochastic else ("step", "player"):
            if not callable(getattr(model, method, None)):
                raise TypeError(
                    f"model must have callable actions(state), step(state, action) and "
                    f"player(state) (a stochastic model: sample_step(state, action, rng) or "
                    f"outcomes(state, action) instead of step); {type(model).__name__} has no "
                    f"{method}()"
                )
        self.model = model
        budget = budgets.Budget.checked(iterations, time_limit, max_nodes)
        self.iterations, self.time_limit, self.max_nodes = budget
        if not callable(clock):
            raise TypeError(f"clock must be a callable () -> seconds, got {clock!r}")
        self.clock = clock
        if on_iteration is not None and not callable(on_iteration):
            raise TypeError(
                f"on_iteration must be a callable (planner, iteration) -> bool | None, or "
                f"None; got {on_iteration!r}"
            )
        self.on_iteration = on_iteration
        if not isinstance(reuse_tree, bool):
            raise TypeError(f"reuse_tree must be a bool, got {reuse_tree!r}")
        self.reuse_tree = reuse_tree
        if not isinstance(solve, bool):
            raise TypeError(f"solve must be a bool, got {solve!r}")
        self.solve = solve
        if solve and self.stochastic:
            raise ValueError(
                "solve=True proves values as the best of a node's children; a stochastic "
                "model's actions lead to chance nodes, whose values are expectations the "
                "solver does not prove: use solve=False"
            )
        self.value_bounds = solver.checked_value_bounds(value_bounds, solve)
        self.exploration = require_float("exploration", exploration, 0.0)
        self.gamma = require_float("gamma", gamma, 0.0, 1.0)
        self.rollout_limit = require_int("rollout_limit", rollout_limit, 0)
        if self.rollout_limit > _MAX_ROLLOUT_LIMIT:  # the compiled core counts moves in 64 bits
            raise ValueError(
                f"rollout_limit must be an int in [0, 2**63 - 1] (moves in one rollout), got "
                f"{rollout_limit}"
            )
        if rollout_policy is not None and not callable(rollout_policy):
            raise TypeError(
                f"rollout_policy must be a callable (state, actions, rng) -> action, "
                f"got {rollout_policy!r}"
            )
        self.rollout_policy = rollout_policy
        self.seed = require_seed("seed", seed)
        self.rng = random.Random(self.seed)
        if evaluator is not None and not callable(evaluator):
            raise TypeError(
                f"evaluator must be a callable (state, actions) -> Evaluation, got {evaluator!r}"
            )
        self.evaluator = evaluator
        if selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}, got {selection!r}")
        self.selection = selection
        self.unvisited_value = selection_.checked_unvisited_value(unvisited_value, selection)
        self.max_depth = None if max_depth is None else require_int("max_depth", max_depth, 1)
        self.root_noise = _checked_root_noise(root_noise, selection)
        if not isinstance(value_normalization, bool):
            raise TypeError(f"value_normalization must be a bool, got {value_normalization!r}")
        self.value_normalization = value_normalization
        # [lo, hi] of the node values met in the current search's backups (value_normalization).
        self._value_range: list[float] | None = None
        self.widening = widening_.checked_widening("widening", widening)
        if self.widening is None and not self.listed:
            self.widening = widening_.DEFAULT_WIDENING
        self.state_widening = widening_.checked_widening("state_widening", state_widening)
        if self.state_widening is not None and not self.stochastic:
            raise ValueError(
                f"state_widening={state_widening!r} limits the outcomes drawn at a chance node, "
                f"but {type(model).__name__} is deterministic (no sample_step or outcomes); "
                "pass state_widening=None"
            )
        if action_sampler is not None and not callable(action_sampler):
            raise TypeError(
                f"action_sampler must be a callable (state, rng, tried) -> action, or None; "
                f"got {action_sampler!r}"
            )
        if action_sampler is not None and self.widening is None:
            raise ValueError(
                "action_sampler draws the actions progressive widening adds; pass "
                "widening=(k, alpha) too (a model with actions lists them all without it)"
            )
        self.action_sampler = action_sampler
        # Every player's reward (mcts_agent.maxn): the model's reward_players, or None.
        self.reward_players = maxn.checked_reward_players(model)
        self.leaf_batch, self.virtual_loss = leaf_batching.checked_options(
            leaf_batch, virtual_loss, self.stochastic, solve, on_iteration is not None
        )
        if self.widening is not None:
            widening_.check_composition(self)
        if value_normalization and self.leaf_batch > 1 and self.virtual_loss > 0.0:
            raise ValueError(
                f"value_normalization=True is scale-free, but leaf batching's virtual loss "
                f"(virtual_loss={self.virtual_loss}) is in reward units and would swamp small "
                "returns (or vanish in large ones); with leaf_batch > 1 pass virtual_loss=0.0, "
                "or value_normalization=False"
            )
        # Hidden information (mcts_agent.information_sets): ISMCTS, or PIMC with determinize.
        self.hidden = information_sets.is_hidden(model)
        if not isinstance(determinize, bool):
            raise TypeError(f"determinize must be a bool, got {determinize!r}")
        if determinize and not self.hidden:
            raise ValueError(
                "determinize=True searches sampled worlds of a hidden-information model (one "
                f"with information_set and sample_world); {type(model).__name__} has none"
            )
        self.determinize = determinize
        # The general loop (mcts_agent.general_loop) runs when an option needs it.
        self._general = (
            self.reward_players is not None
            or evaluator is not None
            or selection != "uct"
            or max_depth is not None
            or root_noise is not None
            or solve
            or self.stochastic
            or self.leaf_batch > 1
            or self.widening is not None
        )
        self._tree: Tree | None = None
        self._record: _SearchRecord | None = None
        self.workers, self.backend, self.address = parallel.checked_backend(
            workers, backend, address
        )
        if self.widening is not None and self.workers > 1:
            raise ValueError(
                f"with progressive widening each worker draws actions of its own, and merging "
                f"workers' roots needs one list of actions; pass workers=1 (got workers="
                f"{self.workers})"
            )
        if self.reward_players is not None and (self.leaf_batch > 1 or self.workers > 1):
            at_fault = [
                f"{name}={value}"
                for name, value in (("leaf_batch", self.leaf_batch), ("workers", self.workers))
                if value > 1
            ]
            raise ValueError(
                f"a model reporting every player's reward (reward_players="
                f"{self.reward_players!r}) is searched in one process with leaf_batch=1 "
                f"and workers=1: leaf batching and merging workers' roots keep one value "
                f"per node, got {' and '.join(at_fault)}"
            )
        if self.hidden:
            information_sets.check_composition(self)
        if self.unvisited_value == selection_.PARENT_VALUE:
            selection_.check_parent_value_composition(self)
        # RAVE/GRAVE (mcts_agent.rave): (rave_bias, grave_ref), None with another selection.
        rave_options = rave.checked_options(self, rave_bias, grave_ref)
        self.rave_bias, self.grave_ref = (None, None) if rave_options is None else rave_options
        # Gumbel root search (mcts_agent.gumbel): its settings, None with another selection.
        self.gumbel = gumbel.checked_options(self, considered_actions, c_visit, c_scale)
        self._parallel: parallel.RootParallel | None = None
        if self.workers > 1:
            if on_iteration is not None:
                raise ValueError(
                    f"on_iteration is called in the planner's process, but with workers="
                    f"{self.workers} the searches run in the workers; pass on_iteration=None "
                    "(read planner.worker_summaries after a search) or workers=1"
                )
            self._parallel = parallel.RootParallel(
                model, worker_options, self.seed, self.workers, self.backend, self.address
            )

    # ------------------------------------------------------------------ API

    def __call__(self, state: StateT) -> Any:
        """Searches from ``state`` and returns the move to play (see :meth:`search`)."""
        self.search(state)
        return self.best_action()

    def close(self) -> None:
        """Ends the planner's worker processes or Ray actors (``workers > 1``); else nothing.

        Idempotent. A planner with workers cannot search once closed
        (RuntimeError). The workers also end when the planner is garbage
        collected, and at the end of a ``with MCTS(...) as planner:`` block.
        """
        if self._parallel is not None:
            self._parallel.close()

    def __enter__(self) -> MCTS:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def worker_summaries(self) -> tuple[SearchSummary, ...] | None:
        """Each worker's :class:`SearchSummary` of the last search (``workers > 1``), else None.

        Worker 0 first; each describes that worker's own tree (its
        iterations, seconds, nodes, stop reason and root statistics).
        """
        return None if self._parallel is None else self._parallel.last_summaries

    @property
    def tree(self) -> Tree:
        """The last search's tree, root first (read-only :class:`Node` views).

        With ``workers > 1``, the merged tree (:func:`mcts_agent.parallel.merge`):
        the root, each tried root child with the workers' summed N and W, and
        below each child the principal line of the worker that visited it most.

        Raises:
            RuntimeError: if no search has run yet.
        """
        if self._tree is None:
            raise RuntimeError("no search has run yet: call planner.search(state) first")
        return self._tree

    def search(
        self, state: StateT, *, iterations: int | None = None, time_limit: float | None = None
    ) -> Node:
        """Searches from ``state`` until its budget is spent (docs/guides/anytime-and-solver.md).

        The budget is the planner's (``iterations``, ``time_limit``,
        ``max_nodes``) unless this call gives ``iterations`` and/or
        ``time_limit``: then those two are this call's (the one not given is
        not set), with the planner's ``max_nodes``. With ``reuse_tree`` the
        search continues the previous tree's subtree at ``state`` if it finds
        one, else it starts a new tree.

        ``state`` is never changed. If the search fails (the model raises, or
        breaks the protocol as below), the exception propagates with a note
        pointing to :func:`mcts_agent.testing.check_model`, and the previous tree
        (if any) is kept.

        The model's answers are checked as the tree grows: at the root and at
        every new node (expansion), each answer; inside the generic rollout, an
        answer is named when it breaks the rollout (no cost per move); every
        rollout's return and every backed-up return as it is made; the value
        sums once per search (one sum over them).

        Args:
            state: the model state to plan from; it must have a legal action.
            iterations: int >= 1, this call's iteration budget, or None.
            time_limit: float > 0, this call's seconds, or None.

        Returns:
            The root :class:`Node` of the tree.

        Raises:
            ValueError: if ``state`` has no legal actions (the game is over); if
                ``step`` returns a NaN or infinite reward (the message names the
                state, the action and the reward); if a rollout's return is NaN or
                infinite (names the state it started from and the return); if a
                backed-up return or a value sum W overflows the float range
                (names the state and action of the node, and W): rewards of
                ``|r|`` near 1e308 cannot be summed; if the evaluator (general
                loop) returns a non-finite value or bad priors; if this call's
                budget is out of range.
            TypeError: if the model breaks the protocol of ``docs/concepts/model.md``: its
                ``actions`` returns no sequence (an iterator, a generator, a set,
                a dict, a str or a numpy array; a tuple, list or range is
                fine), its ``player`` is unhashable, its ``step`` returns no
                3-tuple, a reward that is not a real number, or a ``terminated``
                that is not a bool (Python's or numpy's) or 0/1; or a fused
                ``rollout`` returns no real number. The message names the method,
                what it returned and what was expected.
                Also if the evaluator returns something else than an
                ``Evaluation(value, priors)`` of real numbers; if
                ``reuse_tree`` compares states whose ``==`` is not a bool (give
                the model a ``key``).
        """
        clock = self.clock
        start = clock()
        if iterations is None and time_limit is None:
            budget = budgets.Budget(self.iterations, self.time_limit, self.max_nodes)
        else:
            budget = budgets.Budget.checked(iterations, time_limit, self.max_nodes)
        if self.gumbel is not None and budget.iterations is None:
            raise ValueError(
                "selection='gumbel' divides a search's iterations between the sampled root "
                "actions (sequential halving): this call's budget needs iterations, got "
                f"time_limit={time_limit!r} alone"
            )
        model = self.model
        root_actions = None  # a model without actions: the model refuses finished states
        if self.listed:
            root_actions = checked_actions(model.actions(state), state)
            if not root_actions:
                raise ValueError(
                    "cannot search from a state with no legal actions (the game is over); "
                    f"got state {describe(state)}"
                )
        if self._parallel is not None:  # workers > 1: searches in the workers, roots merged
            tree, done, stop_reason, reused_visits = self._parallel.search(
                state, budget.iterations, budget.time_limit
            )
            self._tree = tree
            value_range = (
                parallel.value_range(self._parallel.last_summaries)
                if self.value_normalization
                else None
            )
            self._record = _SearchRecord(
                done, clock() - start, stop_reason, reused_visits, value_range
            )
            if _logger.isEnabledFor(logging.DEBUG):
                _log_search(self)
            return tree[ROOT]
        previous = self._tree, self._record
        if self.value_normalization:  # the statistics of this search's backups only
            self._value_range = [math.inf, -math.inf]
        try:
            tree = fast = None
            if self.reuse_tree and self._tree is not None:
                tree = reuse.subtree_at(self._tree, state, getattr(model, "key", None))
                if tree is not None and self._general:
                    general_loop.renew_root(self, tree)
            reused_visits = 0 if tree is None else tree.visits[ROOT]
            if self.determinize:  # PIMC: the contrast to ISMCTS
                determinized = information_sets.Determinized(self, state)
                grown, loop = determinized, determinized.loop

                def solved() -> bool:
                    return False

            elif self.hidden:  # ISMCTS: a graph of information sets, grown world by world
                player = checked_player(model.player(state), state)
                tree = grown = information_sets.InformationSetTree(
                    state, player, (player, model.information_set(state, player))
                )
                leaf_rollout = self._hidden_rollout()
                fast = compiled_information_sets.search(self, tree)  # Leduc in C, else None
                if fast is not None:  # grown in C, written into tree once the search ends
                    grown, loop = fast, fast.loop
                else:

                    def loop(n: int) -> int:
                        return information_sets.run(self, grown, n, leaf_rollout)

                def solved() -> bool:
                    return False

            else:
                tree, loop, solved = self._growth(state, root_actions, tree, budget.iterations)
                grown = tree
                if self.selection == "rave":  # Go in C (written into tree at the end), or None
                    fast = compiled_rave.search(self, tree)
                    if fast is not None:
                        grown, loop = fast, fast.loop

            callback = self.on_iteration
            if callback is None:
                step = None
            else:  # the search so far is the planner's to read inside the callback
                self._tree = grown

                def step(done: int) -> Any:
                    self._record = _SearchRecord(
                        done, clock() - start, budgets.RUNNING, reused_visits, self._range_met()
                    )
                    return callback(self, done)

            done, stop_reason = budgets.run(
                loop,
                grown.__len__,
                solved,
                budget,
                clock,
                start,
                # An iteration of a stochastic model may make a chance node and an outcome node.
                nodes_per_iteration=2 if self.stochastic else 1,
                on_iteration=step,
            )
            if self.determinize:
                tree = determinized.tree()
                if self.value_normalization:
                    self._value_range = determinized.value_range()
            elif fast is not None:
                fast.write()
            elif not self.hidden and not math.isfinite(sum(tree.value_sums)):  # a W not finite
                _check_value_sums(tree)
        except BaseException as error:  # KeyboardInterrupt too: the planner as it was
            self._tree, self._record = previous  # as it was (an on_iteration callback saw more)
            if isinstance(error, Exception) and hasattr(error, "add_note"):  # Python >= 3.11
                error.add_note(
                    "(raised during MCTS.search, which calls the model's actions, step and "
                    "player; mcts_agent.testing.check_model(model, state) checks a model "
                    "against the protocol)"
                )
            raise
        self._tree = tree
        self._record = _SearchRecord(
            done, clock() - start, stop_reason, reused_visits, self._range_met()
        )
        if _logger.isEnabledFor(logging.DEBUG):
            _log_search(self)
        return tree[ROOT]

    def best_action(self) -> Any:
        """Returns the move to play: the root's robust child (most visits, then value, then first).

        Browne et al. (2012), §5.4 ("robust child"). With ``selection="gumbel"``,
        the Gumbel search's move: among the most visited root actions, the one
        of largest ``g + logits + sigma(q)`` (:func:`mcts_agent.gumbel.chosen_index`).
        With ``solve``, the solver's rule (``docs/guides/anytime-and-solver.md``,
        "Solver"): if the root is proven, the child of highest proven value
        (ties: most visits, then first); otherwise the robust child among the
        children not proven worse than another proven child and (with
        ``value_bounds``) not proven at ``lo`` unless all are.

        Raises:
            RuntimeError: if no search has run yet.
        """
        tree = self.tree
        if self.hidden:
            return tree.most_visited()
        if self.gumbel is not None:  # sequential halving's survivor (mcts_agent.gumbel)
            return tree.actions[ROOT][gumbel.chosen_index(tree, self.gumbel)]
        if self.solve:
            return tree.actions[ROOT][solver.best_child_index(tree, self.value_bounds)]
        return tree.actions[ROOT][tree.robust_child(ROOT)]

    def improved_policy(self) -> tuple[float, ...]:
        """Returns the Gumbel search's improved policy at the root, one float per root action.

        ``pi' = softmax(logits + sigma(completed q))`` (Danihelka et al., 2022,
        §4; :func:`mcts_agent.gumbel.improved_policy`), in the order of
        ``summary().actions``; it sums to 1. The training target of a
        Gumbel self-play (:mod:`mcts_agent.learning`); with PUCT the target is
        ``summary().visit_distribution``.

        Raises:
            RuntimeError: if no search has run yet.
            ValueError: if ``selection`` is not ``"gumbel"``.
        """
        if self.gumbel is None:
            raise ValueError(
                f"improved_policy is the Gumbel search's (selection='gumbel'); this planner "
                f"has selection={self.selection!r}: read summary().visit_distribution instead"
            )
        gumbel_options = self.gumbel
        return gumbel.improved_policy(
            self.tree, ROOT, gumbel_options.c_visit, gumbel_options.c_scale
        )

    def principal_variation(self, max_length: int | None = None) -> list:
        """Returns the line the search expects: the move played, then the robust child's, and so on.

        The first action is :meth:`best_action`'s; each next one the robust
        child's (most visits, then value, then first) of the node reached. The
        line stops at a terminal node, a node with no child tried, or after the
        action into a chance node (:func:`mcts_agent.export.principal_path`).

        Args:
            max_length: int >= 0, most moves, or None for no limit.

        A hidden-information search (ISMCTS) gives the move played only: the
        node after it depends on the world.

        Raises:
            RuntimeError: if no search has run yet.
            TypeError, ValueError: if ``max_length`` is not None or an int >= 0.
        """
        if self.hidden:
            if max_length is not None:
                max_length = require_int("max_length", max_length, 0)
            return [self.best_action()][:max_length]
        return export.principal_variation(self, max_length)

    def to_dot(self, max_depth: int | None = 3, min_visits: int = 1) -> str:
        """Returns the tree as Graphviz DOT text (:func:`mcts_agent.export.to_dot`).

        Boxes are decision nodes (N, Q, proven V, player to move), ellipses
        chance nodes; edges show the action and its prior; the principal
        variation is blue. ``dot -Tsvg tree.dot -o tree.svg`` draws it.

        Args:
            max_depth: int >= 0, the deepest nodes drawn (root at 0), or None for all.
            min_visits: int >= 0, children with fewer visits are left out.

        A hidden-information search draws its graph of information sets
        (:func:`mcts_agent.information_sets.to_dot`; ``max_depth`` unused).

        Raises:
            RuntimeError: if no search has run yet.
            TypeError, ValueError: if an argument is not an int >= 0.
        """
        if self.hidden:
            export.check_limits(max_depth, min_visits)
            return information_sets.to_dot(self.tree, min_visits)
        return export.to_dot(self, max_depth, min_visits)

    def to_dict(self, max_depth: int | None = None, min_visits: int = 0) -> dict:
        """Returns the tree as a JSON-serialisable dict (fields: :func:`mcts_agent.export.to_dict`).

        :func:`mcts_agent.export.from_dict` reads it back (after ``json.load``)
        as comparable :class:`~mcts_agent.export.SavedNode` records.

        Args:
            max_depth: int >= 0, the deepest nodes kept (root at 0), or None for all.
            min_visits: int >= 0, children with fewer visits are left out.

        A hidden-information search gives its graph of information sets
        instead (:func:`mcts_agent.information_sets.to_dict`; ``max_depth`` unused).

        Raises:
            RuntimeError: if no search has run yet.
            TypeError, ValueError: if an argument is not an int >= 0.
        """
        if self.hidden:
            export.check_limits(max_depth, min_visits)
            return information_sets.to_dict(self.tree, min_visits)
        return export.to_dict(self, max_depth, min_visits)

    def summary(self) -> SearchSummary:
        """Returns the root's per-action visits and values, and the search's figures.

        Raises:
            RuntimeError: if no search has run yet.
        """
        tree = self.tree
        record = self._record
        if self.hidden:
            return self._hidden_summary(tree, record)
        children = tree[ROOT].children
        visit_counts = tuple(tree.visits[c] if c != UNVISITED else 0 for c in children)
        total = sum(visit_counts)
        if isinstance(tree, GuidedTree):
            priors = tree.priors[ROOT]
            if ROOT in tree.widened:  # the drawn actions' weights, normalised
                total = math.fsum(priors)
                priors = tuple(w / total for w in priors)
            proven_values = tree.proven_values
            proven = tuple(proven_values[c] if c != UNVISITED else None for c in children)
            proven_value = proven_values[ROOT]
        else:
            priors = uniform_priors(len(children))
            proven = (None,) * len(children)
            proven_value = None
        return SearchSummary(
            actions=tree.actions[ROOT],
            visit_counts=visit_counts,
            values=tuple(tree.values[c] if c != UNVISITED else math.nan for c in children),
            action=self.best_action(),
            player=tree.players[ROOT],
            priors=priors,
            visit_distribution=tuple(n / total for n in visit_counts),
            iterations=record.iterations,
            elapsed=record.elapsed,
            nodes=len(tree),
            stop_reason=record.stop_reason,
            reused_visits=record.reused_visits,
            proven_value=proven_value,
            proven=proven,
            principal_variation=tuple(self.principal_variation()),
            value_range=record.value_range,
        )

    def _hidden_summary(self, tree: Any, record: Any) -> SearchSummary:
        """:meth:`summary` of an ISMCTS tree (:mod:`mcts_agent.information_sets`)."""
        actions, counts, values = information_sets.root_summary(tree)
        total = sum(counts) or 1
        return SearchSummary(
            actions=actions,
            visit_counts=counts,
            values=values,
            action=tree.most_visited(),
            player=tree.root_player,
            priors=information_sets.root_priors(tree),
            visit_distribution=tuple(n / total for n in counts),
            iterations=record.iterations,
            elapsed=record.elapsed,
            nodes=len(tree) if tree.searched_nodes is None else tree.searched_nodes,
            stop_reason=record.stop_reason,
            reused_visits=0,
            proven_value=None,
            proven=(None,) * len(actions),
            principal_variation=(tree.most_visited(),),
            value_range=record.value_range,
        )

    def _range_met(self) -> tuple[float, float] | None:
        """``(lo, hi)`` of the node values met in this search's backups, or None (option off)."""
        if self._value_range is None:
            return None
        lo, hi = self._value_range
        return lo, hi

    def sample_action(self, temperature: float) -> Any:
        """Returns a root action drawn with probability ``N(a) ** (1 / temperature)`` (normalised).

        AlphaZero's move selection (Silver et al., 2018): over the root's
        children with N > 0, drawn from the planner's generator; temperature
        0 is :meth:`best_action` (no draw). Large ``1 / temperature`` is
        computed as ``(N(a) / max N) ** (1 / temperature)``, so it never
        overflows.

        Args:
            temperature: float >= 0.

        Raises:
            RuntimeError: if no search has run yet.
            TypeError, ValueError: if ``temperature`` is not a finite number >= 0.
        """
        temperature = require_float("temperature", temperature, 0.0)
        if temperature == 0.0:
            return self.best_action()
        summary = self.summary()
        tried = [(a, n) for a, n in zip(summary.actions, summary.visit_counts, strict=True) if n]
        most = max(n for _, n in tried)
        power = 1.0 / temperature
        weights = [(n / most) ** power for _, n in tried]
        return self.rng.choices([a for a, _ in tried], weights=weights)[0]

    # ------------------------------------------------------------ the loop

    def _run(self, tree: Tree, iterations: int) -> None:
        """The inner loop: ``iterations`` of the four steps of ``docs/concepts/iteration.md``, fast.

        It continues ``tree`` (a new one, or one it grew before: the budget
        driver, :func:`mcts_agent.budgets.run`, calls it chunk by chunk) and the
        planner's generator; the caller checks the value sums once at the end.

        Readable version of one iteration (the code below does exactly this,
        with the tree's lists bound to locals; an iteration allocates only the
        new node's entries and the floats it computes)::

            node, path = ROOT, []
            while not terminal(node) and every action of node is tried:     # 1
                node = argmax over children ch, first in order on ties, of
                       Q(ch) + c * sqrt(ln N(node) / N(ch))
                path.append(node)
            if not terminal(node):                                           # 2
                a = first untried action of node
                node = add_child(node, a, step(state(node), a)); path.append(node)
                check the kinds of the child's reward, terminated, actions and player
            G = 0 if terminal(node) or no rollouts else rollout(node)        # 3
            for node in reversed(path):                                      # 4
                G = r(node) + gamma * G if player(node) == mover(node) else r(node) - gamma * G
                N(node) += 1; W(node) += G
            check G (finite: else the new reward, the rollout's return or the backup was not)
            N(root) += 1
            value_normalization: lo, hi = min, max of lo, hi and each Q(node) on path
                (selection then reads (Q - lo) / (hi - lo) for Q while hi > lo)
        (the caller then checks every W: finite)

        Checks (see :meth:`search`), written so that a model answering with the
        common types (float rewards, bool flags, tuples of actions, int players)
        pays one identity test per answer at an expansion and one ``isfinite``
        per iteration: once G is NaN or infinite it stays so up to the root, so
        one test of the last G catches a NaN or infinite reward of the new node,
        rollout return, or overflow anywhere in the backup (the slow path tells
        which). A W that overflows while every G is finite is found after the
        search by one ``sum(value_sums)`` (not finite if any W is); meanwhile,
        selection's first comparison always picks the first child, so a -inf or
        NaN value never makes it leave the tree. The slow paths are the
        ``checked_*`` functions of ``mcts_agent._validation``.

        Fast paths: ``untried[node] == 0`` is the test of step 1 (``untried``
        is ``TERMINAL`` at a terminal node); ``discounts[node]`` holds
        ``+gamma`` or ``-gamma`` so the backup is one multiply-add; ``values``
        keeps W / N so selection reads Q without dividing. A model's fused
        ``rollout(state, rng, limit, gamma)`` is called directly when no
        ``rollout_policy`` is given. UCB1 is computed exactly as written in
        ``docs/concepts/iteration.md`` (same floating-point operations, so the same ties).
        Keep it so: a form that is equal in real numbers, such as tabulating
        ``c * sqrt(ln N)`` and ``1 / sqrt(n)``, rounds differently, and with
        gamma < 1 sibling values that differ only in their last bit then swap
        places (``tests/test_search.py`` compares whole tic-tac-toe trees).
        """
        model = self.model
        step = model.step
        model_actions = model.actions
        model_player = model.player
        gamma = self.gamma
        minus_gamma = -gamma
        c = self.exploration
        limit = self.rollout_limit
        rng = self.rng
        fused_rollout, generic_rollout = self._rollouts()
        log = math.log
        sqrt = math.sqrt
        isfinite = math.isfinite
        nan = math.nan
        rollout_g: Any = 0.0
        # value_normalization: lo and hi of the values met so far in this search's backups;
        # while span = hi - lo > 0, selection scores (Q - lo) / span in place of Q.
        value_range = self._value_range
        lo, span = normalizer(value_range)
        scaled = span is not None

        states = tree.states
        players = tree.players
        rewards = tree.rewards
        discounts = tree.discounts
        node_actions = tree.actions
        children = tree.children
        untried = tree.untried
        visits = tree.visits
        value_sums = tree.value_sums
        values = tree.values

        path: list[int] = []
        path_append = path.append
        # The children of the wide nodes this call is expanding, as lists: one append per
        # expansion (a copy of the tuple would make a node of k actions cost O(k^2)); the node's
        # children[node] gets their tuple when it is fully expanded, and when the call ends.
        growing: dict[int, list[int]] = {}
        try:
            for _ in range(iterations):
                node = ROOT
                path.clear()
                # 1. Selection: descend while the node is not terminal and fully expanded.
                while not untried[node]:
                    log_n = log(visits[node])
                    # "not score <= best" is "score > best" for numbers, and true against NaN:
                    # the first child always wins its comparison, so selection never leaves the
                    # tree, even when every value is -inf or NaN (a W that overflowed).
                    best_score = nan
                    best_child = UNVISITED
                    if scaled:  # value_normalization: Qn = (Q - lo) / (hi - lo)
                        for child in children[node]:
                            score = (values[child] - lo) / span + c * sqrt(log_n / visits[child])
                            if not score <= best_score:
                                best_score = score
                                best_child = child
                    else:
                        for child in children[node]:
                            score = values[child] + c * sqrt(log_n / visits[child])
                            if not score <= best_score:
                                best_score = score
                                best_child = child
                    node = best_child
                    path_append(node)

                # 2. Expansion: the first untried action, stepped once for ever.
                left = untried[node]
                if left > 0:
                    state = states[node]
                    actions = node_actions[node]
                    action = actions[len(actions) - left]
                    try:
                        next_state, reward, terminated = step(state, action)
                    except (TypeError, ValueError):
                        _check_step(self.model, state, action)
                        raise
                    # The protocol's checks: one test per answer of the common type (float
                    # reward, bool flag, tuple of actions, int player); else the slow path.
                    # A NaN or infinite float reward is caught by the test of G after the backup.
                    if reward.__class__ is not float:
                        reward = checked_reward(reward, state, action)
                    if terminated is not False and terminated is not True:
                        terminated = checked_terminated(terminated, state, action)
                    child_actions: tuple = ()
                    child_player = None
                    if not terminated:
                        child_actions = model_actions(next_state)
                        if child_actions.__class__ is not tuple:
                            child_actions = checked_actions(child_actions, next_state)
                        if child_actions:
                            child_player = model_player(next_state)
                            if child_player.__class__ is not int:
                                checked_player(child_player, next_state)
                    child = len(states)
                    states.append(next_state)
                    players.append(child_player)
                    rewards.append(reward)
                    discounts.append(gamma if child_player == players[node] else minus_gamma)
                    node_actions.append(child_actions)
                    children.append(())
                    untried.append(len(child_actions) or TERMINAL)
                    visits.append(0)
                    value_sums.append(0.0)
                    values.append(0.0)
                    if len(actions) <= _COPIED_CHILDREN:  # narrow: the tuple copied (cheapest)
                        children[node] += (child,)
                    else:  # wide: one append to its list, O(1); the tuple written once
                        kids = growing.get(node)
                        if kids is None:
                            kids = growing[node] = list(children[node])
                        kids.append(child)
                        if left == 1:  # fully expanded: selection reads its children now
                            children[node] = tuple(kids)
                            del growing[node]
                    untried[node] = left - 1
                    node = child
                    path_append(child)

                # 3. Simulation: G = 0 at a terminal node or with rollouts off.
                if untried[node] == TERMINAL:
                    g = 0.0
                elif fused_rollout is not None:
                    g = rollout_g = fused_rollout(states[node], rng, limit, gamma)
                    if g.__class__ is not float:  # backed up as a float, as the compiled core does
                        g = _rollout_return(g, states[node])
                elif generic_rollout is not None:
                    g = rollout_g = generic_rollout(states[node], node_actions[node], players[node])
                    if g.__class__ is not float:  # (numpy rewards: a numpy G)
                        g = _rollout_return(g, states[node])
                else:
                    g = 0.0

                # 4. Backup, leaf first: G = r + gamma*G if the mover moves again, else r - gamma*G.
                for node in reversed(path):
                    g = rewards[node] + discounts[node] * g
                    n = visits[node] + 1
                    visits[node] = n
                    w = value_sums[node] + g
                    value_sums[node] = w
                    values[node] = w / n
                if not isfinite(g):  # NaN or infinite G stays so up to the root: one test
                    leaf = path[-1]
                    rolled_out = limit > 0 and untried[leaf] != TERMINAL
                    _link_children(children, growing)  # the error names edges: children read
                    raise _backup_error(tree, path, rollout_g if rolled_out else None)
                visits[ROOT] += 1
                if value_range is not None:  # the values the backup left, leaf first
                    widen(value_range, values, path)
                    lo, span = normalizer(value_range)
                    scaled = span is not None
        finally:
            _link_children(children, growing)

    def _growth(
        self,
        state: Any,
        root_actions: tuple | None = None,
        tree: Any = None,
        iterations: int | None = None,
    ) -> tuple[Any, Callable[[int], int], Callable[[], bool]]:
        """Returns ``(tree, loop, solved)`` for a perfect-information search from ``state``.

        ``tree``: the tree to continue (a reused subtree), or None for a new
        one; ``iterations``: the search's iteration budget (the length of a
        Gumbel search's schedule, :mod:`mcts_agent.gumbel`); ``loop(n) -> done``
        runs ``n`` iterations of the general loop (or leaf batching) or of the
        plain loop (compiled where it can be) on it;
        ``solved()`` is True once the solver proved its root.
        """
        if root_actions is None and self.listed:
            root_actions = checked_actions(self.model.actions(state), state)
        if self.selection == "rave":  # a loop of its own: mcts_agent.rave
            if tree is None:
                tree = rave.new_tree(self, state, root_actions)
            rave_tree = tree

            def rave_loop(n: int) -> int:
                return rave.run(self, rave_tree, n)

            def unsolved() -> bool:
                return False

            return tree, rave_loop, unsolved
        if self._general:
            if tree is None:
                tree = general_loop.new_tree(self, state, root_actions, iterations)
            guided = tree
            run = leaf_batching.run if self.leaf_batch > 1 else general_loop.run

            def loop(n: int) -> int:
                return run(self, guided, n)

            def solved() -> bool:
                return guided.proven_values[ROOT] is not None

            return tree, loop, solved
        if tree is None:
            tree = Tree(state, checked_player(self.model.player(state), state), root_actions)
        plain_tree = tree
        plain = compiled.plain_loop(self)  # the compiled core, else self._run

        def plain_loop(n: int) -> int:
            plain(plain_tree, n)
            return n

        def never() -> bool:
            return False

        return tree, plain_loop, never

    def _world_planner(self) -> MCTS:
        """The planner of one sampled world (``determinize=True``): these options, this generator.

        Made once, on the model seen as a perfect-information one
        (:class:`~mcts_agent.information_sets.PerfectInformation`); its
        generator is this planner's, so a seed gives the same worlds and searches.
        """
        if self._world_search is None:
            options = dict(self._options, determinize=False, on_iteration=None)
            world_planner = MCTS(information_sets.PerfectInformation(self.model), seed=0, **options)
            world_planner.rng = self.rng
            self._world_search = world_planner
        return self._world_search

    def _hidden_rollout(self) -> Callable[[Any, tuple, Hashable], Any] | None:
        """The leaf rollout of an ISMCTS search, ``rollout(state, actions, player) -> G``, or None.

        In the world drawn: the model's own ``rollout`` when it has one (no
        ``rollout_policy``), else the generic one; every player's return (a
        vector) for a model with ``reward_players``.
        """
        fused, generic = self._rollouts() if self.reward_players is None else maxn.rollouts(self)
        if fused is None:
            return generic
        rng, limit, gamma = self.rng, self.rollout_limit, self.gamma

        def model_rollout(state: Any, actions: tuple, player: Hashable) -> Any:
            return fused(state, rng, limit, gamma)

        return model_rollout

    def _rollouts(
        self,
    ) -> tuple[
        Callable[[Any, random.Random, int, float], float] | None,
        Callable[[Any, tuple, Hashable], float] | None,
    ]:
        """Returns ``(fused, generic)`` rollouts for this planner; at most one is not None.

        ``fused`` is the model's own ``rollout(state, rng, limit, gamma)``, used
        when the model has one and no ``rollout_policy`` is given. ``generic``
        is ``rollout(state, actions, player) -> G``, played with ``step``. Both
        are None when ``rollout_limit`` is 0.

        The generic rollout's G is the return from ``player``'s point of view
        (``docs/concepts/iteration.md``, step 3), accumulated forwards: ``G = sum_t coef_t * r_t``
        with ``coef_0 = 1`` and ``coef_{t+1} = coef_t * (gamma if p_{t+1} ==
        p_t else -gamma)``, which equals the backward rule
        ``G_t = r_t +/- gamma * G_{t+1}``.
        """
        limit = self.rollout_limit
        if limit == 0:
            return None, None
        rng = self.rng
        gamma = self.gamma
        policy = self.rollout_policy
        model = self.model
        fused = getattr(model, "rollout", None)
        if policy is None and callable(fused):
            return fused, None

        stochastic = self.stochastic
        step = chance.sampler(model, rng) if stochastic else model.step  # outcomes drawn from rng
        if not self.listed:
            return None, _sampled_rollout(model, step, not stochastic, rng, limit, gamma)
        model_actions = model.actions
        model_player = model.player
        random_ = rng.random

        def rollout(state: Any, actions: Sequence[Any], player: Hashable) -> float:
            g = 0.0
            coef = 1.0
            moves_left = limit
            previous = _NOT_STEPPED
            try:
                while True:
                    if policy is None:
                        action = actions[int(random_() * len(actions))]
                    else:
                        action = policy(state, actions, rng)
                        if action not in actions:
                            raise ValueError(
                                f"rollout_policy returned {describe(action)}, which is not one "
                                f"of the legal actions {describe(list(actions))}"
                            )
                    previous = state
                    state, reward, terminated = step(state, action)
                    g += coef * reward
                    moves_left -= 1
                    if terminated or moves_left == 0:
                        return g
                    actions = model_actions(state)
                    if not actions:
                        return g
                    mover = player
                    player = model_player(state)
                    coef *= gamma if player == mover else -gamma
            except (TypeError, ValueError, LookupError):
                # Off the fast path: name the answer that broke the protocol, if one did:
                # ``actions`` (of ``state``), else the last ``step(previous, action)``.
                checked_actions(actions, state)
                if previous is not _NOT_STEPPED and not stochastic:  # a draw checks itself
                    _check_step(model, previous, action)
                raise

        return None, rollout


def _sampled_rollout(
    model: Any,
    step: Callable[[Any, Any], Any],
    deterministic: bool,
    rng: random.Random,
    limit: int,
    gamma: float,
) -> Callable[[Any, Any, Hashable], float]:
    """The generic rollout of a model without ``actions``: ``sample_action`` at every move.

    ``rollout(state, actions, player) -> G`` as :meth:`MCTS._rollouts`'s
    (``actions`` unused, None); it ends at ``terminated`` or after ``limit``
    moves. Off its fast path (an exception of the model), the last step is
    checked against the protocol so the error names the answer at fault
    (``deterministic``: ``step`` is the model's; a stochastic model's draws
    check themselves).
    """
    sample_action = model.sample_action
    model_player = model.player

    def rollout(state: Any, actions: Any, player: Hashable) -> float:
        g = 0.0
        coef = 1.0
        moves_left = limit
        while True:
            action = sample_action(state, rng)
            previous = state
            try:
                state, reward, terminated = step(state, action)
                g += coef * reward
            except (TypeError, ValueError, LookupError):
                if deterministic:
                    _check_step(model, previous, action)
                raise
            moves_left -= 1
            if terminated or moves_left == 0:
                return g
            mover = player
            player = model_player(state)
            coef *= gamma if player == mover else -gamma

    return rollout


# ------------------------------------------------------------------ logging


def _log_search(planner: MCTS) -> None:
    """Logs the DEBUG record of the planner's last search (``docs/guides/seeing-the-search.md``).

    One line: iterations, seconds, iterations per second, nodes, the stop
    reason, the reused visits, the player to move, the proven value, the
    :data:`LOG_TOP_ACTIONS` most visited root actions with N, Q (for the
    player to move) and, in the general loop's trees, P; and the principal
    variation (its first :data:`LOG_LINE_MOVES` moves). The record carries the
    :class:`SearchSummary` as ``record.summary`` and the whole principal
    variation as ``record.principal_variation``.
    """
    summary = planner.summary()
    line = list(summary.principal_variation)
    rate = summary.iterations / summary.elapsed if summary.elapsed > 0 else math.inf
    guided = isinstance(planner.tree, GuidedTree)
    order = sorted(range(len(summary.actions)), key=lambda i: -summary.visit_counts[i])
    top = []
    for i in order[:LOG_TOP_ACTIONS]:
        n = summary.visit_counts[i]
        entry = (
            f"{summary.actions[i]!r} N={n} Q={summary.values[i]:+.3f}"
            if n
            else (f"{summary.actions[i]!r} N=0")
        )
        if guided:
            entry += f" P={summary.priors[i]:.3f}"
        if summary.proven[i] is not None:
            entry += f" V={summary.proven[i]:+g}"
        top.append(entry)
    shown = " ".join(repr(a) for a in line[:LOG_LINE_MOVES])
    if len(line) > LOG_LINE_MOVES:
        shown += f" ... ({len(line) - LOG_LINE_MOVES} more)"
    reused = f", {summary.reused_visits} visits reused" if summary.reused_visits else ""
    proven = "" if summary.proven_value is None else f", proven value {summary.proven_value:+g}"
    _logger.debug(
        "search: %d iterations in %.4f s (%.0f it/s), %d nodes, stopped on %s%s; "
        "player %r to move%s; top actions: %s; principal variation: %s",
        summary.iterations,
        summary.elapsed,
        rate,
        summary.nodes,
        summary.stop_reason,
        reused,
        summary.player,
        proven,
        ", ".join(top),
        shown,
        extra={"summary": summary, "principal_variation": line},
    )


# ------------------------------------------------- non-finite values (slow path)


def _edge(tree: Tree, node: int) -> tuple[Any, Any]:
    """Returns ``(parent state, action)`` of the edge into ``node`` (not the root)."""
    for parent, kids in enumerate(tree.children):
        if node in kids:
            return tree.states[parent], tree.actions[parent][kids.index(node)]
    raise AssertionError(f"node {node} has no parent")  # pragma: no cover


def _value_sum_error(tree: Tree, node: int, what: str) -> ValueError:
    state, action = _edge(tree, node)
    return ValueError(
        f"{what} at the node reached by action {describe(action)} from state "
        f"{describe(state)}: its value sum W is {tree.value_sums[node]} (reward there "
        f"{tree.rewards[node]}); the rewards are too large for sums of returns to stay "
        "within the float range (about 1.8e308): scale them down"
    )


def _backup_error(tree: Tree, path: list[int], rollout_return: Any) -> ValueError:
    """The error for a backup that ended with G NaN or infinite.

    Args:
        tree: the tree, after the backup.
        path: the iteration's nodes below the root, root side first.
        rollout_return: the return of this iteration's rollout, None if there was none.
    """
    for node in reversed(path):  # a NaN or infinite reward of a new node (the leaf)
        if not math.isfinite(tree.rewards[node]):
            try:
                state, action = _edge(tree, node)
                checked_reward(tree.rewards[node], state, action)
            except ValueError as error:
                return error
    if rollout_return is not None:
        try:
            checked_return(rollout_return, tree.states[path[-1]])
        except ValueError as error:
            return error
    for node in reversed(path):  # the first node, leaf first, where G stopped being finite
        if not math.isfinite(tree.value_sums[node]):
            return _value_sum_error(tree, node, "the backed-up return overflowed")
    raise AssertionError("G overflowed but no value sum on the path did")  # pragma: no cover


def _rollout_return(value: Any, state: Any) -> float:
    """A rollout's return ``value`` (not a float) as the float the backup adds (the core's rule).

    A float (a subclass, such as ``numpy.float64``) or an int (a bool too) as
    ``float(value)``; anything else through
    :func:`~mcts_agent._validation.checked_return` (a ``numpy.float32``: its
    float; not a real number: TypeError; NaN or infinite: ValueError).
    """
    if isinstance(value, (float, int)):
        return float(value)  # NaN or infinite: the test of G after the backup names it
    return checked_return(value, state)


def _link_children(children: list, growing: dict[int, list[int]]) -> None:
    """Writes the tuples of ``MCTS._run``'s children lists of partly expanded nodes; empties it."""
    for node, kids in growing.items():
        children[node] = tuple(kids)
    growing.clear()


def _check_value_sums(tree: Tree) -> None:
    """Raises ValueError naming the first node whose W is NaN or infinite, if any."""
    for node, w in enumerate(tree.value_sums):
        if not math.isfinite(w):
            raise _value_sum_error(tree, node, "the sum of the backed-up returns overflowed")


def _check_step(model: Model, state: Any, action: Any) -> None:
    """Raises the protocol's error if ``step(state, action)``'s result breaks it.

    Called off the fast path, after an error, to name its cause: ``step`` is
    deterministic, so it is asked again. Checks the result's shape, the reward
    (a finite real number) and ``terminated``; if ``step`` raises now, returns
    (the caller re-raises its first error).
    """
    try:
        result = model.step(state, action)
    except Exception:
        return
    _, reward, terminated = checked_step_result(result, state, action)
    checked_reward(reward, state, action)
    checked_terminated(terminated, state, action)


def _checked_root_noise(root_noise: Any, selection: str) -> tuple[float, float] | None:
    """Returns ``root_noise`` as ``(alpha, fraction)`` floats, or None; checks it.

    Raises:
        TypeError: if it is not None or a pair of real numbers.
        ValueError: if alpha <= 0, fraction is outside [0, 1], or selection is not PUCT.
    """
    if root_noise is None:
        return None
    if not (isinstance(root_noise, Sequence) and len(root_noise) == 2):
        raise TypeError(f"root_noise must be a pair (alpha, fraction) or None, got {root_noise!r}")
    if selection != "puct":
        raise ValueError(
            f"root_noise perturbs the priors of selection='puct'; selection={selection!r} "
            "ignores priors, so root_noise must be None"
        )
    alpha = require_float("root_noise's alpha", root_noise[0], 0.0)
    if alpha == 0.0:
        raise ValueError("root_noise's alpha must be > 0, got 0.0")
    fraction = require_float("root_noise's fraction", root_noise[1], 0.0, 1.0)
    return alpha, fraction
