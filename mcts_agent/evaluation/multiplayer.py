"""Games of n players with any rewards: every player's results, seats rotated.

The arena of this package (:class:`~mcts_agent.evaluation.MatchSpec`,
:func:`~mcts_agent.evaluation.sweep`, tournaments) plays two-player matches
scored win / draw / loss. A game of three or more players, or a cooperative
one, is scored here instead: ``n`` players (factories as the arena's,
:mod:`mcts_agent.evaluation.players`) play ``games`` games, game ``g`` seating
player ``(k + g) mod n`` at seat ``k`` (so every player plays every seat as
often, given a multiple of ``n`` games), and each player's results are its
mean return, its wins (games where its return is the highest alone) and its
shared wins (the highest, tied with others: in a cooperative game that won,
every player).

Games (:data:`MULTIPLAYER_GAMES`, :func:`make_multiplayer_game`):

* ``three_in_a_row``: :class:`~mcts_agent.envs.three_in_a_row.ThreeInARowModel`,
  3 players on the 4 x 4 board, played on the model;
* ``shared_total``: :mod:`mcts_agent.envs.shared_total`, the cooperative
  PettingZoo AEC game, played in its env loop (an MCTS player acts through
  :class:`~mcts_agent.MCTSAgent`, a random one from the action mask).

``mcts-agent multiplayer --game three_in_a_row --agents mcts:iterations=300
mcts:iterations=30 random --games 6`` prints the table (:mod:`mcts_agent.cli`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from mcts_agent.evaluation.games import PettingZooGame
from mcts_agent.evaluation.players import Player
from mcts_agent.maxn import checked_reward_players, reward_vector

__all__ = [
    "MULTIPLAYER_GAMES",
    "ModelMultiplayerGame",
    "MultiplayerResult",
    "PettingZooMultiplayerGame",
    "PlayerResult",
    "make_multiplayer_game",
    "play_multiplayer",
]

MULTIPLAYER_GAMES = ("three_in_a_row", "shared_total")
"""The games :func:`make_multiplayer_game` knows by name."""


@dataclass(frozen=True)
class ModelMultiplayerGame:
    """Games played on a model reporting every player's reward, from one initial state.

    Attributes:
        model: a model with ``reward_players`` (:mod:`mcts_agent.maxn`); seat
            ``k`` is ``model.reward_players[k]``.
        initial_state: the state every game starts from.
        name: the game's name in results.
    """

    model: Any
    initial_state: Any
    name: str

    @property
    def seats(self) -> tuple:
        """The seats: the model's players."""
        return checked_reward_players(self.model)

    def play(self, policies: Sequence[Callable[[Any], Any]]) -> tuple[float, ...]:
        """Plays one game, seat ``k`` by ``policies[k]``; returns every seat's return.

        Raises:
            ValueError: if a policy plays an illegal action.
        """
        model = self.model
        seats = self.seats
        seat_of = {player: k for k, player in enumerate(seats)}
        totals = [0.0] * len(seats)
        state = self.initial_state
        actions = tuple(model.actions(state))
        while actions:
            action = policies[seat_of[model.player(state)]](state)
            if action not in actions:
                raise ValueError(
                    f"the player of seat {model.player(state)!r} played {action!r}, which is not "
                    f"one of the legal actions {list(actions)!r}"
                )
            next_state, reward, terminated = model.step(state, action)
            for k, r in enumerate(reward_vector(reward, seats, state, action)):
                totals[k] += r
            state = next_state
            actions = () if terminated else tuple(model.actions(state))
        return tuple(totals)

    def policy(self, player: Player, seed: int) -> Callable[[Any], Any]:
        """``player``'s policy on the model, seeded with ``seed``."""
        return player(self.model, seed)


@dataclass(frozen=True)
class PettingZooMultiplayerGame:
    """Games played in a PettingZoo AEC env loop; seat ``k`` is ``possible_agents[k]``.

    A seat's return is the sum of the rewards ``last()`` gives its agent.

    Attributes:
        make_env: ``() -> AECEnv``, a new env of the game.
        name: the game's name in results.
    """

    make_env: Callable[[], Any]
    name: str

    @property
    def seats(self) -> tuple:
        """The seats: the env's ``possible_agents``."""
        return tuple(self.make_env().possible_agents)

    def play(self, policies: Sequence[Callable[[Any], Any]]) -> tuple[float, ...]:
        """Plays one game (reset with seed 0), seat ``k`` by ``policies[k](env)``."""
        env = self.make_env()
        env.reset(seed=0)
        seat_of = {agent: k for k, agent in enumerate(env.possible_agents)}
        totals = [0.0] * len(seat_of)
        for agent in env.agent_iter():
            _, reward, terminated, truncated, _ = env.last()
            totals[seat_of[agent]] += float(reward)
            env.step(None if terminated or truncated else policies[seat_of[agent]](env))
        env.close()
        return tuple(totals)

    def policy(self, player: Player, seed: int) -> Callable[[Any], Any]:
        """``player``'s ``policy(env) -> action``, made as the arena's PettingZoo games make it.

        (:meth:`PettingZooGame.env_policy <mcts_agent.evaluation.PettingZooGame.env_policy>`,
        at the first move: a model-based player plans on a ``PettingZooModel`` of the env.)
        """
        arena = PettingZooGame(env_id=self.name)
        made: list[Callable[[Any], Any]] = []

        def move(env: Any) -> Any:
            if not made:
                made.append(arena.env_policy(player, seed, env))
            return made[0](env)

        return move


