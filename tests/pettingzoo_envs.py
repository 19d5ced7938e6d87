"""The PettingZoo envs the tests play, made through PettingZoo's registry (>= 1.27)."""

from __future__ import annotations

import collections
import copy
import dataclasses
import random
import threading

import numpy as np
import pettingzoo
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium_envs import StubbornRandom


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


class Race(pettingzoo.AECEnv):
    """Players take turns to score; the first to reach ``target`` points wins (+1, others -1).

    Action 0 scores 1 point, action 1 scores 2 (:meth:`points`; the subclasses below change
    one thing each). Observation: the scores, ``[player_0's, player_1's, ...]``; no action
    mask (both actions are always legal). ``played`` lists the actions since ``reset``.
    """

    metadata = {"name": "race_v0", "render_modes": []}

    def __init__(self, target=6, players=2):
        super().__init__()
        self.target = target
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.action_spaces = {a: spaces.Discrete(2) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Box(0, 2 * target + 6, (players,), np.int64) for a in self.possible_agents
        }

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def observe(self, agent):
        return np.array([self.scores[a] for a in self.possible_agents])

    def points(self, action):
        return action + 1

    def final_rewards(self, winner):
        return {a: 1 if a == winner else -1 for a in self.agents}

    def reset(self, seed=None, options=None):
        self.np_random, _ = seeding.np_random(seed)
        self.agents = list(self.possible_agents)
        self.scores = dict.fromkeys(self.agents, 0)
        self.played = []
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
        self.scores[agent] += self.points(action)
        self.played.append(action)
        if self.scores[agent] >= self.target:
            self.rewards = self.final_rewards(agent)
            self.terminations = dict.fromkeys(self.agents, True)
        turn = self.possible_agents.index(agent) + 1
        self.agent_selection = self.possible_agents[turn % len(self.possible_agents)]
        self._accumulate_rewards()


class DiceRace(Race):
    """Action 1 scores a die roll, 1..``sides`` drawn from the env's ``np_random`` (with
    ``sides=1`` the roll is always 1: a draw that changes nothing)."""

    metadata = {"name": "dice_race_v0", "render_modes": []}

    def __init__(self, sides):
        super().__init__()
        self.sides = sides

    def points(self, action):
        roll = int(self.np_random.integers(1, self.sides + 1))
        return 1 if action == 0 else roll


class World:
    """A handle to an external simulator: copying it returns the same handle."""

    def __init__(self):
        self.x = 1

    def __deepcopy__(self, memo):
        return self


class HandleRace(Race):
    """Every move also moves the simulator behind ``world`` (a handle shared by copies)."""

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self.world = World()

    def points(self, action):
        self.world.x += action + 1
        return action + 1


class LockRace(Race):
    """Steps under a ``threading.Lock`` (which ``copy.deepcopy`` cannot copy)."""

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self.lock = threading.Lock()

    def step(self, action):
        with self.lock:
            super().step(action)


class DeepHistoryRace(Race):
    """Keeps its history as nested pairs ``(earlier, action)``, ``depth`` levels from reset."""

    def __init__(self, depth=5000):
        super().__init__()
        self.depth = depth

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        history = ()
        for _ in range(self.depth):
            history = (history, 0)
        self.history = history

    def step(self, action):
        self.history = (self.history, action)
        super().step(action)


class CooperativeRace(Race):
    """Both players win together (+1 each) when one reaches the target, in the games whose
    actions start with ``prefix``; the others are won and lost as in :class:`Race`."""

    def __init__(self, prefix=()):
        super().__init__()
        self.prefix = list(prefix)

    def final_rewards(self, winner):
        if self.played[: len(self.prefix)] == self.prefix:
            return dict.fromkeys(self.agents, 1)
        return super().final_rewards(winner)


class LateChance(Race):
    """Once the actions since reset start with ``prefix``, every move scores a roll of 1..6,
    drawn from ``source``: ``"np_random"``, ``"generator"`` (its
    own ``np.random.Generator``), ``"random"`` (its own ``random.Random``), ``"global
    random"`` (Python's ``random``) or ``"global numpy"`` (``np.random``)."""

    metadata = {"name": "late_chance_v0", "render_modes": []}

    def __init__(self, source, prefix=(0, 0, 0, 0)):
        super().__init__(target=10)
        self.source = source
        self.prefix = list(prefix)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self.dice = {"generator": np.random.default_rng(seed), "random": random.Random(seed)}

    def points(self, action):
        if len(self.played) < len(self.prefix) or self.played[: len(self.prefix)] != self.prefix:
            return action + 1
        if self.source == "np_random":
            return int(self.np_random.integers(1, 7))
        if self.source == "generator":
            return int(self.dice["generator"].integers(1, 7))
        if self.source == "random":
            return self.dice["random"].randint(1, 6)
        if self.source == "global random":
            return random.randint(1, 6)
        return int(np.random.randint(1, 7))


class ScoreboardRace(Race):
    """Calls ``self.scoreboard(winner)`` when a game ends (a hook, a function attribute)."""

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self.scoreboard = lambda winner: None

    def final_rewards(self, winner):
        self.scoreboard(winner)
        return super().final_rewards(winner)


@dataclasses.dataclass(slots=True)
class Pouch:
    """Holds a generator in a slot (no ``__dict__``)."""

    rng: np.random.Generator


class CoinDuel(Race):
    """Action 1 scores a coin, 1 or 3 points, drawn from a generator seeded at reset that
    lies where ``holder`` says: ``"slots"`` (a ``@dataclass(slots=True)``), ``"deque"``
    (a ``collections.deque``), ``"method"`` (``self.draw = rng.integers``), ``"far"`` (an
    attribute the walk for generators reaches only after a table of 6,000 lists),
    ``"random_in_set"`` (a ``random.Random`` in a set, the coin ``randrange(2)``),
    ``"stubborn"`` (a ``random.Random`` whose ``seed`` does nothing after the first call) or
    ``"bit_generator"`` (a ``PCG64`` drawn from directly). ``target`` is the points to win
    (8; 1: one move, one coin)."""

    metadata = {"name": "coin_duel_v0", "render_modes": []}

    def __init__(self, holder, target=8):
        super().__init__(target=target)
        self.holder = holder

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        rng = np.random.default_rng(seed)
        if self.holder == "slots":
            self.pouch = Pouch(rng)
        elif self.holder == "deque":
            self.pouches = collections.deque([rng])
        elif self.holder == "far":
            self.far = rng
            self.table = [[i] for i in range(6000)]
        elif self.holder == "random_in_set":
            self.pouches = {random.Random(seed)}
        elif self.holder == "stubborn":
            self.stubborn = StubbornRandom(seed)
        elif self.holder == "bit_generator":
            self.bits = np.random.PCG64(seed)
        else:
            self.draw = rng.integers

    def points(self, action):
        if action == 0:
            return 1
        if self.holder == "slots":
            coin = self.pouch.rng.integers(0, 2)
        elif self.holder == "deque":
            coin = self.pouches[0].integers(0, 2)
        elif self.holder == "far":
            coin = self.far.integers(0, 2)
        elif self.holder == "random_in_set":
            coin = next(iter(self.pouches)).randrange(2)
        elif self.holder == "stubborn":
            coin = self.stubborn.randrange(2)
        elif self.holder == "bit_generator":
            coin = self.bits.random_raw() & 1
        else:
            coin = self.draw(0, 2)
        return 1 + 2 * int(coin)
