"""Games: where the arena's games are played, and the named ones.

A *game* says where the games are played: on a model from an initial state
(:class:`ModelGame`), or in a real PettingZoo AEC env loop
(:class:`PettingZooGame`); :func:`make_game` builds the named ones
(:data:`GAME_NAMES`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mcts_agent.evaluation.players import MCTSPlayer, Player, RandomPlayer
from mcts_agent.model import Model

__all__ = ["GAME_NAMES", "Game", "ModelGame", "PettingZooGame", "make_game"]


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
        """Returns a new AEC env of ``env_id``.

        Raises:
            ImportError: if PettingZoo or the env's own dependencies (pygame for
                the classic envs) are not installed; the message says what to
                install (``pip install 'mcts-agent[classic]'`` for ``classic/``).
        """
        namespace = self.env_id.partition("/")[0]
        extra = "mcts-agent[classic]" if namespace == "classic" else f"pettingzoo[{namespace}]"

        def missing(error: Exception) -> ImportError:
            cause = error.__cause__ if isinstance(error.__cause__, ImportError) else error
            return ImportError(
                f"{self.env_id} needs PettingZoo and its {namespace} envs: "
                f"pip install '{extra}' ({cause})"
            )

        try:
            import pettingzoo
            from pettingzoo.env_registry.exceptions import FailedToImport
        except ImportError as error:
            raise missing(error) from error
        try:
            return pettingzoo.make("aec", self.env_id)
        except (ImportError, FailedToImport) as error:
            raise missing(error) from error

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
