"""Games: where the arena's games are played, and the named ones.

A *game* says where the games are played: on a model from an initial state
(:class:`ModelGame`), or in a real PettingZoo AEC env loop
(:class:`PettingZooGame`; :class:`FactoryGame` when a user's own function
makes the env); :func:`make_game` builds the named ones (:data:`GAME_NAMES`,
any PettingZoo id, a user's ``module:factory``). :func:`require_zero_sum` is
the rule that keeps minimax to the games it can search.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mcts_agent._validation import require_int
from mcts_agent.evaluation.players import (
    DEFAULT_EXPLORATION,
    MCTSPlayer,
    MinimaxPlayer,
    PerfectPlayer,
    Player,
    RandomPlayer,
)
from mcts_agent.evaluation.specs import format_options, import_path, parse_spec
from mcts_agent.evaluation.user_modules import import_attribute, user_code_error
from mcts_agent.evaluator import Evaluator
from mcts_agent.minimax import reports_mover_reward
from mcts_agent.model import Model

__all__ = [
    "GAME_NAMES",
    "MODEL_GAMES",
    "FactoryGame",
    "Game",
    "ModelGame",
    "PettingZooGame",
    "Resigned",
    "default_exploration",
    "make_game",
    "random_opening",
    "require_zero_sum",
]


class Resigned(Exception):
    """Raised by an env loop's policy whose player resigns (a GTP engine's ``resign``).

    :meth:`PettingZooGame.play` ends the game there: the resigning seat's return is -1, the
    other's +1 (whatever the env's rewards so far), the moves played so far kept.

    Attributes:
        agent: the env's agent who resigned (``"white_0"``).
    """

    def __init__(self, agent: Hashable, message: str = "") -> None:
        super().__init__(f"{agent} resigned" + (f": {message}" if message else ""))
        self.agent = agent


def default_exploration(game: Game) -> float:
    """The exploration constant an MCTS player of ``game`` gets when it is given none.

    ``MCTSAgent``'s own for the games it knows (:mod:`mcts_agent.defaults`): PettingZoo
    chess :data:`~mcts_agent.defaults.CHESS_EXPLORATION` (PUCT), go
    :data:`~mcts_agent.defaults.GO_EXPLORATION` (GRAVE), Leduc Hold'em
    :data:`~mcts_agent.defaults.LEDUC_EXPLORATION` (payoffs in big blinds); every other
    game :data:`~mcts_agent.evaluation.DEFAULT_EXPLORATION`, 2*sqrt(2), for returns in
    [-1, 1]. ``make_player``'s ``mcts:`` specs and ``mcts-agent evaluate`` use it.
    """
    from mcts_agent.defaults import CHESS_EXPLORATION, GO_EXPLORATION, LEDUC_EXPLORATION

    env_id = getattr(game, "env_id", "").replace("-", "_")
    if isinstance(game, PettingZooGame) and not isinstance(game, FactoryGame):
        for prefix, exploration in (
            ("classic/chess_v", CHESS_EXPLORATION),
            ("classic/go_v", GO_EXPLORATION),
            ("classic/leduc_holdem_v", LEDUC_EXPLORATION),
        ):
            if env_id.startswith(prefix):
                return exploration
    return DEFAULT_EXPLORATION


def random_opening(plies: int, seed: int) -> Callable[[Sequence[Any]], Any]:
    """Returns ``choose(legal actions) -> action``: the moves of a random opening.

    Matches between deterministic players (PUCT with an evaluator, minimax) would
    repeat one game; starting each pair of games from ``plies`` uniformly random
    moves (the same opening with the seats swapped: :class:`MatchSpec`'s
    ``opening_plies``) is the engine testers' usual remedy (cutechess-cli's
    ``-openings``, here without a book).

    Args:
        plies: int >= 0, the opening's length.
        seed: the seed of its generator (``random.Random``).

    Returns:
        A function drawing one of the legal actions given, uniformly.

    Raises:
        ValueError: if ``plies`` is not an int >= 0.
    """
    require_int("opening_plies", plies, 0)
    return random.Random(seed).choice


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
        evaluators: ``(name, evaluator)`` pairs: the game's own evaluators
            ``(state, actions) -> Evaluation`` (see :class:`PettingZooGame`).
    """

    model: Model
    initial_state: Any
    name: str
    seat_names: tuple[str, str] = ("first", "second")
    solvable: bool = False
    evaluators: tuple[tuple[str, Evaluator], ...] = ()

    @property
    def hidden_information(self) -> bool:
        """True if the model hides information (``information_set`` and ``sample_world``)."""
        from mcts_agent.information_sets import is_hidden

        return is_hidden(self.model)

    @property
    def zero_sum(self) -> bool:
        """True if ``model`` reports the mover's reward, as minimax searches.

        See :func:`~mcts_agent.minimax.reports_mover_reward`: our models do; a
        model that reports every player's reward does not.
        """
        return reports_mover_reward(self.model)

    def play(
        self,
        players: tuple[Player, Player],
        seeds: tuple[int, int],
        game_seed: int,
        *,
        opening_plies: int = 0,
        opening_seed: int = 0,
    ) -> tuple[tuple, tuple[float, float]]:
        """Plays one game; seat ``k`` is played by ``players[k](model, seeds[k])``.

        Args:
            players: the factories of seat 0 and seat 1.
            seeds: the seeds of their policies.
            game_seed: unused (the model's games start from one state).
            opening_plies: int >= 0, moves played uniformly at random before the
                players move (:func:`random_opening`), counted in the game's moves.
            opening_seed: the seed of those moves.

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
        opening = random_opening(opening_plies, opening_seed)
        while actions:
            mover = model.player(state)
            if mover not in seat_of:
                if len(seat_of) == 2:
                    raise ValueError(
                        f"{self.name} has a third player {mover!r}; the arena plays two-player "
                        f"games (players so far: {list(seat_of)})"
                    )
                seat_of[mover] = 1
            if len(moves) < opening_plies:
                action = opening(actions)
            else:
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

    Each game makes the env with ``pettingzoo.make("aec", env_id,
    **env_options)``, calls
    ``reset(seed=game_seed)`` and runs ``agent_iter()`` / ``last()`` /
    ``step()``; seat ``k`` is ``env.possible_agents[k]``, and a seat's return is
    the sum of the rewards ``last()`` gives its agent. An :class:`MCTSPlayer`
    acts through :class:`mcts_agent.MCTSAgent` (``agent.act(env)``), a
    :class:`RandomPlayer` picks from the legal actions with its own seeded
    generator (the adapter's rule,
    :func:`~mcts_agent.adapters.pettingzoo.reading.mask_actions`: the
    observation's ``"action_mask"``, else ``infos[agent]["action_mask"]``, else
    every action of the agent's ``Discrete`` space), a player with its own
    ``env_policy(seed, env)`` (RLCard's agents,
    :class:`~mcts_agent.evaluation.rlcard_players.RLCardPlayer`) acts through
    it, and any other player
    (perfect, minimax, a user's factory) plays on ``model`` from ``state_of(env)``, its
    action converted
    by ``to_env_action``; without a ``model`` (any env but tic-tac-toe and
    connect four), on a :class:`~mcts_agent.adapters.PettingZooModel` of the
    game's env, made for each such player at the start of each game.

    Attributes:
        env_id: a PettingZoo registry id such as ``"classic/tictactoe-v3"``.
        model: the model that model-based players plan on, or None for the adapter's.
        state_of: picklable ``env -> state of model`` (reads, never changes,
            the env); None with ``model`` None.
        to_env_action: picklable ``model action -> env action``; None with
            ``model`` None.
        seat_names: names of seat 0 and seat 1.
        solvable: True if :class:`PerfectPlayer` may play it.
        env_options: ``(name, value)`` pairs passed to ``pettingzoo.make``
            (e.g. ``(("board_size", 9),)`` for go).
        evaluators: ``(name, evaluator)`` pairs: the game's own evaluators
            ``(state, actions) -> Evaluation`` of ``model``'s states, which
            agent specs name (``mcts:evaluator=heuristic``) and minimax uses
            at its depth limit.
    """

    env_id: str
    model: Model | None = None
    state_of: Callable[[Any], Any] | None = None
    to_env_action: Callable[[Any], Any] | None = None
    seat_names: tuple[str, str] = ("first", "second")
    solvable: bool = False
    env_options: tuple[tuple[str, Any], ...] = ()
    evaluators: tuple[tuple[str, Evaluator], ...] = ()

    @property
    def name(self) -> str:
        """The game's id as :func:`make_game` reads it (``env_id``, then ``:options``)."""
        return self.env_id + format_options(self.env_options)

    @property
    def hidden_information(self) -> bool:
        """True if the game hides cards or moves its players plan with ISMCTS.

        With a ``model``: if it has ``information_set`` and ``sample_world``;
        without one: if the adapter re-deals the env's worlds
        (:data:`~mcts_agent.adapters.pettingzoo.hidden_information.PLANNED_GAMES`:
        Leduc, Texas Hold'em, rock-paper-scissors). Makes the env once.

        Raises:
            ImportError, TypeError, ValueError: as :meth:`make_env`.
        """
        if self.model is not None:
            from mcts_agent.information_sets import is_hidden

            return is_hidden(self.model)
        from mcts_agent.adapters.pettingzoo.hidden_information import planned_game

        env = self.make_env()
        try:
            return planned_game(env) is not None
        finally:
            env.close()

    @property
    def zero_sum(self) -> bool:
        """True if the players plan the game with the mover's reward, as minimax searches.

        With a ``model``: if it reports the mover's reward
        (:func:`~mcts_agent.minimax.reports_mover_reward`). Without one: if
        the adapter knows the env to be two-player zero-sum
        (:func:`~mcts_agent.adapters.pettingzoo.known_games.is_known_zero_sum`:
        tic-tac-toe, connect four, chess, go), which is how the
        :class:`~mcts_agent.adapters.PettingZooModel` the players plan on is
        made (``zero_sum`` None); any other game (a user's) is planned with
        every agent's reward. Makes the env once (builds no model).

        Raises:
            ImportError, TypeError, ValueError: as :meth:`make_env`.
        """
        if self.model is not None:
            return reports_mover_reward(self.model)
        from mcts_agent.adapters.pettingzoo.known_games import is_known_zero_sum

        env = self.make_env()
        try:
            return is_known_zero_sum(env)
        finally:
            env.close()

    def check(self) -> None:
        """Makes and resets the env, and the model the adapter would plan on: before any game.

        For a game without a ``model``, builds a
        :class:`~mcts_agent.adapters.PettingZooModel` of the reset env, so the
        games the adapter refuses (hidden information, chance, non-``Discrete``
        actions, a clone that is not exact, a game said zero-sum whose rewards
        are not) are refused here, with the adapter's error.

        Raises:
            ImportError: as :meth:`make_env`.
            TypeError, ValueError: if the env cannot be made with ``env_options``
                (an unknown option), has other than two agents, or the adapter
                refuses it.
            UserCodeError: if the factory or the env's ``reset`` raised
                (:func:`~mcts_agent.evaluation.user_modules.user_code_error`).
        """
        env = self.make_env()
        try:
            try:
                env.reset(seed=0)
            except Exception as error:
                raise user_code_error(error, f"the env {self.name}: reset") from error
            agents = list(env.possible_agents)
            if len(agents) != 2:
                raise ValueError(
                    f"the arena plays two-player games; {self.name} has {len(agents)} agents "
                    f"{agents}"
                )
            if self.model is None:
                from mcts_agent.adapters.pettingzoo import PettingZooModel

                PettingZooModel(env)
        finally:
            env.close()

    def make_env(self) -> Any:
        """Returns a new AEC env of ``env_id``.

        Raises:
            ImportError: if PettingZoo or the env's own dependencies (pygame for
                the classic envs) are not installed; the message says what to
                install (``pip install 'mcts-agent[classic]'`` for ``classic/``).
            ValueError: if no env is registered under ``env_id``, or its
                constructor refuses ``env_options``.
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
        from pettingzoo.env_registry.exceptions import PettingZooRegistryError

        try:
            return pettingzoo.make("aec", self.env_id, **dict(self.env_options))
        except (ImportError, FailedToImport) as error:
            raise missing(error) from error
        except PettingZooRegistryError as error:
            found = str(error).split(". Available environments")[0]  # not the whole registry
            raise ValueError(
                f"unknown game {self.env_id!r}: neither one of our models "
                f"({', '.join(MODEL_GAMES)}), a PettingZoo env ({found}) nor a "
                "module:factory of yours"
            ) from error
        except TypeError as error:  # the env's constructor refused an option
            raise ValueError(f"{self.name}: {error}") from error

    def env_policy(self, player: Player, seed: int, env: Any) -> Callable[[Any], Any]:
        """Returns ``policy(env) -> env action`` for ``player`` seeded with ``seed``.

        ``env`` is the game's env, reset: a game without a ``model`` gives
        model-based players a :class:`~mcts_agent.adapters.PettingZooModel` of it.
        A player that plays in the env loop itself, reading the env (RLCard's
        agents, :class:`~mcts_agent.evaluation.rlcard_players.RLCardPlayer`; GTP engines,
        :class:`~mcts_agent.evaluation.gtp_players.GTPPlayer`),
        has a method ``env_policy(seed, env) -> policy``: its policy is that one.

        Raises:
            ValueError: if such a player does not play this env (its own refusal).
        """
        own_policy = getattr(player, "env_policy", None)
        if callable(own_policy):
            return own_policy(seed, env)
        if isinstance(player, MCTSPlayer):
            from mcts_agent.agent import MCTSAgent

            return MCTSAgent(seed=seed, **player.options).act
        if isinstance(player, RandomPlayer):
            from mcts_agent.adapters.pettingzoo.reading import mask_actions

            rng = np.random.default_rng(seed)

            def random_move(env: Any) -> Any:
                legal = mask_actions(env, env.agent_selection)
                return int(rng.choice(np.asarray(legal)))

            return random_move
        if self.model is None:
            from mcts_agent.adapters.pettingzoo import PettingZooModel

            model = PettingZooModel(env)
            state_of, to_env_action = model.state_of, model.to_env_action
        else:
            model, state_of, to_env_action = self.model, self.state_of, self.to_env_action
        policy = player(model, seed)

        def model_move(env: Any) -> Any:
            return to_env_action(policy(state_of(env)))

        return model_move

    def play(
        self,
        players: tuple[Player, Player],
        seeds: tuple[int, int],
        game_seed: int,
        *,
        opening_plies: int = 0,
        opening_seed: int = 0,
    ) -> tuple[tuple, tuple[float, float]]:
        """Plays one game in the env loop (see the class docstring).

        The first ``opening_plies`` moves are uniformly random legal moves
        (:func:`random_opening`, seeded with ``opening_seed``), played before the
        players move and counted in the game's moves.

        A policy that raises :class:`Resigned` ends the game: its seat's return is -1, the
        other's +1. A policy with a ``close()`` method (a GTP engine's,
        :class:`~mcts_agent.evaluation.gtp_players.GTPPolicy`) is closed when the game
        ends, however it ends.

        Returns:
            ``(env actions played, (return of seat 0, return of seat 1))``.

        Raises:
            ValueError: if a policy plays an action that is not legal (by the
                rule of the class docstring).
        """
        from mcts_agent.adapters.pettingzoo.reading import mask_actions

        env = self.make_env()
        policies: dict[Hashable, Callable[[Any], Any]] = {}
        try:
            env.reset(seed=game_seed)
            seat_of = {agent: k for k, agent in enumerate(env.possible_agents)}
            for agent, k in seat_of.items():
                policies[agent] = self.env_policy(players[k], seeds[k], env)
            returns: dict[Hashable, float] = {}
            moves = []
            opening = random_opening(opening_plies, opening_seed)
            for agent in env.agent_iter():
                _, reward, terminated, truncated, _ = env.last()
                returns[agent] = returns.get(agent, 0.0) + float(reward)
                if terminated or truncated:
                    action = None
                elif len(moves) < opening_plies:
                    action = opening(tuple(int(a) for a in mask_actions(env, agent)))
                    moves.append(action)
                else:
                    legal = mask_actions(env, agent)
                    try:
                        action = policies[agent](env)
                    except Resigned:
                        returns = {who: -1.0 if who == agent else 1.0 for who in seat_of}
                        break
                    if action not in legal:
                        raise ValueError(
                            f"{agent} played {action!r}, which is not legal (legal: {list(legal)})"
                        )
                    moves.append(int(action))
                env.step(action)
        finally:
            for policy in policies.values():
                close = getattr(policy, "close", None)
                if callable(close):
                    close()
            env.close()
        return tuple(moves), _seat_returns(returns, seat_of)


@dataclass(frozen=True)
class FactoryGame(PettingZooGame):
    """Games played in the PettingZoo AEC env a user's factory returns: ``module:attr``.

    A :class:`PettingZooGame` whose ``env_id`` is ``"module:attr"`` (the rule
    of :func:`~mcts_agent.evaluation.specs.import_path`) and whose env is
    ``module.attr(**env_options)`` (any callable of the module: a function, a
    class, ``Class.method``), made for each game as ``PettingZooGame`` makes
    its registry's envs; players plan through
    :class:`~mcts_agent.adapters.PettingZooModel`. The module is imported
    from ``sys.path`` (:mod:`~mcts_agent.evaluation.user_modules`).
    Picklable: a worker process imports the module again.
    ``make_game("my_module:env:size=4")`` makes one, checked.

    Raises:
        ValueError: (on construction) if ``env_id`` is not ``module:attr``.
    """

    def __post_init__(self) -> None:
        if import_path(self.env_id) is None:
            raise ValueError(
                f"a FactoryGame's env_id is module:attr such as 'my_module:env', "
                f"got {self.env_id!r}"
            )

    def make_env(self) -> Any:
        """Returns ``module.attr(**env_options)``, checked to be a PettingZoo AEC env.

        Raises:
            ImportError: as :func:`~mcts_agent.evaluation.user_modules.import_user_module`.
            ValueError: if the module has no such attribute, or the factory
                refuses ``env_options`` (a TypeError from the call).
            UserCodeError: if the factory raised (a TypeError inside it too),
                naming it, the exception and where it was raised.
            TypeError: if the attribute is not callable or returns anything
                but a ``pettingzoo.AECEnv`` (a ParallelEnv: the message names
                ``parallel_to_aec``).
        """
        from pettingzoo import AECEnv, ParallelEnv

        module, attribute = import_path(self.env_id)
        factory = import_attribute(module, attribute, self.name)
        if not callable(factory):
            raise TypeError(
                f"{self.name}: {module}.{attribute} is a {type(factory).__name__}, not a "
                "callable that returns a PettingZoo AEC env"
            )
        try:
            env = factory(**dict(self.env_options))
        except TypeError as error:
            if error.__traceback__.tb_next is None:  # raised by the call: an option refused
                raise ValueError(f"{self.name}: {error}") from error
            raise user_code_error(error, f"the factory {self.env_id}") from error
        except Exception as error:
            raise user_code_error(error, f"the factory {self.env_id}") from error
        if not isinstance(env, AECEnv):
            made = f"{type(env).__module__}.{type(env).__qualname__}"
            hint = (
                " (wrap it: pettingzoo.utils.conversions.parallel_to_aec)"
                if isinstance(env, ParallelEnv)
                else ""
            )
            raise TypeError(
                f"{self.name}: {module}.{attribute}() returned a {made}, expected a "
                f"PettingZoo AEC env (pettingzoo.AECEnv){hint}"
            )
        return env


Game = ModelGame | PettingZooGame


def require_zero_sum(game: Game, player: Player) -> None:
    """Checks, before any game, that ``player`` can search ``game`` if it plays by minimax.

    :class:`MinimaxPlayer` and :class:`PerfectPlayer` search with minimax's
    sign rule, on the mover's reward: a game whose players plan every
    agent's reward (``game.zero_sum`` False: a PettingZoo game not known to
    be two-player zero-sum, such as a user's) is refused for them. Any other
    player passes. :class:`~mcts_agent.evaluation.MatchSpec` and
    :func:`~mcts_agent.evaluation.make_player` call it.

    Args:
        game: the game.
        player: the player who will play it.

    Raises:
        ValueError: if ``player`` is a minimax or perfect player and the game
            is not planned as two-player zero-sum, or hides information
            (``game.hidden_information``: minimax would see the hidden cards).
        ImportError, TypeError: as ``game.zero_sum`` makes the env.
    """
    if not isinstance(player, MinimaxPlayer | PerfectPlayer):
        return
    if not game.zero_sum:
        raise ValueError(
            f"{player.label} searches two-player zero-sum games on the mover's reward; "
            f"{game.name} is not known to be one, so it is planned with every agent's reward: "
            "play random or MCTS players"
        )
    if game.hidden_information:
        raise ValueError(
            f"{player.label} searches games of perfect information; {game.name} hides cards "
            "or moves, which minimax would see: play random, MCTS (information-set MCTS) or "
            "RLCard players (rlcard:MODEL_ID)"
        )


def _connect_four_env_state(env: Any) -> Any:
    from mcts_agent.envs.connect_four import from_pettingzoo_board

    return from_pettingzoo_board(env.unwrapped.board)


def _same_action(action: int) -> int:
    return int(action)


MODEL_GAMES = ("tictactoe", "connect_four")
"""The games played on our own models (:func:`make_game` takes no options for them)."""

GAME_NAMES = (*MODEL_GAMES, "classic/tictactoe-v3", "classic/connect_four-v3")
"""The games named in help texts; :func:`make_game` also takes any PettingZoo AEC env id
and a user's ``module:factory``."""


