"""The PettingZoo envs the tests play, made through PettingZoo's registry (>= 1.27)."""

from __future__ import annotations

import copy

import pettingzoo


def make_tictactoe(**kwargs):
    return pettingzoo.make("aec", "classic/tictactoe-v3", **kwargs)


def make_connect_four(**kwargs):
    return pettingzoo.make("aec", "classic/connect_four-v3", **kwargs)


def make_chess(**kwargs):
    return pettingzoo.make("aec", "classic/chess-v6", **kwargs)


def played(make_env, moves, seed=1):
    """A new env of ``make_env``, reset with ``seed`` and stepped along ``moves``."""
    env = make_env()
    env.reset(seed=seed)
    for move in moves:
        env.step(move)
    return env


def game_view(env):
    """Everything a player or the AEC loop can see of an env, for before/after comparisons."""
    inner = env.unwrapped
    return (
        inner.agent_selection,
        tuple(inner.agents),
        {a: inner.observe(a)["observation"].tobytes() for a in inner.agents},
        {a: inner.observe(a)["action_mask"].tobytes() for a in inner.agents},
        dict(inner.rewards),
        dict(inner._cumulative_rewards),
        dict(inner.terminations),
        dict(inner.truncations),
        copy.deepcopy(inner.infos),
    )
