"""UCT: Monte Carlo Tree Search with UCB1 selection, exactly as ``SPEC.md``.

Sources: Kocsis & Szepesvári (2006), "Bandit based Monte-Carlo planning"
(UCT); Browne et al. (2012), "A survey of Monte Carlo tree search methods",
§3.3 (UCT) and §5.4 ("robust child"); Sutton & Barto (2018), §8.11.

Each iteration does selection (UCB1, ties to the first child), expansion (the
first untried action, ``step`` called once per edge), simulation (a random
rollout, or G = 0 at a terminal node) and backup (negamax sign rule: a node's
value is from the point of view of the player who moved into it).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, NamedTuple

from mcts_agent.model import Model, StateT
from mcts_agent.tree import ROOT, UNVISITED, Node, Tree

__all__ = ["MCTS", "RolloutPolicy", "SearchSummary"]

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
    """

    actions: tuple
    visit_counts: tuple[int, ...]
    values: tuple[float, ...]
    action: Any
    player: Hashable


def _require_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


class MCTS(Generic[StateT]):
    """A UCT planner over a :class:`~mcts_agent.model.Model` (``SPEC.md``).

    Usage::

        planner = MCTS(model, iterations=10_000, exploration=2 * math.sqrt(2), seed=42)
        action = planner(state)          # planner.search(state); planner.best_action()
        root = planner.tree[0]           # Node: state, player, visits, value, children...

    Each search builds a new tree. The planner owns one ``random.Random``
    seeded with ``seed``, used by rollouts only; a new planner with the same
    seed, model and state builds the same tree, whatever the program does
    with ``random`` or numpy's global state. Later searches continue the
    same generator.

    Synonyms: ``iterations`` is mctx's ``num_simulations``; ``exploration`` is
    OpenSpiel's ``uct_c``; ``visits`` is OpenSpiel's ``explore_count``.

    Args:
        model: the model to plan in (``actions``, ``step``, ``player``). If it
            also has ``rollout(state, rng, limit, gamma)`` and no
            ``rollout_policy`` is given, that fused rollout is used.
        iterations: int >= 1, selection-expansion-simulation-backup passes per
            search.
        exploration: c >= 0 of UCB1, ``Q + c * sqrt(ln N(parent) / N(child))``.
            sqrt(2) suits returns in [0, 1]; scale it by the range of the
            returns (2 * sqrt(2) for tic-tac-toe's [-1, 1]).
        gamma: discount rate in [0, 1].
        rollout_limit: int >= 0, most moves in one rollout; 0 disables rollouts
            (G = 0 at every new leaf).
        rollout_policy: optional ``(state, actions, rng) -> action`` used in
            rollouts instead of uniformly random moves; must return one of
            ``actions``.
        seed: int seed of the rollouts' generator, or None for fresh entropy.

    Raises:
        TypeError: if ``model`` lacks a method or an argument has the wrong type.
        ValueError: if an argument is out of range.
    """

    def __init__(
        self,
        model: Model[StateT],
        iterations: int,
        *,
        exploration: float = math.sqrt(2),
        gamma: float = 1.0,
        rollout_limit: int = 1000,
        rollout_policy: RolloutPolicy | None = None,
        seed: int | None = None,
    ) -> None:
        for method in ("actions", "step", "player"):
            if not callable(getattr(model, method, None)):
                raise TypeError(
                    f"model must have callable actions(state), step(state, action) and "
                    f"player(state); {type(model).__name__} has no {method}()"
                )
        self.model = model
        self.iterations = _require_int("iterations", iterations, 1)
        exploration = float(exploration)
        if not (math.isfinite(exploration) and exploration >= 0):
            raise ValueError(f"exploration must be a finite number >= 0, got {exploration}")
        self.exploration = exploration
        gamma = float(gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma must be in [0, 1], got {gamma}")
        self.gamma = gamma
        self.rollout_limit = _require_int("rollout_limit", rollout_limit, 0)
        if rollout_policy is not None and not callable(rollout_policy):
            raise TypeError(
                f"rollout_policy must be a callable (state, actions, rng) -> action, "
                f"got {rollout_policy!r}"
            )
        self.rollout_policy = rollout_policy
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"seed must be an int or None, got {seed!r}")
        self.seed = seed
        self.rng = random.Random(seed)
        self._tree: Tree | None = None

    # ------------------------------------------------------------------ API

    def __call__(self, state: StateT) -> Any:
        """Searches from ``state`` and returns the move to play (see :meth:`search`)."""
        self.search(state)
        return self.best_action()

    @property
    def tree(self) -> Tree:
        """The last search's tree, root first (read-only :class:`Node` views).

        Raises:
            RuntimeError: if no search has run yet.
        """
        if self._tree is None:
            raise RuntimeError("no search has run yet: call planner.search(state) first")
        return self._tree

    def search(self, state: StateT) -> Node:
        """Runs ``iterations`` UCT iterations from ``state`` in a new tree.

        ``state`` is never changed. If the model raises during the search, the
        exception propagates and the previous tree (if any) is kept.

        Args:
            state: the model state to plan from; it must have a legal action.

        Returns:
            The root :class:`Node` of the new tree.

        Raises:
            ValueError: if ``state`` has no legal actions (the game is over).
        """
        model = self.model
        root_actions = tuple(model.actions(state))
        if not root_actions:
            raise ValueError(
                "cannot search from a state with no legal actions (the game is over); "
                f"got state {state!r}"
            )
        tree = Tree(state, model.player(state), root_actions)
        self._run(tree)
        self._tree = tree
        return tree[ROOT]

    def best_action(self) -> Any:
        """Returns the root's robust child: most visits, then higher value, then first.

        Browne et al. (2012), §5.4 ("robust child").

        Raises:
            RuntimeError: if no search has run yet.
        """
        tree = self.tree
        children = tree.children[ROOT]
        visits = tree.visits
        values = tree.values
        best_index = -1
        best_key: tuple[int, float] = (-1, -math.inf)
        for i, child in enumerate(children):
            if child == UNVISITED:
                break
            key = (visits[child], values[child])
            if key > best_key:
                best_key = key
                best_index = i
        return tree.actions[ROOT][best_index]

    def summary(self) -> SearchSummary:
        """Returns the root's per-action visits and values after a search.

        Raises:
            RuntimeError: if no search has run yet.
        """
        tree = self.tree
        children = tree.children[ROOT]
        return SearchSummary(
            actions=tree.actions[ROOT],
            visit_counts=tuple(tree.visits[c] if c != UNVISITED else 0 for c in children),
            values=tuple(tree.values[c] if c != UNVISITED else math.nan for c in children),
            action=self.best_action(),
            player=tree.players[ROOT],
        )

    # ------------------------------------------------------------ the loop

    def _run(self, tree: Tree) -> None:
        """The inner loop; fields are bound to locals for speed (profiled)."""
        model = self.model
        step = model.step
        model_actions = model.actions
        model_player = model.player
        gamma = self.gamma
        c = self.exploration
        rollout = self._make_rollout()
        log = math.log
        sqrt = math.sqrt

        states = tree.states
        players = tree.players
        rewards = tree.rewards
        terminals = tree.terminals
        discounts = tree.discounts
        node_actions = tree.actions
        children = tree.children
        num_tried = tree.num_tried
        visits = tree.visits
        value_sums = tree.value_sums
        values = tree.values

        path: list[int] = []
        for _ in range(self.iterations):
            node = ROOT
            path.clear()
            # 1. Selection: descend while the node is not terminal and fully expanded.
            while not terminals[node] and num_tried[node] == len(children[node]):
                log_n = log(visits[node])
                best_score = -math.inf
                best_child = UNVISITED
                for child in children[node]:
                    score = values[child] + c * sqrt(log_n / visits[child])
                    if score > best_score:
                        best_score = score
                        best_child = child
                node = best_child
                path.append(node)

            # 2. Expansion: the first untried action, stepped once for ever.
            if not terminals[node]:
                index = num_tried[node]
                next_state, reward, terminated = step(states[node], node_actions[node][index])
                child_actions: tuple = ()
                child_player = None
                if not terminated:
                    child_actions = tuple(model_actions(next_state))
                    if child_actions:
                        child_player = model_player(next_state)
                    else:
                        terminated = True
                child = len(states)
                states.append(next_state)
                players.append(child_player)
                rewards.append(float(reward))
                terminals.append(terminated)
                discounts.append(gamma if child_player == players[node] else -gamma)
                node_actions.append(child_actions)
                children.append([UNVISITED] * len(child_actions))
                num_tried.append(0)
                visits.append(0)
                value_sums.append(0.0)
                values.append(0.0)
                children[node][index] = child
                num_tried[node] = index + 1
                node = child
                path.append(node)

            # 3. Simulation: G = 0 at a terminal node or with rollouts off.
            if terminals[node] or rollout is None:
                g = 0.0
            else:
                g = rollout(states[node], node_actions[node], players[node])

            # 4. Backup, leaf first: G = r + gamma*G if the mover moves again, else r - gamma*G.
            for node in reversed(path):
                g = rewards[node] + discounts[node] * g
                n = visits[node] + 1
                visits[node] = n
                w = value_sums[node] + g
                value_sums[node] = w
                values[node] = w / n
            visits[ROOT] += 1

    def _make_rollout(self) -> Callable[[Any, tuple, Hashable], float] | None:
        """Returns ``rollout(state, actions, player) -> G`` for this planner, or None.

        G is the rollout's return from ``player``'s point of view (``SPEC.md``,
        step 3), accumulated forwards: ``G = sum_t coef_t * r_t`` with
        ``coef_0 = 1`` and ``coef_{t+1} = coef_t * (gamma if p_{t+1} == p_t else
        -gamma)``, which equals the backward rule
        ``G_t = r_t +/- gamma * G_{t+1}``.
        """
        limit = self.rollout_limit
        if limit == 0:
            return None
        rng = self.rng
        gamma = self.gamma
        policy = self.rollout_policy
        model = self.model
        fused = getattr(model, "rollout", None)
        if policy is None and callable(fused):

            def fused_rollout(state: Any, actions: tuple, player: Hashable) -> float:
                return fused(state, rng, limit, gamma)

            return fused_rollout

        step = model.step
        model_actions = model.actions
        model_player = model.player
        random_ = rng.random

        def rollout(state: Any, actions: Sequence[Any], player: Hashable) -> float:
            g = 0.0
            coef = 1.0
            moves_left = limit
            while True:
                if policy is None:
                    action = actions[int(random_() * len(actions))]
                else:
                    action = policy(state, actions, rng)
                    if action not in actions:
                        raise ValueError(
                            f"rollout_policy returned {action!r}, which is not one of the "
                            f"legal actions {list(actions)!r}"
                        )
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

        return rollout
