"""A drop-in MCTS agent for PettingZoo's AEC game loop and for Gymnasium envs.

:class:`MCTSAgent` plans with :class:`~mcts_agent.search.MCTS` on a copy of
the game and returns a move in the env's own action space; the live env is
left exactly as it was::

    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    env.reset(seed=42)
    agent = MCTSAgent(iterations=2000, exploration=2 * math.sqrt(2), seed=0)
    for name in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        elif name == "player_1":
            action = agent.act(env)          # or agent(observation, env)
        else:
            action = env.action_space(name).sample(observation["action_mask"])
        env.step(action)

What it plans on:

* PettingZoo tic-tac-toe (``classic/tictactoe-v3``) and connect four
  (``classic/connect_four-v3``): by default our own models of the same games
  (same rules, rewards and turn order):
  :class:`~mcts_agent.envs.tic_tac_toe.TicTacToeModel` (PettingZoo's
  column-major cells converted to our row-major ones and back) and
  :class:`~mcts_agent.envs.connect_four.ConnectFourModel` (the same column
  actions), several times faster than stepping PettingZoo's envs.
  ``native_models=False`` (or any ``clone``) plans through
  :class:`~mcts_agent.adapters.PettingZooModel` instead.
* PettingZoo Leduc Hold'em (``classic/leduc_holdem-v4``): by default our
  :class:`~mcts_agent.envs.leduc.LeducModel` (the same rules, actions and
  payoffs in big blinds; ``LeducModel.state_of`` reads the env), searched
  with information-set MCTS for the agent to move, with the exploration of
  :func:`~mcts_agent.defaults.leduc_defaults`; ``native_models=False`` plans
  through ``PettingZooModel``, whose worlds re-deal the env's own game.
* PettingZoo go (``classic/go_v5``, any board size and komi): by default our
  :class:`~mcts_agent.envs.go.GoModel` (the same rules, actions and rewards;
  ``GoModel.state_of`` reads the env), searched with GRAVE and its light
  playouts in the compiled core, with the options of
  :func:`~mcts_agent.defaults.go_defaults`.
* PettingZoo chess (``classic/chess_v6``): by default our
  :class:`~mcts_agent.envs.chess.ChessModel` (python-chess's board, the same
  rules, actions and rewards; ``ChessModel.state_of`` reads the env), searched
  with PUCT guided by :class:`~mcts_agent.envs.chess_evaluator.ChessEvaluator`
  and :data:`~mcts_agent.defaults.CHESS_TIME_LIMIT` seconds a move, the options
  of :func:`~mcts_agent.defaults.chess_defaults`; searched with random rollouts
  instead (an ``evaluator`` or ``selection`` of the user's without an
  evaluator), it warns once that they cannot judge chess.
* any other PettingZoo AEC env (``pettingzoo.AECEnv``, wrapped or not):
  :class:`~mcts_agent.adapters.PettingZooModel`, made when the agent first
  plans on that env and kept while the agent keeps planning on it (its clone
  check runs once, not at every move; planning on another env replaces it, so
  a dropped env is freed).
* a Gymnasium env (``gymnasium.Env``): ``mcts_agent.adapters.GymnasiumModel``
  (with the agent's ``clone``), kept the same way.

A kept model that reports its env's parameters changed since it was built
(``GymnasiumModel.changed_parameters()``: CartPole's ``force_mag`` or
``length``, FrozenLake's map and ``P``...; any model with such a method) is
rebuilt, with a new planner, before the agent plans again: the agent never
plans with the old dynamics.

Only deterministic games of perfect information can be planned on a copy of
the game (``docs/refusals.md``). The hidden-information games the adapter can
re-deal (rock-paper-scissors, Leduc and Texas hold'em, limit and no limit:
:mod:`~mcts_agent.adapters.pettingzoo.hidden_information`) are planned with
information-set MCTS for the agent to move; ``PettingZooModel`` refuses, with
a ValueError, the other PettingZoo games with hidden information or chance
(Hanabi, any other RLCard card game) and any env that fails its start-up
determinism check, or, planned as two-player zero-sum,
whose rewards are not; ``PettingZooModel`` keeps checking both while planning,
so ``act`` can raise these ValueErrors mid-search (the live env is left
untouched). Other PettingZoo games (cooperative, general-sum, more than two
players) are planned with every agent's reward (max^n, :mod:`mcts_agent.maxn`).
``GymnasiumModel`` plans stochastic envs through chance nodes (the outcomes
of a toy-text table, or steps sampled on reseeded clones: ``docs/guides/chance.md``,
"Chance") and refuses those it cannot replay without knowing the dice
(global generators, hidden information such as Blackjack's face-down card).

Every model the agent plans on gets its own :class:`~mcts_agent.search.MCTS`,
seeded from the agent's one generator (``seed``), so a seeded agent plays the
same moves in the same games, and each planner's rollouts continue their
random stream from move to move.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from mcts_agent._validation import require_seed
from mcts_agent.defaults import (
    CHESS_TIME_LIMIT,
    DEFAULT_TIME_LIMIT,
    chess_defaults,
    go_defaults,
    gymnasium_defaults,
    leduc_defaults,
    warn_random_rollouts,
)
from mcts_agent.search import MCTS, SearchSummary

__all__ = ["MCTSAgent"]

_TICTACTOE = ("pettingzoo.classic.tictactoe.tictactoe", "raw_env")
"""Module and class name of PettingZoo's tic-tac-toe (``env.unwrapped``)."""
_TICTACTOE_AGENTS = ("player_1", "player_2")  # players 1 (X) and 2 (O) of TicTacToeModel

