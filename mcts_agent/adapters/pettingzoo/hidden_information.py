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

Copies of the RLCard games hold no generator. Once the cards are dealt
(``reset``), RLCard's ``game.step`` and ``get_payoffs`` draw nothing in Leduc
and in two-player hold'em: a world fixes the deck, so the cards to come are in
it. Its only other draw is hold'em's odd chip: a split pot that does not divide
evenly among its winners gives the remainder to a winner drawn from the game's
generator (``LimitHoldemJudger.split_pot_among_players``, no limit's too),
which needs three players or more. So every copy the adapter makes holds, in
place of the env's (one ``RandomState`` shared by the RLCard env, its game,
dealer, judger, round and players), one :class:`GeneratorStandIn` that raises
a ValueError, naming the game and the cause, if a copy draws from it (an odd
split pot with three players or more ends the search so, never a draw the
search would keep for ever); a deep copy of the ``RandomState`` was most of the
cost of a copy. RLCard's ``Card`` objects (set at construction, never changed)
and the env's numpy dtype are shared by the copies too, and the legal
actions are read from RLCard's list of them (``next_legal_moves``, which
PettingZoo's action mask marks) rather than from a new observation.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple

import numpy as np
from pettingzoo import AECEnv

__all__ = ["PLANNED_GAMES", "GeneratorStandIn", "HiddenGame", "planned_game"]


class HiddenGame(NamedTuple):
    """How to read one game's information sets and re-deal its worlds (an env copy).

    ``information_set(env, agent) -> Hashable`` reads ``env.unwrapped`` (not
    changed); ``redeal(env, agent, rng)`` re-deals, in place, what ``agent``
    cannot see in ``env`` (an unwrapped copy, never the live env), drawing
    from ``rng`` only; ``copy_memo(env) -> {id(object): replacement}``, or
    None, is what every copy of ``env`` (unwrapped) shares or replaces
    (:func:`~mcts_agent.adapters.pettingzoo.cloning.copy_attributes`'
    ``memo_entries``); ``legal_actions(env, agent) -> tuple``, or None (the
    action mask read from an observation), gives the legal actions of the
    agent to move in increasing order without building its observation.
    """

    information_set: Callable[[AECEnv, Hashable], Hashable]
    redeal: Callable[[AECEnv, Hashable, random.Random], None]
    copy_memo: Callable[[AECEnv], dict[int, Any]] | None = None
    legal_actions: Callable[[AECEnv, Hashable], tuple] | None = None


class GeneratorStandIn(NamedTuple):
    """What the adapter's copies of a re-dealt game hold in place of its random generator.

    Immutable (a tuple; ``copy.deepcopy`` returns it as it is), so every copy
    shares it. Any public attribute (``shuffle``, ``choice``, ``randint``,
    ``get_state``...) raises, so a copy never draws silently: the live env's
    generator stays unread and the search never keeps a draw of its future.

    Attributes:
        game: the game's name, e.g. ``"texas_holdem_v4"``.
        cause: why its steps should not draw (for the message).

    Raises:
        ValueError: on reading any public attribute, naming the game, the
            attribute and ``cause``.
    """

    game: str
    cause: str

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the copy and pickle protocols look these up
            raise AttributeError(name)
        raise ValueError(
            f"a copy of the game drew from the env's generator: {self.game} (its "
            f"{name!r}), where the adapter's copies hold none. {self.cause}"
        )

    def __deepcopy__(self, memo: dict) -> GeneratorStandIn:
        return self


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


def _rlcard_copy_memo(stand_in: GeneratorStandIn, env: AECEnv) -> dict[int, Any]:
    """The RLCard game's generators as ``stand_in``, its cards and dtype as themselves."""
    rlcard_env = env.env
    game = rlcard_env.game
    memo: dict[int, Any] = {id(env._dtype): env._dtype}  # a numpy dtype: immutable
    for holder in (rlcard_env, game, game.dealer, game.judger, game.round, *game.players):
        generator = holder.__dict__.get("np_random")
        if isinstance(generator, (np.random.RandomState, np.random.Generator)):
            memo[id(generator)] = stand_in
    for card in game.dealer.deck:
        memo[id(card)] = card
    for player in game.players:
        for card in _hand(player):
            memo[id(card)] = card
    for card in _public_cards(game):
        memo[id(card)] = card
    return memo


def _rlcard_legal_actions(env: AECEnv, agent: Hashable) -> tuple:
    """The legal actions of ``agent`` (to move): RLCard's, which PettingZoo's mask marks."""
    return tuple(sorted(int(action) for action in env.next_legal_moves))


_NO_DRAW_AFTER_THE_DEAL = (
    "RLCard's {game} draws only to deal (reset): a world fixes the deck, so its steps never draw."
)
_ODD_CHIP = (
    "RLCard's {game} draws, once the cards are dealt, only to give the odd chip of a "
    "split pot to a random winner (LimitHoldemJudger.split_pot_among_players), which takes "
    "three players or more; the adapter's worlds fix the deck, not that draw, so it cannot "
    "plan a hand where a split pot is odd: plan hold'em with two players (docs: limits)."
)


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


def _rlcard_game(card_key: Callable[[Any], str], game: str, cause: str) -> HiddenGame:
    return HiddenGame(
        _rlcard_information_set(card_key),
        _rlcard_redeal,
        functools.partial(_rlcard_copy_memo, GeneratorStandIn(game, cause.format(game=game))),
        _rlcard_legal_actions,
    )


PLANNED_GAMES: dict[tuple[str, str], HiddenGame] = {
    ("pettingzoo.classic.rlcard_envs.leduc_holdem", "raw_env"): _rlcard_game(
        _leduc_card, "leduc_holdem_v4", _NO_DRAW_AFTER_THE_DEAL
    ),
    ("pettingzoo.classic.rlcard_envs.texas_holdem", "raw_env"): _rlcard_game(
        _holdem_card, "texas_holdem_v4", _ODD_CHIP
    ),
    ("pettingzoo.classic.rlcard_envs.texas_holdem_no_limit", "raw_env"): _rlcard_game(
        _holdem_card, "texas_holdem_no_limit_v6", _ODD_CHIP
    ),
    ("pettingzoo.classic.rps.rps", "raw_env"): HiddenGame(_rps_information_set, _rps_redeal),
}
"""The hidden-information games planned with information-set MCTS (module and class name
of ``env.unwrapped``, exact class: a subclass may hide more), and how."""


def planned_game(env: AECEnv) -> HiddenGame | None:
    """The :class:`HiddenGame` of ``env`` if it is one of :data:`PLANNED_GAMES`, else None."""
    cls = type(env.unwrapped)
    return PLANNED_GAMES.get((cls.__module__, cls.__qualname__))
