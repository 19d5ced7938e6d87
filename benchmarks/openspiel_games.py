"""A small model of an OpenSpiel game for our search (benchmarks only: needs ``pyspiel``).

Issue 32: OpenSpiel's exploitability of our information-set MCTS
(``benchmarks/ismcts_exploitability.py``) needs our search to plan in
OpenSpiel's own games (``kuhn_poker``, ``leduc_poker``). :class:`OpenSpielModel`
is the model protocol of ``mcts_agent/model.py`` with the hidden-information
methods of ``SPEC.md``, "Hidden information", over a ``pyspiel`` game:

* A state is an :class:`OpenSpielWorld`: a ``pyspiel.State`` at a decision
  node (or terminal), never changed, with the uniform numbers in [0, 1) that
  fix its future chance outcomes ("the world fixes the deck"): the ``k``-th
  chance node met from here draws the outcome whose cumulative probability
  first exceeds the ``k``-th number (OpenSpiel's ``SampleAction``), so
  :meth:`OpenSpielModel.step` is deterministic, and every line of play in one
  world meets the same draws (Leduc's public card is fixed once the private
  cards are).
* ``step`` applies the action, then the world's chance outcomes up to the
  next decision node. Rewards as :class:`~mcts_agent.model.Model` wants them
  in a two-player zero-sum game: 0.0 until the end, then the mover's return
  (``returns()[mover]``, in OpenSpiel's units: chips); the search counts the
  other player's rewards negatively.
* ``information_set(state, player)`` is OpenSpiel's
  ``information_state_string(player)``; ``sample_world(state, player, rng)``
  is ``resample_from_infostate(player, rng.random)`` (uniform over the deals
  consistent with ``player``'s information, as OpenSpiel's ISMCTS samples
  its worlds) with fresh numbers for the chance to come.

Only sequential, two-player, zero-sum games with terminal rewards that
implement ``resample_from_infostate`` are modelled (the rest is refused).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pyspiel

from mcts_agent.model import StepResult

__all__ = ["OpenSpielModel", "OpenSpielWorld", "chance_outcome"]


def chance_outcome(outcomes: Sequence[tuple[int, float]], uniform: float) -> int:
    """The outcome of a chance node for a uniform number, as OpenSpiel's ``SampleAction``.

    Args:
        outcomes: ``(outcome, probability)`` pairs, as ``state.chance_outcomes()``.
        uniform: float in [0, 1).

    Returns:
        The first outcome whose cumulative probability exceeds ``uniform`` (the
        last one if rounding leaves the sum below it).
    """
    total = 0.0
    for outcome, probability in outcomes:
        total += probability
        if uniform < total:
            return outcome
    return outcomes[-1][0]


class OpenSpielWorld:
    """A ``pyspiel`` state with its future chance fixed (a world of :class:`OpenSpielModel`).

    Immutable by convention: the model never changes ``state`` (it clones it).
    Equal when the histories (OpenSpiel's action history, chance included)
    and the numbers left for the chance to come are equal.

    Attributes:
        state: ``pyspiel.State``, at a decision node or terminal.
        chance: tuple of floats in [0, 1), one per chance node still to come,
            consumed in order.
    """

    __slots__ = ("chance", "state")

    def __init__(self, state: pyspiel.State, chance: tuple[float, ...]) -> None:
        self.state = state
        self.chance = chance

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OpenSpielWorld):
            return NotImplemented
        return self.state.history() == other.state.history() and self.chance == other.chance

    def __hash__(self) -> int:
        return hash((tuple(self.state.history()), self.chance))

    def __deepcopy__(self, memo: dict) -> OpenSpielWorld:
        return OpenSpielWorld(self.state.clone(), self.chance)

    def __repr__(self) -> str:
        return f"OpenSpielWorld(history={self.state.history()}, chance={self.chance})"


class OpenSpielModel:
    """An OpenSpiel game as a hidden-information model for ``MCTS`` (module docstring).

    Players are OpenSpiel's (0 and 1); actions OpenSpiel's action numbers, in
    ``legal_actions()`` order; rewards in OpenSpiel's units (chips in
    ``kuhn_poker`` and ``leduc_poker``).

    Args:
        game: a loaded ``pyspiel.Game`` (``pyspiel.load_game("leduc_poker")``).

    Raises:
        TypeError: if ``game`` is not a ``pyspiel.Game``.
        ValueError: if the game is not sequential, two-player, zero-sum, with
            rewards only at the end.
    """

    def __init__(self, game: pyspiel.Game) -> None:
        if not isinstance(game, pyspiel.Game):
            raise TypeError(f"game must be a pyspiel.Game (pyspiel.load_game(...)), got {game!r}")
        kind = game.get_type()
        wanted = {
            "dynamics": (kind.dynamics, pyspiel.GameType.Dynamics.SEQUENTIAL),
            "utility": (kind.utility, pyspiel.GameType.Utility.ZERO_SUM),
            "reward_model": (kind.reward_model, pyspiel.GameType.RewardModel.TERMINAL),
            "num_players": (game.num_players(), 2),
        }
        wrong = [
            f"{name} {got} (wanted {want})" for name, (got, want) in wanted.items() if got != want
        ]
        if wrong:
            raise ValueError(
                f"OpenSpielModel models sequential two-player zero-sum games with terminal "
                f"rewards; {kind.short_name} has " + ", ".join(wrong)
            )
        self.game = game
        self.num_players = 2
        self.max_chance_nodes = game.max_chance_nodes_in_history()

    def world_of(self, state: pyspiel.State, rng: random.Random) -> OpenSpielWorld:
        """The world of a ``pyspiel`` decision state, its chance to come drawn from ``rng``.

        Args:
            state: a ``pyspiel.State`` of this game at a decision node or
                terminal (not changed: the world holds a clone).
            rng: the generator of the numbers fixing the chance to come.

        Raises:
            ValueError: if ``state`` is a chance node.
        """
        if state.is_chance_node():
            raise ValueError(f"a world starts at a decision node, not at chance: {state}")
        seen = sum(1 for move in state.full_history() if move.player == pyspiel.PlayerId.CHANCE)
        chance = tuple(rng.random() for _ in range(self.max_chance_nodes - seen))
        return OpenSpielWorld(state.clone(), chance)

    def initial_state(self, rng: random.Random) -> OpenSpielWorld:
        """A random deal: the initial state, its chance drawn from ``rng``, to the first decision.

        Draws ``max_chance_nodes_in_history()`` numbers, then plays the chance
        nodes with them (:func:`chance_outcome`).
        """
        world = OpenSpielWorld(
            self.game.new_initial_state(),
            tuple(rng.random() for _ in range(self.max_chance_nodes)),
        )
        return self._resolve_chance(world.state, world.chance)

    @staticmethod
    def _resolve_chance(state: pyspiel.State, chance: tuple[float, ...]) -> OpenSpielWorld:
        """Plays ``state``'s chance nodes (changing it) with ``chance``'s numbers; the world."""
        used = 0
        while state.is_chance_node():
            state.apply_action(chance_outcome(state.chance_outcomes(), chance[used]))
            used += 1
        return OpenSpielWorld(state, chance[used:])

    def actions(self, state: OpenSpielWorld) -> tuple[int, ...]:
        """OpenSpiel's legal actions (``legal_actions()``); () at the end."""
        return tuple(state.state.legal_actions())

    def player(self, state: OpenSpielWorld) -> int:
        """The player to move (``current_player()``; OpenSpiel's TERMINAL, -4, at the end)."""
        return state.state.current_player()

    def step(self, state: OpenSpielWorld, action: int) -> StepResult:
        """Plays ``action``, then the world's chance outcomes up to the next decision.

        Returns:
            ``StepResult(next_world, reward, terminated)``: ``reward`` 0.0 until
            the end, then ``returns()[mover]``.

        Raises:
            ValueError: if ``action`` is not legal in ``state``.
        """
        position = state.state
        legal = position.legal_actions()
        if action not in legal:
            raise ValueError(f"action {action!r} is not legal in {state!r}; legal: {legal}")
        mover = position.current_player()
        position = position.clone()
        position.apply_action(action)
        world = self._resolve_chance(position, state.chance)
        if world.state.is_terminal():
            return StepResult(world, world.state.returns()[mover], True)
        return StepResult(world, 0.0, False)

    def information_set(self, state: OpenSpielWorld, player: int) -> str:
        """OpenSpiel's ``information_state_string(player)``: what ``player`` knows.

        Raises:
            ValueError: if ``player`` is not 0 or 1.
        """
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        return state.state.information_state_string(player)

    def sample_world(
        self, state: OpenSpielWorld, player: int, rng: random.Random
    ) -> OpenSpielWorld:
        """A world ``player`` cannot tell from ``state``: uniform over the consistent deals.

        OpenSpiel's ``resample_from_infostate(player, rng.random)`` (the game's
        own resampler; Kuhn and Leduc redraw the other player's card uniformly
        among the cards ``player`` has not seen), then fresh numbers from
        ``rng`` for the chance to come.

        Raises:
            ValueError: if ``player`` is not 0 or 1.
            TypeError: if ``rng`` is not a ``random.Random``.
        """
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        if not isinstance(rng, random.Random):
            raise TypeError(f"rng must be a random.Random, got {rng!r}")
        world = state.state.resample_from_infostate(player, rng.random)
        return OpenSpielWorld(world, tuple(rng.random() for _ in state.chance))
