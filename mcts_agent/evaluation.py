"""The arena: matches between two players, sweeps, and the backends that run them.

A *player* is a picklable factory ``player(model, seed) -> policy`` that makes a
fresh, seeded policy (``policy(state) -> action``, see
:mod:`mcts_agent.policies`) for every game: :class:`RandomPlayer`,
:class:`PerfectPlayer`, :class:`MinimaxPlayer`, :class:`MCTSPlayer`, or any
function of that shape. A *game* says where the games are played: on a model
from an initial state (:class:`ModelGame`), or in a real PettingZoo AEC env loop
(:class:`PettingZooGame`); :func:`make_game` builds the named ones
(:data:`GAME_NAMES`).

:func:`play_match` plays one agent against one opponent, alternating seats (or
in one seat); :func:`sweep` plays an MCTS agent at several iteration counts,
exploration constants and seeds against several opponents, and returns one
table. Game ``i`` of a match draws the seeds of both players and of the env from
``numpy.random.SeedSequence(seed, spawn_key=(i,))``, so a run's results depend
on the master seed only, not on the backend, the number of workers or the
order in which the games finish. Games run in local processes
(``backend="process"``, one per core by default) or on a Ray cluster
(``backend="ray"``, the optional extra ``mcts-agent[ray]``).

Example::

    game = make_game("tictactoe")
    result = sweep(game, [RandomPlayer(), PerfectPlayer()], iterations=[10, 100], games_per_seat=50)
    print(result.table())
    result.save_json("results.json")
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from mcts_agent._validation import require_int
from mcts_agent.minimax import Evaluation, ExhaustiveMinimax
from mcts_agent.model import Model
from mcts_agent.policies import MinimaxPolicy, PerfectPolicy, Policy, RandomPolicy
from mcts_agent.search import MCTS

__all__ = [
    "BACKENDS",
    "DEFAULT_EXPLORATION",
    "GAME_NAMES",
    "Game",
    "GameRecord",
    "MCTSPlayer",
    "MatchResult",
    "MatchSpec",
    "MinimaxPlayer",
    "ModelGame",
    "PerfectPlayer",
    "PettingZooGame",
    "Player",
    "RandomPlayer",
    "SweepResult",
    "Tally",
    "game_seeds",
    "make_game",
    "play_match",
    "run_matches",
    "sweep",
]

DEFAULT_EXPLORATION = 2 * math.sqrt(2)
"""c for games whose returns lie in [-1, 1] (UCB1's sqrt(2) scaled by the range 2)."""

Player = Callable[[Model, int], Policy]
"""``player(model, seed) -> policy``: makes a fresh seeded policy for one game."""

Seats = Literal["alternate", "first", "second"]
Backend = Literal["process", "ray"]
BACKENDS = ("process", "ray")
"""The backends :func:`run_matches` accepts."""
SEATS = ("alternate", "first", "second")

# ------------------------------------------------------------------ players


def _label(player: Any) -> str:
    label = getattr(player, "label", None)
    if isinstance(label, str):
        return label
    return getattr(player, "__name__", None) or repr(player)


def _describe(player: Any) -> dict[str, Any]:
    describe = getattr(player, "describe", None)
    return describe() if callable(describe) else {"kind": _label(player)}


@dataclass(frozen=True)
class RandomPlayer:
    """Makes :class:`~mcts_agent.policies.RandomPolicy`: uniformly random legal moves."""

    label = "random"

    def __call__(self, model: Model, seed: int) -> Policy:
        """Returns a random policy on ``model`` seeded with ``seed``."""
        return RandomPolicy(model, seed=seed)

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        return {"kind": "random"}


_SOLVERS: dict[int, tuple[Model, ExhaustiveMinimax]] = {}


def _shared_solver(model: Model) -> ExhaustiveMinimax:
    """Returns one memoised solver per model object in this process (last four kept)."""
    entry = _SOLVERS.get(id(model))
    if entry is None or entry[0] is not model:
        if len(_SOLVERS) >= 4:
            _SOLVERS.pop(next(iter(_SOLVERS)))
        entry = (model, ExhaustiveMinimax(model))
        _SOLVERS[id(model)] = entry
    return entry[1]


@dataclass(frozen=True)
class PerfectPlayer:
    """Makes :class:`~mcts_agent.policies.PerfectPolicy`: exhaustive minimax play.

    One of the minimax-optimal moves, chosen at random with the game's seed.
    The solver's memo is shared by the games one process plays on one model.
    Only for games small enough to solve outright (tic-tac-toe).
    """

    label = "perfect"

    def __call__(self, model: Model, seed: int) -> Policy:
        """Returns a perfect policy on ``model`` breaking ties with ``seed``."""
        return PerfectPolicy(model, seed=seed, solver=_shared_solver(model))

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        return {"kind": "perfect"}


@dataclass(frozen=True)
class MinimaxPlayer:
    """Makes :class:`~mcts_agent.policies.MinimaxPolicy`: depth-limited alpha-beta.

    Attributes:
        depth: int >= 1, plies searched ahead; None to search to the end.
        evaluation: optional picklable ``state -> float`` for positions at the
            depth limit (0.0 without one).

    Raises:
        TypeError, ValueError: if ``depth`` is not an int >= 1 or None.
    """

    depth: int | None = 4
    evaluation: Evaluation | None = None

    def __post_init__(self) -> None:
        if self.depth is not None:
            require_int("depth", self.depth, 1)
        if self.evaluation is not None and not callable(self.evaluation):
            raise TypeError(
                f"evaluation must be a callable state -> float, got {self.evaluation!r}"
            )

    @property
    def label(self) -> str:
        """Short name for tables, e.g. ``minimax(depth=4)``."""
        return f"minimax(depth={'full' if self.depth is None else self.depth})"

    def __call__(self, model: Model, seed: int) -> Policy:
        """Returns an alpha-beta policy on ``model`` breaking ties with ``seed``."""
        return MinimaxPolicy(model, depth=self.depth, evaluation=self.evaluation, seed=seed)

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        evaluation = None if self.evaluation is None else _label(self.evaluation)
        return {"kind": "minimax", "depth": self.depth, "evaluation": evaluation}


@dataclass(frozen=True)
class MCTSPlayer:
    """Makes an :class:`~mcts_agent.search.MCTS` planner (itself a policy).

    Attributes:
        iterations: int >= 1, iterations per move.
        exploration: c >= 0 of UCB1 (default 2*sqrt(2), for returns in [-1, 1]).
        rollout_limit: int >= 0, most moves in one rollout.

    Raises:
        TypeError, ValueError: if a setting has the wrong type or range.
    """

    iterations: int
    exploration: float = DEFAULT_EXPLORATION
    rollout_limit: int = 1000

    def __post_init__(self) -> None:
        require_int("iterations", self.iterations, 1)
        require_int("rollout_limit", self.rollout_limit, 0)
        if isinstance(self.exploration, bool) or not isinstance(
            self.exploration, int | float | np.floating
        ):
            raise TypeError(f"exploration must be a number >= 0, got {self.exploration!r}")
        if not (math.isfinite(self.exploration) and self.exploration >= 0):
            raise ValueError(f"exploration must be a finite number >= 0, got {self.exploration}")

    @property
    def label(self) -> str:
        """Short name for tables, e.g. ``mcts(iterations=100, c=2.83)``."""
        return f"mcts(iterations={self.iterations}, c={self.exploration:.3g})"

    def __call__(self, model: Model, seed: int) -> Policy:
        """Returns a planner on ``model`` whose rollouts are seeded with ``seed``."""
        return MCTS(
            model,
            self.iterations,
            exploration=self.exploration,
            rollout_limit=self.rollout_limit,
            seed=seed,
        )

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict."""
        return {
            "kind": "mcts",
            "iterations": self.iterations,
            "exploration": self.exploration,
            "rollout_limit": self.rollout_limit,
        }


# -------------------------------------------------------------------- games


def _seat_returns(returns: dict[Hashable, float], seat_of: dict[Hashable, int]) -> tuple:
    totals = [0.0, 0.0]
    for who, total in returns.items():
        totals[seat_of[who]] += total
    return tuple(totals)


@dataclass(frozen=True)
class ModelGame:
    """Two-player games played on a model from one initial state.

    Seat 0 is the player to move in ``initial_state``; seat 1 is the other
    player. Each move's reward goes to its mover's total; the player with the
    higher total wins. The model and the initial state must be picklable to
    run on more than one process.

    Attributes:
        model: a two-player model (``actions``, ``step``, ``player``) whose
            games end.
        initial_state: the state every game starts from.
        name: the game's name in results and tables.
        seat_names: names of seat 0 and seat 1 (e.g. ``("X", "O")``).
        solvable: True if :class:`PerfectPlayer` may play it (small enough to
            solve exhaustively).
    """

    model: Model
    initial_state: Any
    name: str
    seat_names: tuple[str, str] = ("first", "second")
    solvable: bool = False

    def play(
        self, players: tuple[Player, Player], seeds: tuple[int, int], game_seed: int
    ) -> tuple[tuple, tuple[float, float]]:
        """Plays one game; seat ``k`` is played by ``players[k](model, seeds[k])``.

        Args:
            players: the factories of seat 0 and seat 1.
            seeds: the seeds of their policies.
            game_seed: unused (the model's games start from one state).

        Returns:
            ``(moves, (return of seat 0, return of seat 1))``.

        Raises:
            ValueError: if a policy plays an illegal action or a third player
                appears.
        """
        model = self.model
        policies = (players[0](model, seeds[0]), players[1](model, seeds[1]))
        state = self.initial_state
        actions = tuple(model.actions(state))
        if not actions:
            raise ValueError(f"the initial state {state!r} of {self.name} has no legal actions")
        seat_of: dict[Hashable, int] = {model.player(state): 0}
        returns: dict[Hashable, float] = {}
        moves = []
        while actions:
            mover = model.player(state)
            if mover not in seat_of:
                if len(seat_of) == 2:
                    raise ValueError(
                        f"{self.name} has a third player {mover!r}; the arena plays two-player "
                        f"games (players so far: {list(seat_of)})"
                    )
                seat_of[mover] = 1
            action = policies[seat_of[mover]](state)
            if action not in actions:
                raise ValueError(
                    f"the {self.seat_names[seat_of[mover]]} player played {action!r}, which is "
                    f"not one of the legal actions {list(actions)!r}"
                )
            state, reward, terminated = model.step(state, action)
            returns[mover] = returns.get(mover, 0.0) + float(reward)
            moves.append(action)
            actions = () if terminated else tuple(model.actions(state))
        return tuple(moves), _seat_returns(returns, seat_of)


@dataclass(frozen=True)
class PettingZooGame:
    """Games played in a real PettingZoo AEC env loop.

    Each game makes the env with ``pettingzoo.make("aec", env_id)``, calls
    ``reset(seed=game_seed)`` and runs ``agent_iter()`` / ``last()`` /
    ``step()``; seat ``k`` is ``env.possible_agents[k]``, and a seat's return is
    the sum of the rewards ``last()`` gives its agent. An :class:`MCTSPlayer`
    acts through :class:`mcts_agent.MCTSAgent` (``agent.act(env)``), a
    :class:`RandomPlayer` picks from the observation's ``action_mask`` with its
    own seeded generator, and any other player (perfect, minimax, a user's
    factory) plays on ``model`` from ``state_of(env)``, its action converted
    by ``to_env_action``.

    Attributes:
        env_id: a PettingZoo registry id such as ``"classic/tictactoe-v3"``.
        model: the model that model-based players plan on.
        state_of: picklable ``env -> state of model`` (reads, never changes, the env).
        to_env_action: picklable ``model action -> env action``.
        seat_names: names of seat 0 and seat 1.
        solvable: True if :class:`PerfectPlayer` may play it.
    """

    env_id: str
    model: Model
    state_of: Callable[[Any], Any]
    to_env_action: Callable[[Any], Any]
    seat_names: tuple[str, str] = ("first", "second")
    solvable: bool = False

    @property
    def name(self) -> str:
        """The env id (the game's name in results and tables)."""
        return self.env_id

    def make_env(self) -> Any:
        """Returns a new AEC env of ``env_id``."""
        import pettingzoo

        return pettingzoo.make("aec", self.env_id)

    def env_policy(self, player: Player, seed: int) -> Callable[[Any], Any]:
        """Returns ``policy(env) -> env action`` for ``player`` seeded with ``seed``."""
        if isinstance(player, MCTSPlayer):
            from mcts_agent.agent import MCTSAgent

            agent = MCTSAgent(
                player.iterations,
                exploration=player.exploration,
                rollout_limit=player.rollout_limit,
                seed=seed,
            )
            return agent.act
        if isinstance(player, RandomPlayer):
            rng = np.random.default_rng(seed)

            def random_move(env: Any) -> Any:
                mask = env.observe(env.agent_selection)["action_mask"]
                return int(rng.choice(np.flatnonzero(mask)))

            return random_move
        policy = player(self.model, seed)
        state_of = self.state_of
        to_env_action = self.to_env_action

        def model_move(env: Any) -> Any:
            return to_env_action(policy(state_of(env)))

        return model_move

    def play(
        self, players: tuple[Player, Player], seeds: tuple[int, int], game_seed: int
    ) -> tuple[tuple, tuple[float, float]]:
        """Plays one game in the env loop (see the class docstring).

        Returns:
            ``(env actions played, (return of seat 0, return of seat 1))``.

        Raises:
            ValueError: if a policy plays an action the env's mask forbids.
        """
        env = self.make_env()
        try:
            env.reset(seed=game_seed)
            seat_of = {agent: k for k, agent in enumerate(env.possible_agents)}
            policies = {
                agent: self.env_policy(players[k], seeds[k]) for agent, k in seat_of.items()
            }
            returns: dict[Hashable, float] = {}
            moves = []
            for agent in env.agent_iter():
                observation, reward, terminated, truncated, _ = env.last()
                returns[agent] = returns.get(agent, 0.0) + float(reward)
                if terminated or truncated:
                    action = None
                else:
                    action = policies[agent](env)
                    mask = observation["action_mask"]
                    if not (0 <= int(action) < len(mask) and mask[int(action)]):
                        raise ValueError(
                            f"{agent} played {action!r}, which the action mask forbids "
                            f"(legal: {np.flatnonzero(mask).tolist()})"
                        )
                    moves.append(int(action))
                env.step(action)
        finally:
            env.close()
        return tuple(moves), _seat_returns(returns, seat_of)


Game = ModelGame | PettingZooGame


def _connect_four_env_state(env: Any) -> Any:
    from mcts_agent.envs.connect_four import from_pettingzoo_board

    return from_pettingzoo_board(env.unwrapped.board)


def _same_action(action: int) -> int:
    return int(action)


GAME_NAMES = ("tictactoe", "connect_four", "classic/tictactoe-v3", "classic/connect_four-v3")
"""The names :func:`make_game` (and the command line's ``--game``) accepts."""


def make_game(name: str) -> Game:
    """Returns the named game.

    ``tictactoe`` and ``connect_four`` are played on our fast models
    (:mod:`mcts_agent.envs.tic_tac_toe`, :mod:`mcts_agent.envs.connect_four`);
    ``classic/tictactoe-v3`` and ``classic/connect_four-v3`` in PettingZoo's
    envs, with model-based players planning on the same fast models.

    Raises:
        ValueError: if ``name`` is not one of :data:`GAME_NAMES`.
    """
    if name in ("tictactoe", "classic/tictactoe-v3"):
        from mcts_agent.envs.tic_tac_toe import (
            EMPTY_BOARD,
            TicTacToeModel,
            state_from_pettingzoo,
            to_pettingzoo_action,
        )

        if name == "tictactoe":
            return ModelGame(TicTacToeModel(), EMPTY_BOARD, name, ("X", "O"), solvable=True)
        return PettingZooGame(
            name,
            TicTacToeModel(),
            state_from_pettingzoo,
            to_pettingzoo_action,
            ("X", "O"),
            solvable=True,
        )
    if name in ("connect_four", "classic/connect_four-v3"):
        from mcts_agent.envs.connect_four import EMPTY_BOARD, ConnectFourModel

        if name == "connect_four":
            return ModelGame(ConnectFourModel(), EMPTY_BOARD, name, ("first", "second"))
        return PettingZooGame(
            name, ConnectFourModel(), _connect_four_env_state, _same_action, ("first", "second")
        )
    raise ValueError(f"unknown game {name!r}; valid games: {', '.join(GAME_NAMES)}")


# ------------------------------------------------------------------ results


class Tally(NamedTuple):
    """Wins, draws and losses of the agent."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """Number of games counted."""
        return self.wins + self.draws + self.losses


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


@dataclass(frozen=True)
class GameRecord:
    """One game of a match.

    Attributes:
        index: the game's index in its match (0-based); its seeds come from it.
        agent_seat: 0 if the agent moved first, 1 if second.
        seeds: ``(agent's seed, opponent's seed, env's seed)``.
        moves: every action played, in order (model actions, or env actions
            for a PettingZoo game).
        returns: ``(agent's return, opponent's return)``: the sum of the rewards
            each received.
        seconds: wall-clock seconds the game took (the only field that varies
            between runs).
    """

    index: int
    agent_seat: int
    seeds: tuple[int, int, int]
    moves: tuple
    returns: tuple[float, float]
    seconds: float

    @property
    def outcome(self) -> Literal["win", "draw", "loss"]:
        """``"win"``, ``"draw"`` or ``"loss"`` for the agent (higher return wins)."""
        agent, opponent = self.returns
        return "win" if agent > opponent else "loss" if agent < opponent else "draw"

    @property
    def length(self) -> int:
        """Number of moves played."""
        return len(self.moves)

    def to_dict(self) -> dict[str, Any]:
        """Returns the record as a JSON-ready dict (with its outcome and length)."""
        return {
            "index": self.index,
            "agent_seat": self.agent_seat,
            "seeds": list(self.seeds),
            "outcome": self.outcome,
            "length": self.length,
            "returns": list(self.returns),
            "moves": _jsonable(self.moves),
            "seconds": self.seconds,
        }


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

    Raises:
        TypeError, ValueError: if a field has the wrong type or value.
    """

    game: Game
    agent: Player
    opponent: Player
    games_per_seat: int = 100
    seed: int = 0
    seats: Seats = "alternate"

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
        require_int("games_per_seat", self.games_per_seat, 1)
        require_int("seed", self.seed, 0)
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


@dataclass(frozen=True)
class MatchResult:
    """The games of one match and their counts.

    Attributes:
        spec: what was played.
        records: every game, in index order.
    """

    spec: MatchSpec
    records: tuple[GameRecord, ...]

    def tally(self, seat: int | None = None) -> Tally:
        """Returns the agent's wins, draws and losses in ``seat`` (0, 1) or all seats."""
        outcomes = [r.outcome for r in self.records if seat is None or r.agent_seat == seat]
        return Tally(outcomes.count("win"), outcomes.count("draw"), outcomes.count("loss"))

    @property
    def seat_names(self) -> tuple[str, str]:
        """Names of seat 0 and seat 1 (``("X", "O")`` for tic-tac-toe)."""
        return self.spec.game.seat_names

    @property
    def mean_length(self) -> float:
        """Mean number of moves per game."""
        return sum(r.length for r in self.records) / len(self.records)

    @property
    def moves_per_second(self) -> float:
        """Moves played per second of game time (both players' thinking included)."""
        seconds = sum(r.seconds for r in self.records)
        return sum(r.length for r in self.records) / seconds if seconds > 0 else math.inf

    def summary(self) -> str:
        """Returns a few lines: the players and the W/D/L of the agent per seat."""
        spec = self.spec
        lines = [
            f"{spec.game.name}: {_label(spec.agent)} vs {_label(spec.opponent)}, "
            f"seed {spec.seed}, {len(self.records)} games"
        ]
        for seat, name in enumerate(self.seat_names):
            tally = self.tally(seat)
            if tally.games:
                lines.append(
                    f"  as {name}: {tally.wins} won, {tally.draws} drawn, {tally.losses} lost"
                )
        lines.append(
            f"  mean length {self.mean_length:.2f} moves, {self.moves_per_second:,.0f} moves/s"
        )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Returns the match as a JSON-ready dict, every game included."""
        spec = self.spec
        return {
            "game": spec.game.name,
            "agent": _describe(spec.agent),
            "opponent": _describe(spec.opponent),
            "seed": spec.seed,
            "seats": spec.seats,
            "games_per_seat": spec.games_per_seat,
            "tally": {
                name: self.tally(seat)._asdict() for seat, name in enumerate(self.seat_names)
            },
            "mean_length": self.mean_length,
            "moves_per_second": self.moves_per_second,
            "games": [r.to_dict() for r in self.records],
        }

    def save_json(self, path: str | os.PathLike) -> None:
        """Writes :meth:`to_dict` to ``path`` as JSON."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=1)

    def save_csv(self, path: str | os.PathLike) -> None:
        """Writes one row per game to ``path``.

        Columns: ``index, agent_seat, seat, outcome, length, agent_return,
        opponent_return, seconds, moves`` (moves separated by spaces).
        """
        with open(path, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(
                [
                    "index",
                    "agent_seat",
                    "seat",
                    "outcome",
                    "length",
                    "agent_return",
                    "opponent_return",
                    "seconds",
                    "moves",
                ]
            )
            for r in self.records:
                writer.writerow(
                    [
                        r.index,
                        r.agent_seat,
                        self.seat_names[r.agent_seat],
                        r.outcome,
                        r.length,
                        r.returns[0],
                        r.returns[1],
                        f"{r.seconds:.6f}",
                        " ".join(str(_jsonable(m)) for m in r.moves),
                    ]
                )


_SUMMARY_COLUMNS = (
    "game",
    "opponent",
    "iterations",
    "exploration",
    "seed",
    "seat",
    "games",
    "wins",
    "draws",
    "losses",
    "mean_length",
    "moves_per_second",
)


@dataclass(frozen=True)
class SweepResult:
    """The matches of a sweep: an MCTS agent at several settings against opponents.

    Attributes:
        matches: one :class:`MatchResult` per (opponent, exploration, seed,
            iterations), in that nesting order; every agent is an
            :class:`MCTSPlayer`.
    """

    matches: tuple[MatchResult, ...]

    def _varies(self, attribute: str) -> bool:
        if attribute == "seed":
            return len({m.spec.seed for m in self.matches}) > 1
        return len({getattr(m.spec.agent, attribute) for m in self.matches}) > 1

    def rows(self) -> list[dict[str, Any]]:
        """Returns one dict per match and agent seat, with :data:`_SUMMARY_COLUMNS` keys."""
        rows = []
        for match in self.matches:
            spec = match.spec
            for seat, name in enumerate(match.seat_names):
                tally = match.tally(seat)
                if not tally.games:
                    continue
                rows.append(
                    {
                        "game": spec.game.name,
                        "opponent": _label(spec.opponent),
                        "iterations": spec.agent.iterations,
                        "exploration": spec.agent.exploration,
                        "seed": spec.seed,
                        "seat": name,
                        "games": tally.games,
                        "wins": tally.wins,
                        "draws": tally.draws,
                        "losses": tally.losses,
                        "mean_length": match.mean_length,
                        "moves_per_second": match.moves_per_second,
                    }
                )
        return rows

    def table(self) -> str:
        """Returns the W/D/L table: one line per opponent and setting, one column group per seat.

        The columns ``c`` and ``seed`` appear when the sweep varies them.
        """
        first = self.matches[0]
        seat_names = first.seat_names
        key_names = ["opponent", "iterations"]
        if self._varies("exploration"):
            key_names.insert(1, "c")
        if self._varies("seed"):
            key_names.insert(-1, "seed")
        keys = []
        for match in self.matches:
            spec = match.spec
            values = {
                "opponent": _label(spec.opponent),
                "c": f"{spec.agent.exploration:.3g}",
                "seed": str(spec.seed),
                "iterations": str(spec.agent.iterations),
            }
            cells = []
            for seat in range(2):
                tally = match.tally(seat)
                cells.extend(
                    [str(tally.wins), str(tally.draws), str(tally.losses)]
                    if tally.games
                    else ["-", "-", "-"]
                )
            keys.append([values[k] for k in key_names] + cells)
        header = key_names + ["W", "D", "L"] * 2
        widths = [max(len(h), *(len(row[i]) for row in keys)) for i, h in enumerate(header)]
        num_keys = len(key_names)

        def line(cells: Sequence[str]) -> str:
            text = "  ".join(
                cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                for i, cell in enumerate(cells[:num_keys])
            )
            for group in (cells[num_keys : num_keys + 3], cells[num_keys + 3 :]):
                text += "   " + "  ".join(
                    cell.rjust(widths[num_keys + j]) for j, cell in enumerate(group)
                )
            return text

        lines = [line(header), *(line(k) for k in keys)]
        group_widths = (sum(widths[num_keys : num_keys + 3]) + 4, sum(widths[num_keys + 3 :]) + 4)
        groups = " " * (len(lines[0]) - sum(group_widths) - 6)
        for name, width in zip(seat_names, group_widths, strict=True):
            groups += "   " + f"as {name}".center(width)
        spec = first.spec
        title = (
            f"{spec.game.name}: MCTS vs each opponent, {spec.games_per_seat} games per seat"
            + ("" if self._varies("exploration") else f", c = {spec.agent.exploration:.3g}")
            + ("" if self._varies("seed") else f", seed {spec.seed}")
            + " (W/D/L of MCTS)"
        )
        return "\n".join([title, groups.rstrip(), *lines])

    def to_dict(self) -> dict[str, Any]:
        """Returns the sweep as a JSON-ready dict: summary rows and every match."""
        return {"rows": self.rows(), "matches": [m.to_dict() for m in self.matches]}

    def save_json(self, path: str | os.PathLike) -> None:
        """Writes :meth:`to_dict` to ``path`` as JSON (every game's moves included)."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=1)

    def save_csv(self, path: str | os.PathLike) -> None:
        """Writes :meth:`rows` to ``path``: one row per match and agent seat."""
        with open(path, "w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=_SUMMARY_COLUMNS)
            writer.writeheader()
            writer.writerows(self.rows())

    def plot(self, path: str | os.PathLike) -> None:
        """Draws win and loss rates against iterations (log scale) to an image file.

        One line per opponent, seat (and exploration constant, if it varies);
        seeds are pooled.

        Raises:
            ImportError: if matplotlib is not installed (``pip install
                'mcts-agent[plot]'``).
        """
        try:
            from matplotlib.figure import Figure
        except ImportError as error:
            raise ImportError(
                "plotting needs matplotlib: pip install 'mcts-agent[plot]' (or matplotlib)"
            ) from error
        series: dict[tuple[str, str, str], dict[int, list[int]]] = {}
        show_c = self._varies("exploration")
        for row in self.rows():
            c = f", c={row['exploration']:.3g}" if show_c else ""
            key = (row["opponent"], row["seat"], c)
            counts = series.setdefault(key, {}).setdefault(row["iterations"], [0, 0, 0])
            counts[0] += row["wins"]
            counts[1] += row["losses"]
            counts[2] += row["games"]
        figure = Figure(figsize=(10, 4), layout="constrained")
        win_axes, loss_axes = figure.subplots(1, 2, sharex=True)
        seat_names = self.matches[0].seat_names
        colours: dict[tuple[str, str], str] = {}
        for (opponent, seat, c), by_iterations in series.items():
            xs = sorted(by_iterations)
            style = {
                "color": colours.setdefault((opponent, c), f"C{len(colours) % 10}"),
                "linestyle": "-" if seat == seat_names[0] else "--",
                "marker": "o" if seat == seat_names[0] else "s",
                "label": f"vs {opponent}, as {seat}{c}",
            }
            win_axes.plot(xs, [by_iterations[x][0] / by_iterations[x][2] for x in xs], **style)
            loss_axes.plot(xs, [by_iterations[x][1] / by_iterations[x][2] for x in xs], **style)
        for axes, what in ((win_axes, "win rate"), (loss_axes, "loss rate")):
            axes.set_xscale("log")
            axes.set_xlabel("MCTS iterations per move")
            axes.set_ylabel(what)
            axes.set_ylim(-0.03, 1.03)
            axes.grid(True, alpha=0.3)
        loss_axes.legend(fontsize="small")
        figure.suptitle(f"{self.matches[0].spec.game.name}: MCTS against each opponent")
        figure.savefig(path, dpi=100)


# ------------------------------------------------------------------ running


def game_seeds(seed: int, index: int) -> tuple[int, int, int]:
    """Returns ``(agent's seed, opponent's seed, env's seed)`` of game ``index``.

    From ``numpy.random.SeedSequence(seed, spawn_key=(index,))``: independent
    streams per game, a function of the master seed and the index only.
    """
    state = np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(3, dtype=np.uint32)
    return int(state[0]), int(state[1]), int(state[2])


def _play_one(spec: MatchSpec, index: int) -> GameRecord:
    agent_seed, opponent_seed, game_seed = game_seeds(spec.seed, index)
    seat = spec.agent_seat(index)
    if seat == 0:
        players, seeds = (spec.agent, spec.opponent), (agent_seed, opponent_seed)
    else:
        players, seeds = (spec.opponent, spec.agent), (opponent_seed, agent_seed)
    start = time.perf_counter()
    moves, seat_returns = spec.game.play(players, seeds, game_seed)
    seconds = time.perf_counter() - start
    returns = seat_returns if seat == 0 else (seat_returns[1], seat_returns[0])
    return GameRecord(index, seat, (agent_seed, opponent_seed, game_seed), moves, returns, seconds)


def _play_chunk(
    specs: Sequence[MatchSpec], items: Sequence[tuple[int, int]]
) -> list[tuple[int, GameRecord]]:
    """Plays the games ``(match, index)`` of ``items``; returns ``(match, record)`` pairs."""
    return [(match, _play_one(specs[match], index)) for match, index in items]


_WORKER_SPECS: Sequence[MatchSpec] = ()


def _set_worker_specs(specs: Sequence[MatchSpec]) -> None:
    global _WORKER_SPECS
    _WORKER_SPECS = specs


def _play_worker_chunk(items: Sequence[tuple[int, int]]) -> list[tuple[int, GameRecord]]:
    return _play_chunk(_WORKER_SPECS, items)


def _chunks(items: list[tuple[int, int]], workers: int) -> list[list[tuple[int, int]]]:
    size = max(1, math.ceil(len(items) / (workers * 8)))
    return [items[i : i + size] for i in range(0, len(items), size)]


def _progress_bar(total: int, progress: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="game", disable=not progress, desc="games")


def run_matches(
    specs: Sequence[MatchSpec],
    *,
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    progress: bool = False,
) -> tuple[MatchResult, ...]:
    """Plays every game of ``specs`` on the chosen backend; the core of the arena.

    The results are the same whatever ``workers`` and ``backend`` (each game is
    seeded from its match's seed and its index; only ``seconds`` varies).

    Args:
        specs: the matches to play.
        workers: processes for ``backend="process"``: int >= 1, default
            ``os.cpu_count()``; 1 plays in this process. For ``"ray"``, the
            number of chunks in flight is a multiple of the cluster's CPUs and
            ``workers`` is only used to size the chunks (default: the cluster's
            CPU count).
        backend: ``"process"`` (local processes) or ``"ray"``.
        address: Ray's address (``"auto"``, ``"ray://host:10001"``...); None
            starts a local Ray instance unless one is running. Only for Ray.
        progress: show a tqdm progress bar over games (on stderr).

    Returns:
        One :class:`MatchResult` per spec, in order.

    Raises:
        TypeError, ValueError: if an argument is invalid.
        ImportError: if ``backend="ray"`` and Ray is not installed.
    """
    specs = list(specs)
    for spec in specs:
        if not isinstance(spec, MatchSpec):
            raise TypeError(f"specs must hold MatchSpec objects, got {spec!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    if workers is not None:
        require_int("workers", workers, 1)
    if address is not None and backend != "ray":
        raise ValueError(f"address is for backend='ray' only; got backend={backend!r}")
    items = [(m, i) for m, spec in enumerate(specs) for i in range(spec.num_games)]
    records: list[list[GameRecord | None]] = [[None] * spec.num_games for spec in specs]
    with _progress_bar(len(items), progress) as bar:
        for match, record in _run_items(specs, items, workers, backend, address, bar):
            records[match][record.index] = record
    return tuple(
        MatchResult(spec, tuple(r for r in rs if r is not None))
        for spec, rs in zip(specs, records, strict=True)
    )


def _run_items(
    specs: list[MatchSpec],
    items: list[tuple[int, int]],
    workers: int | None,
    backend: str,
    address: str | None,
    bar: Any,
) -> Iterable[tuple[int, GameRecord]]:
    if backend == "ray":
        yield from _run_on_ray(specs, items, workers, address, bar)
        return
    workers = min(workers or os.cpu_count() or 1, len(items))
    if workers <= 1:
        for item in items:
            pairs = _play_chunk(specs, [item])
            bar.update(1)
            yield from pairs
        return
    with ProcessPoolExecutor(
        max_workers=workers, initializer=_set_worker_specs, initargs=(specs,)
    ) as pool:
        futures = [pool.submit(_play_worker_chunk, chunk) for chunk in _chunks(items, workers)]
        for future in as_completed(futures):
            pairs = future.result()
            bar.update(len(pairs))
            yield from pairs


def _run_on_ray(
    specs: list[MatchSpec],
    items: list[tuple[int, int]],
    workers: int | None,
    address: str | None,
    bar: Any,
) -> Iterable[tuple[int, GameRecord]]:
    try:
        import ray
    except ImportError as error:
        raise ImportError(
            "backend='ray' needs Ray: pip install 'mcts-agent[ray]' (or ray)"
        ) from error
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"address": address, "logging_level": "WARNING"}
        if address is None:
            options["include_dashboard"] = False
        ray.init(**options)
        started = True
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        play = ray.remote(num_cpus=1)(_play_chunk)
        specs_ref = ray.put(specs)
        pending = [play.remote(specs_ref, chunk) for chunk in _chunks(items, workers or cpus)]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            pairs = ray.get(done[0])
            bar.update(len(pairs))
            yield from pairs
    finally:
        if started:
            ray.shutdown()


def play_match(
    game: Game,
    agent: Player,
    opponent: Player,
    games_per_seat: int = 100,
    *,
    seed: int = 0,
    seats: Seats = "alternate",
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    progress: bool = False,
) -> MatchResult:
    """Plays ``agent`` against ``opponent`` on ``game`` and counts the agent's results.

    Args:
        game: from :func:`make_game`, or a :class:`ModelGame` of your own.
        agent: ``player(model, seed) -> policy`` (e.g. ``MCTSPlayer(1000)``).
        opponent: the same for the other side (e.g. ``PerfectPlayer()``).
        games_per_seat: games with the agent in each seat it takes.
        seed: master seed of the match.
        seats: ``"alternate"``, ``"first"`` or ``"second"`` (see :class:`MatchSpec`).
        workers: local processes (see :func:`run_matches`).
        backend: ``"process"`` or ``"ray"``.
        address: Ray's address, or None.
        progress: show a progress bar over games.

    Returns:
        The :class:`MatchResult`.
    """
    spec = MatchSpec(game, agent, opponent, games_per_seat, seed, seats)
    (result,) = run_matches(
        [spec], workers=workers, backend=backend, address=address, progress=progress
    )
    return result


def sweep(
    game: Game,
    opponents: Sequence[Player],
    iterations: Sequence[int],
    *,
    explorations: Sequence[float] = (DEFAULT_EXPLORATION,),
    seeds: Sequence[int] = (0,),
    games_per_seat: int = 100,
    rollout_limit: int = 1000,
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    progress: bool = False,
) -> SweepResult:
    """Plays MCTS at every (exploration, seed, iterations) against every opponent.

    E.g. "how many games does MCTS lose against perfect play at 400, 800, 1600
    and 2400 iterations per move, with c = sqrt(2) and c = 2 sqrt(2)?"::

        sweep(make_game("tictactoe"), [PerfectPlayer()], [400, 800, 1600, 2400],
              explorations=[math.sqrt(2), 2 * math.sqrt(2)], games_per_seat=300).table()

    Every match alternates seats (``games_per_seat`` games as each) and uses
    the same game seeds for the same master seed.

    Args:
        game: the game to play.
        opponents: the opponents' players.
        iterations: MCTS iterations per move, one match each.
        explorations: c values, one match each.
        seeds: master seeds, one match each.
        games_per_seat: games as each seat per match.
        rollout_limit: MCTS's rollout limit.
        workers: local processes (see :func:`run_matches`).
        backend: ``"process"`` or ``"ray"``.
        address: Ray's address, or None.
        progress: show a progress bar over games.

    Returns:
        A :class:`SweepResult` (``table()``, ``save_json``, ``save_csv``, ``plot``).

    Raises:
        ValueError: if a sequence is empty or a value is invalid.
    """
    for name, values in (
        ("opponents", opponents),
        ("iterations", iterations),
        ("explorations", explorations),
        ("seeds", seeds),
    ):
        if len(values) == 0:
            raise ValueError(f"{name} must not be empty")
    specs = [
        MatchSpec(
            game,
            MCTSPlayer(n, exploration=c, rollout_limit=rollout_limit),
            opponent,
            games_per_seat,
            seed,
        )
        for opponent in opponents
        for c in explorations
        for seed in seeds
        for n in iterations
    ]
    results = run_matches(
        specs, workers=workers, backend=backend, address=address, progress=progress
    )
    return SweepResult(results)