def make_game(name: str) -> Game:
    """Returns the game ``name`` names: one of our models, a PettingZoo AEC env, a user's own.

    ``tictactoe`` and ``connect_four`` are played on our fast models
    (:mod:`mcts_agent.envs.tic_tac_toe`, :mod:`mcts_agent.envs.connect_four`);
    ``classic/tictactoe-v3`` and ``classic/connect_four-v3`` in PettingZoo's
    envs, with model-based players planning on the same fast models;
    ``classic/chess-v6`` in its env, model-based players (minimax) planning on
    :class:`~mcts_agent.envs.chess.ChessModel` with the evaluator ``heuristic``
    (:class:`~mcts_agent.envs.chess_evaluator.ChessEvaluator`: material,
    piece-square tables, mobility, a capture search), MCTS as ``MCTSAgent``
    plays chess (:func:`~mcts_agent.defaults.chess_defaults`). Any other
    id of PettingZoo's registry (``classic/go_v5``, a user's registered
    env), with the env's constructor options after a colon
    (``classic/go-v5:board_size=9,komi=5.5``, values read as Python literals,
    see :func:`~mcts_agent.evaluation.specs.parse_spec`), is played in its env
    loop, model-based players planning through
    :class:`~mcts_agent.adapters.PettingZooModel`. A user's ``module:factory``
    (``my_module:env``, options after a second colon: ``my_module:env:size=4``;
    the rule: :func:`~mcts_agent.evaluation.specs.import_path`) is a
    :class:`FactoryGame`: ``my_module`` imported, its env
    ``my_module.env(size=4)``. Such a game is checked here, before any game
    is played (:meth:`PettingZooGame.check`): what the adapter refuses is
    refused now.

    Raises:
        ValueError: if ``name`` is malformed, names no registered env, gives
            options to one of our models or options the env refuses, names
            an attribute the user's module lacks, or the adapter refuses the
            game (hidden information, chance, more than two agents...).
        TypeError: as the adapter refuses the game (e.g. non-``Discrete``
            actions), or if a user's factory is not callable or returns no
            AEC env.
        ImportError: if PettingZoo, the env's dependencies or a user's
            module cannot be imported.
    """
    env_id, options = parse_spec(name, what="game")
    if env_id in ("tictactoe", "classic/tictactoe-v3") and not options:
        from mcts_agent.envs.tic_tac_toe import (
            EMPTY_BOARD,
            TicTacToeModel,
            state_from_pettingzoo,
            to_pettingzoo_action,
        )

        if env_id == "tictactoe":
            return ModelGame(TicTacToeModel(), EMPTY_BOARD, env_id, ("X", "O"), solvable=True)
        return PettingZooGame(
            env_id,
            TicTacToeModel(),
            state_from_pettingzoo,
            to_pettingzoo_action,
            ("X", "O"),
            solvable=True,
        )
    if env_id in ("connect_four", "classic/connect_four-v3") and not options:
        from mcts_agent.envs.connect_four import EMPTY_BOARD, ConnectFourModel, heuristic_evaluator

        evaluators = (("heuristic", heuristic_evaluator),)
        if env_id == "connect_four":
            return ModelGame(
                ConnectFourModel(), EMPTY_BOARD, env_id, ("first", "second"), evaluators=evaluators
            )
        return PettingZooGame(
            env_id,
            ConnectFourModel(),
            _connect_four_env_state,
            _same_action,
            ("first", "second"),
            evaluators=evaluators,
        )
    if env_id in ("classic/chess-v6", "classic/chess_v6") and not options:
        from mcts_agent.envs.chess import ChessModel, board_of, move_of
        from mcts_agent.envs.chess_evaluator import ChessEvaluator

        chess_model = ChessModel()
        return PettingZooGame(
            env_id,
            chess_model,
            chess_model.state_of,
            _same_action,
            ("white", "black"),
            evaluators=(("heuristic", ChessEvaluator(board_of, move_of)),),
        )
    if env_id in MODEL_GAMES:
        raise ValueError(f"game {env_id!r} takes no options, got {name!r}")
    kind = FactoryGame if import_path(env_id) is not None else PettingZooGame
    game = kind(env_id, env_options=tuple(options.items()))
    game.check()
    return game