_CONNECT_FOUR = ("pettingzoo.classic.connect_four.connect_four", "raw_env")
"""Module and class name of PettingZoo's connect four (``env.unwrapped``)."""
_CONNECT_FOUR_AGENTS = ("player_0", "player_1")  # players 1 and 2 of ConnectFourModel


_LEDUC = ("pettingzoo.classic.rlcard_envs.leduc_holdem", "raw_env")
"""Module and class name of PettingZoo's Leduc Hold'em (``env.unwrapped``)."""
_LEDUC_AGENTS = ("player_0", "player_1")  # players 0 and 1 of LeducModel

_GO = ("pettingzoo.classic.go.go", "raw_env")
"""Module and class name of PettingZoo's go (``env.unwrapped``)."""
_GO_AGENTS = ("black_0", "white_0")  # players 1 (black) and 2 (white) of GoModel

_CHESS = ("pettingzoo.classic.chess.chess", "raw_env")
"""Module and class name of PettingZoo's chess (``env.unwrapped``)."""
_CHESS_AGENTS = ("player_0", "player_1")  # players 0 (white) and 1 (black) of ChessModel

_SEEDED_NATIVE_GAMES = (_TICTACTOE, _CONNECT_FOUR)
"""The native games whose planners' seeds are drawn when the agent is made, in this order."""

_NATIVE_GAMES = (*_SEEDED_NATIVE_GAMES, _LEDUC, _GO, _CHESS)
"""The PettingZoo games planned on our own models (by default). Leduc's, go's and chess's planners
are seeded from the agent's generator when first used (as an adapter's), so the other
games' seeds, and so their plans, are those of an agent that does not know them. Go has a
planner per board size and komi."""

_GYMNASIUM_CLONES = (None, "snapshot", "deepcopy")
"""The ``clone`` values of ``GymnasiumModel``, passed through for Gymnasium envs."""

_FACTORY_OPTIONS = ("rollout_policy", "evaluator")
"""The search options that may be given as a factory (``_is_factory``)."""

_MODEL_OPTIONS = ("state_widening", "action_sampler", "determinize")
"""The search options that only some models take: a stochastic one (``state_widening``),
one whose actions are sampled (``action_sampler``: MCTSAgent widens those by default), one
with hidden information (``determinize``). ``selection="rave"`` too, and its
``rave_bias`` and ``grave_ref``: only a model with ``amaf_actions = True`` takes them (go's,
whose default selection is GRAVE). With one of them, the planners of our own models
are made when first used, not with the agent, and a model that refuses the option refuses
it when its game is played."""


