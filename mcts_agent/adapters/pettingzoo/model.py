"""PettingZoo AEC envs as models: exact, independent copies of the game to plan in.

:class:`PettingZooModel` turns a turn-based PettingZoo env (the AEC API,
``pettingzoo.AECEnv``) into a model of ``docs/concepts/model.md``::

    env = pettingzoo.make("aec", "classic/tictactoe-v3")   # or tictactoe_v3.env()
    env.reset(seed=1)
    env.step(4)
    model = PettingZooModel(env)              # checks its clone of env once
    state = model.state_of(env)               # an independent copy; env is not touched
    model.player(state)                       # 'player_2' (env.agent_selection)
    model.actions(state)                      # (0, 1, 2, 3, 5, 6, 7, 8)
    model.step(state, 0)                      # StepResult(next_state, reward, terminated)

=======================  =====================================================
``player(state)``        the agent id to move (``agent_selection``)
``actions(state)``       the legal actions, from ``observation["action_mask"]``
                         (or ``infos[agent]["action_mask"]``, or every action
                         of a ``Discrete`` space without a mask), in increasing
                         order; empty once the game is over: when every agent
                         is terminated or truncated, or the agent to move is
                         (PettingZoo's mask still lists empty cells after a
                         win, so it is not read there)
``step(state, action)``  ``StepResult(next_state, reward, terminated)``:
                         ``reward`` is every agent's reward of the step,
                         ``{agent: env.rewards[agent]}`` after it (an agent
                         missing from ``env.rewards`` gets 0.0), or, for a
                         two-player zero-sum game, ``env.rewards[mover]``
                         alone (see "Rewards" below); ``terminated`` is
                         True when every agent is terminated *or
                         truncated* (an env's own time limit
                         ends the plan as it ends the game). An action outside
                         the legal set raises ValueError (PettingZoo's
                         ``TerminateIllegalWrapper`` would end the game with a
                         penalty instead)
=======================  =====================================================

Cloning. ``copy.deepcopy`` and pickle of PettingZoo's classic envs silently
return a *fresh* game (they inherit ``gymnasium.utils.EzPickle``, which
rebuilds the env from its constructor arguments; PettingZoo issues #1186,
#1307), so a naive adapter plans from the empty board. The model clones with
one of these methods (``clone_method``):

* ``"snapshot"`` (chosen for ``classic/tictactoe-v3``,
  ``classic/connect_four-v3`` and ``classic/go-v5``): a state holds an
  immutable tuple of the game's variables (board, ``agents``,
  ``agent_selection``, the agent selector, ``rewards``, ``_cumulative_rewards``,
  ``terminations``, ``truncations``, ``infos``), restored into one private
  scratch env to step it; go's board is its ``go_base.Position`` object itself,
  which every move replaces and none changes. Legal actions come from the env's
  own legal-move function, the one its mask is built from.
* ``"attributes"`` (chosen for any other AEC env): a copy of the env's own
  attributes (``copy.deepcopy`` of its ``__dict__`` into an object made without
  calling the constructor), which bypasses EzPickle's rebuilding pickle path.
  The action and observation spaces are shared, not copied (they are fixed
  descriptions; the model never samples from them).
* ``"replay"``: a fresh env from ``env_factory()``, ``reset(seed=seed)``, and
  the same actions stepped again. The model cannot see an env's past, so
  ``state_of`` needs ``history=(seed, actions)`` (and checks, at every call,
  that the replay reaches the env's position).
* a function ``clone(env) -> env`` of your own (``clone_method`` ``"user"``),
  applied to the env you pass (wrappers included), which must return an
  independent copy of its current position.

Where clones are made: a state made by ``step`` owns its copy; ``step`` clones
the state it starts from once (expansion clones once per new edge), and the
fused :meth:`PettingZooModel.rollout` clones once and steps that one copy to
the end (with ``"snapshot"``, a rollout from the state ``step`` has just made
reuses the scratch env as it is, with no copy at all).

The clone check. When the model is made (for ``"replay"``: at the first
``state_of``), it clones the env and, before stepping anything, walks the
clone and the live env (:func:`~mcts_agent.adapters.env_probe.shared_mutable_objects`):
a mutable object they share (a dict of rewards, a board, a handle to an
external simulator whose ``__deepcopy__`` returns itself) is refused, naming
its attribute. It compares the clone with the original: every agent's
observation, the legal actions, the agent to move, ``agents``, ``rewards``,
``_cumulative_rewards``, ``terminations``, ``truncations`` and ``infos``; steps
the clone and clones the stepped clone (now mid-game, where a
constructor-rebuilding copy shows), which must equal it and share nothing with
it; then plays :data:`DETERMINISM_TRIALS` random games from the position to
their end (at most :data:`DETERMINISM_STEPS` moves), checking every step's
rewards (below). Everything the check does is done on copies; the live env's
fingerprint and random generators are compared before and after, and if the
check changed them (a clone function that writes into the env it copies), the
env's attributes are put back and the check fails. A failure raises
:class:`CloneCheckError` naming the clone method and what to pass instead
(advice that works for ``PettingZooModel`` and ``MCTSAgent`` alike). An
attribute ``copy.deepcopy`` cannot copy (a ``threading.Lock``, a value nested
deeper than Python's recursion limit) is named with its cause.

Rewards. PettingZoo gives every agent a reward at every step (``env.rewards``
after the step: that step's rewards). By default the model reports all of
them: ``reward_players`` is ``possible_agents`` and ``step``'s reward the
mapping ``{agent: reward}``, so the search backs up every agent's return
(max^n, :mod:`mcts_agent.maxn`) and plans cooperative, general-sum and
n-player games right (a reward to an agent on another's move counts too).
Two-player zero-sum games keep the cheaper negamax search of the mover's
reward (``reward_players`` None, ``reward`` a float; the same trees, faster):
the games known to be (:data:`~mcts_agent.adapters.pettingzoo.known_games.ZERO_SUM_GAMES`:
tic-tac-toe, connect four, chess, go), or any two-player game with
``zero_sum=True``. Planned so, every step's rewards are checked to be
zero-sum (but for tic-tac-toe and connect four, which are), and a step whose
rewards are not raises ValueError: at start-up if the random games of the
clone check meet one, else while planning. ``zero_sum=False`` plans a known
game with every agent's reward (the same trees, slower). A one-player game
reports the mover's reward as a float.

Copies made by the built-in methods do not render (``render_mode`` None), and
share the env's spaces and pygame objects.

Deterministic games of perfect information only. The search plans on a full
copy of the game (``docs/concepts/model.md``): in a game with hidden information it would see
what its player cannot (the opponent's cards, a simultaneous move already
made), and in a game of chance it would keep the first dice roll or deal of
each edge for ever. So the model refuses, with a ValueError naming the game:

* the PettingZoo classic games known to have hidden information or chance
  (:data:`IMPERFECT_INFORMATION_GAMES`): ``classic/rps-v2`` (the second
  player would see the first one's move), every RLCard card game
  (``classic/leduc_holdem-v4``, ``classic/texas_holdem-v4``,
  ``classic/texas_holdem_no_limit-v6``: hidden hands, and a deck shuffled at
  ``reset``, so later deals are already fixed in the copy) and
  ``classic/hanabi-v5`` (hidden hands, random draws); subclasses too;
* any other env that draws random numbers while it is stepped: at start-up
  (not for the ``"snapshot"`` games, whose ``step`` draws nothing) the random
  games of the clone check are played again in copies whose random generators
  (``random.Random``, ``numpy.random.Generator``, ``RandomState`` and bit
  generator objects wherever a deep copy of the env's attributes carries
  them, not the spaces', and Python's and numpy's global generators, whose
  states are put back afterwards, refusals included) are reseeded
  differently (in eight copies if the first game moved a generator); any
  difference in what the clone check compares is refused, and so is a
  generator that ignores reseeding. While planning, the first
  :data:`PLANNING_CHECKS_PER_DEPTH` new edges at each depth below the
  searched position and one in :data:`PLANNING_CHECK_EVERY` of the others are
  stepped again in a copy whose own generators are reseeded (the global ones
  are left where the first step left them, and put back after): a difference
  ends the search with the same ValueError. These are samples: chance met only in lines the search
  rarely expands can pass.

Neither catches everything: a custom game whose chance was drawn at
``reset`` (like the RLCard deck) or whose hidden information is in its
attributes passes; planning on it is wrong in the same way.

Wrappers. The built-in methods plan on ``env.unwrapped``. PettingZoo's
standard wrappers only police moves (``OrderEnforcingWrapper``,
``AssertOutOfBoundsWrapper``, ``TerminateIllegalWrapper``) or capture printed
output (``CaptureStdoutWrapper``); the model keeps their meaning by allowing
only legal moves (it raises ValueError where they would end the game or
assert). Any other wrapper could change what the game means (rewards,
observations), so the built-in methods refuse it: pass ``clone=`` a function
that copies the wrapped env, or ``"replay"`` with a factory that wraps it; both
step the env with its wrappers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mcts_agent.adapters.env_view import EnvView
from mcts_agent.adapters.errors import CloneCheckError
from mcts_agent.adapters.pettingzoo.checks import (
    PLANNING_CHECK_EVERY,
    PLANNING_CHECKS_PER_DEPTH,
    check_clone,
    check_clone_arguments,
    check_step,
    require_planned_rewards,
    require_reset,
    unwrap_policing,
)
from mcts_agent.adapters.pettingzoo.cloning import (
    AttributesMethod,
    History,
    ReplayMethod,
    SnapshotMethod,
    UserMethod,
)
from mcts_agent.adapters.pettingzoo.hidden_information import planned_game
from mcts_agent.adapters.pettingzoo.known_games import (
    is_known_zero_sum,
    known_game,
    library_globals,
    require_perfect_information,
    restore_library_globals,
)
from mcts_agent.adapters.pettingzoo.reading import (
    fingerprint,
    first_difference,
    game_name,
    game_over,
)
from mcts_agent.model import StepResult

__all__ = ["PettingZooModel", "PettingZooState"]


class PettingZooState:
    """A model state: one position of a PettingZoo game, private to the model.

    Immutable (``copy``/``deepcopy`` return the state itself); two states are
    equal when their agent to move, legal actions and positions are equal
    (env copies are compared by their observable game: observations, legal
    actions, rewards, terminations, truncations). Not hashable.

    Attributes:
        agent: the agent id to move (``agent_selection``).
        actions: tuple of the legal actions in increasing order; ``()`` once the
            game is over.
        position: the clone method's copy of the game: a tuple of the game's
            variables (``"snapshot"``), an env (``"attributes"``, ``"user"``) or
            ``(seed, actions)`` (``"replay"``). Never stepped or changed.
        depth: int >= 0, moves from the position ``state_of`` read (not compared).
    """

    __slots__ = ("agent", "actions", "position", "depth")

    def __init__(self, agent: Hashable, actions: tuple, position: Any, depth: int = 0) -> None:
        self.agent = agent
        self.actions = actions
        self.position = position
        self.depth = depth

    def __copy__(self) -> PettingZooState:
        return self

    def __reduce__(self) -> tuple:
        """Pickles the state with the globals of its game's library (for a worker process).

        PettingZoo's chess fills its table of moves lazily in a module global
        and go keeps its board size in module globals; a process unpickling
        the state (:mod:`mcts_agent.parallel`) gets them too
        (:func:`~mcts_agent.adapters.pettingzoo.known_games.library_globals`).
        """
        return _unpickled_state, (
            self.agent,
            self.actions,
            self.position,
            self.depth,
            library_globals(),
        )

    def __deepcopy__(self, memo: dict) -> PettingZooState:
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PettingZooState):
            return NotImplemented
        if self.agent != other.agent or self.actions != other.actions:
            return False
        a, b = self.position, other.position
        if isinstance(a, AECEnv) and isinstance(b, AECEnv):
            return a is b or fingerprint(a) == fingerprint(b)
        return type(a) is type(b) and a == b

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PettingZooState(agent={self.agent!r}, actions={self.actions!r})"


def _unpickled_state(
    agent: Hashable, actions: tuple, position: Any, depth: int, globals_: tuple
) -> PettingZooState:
    """A pickled :class:`PettingZooState` made again, its library's globals restored first."""
    restore_library_globals(globals_)
    return PettingZooState(agent, actions, position, depth)


