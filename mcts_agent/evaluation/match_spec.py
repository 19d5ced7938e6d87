"""What a match plays: the game, the two players, how many games, the seed and the seats."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mcts_agent._validation import require_int
from mcts_agent.evaluation.games import Game, ModelGame, PettingZooGame, require_zero_sum
from mcts_agent.evaluation.players import PerfectPlayer, Player

__all__ = ["MatchSpec"]

Seats = Literal["alternate", "first", "second"]
SEATS = ("alternate", "first", "second")


@dataclass(frozen=True)
class MatchSpec:
    """What to play: ``agent`` against ``opponent`` on ``game``.

    Attributes:
        game: a :class:`ModelGame` or :class:`PettingZooGame`.
        agent: the player whose wins, draws and losses are counted.
        opponent: the other player.
        games_per_seat: int >= 1, games with the agent in each seat it takes.
        seed: master seed; game ``i`` is seeded from ``(seed, i)``.
        seats: ``"alternate"`` (game ``i`` puts the agent in seat ``i % 2``,
            ``2 * games_per_seat`` games), ``"first"`` or ``"second"`` (always
            that seat, ``games_per_seat`` games).
        opening_plies: int >= 0: each game starts with that many uniformly
            random legal moves (:func:`~mcts_agent.evaluation.games.random_opening`),
            then the players move. With ``"alternate"`` seats, games ``2k`` and
            ``2k + 1`` share their opening (seeded by :meth:`opening_seed`), so
            each opening is played once from each side. 0 (the default): none.
            Deterministic players (PUCT with an evaluator, minimax) otherwise play
            the same game again and again.

    Raises:
        TypeError, ValueError: if a field has the wrong type or value, or a
            player cannot play the game: perfect play on a game too big to
            solve, minimax or perfect play on a game not planned as two-player
            zero-sum (:func:`~mcts_agent.evaluation.games.require_zero_sum`),
            MCTS options the game's planner refuses, an RLCard agent on a game
            it does not play (:meth:`~mcts_agent.evaluation.RLCardPlayer.check`).
    """

    game: Game
    agent: Player
    opponent: Player
    games_per_seat: int = 100
    seed: int = 0
    seats: Seats = "alternate"
    opening_plies: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.game, ModelGame | PettingZooGame):
            raise TypeError(
                f"game must be a ModelGame or PettingZooGame (see make_game), got {self.game!r}"
            )
        for role in ("agent", "opponent"):
            player = getattr(self, role)
            if not callable(player):
                raise TypeError(f"{role} must be a player(model, seed) -> policy, got {player!r}")
            if isinstance(player, PerfectPlayer) and not self.game.solvable:
                raise ValueError(
                    f"perfect play needs a game small enough to solve outright; {self.game.name} "
                    "is not: use a MinimaxPlayer (opponent 'minimax') instead"
                )
            require_zero_sum(self.game, player)
            check = getattr(player, "check", None)
            if callable(check) and callable(getattr(player, "env_policy", None)):
                # a player of the env loop (RLCardPlayer): the env it would play
                check(getattr(self.game, "env_id", self.game.name))
            elif callable(check):  # e.g. MCTSPlayer: its options against the game's planner
                check(self.game.model if isinstance(self.game, ModelGame) else None)
        require_int("games_per_seat", self.games_per_seat, 1)
        require_int("seed", self.seed, 0)
        require_int("opening_plies", self.opening_plies, 0)
        if self.seats not in SEATS:
            raise ValueError(f"seats must be one of {', '.join(SEATS)}; got {self.seats!r}")

    @property
    def num_games(self) -> int:
        """Number of games the match plays."""
        return self.games_per_seat * (2 if self.seats == "alternate" else 1)

    def agent_seat(self, index: int) -> int:
        """Returns the agent's seat (0 or 1) in game ``index``."""
        if self.seats == "alternate":
            return index % 2
        return 0 if self.seats == "first" else 1

    def opening_seed(self, index: int) -> int:
        """Returns the seed of game ``index``'s random opening (see ``opening_plies``).

        The env's seed of game ``index`` (:func:`~mcts_agent.evaluation.runner.game_seeds`),
        or with ``"alternate"`` seats that of game ``index - index % 2``: a pair's shared one.
        """
        from mcts_agent.evaluation.runner import game_seeds

        first = index - index % 2 if self.seats == "alternate" else index
        return game_seeds(self.seed, first)[2]