def _is_factory(value: Any) -> bool:
    """Whether ``value``, a rollout policy or evaluator given to the agent, is a factory.

    A factory is a class, or a :func:`functools.partial` of a class (for
    arguments besides the model): the agent calls it with each model it
    plans on, ``value(model)``, and gives the planner what it returns
    (``rollout_policy=CautiousRolloutPolicy``, or
    ``functools.partial(CautiousRolloutPolicy, loss_reward=-1.0)``). Anything
    else (a function, an instance with ``__call__``) is the policy or
    evaluator itself.
    """
    if isinstance(value, functools.partial):
        value = value.func
    return isinstance(value, type)


class _Binding:
    """One env's planner and the conversions between the env and the planner's model."""

    __slots__ = (
        "planner",
        "state_of",
        "to_env_action",
        "to_env_player",
        "replays",
        "changed_parameters",
    )

    def __init__(
        self,
        planner: MCTS,
        state_of: Callable[..., Any],
        to_env_action: Callable[[Any], Any],
        to_env_player: Callable[[Hashable], Hashable],
        replays: bool = False,
        changed_parameters: Callable[[], list[str]] | None = None,
    ) -> None:
        self.planner = planner
        self.state_of = state_of
        self.to_env_action = to_env_action
        self.to_env_player = to_env_player
        self.replays = replays  # state_of needs history=(seed, actions)
        # The env's parameters the model read that changed since: the model is rebuilt.
        self.changed_parameters = changed_parameters


def _same(value: Any) -> Any:
    return value


_GENERIC_CHESS_ADVICE = (
    "The chess defaults need the native model (native_models=True, no clone or zero_sum); "
    "otherwise give evaluator= a function of the env's state"
)


