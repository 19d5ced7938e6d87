"""Conformance checks for models, in the spirit of Gymnasium's ``check_env``.

Use :func:`check_model` on your own model before you plan with it::

    from mcts_agent.testing import check_model
    check_model(MyModel(), initial_state, seed=0)
"""

from __future__ import annotations

import copy
import random
import sys
from collections.abc import Callable
from typing import Any

from mcts_agent._validation import (
    checked_actions,
    checked_player,
    checked_return,
    checked_reward,
    checked_step_result,
    checked_terminated,
    describe,
    require_int,
    values_equal,
)
from mcts_agent.chance import checked_outcomes, checked_result, is_stochastic, outcome_key
from mcts_agent.information_sets import is_hidden
from mcts_agent.maxn import checked_reward_players, checked_vector, reward_vector
from mcts_agent.model import Model

__all__ = ["MAX_ABS_REWARD", "SAMPLES_CHECKED", "ModelCheckError", "check_model"]

MAX_ABS_REWARD = sys.float_info.max / 2**64
"""Largest ``|reward|`` :func:`check_model` accepts, about 9.7e288.

A value sum W adds N returns, each a sum of at most M rewards (discounted by
gamma <= 1), so ``|W| <= N * M * max|reward|``; with ``N * M <= 2**64`` (more
iterations times moves than any search can play) W stays below the largest
float (about 1.8e308) when every ``|reward| <= MAX_ABS_REWARD``.
"""


class ModelCheckError(AssertionError):
    """Raised by :func:`check_model` when a model breaks the protocol (docs/concepts/model.md)."""


