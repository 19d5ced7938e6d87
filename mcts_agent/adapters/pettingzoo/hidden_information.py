"""What PettingZoo's hidden-information games hide: information sets and re-dealt worlds.

Information-set MCTS (``SPEC.md``, "Hidden information"; Cowling, Powley &
Whitehouse 2012) needs two things from a game: what a player knows in a
position (``information_set``), and a whole position consistent with it,
drawn from the planner's generator (``sample_world``).
:class:`~mcts_agent.adapters.pettingzoo.hidden_model.PettingZooHiddenModel`
reads them from the games listed in :data:`PLANNED_GAMES`, by exact class:

* RLCard's poker games, ``leduc_holdem_v4``, ``texas_holdem_v4`` and
  ``texas_holdem_no_limit_v6``: the information set of ``player`` is their own
  hand, the public cards, the public action history (RLCard's
  ``action_recorder``: who played what) and the chips each player has put in.
  Leduc's cards are keyed by rank only (its suits never matter, and
  PettingZoo's observation shows ranks); hold'em's by RLCard's card index
  (suit and rank, e.g. ``'SA'``), the hand sorted. A world keeps everything
  ``player`` has seen and re-deals the rest: the other players' hands and the
  dealer's deck (the cards still to come, in order: the world fixes the deck)
  are one uniform shuffle, from the planner's ``rng``, of the cards ``player``
  has not seen (sorted first, so the world drawn depends on the ``rng`` and
  what ``player`` saw only, not on where the true cards lie), dealt back in
  the same numbers. Every deal consistent with
  what ``player`` saw is equally likely (the deals, not a posterior over them
  given the other players' bets: ``SPEC.md``).
* ``rps_v2``: the information set of ``player`` is the round number, the
  rounds the env keeps (its ``history`` of the last five, both moves each,
  public once a round ends) and ``player``'s own current move. The only hidden
  thing is the first player's move while the second is to choose; a world
  draws it uniformly among the moves. Uniform is a choice, not a fact of the
  game: the planner then plays as against an opponent who picks at random, to
  whom every move is worth the same on average, so its play stays close to
  uniform (the game's equilibrium), where a model of the opponent's habits
  would exploit them.

The world is re-dealt in a copy of the env (never the live env); only the
planner's ``rng`` is drawn from, never the env's or RLCard's ``np_random``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple

from pettingzoo import AECEnv

__all__ = ["PLANNED_GAMES", "HiddenGame", "planned_game"]


class HiddenGame(NamedTuple):
    """How to read one game's information sets and re-deal its worlds (an env copy).

    ``information_set(env, agent) -> Hashable`` reads ``env.unwrapped`` (not
    changed); ``redeal(env, agent, rng)`` re-deals, in place, what ``agent``
    cannot see in ``env`` (an unwrapped copy, never the live env), drawing
    from ``rng`` only.
    """

    information_set: Callable[[AECEnv, Hashable], Hashable]
    redeal: Callable[[AECEnv, Hashable, random.Random], None]


def _leduc_card(card: Any) -> str:
    return card.rank  # suits never matter in Leduc: 'J', 'Q' or 'K'


def _holdem_card(card: Any) -> str:
    return card.get_index()  # suit and rank, e.g. 'SA'


def _hand(player: Any) -> list:
    """A player's cards as a list (Leduc's player holds one card, hold'em's a list)."""
    hand = player.hand
    return hand if isinstance(hand, list) else [hand]


def _public_cards(game: Any) -> list:
    """The public cards dealt so far (Leduc's one card or None; hold'em's list)."""
    if hasattr(game, "public_cards"):
        return game.public_cards
    return [] if game.public_card is None else [game.public_card]


def _rlcard_information_set(card_key: Callable[[Any], str]) -> Callable:
    def information_set(env: AECEnv, agent: Hashable) -> Hashable:
        rlcard_env = env.env
        game = rlcard_env.game
        players = game.players
        own = _hand(players[env.possible_agents.index(agent)])
        return (
            tuple(sorted(card_key(card) for card in own)),
            tuple(card_key(card) for card in _public_cards(game)),
            tuple(rlcard_env.action_recorder),
            tuple(p.in_chips for p in players),
        )

    return information_set


def _rlcard_redeal(env: AECEnv, agent: Hashable, rng: random.Random) -> None:
    """Re-deals the other players' hands and the deck: one shuffle of the unseen cards."""
    game = env.env.game
    mine = env.possible_agents.index(agent)
    others = [p for i, p in enumerate(game.players) if i != mine]
    deck = game.dealer.deck
    unseen = [card for p in others for card in _hand(p)]
    unseen.extend(deck)
    # In a fixed order first, so that the world drawn depends on rng and what agent saw only.
    unseen.sort(key=_holdem_card)
    rng.shuffle(unseen)
    dealt = 0
    for p in others:
        if isinstance(p.hand, list):
            n = len(p.hand)
            p.hand[:] = unseen[dealt : dealt + n]
            dealt += n
        else:
            p.hand = unseen[dealt]
            dealt += 1
    deck[:] = unseen[dealt:]  # in place: the dealer's list may be shared (no-limit's round)
    # PettingZoo writes the last mover's observation here (never reads it): made from the world.
    recorded = env.env.action_recorder
    if recorded:
        env._last_obs = env.observe(env.possible_agents[recorded[-1][0]])
    else:
        env._last_obs = env.env.get_state(game.game_pointer)["obs"]


def _rps_information_set(env: AECEnv, agent: Hashable) -> Hashable:
    return (env.num_moves, tuple(env.history), env.state[agent])


def _rps_redeal(env: AECEnv, agent: Hashable, rng: random.Random) -> None:
    """Draws the first player's move uniformly if ``agent`` is the second and has not seen it."""
    agents = env.agents
    if len(agents) != 2 or not agent == env.agent_selection == agents[1]:
        return  # nothing hidden from agent: no move made this round, or agent made it
    if env.terminations[agent] or env.truncations[agent]:
        return
    env.state[agents[0]] = rng.randrange(env.action_space(agents[0]).n)


_LEDUC = HiddenGame(_rlcard_information_set(_leduc_card), _rlcard_redeal)
_HOLDEM = HiddenGame(_rlcard_information_set(_holdem_card), _rlcard_redeal)

PLANNED_GAMES: dict[tuple[str, str], HiddenGame] = {
    ("pettingzoo.classic.rlcard_envs.leduc_holdem", "raw_env"): _LEDUC,
    ("pettingzoo.classic.rlcard_envs.texas_holdem", "raw_env"): _HOLDEM,
    ("pettingzoo.classic.rlcard_envs.texas_holdem_no_limit", "raw_env"): _HOLDEM,
    ("pettingzoo.classic.rps.rps", "raw_env"): HiddenGame(_rps_information_set, _rps_redeal),
}
"""The hidden-information games planned with information-set MCTS (module and class name
of ``env.unwrapped``, exact class: a subclass may hide more), and how."""


def planned_game(env: AECEnv) -> HiddenGame | None:
    """The :class:`HiddenGame` of ``env`` if it is one of :data:`PLANNED_GAMES`, else None."""
    cls = type(env.unwrapped)
    return PLANNED_GAMES.get((cls.__module__, cls.__qualname__))
