"""The model protocol: what the search needs to know about a game or task.

A model is any object with three methods (a structural :class:`typing.Protocol`,
not a base class), as in ``docs/concepts/model.md``:

=========================  ==================================================
``actions(state)``         the legal moves in ``state``, in a fixed order, as a
                           sequence (a tuple, fastest, or a list or range; not
                           an iterator, a generator, a set, a dict, a str or a
                           numpy array); an empty sequence means the game is
                           over
``step(state, action)``    a :class:`StepResult` ``(next_state, reward,
                           terminated)``; ``reward`` is a finite real number
                           (a float, fastest) received by the player who
                           moved; ``terminated`` a bool (numpy's too, or 0/1)
``player(state)``          the player to move: an int (1 for X and 2 for O, 0
                           for a one-player task) or any hashable id; the
                           search only compares players for equality
=========================  ==================================================

``step`` must not change ``state`` and must be deterministic. A state with no
legal moves is the end of the game, whatever ``terminated`` said. The search
raises ``TypeError`` for an answer of the wrong kind and ``ValueError`` for a
NaN or infinite reward (``MCTS.search``); rewards must also be small enough
for sums of returns to stay finite (``mcts_agent.testing.MAX_ABS_REWARD``).

A model may also offer an optional fused rollout (see :class:`RolloutModel`):
the search then calls it instead of stepping a random playout move by move.

A *stochastic* model (:class:`StochasticModel`) offers ``sample_step`` or
``outcomes`` instead of a deterministic ``step``, and optionally ``key``; the
search plans it with chance nodes (``docs/guides/chance.md``).

A model whose actions cannot be listed (continuous actions) offers
``sample_action(state, rng)`` instead of ``actions``
(:class:`SampledActionsModel`); the search plans it with progressive
widening (``docs/guides/continuous-actions.md``).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar, runtime_checkable

StateT = TypeVar("StateT")

__all__ = [
    "HiddenInformationModel",
    "Model",
    "RolloutModel",
    "SampledActionsModel",
    "StepResult",
    "StochasticModel",
]


class StepResult(NamedTuple):
    """The outcome of one move (Gymnasium's words, one player's reward).

    Attributes:
        next_state: the state reached; a new object (the model never changes the
            state it was given).
        reward: float, the reward received by the player who moved; finite (a
            real number: Python's or numpy's).
        terminated: bool (Python's or numpy's; 0 or 1 also do), True if the move
            ended the game. A state with no legal actions also ends the game,
            whatever this flag says.
    """

    next_state: Any
    reward: float
    terminated: bool


@runtime_checkable
class Model(Protocol[StateT]):
    """A deterministic, turn-based generative model the search plans in.

    Conforming objects need not inherit from this class. ``isinstance(obj,
    Model)`` checks that the three methods exist, not their behaviour; use
    :func:`mcts_agent.testing.check_model` for that.
    """

    def actions(self, state: StateT) -> Sequence[Any]:
        """Returns the legal actions in ``state``, in a fixed order; empty if over.

        A sequence: a tuple (fastest), a list or a range; not an iterator, a
        generator, a set, a dict, a str or a numpy array (``.tolist()`` it).
        """
        ...

    def step(self, state: StateT, action: Any) -> StepResult:
        """Returns ``StepResult(next_state, reward, terminated)``; never changes ``state``.

        ``reward`` is a finite real number, ``terminated`` a bool.

        Raises:
            ValueError: if ``action`` is not legal in ``state``.
        """
        ...

    def player(self, state: StateT) -> Hashable:
        """Returns the player to move in ``state``: hashable, compared only for equality."""
        ...


@runtime_checkable
class RolloutModel(Model[StateT], Protocol[StateT]):
    """A model with a fused rollout, which the search uses when no policy is given.

    ``rollout`` must have the same distribution of returns as the search's own
    uniformly random rollout (``docs/concepts/iteration.md``, step 3): play uniformly random legal
    moves from ``state`` until the game ends or ``limit`` moves have been
    played, and return the discounted return from the point of view of
    ``player(state)``, with the sign rule of the backup (a reward of another
    player counts negatively). A model may instead document a playout policy
    of its own (Go's light playouts, :meth:`mcts_agent.envs.go.GoModel.rollout`,
    never fill the mover's own eyes).

    The class may also define ``native_rollout(self)``, returning a capsule of
    the same rollout in C for the compiled core (``docs/guides/compiled-core.md``, "Compiled
    core"), or None; a subclass that overrides ``rollout`` loses it. Likewise
    ``native_step(self)``: a capsule of ``step``, ``actions`` and ``player``
    for leaf batching's compiled expansion; a subclass that overrides one of
    them loses it.
    """

    def rollout(self, state: StateT, rng: random.Random, limit: int, gamma: float) -> float:
        """Returns one random rollout's return from ``state`` (``limit`` >= 1 moves).

        Readable form (what a fused rollout computes, faster)::

            g, coef, player = 0.0, 1.0, player(state)
            for _ in range(limit):
                a = uniform choice of actions(state)       # from rng
                state, r, done = step(state, a)
                g += coef * r
                if done or not actions(state): break
                mover, player = player, player(state)
                coef *= gamma if player == mover else -gamma
            return g

        Args:
            state: a state with at least one legal action.
            rng: the planner's generator; draw from it only.
            limit: int >= 1, most moves played.
            gamma: discount rate in [0, 1].

        Returns:
            float, the return from the point of view of ``player(state)``; finite
            (the search raises ``ValueError`` for NaN or infinity, ``TypeError``
            for a value that is not a real number).
        """
        ...


class StochasticModel(Protocol[StateT]):
    """A turn-based model whose moves have random outcomes (``docs/guides/chance.md``).

    A stochastic model has ``actions`` and ``player`` as :class:`Model` has,
    and **one** of ``sample_step`` and ``outcomes`` (a model may offer both;
    the search then uses ``outcomes``); ``key`` is optional. The search never
    calls its ``step``. This protocol lists all three for type checkers and
    documentation; it is not ``runtime_checkable``, since a model needs only
    some of them (:func:`mcts_agent.chance.is_stochastic` is the search's
    test: a callable ``sample_step`` or ``outcomes``).

    A fused ``rollout`` (:class:`RolloutModel`) of a stochastic model must
    draw its outcomes from the ``rng`` it is given too, with the
    distribution of ``outcomes`` / ``sample_step``.

    :func:`mcts_agent.testing.check_model` checks all three.
    """

    def actions(self, state: StateT) -> Sequence[Any]:
        """Returns the legal actions in ``state``, in a fixed order; empty if over."""
        ...

    def player(self, state: StateT) -> Hashable:
        """Returns the player to move in ``state``: hashable, compared only for equality."""
        ...

    def sample_step(self, state: StateT, action: Any, rng: random.Random) -> StepResult:
        """Returns one random outcome of ``action`` in ``state``, drawn from ``rng`` only.

        ``StepResult(next_state, reward, terminated)`` as :meth:`Model.step`;
        never changes ``state``. The same ``rng`` state must give the same
        outcome (no other source of randomness: a plan that read the dice
        from elsewhere would know them before they are thrown).

        Args:
            state: a state with ``action`` legal.
            action: one of ``actions(state)``.
            rng: the planner's generator.
        """
        ...

    def outcomes(self, state: StateT, action: Any) -> Sequence[tuple[float, StepResult]]:
        """Returns every outcome of ``action`` in ``state`` with its probability.

        A sequence of ``(probability, StepResult)`` pairs: probabilities
        positive (impossible outcomes left out) and summing to 1 within
        1e-9; the same answer whenever asked; ``state`` never changed.
        """
        ...

    def key(self, state: StateT) -> Hashable:
        """Returns what the player can see of ``state``: states of equal keys are one node.

        Optional (default: the state itself, which must then be hashable).
        Two outcomes of a chance node share one child when their keys, rewards
        and ``terminated`` flags are equal; the child keeps the first one's
        state, so equal keys must mean the same position for the rest of the
        game (e.g. a snapshot without the env's random generator).
        """
        ...


@runtime_checkable
class HiddenInformationModel(Model[StateT], Protocol[StateT]):
    """A model of a game with hidden information (cards a player cannot see).

    ``docs/guides/hidden-information.md``; SPEC.md, "Hidden information".
    Beside :class:`Model`'s methods it says what each player knows, and
    draws worlds consistent with it; ``MCTS`` then runs information-set MCTS
    (:mod:`mcts_agent.information_sets`; Cowling, Powley & Whitehouse, 2012).
    :func:`mcts_agent.testing.check_model` checks the two methods agree.
    """

    def information_set(self, state: StateT, player: Hashable) -> Hashable:
        """Returns what ``player`` knows in ``state``: own cards and the public history.

        Two states that differ only in what ``player`` cannot see must give
        equal values; the search keys its nodes by ``(player to move, this)``.
        """
        ...

    def sample_world(self, state: StateT, player: Hashable, rng: random.Random) -> StateT:
        """Returns a full state ``player`` cannot tell from ``state``, drawn from ``rng`` only.

        The same information set, player to move and legal actions as
        ``state``; usually the unseen cards dealt again uniformly among the
        consistent deals, the rest of the deck fixed too (``step`` stays
        deterministic). Never changes ``state``.
        """
        ...


class SampledActionsModel(Protocol[StateT]):
    """A model whose actions are drawn, not listed (continuous actions).

    ``docs/guides/continuous-actions.md``.

    It has ``sample_action`` instead of, or beside, :meth:`Model.actions`,
    with ``step`` (or a stochastic model's ``sample_step``/``outcomes``) and
    ``player`` as :class:`Model` has. The search plans it with progressive
    widening (:mod:`mcts_agent.widening`; ``MCTS(widening=...)``, on by
    default for a model without ``actions``). Without ``actions`` a state
    is terminal only when the move into it said ``terminated``, and the
    search's own rollout plays ``sample_action`` at every move.
    :func:`mcts_agent.testing.check_model` checks it.
    """

    def sample_action(self, state: StateT, rng: random.Random) -> Any:
        """Returns one action to try in ``state``, drawn from ``rng`` only.

        The same ``rng`` state must give the same action (no other source of
        randomness: never the env's ``action_space.sample()`` or its
        ``np_random``, which the plan would advance). The action must be
        hashable and compare with ``==`` (an equal draw joins the existing
        child), be accepted by ``step``, and be one of ``actions(state)``
        when the model lists them.

        Args:
            state: a state that is not terminal.
            rng: the planner's generator.
        """
        ...

    def step(self, state: StateT, action: Any) -> StepResult:
        """Returns ``StepResult(next_state, reward, terminated)``; never changes ``state``."""
        ...

    def player(self, state: StateT) -> Hashable:
        """Returns the player to move in ``state``: hashable, compared only for equality."""
        ...