def check_model(
    model: Model, state: Any, *, seed: int | None = 0, num_playouts: int = 20, max_moves: int = 200
) -> None:
    """Plays random games from ``state`` and checks the model protocol at every move.

    Checks, at every visited state: ``actions`` returns a sequence (a tuple, a
    list...; not an iterator, a set or a numpy array), the same when asked
    twice; every legal action steps to a 3-field result with a finite real
    ``reward`` of at most :data:`MAX_ABS_REWARD` in absolute value (so that
    the search's sums of returns cannot overflow) and a bool ``terminated``;
    ``step`` is deterministic and does not change its input (compared with a
    deep copy taken before, so states must support ``copy.deepcopy`` and
    ``==``); a state with legal actions has a hashable ``player``; a state
    reached by a terminating move has no legal actions. A fused
    ``rollout(state, rng, max_moves, 1.0)``, if the model has one, is played
    once per playout from ``state`` and must return a finite real number. A
    model with ``reward_players`` (every player's reward, :mod:`mcts_agent.maxn`)
    must give rewards, and rollout returns, as mappings ``{player: number}``
    over those players.

    A model with ``sample_action(state, rng)`` (actions drawn, not listed,
    or both; ``docs/guides/continuous-actions.md``): at every visited state
    :data:`SAMPLES_CHECKED` actions are drawn, each twice from two
    generators in the same state, and must be equal (drawn from the ``rng``
    only), hashable, legal (one of ``actions``, where listed) and, for a
    model with an ``action_space`` and ``to_env_action`` (a Gymnasium
    model), inside the space; a model without ``actions`` is stepped with
    these (its episodes end at ``terminated``).

    A hidden-information model (``information_set`` and ``sample_world``,
    ``docs/guides/hidden-information.md``): at every visited state, for the
    player to move, :data:`WORLDS_CHECKED` worlds are drawn with
    ``sample_world(state, player, rng)``, each twice from two generators in
    the same state; the two must be equal (drawn from the ``rng`` only), the
    state unchanged, and each world must give that player the same
    information set (hashable, the same when asked twice), the same player to
    move and the same legal actions, in the same order, as the true state.

    A stochastic model (``sample_step`` or ``outcomes``,
    :class:`~mcts_agent.model.StochasticModel`) is checked instead of
    ``step``: ``outcomes`` gives a non-empty sequence of ``(probability,
    StepResult)`` with positive probabilities summing to 1 within 1e-9, the
    same when asked twice; ``sample_step`` gives the same outcome for two
    generators in the same state (it draws from its ``rng`` only) and, if the
    model also has ``outcomes``, one of those; every result is checked as
    ``step``'s is, neither changes its input, and ``key`` (or the state
    itself, without one) of every outcome is hashable and the same when
    asked twice; states are compared by their keys. Playouts go on from a
    drawn outcome.

    Args:
        model: the model to check.
        state: a state with at least one legal action to start from (for a
            model without ``actions``: a state not terminal).
        seed: int seed of the playouts' random generator, or None.
        num_playouts: int >= 1, random games played from ``state``.
        max_moves: int >= 1, most moves per game (a game may be endless).

    Raises:
        ModelCheckError: (an ``AssertionError``) naming the first violation,
            with the state and action involved; also when the model lacks a
            method or one of its methods raises (the model's exception is the
            ``__cause__``). Nothing else comes from the model.
        TypeError, ValueError: if ``num_playouts`` or ``max_moves`` is not an
            int >= 1.
    """
    stochastic = is_stochastic(model)
    listed = callable(getattr(model, "actions", None))
    sampled = callable(getattr(model, "sample_action", None))
    hidden = is_hidden(model)
    if not (listed or sampled):
        raise ModelCheckError(
            f"a model needs actions(state) (its legal actions, listed) or sample_action(state, "
            f"rng) (actions drawn); {type(model).__name__} has neither"
        )
    for method in ("player",) if stochastic else ("step", "player"):
        if not callable(getattr(model, method, None)):
            raise ModelCheckError(
                f"a model needs actions, step and player methods (a stochastic model: "
                f"sample_step or outcomes instead of step); {type(model).__name__} has no "
                f"{method}()"
            )
    require_int("num_playouts", num_playouts, 1)
    require_int("max_moves", max_moves, 1)
    rng = random.Random(seed)
    if listed and not _actions(model, state):
        raise ModelCheckError(
            f"check_model needs a state with legal actions; actions({describe(state)}) is empty"
        )
    rollout_rng = random.Random(seed)
    for _ in range(num_playouts):
        _check_rollout(model, state, rollout_rng, max_moves)
        current = state
        for _ in range(max_moves):
            actions = _actions(model, current) if listed else None
            if listed and not actions:
                break
            _protocol(
                checked_player,
                _call(f"player({describe(current)})", model.player, current),
                current,
            )
            if hidden:
                _check_worlds(model, current, actions, rng)
            drawn = _check_sample_action(model, current, actions, rng) if sampled else None
            if not listed:  # the actions drawn are the ones stepped
                actions = drawn
            if stochastic:
                results = [_check_chance(model, current, action, rng) for action in actions]
            else:
                results = [_check_step(model, current, action) for action in actions]
            index = rng.randrange(len(actions))
            action = actions[index]
            previous = current
            current, _, terminated = results[index]
            if terminated and listed and _actions(model, current):
                raise ModelCheckError(
                    f"step({describe(previous)}, {describe(action)}) said terminated, but "
                    f"actions({describe(current)}) still lists legal actions"
                )
            if terminated:
                break


def _call(call: str, method: Callable[..., Any], *args: Any, note: str = "") -> Any:
    """Returns ``method(*args)``; an exception becomes a ModelCheckError naming ``call``."""
    try:
        return method(*args)
    except Exception as error:
        raise ModelCheckError(f"{call} raised {type(error).__name__}: {error}{note}") from error


def _protocol(check: Callable[..., Any], *args: Any) -> Any:
    """Returns ``check(*args)`` (a ``checked_*`` function); its error becomes a ModelCheckError."""
    try:
        return check(*args)
    except (TypeError, ValueError) as error:
        raise ModelCheckError(str(error)) from None


def _actions(model: Model, state: Any) -> tuple:
    """``actions(state)`` as a tuple, checked to be a sequence and stable over two calls."""
    call = f"actions({describe(state)})"
    actions = _protocol(checked_actions, _call(call, model.actions, state), state)
    again = _protocol(checked_actions, _call(call, model.actions, state), state)
    if not _equal(actions, again, f"the actions of {describe(state)}"):
        raise ModelCheckError(f"{call} is not stable: two calls gave {actions!r} and {again!r}")
    return actions


SAMPLES_CHECKED = 3
"""Actions :func:`check_model` draws with ``sample_action`` at every state it visits."""


