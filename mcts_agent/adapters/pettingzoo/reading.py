"""Reading a PettingZoo AEC env without changing it: legal moves, game over, fingerprint, name."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from mcts_agent.adapters.env_probe import freeze

__all__ = ["fingerprint", "first_difference", "game_name", "game_over", "mask_actions"]


def mask_actions(env: AECEnv, agent: Hashable) -> tuple:
    """Legal actions of ``agent`` from its action mask, or its whole Discrete space.

    The caller has checked that ``agent`` is to move and not terminated/truncated.
    """
    space = env.action_space(agent)
    observation = env.observe(agent)
    if isinstance(observation, dict) and "action_mask" in observation:
        mask = observation["action_mask"]
    else:
        mask = env.infos[agent].get("action_mask")
    start = int(space.start)
    if mask is None:
        return tuple(range(start, start + int(space.n)))
    return tuple(start + i for i in np.flatnonzero(mask).tolist())


def game_over(env: AECEnv) -> bool:
    """True when every agent is terminated or truncated (or none is left)."""
    terminations = env.terminations
    truncations = env.truncations
    agent = env.agent_selection
    if agent in terminations and not (terminations[agent] or truncations[agent]):
        return False  # the agent to move plays on (the common case, answered at once)
    return all(terminations[a] or truncations[a] for a in env.agents)


def fingerprint(env: AECEnv) -> dict[str, Any]:
    """The observable game of ``env``, read from ``env.unwrapped`` without side effects."""
    inner = env.unwrapped
    agent = inner.agent_selection
    done = inner.terminations.get(agent, True) or inner.truncations.get(agent, True)
    return {
        "agent to move": agent,
        "agents": tuple(inner.agents),
        "legal actions": () if done else mask_actions(inner, agent),
        "observations": tuple((a, freeze(inner.observe(a))) for a in inner.agents),
        "rewards": dict(inner.rewards),
        "cumulative rewards": dict(inner._cumulative_rewards),
        "terminations": dict(inner.terminations),
        "truncations": dict(inner.truncations),
        "infos": freeze(inner.infos),
    }


def first_difference(expected: dict[str, Any], actual: dict[str, Any]) -> str:
    """The first key of two :func:`fingerprint` results that differs, described; "" if none."""
    for key, value in expected.items():
        if actual[key] != value:
            if key in ("observations", "infos"):
                return f"the agents' {key} differ"
            return f"{key} differ: expected {value!r}, got {actual[key]!r}"
    return ""


def game_name(env: AECEnv) -> str:
    """The env's ``metadata["name"]`` (e.g. ``'leduc_holdem_v4'``), else its class path."""
    inner = env.unwrapped
    name = getattr(inner, "metadata", {}).get("name")
    return name if isinstance(name, str) else f"{type(inner).__module__}.{type(inner).__qualname__}"