class PettingZooModel:
    """A PettingZoo AEC env as a model of ``docs/concepts/model.md`` (see the module docstring).

    Args:
        env: the PettingZoo AEC env (wrapped or not) to plan for; it must have
            been reset. It is read, never stepped or changed.
        clone: None to choose the built-in method (``"snapshot"`` for
            tic-tac-toe, connect four and go, else ``"attributes"``); one of
            ``"snapshot"``, ``"attributes"``, ``"replay"`` to force it; or a
            function ``clone(env) -> env`` returning an independent copy of
            the env's current position (wrappers included).
        env_factory: ``() -> AECEnv`` building a new env of the same game (with
            the same wrappers); required by ``clone="replay"`` and refused
            without it.
        zero_sum: None (the default) to plan the known two-player zero-sum
            games (:data:`~mcts_agent.adapters.pettingzoo.known_games.ZERO_SUM_GAMES`)
            with the mover's reward and every other game with every agent's
            reward; True to say the game is two-player zero-sum (the mover's
            reward, checked at every step); False for every agent's reward.

    Attributes:
        clone_method: ``"snapshot"``, ``"attributes"``, ``"replay"`` or ``"user"``.
        possible_agents: tuple of the env's ``possible_agents``.
        num_players: ``len(possible_agents)``.
        zero_sum: True if the game is planned as two-player zero-sum.
        reward_players: ``possible_agents`` when ``step`` reports every
            agent's reward (a mapping; :mod:`mcts_agent.maxn`), else None (the
            mover's reward, a float: a zero-sum or one-player game).

    Raises:
        TypeError: if ``env`` is not an AEC env, an agent's action space is not
            ``gymnasium.spaces.Discrete``, or ``clone``/``env_factory``/``zero_sum``
            has the wrong type.
        ValueError: if ``env`` has not been reset; if its game has hidden
            information or chance (one of :data:`IMPERFECT_INFORMATION_GAMES`,
            or it fails the determinism check: see the module docstring), or
            it is planned as zero-sum and its start-up games meet rewards that
            are not; if ``zero_sum=True`` comes with other than two players; if
            ``clone`` names an unknown method, ``"snapshot"`` is asked for an
            unknown game, ``"replay"`` lacks ``env_factory`` or
            ``env_factory`` comes without ``"replay"``, or a built-in method
            meets a wrapper it would bypass.
        CloneCheckError: if the clone is not exact (see the module docstring).
    """

    def __new__(cls, *args: Any, **options: Any) -> PettingZooModel:
        """Makes the model: a ``PettingZooHiddenModel`` for a game the adapter re-deals.

        :class:`~mcts_agent.adapters.pettingzoo.hidden_model.PettingZooHiddenModel`
        for a hidden-information game of ``hidden_information.PLANNED_GAMES``
        (planned with ISMCTS), else ``cls``'s object; without arguments
        (unpickling, in a worker process) ``cls``'s.
        """
        env = args[0] if args else options.get("env")
        if cls is PettingZooModel and isinstance(env, AECEnv) and planned_game(env) is not None:
            from mcts_agent.adapters.pettingzoo.hidden_model import PettingZooHiddenModel

            cls = PettingZooHiddenModel
        return super().__new__(cls)

    def __init__(
        self,
        env: AECEnv,
        *,
        clone: str | Callable[[AECEnv], AECEnv] | None = None,
        env_factory: Callable[[], AECEnv] | None = None,
        zero_sum: bool | None = None,
    ) -> None:
        if not isinstance(env, AECEnv):
            raise TypeError(
                f"env must be a pettingzoo.AECEnv (the AEC API), got {type(env).__name__}"
            )
        check_clone_arguments(clone, env_factory)
        require_perfect_information(env)  # first: resetting would not help
        require_reset(env)
        inner = env.unwrapped
        self.possible_agents = tuple(inner.possible_agents)
        self.num_players = len(self.possible_agents)
        if zero_sum is not None and not isinstance(zero_sum, bool):
            raise TypeError(f"zero_sum must be None, True or False, got {zero_sum!r}")
        if zero_sum and self.num_players != 2:
            raise ValueError(
                f"zero_sum=True plans a two-player zero-sum game (the mover's reward, counted "
                f"negatively for the other player); {game_name(env)} has {self.num_players} "
                "agents: leave zero_sum None or False to plan every agent's reward"
            )
        self.zero_sum: bool = is_known_zero_sum(env) if zero_sum is None else zero_sum
        scalar = self.zero_sum or self.num_players == 1
        self.reward_players: tuple | None = None if scalar else self.possible_agents
        for agent in self.possible_agents:
            space = inner.action_space(agent)
            if not isinstance(space, spaces.Discrete):
                raise TypeError(
                    f"PettingZooModel supports Discrete action spaces only; agent {agent!r} "
                    f"has {space!r}"
                )
        self._game_type = type(inner)
        game = known_game(env)
        if callable(clone):
            self._method: Any = UserMethod(clone)
        elif clone == "replay":
            self._method = ReplayMethod(env_factory)
        else:  # None, "snapshot" or "attributes"
            if clone == "snapshot" and game is None:
                raise ValueError(
                    f"clone='snapshot' knows tictactoe, connect_four and go only, not "
                    f"{type(inner).__module__}.{type(inner).__qualname__}; pass clone=None "
                    "or 'attributes'"
                )
            unwrap_policing(env)
            if game is not None and clone != "attributes":
                self._method = SnapshotMethod(env, game)
            else:
                self._method = AttributesMethod()
        self.clone_method: str = self._method.name
        self._scratch_holds: PettingZooState | None = None  # the state a scratch env is in
        self._checked = False
        # The known games (snapshot) draw no random numbers and are two-player zero-sum.
        self._checks_steps = self.clone_method != "snapshot"
        self._checks_rewards = self._checks_steps and self.reward_players is None
        self._steps_since_check = 0
        self._checks_made = 0
        self._checks_at_depth: dict[int, int] = {}  # since the last state_of
        if self.clone_method != "replay":
            check_clone(self, env)

    # ------------------------------------------------------------ public API

    def state_of(self, env: AECEnv, *, history: History | None = None) -> PettingZooState:
        """Returns the state of ``env``'s current position: an independent copy.

        ``env`` is read only (through ``env.unwrapped``, which has no side
        effects on the wrappers, or through the user's clone function).

        Args:
            env: an env of the model's game (same unwrapped class), reset.
            history: ``(seed, actions)``, the reset seed and every action
                stepped since; required by ``"replay"``, ignored otherwise.

        Returns:
            The state; ``actions`` is empty if the game is over.

        Raises:
            TypeError: if ``env`` is not an env of the model's game.
            ValueError: if ``"replay"`` is used without ``history``, or
                (``"replay"``, first call) the game fails the determinism check.
            CloneCheckError: (``"replay"``) if the replayed env differs from
                ``env`` (every call), or fails the clone check (first call).
        """
        if not isinstance(env, AECEnv) or type(env.unwrapped) is not self._game_type:
            raise TypeError(
                f"env must be a {self._game_type.__qualname__} from "
                f"{self._game_type.__module__} (the model's game), got {type(env).__name__}"
            )
        method = self._method
        self._checks_at_depth = {}  # a new root: its first edges at each depth are checked
        if self.clone_method == "replay":
            if history is None:
                raise ValueError(
                    "clone='replay' cannot read an env's past: pass history=(seed, actions), "
                    "the reset seed and every action stepped since"
                )
            position = method.position_of(history)
            if not self._checked:
                check_clone(self, env, position)
            work = method.load(position)
            difference = first_difference(fingerprint(env), fingerprint(work))
            if difference:
                raise CloneCheckError(
                    f"clone method 'replay' ({method.description}) did not reach the env's "
                    f"position from history {history!r}: {difference}; {method.advice}"
                )
        else:
            position = method.capture(env)
            work = env.unwrapped if self.clone_method == "snapshot" else position
        return self._state(work, position)

    def actions(self, state: PettingZooState) -> tuple:
        """Returns the legal actions of ``state`` in increasing order; () if the game is over."""
        return state.actions

    def player(self, state: PettingZooState) -> Hashable:
        """Returns the agent id to move in ``state`` (PettingZoo's ``agent_selection``)."""
        return state.agent

    def step(self, state: PettingZooState, action: Any) -> StepResult:
        """Steps a copy of ``state``'s game with ``action`` for the agent to move.

        Args:
            state: a state of this model.
            action: one of ``actions(state)``.

        Returns:
            ``StepResult(next_state, reward, terminated)``: ``reward`` is
            ``{agent: rewards[agent]}`` after the step (floats, one per agent of
            ``possible_agents``), or, with ``reward_players`` None,
            ``rewards[agent]`` of the agent that moved (a float);
            ``terminated`` is True when every agent is terminated or truncated.

        Raises:
            ValueError: if ``action`` is not legal in ``state`` (or the game is
                over); if the game is planned as zero-sum and the step's
                rewards are not, or
                the step, re-stepped in a reseeded copy (a sample of the
                steps: module docstring), gives another game.
        """
        if action not in state.actions:
            if not state.actions:
                raise ValueError(
                    f"action {action!r} is not legal: the game is over (no legal actions for "
                    f"{state.agent!r})"
                )
            raise ValueError(
                f"action {action!r} is not legal for {state.agent!r}; legal actions: "
                f"{list(state.actions)}"
            )
        method = self._method
        env = method.load(state.position)
        mover = state.agent
        env.step(action)
        rewards = env.rewards
        if self.reward_players is None:
            reward: Any = float(rewards[mover])
        else:  # every agent's reward of the step (plain Python floats)
            reward = {agent: float(rewards.get(agent, 0.0)) for agent in self.possible_agents}
        if self._checks_steps:
            if self._checks_rewards:
                require_planned_rewards(env, mover, action, self.num_players)
            depth = state.depth + 1
            self._steps_since_check += 1
            checked_here = self._checks_at_depth.get(depth, 0)
            if (
                checked_here < PLANNING_CHECKS_PER_DEPTH
                or self._steps_since_check >= PLANNING_CHECK_EVERY
            ):
                self._checks_at_depth[depth] = checked_here + 1
                self._steps_since_check = 0
                self._checks_made += 1
                check_step(self, state, action, env)
        next_state = self._state(env, method.commit(env, state.position, action), state.depth + 1)
        # With legal actions left the agent to move plays on, so not every agent is done.
        terminated = not next_state.actions and game_over(env)
        if method.reuses_scratch:
            self._scratch_holds = next_state
        return StepResult(next_state, reward, terminated)

    def rollout(self, state: PettingZooState, rng: random.Random, limit: int, gamma: float) -> Any:
        """Plays uniformly random legal moves from ``state`` on one copy of its game.

        The fused rollout :class:`~mcts_agent.search.MCTS` uses when no rollout
        policy is given (:class:`~mcts_agent.model.RolloutModel`): the same
        random draws, moves and return as the search's generic rollout, with
        one clone instead of one per move.

        Args:
            state: a state with at least one legal action.
            rng: the generator to draw from (``int(rng.random() * len(actions))``).
            limit: int >= 1, most moves played.
            gamma: discount rate in [0, 1].

        Returns:
            With ``reward_players`` None, the return (a Python float) from the
            point of view of ``player(state)``: ``sum_t coef_t * r_t`` with
            ``coef_0 = 1`` and ``coef_{t+1} = coef_t * (gamma if the agent to
            move stays the same else -gamma)``. Otherwise every agent's return,
            ``{agent: sum_t gamma**t * rewards_t[agent]}`` (:mod:`mcts_agent.maxn`).

        Raises:
            ValueError: if the game is planned as zero-sum and a step's rewards
                are not (but for the ``"snapshot"`` games).
        """
        method = self._method
        if state is self._scratch_holds:
            env = method.scratch  # step() has just left the scratch env in this state
        else:
            env = method.load(state.position)
        self._scratch_holds = None
        legal_actions = method.legal_actions
        random_ = rng.random
        actions = state.actions
        if self.reward_players is not None:
            return self._rollout_every_reward(env, actions, random_, limit, gamma)
        mover = state.agent
        checks = self._checks_rewards
        g = 0.0
        coef = 1.0
        while True:
            action = actions[int(random_() * len(actions))]
            env.step(action)
            g += coef * float(env.rewards[mover])  # a Python float, whatever the env's type
            if checks:
                require_planned_rewards(env, mover, action, self.num_players)
            limit -= 1
            agent = env.agent_selection
            # The game is over for the search when the agent to move is done (also
            # when every agent is): the generic rollout stops there too.
            if limit == 0 or env.terminations.get(agent, True) or env.truncations.get(agent, True):
                return g
            actions = legal_actions(env, agent)
            if not actions:
                return g
            coef *= gamma if agent == mover else -gamma
            mover = agent

    def _rollout_every_reward(
        self, env: AECEnv, actions: tuple, random_: Any, limit: int, gamma: float
    ) -> dict:
        """:meth:`rollout` on ``env`` (a copy) with every agent's return: the same moves."""
        legal_actions = self._method.legal_actions
        agents = self.possible_agents
        g = dict.fromkeys(agents, 0.0)
        coef = 1.0
        while True:
            env.step(actions[int(random_() * len(actions))])
            rewards = env.rewards
            for agent in agents:
                r = rewards.get(agent, 0.0)
                if r:
                    g[agent] += coef * float(r)
            limit -= 1
            agent = env.agent_selection
            if limit == 0 or env.terminations.get(agent, True) or env.truncations.get(agent, True):
                return g
            actions = legal_actions(env, agent)
            if not actions:
                return g
            coef *= gamma

    def env_view(self, state: PettingZooState) -> EnvView:
        """Returns what the env shows the agent to move in ``state``: observation and mask.

        For evaluators written against observations
        (:class:`~mcts_agent.adapters.env_view.EnvViewEvaluator`). The
        observation is ``env.observe(agent)`` of the state's game (its
        ``"observation"`` entry when it is a dict with an ``"action_mask"``,
        as in PettingZoo's classic games); with ``"attributes"`` the state's
        own copy is observed (PettingZoo's ``observe`` only reads), with the
        other methods the position is restored first.

        Args:
            state: a state of this model.

        Returns:
            ``EnvView(observation, action_mask)``; the mask (int8, shape
            ``[n]`` of the agent's ``Discrete(n)`` space) marks
            ``state.actions`` (all zeros once the game is over).
        """
        method = self._method
        if self.clone_method == "attributes":
            env = state.position
        else:
            env = method.load(state.position)
            self._scratch_holds = None
        observation = env.observe(state.agent)
        if isinstance(observation, dict) and "action_mask" in observation:
            observation = observation.get("observation")
        mask = np.zeros(env.action_space(state.agent).n, dtype=np.int8)
        mask[list(state.actions)] = 1
        return EnvView(observation, mask)

    def to_env_action(self, action: Any) -> Any:
        """Returns the env's action for the model's ``action``: the same (PettingZoo's own)."""
        return action

    # ------------------------------------------------------------- internals

    def _state(self, env: AECEnv, position: Any, depth: int = 0) -> PettingZooState:
        """The state of ``env``'s position; ``position`` is the method's copy of it.

        No legal actions when the agent to move is terminated or truncated
        (so also when every agent is): PettingZoo's mask is not read there.
        """
        agent = env.agent_selection
        if env.terminations.get(agent, True) or env.truncations.get(agent, True):
            return PettingZooState(agent, (), position, depth)
        actions = tuple(self._method.legal_actions(env, agent))
        return PettingZooState(agent, actions, position, depth)