def _check_sample_action(model: Any, state: Any, actions: tuple | None, rng: random.Random) -> list:
    """Draws :data:`SAMPLES_CHECKED` actions with ``sample_action``; returns them, checked.

    Each is drawn twice, from two generators in the same state: the two
    must be equal (the action depends on the generator only), hashable, one
    of ``actions`` (a model that lists them), and, for a model with an
    ``action_space`` (a Gymnasium space) and ``to_env_action``, inside that
    space (its shape, bounds and type). ``rng`` ends as one of the generators did.
    """
    call = f"sample_action({describe(state)}, rng)"
    drawn = []
    for _ in range(SAMPLES_CHECKED):
        first, second = random.Random(), random.Random()
        first.setstate(rng.getstate())
        second.setstate(rng.getstate())
        action = _call(call, model.sample_action, state, first)
        again = _call(call, model.sample_action, state, second)
        rng.setstate(first.getstate())
        if not _equal(action, action, "sampled actions"):
            raise ModelCheckError(
                f"{call} gave {describe(action)}, which is not equal to itself (a NaN?): the "
                "search joins equal draws, so an action must compare equal to itself"
            )
        if not _equal(action, again, "sampled actions"):
            raise ModelCheckError(
                f"{call} gave {describe(action)} and {describe(again)} from two generators in "
                "the same state: it must draw from its rng only (never from the env's or a "
                "global generator, which the plan would then advance or read)"
            )
        try:
            hash(action)
        except TypeError:
            raise ModelCheckError(
                f"{call} gave {describe(action)} ({type(action).__name__}), which is not "
                "hashable; the search keeps the actions drawn at a node to join equal ones: "
                "return a tuple (e.g. tuple(array.tolist()))"
            ) from None
        if actions is not None and action not in actions:
            raise ModelCheckError(
                f"{call} gave {describe(action)}, which is not one of actions(state) "
                f"{describe(list(actions))}"
            )
        space = getattr(model, "action_space", None)
        to_env_action = getattr(model, "to_env_action", None)
        if callable(getattr(space, "contains", None)) and callable(to_env_action):
            env_action = _call(f"to_env_action({describe(action)})", to_env_action, action)
            if not space.contains(env_action):
                raise ModelCheckError(
                    f"{call} gave {describe(action)}, whose env action {describe(env_action)} "
                    f"is not inside the action space {space}"
                )
        drawn.append(action)
    return drawn


WORLDS_CHECKED = 5
"""Worlds :func:`check_model` draws with ``sample_world`` at every state it visits."""


def _check_worlds(model: Any, state: Any, actions: tuple | None, rng: random.Random) -> None:
    """Draws :data:`WORLDS_CHECKED` worlds for the player to move and checks them (see check_model).

    ``rng`` ends as the first of each pair of generators did.
    """
    player = model.player(state)
    seen = f"information_set({describe(state)}, {describe(player)})"
    key = _call(seen, model.information_set, state, player)
    try:
        hash(key)
    except TypeError:
        raise ModelCheckError(
            f"{seen} gave {describe(key)} ({type(key).__name__}), which is not hashable; the "
            "search keys its nodes by it"
        ) from None
    if not _equal(key, _call(seen, model.information_set, state, player), "information sets"):
        raise ModelCheckError(f"{seen} is not stable: two calls differ")
    call = f"sample_world({describe(state)}, {describe(player)}, rng)"
    before = _deep_copy(state)
    for _ in range(WORLDS_CHECKED):
        first, second = random.Random(), random.Random()
        first.setstate(rng.getstate())
        second.setstate(rng.getstate())
        world = _call(call, model.sample_world, state, player, first)
        again = _call(call, model.sample_world, state, player, second)
        rng.setstate(first.getstate())
        if not _equal(world, again, "sampled worlds"):
            raise ModelCheckError(
                f"{call} gave {describe(world)} and {describe(again)} from two generators in "
                "the same state: it must draw from its rng only (never from the env's or a "
                "global generator)"
            )
        if not _equal(state, before, "states"):
            raise ModelCheckError(f"{call} changed its input state: a world must be a new state")
        world_key = _call(
            f"information_set({describe(world)}, {describe(player)})",
            model.information_set,
            world,
            player,
        )
        if not _equal(world_key, key, "information sets"):
            raise ModelCheckError(
                f"{call} gave the world {describe(world)}, in which {describe(player)}'s "
                f"information set is {describe(world_key)}, not {describe(key)} as in the true "
                "state: a world must agree with everything the player knows (or the "
                "information set holds something the player cannot see)"
            )
        mover = _call(f"player({describe(world)})", model.player, world)
        if not _equal(mover, player, "players"):
            raise ModelCheckError(
                f"{call} gave the world {describe(world)}, whose player to move is "
                f"{describe(mover)}, not {describe(player)}"
            )
        if actions is not None:
            world_actions = _actions(model, world)
            if not _equal(world_actions, actions, "legal actions"):
                raise ModelCheckError(
                    f"{call} gave the world {describe(world)}, whose legal actions "
                    f"{describe(list(world_actions))} are not those of the true state "
                    f"{describe(list(actions))}: the player would tell the worlds apart"
                )


