"""Leduc Hold'em as a fast hidden-information model, as PettingZoo's ``leduc_holdem_v4`` plays it.

PettingZoo's ``classic/leduc_holdem_v4`` wraps RLCard 1.2.0's ``leduc-holdem``;
this model follows RLCard's source (``rlcard/games/leducholdem`` and the
limit hold'em ``Round`` it reuses), checked step for step against the env in
``tests/test_leduc.py``:

* A deck of six cards, J, Q and K in two suits. Each player is dealt one
  private card; one public card is dealt after the first betting round.
  Suits never matter, so a card is its rank: :data:`JACK` (0), :data:`QUEEN`
  (1), :data:`KING` (2); PettingZoo's observation shows ranks only too.
* Blinds, not antes: a random player (``first``) posts 1 chip and the other 2;
  ``first`` opens round 1 (facing the big blind, they may call, raise or
  fold). The raise is 2 chips in round 1 and 4 in round 2, at most two raises
  a round. A round ends when both players have called or checked since the
  last raise (RLCard's ``not_raise_num`` reaching 2). Round 2 is opened by the
  player who did not close round 1.
* Actions, PettingZoo's numbering: :data:`CALL` (0), :data:`RAISE` (1),
  :data:`FOLD` (2), :data:`CHECK` (3). Legal ones, in increasing order: call
  when behind, check when level, raise below the cap, fold always (RLCard
  allows folding when a check is possible).
* Showdown after round 2: the player whose card pairs the public card wins,
  else the higher card wins, equal cards split the pot. A fold gives the pot
  to the other player. Payoffs are chips won or lost divided by the big blind
  (2), as PettingZoo's rewards: ``±in_chips / 2``.

Players are 0 and 1 (PettingZoo's ``player_0`` and ``player_1``). A state is
a :class:`LeducState` ``(hands, public, first, history)``: the whole deal is
fixed in the state from the start (the public card too, unseen until round 2),
so :meth:`LeducModel.step` is deterministic. Rewards follow
:class:`~mcts_agent.model.Model`: 0.0 for a move that does not end the hand,
the mover's payoff for the move that does (a fold: the folder's loss).

The hidden-information protocol (``SPEC.md``, "Hidden information"):
:meth:`LeducModel.information_set` and :meth:`LeducModel.sample_world`.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any, NamedTuple

from mcts_agent.model import StepResult

__all__ = [
    "CALL",
    "CHECK",
    "FOLD",
    "JACK",
    "KING",
    "QUEEN",
    "RAISE",
    "LeducModel",
    "LeducState",
]

JACK, QUEEN, KING = 0, 1, 2
"""The three ranks (a card is its rank: suits never matter in Leduc)."""
CALL, RAISE, FOLD, CHECK = 0, 1, 2, 3
"""PettingZoo's (and RLCard's) action numbers."""

_DECK = (JACK, JACK, QUEEN, QUEEN, KING, KING)
_RLCARD_RANKS = {"J": JACK, "Q": QUEEN, "K": KING}
_RLCARD_ACTIONS = ("call", "raise", "fold", "check")
_SMALL_BLIND, _BIG_BLIND = 1, 2
_RAISE_AMOUNTS = (2, 4)  # round 1, round 2
_ALLOWED_RAISES = 2


class LeducState(NamedTuple):
    """A position of Leduc Hold'em with the whole deal (hashable, immutable).

    Attributes:
        hands: tuple of 2 ints, the private card (rank 0..2) of players 0 and 1.
        public: int, the public card (rank 0..2), dealt already but seen by the
            players only from round 2 on.
        first: int, 0 or 1, the player who posted the small blind and opens round 1.
        history: tuple of ints, the actions played so far (CALL, RAISE, FOLD, CHECK).
    """

    hands: tuple[int, int]
    public: int
    first: int
    history: tuple[int, ...]


class _Node(NamedTuple):
    """A betting position: everything but the cards."""

    player: int  # to move (after the end: the next one in RLCard's order)
    actions: tuple[int, ...]  # legal, increasing; () at the end
    round: int  # 0 or 1 (1 also after the end of round 2)
    chips: tuple[int, int]  # chips each player has put in
    folded: int | None  # the player who folded, at the end
    revealed: bool  # the public card is seen (round 2 started)


def _betting_tree(first: int) -> dict[tuple[int, ...], _Node]:
    """Every betting position when ``first`` posts the small blind, as RLCard's Round plays."""
    nodes: dict[tuple[int, ...], _Node] = {}

    def visit(history, player, rnd, chips, raised, raises, not_raised):
        if rnd == 2:
            nodes[history] = _Node(player, (), 1, chips, None, True)
            return
        legal = [CALL, RAISE, FOLD, CHECK]
        if raises >= _ALLOWED_RAISES:
            legal.remove(RAISE)
        if raised[player] < max(raised):
            legal.remove(CHECK)
        if raised[player] == max(raised):
            legal.remove(CALL)
        nodes[history] = _Node(player, tuple(legal), rnd, chips, None, rnd == 1)
        other = 1 - player
        for action in legal:
            new_chips, new_raised = list(chips), list(raised)
            new_raises, new_not_raised = raises, not_raised
            if action == FOLD:
                nodes[history + (action,)] = _Node(other, (), rnd, chips, player, rnd == 1)
                continue
            if action == CALL:
                new_chips[player] += max(raised) - raised[player]
                new_raised[player] = max(raised)
                new_not_raised += 1
            elif action == RAISE:
                top = max(raised) + _RAISE_AMOUNTS[rnd]
                new_chips[player] += top - raised[player]
                new_raised[player] = top
                new_raises += 1
                new_not_raised = 1
            else:  # CHECK
                new_not_raised += 1
            if new_not_raised >= 2:  # the round is over; the next player opens the next one
                visit(history + (action,), other, rnd + 1, tuple(new_chips), (0, 0), 0, 0)
            else:
                visit(
                    history + (action,),
                    other,
                    rnd,
                    tuple(new_chips),
                    tuple(new_raised),
                    new_raises,
                    new_not_raised,
                )

    blinds = [0, 0]
    blinds[first], blinds[1 - first] = _SMALL_BLIND, _BIG_BLIND
    visit((), first, 0, tuple(blinds), tuple(blinds), 0, 0)
    return nodes


