"""A user's own module of envs, as the command line imports it (``module:attr`` specs).

Importing it registers ``Corridor-v0`` with Gymnasium (``plan --env user_envs:Corridor-v0``);
:func:`race` makes a PettingZoo AEC env (``evaluate --game user_envs:race:target=6``), and so
does :class:`BareRace`, one without a ``render_mode`` attribute (``--game user_envs:BareRace``).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo_envs import Race

CORRIDOR_ID = "Corridor-v0"
"""The Gymnasium id this module registers (a str: not a factory)."""


class Corridor(gym.Env):
    """Cells 0..size-1, start at 0; action 1 steps right, 0 left (walls stay).

    Reaching cell ``size - 1`` ends the episode with reward ``goal_reward`` (0 on every
    other step): the shortest episode, the one discounting favours, takes ``size - 1`` steps.
    """

    metadata = {"render_modes": []}

    def __init__(self, size: int = 5, goal_reward: float = 1.0, render_mode: str | None = None):
        self.size = size
        self.goal_reward = goal_reward
        self.render_mode = render_mode
        self.observation_space = spaces.Discrete(size)
        self.action_space = spaces.Discrete(2)
        self.position = 0

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.position = 0
        return self.position, {}

    def step(self, action):
        self.position = min(max(self.position + (1 if action == 1 else -1), 0), self.size - 1)
        done = self.position == self.size - 1
        return self.position, self.goal_reward if done else 0.0, done, False, {}


gym.register(CORRIDOR_ID, entry_point=Corridor, max_episode_steps=30)


class MaskedRace(Race):
    """tests/pettingzoo_envs.py's :class:`Race` with the observations PettingZoo's classic games
    give: ``{"observation": the scores, "action_mask": which actions are legal}`` (both, always),
    what the arena's random player reads. A ``render_mode`` attribute, as PettingZoo asks: None,
    or ``"ansi"`` for :meth:`render`'s text of the scores.

    The first player can always win (scoring 2, action 1, at each of its first moves, it
    reaches ``target`` no later than the second player does).
    """

    metadata = {"name": "masked_race_v0", "render_modes": ["ansi"]}

    def __init__(self, target=6, render_mode=None):
        super().__init__(target)
        self.render_mode = render_mode
        self.observation_spaces = {
            agent: spaces.Dict({"observation": space, "action_mask": spaces.MultiBinary(2)})
            for agent, space in self.observation_spaces.items()
        }

    def observe(self, agent):
        return {"observation": super().observe(agent), "action_mask": np.ones(2, np.int8)}

    def render(self):
        """The scores, e.g. ``"scores: player_0 2, player_1 0"`` (``render_mode="ansi"``)."""
        if self.render_mode == "ansi":
            return "scores: " + ", ".join(f"{a} {s}" for a, s in self.scores.items())
        return None


class BareRace(MaskedRace):
    """:class:`MaskedRace` without a ``render_mode`` attribute (PettingZoo asks for one; not
    every user's env has it): nothing to show as a board."""

    def __init__(self, target=6):
        super().__init__(target)
        del self.render_mode


def race(target: int = 6, render_mode: str | None = None) -> MaskedRace:
    """The factory ``--game user_envs:race`` calls (with ``target=`` from ``:target=6``)."""
    return MaskedRace(target, render_mode)


def unmasked_race(target: int = 6) -> Race:
    """tests/pettingzoo_envs.py's :class:`Race` as it is: observations without an
    ``"action_mask"`` (every action of its ``Discrete(2)`` is legal)."""
    return Race(target)


def failing_factory(target: int = 6) -> MaskedRace:
    """A factory with a bug: raises RuntimeError (``--game user_envs:failing_factory``)."""
    raise RuntimeError("the factory's own bug")


class FailingReset(MaskedRace):
    """:class:`MaskedRace` whose ``reset`` has a bug: calls a module (a TypeError)."""

    def reset(self, seed=None, options=None):
        np()  # not callable: TypeError: 'module' object is not callable


class FailingInit(Corridor):
    """:class:`Corridor` whose ``__init__`` raises (``plan --env user_envs:FailingInit-v0``):
    RuntimeError, or with ``error="type"`` a TypeError of its own (not an argument refused)."""

    def __init__(self, error="runtime", render_mode=None):
        if error == "type":
            np()  # not callable: TypeError: 'module' object is not callable
        raise RuntimeError("the env's own bug")


gym.register("FailingInit-v0", entry_point=FailingInit)
gym.register("MissingEntryPoint-v0", entry_point="user_envs:NoSuchEnv")