def _check_rollout(model: Model, state: Any, rng: random.Random, max_moves: int) -> None:
    """Checks that a fused rollout, if the model has one, returns a finite real number."""
    rollout = getattr(model, "rollout", None)
    if callable(rollout):
        value = _call(
            f"rollout({describe(state)}, rng, {max_moves}, 1.0)",
            rollout,
            state,
            rng,
            max_moves,
            1.0,
        )
        players = _protocol(checked_reward_players, model)
        if players is None:
            _protocol(checked_return, value, state)
        else:
            what = f"the rollout from state {describe(state)} returned"
            _protocol(checked_vector, value, players, _index(players), lambda: what)


def _check_step(model: Model, state: Any, action: Any) -> tuple[Any, float, bool]:
    """Steps ``state`` with ``action`` twice; returns the checked result."""
    call = f"step({describe(state)}, {describe(action)})"
    before = _deep_copy(state)
    result = _checked_result(model, state, action, call)
    next_state, reward, terminated = result
    if _largest(reward) > MAX_ABS_REWARD:
        raise ModelCheckError(
            f"{call} returned the reward {reward}; expected |reward| <= {MAX_ABS_REWARD:.3g} "
            "(mcts_agent.testing.MAX_ABS_REWARD), so that the search's sums of returns "
            "cannot overflow: scale the rewards down"
        )
    if not _equal(state, before, "states"):
        raise ModelCheckError(
            f"step({describe(before)}, {describe(action)}) changed its input state to "
            f"{describe(state)}"
        )
    again = _checked_result(model, state, action, call)
    if not _equal(again, result, "step results"):
        raise ModelCheckError(
            f"{call} is not deterministic: {describe(result)} then {describe(again)}"
        )
    return result


def _check_chance(
    model: Any, state: Any, action: Any, rng: random.Random
) -> tuple[Any, float, bool]:
    """Checks ``outcomes`` and ``sample_step`` of ``action`` in ``state``; returns one draw."""
    before = _deep_copy(state)
    where = f"({describe(state)}, {describe(action)})"
    key = getattr(model, "key", None)
    players = _protocol(checked_reward_players, model)
    drawn = None
    outcome_keys = None
    outcomes = getattr(model, "outcomes", None)
    if callable(outcomes):
        pairs = _protocol(
            checked_outcomes,
            _call(f"outcomes{where}", outcomes, state, action),
            state,
            action,
            players,
        )
        again = _protocol(
            checked_outcomes,
            _call(f"outcomes{where}", outcomes, state, action),
            state,
            action,
            players,
        )
        if not _equal(pairs, again, "outcomes"):
            raise ModelCheckError(
                f"outcomes{where} is not stable: {describe(pairs)} then {describe(again)}"
            )
        outcome_keys = [_checked_key(model, key, result) for _, result in pairs]
        u = rng.random()
        running = 0.0
        for probability, result in pairs:
            running += probability
            if u < running:
                drawn = result
                break
        drawn = drawn or pairs[-1][1]
    sample_step = getattr(model, "sample_step", None)
    if callable(sample_step):
        first, second = random.Random(), random.Random()
        first.setstate(rng.getstate())
        second.setstate(rng.getstate())
        call = f"sample_step{where[:-1]}, rng)"
        sampled = _protocol(
            checked_result, _call(call, sample_step, state, action, first), state, action, players
        )
        twice = _protocol(
            checked_result,
            _call(call, sample_step, state, action, second),
            state,
            action,
            players,
        )
        sampled_key = _checked_key(model, key, sampled)
        if not _equal(sampled_key, _checked_key(model, key, twice), "outcome keys"):
            raise ModelCheckError(
                f"{call} gave {describe(sampled)} and {describe(twice)} from two generators in "
                "the same state: it must draw from its rng only (not from its own or a global "
                "generator, which would let the plan know the dice before they are thrown)"
            )
        if outcome_keys is not None and sampled_key not in outcome_keys:
            raise ModelCheckError(
                f"{call} gave {describe(sampled)}, which is none of outcomes{where}"
            )
        rng.setstate(first.getstate())
        drawn = drawn or sampled
    assert drawn is not None
    if _largest(drawn.reward) > MAX_ABS_REWARD:
        raise ModelCheckError(
            f"the outcome {describe(drawn)} of {describe(action)} in {describe(state)} has "
            f"|reward| > {MAX_ABS_REWARD:.3g} (mcts_agent.testing.MAX_ABS_REWARD): scale the "
            "rewards down"
        )
    seen = (lambda s: s) if key is None else key  # what a player tells apart
    if not _equal(seen(state), seen(before), "states"):
        raise ModelCheckError(
            f"drawing the outcomes of {describe(action)} changed the input state "
            f"{describe(before)} to {describe(state)}"
        )
    return drawn


