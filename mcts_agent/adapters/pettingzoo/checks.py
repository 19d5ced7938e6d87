"""The start-up checks of :class:`PettingZooModel`: arguments, reset, wrappers, clone, determinism.

See "The clone check" and "Deterministic games of perfect information only" in
:mod:`mcts_agent.adapters.pettingzoo.model`.
"""

from __future__ import annotations

import contextlib
import copy
import math
import random
from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    BaseWrapper,
    CaptureStdoutWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)

from mcts_agent.adapters.env_probe import (
    generator_state,
    generators_at,
    generators_copied,
    global_generators_kept,
    path_text,
    random_generator_paths,
    random_generators,
    require_reseedable,
    reseed,
    same,
    shared_mutable_objects,
)
from mcts_agent.adapters.errors import CloneCheckError
from mcts_agent.adapters.pettingzoo.cloning import CLONE_METHODS, restorable_copy, shared_memo
from mcts_agent.adapters.pettingzoo.known_games import never_changed_types
from mcts_agent.adapters.pettingzoo.reading import fingerprint, first_difference, game_name

if TYPE_CHECKING:
    from mcts_agent.adapters.pettingzoo.model import PettingZooModel

__all__ = [
    "DETERMINISM_STEPS",
    "DETERMINISM_TRIALS",
    "PLANNING_CHECKS_PER_DEPTH",
    "PLANNING_CHECK_EVERY",
    "PLANNING_SEED",
    "POLICING_WRAPPERS",
    "check_clone",
    "check_clone_arguments",
    "check_step",
    "not_deterministic",
    "require_planned_rewards",
    "require_reset",
    "unwrap_policing",
]

POLICING_WRAPPERS: tuple[type, ...] = (
    OrderEnforcingWrapper,
    AssertOutOfBoundsWrapper,
    TerminateIllegalWrapper,
    CaptureStdoutWrapper,
)
"""PettingZoo wrappers that only police moves or capture output: planning on
``env.unwrapped`` with legal moves only keeps their meaning."""

_RESET_ATTRIBUTES = (
    "agents",
    "agent_selection",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
)
"""What an AEC env's ``reset`` sets (``AECEnv.last`` reads them)."""

PLANNING_CHECKS_PER_DEPTH = 4
"""While planning, the first new edges (calls of ``step``) this many moves deep from the
position of the last ``state_of``, for every depth, are re-stepped in a reseeded copy
(:func:`check_step`): chance that starts after the first moves is met there first."""

PLANNING_CHECK_EVERY = 32
"""Besides, one new edge in this many is re-stepped (``benchmarks/bench_pettingzoo_checks.py``
measures the cost of the checks)."""

PLANNING_SEED = 2**31 - 1
"""The first seed of the reseeded copies of :func:`check_step`."""

DETERMINISM_TRIALS = 2
"""Random games the start-up check plays (to their end, or :data:`DETERMINISM_STEPS` moves)."""

_PERTURBED_COPIES = 8
"""Copies, each with every generator seeded differently, that replay each random game of the
start-up check (a coin drawn once agrees in all of them with probability 2**-8 a game)."""

DETERMINISM_STEPS = 60
"""Most moves of one random game of the start-up check (tic-tac-toe, connect four and
short games are played to the end; chess's random games run to several hundred moves,
at about 5 ms a move through PettingZoo)."""


def check_clone_arguments(clone: Any, env_factory: Any) -> None:
    """Checks the ``clone`` and ``env_factory`` arguments of :class:`PettingZooModel`.

    Args:
        clone: None, one of :data:`CLONE_METHODS`, or a function ``env -> env``.
        env_factory: None, or a function ``() -> AECEnv``; given exactly when
            ``clone`` is ``"replay"``.

    Raises:
        TypeError: if ``clone`` is neither None, a str nor callable, or
            ``env_factory`` is neither None nor callable.
        ValueError: if ``clone`` names an unknown method, ``"replay"`` comes
            without ``env_factory``, or ``env_factory`` comes without ``"replay"``.
    """
    expected = (
        "clone must be None, 'snapshot', 'attributes', 'replay' or a function "
        f"env -> independent copy, got {clone!r}"
    )
    if clone is not None and not callable(clone):
        if not isinstance(clone, str):
            raise TypeError(expected)
        if clone not in CLONE_METHODS:
            raise ValueError(expected)
    if env_factory is not None and not callable(env_factory):
        raise TypeError(f"env_factory must be a callable () -> AECEnv, got {env_factory!r}")
    if clone == "replay" and env_factory is None:
        raise ValueError("clone='replay' needs env_factory=<() -> new env of the same game>")
    if env_factory is not None and not (isinstance(clone, str) and clone == "replay"):
        raise ValueError(
            f"env_factory is only used by clone='replay', got clone={clone!r}: drop "
            "env_factory or pass clone='replay'"
        )