class MCTSAgent:
    """An MCTS agent that plans from a copy of the env it is given (``docs/guides/pettingzoo.md``).

    Every search option is :class:`~mcts_agent.search.MCTS`'s, passed through
    under the same name and checked there (one place):

    Args:
        iterations: int >= 1, iterations per move, or None: then
            ``time_limit`` seconds per move, by default
            :data:`~mcts_agent.defaults.DEFAULT_TIME_LIMIT` (0.1 s) when
            neither is given (chess planned on ``ChessModel``:
            :data:`~mcts_agent.defaults.CHESS_TIME_LIMIT`, 1 s).
        seed: int seed of the agent's generator (each planner is seeded from
            it), or None for fresh entropy.
        native_models: True to plan PettingZoo tic-tac-toe, connect four and
            Leduc Hold'em on our ``TicTacToeModel``, ``ConnectFourModel`` and
            ``LeducModel``, go on ``GoModel`` (the env's board size and
            komi) and chess on ``ChessModel``, unless ``clone`` or ``zero_sum`` is given or the
            evaluator is an ``EnvViewEvaluator``;
            False to plan every PettingZoo env through ``PettingZooModel``.
        clone: passed to the adapter. PettingZoo envs: to
            ``PettingZooModel`` (None, ``"snapshot"``, ``"attributes"``,
            ``"replay"`` or a function ``env -> copy``). Gymnasium envs: to
            ``GymnasiumModel`` (None, ``"snapshot"`` or ``"deepcopy"``; ``act``
            raises ValueError for the others).
        env_factory: PettingZoo envs only: passed to ``PettingZooModel``
            (given exactly when ``clone="replay"``).
        zero_sum: PettingZoo envs only: passed to ``PettingZooModel`` (None:
            the known two-player zero-sum games are planned with the mover's
            reward and every other game with every agent's reward, max^n;
            True or False to say so). Not None also plans tic-tac-toe and
            connect four through ``PettingZooModel``.
        **search_options: the other keywords of ``MCTS`` with its meaning
            and defaults: ``exploration``, ``gamma``, ``rollout_limit``,
            ``rollout_policy``, ``evaluator``, ``selection``,
            ``unvisited_value``, ``max_depth``, ``root_noise``,
            ``time_limit``, ``max_nodes``, ``reuse_tree``, ``solve``,
            ``value_bounds``, ``clock``, ``on_iteration`` (called with the
            planner of the move, its tree in the model's numbering),
            ``leaf_batch``, ``virtual_loss``, ``workers``, ``backend`` and
            ``address`` (each planner gets its own workers, started by its
            first move; what is sent to them: :mod:`mcts_agent.parallel`),
            ``widening``, ``state_widening`` and ``action_sampler``
            (``docs/guides/continuous-actions.md``), ``determinize``
            (``docs/guides/hidden-information.md``; the last three apply to
            some models only, a stochastic one, one with sampled actions,
            one with hidden information: given any, the planners of
            tic-tac-toe and connect four are made when first used, and a
            model that does not take it raises from ``act``). With
            ``reuse_tree=True`` each
            planner keeps its tree from move to move, and a move's search
            looks up the position it is asked about in it (after the agent's
            own move and the opponents' replies, which it need not be told):
            ``last_summary.reused_visits`` says how much was kept.
            ``rollout_policy`` and ``evaluator`` may also be given as a
            *factory*, a class or a ``functools.partial`` of a class (for
            one that needs the model the agent builds, such as
            ``rollout_policy=CautiousRolloutPolicy``): the agent calls it
            with each model it plans on, ``factory(model)``, and plans with
            what it returns; anything else (a function, a callable instance)
            is the policy or evaluator itself. With a factory the planners of
            tic-tac-toe and connect four are made when first used (so their
            options are checked then), and a factory that refuses a model
            (TypeError, ValueError) raises from ``act``.
            ``rollout_policy`` and ``evaluator`` are called with the
            planned-on model's states and actions (see the module docstring:
            for PettingZoo tic-tac-toe by default
            :class:`~mcts_agent.envs.tic_tac_toe.TicTacToeModel`'s int
            states and row-major cells; otherwise ``PettingZooState`` or
            ``GymnasiumState`` and the env's actions). An
            :class:`~mcts_agent.adapters.env_view.EnvViewEvaluator` is bound
            to each model planned on, so its network sees the env's
            observation and action mask instead (PettingZoo envs are then
            planned through ``PettingZooModel``; Gymnasium envs: see
            ``GymnasiumModel.env_view``).

    Defaults (:mod:`mcts_agent.defaults`, ``docs/guides/gymnasium.md``):
    a move's budget is 0.1 s unless ``iterations`` or ``time_limit`` is
    given; a single-agent Gymnasium env is planned with the options of
    :func:`~mcts_agent.defaults.gymnasium_defaults` that the user left out
    (value normalisation, tree reuse, for an env with no ``TimeLimit`` a
    discount and a rollout horizon, for an env with sampled actions
    progressive widening ``(1.0, 0.5)``, and for an env planned through its
    transition table one-step-lookahead rollouts), read from the env's
    declarations, never from its id; PettingZoo Leduc Hold'em planned on
    ``LeducModel`` takes the exploration of
    :func:`~mcts_agent.defaults.leduc_defaults` unless given; PettingZoo go
    planned on ``GoModel`` is searched with GRAVE and the exploration of
    :func:`~mcts_agent.defaults.go_defaults` unless the user chose a
    selection or an option GRAVE does not take (an evaluator, workers,
    tree reuse...: :data:`~mcts_agent.defaults.GO_STEP_ASIDE`); PettingZoo
    chess planned on ``ChessModel`` is searched with PUCT and
    ``ChessEvaluator``, :func:`~mcts_agent.defaults.chess_defaults`, for
    :data:`~mcts_agent.defaults.CHESS_TIME_LIMIT` seconds a move, unless the
    user gives a budget, a ``selection`` or an ``evaluator``.
    ``last_planner`` shows the options a move was planned with,
    and ``last_summary.value_range`` the normalisation's range.

    Attributes:
        last_summary: :class:`~mcts_agent.search.SearchSummary` of the last
            move, in the env's numbering: ``actions`` and ``action`` are env
            actions (listed in increasing order when they are ints, as
            PettingZoo's and a ``Discrete`` space's are; else in the model's
            order), ``player`` the env's agent id (PettingZoo) or 0
            (Gymnasium); ``visit_counts``, ``values`` (from the mover's
            point of view), ``priors`` and ``visit_distribution`` per
            action. None before the first move.
        last_planner: the :class:`~mcts_agent.search.MCTS` of the last move
            (its ``tree`` is that search's tree, in the model's numbering).

    Raises:
        TypeError, ValueError: if an argument has the wrong type or range
            (search options: as ``MCTS`` checks them; ``clone`` and
            ``env_factory``: as ``PettingZooModel`` checks them).
    """

    def __init__(
        self,
        iterations: int | None = None,
        *,
        seed: int | None = None,
        native_models: bool = True,
        clone: str | Callable[[Any], Any] | None = None,
        env_factory: Callable[[], Any] | None = None,
        zero_sum: bool | None = None,
        **search_options: Any,
    ) -> None:
        seed = require_seed("seed", seed)
        if zero_sum is not None and not isinstance(zero_sum, bool):
            raise TypeError(f"zero_sum must be None, True or False, got {zero_sum!r}")
        self.zero_sum = zero_sum
        if not isinstance(native_models, bool):
            raise TypeError(f"native_models must be a bool, got {native_models!r}")
        if (clone is not None and clone not in _GYMNASIUM_CLONES) or env_factory is not None:
            from mcts_agent.adapters.pettingzoo import check_clone_arguments

            check_clone_arguments(clone, env_factory)
        # No budget given: DEFAULT_TIME_LIMIT, or a game's own (chess: CHESS_TIME_LIMIT).
        self._default_budget = iterations is None and search_options.get("time_limit") is None
        if self._default_budget:
            search_options["time_limit"] = DEFAULT_TIME_LIMIT  # mcts_agent.defaults
        self._search_options = {"iterations": iterations, **search_options}
        self._rng = random.Random(seed)
        self.native_models = native_models
        self.clone = clone
        self.env_factory = env_factory
        # Rollout policies and evaluators given as factories, called with each model planned on.
        self._factories = {
            name: search_options[name]
            for name in _FACTORY_OPTIONS
            if _is_factory(search_options.get(name))
        }
        # The native planners' seeds are drawn first, in this order, whether they are used or not.
        self._native_seeds = {key: self._rng.getrandbits(63) for key in _SEEDED_NATIVE_GAMES}
        self._native: dict[tuple[str, str], _Binding] = {}
        model_options = (
            any(search_options.get(name) is not None for name in _MODEL_OPTIONS)
            or search_options.get("selection") == "rave"  # models with amaf_actions only
            or any(search_options.get(name) is not None for name in ("rave_bias", "grave_ref"))
        )
        if not self._factories and not model_options:  # made at once: checks the options too
            for key in _SEEDED_NATIVE_GAMES:
                self._native_binding(key)
        # The adapter binding of the last env planned on: (env.unwrapped, binding). One slot,
        # so that an env the user dropped is freed (the binding's model holds its env).
        self._cached: tuple[Any, _Binding] | None = None
        self.last_summary: SearchSummary | None = None
        self.last_planner: MCTS | None = None

    # ------------------------------------------------------------ public API

    def act(self, env: Any, *, history: tuple[int | None, Sequence[Any]] | None = None) -> Any:
        """Plans from a copy of ``env`` and returns the move of the agent to move.

        The live env is not changed (its board, observations, rewards,
        cumulative rewards, agent selection and random generators stay as
        they were).

        Args:
            env: a reset PettingZoo AEC env (for ``env.agent_selection``, which
                must not be terminated or truncated) or a Gymnasium env.
            history: ``(seed, actions)`` since the env's reset; only for
                ``clone="replay"`` (see ``PettingZooModel.state_of``).

        Returns:
            An action in the env's action space (a Python int for Discrete spaces).

        Raises:
            TypeError: if ``env`` is neither a PettingZoo AEC env nor a Gymnasium env.
            ValueError: if a PettingZoo env has not been reset, the game is
                over for the agent to move, or its game has hidden information
                or chance it cannot re-deal (see the module docstring); if the agent has a
                PettingZoo-only ``clone`` or ``env_factory`` and ``env`` is a
                Gymnasium env; as the adapter refuses an env (its start-up
                checks, and a chance found while planning: see
                ``GymnasiumModel``), the live env left as it was; if a PettingZoo
                game planned as two-player zero-sum has other rewards, or
                planning meets chance or such rewards (see ``PettingZooModel.step``).
            CloneCheckError: (a ValueError) if an adapter's clone check fails: a
                copy sharing mutable objects with the env, an attribute
                ``copy.deepcopy`` cannot copy, a clone that changed the env (then
                restored). The message says what to pass instead.
        """
        binding = self._binding(env)
        if history is None:
            state = binding.state_of(env)
        elif binding.replays:
            state = binding.state_of(env, history=history)
        else:
            raise ValueError("history is only read with clone='replay' (PettingZoo envs)")
        planner = binding.planner
        action = planner(state)
        summary = planner.summary()
        to_env_action = binding.to_env_action
        env_actions = tuple(to_env_action(a) for a in summary.actions)
        order: Sequence[int] = range(len(env_actions))
        if all(type(a) is int for a in env_actions):  # listed by number, whatever the model's order
            order = sorted(order, key=env_actions.__getitem__)
        self.last_planner = planner
        self.last_summary = summary._replace(
            actions=tuple(env_actions[i] for i in order),
            visit_counts=tuple(summary.visit_counts[i] for i in order),
            values=tuple(summary.values[i] for i in order),
            action=to_env_action(action),
            player=binding.to_env_player(summary.player),
            priors=tuple(summary.priors[i] for i in order),
            visit_distribution=tuple(summary.visit_distribution[i] for i in order),
            proven=tuple(summary.proven[i] for i in order),
            principal_variation=tuple(to_env_action(a) for a in summary.principal_variation),
        )
        return self.last_summary.action

    def close(self) -> None:
        """Ends the worker processes or Ray actors of the agent's planners (``workers > 1``).

        Idempotent; the agent cannot plan with workers once closed (RuntimeError).
        ``with MCTSAgent(...) as agent:`` closes it at the end of the block.
        """
        for binding in self._native.values():
            binding.planner.close()
        if self._cached is not None:
            self._cached[1].planner.close()

    def __enter__(self) -> MCTSAgent:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __call__(self, observation: Any, env: Any) -> Any:
        """Policy form ``policy(observation, env) -> action``: returns ``act(env)``.

        ``observation`` is not read: the agent plans from the env itself.
        """
        return self.act(env)

    # ------------------------------------------------------------- internals

    def _planner(
        self,
        model: Any,
        native: bool = False,
        seed: int | None = None,
        defaults: dict[str, Any] | None = None,
    ) -> MCTS:
        """A planner on ``model``, seeded with ``seed`` or from the agent's generator.

        ``defaults`` (:mod:`mcts_agent.defaults`) fill in the options the user left out;
        a ``time_limit`` among them (given only when the user gave no budget) replaces
        :data:`DEFAULT_TIME_LIMIT`.

        An ``EnvViewEvaluator`` is bound to an adapter's model (``bind`` raises
        TypeError for a model without env views); the native models, never used
        with one (see ``_binding``), get it unbound. A factory (``_is_factory``)
        given as ``rollout_policy`` or ``evaluator`` is called with ``model``.
        """
        options = self._search_options
        if defaults:
            options = {**defaults, **options}
            if "time_limit" in defaults:
                options["time_limit"] = defaults["time_limit"]
        if self._env_view_evaluator() and not native:
            options = {**options, "evaluator": options["evaluator"].bind(model)}
        if self._factories:
            options = {**options, **{name: make(model) for name, make in self._factories.items()}}
        return MCTS(model, seed=self._rng.getrandbits(63) if seed is None else seed, **options)

    def _env_view_evaluator(self) -> bool:
        """True if the evaluator is an ``EnvViewEvaluator`` (it needs the adapter's env views)."""
        evaluator = self._search_options.get("evaluator")
        if evaluator is None:
            return False
        from mcts_agent.adapters.env_view import EnvViewEvaluator

        return isinstance(evaluator, EnvViewEvaluator)

    def _native_binding(self, game: tuple[str, str], env: Any = None) -> _Binding:
        """The planner on our own model of PettingZoo's ``game`` (``env``'s, for go).

        Tic-tac-toe, connect four, Leduc, chess, and go at ``env``'s board size and komi.
        Made the first time (tic-tac-toe and connect four at once without
        factories, with the seed drawn for each when the agent was made; Leduc
        and go when first planned, seeded then from the agent's generator).
        """
        if game == _GO:
            inner = env.unwrapped
            game = (*_GO, inner._N, float(inner._komi))  # a planner per board size and komi
        binding = self._native.get(game)
        if binding is not None:
            return binding
        if game[:2] == _GO:
            from mcts_agent.envs.go import GoModel

            go = GoModel(board_size=game[2], komi=game[3])
            binding = self._native[game] = _Binding(
                self._planner(go, native=True, defaults=go_defaults(self._search_options)),
                go.state_of,
                _same,  # PettingZoo's actions (row * N + col, N * N a pass) are the model's
                lambda player: _GO_AGENTS[player - 1],
            )
            return binding
        if game == _CHESS:
            from mcts_agent.envs.chess import ChessModel

            chess_model = ChessModel()
            defaults = chess_defaults(self._search_options)
            if self._default_budget:
                defaults["time_limit"] = CHESS_TIME_LIMIT
            planner = self._planner(chess_model, native=True, defaults=defaults)
            # blames the caller of act: _native_binding <- _binding <- act <- caller
            warn_random_rollouts("chess", {**defaults, **self._search_options}, stacklevel=4)
            binding = self._native[game] = _Binding(
                planner,
                chess_model.state_of,
                _same,  # PettingZoo's actions (AlphaZero's 8x8x73 encoding) are the model's
                _CHESS_AGENTS.__getitem__,
            )
            return binding
        if game == _LEDUC:
            from mcts_agent.envs.leduc import LeducModel

            leduc = LeducModel()
            binding = self._native[game] = _Binding(
                self._planner(leduc, native=True, defaults=leduc_defaults()),
                leduc.state_of,
                _same,  # PettingZoo's actions are the model's
                _LEDUC_AGENTS.__getitem__,
            )
            return binding
        from mcts_agent.envs.connect_four import ConnectFourModel, from_pettingzoo_board
        from mcts_agent.envs.tic_tac_toe import (
            TicTacToeModel,
            state_from_pettingzoo,
            to_pettingzoo_action,
        )

        seed = self._native_seeds[game]
        if game == _TICTACTOE:
            binding = _Binding(
                self._planner(TicTacToeModel(), native=True, seed=seed),
                state_from_pettingzoo,
                to_pettingzoo_action,
                lambda player: _TICTACTOE_AGENTS[player - 1],
            )
            self._native[game] = binding
            return binding
        connect_four = ConnectFourModel()

        def connect_four_state(env: Any) -> tuple[int, int]:
            inner = env.unwrapped
            state = from_pettingzoo_board(inner.board)
            if connect_four.actions(state):
                expected = _CONNECT_FOUR_AGENTS[connect_four.player(state) - 1]
                if inner.agent_selection != expected:
                    raise ValueError(
                        f"the env has {inner.agent_selection!r} to move, but its board has "
                        f"{expected!r} to move"
                    )
            return state

        binding = self._native[game] = _Binding(
            self._planner(connect_four, native=True, seed=seed),
            connect_four_state,
            _same,  # PettingZoo's columns 0..6 are the model's actions
            lambda player: _CONNECT_FOUR_AGENTS[player - 1],
        )
        return binding

    def _binding(self, env: Any) -> _Binding:
        """The binding of ``env``: cached for the last env planned on, else made (and checked)."""
        kind = _env_kind(env)
        inner = env.unwrapped
        if kind == "pettingzoo":
            from mcts_agent.adapters.pettingzoo import (
                require_perfect_information,
                require_reset,
                unwrap_policing,
            )

            require_perfect_information(env)
            require_reset(env)
            if not inner.agents:
                raise ValueError(
                    "the game is over: every agent is done (env.agents is empty); call "
                    "env.reset(seed=...) to play a new game"
                )
            agent = inner.agent_selection
            if inner.terminations.get(agent, True) or inner.truncations.get(agent, True):
                raise ValueError(
                    f"the game is over for {agent!r} (terminated or truncated): step(None) "
                    "instead of asking the agent for a move"
                )
            cls = type(inner)
            game = (cls.__module__, cls.__qualname__)
            if (
                game in _NATIVE_GAMES
                and self.native_models
                and self.clone is None
                and self.zero_sum is None
                and not self._env_view_evaluator()
            ):
                unwrap_policing(env)
                return self._native_binding(game, env)
            if game == _CHESS:  # the env itself, stepped inside the search: no chess defaults
                # blames the caller of act: _binding <- act <- caller
                warn_random_rollouts(
                    "chess", self._search_options, stacklevel=3, advice=_GENERIC_CHESS_ADVICE
                )
        if self._cached is not None and self._cached[0] is inner:
            cached = self._cached[1]
            if cached.changed_parameters is None or not cached.changed_parameters():
                return cached
            cached.planner.close()  # planned with the old parameters: rebuilt below
            self._cached = None
        defaults = None
        if kind == "pettingzoo":
            from mcts_agent.adapters.pettingzoo import PettingZooModel

            model = PettingZooModel(
                env, clone=self.clone, env_factory=self.env_factory, zero_sum=self.zero_sum
            )
        elif (
            self.clone not in _GYMNASIUM_CLONES
            or self.env_factory is not None
            or self.zero_sum is not None
        ):
            raise ValueError(
                f"clone={self.clone!r}, env_factory and zero_sum are for PettingZoo envs only, "
                "but the "
                f"agent was given a Gymnasium env ({env}); a Gymnasium env takes clone=None, "
                '"snapshot" or "deepcopy"'
            )
        else:
            from mcts_agent.adapters.gymnasium import GymnasiumModel

            model = GymnasiumModel(env, clone=self.clone)
            defaults = gymnasium_defaults(env, model)
        binding = _Binding(
            self._planner(model, defaults=defaults),
            model.state_of,
            model.to_env_action,
            _same,
            replays=getattr(model, "clone_method", None) == "replay",
            changed_parameters=getattr(model, "changed_parameters", None),
        )
        if self._cached is not None:  # another env: its planner's workers end now
            self._cached[1].planner.close()
        self._cached = (inner, binding)
        return binding


def _env_kind(env: Any) -> str:
    """``"pettingzoo"`` for an AEC env, ``"gymnasium"`` for a Gymnasium env; else TypeError."""
    from pettingzoo import AECEnv

    if isinstance(env, AECEnv) or isinstance(getattr(env, "unwrapped", None), AECEnv):
        return "pettingzoo"
    import gymnasium

    if isinstance(env, gymnasium.Env):
        return "gymnasium"
    raise TypeError(
        "MCTSAgent plays a pettingzoo.AECEnv (turn-based, e.g. pettingzoo.make('aec', "
        f"'classic/tictactoe-v3')) or a gymnasium.Env; got {type(env).__name__}"
    )
