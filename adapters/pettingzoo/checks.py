"""The start-up checks of :class:`PettingZooModel`: arguments, reset, wrappers, clone, determinism.

See "The clone check" and "Deterministic games of perfect information only" in
:mod:`mcts_agent.adapters.pettingzoo.model`.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    BaseWrapper,
    CaptureStdoutWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)

from mcts_agent.adapters.env_probe import random_generators, reseed
from mcts_agent.adapters.errors import CloneCheckError
from mcts_agent.adapters.pettingzoo.cloning import CLONE_METHODS, copy_attributes
from mcts_agent.adapters.pettingzoo.reading import fingerprint, first_difference, game_name

if TYPE_CHECKING:
    from mcts_agent.adapters.pettingzoo.model import PettingZooModel

__all__ = [
    "DETERMINISM_STEPS",
    "DETERMINISM_TRIALS",
    "POLICING_WRAPPERS",
    "check_clone",
    "check_clone_arguments",
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

DETERMINISM_TRIALS = 2
"""Random move sequences the start-up determinism check plays."""

DETERMINISM_STEPS = 10
"""Most moves of one sequence of the start-up determinism check."""


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


def check_clone(model: PettingZooModel, env: AECEnv, position: Any) -> None:
    """The start-up clone check (module docstring); raises CloneCheckError."""
    method = model._method

    def failure(reason: str) -> CloneCheckError:
        return CloneCheckError(
            f"clone method {method.name!r} ({method.description}) failed the clone check "
            f"on {env}: {reason}; {method.advice}"
        )

    original = fingerprint(env)
    try:
        clone = method.load(position)
        if clone is env or clone.unwrapped is env.unwrapped:
            raise failure("the clone is the original env itself")
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
            saved = copy_attributes(env.unwrapped)
            clone.step(action)
            difference = first_difference(original, fingerprint(env))
            if difference:
                inner = env.unwrapped  # undo the broken clone's damage to the caller's game
                inner.__dict__.clear()
                inner.__dict__.update(saved.__dict__)
                raise failure(
                    f"stepping the clone changed the original (now restored): {difference}"
                )
            stepped = fingerprint(clone)
            next_position = method.commit(clone, position, action)
            method.load(position)  # overwrites a scratch env before the next load
            difference = first_difference(stepped, fingerprint(method.load(next_position)))
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
    if method.name != "snapshot":  # tic-tac-toe and connect four draw no random numbers
        _check_determinism(model, env, position)
    model._checked = True


def _check_determinism(model: PettingZooModel, env: AECEnv, position: Any) -> None:
    """The start-up determinism check (module docstring); raises ValueError."""
    method = model._method
    live_generators = frozenset(id(g) for g in random_generators(env))
    for trial in range(DETERMINISM_TRIALS):
        copies = []
        for copy_number in (1, 2):
            clone = method.load(position)
            for generator in random_generators(clone, live_generators):
                reseed(generator, 2 * trial + copy_number)
            copies.append(clone)
        first, second = copies
        rng = random.Random(trial)
        moves: list[Any] = []
        seen = fingerprint(first)
        # (the methods checked here take their legal actions from the mask, as the
        # fingerprint does)
        while seen["legal actions"] and len(moves) < DETERMINISM_STEPS:
            actions = seen["legal actions"]
            moves.append(actions[rng.randrange(len(actions))])
            first.step(moves[-1])
            second.step(moves[-1])
            seen = fingerprint(first)
            difference = first_difference(seen, fingerprint(second))
            if difference:
                raise ValueError(
                    f"{game_name(env)} is not deterministic: the moves {moves} from its "
                    "position, played in two copies whose random generators were reseeded "
                    f"differently, gave different games ({difference}). PettingZooModel "
                    "plans deterministic games only: the search would keep the first dice "
                    "roll or deal of each edge for ever"
                )