def require_reset(env: AECEnv) -> None:
    """Checks that ``env`` has been reset (it has every attribute ``AECEnv.reset`` sets).

    Args:
        env: a PettingZoo AEC env, wrapped or not.

    Raises:
        ValueError: if ``env.unwrapped`` lacks one of ``agents``,
            ``agent_selection``, ``rewards``, ``_cumulative_rewards``,
            ``terminations``, ``truncations``, ``infos`` (some envs set a few
            in their constructor; ``_cumulative_rewards`` only comes with
            ``reset``).
    """
    inner = env.unwrapped
    if any(not hasattr(inner, name) for name in _RESET_ATTRIBUTES):
        raise ValueError("env has not been reset: call env.reset(seed=...) first")


def unwrap_policing(env: AECEnv) -> AECEnv:
    """Returns ``env.unwrapped`` after checking that every wrapper only polices moves.

    Args:
        env: a PettingZoo AEC env, wrapped or not.

    Returns:
        The innermost env (``env.unwrapped``).

    Raises:
        TypeError: if ``env`` is not a ``pettingzoo.AECEnv``.
        ValueError: if a wrapper is not one of :data:`POLICING_WRAPPERS`
            (planning on the unwrapped env would ignore what it does).
    """
    if not isinstance(env, AECEnv):
        raise TypeError(f"env must be a pettingzoo.AECEnv (the AEC API), got {type(env).__name__}")
    layer = env
    while isinstance(layer, BaseWrapper):
        if not isinstance(layer, POLICING_WRAPPERS):
            raise ValueError(
                f"env is wrapped in {type(layer).__name__}, which the built-in clone methods "
                "would bypass (they plan on env.unwrapped; only "
                f"{', '.join(w.__name__ for w in POLICING_WRAPPERS)} are known to keep the "
                "game's meaning). Pass clone=<function env -> independent copy> that copies "
                "the wrapped env, or clone='replay' with env_factory=<() -> wrapped env>"
            )
        layer = layer.env
    return env.unwrapped


class LiveEnvGuard:
    """What the start-up check may not change in the live env, and how to put it back.

    Taken before anything is cloned or stepped: the env's :func:`fingerprint`
    (observations, legal actions, agent to move, rewards, cumulative rewards,
    terminations, truncations, infos), the states of its random generators,
    and a deep copy of its attributes to restore.
    """

    def __init__(self, env: AECEnv) -> None:
        self.env = env
        self.fingerprint = fingerprint(env)
        self.generator_states = _generator_states(env.unwrapped)
        self.saved, self.missed = restorable_copy(env.unwrapped)

    def restore_if_changed(self, method: Any, error: BaseException | None) -> None:
        """Puts the live env back and raises CloneCheckError if the check changed it."""
        difference = first_difference(self.fingerprint, fingerprint(self.env))
        generators_now = _generator_states(self.env.unwrapped)
        if not difference and not same(self.generator_states, generators_now):
            difference = "its random generators were advanced"
        if not difference:
            return
        inner = self.env.unwrapped
        kept = {name: inner.__dict__[name] for name in self.missed if name in inner.__dict__}
        inner.__dict__.clear()
        inner.__dict__.update(self.saved)
        inner.__dict__.update(kept)
        restored = (
            "now restored"
            if not self.missed
            else f"now restored but for {', '.join(self.missed)}, which cannot be copied"
        )
        raise CloneCheckError(
            f"clone method {method.name!r} ({method.description}) failed the clone check on "
            f"{self.env}: cloning and stepping copies changed the live env ({restored}): "
            f"{difference}; {method.advice}"
        ) from error


