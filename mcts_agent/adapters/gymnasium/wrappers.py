"""The Gymnasium wrappers around a planned env: which are read, translated or refused."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.wrappers import (
    AddRenderObservation,
    HumanRendering,
    OrderEnforcing,
    PassiveEnvChecker,
    RecordEpisodeStatistics,
    RecordVideo,
    RenderCollection,
    TimeLimit,
    TransformAction,
    TransformObservation,
)

from mcts_agent.adapters.gymnasium.known_envs import KNOWN_SNAPSHOTS

__all__ = ["check_reset", "observation_transforms", "read_wrappers", "steps_before_truncation"]

# Wrappers that neither change what a step does nor need translating.
_INERT_WRAPPERS = (
    gym.ObservationWrapper,
    OrderEnforcing,
    PassiveEnvChecker,
    RecordEpisodeStatistics,
    RenderCollection,
    RecordVideo,
    HumanRendering,
)


def check_reset(env: gym.Env) -> None:
    """Raises ValueError if ``env`` has never been reset, as far as can be told.

    Told by Gymnasium's ``OrderEnforcing`` (``has_reset``) and ``TimeLimit``
    (no elapsed steps yet) wrappers, which ``gymnasium.make`` adds, and for a
    bare env we know by its position attribute (``KNOWN_SNAPSHOTS``: toy-text
    ``s`` is set by the first ``reset``, classic-control ``state`` is None
    until then). Other bare envs are not checked here; their first step in
    the start-up check fails instead.
    """
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if (isinstance(layer, OrderEnforcing) and not layer.has_reset) or (
            isinstance(layer, TimeLimit) and layer._elapsed_steps is None
        ):
            break
        layer = layer.env
    else:
        names = KNOWN_SNAPSHOTS.get(type(layer))
        if names is None or getattr(layer, names[0], None) is not None:
            return
    raise ValueError(
        f"the env ({type(env.unwrapped).__name__}) has not been reset: call "
        "env.reset(seed=...) first"
    )


def steps_before_truncation(time_limits: list[TimeLimit]) -> int | None:
    """Steps before the tightest of ``time_limits`` truncates the episode, or None.

    The env must have been reset (:func:`check_reset`).
    """
    steps_left = None
    for limit in time_limits:
        left = max(limit._max_episode_steps - limit._elapsed_steps, 0)
        steps_left = left if steps_left is None else min(steps_left, left)
    return steps_left


def read_wrappers(env: gym.Env) -> tuple[list[TimeLimit], list[TransformAction]]:
    """Returns the env's ``TimeLimit`` wrappers and action translators, outermost first.

    Raises:
        ValueError: for a wrapper that changes steps in a way planning would ignore.
    """
    time_limits: list[TimeLimit] = []
    translators: list[TransformAction] = []
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if isinstance(layer, TimeLimit):
            time_limits.append(layer)
        elif isinstance(layer, TransformAction):
            translators.append(layer)
        elif not (isinstance(layer, _INERT_WRAPPERS) or type(layer).step is gym.Wrapper.step):
            raise ValueError(
                f"the env is wrapped in {type(layer).__name__}, which changes what a step does; "
                "the planner steps env.unwrapped and would ignore it. Remove the wrapper or "
                "fold its effect into the env"
            )
        layer = layer.env
    return time_limits, translators


def observation_transforms(env: gym.Env) -> list[gym.ObservationWrapper]:
    """Returns the env's observation wrappers, innermost first, to apply to planned observations.

    The model steps ``env.unwrapped``, whose observations these wrappers would
    transform on their way out of the live env. Gymnasium's
    ``TransformObservation`` and its subclasses (``FlattenObservation``,
    ``DtypeObservation``, ``ReshapeObservation``, ``RescaleObservation``,
    ``FilterObservation``, ``GrayscaleObservation``, ``ResizeObservation``...)
    apply a function of the observation alone, so ``wrapper.observation(obs)``
    gives what the live env would show in any planned position.

    Raises:
        ValueError: for an observation wrapper that keeps state across steps
            or reads the live env (``NormalizeObservation``'s running
            statistics, ``TimeAwareObservation``'s clock, ``DelayObservation``,
            ``AddRenderObservation``): its output in a planned position is
            not a function of that position's observation.
    """
    transforms: list[gym.ObservationWrapper] = []
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if isinstance(layer, gym.ObservationWrapper):
            if not isinstance(layer, TransformObservation) or isinstance(
                layer, AddRenderObservation
            ):
                raise ValueError(
                    f"the env is wrapped in {type(layer).__name__}, whose observations are not "
                    "a function of the position alone (it keeps state across steps or reads "
                    "the live env), so a planned position's observation cannot be made as the "
                    "live env would show it. Unwrap it for the env view, and apply it in the "
                    "network if needed"
                )
            transforms.append(layer)
        layer = layer.env
    transforms.reverse()
    return transforms
