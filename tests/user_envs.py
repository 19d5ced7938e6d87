"""A user's own module of envs, as the command line imports it (``module:attr`` specs).

Importing it registers ``Corridor-v0`` with Gymnasium (``plan --env user_envs:Corridor-v0``);
:func:`nim` makes a PettingZoo AEC env (``evaluate --game user_envs:nim:sticks=5``).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

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


class Nim(AECEnv):
    """Two players take 1 or 2 of ``sticks`` sticks in turn; who takes the last wins (+1, -1).

    Action ``a`` takes ``a + 1`` sticks; the mask forbids taking 2 of 1. The player to move
    loses against perfect play exactly when the sticks left are a multiple of 3.
    """

    metadata = {"name": "nim_v0", "render_modes": []}

    def __init__(self, sticks: int = 5):
        super().__init__()
        self.sticks = sticks
        self.render_mode = None
        self.possible_agents = ["player_0", "player_1"]
        self.action_spaces = {a: spaces.Discrete(2) for a in self.possible_agents}
        observation = spaces.Dict(
            {
                "observation": spaces.Box(0, sticks, (1,), np.int64),
                "action_mask": spaces.Box(0, 1, (2,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def observe(self, agent):
        mask = np.array([self.left >= 1, self.left >= 2], np.int8)
        return {"observation": np.array([self.left]), "action_mask": mask}

    def reset(self, seed=None, options=None):
        self.agents = list(self.possible_agents)
        self.left = self.sticks
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        self.left -= int(action) + 1
        if self.left == 0:
            self.rewards = {a: 1 if a == agent else -1 for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.agents[1 - self.agents.index(agent)]
        self._accumulate_rewards()


def nim(sticks: int = 5) -> Nim:
    """The factory ``--game user_envs:nim`` calls (with ``sticks=`` from ``:sticks=5``)."""
    return Nim(sticks)