def _generator_states(env: AECEnv) -> list[Any]:
    """The states of the random generators reachable from ``env``'s attributes."""
    return [generator_state(generator) for generator in random_generators(env)]


@contextlib.contextmanager
def global_generators_seeded(seed: int) -> Iterator[None]:
    """Seeds Python's ``random`` and numpy's global ``np.random`` with ``seed`` for a while.

    Their states are put back on exit, so a check never advances the process's
    global generators (an env drawing from them sees ``seed``'s stream instead).
    """
    python_state = random.getstate()
    numpy_state = np.random.get_state()
    random.seed(seed)
    np.random.seed(seed)
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)


def check_clone(model: PettingZooModel, env: AECEnv, position: Any = None) -> Any:
    """The start-up check (module docstring of the model); returns the live env's position.

    Args:
        model: the model being built (its clone method chosen).
        env: the live env; left exactly as it was, or restored and reported.
        position: the position of ``env`` (``"replay"``: from its history);
            None to capture it with the clone method.

    Raises:
        CloneCheckError: if the clone is not an exact, independent copy.
        ValueError: if the game draws random numbers or gives rewards that are
            not two-player zero-sum (:func:`require_planned_rewards`).

    Python's ``random`` and numpy's global ``np.random`` are put back as they
    were, however the check ends (a refusal included).
    """
    method = model._method
    guard = LiveEnvGuard(env)
    with global_generators_kept(exact=True):
        try:
            position = _check_clone(model, env, position)
        except BaseException as error:
            guard.restore_if_changed(method, error)
            raise
    guard.restore_if_changed(method, None)
    model._checked = True
    return position


def _check_clone(model: PettingZooModel, env: AECEnv, position: Any) -> Any:
    method = model._method

    def failure(reason: str) -> CloneCheckError:
        return CloneCheckError(
            f"clone method {method.name!r} ({method.description}) failed the clone check "
            f"on {env}: {reason}; {method.advice}"
        )

    original = fingerprint(env)
    try:
        if position is None:
            position = method.capture(env)
        clone = method.load(position)
        if clone is env or clone.unwrapped is env.unwrapped:
            raise failure("the clone is the original env itself")
        _require_unshared(clone, env, failure, "the live env")
        difference = first_difference(original, fingerprint(clone))
        if difference:
            raise failure(f"the clone differs from the original: {difference}")
        model_actions = model._state(clone, position).actions
        if model_actions != original["legal actions"]:
            raise failure(
                f"the clone's legal actions {list(model_actions)} differ from the action "
                f"mask's {list(original['legal actions'])}"
            )
        if model_actions:
            action = model_actions[0]
            clone.step(action)
            stepped = fingerprint(clone)
            next_position = method.commit(clone, position, action)
            method.load(position)  # overwrites a scratch env before the next load
            clone_of_clone = method.load(next_position)
            if clone_of_clone is not clone:
                _require_unshared(clone_of_clone, clone, failure, "the copy it was made from")
            difference = first_difference(stepped, fingerprint(clone_of_clone))
            if difference:
                raise failure(
                    f"a clone of a clone one move into the game differs from it: {difference}"
                )
        model._scratch_holds = None
    except CloneCheckError:
        raise
    except Exception as error:  # a broken clone may fail in any way: report it as such
        raise failure(
            f"reading or stepping the clone raised {type(error).__name__}: {error}"
        ) from error
    _check_playouts(model, env, position)
    return position


