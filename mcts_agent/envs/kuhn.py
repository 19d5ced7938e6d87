"""Kuhn poker as a small hidden-information model, as OpenSpiel's ``kuhn_poker`` plays it.

Kuhn 1950, "A simplified two-person poker"; OpenSpiel's ``kuhn_poker``
(``open_spiel/games/kuhn_poker``), checked against ``pyspiel`` in
``tests/test_kuhn.py``:

* Three cards, :data:`JACK` (0) < :data:`QUEEN` (1) < :data:`KING` (2); each
  player antes 1 and is dealt one card; the third stays hidden.
* Player 0 acts first. Actions, OpenSpiel's numbering: :data:`PASS` (0) and
  :data:`BET` (1), both always legal; a bet is 1 chip, at most one bet.
* Sequences: pass-pass (showdown for 1), bet-bet or pass-bet-bet (showdown
  for 2), bet-pass or pass-bet-pass (the passer folds and loses the ante).
  The higher card wins the showdown. Payoffs in chips, as OpenSpiel's
  ``returns()``.

Players are 0 and 1. A state is a :class:`KuhnState` ``(cards, history)``
with both cards fixed from the start, so :meth:`KuhnModel.step` is
deterministic. Rewards follow :class:`~mcts_agent.model.Model`: 0.0 for a move
that does not end the hand, the mover's payoff for the move that does (a fold:
the folder's loss of 1).

The hidden-information protocol (``SPEC.md``, "Hidden information"):
:meth:`KuhnModel.information_set` and :meth:`KuhnModel.sample_world`.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import NamedTuple

from mcts_agent.model import StepResult

__all__ = ["BET", "JACK", "KING", "PASS", "QUEEN", "KuhnModel", "KuhnState"]

JACK, QUEEN, KING = 0, 1, 2
"""The three cards (OpenSpiel's card numbers)."""
PASS, BET = 0, 1
"""OpenSpiel's action numbers."""

_ACTIONS = (PASS, BET)
# history -> (pot each player has put in at the end, who folded or None); only final histories
_ENDS = {
    (PASS, PASS): (1, None),
    (BET, BET): (2, None),
    (PASS, BET, BET): (2, None),
    (BET, PASS): (None, 1),
    (PASS, BET, PASS): (None, 0),
}
_HISTORIES = ((), (PASS,), (BET,), (PASS, BET), *_ENDS)


class KuhnState(NamedTuple):
    """A position of Kuhn poker with the whole deal (hashable, immutable).

    Attributes:
        cards: tuple of 2 distinct ints in 0..2, the cards of players 0 and 1.
        history: tuple of ints, the actions played so far (PASS or BET).
    """

    cards: tuple[int, int]
    history: tuple[int, ...]


_STATES = frozenset(
    KuhnState((mine, theirs), history)
    for mine in (JACK, QUEEN, KING)
    for theirs in (JACK, QUEEN, KING)
    if mine != theirs
    for history in _HISTORIES
)


class KuhnModel:
    """Kuhn poker as OpenSpiel's ``kuhn_poker`` (see the module docstring).

    A :class:`~mcts_agent.model.Model` with the hidden-information methods
    ``information_set`` and ``sample_world``. Players 0 and 1 (player 0
    opens); actions PASS (0) and BET (1); rewards in chips, to the mover,
    nonzero only on the move that ends the hand. Two-player zero-sum.
    """

    num_players = 2

    def _check(self, state: KuhnState) -> None:
        if state not in _STATES:
            raise ValueError(f"not a Kuhn poker state: {state!r}")

    def initial_state(self, rng: random.Random) -> KuhnState:
        """Returns a uniformly random deal (6 equally likely), before any bet.

        Draws ``rng.sample((JACK, QUEEN, KING), 2)``: player 0's card, then player 1's.

        Raises:
            TypeError: if ``rng`` is not a ``random.Random``.
        """
        if not isinstance(rng, random.Random):
            raise TypeError(f"rng must be a random.Random, got {rng!r}")
        first, second = rng.sample((JACK, QUEEN, KING), 2)
        return KuhnState((first, second), ())

    def actions(self, state: KuhnState) -> tuple[int, ...]:
        """Returns ``(PASS, BET)``, or () once the hand is over.

        Raises:
            ValueError: if ``state`` is not a Kuhn poker state.
        """
        self._check(state)
        return () if state.history in _ENDS else _ACTIONS

    def player(self, state: KuhnState) -> int:
        """Returns the player to move: 0 after an even number of actions, else 1.

        Raises:
            ValueError: if ``state`` is not a Kuhn poker state.
        """
        self._check(state)
        return len(state.history) % 2

    def step(self, state: KuhnState, action: int) -> StepResult:
        """Plays ``action`` for the player to move.

        Returns:
            ``StepResult(next_state, reward, terminated)``: ``reward`` is 0.0
            unless the move ends the hand, then the mover's payoff in chips.

        Raises:
            ValueError: if ``state`` is not a Kuhn state, the hand is over or
                ``action`` is neither PASS nor BET.
        """
        if action not in self.actions(state):
            raise ValueError(
                f"action {action!r} is not legal in {state!r}; legal: {list(self.actions(state))}"
            )
        mover = len(state.history) % 2
        next_state = KuhnState(state.cards, state.history + (action,))
        if next_state.history not in _ENDS:
            return StepResult(next_state, 0.0, False)
        return StepResult(next_state, self.payoffs(next_state)[mover], True)

    def payoffs(self, state: KuhnState) -> tuple[float, float]:
        """Returns both players' payoffs in chips at the end (OpenSpiel's ``returns()``).

        Raises:
            ValueError: if ``state`` is not a finished hand.
        """
        self._check(state)
        if state.history not in _ENDS:
            raise ValueError(f"the hand is not over in {state!r}")
        stake, folded = _ENDS[state.history]
        if folded is not None:
            return (-1.0, 1.0) if folded == 0 else (1.0, -1.0)
        won = stake if state.cards[0] > state.cards[1] else -stake
        return (float(won), float(-won))

    def information_set(self, state: KuhnState, player: int) -> Hashable:
        """Returns what ``player`` knows: ``(player to move, player's card, history)``.

        Raises:
            ValueError: if ``player`` is not 0 or 1 or ``state`` not a Kuhn state.
        """
        self._check(state)
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        return (len(state.history) % 2, state.cards[player], state.history)

    def sample_world(self, state: KuhnState, player: int, rng: random.Random) -> KuhnState:
        """Returns a state ``player`` cannot tell from ``state``, drawn uniformly.

        The opponent's card is redrawn uniformly from the two cards ``player``
        does not hold (one ``rng.randrange(2)``); the history is kept.

        Raises:
            ValueError: if ``player`` is not 0 or 1 or ``state`` not a Kuhn state.
            TypeError: if ``rng`` is not a ``random.Random``.
        """
        self._check(state)
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        if not isinstance(rng, random.Random):
            raise TypeError(f"rng must be a random.Random, got {rng!r}")
        mine = state.cards[player]
        theirs = [c for c in (JACK, QUEEN, KING) if c != mine][rng.randrange(2)]
        cards = (mine, theirs) if player == 0 else (theirs, mine)
        return KuhnState(cards, state.history)