def _checked_key(model: Any, key: Any, result: Any) -> Any:
    """The outcome key of ``result``, checked hashable and stable."""
    if key is None:
        return _protocol(outcome_key, None, result)
    call = f"key({describe(result.next_state)})"
    first = _protocol(outcome_key, lambda s: _call(call, key, s), result)
    again = _protocol(outcome_key, lambda s: _call(call, key, s), result)
    if not _equal(first, again, "keys"):
        raise ModelCheckError(f"{call} is not stable: {describe(first)} then {describe(again)}")
    return first


def _deep_copy(state: Any) -> Any:
    """``copy.deepcopy(state)``; a failure is a ModelCheckError saying why it is needed."""
    try:
        return copy.deepcopy(state)
    except Exception as error:
        raise ModelCheckError(
            f"copy.deepcopy({describe(state)}) raised {type(error).__name__}: {error}; "
            "check_model compares a deep copy of each state with the state after step "
            "to check that step does not change its input: make states deep-copyable "
            "(e.g. immutable tuples, or a __deepcopy__ method)"
        ) from error


def _checked_result(model: Model, state: Any, action: Any, call: str) -> tuple[Any, float, bool]:
    """Calls ``step`` and checks its result's shape, reward and ``terminated``."""
    result = _call(
        call,
        model.step,
        state,
        action,
        note=f", although actions({describe(state)}) lists {describe(action)} as legal",
    )
    next_state, reward, terminated = _protocol(checked_step_result, result, state, action)
    players = _protocol(checked_reward_players, model)
    if players is None:
        reward = _protocol(checked_reward, reward, state, action)
    else:  # every player's reward (mcts_agent.maxn): a vector in the order of players
        reward = _protocol(reward_vector, reward, players, state, action)
    terminated = _protocol(checked_terminated, terminated, state, action)
    return next_state, reward, terminated


def _largest(reward: float | tuple[float, ...]) -> float:
    """``|reward|``, or the largest ``|reward|`` of a vector of every player's rewards."""
    return max(map(abs, reward)) if isinstance(reward, tuple) else abs(reward)


def _index(players: tuple) -> dict:
    return {player: k for k, player in enumerate(players)}


def _equal(a: Any, b: Any, what: str) -> bool:
    """``a == b``, also for numpy arrays inside tuples and lists; a failure is a ModelCheckError."""
    try:
        return values_equal(a, b)
    except Exception as error:
        raise ModelCheckError(
            f"comparing {what} with == raised {type(error).__name__}: {error} (comparing "
            f"{describe(a)} with {describe(b)}); check_model needs states, actions and "
            "rewards that compare with == to a bool, to check that step is deterministic "
            "and leaves its input unchanged"
        ) from error