def _require_unshared(
    copy: Any, original: Any, failure: Callable[[str], CloneCheckError], whose: str
) -> None:
    """Raises ``failure`` if ``copy`` shares mutable objects with ``original`` (before stepping)."""
    try:
        shared = shared_mutable_objects(original, copy, exempt=never_changed_types())
    except ValueError as error:  # too many objects to compare: no advice would help
        raise CloneCheckError(
            f"PettingZooModel cannot check that its copies share no mutable object with "
            f"{whose}: {error}"
        ) from error
    if shared:
        listed = ", ".join(shared[:_PATHS_LISTED])
        if len(shared) > _PATHS_LISTED:
            listed += f" and {len(shared) - _PATHS_LISTED} more"
        raise failure(
            f"the copy shares mutable objects with {whose} ({listed}), so stepping the copy "
            "would change it (e.g. an object whose __deepcopy__ returns itself, such as a "
            "handle to an external simulator, or a method of a C object kept as an attribute, "
            "such as self.draw = rng.random, which copy.deepcopy copies as itself); nothing was "
            "stepped. Each copy must own its own copy of them (give their class a __deepcopy__ "
            "that copies, keep the object rather than its method, or copy them in your clone "
            "function)"
        )


_PATHS_LISTED = 6  # most shared objects named in the error


def _check_playouts(model: PettingZooModel, env: AECEnv, position: Any) -> None:
    """Plays random games to their end in copies, checking rewards and determinism.

    Every step's rewards are checked (:func:`require_planned_rewards`) and, but
    for the known games, the same moves are played in a second copy whose random
    generators (its own wherever they lie, :func:`_perturb_every_generator`, and
    the global ones) are seeded differently: in :data:`_PERTURBED_COPIES` such
    copies if the first game advanced any generator (a coin drawn once agrees
    in one copy with probability 1/2), in one otherwise (chess: no generator).
    """
    method = model._method
    known = method.name == "snapshot"  # tic-tac-toe and connect four draw no random numbers
    for trial in range(1 if known else DETERMINISM_TRIALS):
        rng = random.Random(trial)
        moves: list[Any] = []
        seen = []
        with global_generators_seeded(2 * trial + 1):
            first = method.load(position)
            for generator in random_generators(first):
                reseed(generator, 2 * trial + 1)
            generators = (
                None if known else _perturb_every_generator(first, 2 * trial + 1, trial == 0)
            )
            states_before = _all_generator_states(generators)
            record = fingerprint(first)
            while record["legal actions"] and len(moves) < DETERMINISM_STEPS:
                actions = record["legal actions"]
                moves.append(actions[rng.randrange(len(actions))])
                mover = first.unwrapped.agent_selection
                first.step(moves[-1])
                if model._checks_rewards:
                    require_planned_rewards(first, mover, moves[-1], model.num_players)
                record = fingerprint(first)
                seen.append(record)
            drew = generators is None or not same(states_before, _all_generator_states(generators))
        if known:
            continue
        for copy_number in range(_PERTURBED_COPIES if drew else 1):
            seed = 2 * trial + 2 + 2 * DETERMINISM_TRIALS * copy_number
            with global_generators_seeded(seed):
                second = method.load(position)
                for generator in random_generators(second):
                    reseed(generator, seed)
                _perturb_every_generator(second, seed)
                for number, (move, expected) in enumerate(zip(moves, seen, strict=True)):
                    second.step(move)
                    difference = first_difference(expected, fingerprint(second))
                    if difference:
                        raise not_deterministic(
                            env,
                            f"the moves {moves[: number + 1]} from its position, played in two "
                            "copies whose random generators were reseeded differently",
                            difference,
                        )


def _all_generator_states(generators: list[Any] | None) -> list[Any]:
    """The states of ``generators`` and of Python's and numpy's global generators."""
    return [
        random.getstate(),
        np.random.get_state(),
        *(generator_state(g) for g in generators or ()),
    ]


def _perturb_every_generator(env: AECEnv, seed: int, check: bool = False) -> list[Any] | None:
    """Reseeds every generator a deep copy of ``env``'s attributes carries, wherever it lies.

    :func:`random_generators` stops after
    :data:`~mcts_agent.adapters.env_probe.MAX_OBJECTS_SEARCHED` objects and
    misses sets and dict keys; the attributes of ``env`` (a copy of the
    position, ours to step) are replaced by deep copies whose every generator
    (:func:`~mcts_agent.adapters.env_probe.generators_copied`) is reseeded
    ``seed``. Left as it is if they cannot be deep-copied.

    Returns:
        The generators ``env`` now holds (those the copy made), or None if its
        attributes could not be deep-copied.

    Raises:
        ValueError: with ``check``, if one of those generators cannot be
            reseeded (:func:`~mcts_agent.adapters.env_probe.require_reseedable`).
    """
    inner = env.unwrapped
    attributes = vars(inner)
    try:
        with generators_copied() as made:
            copied = copy.deepcopy(attributes, shared_memo(attributes))
    except Exception:  # RecursionError included: the walk's generators were reseeded
        return None
    attributes.update(copied)
    places = {}
    if check:
        for path in random_generator_paths(inner):
            for generator in generators_at(inner, [path]):
                places[id(generator)] = path_text(path)
    for generator in made:
        if check:
            require_reseedable(
                generator,
                places.get(
                    id(generator),
                    "held out of reach (in a set, under a dict's key, deep in the env or "
                    "under a __deepcopy__ of its own)",
                ),
            )
        reseed(generator, seed)
    return made