def make_multiplayer_game(name: str) -> ModelMultiplayerGame | PettingZooMultiplayerGame:
    """Returns the game of :data:`MULTIPLAYER_GAMES` called ``name``.

    Raises:
        ValueError: if ``name`` is not one of them.
    """
    if name == "three_in_a_row":
        from mcts_agent.envs.three_in_a_row import ThreeInARowModel

        model = ThreeInARowModel()
        return ModelMultiplayerGame(model, model.initial_state, name)
    if name == "shared_total":
        from mcts_agent.envs import shared_total

        return PettingZooMultiplayerGame(shared_total.env, name)
    raise ValueError(f"unknown multiplayer game {name!r}; known: {', '.join(MULTIPLAYER_GAMES)}")


class PlayerResult(NamedTuple):
    """One player's results over the games.

    Attributes:
        name: the player's name (its spec).
        games: games played.
        mean_return: its mean return per game.
        wins: games where its return was the highest, alone.
        shared_wins: games where its return was the highest, tied with another's.
    """

    name: str
    games: int
    mean_return: float
    wins: int
    shared_wins: int


@dataclass(frozen=True)
class MultiplayerResult:
    """What came of :func:`play_multiplayer`.

    Attributes:
        game: the game's name.
        names: the players' names, by player.
        seats: the game's seats (player ids or agent ids).
        seatings: per game, the player at each seat (``seatings[g][k]`` is the
            index of the player of seat ``k`` in game ``g``).
        returns: per game, every player's return, by player (not seat).
    """

    game: str
    names: tuple[str, ...]
    seats: tuple
    seatings: tuple[tuple[int, ...], ...]
    returns: tuple[tuple[float, ...], ...]

    def results(self) -> list[PlayerResult]:
        """Every player's :class:`PlayerResult`, in the order of ``names``."""
        rows = []
        for i, name in enumerate(self.names):
            wins = shared = 0
            for game in self.returns:
                top = max(game)
                if game[i] == top:
                    if sum(r == top for r in game) == 1:
                        wins += 1
                    else:
                        shared += 1
            total = sum(game[i] for game in self.returns)
            rows.append(
                PlayerResult(name, len(self.returns), total / len(self.returns), wins, shared)
            )
        return rows

    def table(self) -> str:
        """The results as a text table, one row per player."""
        head = f"{self.game}: {len(self.returns)} games, seats {list(self.seats)} rotated"
        width = max(len("player"), *(len(name) for name in self.names))
        lines = [head, f"  {'player':<{width}}  mean return  wins  shared wins"]
        for row in self.results():
            lines.append(
                f"  {row.name:<{width}}  {row.mean_return:+11.3f}  {row.wins:>4}  "
                f"{row.shared_wins:>11}"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict: the games and every player's results."""
        return {
            "game": self.game,
            "seats": [str(seat) for seat in self.seats],
            "games": [
                {"seating": list(seating), "returns": list(returns)}
                for seating, returns in zip(self.seatings, self.returns, strict=True)
            ],
            "players": [row._asdict() for row in self.results()],
        }


def play_multiplayer(
    game: ModelMultiplayerGame | PettingZooMultiplayerGame,
    players: Sequence[Player],
    names: Sequence[str],
    games: int,
    seed: int = 0,
) -> MultiplayerResult:
    """Plays ``games`` games of ``game``, seats rotated (module docstring).

    Args:
        game: the game.
        players: one factory per seat (``len(game.seats)`` of them).
        names: their names (e.g. their specs), one per player.
        games: int >= 1.
        seed: player ``i`` of game ``g`` is seeded ``seed + 1000 * g + i``.

    Raises:
        ValueError: if the numbers of players, names and seats differ, or ``games`` < 1.
    """
    seats = game.seats
    n = len(seats)
    if len(players) != n or len(names) != n:
        raise ValueError(
            f"{game.name} has {n} seats {list(seats)}; got {len(players)} players and "
            f"{len(names)} names"
        )
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    seatings = []
    results = []
    for g in range(games):
        seating = tuple((k + g) % n for k in range(n))  # seat k: player seating[k]
        policies = [game.policy(players[i], seed + 1000 * g + i) for i in seating]
        by_seat = game.play(policies)
        by_player = [0.0] * n
        for k, i in enumerate(seating):
            by_player[i] = by_seat[k]
        seatings.append(seating)
        results.append(tuple(by_player))
    return MultiplayerResult(game.name, tuple(names), seats, tuple(seatings), tuple(results))
