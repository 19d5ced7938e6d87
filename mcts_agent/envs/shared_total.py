"""Shared total: a cooperative two-player PettingZoo AEC game (both players win or neither).

The rules. Two agents, ``"player_0"`` and ``"player_1"``, take turns, starting
with ``player_0``; each turn the agent to move adds 0, 1, ..., ``max_add``
(action ``a`` adds ``a``) to one shared total, which starts at 0. After
``moves_per_player`` moves each the game ends, and **both** agents receive
+1 if the total equals ``target``, else 0 (every other step rewards nothing).
With the defaults (target 15, three moves each of at most 3) neither player
can reach the goal alone (one player adds at most 9), and the first player's
first move can already make it unreachable (a 0 leaves 15 to make with five
moves of at most 3: only 3, 3, 3, 3, 3 does it).

Why it is a test: it is cooperative, so a search that treats the other
player's gain as its own loss (the negamax backup of two-player zero-sum
games) plans to spoil the goal; only a search of every player's reward
(:mod:`mcts_agent.maxn`, through :class:`~mcts_agent.adapters.PettingZooModel`,
which reports every agent's reward of each step) plays for it. Random play
reaches the goal in 1 game of 73 (56 of the 4096 sequences of moves).

=====================  ============================================================
Actions                ``Discrete(max_add + 1)``, every action always legal
Observations           ``{"observation": [total, moves played] (int64),
                       "action_mask": int8 ones}``
Rewards                +1 to both agents on the last move if the total is
                       ``target``, else 0
Termination            after ``2 * moves_per_player`` moves
=====================  ============================================================

Make it with :func:`env` (wrapped in PettingZoo's ``OrderEnforcingWrapper``)
or :class:`raw_env`. It passes ``pettingzoo.test.api_test``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector, wrappers

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """Returns :class:`raw_env` ``(**kwargs)`` in PettingZoo's ``OrderEnforcingWrapper``."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped env)
    """The shared-total game (see the module docstring).

    Args:
        target: int >= 1, the total both agents aim for.
        moves_per_player: int >= 1, moves of each agent.
        max_add: int >= 1, the most one move adds.

    Raises:
        ValueError: if an argument is out of range, or the target cannot be
            reached (more than ``2 * moves_per_player * max_add``).
    """

    metadata = {"render_modes": [], "name": "shared_total_v0", "is_parallelizable": False}

    def __init__(self, target: int = 15, moves_per_player: int = 3, max_add: int = 3) -> None:
        super().__init__()
        if min(target, moves_per_player, max_add) < 1:
            raise ValueError(
                f"target, moves_per_player and max_add must be >= 1, got {target}, "
                f"{moves_per_player}, {max_add}"
            )
        if target > 2 * moves_per_player * max_add:
            raise ValueError(
                f"target {target} cannot be reached with {moves_per_player} moves each of at "
                f"most {max_add}"
            )
        self.target = target
        self.moves_per_player = moves_per_player
        self.max_add = max_add
        self.possible_agents = ["player_0", "player_1"]
        self.render_mode = None
        high = 2 * moves_per_player * max_add
        self.action_spaces = {a: spaces.Discrete(max_add + 1) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=0, high=high, shape=(2,), dtype=np.int64),
                    "action_mask": spaces.Box(low=0, high=1, shape=(max_add + 1,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }

    def observation_space(self, agent: str) -> spaces.Space:
        """The agent's observation space (the same for both)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The agent's action space, ``Discrete(max_add + 1)``."""
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": [total, moves played], "action_mask": ones (zeros once over)}``."""
        mask = np.zeros(self.max_add + 1, dtype=np.int8)
        if agent == self.agent_selection and not self.terminations[agent]:
            mask[:] = 1
        observation = np.array([self.total, self.moves], dtype=np.int64)
        return {"observation": observation, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Starts a new game: total 0, ``player_0`` to move (no randomness; ``seed`` unused)."""
        self.agents = self.possible_agents[:]
        self.total = 0
        self.moves = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._agent_selector = AgentSelector(self.agents)
        self.agent_selection = self._agent_selector.reset()

    def step(self, action: Any) -> None:
        """Adds ``action`` to the total for the agent to move; the last move pays both agents.

        Raises:
            ValueError: if ``action`` is not in ``0..max_add``.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action not in range(self.max_add + 1):
            raise ValueError(f"action must be in 0..{self.max_add}, got {action!r}")
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        self.total += int(action)
        self.moves += 1
        if self.moves == 2 * self.moves_per_player:
            reward = 1 if self.total == self.target else 0
            self.rewards = dict.fromkeys(self.agents, reward)
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self.agent_selection = self._agent_selector.next()

    def render(self) -> None:
        """Nothing to render (no render modes)."""

    def close(self) -> None:
        """Nothing to close."""