def check_step(model: PettingZooModel, state: Any, action: Any, stepped: AECEnv) -> None:
    """Re-steps one new edge while planning, in a copy whose random generators are reseeded.

    The determinism check of the search (:data:`PLANNING_CHECKS_PER_DEPTH`,
    :data:`PLANNING_CHECK_EVERY`): ``state`` stepped with ``action`` gave ``stepped``; the same move
    in a new copy of ``state`` whose own random generators are reseeded with
    :data:`PLANNING_SEED` plus the number of checks made (a new draw at each check,
    so that no check can keep agreeing by chance) must give the same game.
    Python's and numpy's global generators are left where the first step left
    them (a step that drew from them draws other numbers the second time) and
    put back afterwards (:func:`global_generators_kept`).

    Raises:
        ValueError: if it does not (the start-up check's error).
    """
    with global_generators_kept():
        copy = model._method.load(state.position)
        for generator in random_generators(copy):
            reseed(generator, PLANNING_SEED + model._checks_made)
        copy.step(action)
    difference = first_difference(fingerprint(stepped), fingerprint(copy))
    if difference:
        raise not_deterministic(
            copy,
            f"the move {action!r} of {state.agent!r} from a position met while planning, "
            "played in two copies whose random generators were reseeded differently",
            difference,
        )


def not_deterministic(env: AECEnv, where: str, difference: str) -> ValueError:
    """The error for a game whose copies, stepped alike, differ (at start-up or while planning)."""
    return ValueError(
        f"{game_name(env)} is not deterministic: {where}, gave different games "
        f"({difference}). It draws random numbers (from its np_random, its own "
        "random.Random or numpy Generator, or Python's or numpy's global generators). "
        "PettingZooModel plans deterministic games only: the search would keep the first dice "
        "roll or deal of each edge for ever"
    )


def require_planned_rewards(env: AECEnv, mover: Hashable, action: Any, num_players: int) -> None:
    """Checks that the rewards of the step just taken are what the model plans.

    Called for games planned as two-player zero-sum (``PettingZooModel``'s
    ``zero_sum``; a game planned with every agent's reward needs no check):
    the model plans the mover's reward and its negamax backup counts it
    negatively for the other player, which is exact only when every step's
    reward to the other player is the negative of the mover's. (Non-finite
    rewards are left to the search, which refuses them itself.)

    Args:
        env: the (unwrapped) env just stepped.
        mover: the agent that played ``action``.
        action: the action played.
        num_players: the number of ``possible_agents`` (1 or 2).

    Raises:
        ValueError: naming the game, the move and the rewards, if they are
            not two-player zero-sum.
    """
    if num_players == 1:  # the mover's reward is every reward
        return
    values = env.rewards.values()
    total = sum(values)
    if total == 0 or total != total:  # zero-sum, or NaN (non-finite: the search's error)
        return
    if not all(math.isfinite(value) for value in values):
        return
    expected = "the other player's reward must be the negative of the mover's"
    raise ValueError(
        f"{game_name(env)} is not a two-player zero-sum game: after {mover!r} played "
        f"{action!r} the rewards were {dict(env.rewards)} ({expected}). It is planned as "
        "zero-sum (PettingZooModel(zero_sum=True), or a game known to be), with the mover's "
        "reward only, counted negatively for the other player; pass zero_sum=False to plan "
        "every agent's reward (max^n)"
    )
