"""RLCard's own agents as opponents: ``rlcard:MODEL_ID`` player specs, payoffs in big blinds.

RLCard (Zha et al. 2020, "RLCard: A Platform for Reinforcement Learning in
Card Games") registers pretrained and rule-based agents by id
(``rlcard.models.load(model_id)``, ``rlcard/models/__init__.py``). PettingZoo's
classic card envs wrap RLCard's envs (``pettingzoo/classic/rlcard_envs/
rlcard_base.py``: ``env.unwrapped.env`` is the RLCard env), so such an agent
plays in them: it is given RLCard's state of the player to move,
``rlcard_env.get_state(player_id)`` (``rlcard/envs/env.py``: the env's
``_extract_state`` of the game's state *for that player*: their own hand, the
public cards, the chips and the action record, never the other player's hand),
and its RLCard action id is the PettingZoo action (PettingZoo's action space
is RLCard's action ids, ``rlcard_base.py``'s ``step``).

The agents (:data:`RLCARD_MODELS`): ``leduc-holdem-cfr`` (chance-sampling CFR,
the policy RLCard ships in ``rlcard/models/pretrained/leduc_holdem_cfr``, loaded
from its pickles, no training at load), ``leduc-holdem-rule-v1``,
``limit-holdem-rule-v1`` and ``gin-rummy-novice-rule``. RLCard 1.2.0's
``CFRAgent.eval_step`` keys its policy with ``ndarray.tostring``, removed in
numpy 2; :class:`RLCardAgent` computes the same key with ``tobytes`` (what
``tostring`` was an alias of) and draws the action from the agent's own seeded
generator, instead of numpy's global one. Rule agents that draw from numpy's
global generator (``gin-rummy-novice-rule``'s ``np.random.choice``) move with
that generator seeded from the agent's own and put back afterwards.

Payoffs (:func:`payoff_per_hand`) are in big blinds per hand: RLCard's Leduc
and Limit Hold'em pay ``chips / big_blind`` (``get_payoffs`` of
``rlcard/games/leducholdem/game.py`` and ``rlcard/games/limitholdem/game.py``,
``big_blind = 2 * small_blind = 2`` chips; Leduc's raises are 2 chips in the
first round, 4 in the second), and PettingZoo passes them on unscaled as the
rewards (``RLCardBase._scale_rewards``). Gin Rummy has no blinds; PettingZoo
1.27 has no Gin Rummy env, so ``gin-rummy-novice-rule`` plays in RLCard's own
``gin-rummy`` env only (:meth:`RLCardAgent.step`).

``rlcard`` is an optional extra: ``pip install -e '.[rlcard]'``.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "PAYOFF_UNITS",
    "RLCARD_MODELS",
    "HandsPayoff",
    "RLCardAgent",
    "RLCardPlayer",
    "payoff_per_hand",
]

RLCARD_MODELS: dict[str, tuple[str, tuple[str, ...]]] = {
    "leduc-holdem-cfr": ("leduc-holdem", ("classic/leduc_holdem-v4",)),
    "leduc-holdem-rule-v1": ("leduc-holdem", ("classic/leduc_holdem-v4",)),
    "limit-holdem-rule-v1": ("limit-holdem", ("classic/texas_holdem-v4",)),
    "gin-rummy-novice-rule": ("gin-rummy", ()),
}
"""``model_id -> (RLCard env it plays, PettingZoo env ids it plays)``."""

PAYOFF_UNITS: dict[str, str] = {
    "classic/leduc_holdem-v4": "big blinds",
    "classic/texas_holdem-v4": "big blinds",
    "classic/texas_holdem_no_limit-v6": "chips",
}
"""``PettingZoo env id -> unit of its rewards``: the RLCard card games whose results are
reported as a mean payoff per hand. Leduc and Limit Hold'em pay ``chips / big_blind``
(``get_payoffs`` of RLCard's ``leducholdem`` and ``limitholdem`` games); No-Limit Hold'em
pays chips (``nolimitholdem/game.py``'s ``get_payoffs``; big blind 2 chips)."""


def _import_rlcard_models() -> Any:
    try:
        import rlcard.models
    except ImportError as error:
        raise ImportError(
            f"RLCard's agents need rlcard: pip install -e '.[rlcard]' ({error})"
        ) from error
    return rlcard.models


@functools.cache
def _loaded_agent(model_id: str) -> Any:
    """Returns RLCard's agent ``model_id``, loaded once per process (its policy is only read)."""
    (agent, *_) = _import_rlcard_models().load(model_id).agents
    return agent


def _check_model_id(model_id: Any) -> str:
    if model_id not in RLCARD_MODELS:
        raise ValueError(
            f"unknown RLCard model {model_id!r}; known: {', '.join(RLCARD_MODELS)} "
            "(as rlcard:leduc-holdem-cfr)"
        )
    return model_id


@dataclass(frozen=True)
class RLCardPlayer:
    """Makes :class:`RLCardAgent`: one of RLCard's own agents, by RLCard's model id.

    A player of PettingZoo's RLCard envs (they have no model to plan on):
    :meth:`env_policy` gives the game loop ``policy(env) -> action``.

    Attributes:
        model_id: a key of :data:`RLCARD_MODELS` (``"leduc-holdem-cfr"``).

    Raises:
        ValueError: (on construction) if ``model_id`` is not one of :data:`RLCARD_MODELS`.
        ImportError: (on construction) if rlcard is not installed.
    """

    model_id: str

    def __post_init__(self) -> None:
        _check_model_id(self.model_id)
        _import_rlcard_models()

    @property
    def label(self) -> str:
        """Its spec, e.g. ``rlcard:leduc-holdem-cfr``."""
        return f"rlcard:{self.model_id}"

    @property
    def rlcard_env(self) -> str:
        """The RLCard env id it plays (``"leduc-holdem"``)."""
        return RLCARD_MODELS[self.model_id][0]

    def check(self, env_id: str) -> None:
        """Checks that the agent plays the PettingZoo env ``env_id``.

        Raises:
            ValueError: if it does not (``rlcard:leduc-holdem-cfr`` on Texas Hold'em).
        """
        games = RLCARD_MODELS[self.model_id][1]
        if env_id not in games:
            plays = ", ".join(games) or "no PettingZoo env (RLCard's own only)"
            raise ValueError(
                f"{self.label} plays RLCard's {self.rlcard_env!r}, not {env_id!r} "
                f"(it plays: {plays})"
            )

    def __call__(self, model: Any, seed: int) -> Any:
        """Refused: RLCard's agents read RLCard's state, not a model's.

        Raises:
            TypeError: always; play it in a PettingZoo env loop (:meth:`env_policy`).
        """
        raise TypeError(
            f"{self.label} plays in PettingZoo's RLCard envs (env_policy), not on a model"
        )

    def agent(self, seed: int) -> RLCardAgent:
        """Returns the agent, loaded, drawing its random choices from ``seed``.

        Raises:
            ImportError: if rlcard is not installed.
        """
        return RLCardAgent(self.model_id, seed)

    def env_policy(self, seed: int, env: Any) -> Callable[[Any], int]:
        """Returns ``policy(env) -> action`` for the player to move in ``env`` (a PettingZoo env).

        Raises:
            ValueError: if ``env`` is not an env this agent plays.
            ImportError: if rlcard is not installed.
        """
        self.check(_env_id(env))
        return self.agent(seed).act

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        return {"kind": "rlcard", "model": self.model_id}


def _env_id(env: Any) -> str:
    """Returns ``classic/<name>-vN`` of a PettingZoo classic env (from its metadata name)."""
    name = env.unwrapped.metadata.get("name", "")
    base, _, version = name.rpartition("_v")
    return f"classic/{base}-v{version}"


@contextlib.contextmanager
def _global_numpy_seeded(rng: np.random.Generator) -> Iterator[None]:
    """Seeds numpy's global generator from ``rng`` for the block, then puts its state back."""
    saved = np.random.get_state()
    np.random.seed(int(rng.integers(2**32)))
    try:
        yield
    finally:
        np.random.set_state(saved)


class RLCardAgent:
    """One of RLCard's agents, loaded, with its own seeded generator.

    Args:
        model_id: a key of :data:`RLCARD_MODELS`.
        seed: seeds the agent's random choices (CFR's draw from its average
            policy; a rule agent's draws from numpy's global generator, seeded
            from this one for each move and put back after).

    Loading ``leduc-holdem-cfr`` reads RLCard's pickles (about 1 s with
    rlcard's import, measured here); the rule agents load at once. Each
    process loads an agent once (the agents' policies are only read while
    they play), so a match makes one per hand at no cost.

    Raises:
        ValueError: if ``model_id`` is unknown.
        ImportError: if rlcard is not installed.
    """

    def __init__(self, model_id: str, seed: int) -> None:
        self.model_id = _check_model_id(model_id)
        self._agent = _loaded_agent(model_id)
        self._cfr = model_id == "leduc-holdem-cfr"
        self._rng = np.random.default_rng(seed)

    def step(self, state: dict[str, Any]) -> int:
        """Returns the RLCard action id the agent plays in RLCard's state ``state``.

        Args:
            state: RLCard's state of the player to move,
                ``rlcard_env.get_state(player_id)`` (``obs``, ``legal_actions``,
                ``raw_obs``, ``raw_legal_actions``).

        Raises:
            ValueError: if the agent picks an action not in ``state["legal_actions"]``.
        """
        legal = list(state["legal_actions"])
        if self._cfr:
            # RLCard's CFRAgent.eval_step with tobytes for numpy 2's removed tostring.
            key = state["obs"].tobytes()
            probs = self._agent.action_probs(key, legal, self._agent.average_policy)
            action = int(self._rng.choice(len(probs), p=probs))
        else:
            with _global_numpy_seeded(self._rng):
                choice = self._agent.eval_step(state)[0]
            if self._agent.use_raw:
                ids = dict(zip(state["raw_legal_actions"], legal, strict=True))
                action = ids.get(choice, choice)
            else:
                action = int(choice)
        if action not in legal:
            raise ValueError(
                f"rlcard:{self.model_id} played {action!r}, not one of the legal actions {legal}"
            )
        return action

    def act(self, env: Any) -> int:
        """Returns the action of ``env.agent_selection`` in PettingZoo's RLCard env ``env``.

        The agent sees RLCard's state of that player only
        (``env.unwrapped.env.get_state(player_id)``).
        """
        raw = env.unwrapped
        return self.step(raw.env.get_state(raw._name_to_int(env.agent_selection)))


@dataclass(frozen=True)
class HandsPayoff:
    """A player's mean payoff per hand and its 95% interval.

    Attributes:
        mean: mean payoff per hand (big blinds in Leduc and Limit Hold'em).
        half_width: half the 95% interval's width, ``1.96 * sd / sqrt(hands)``
            (normal approximation, sample standard deviation).
        hands: hands played, half in each seat.
    """

    mean: float
    half_width: float
    hands: int

    @classmethod
    def of(cls, payoffs: Any) -> HandsPayoff:
        """Returns the mean of ``payoffs`` (one per hand, at least 2) and its 95% interval.

        Raises:
            ValueError: if fewer than 2 payoffs are given (no standard deviation).
        """
        payoffs = np.asarray(payoffs, dtype=float)
        if payoffs.ndim != 1 or payoffs.size < 2:
            raise ValueError(
                f"a 95% interval needs at least 2 hands' payoffs, got shape {payoffs.shape}"
            )
        sd = float(payoffs.std(ddof=1))
        return cls(float(payoffs.mean()), 1.96 * sd / math.sqrt(payoffs.size), payoffs.size)

    def __str__(self) -> str:
        return f"{self.mean:+.3f} ± {self.half_width:.3f} over {self.hands} hands"


def payoff_per_hand(
    env_id: str, player: Any, opponent: Any, hands: int = 2000, seed: int = 0
) -> HandsPayoff:
    """Plays ``hands`` hands of ``env_id``, seats swapped, and returns ``player``'s payoff.

    Half the hands with ``player`` as ``player_0``, half as ``player_1``
    (the hand with index ``i`` reset with seed ``seed + i // 2``, both seatings
    dealing the same cards). Each side acts through
    :meth:`~mcts_agent.evaluation.PettingZooGame.env_policy` (an
    :class:`RLCardPlayer` through its own :meth:`RLCardPlayer.env_policy`). The payoff of a
    hand is the sum of ``player``'s rewards: big blinds in Leduc and Limit
    Hold'em (see the module docstring).

    Args:
        env_id: a PettingZoo RLCard env id, ``"classic/leduc_holdem-v4"``.
        player: an :class:`RLCardPlayer` or a player of the arena (``RandomPlayer``,
            an ``MCTSPlayer`` planning through ``MCTSAgent``).
        opponent: the same, for the other seat.
        hands: an even int >= 2.
        seed: seeds the deals and the players.

    Returns:
        The :class:`HandsPayoff` of ``player``.

    Raises:
        ValueError: if ``hands`` is not an even int >= 2, or an RLCard player
            does not play ``env_id``.
    """
    from mcts_agent.evaluation.games import PettingZooGame

    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 2 or hands % 2:
        raise ValueError(f"hands must be an even int >= 2 (half in each seat), got {hands!r}")
    game = PettingZooGame(env_id)
    for side in (player, opponent):
        if isinstance(side, RLCardPlayer):
            side.check(env_id)
    env = game.make_env()
    env.reset(seed=seed)
    policies = [game.env_policy(side, seed + k, env) for k, side in enumerate((player, opponent))]
    payoffs = np.empty(hands)
    for hand in range(hands):
        seat = hand % 2
        order = (policies[0], policies[1]) if seat == 0 else (policies[1], policies[0])
        env.reset(seed=seed + hand // 2)
        mover = dict(zip(env.possible_agents, order, strict=True))
        total = 0.0
        for agent in env.agent_iter():
            _, reward, terminated, truncated, _ = env.last()
            if agent == env.possible_agents[seat]:
                total += float(reward)
            env.step(None if terminated or truncated else mover[agent](env))
        payoffs[hand] = total
    env.close()
    return HandsPayoff.of(payoffs)