_NODES = (_betting_tree(0), _betting_tree(1))
# (hands, public) of every deal: no rank three times
_DEALS = frozenset(
    ((h0, h1), public)
    for h0 in (JACK, QUEEN, KING)
    for h1 in (JACK, QUEEN, KING)
    for public in (JACK, QUEEN, KING)
    if not h0 == h1 == public
)


def _require_deal(state: LeducState) -> None:
    if (state.hands, state.public) not in _DEALS:
        raise ValueError(
            f"not a Leduc deal: hands {state.hands!r}, public {state.public!r} "
            "(ranks 0..2, two cards of each rank)"
        )


def _showdown_payoff(
    hands: tuple[int, int], public: int, chips: tuple[int, int], player: int
) -> float:
    """Returns ``player``'s payoff in big blinds at a showdown (RLCard's LeducholdemJudger)."""
    mine, theirs = hands[player], hands[1 - player]
    if mine == public:
        won = 1.0
    elif theirs == public:
        won = 0.0
    elif mine == theirs:
        won = 0.5
    else:
        won = 1.0 if mine > theirs else 0.0
    return (won * (chips[0] + chips[1]) - chips[player]) / _BIG_BLIND


class LeducModel:
    """Leduc Hold'em as PettingZoo's ``leduc_holdem_v4`` (see the module docstring).

    A :class:`~mcts_agent.model.Model` with the hidden-information methods
    ``information_set`` and ``sample_world``. Players 0 and 1; actions
    PettingZoo's ints; rewards in big blinds, to the mover, nonzero only on the
    move that ends the hand. Two-player zero-sum.
    """

    num_players = 2

    def _node(self, state: LeducState) -> _Node:
        try:
            return _NODES[state.first][state.history]
        except (KeyError, TypeError, AttributeError, IndexError):
            raise ValueError(f"not a Leduc Hold'em state: {state!r}") from None

    def initial_state(self, rng: random.Random) -> LeducState:
        """Returns a uniformly random deal, before any bet.

        Draws, from ``rng`` only: a shuffle of the six cards (player 0's card,
        player 1's card, then the public card, as RLCard deals them from its
        shuffled deck), then ``first``, the small blind, uniformly from {0, 1}.

        Raises:
            TypeError: if ``rng`` is not a ``random.Random``.
        """
        if not isinstance(rng, random.Random):
            raise TypeError(f"rng must be a random.Random, got {rng!r}")
        deck = list(_DECK)
        rng.shuffle(deck)
        return LeducState((deck[0], deck[1]), deck[2], rng.randrange(2), ())

    def actions(self, state: LeducState) -> tuple[int, ...]:
        """Returns the legal actions in increasing order (PettingZoo's mask), () at the end.

        Raises:
            ValueError: if ``state`` is not a Leduc state.
        """
        return self._node(state).actions

    def player(self, state: LeducState) -> int:
        """Returns the player to move, 0 or 1.

        Raises:
            ValueError: if ``state`` is not a Leduc state.
        """
        return self._node(state).player

    def step(self, state: LeducState, action: int) -> StepResult:
        """Plays ``action`` for the player to move.

        Returns:
            ``StepResult(next_state, reward, terminated)``: ``reward`` is 0.0
            unless the move ends the hand, then the mover's payoff in big blinds.

        Raises:
            ValueError: if ``state`` is not a Leduc state or ``action`` is not legal
                (the cards are checked at the showdown only).
        """
        node = self._node(state)
        if action not in node.actions:
            raise ValueError(
                f"action {action!r} is not legal in {state!r}; legal actions: {list(node.actions)}"
            )
        history = state.history + (action,)
        after = _NODES[state.first][history]
        next_state = LeducState(state.hands, state.public, state.first, history)
        if after.actions:
            return StepResult(next_state, 0.0, False)
        mover = node.player
        if after.folded is not None:
            reward = -after.chips[mover] / _BIG_BLIND
        else:
            _require_deal(state)
            reward = _showdown_payoff(state.hands, state.public, after.chips, mover)
        return StepResult(next_state, reward, True)

    def payoffs(self, state: LeducState) -> tuple[float, float]:
        """Returns both players' payoffs in big blinds at the end (PettingZoo's rewards).

        Raises:
            ValueError: if ``state`` is not a finished hand.
        """
        node = self._node(state)
        if node.actions:
            raise ValueError(f"the hand is not over in {state!r}")
        if node.folded is not None:
            loss = node.chips[node.folded] / _BIG_BLIND
            return (-loss, loss) if node.folded == 0 else (loss, -loss)
        _require_deal(state)
        return tuple(_showdown_payoff(state.hands, state.public, node.chips, p) for p in (0, 1))

    def information_set(self, state: LeducState, player: int) -> Hashable:
        """Returns what ``player`` knows in ``state``.

        ``(player to move, player's card, public card or None, first,
        history)``: the public card only once round 2 has started; never the
        opponent's card.

        Raises:
            ValueError: if ``player`` is not 0 or 1 or ``state`` not a Leduc state.
        """
        node = self._node(state)
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        public = state.public if node.revealed else None
        return (node.player, state.hands[player], public, state.first, state.history)

    def sample_world(self, state: LeducState, player: int, rng: random.Random) -> LeducState:
        """Returns a state ``player`` cannot tell from ``state``, drawn uniformly.

        The opponent's card and, before round 2, the public card are redrawn
        from the cards ``player`` has not seen (the deck less their own card
        and any revealed public card), uniformly over the physical cards: a
        rank of which one card is left is half as likely as a rank of which
        two are. The betting history is kept. Draws from ``rng`` only.

        Raises:
            ValueError: if ``player`` is not 0 or 1 or ``state`` not a Leduc state.
            TypeError: if ``rng`` is not a ``random.Random``.
        """
        node = self._node(state)
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        if not isinstance(rng, random.Random):
            raise TypeError(f"rng must be a random.Random, got {rng!r}")
        _require_deal(state)
        unseen = list(_DECK)
        unseen.remove(state.hands[player])
        if node.revealed:
            unseen.remove(state.public)
        theirs = unseen.pop(rng.randrange(len(unseen)))
        public = state.public if node.revealed else unseen[rng.randrange(len(unseen))]
        hands = (state.hands[0], theirs) if player == 0 else (theirs, state.hands[1])
        return LeducState(hands, public, state.first, state.history)

    def state_of(self, env: Any) -> LeducState:
        """Returns the state of a live PettingZoo ``leduc_holdem_v4`` env (not changed).

        Reads the RLCard game inside: both hands, the public card (before
        round 2, the card RLCard's dealer will deal next, the top of its
        deck), the actions played (RLCard's ``action_recorder``) and who
        opened. Checks that the chips, the player to move and the round agree
        with the game's.

        Raises:
            TypeError: if ``env`` is not a PettingZoo Leduc Hold'em env.
            ValueError: if the game and the replayed actions disagree.
        """
        rlcard_env = getattr(getattr(env, "unwrapped", None), "env", None)
        game = getattr(rlcard_env, "game", None)
        if type(game).__name__ != "LeducholdemGame":
            raise TypeError(f"env must be PettingZoo's leduc_holdem_v4, got {env!r}")
        hands = tuple(_RLCARD_RANKS[p.hand.rank] for p in game.players)
        card = game.public_card if game.public_card is not None else game.dealer.deck[-1]
        recorded = rlcard_env.action_recorder
        first = recorded[0][0] if recorded else game.game_pointer
        history = tuple(_RLCARD_ACTIONS.index(action) for _, action in recorded)
        state = LeducState(hands, _RLCARD_RANKS[card.rank], first, history)
        node = self._node(state)
        chips = tuple(p.in_chips for p in game.players)
        if chips != node.chips or (node.actions and node.player != game.game_pointer):
            raise ValueError(
                f"the env's game (chips {chips}, player {game.game_pointer}) disagrees with "
                f"its recorded actions {history} (chips {node.chips}, player {node.player})"
            )
        return state
