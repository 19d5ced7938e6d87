"""PettingZoo AEC envs as models: exact, independent copies of the game to plan in.

:class:`PettingZooModel` turns a turn-based PettingZoo env (the AEC API,
``pettingzoo.AECEnv``) into a model of ``docs/search.md``::

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
                         ``reward`` is ``env.rewards[mover]`` after the step
                         (PettingZoo's reward of that step to the agent that
                         moved); ``terminated`` is True when every agent is
                         terminated *or truncated* (an env's own time limit
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

* ``"snapshot"`` (chosen for ``classic/tictactoe-v3`` and
  ``classic/connect_four-v3``): a state holds an immutable tuple of the game's
  variables (board, ``agents``, ``agent_selection``, the agent selector,
  ``rewards``, ``_cumulative_rewards``, ``terminations``, ``truncations``,
  ``infos``), restored into one private scratch env to step it. Legal actions
  come from the env's own legal-move function, the one its mask is built from.
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
``state_of``), it clones the env and compares the clone with the original:
every agent's observation, the legal actions, the agent to move, ``agents``,
``rewards``, ``_cumulative_rewards``, ``terminations`` and ``truncations``.
It then steps the clone and checks that the original did not change, and
clones the stepped clone (now mid-game, where a constructor-rebuilding copy
shows) and compares again. A failure raises :class:`CloneCheckError` naming
the clone method and what to pass instead (if a broken clone changed the
original, the original's attributes are put back first).

Copies made by the built-in methods do not render (``render_mode`` None), and
share the env's spaces and pygame objects.

Deterministic games of perfect information only. The search plans on a full
copy of the game (``docs/search.md``): in a game with hidden information it would see
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
  (with the clone check; not for the ``"snapshot"`` games, whose ``step``
  draws nothing) :data:`DETERMINISM_TRIALS` random move sequences of up to
  :data:`DETERMINISM_STEPS` moves are played in two copies of the position
  whose random generators (``random.Random``, ``numpy.random.Generator`` and
  ``RandomState`` objects reachable from the env's attributes, not the
  spaces' or the live env's own) are reseeded differently; any difference in
  what the clone check compares is refused.

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

import copy
import random
import types
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    BaseWrapper,
    CaptureStdoutWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)

from mcts_agent._validation import require_seed
from mcts_agent.adapters.env_view import EnvView
from mcts_agent.adapters.errors import CloneCheckError
from mcts_agent.model import StepResult

__all__ = [
    "CLONE_METHODS",
    "DETERMINISM_STEPS",
    "DETERMINISM_TRIALS",
    "IMPERFECT_INFORMATION_GAMES",
    "POLICING_WRAPPERS",
    "PettingZooModel",
    "PettingZooState",
    "check_clone_arguments",
    "require_perfect_information",
    "require_reset",
    "unwrap_policing",
]

POLICING_WRAPPERS: tuple[type, ...] = (
    OrderEnforcingWrapper,
    AssertOutOfBoundsWrapper,
    TerminateIllegalWrapper,
    CaptureStdoutWrapper,
)
"""PettingZoo wrappers that only police moves or capture output: planning on
``env.unwrapped`` with legal moves only keeps their meaning."""

_RESET_ATTRIBUTES = (
    "agents",
    "agent_selection",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
)
"""What an AEC env's ``reset`` sets (``AECEnv.last`` reads them)."""

IMPERFECT_INFORMATION_GAMES: dict[tuple[str, str], str] = {
    ("pettingzoo.classic.rps.rps", "raw_env"): (
        "its moves are simultaneous but stepped in turn, so the planner of the second player "
        "would see the first player's hidden move (hidden information)"
    ),
    ("pettingzoo.classic.rlcard_envs.rlcard_base", "RLCardBase"): (
        "it is an RLCard card game: the planner would see the opponent's hidden cards and, "
        "since the deck is shuffled at reset, the cards still to be dealt (hidden information "
        "and chance)"
    ),
    ("pettingzoo.classic.hanabi.hanabi", "raw_env"): (
        "the planner would see its own hidden hand and the cards still to be drawn (hidden "
        "information and chance)"
    ),
}
"""PettingZoo classic games (module and class name of a class in ``env.unwrapped``'s
MRO) that the model refuses, with the reason: planning on a copy of the game would be
wrong. Gin rummy (an RLCard game of older PettingZoo versions, not in 1.27) is covered by
``RLCardBase``."""

DETERMINISM_TRIALS = 2
"""Random move sequences the start-up determinism check plays."""

DETERMINISM_STEPS = 10
"""Most moves of one sequence of the start-up determinism check."""

_RANDOM_GENERATORS = (random.Random, np.random.Generator, np.random.RandomState)

_NOT_SEARCHED = (
    spaces.Space,
    np.ndarray,
    type,
    types.ModuleType,
    types.FunctionType,
    types.MethodType,
    types.BuiltinFunctionType,
)
"""What :func:`_random_generators` does not look into."""

_MAX_OBJECTS_SEARCHED = 5000
"""Most objects visited when looking for an env's random generators."""

History = tuple[int | None, Sequence[Any]]
"""``(seed, actions)``: the ``reset`` seed and every action stepped since, in order."""


CLONE_METHODS = ("snapshot", "attributes", "replay")
"""The built-in clone methods ``clone=`` may name (module docstring)."""


def check_clone_arguments(clone: Any, env_factory: Any) -> None:
    """Checks the ``clone`` and ``env_factory`` arguments of :class:`PettingZooModel`.

    Args:
        clone: None, one of :data:`CLONE_METHODS`, or a function ``env -> env``.
        env_factory: None, or a function ``() -> AECEnv``; given exactly when
            ``clone`` is ``"replay"``.

    Raises:
        TypeError: if ``clone`` is neither None, a str nor callable, or
            ``env_factory`` is neither None nor callable.
        ValueError: if ``clone`` names an unknown method, ``"replay"`` comes
            without ``env_factory``, or ``env_factory`` comes without ``"replay"``.
    """
    expected = (
        "clone must be None, 'snapshot', 'attributes', 'replay' or a function "
        f"env -> independent copy, got {clone!r}"
    )
    if clone is not None and not callable(clone):
        if not isinstance(clone, str):
            raise TypeError(expected)
        if clone not in CLONE_METHODS:
            raise ValueError(expected)
    if env_factory is not None and not callable(env_factory):
        raise TypeError(f"env_factory must be a callable () -> AECEnv, got {env_factory!r}")
    if clone == "replay" and env_factory is None:
        raise ValueError("clone='replay' needs env_factory=<() -> new env of the same game>")
    if env_factory is not None and not (isinstance(clone, str) and clone == "replay"):
        raise ValueError(
            f"env_factory is only used by clone='replay', got clone={clone!r}: drop "
            "env_factory or pass clone='replay'"
        )


def require_reset(env: AECEnv) -> None:
    """Checks that ``env`` has been reset (it has every attribute ``AECEnv.reset`` sets).

    Args:
        env: a PettingZoo AEC env, wrapped or not.

    Raises:
        ValueError: if ``env.unwrapped`` lacks one of ``agents``,
            ``agent_selection``, ``rewards``, ``_cumulative_rewards``,
            ``terminations``, ``truncations``, ``infos`` (some envs set a few
            in their constructor; ``_cumulative_rewards`` only comes with
            ``reset``).
    """
    inner = env.unwrapped
    if any(not hasattr(inner, name) for name in _RESET_ATTRIBUTES):
        raise ValueError("env has not been reset: call env.reset(seed=...) first")


def unwrap_policing(env: AECEnv) -> AECEnv:
    """Returns ``env.unwrapped`` after checking that every wrapper only polices moves.

    Args:
        env: a PettingZoo AEC env, wrapped or not.

    Returns:
        The innermost env (``env.unwrapped``).

    Raises:
        TypeError: if ``env`` is not a ``pettingzoo.AECEnv``.
        ValueError: if a wrapper is not one of :data:`POLICING_WRAPPERS`
            (planning on the unwrapped env would ignore what it does).
    """
    if not isinstance(env, AECEnv):
        raise TypeError(f"env must be a pettingzoo.AECEnv (the AEC API), got {type(env).__name__}")
    layer = env
    while isinstance(layer, BaseWrapper):
        if not isinstance(layer, POLICING_WRAPPERS):
            raise ValueError(
                f"env is wrapped in {type(layer).__name__}, which the built-in clone methods "
                "would bypass (they plan on env.unwrapped; only "
                f"{', '.join(w.__name__ for w in POLICING_WRAPPERS)} are known to keep the "
                "game's meaning). Pass clone=<function env -> independent copy> that copies "
                "the wrapped env, or clone='replay' with env_factory=<() -> wrapped env>"
            )
        layer = layer.env
    return env.unwrapped


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
    """

    __slots__ = ("agent", "actions", "position")

    def __init__(self, agent: Hashable, actions: tuple, position: Any) -> None:
        self.agent = agent
        self.actions = actions
        self.position = position

    def __copy__(self) -> PettingZooState:
        return self

    def __deepcopy__(self, memo: dict) -> PettingZooState:
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PettingZooState):
            return NotImplemented
        if self.agent != other.agent or self.actions != other.actions:
            return False
        a, b = self.position, other.position
        if isinstance(a, AECEnv) and isinstance(b, AECEnv):
            return a is b or _fingerprint(a) == _fingerprint(b)
        return type(a) is type(b) and a == b

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PettingZooState(agent={self.agent!r}, actions={self.actions!r})"


# ---------------------------------------------------------------- reading an env


def _mask_actions(env: AECEnv, agent: Hashable) -> tuple:
    """Legal actions of ``agent`` from its action mask, or its whole Discrete space.

    The caller has checked that ``agent`` is to move and not terminated/truncated.
    """
    space = env.action_space(agent)
    observation = env.observe(agent)
    if isinstance(observation, dict) and "action_mask" in observation:
        mask = observation["action_mask"]
    else:
        mask = env.infos[agent].get("action_mask")
    start = int(space.start)
    if mask is None:
        return tuple(range(start, start + int(space.n)))
    return tuple(start + i for i in np.flatnonzero(mask).tolist())


def _game_over(env: AECEnv) -> bool:
    """True when every agent is terminated or truncated (or none is left)."""
    terminations = env.terminations
    truncations = env.truncations
    agent = env.agent_selection
    if agent in terminations and not (terminations[agent] or truncations[agent]):
        return False  # the agent to move plays on (the common case, answered at once)
    return all(terminations[a] or truncations[a] for a in env.agents)


def _freeze(value: Any) -> Any:
    """A comparable copy of an observation (dicts, tuples, lists, arrays, scalars)."""
    if isinstance(value, dict):
        return tuple((key, _freeze(value[key])) for key in sorted(value, key=repr))
    if isinstance(value, (tuple, list)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype.str, value.tobytes())
    return value


def _fingerprint(env: AECEnv) -> dict[str, Any]:
    """The observable game of ``env``, read from ``env.unwrapped`` without side effects."""
    inner = env.unwrapped
    agent = inner.agent_selection
    done = inner.terminations.get(agent, True) or inner.truncations.get(agent, True)
    return {
        "agent to move": agent,
        "agents": tuple(inner.agents),
        "legal actions": () if done else _mask_actions(inner, agent),
        "observations": tuple((a, _freeze(inner.observe(a))) for a in inner.agents),
        "rewards": dict(inner.rewards),
        "cumulative rewards": dict(inner._cumulative_rewards),
        "terminations": dict(inner.terminations),
        "truncations": dict(inner.truncations),
    }


def _first_difference(expected: dict[str, Any], actual: dict[str, Any]) -> str:
    for key, value in expected.items():
        if actual[key] != value:
            if key == "observations":
                return "the agents' observations differ"
            return f"{key} differ: expected {value!r}, got {actual[key]!r}"
    return ""


def _game_name(env: AECEnv) -> str:
    """The env's ``metadata["name"]`` (e.g. ``'leduc_holdem_v4'``), else its class path."""
    inner = env.unwrapped
    name = getattr(inner, "metadata", {}).get("name")
    return name if isinstance(name, str) else f"{type(inner).__module__}.{type(inner).__qualname__}"


def require_perfect_information(env: AECEnv) -> None:
    """Checks that ``env`` is not one of :data:`IMPERFECT_INFORMATION_GAMES` (by class).

    Needs no reset, so it runs before :func:`require_reset`: resetting such a
    game would not make it plannable. The start-up check of
    :class:`PettingZooModel` also catches other games whose moves draw random
    numbers.

    Args:
        env: a PettingZoo AEC env, wrapped or not.

    Raises:
        ValueError: naming the game and why planning on a copy of it would be wrong.
    """
    for cls in type(env.unwrapped).__mro__:
        reason = IMPERFECT_INFORMATION_GAMES.get((cls.__module__, cls.__qualname__))
        if reason is not None:
            raise ValueError(
                f"mcts_agent plans deterministic games of perfect information only, and "
                f"{_game_name(env)} is not one: {reason}. MCTS on a copy of this game would "
                "play with knowledge the player to move does not have."
            )


def _random_generators(root: Any, skip: frozenset[int] = frozenset()) -> list[Any]:
    """The random generators reachable from ``root``'s attributes, containers included.

    Follows instance ``__dict__``s, dicts, lists, tuples and sets (at most
    :data:`_MAX_OBJECTS_SEARCHED` objects); not gymnasium spaces (shared with
    the live env), arrays, classes, modules or functions. Generators whose
    ``id`` is in ``skip`` are left out.
    """
    found = []
    seen: set[int] = set()
    stack = [root]
    while stack and len(seen) < _MAX_OBJECTS_SEARCHED:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, _RANDOM_GENERATORS):
            if id(value) not in skip:
                found.append(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            stack.extend(value)
        elif isinstance(value, _NOT_SEARCHED):
            continue
        elif isinstance(getattr(value, "__dict__", None), dict):
            stack.extend(vars(value).values())
    return found


def _reseed(generator: Any, seed: int) -> None:
    """Reseeds ``generator`` in place (objects sharing it see the new stream)."""
    if isinstance(generator, np.random.Generator):
        bit_generator = generator.bit_generator
        bit_generator.state = type(bit_generator)(seed).state
    else:  # random.Random, np.random.RandomState
        generator.seed(seed)


# ------------------------------------------------------------------ clone methods


def _copy_attributes(env: AECEnv) -> AECEnv:
    """A copy of ``env``'s attributes, made without its constructor (bypasses EzPickle).

    Everything is deep-copied in one ``copy.deepcopy`` call, which keeps
    aliasing between attributes (e.g. ``agents`` and the agent selector's
    ``agent_order``), except what is shared: the action and observation spaces
    (fixed descriptions, never sampled by the model) and pygame objects (the
    render window and clock). The copy does not render: its ``render_mode`` is
    None (PettingZoo's classic envs render from ``step`` in ``"human"`` mode).
    """
    attributes = env.__dict__
    memo: dict[int, Any] = {}
    for name in ("action_spaces", "observation_spaces"):
        spaces_by_agent = attributes.get(name)
        if isinstance(spaces_by_agent, dict):
            memo[id(spaces_by_agent)] = spaces_by_agent
            for space in spaces_by_agent.values():
                memo[id(space)] = space
    for value in attributes.values():
        if type(value).__module__.startswith("pygame"):
            memo[id(value)] = value
    clone = object.__new__(type(env))
    clone.__dict__.update(copy.deepcopy(attributes, memo))
    if "render_mode" in attributes:
        clone.render_mode = None
    return clone


class _SnapshotMethod:
    """Snapshot/restore of a known game's variables into one scratch env."""

    name = "snapshot"
    reuses_scratch = True  # every load goes into the same scratch env
    description = "a snapshot of the game's variables restored into a scratch env"
    advice = (
        "pass clone='attributes' (a copy of the env's attributes), clone='replay' with "
        "env_factory=<() -> new env>, or clone=<function env -> independent copy>"
    )
    _MISSING = object()

    def __init__(self, env: AECEnv, game: _KnownGame) -> None:
        self.get_board, self.set_board, self.legal_actions = game
        self.scratch = _copy_attributes(env.unwrapped)

    def capture(self, env: AECEnv) -> tuple:
        """The game's variables, copied (dicts of scalars by ``dict.copy``)."""
        return self.commit(env.unwrapped, None, None)

    def commit(self, env: AECEnv, position: tuple | None, action: Any) -> tuple:
        """The snapshot of the (unwrapped) ``env``, just stepped from ``position`` by ``action``."""
        selector = env._agent_selector
        agents = env.agents
        order = selector.agent_order
        infos = env.infos
        return (
            tuple(self.get_board(env)),
            tuple(agents),
            env.agent_selection,
            None if order is agents else tuple(order),  # None: the same list as agents
            selector._current_agent,
            selector.selected_agent,
            env.rewards.copy(),
            env._cumulative_rewards.copy(),
            env.terminations.copy(),
            env.truncations.copy(),
            # the agents' info dicts, or just their keys when every info is empty
            {a: dict(info) for a, info in infos.items()} if any(infos.values()) else tuple(infos),
            env.__dict__.get("_skip_agent_selection", self._MISSING),
        )

    def load(self, position: tuple) -> AECEnv:
        """Restores ``position`` into the scratch env (fresh copies of every mutable value)."""
        (
            board,
            agents,
            agent_selection,
            agent_order,
            current_agent,
            selected_agent,
            rewards,
            cumulative_rewards,
            terminations,
            truncations,
            infos,
            skip_agent_selection,
        ) = position
        env = self.scratch
        self.set_board(env, board)
        env.agents = agents_list = list(agents)
        env.agent_selection = agent_selection
        selector = env._agent_selector
        selector.agent_order = agents_list if agent_order is None else list(agent_order)
        selector._current_agent = current_agent
        selector.selected_agent = selected_agent
        env.rewards = rewards.copy()
        env._cumulative_rewards = cumulative_rewards.copy()
        env.terminations = terminations.copy()
        env.truncations = truncations.copy()
        if isinstance(infos, tuple):
            env.infos = {agent: {} for agent in infos}
        else:
            env.infos = {agent: dict(info) for agent, info in infos.items()}
        if skip_agent_selection is self._MISSING:
            env.__dict__.pop("_skip_agent_selection", None)
        else:
            env._skip_agent_selection = skip_agent_selection
        return env


class _EnvPerPosition:
    """Shared by the clone methods whose position is a whole env copy (attributes, user)."""

    reuses_scratch = False
    legal_actions = staticmethod(_mask_actions)

    def commit(self, env: AECEnv, position: AECEnv, action: Any) -> AECEnv:
        return env


class _AttributesMethod(_EnvPerPosition):
    """A copy of the env's attributes per clone (any AEC env)."""

    name = "attributes"
    description = "a copy of the env's attributes, bypassing its constructor"
    advice = (
        "pass clone='replay' with env_factory=<() -> new env> (a fresh env, reset with the "
        "same seed, the same actions replayed), or clone=<function env -> independent copy>"
    )

    def capture(self, env: AECEnv) -> AECEnv:
        return _copy_attributes(env.unwrapped)

    def load(self, position: AECEnv) -> AECEnv:
        return _copy_attributes(position)


class _UserMethod(_EnvPerPosition):
    """The user's ``clone(env) -> env``, applied to the env with its wrappers."""

    name = "user"

    def __init__(self, clone: Callable[[AECEnv], AECEnv]) -> None:
        self.clone = clone
        label = getattr(clone, "__qualname__", repr(clone))
        self.description = f"your clone function {label}"
        self.advice = (
            "your clone must return an independent copy of the env's current position "
            "(copy.deepcopy and pickle of PettingZoo's classic envs return a fresh game); "
            "pass clone=None to use the built-in snapshot or attribute copy, or "
            "clone='replay' with env_factory=<() -> new env>"
        )

    def capture(self, env: AECEnv) -> AECEnv:
        return self.load(env)

    def load(self, position: AECEnv) -> AECEnv:
        clone = self.clone(position)
        if clone is position or not isinstance(clone, AECEnv):
            raise CloneCheckError(
                f"clone method 'user' ({self.description}) must return a new pettingzoo.AECEnv, "
                f"got {'the same env' if clone is position else type(clone).__name__}; "
                + self.advice
            )
        return clone


class _ReplayMethod:
    """A fresh env from a factory, reset with the same seed, the same actions replayed."""

    name = "replay"
    reuses_scratch = False
    description = "a fresh env from env_factory, reset with the same seed, the actions replayed"
    advice = (
        "check that env_factory builds the same game and that history=(seed, actions) lists "
        "the reset seed and every action since; or pass clone=<function env -> independent copy>"
    )

    def __init__(self, env_factory: Callable[[], AECEnv]) -> None:
        self.env_factory = env_factory

    def position_of(self, history: History) -> tuple:
        if not (isinstance(history, tuple) and len(history) == 2):
            raise TypeError(
                f"history must be a tuple (seed, actions), got {type(history).__name__}"
            )
        seed, actions = history
        return (require_seed("history's seed", seed), tuple(actions))

    def load(self, position: tuple) -> AECEnv:
        seed, actions = position
        env = self.env_factory()
        if not isinstance(env, AECEnv):
            raise TypeError(f"env_factory() must return a pettingzoo.AECEnv, got {env!r}")
        env.reset(seed=seed)
        for action in actions:
            env.step(action)
        return env

    def commit(self, env: AECEnv, position: tuple, action: Any) -> tuple:
        seed, actions = position
        return (seed, (*actions, action))

    legal_actions = staticmethod(_mask_actions)


class _KnownGame(NamedTuple):
    """How to read and write one known game's board, and its legal moves.

    ``legal_actions(env, agent)`` is the function the env builds its action
    mask from (valid for the agent to move while the game is on).
    """

    get_board: Callable[[AECEnv], Sequence[int]]
    set_board: Callable[[AECEnv, tuple], None]
    legal_actions: Callable[[AECEnv, Hashable], list[int]]


def _tictactoe_board(env: AECEnv) -> list[int]:
    return env.board.squares


def _set_tictactoe_board(env: AECEnv, board: tuple) -> None:
    env.board.squares = list(board)


def _tictactoe_legal_actions(env: AECEnv, agent: Hashable) -> list[int]:
    return env.board.legal_moves()


def _connect_four_board(env: AECEnv) -> list[int]:
    return env.board


def _set_connect_four_board(env: AECEnv, board: tuple) -> None:
    env.board = list(board)


def _connect_four_legal_actions(env: AECEnv, agent: Hashable) -> list[int]:
    return env._legal_moves()


_KNOWN_GAMES: dict[tuple[str, str], _KnownGame] = {
    # classic/tictactoe-v3: board.squares (9 cells, column-major), board.legal_moves()
    ("pettingzoo.classic.tictactoe.tictactoe", "raw_env"): _KnownGame(
        _tictactoe_board, _set_tictactoe_board, _tictactoe_legal_actions
    ),
    # classic/connect_four-v3: board (42 cells, top row first), _legal_moves()
    ("pettingzoo.classic.connect_four.connect_four", "raw_env"): _KnownGame(
        _connect_four_board, _set_connect_four_board, _connect_four_legal_actions
    ),
}


def _known_game(env: AECEnv) -> _KnownGame | None:
    cls = type(env.unwrapped)
    return _KNOWN_GAMES.get((cls.__module__, cls.__qualname__))


# ------------------------------------------------------------------ the model


class PettingZooModel:
    """A PettingZoo AEC env as a model of ``docs/search.md`` (see the module docstring).

    Args:
        env: the PettingZoo AEC env (wrapped or not) to plan for; it must have
            been reset. It is read, never stepped or changed.
        clone: None to choose the built-in method (``"snapshot"`` for
            tic-tac-toe and connect four, else ``"attributes"``); one of
            ``"snapshot"``, ``"attributes"``, ``"replay"`` to force it; or a
            function ``clone(env) -> env`` returning an independent copy of
            the env's current position (wrappers included).
        env_factory: ``() -> AECEnv`` building a new env of the same game (with
            the same wrappers); required by ``clone="replay"`` and refused
            without it.

    Attributes:
        clone_method: ``"snapshot"``, ``"attributes"``, ``"replay"`` or ``"user"``.
        possible_agents: tuple of the env's ``possible_agents``.
        num_players: ``len(possible_agents)``.

    Raises:
        TypeError: if ``env`` is not an AEC env, an agent's action space is not
            ``gymnasium.spaces.Discrete``, or ``clone``/``env_factory`` has the
            wrong type.
        ValueError: if ``env`` has not been reset; if its game has hidden
            information or chance (one of :data:`IMPERFECT_INFORMATION_GAMES`,
            or it fails the determinism check: see the module docstring); if
            ``clone`` names an unknown method, ``"snapshot"`` is asked for an
            unknown game, ``"replay"`` lacks ``env_factory`` or
            ``env_factory`` comes without ``"replay"``, or a built-in method
            meets a wrapper it would bypass.
        CloneCheckError: if the clone is not exact (see the module docstring).
    """

    def __init__(
        self,
        env: AECEnv,
        *,
        clone: str | Callable[[AECEnv], AECEnv] | None = None,
        env_factory: Callable[[], AECEnv] | None = None,
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
        for agent in self.possible_agents:
            space = inner.action_space(agent)
            if not isinstance(space, spaces.Discrete):
                raise TypeError(
                    f"PettingZooModel supports Discrete action spaces only; agent {agent!r} "
                    f"has {space!r}"
                )
        self._game_type = type(inner)
        game = _known_game(env)
        if callable(clone):
            self._method: Any = _UserMethod(clone)
        elif clone == "replay":
            self._method = _ReplayMethod(env_factory)
        else:  # None, "snapshot" or "attributes"
            if clone == "snapshot" and game is None:
                raise ValueError(
                    f"clone='snapshot' knows tictactoe and connect_four only, not "
                    f"{type(inner).__module__}.{type(inner).__qualname__}; pass clone=None "
                    "or 'attributes'"
                )
            unwrap_policing(env)
            if game is not None and clone != "attributes":
                self._method = _SnapshotMethod(env, game)
            else:
                self._method = _AttributesMethod()
        self.clone_method: str = self._method.name
        self._scratch_holds: PettingZooState | None = None  # the state a scratch env is in
        self._checked = False
        if self.clone_method != "replay":
            self._check_clone(env, self._method.capture(env))

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
        if self.clone_method == "replay":
            if history is None:
                raise ValueError(
                    "clone='replay' cannot read an env's past: pass history=(seed, actions), "
                    "the reset seed and every action stepped since"
                )
            position = method.position_of(history)
            if not self._checked:
                self._check_clone(env, position)
            work = method.load(position)
            difference = _first_difference(_fingerprint(env), _fingerprint(work))
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
            ``StepResult(next_state, reward, terminated)``: ``reward`` (float)
            is ``rewards[agent]`` after the step for the agent that moved;
            ``terminated`` is True when every agent is terminated or truncated.

        Raises:
            ValueError: if ``action`` is not legal in ``state`` (or the game is over).
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
        reward = float(env.rewards[mover])
        next_state = self._state(env, method.commit(env, state.position, action))
        # With legal actions left the agent to move plays on, so not every agent is done.
        terminated = not next_state.actions and _game_over(env)
        if method.reuses_scratch:
            self._scratch_holds = next_state
        return StepResult(next_state, reward, terminated)

    def rollout(
        self, state: PettingZooState, rng: random.Random, limit: int, gamma: float
    ) -> float:
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
            The return (a Python float) from the point of view of ``player(state)``:
            ``sum_t coef_t * r_t`` with ``coef_0 = 1`` and ``coef_{t+1} = coef_t
            * (gamma if the agent to move stays the same else -gamma)``.
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
        mover = state.agent
        g = 0.0
        coef = 1.0
        while True:
            env.step(actions[int(random_() * len(actions))])
            g += coef * float(env.rewards[mover])  # a Python float, whatever the env's type
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

    def _state(self, env: AECEnv, position: Any) -> PettingZooState:
        """The state of ``env``'s position; ``position`` is the method's copy of it.

        No legal actions when the agent to move is terminated or truncated
        (so also when every agent is): PettingZoo's mask is not read there.
        """
        agent = env.agent_selection
        if env.terminations.get(agent, True) or env.truncations.get(agent, True):
            return PettingZooState(agent, (), position)
        return PettingZooState(agent, tuple(self._method.legal_actions(env, agent)), position)

    def _check_clone(self, env: AECEnv, position: Any) -> None:
        """The start-up clone check (module docstring); raises CloneCheckError."""
        method = self._method

        def failure(reason: str) -> CloneCheckError:
            return CloneCheckError(
                f"clone method {method.name!r} ({method.description}) failed the clone check "
                f"on {env}: {reason}; {method.advice}"
            )

        original = _fingerprint(env)
        try:
            clone = method.load(position)
            if clone is env or clone.unwrapped is env.unwrapped:
                raise failure("the clone is the original env itself")
            difference = _first_difference(original, _fingerprint(clone))
            if difference:
                raise failure(f"the clone differs from the original: {difference}")
            model_actions = self._state(clone, position).actions
            if model_actions != original["legal actions"]:
                raise failure(
                    f"the clone's legal actions {list(model_actions)} differ from the action "
                    f"mask's {list(original['legal actions'])}"
                )
            if model_actions:
                action = model_actions[0]
                saved = _copy_attributes(env.unwrapped)
                clone.step(action)
                difference = _first_difference(original, _fingerprint(env))
                if difference:
                    inner = env.unwrapped  # undo the broken clone's damage to the caller's game
                    inner.__dict__.clear()
                    inner.__dict__.update(saved.__dict__)
                    raise failure(
                        f"stepping the clone changed the original (now restored): {difference}"
                    )
                stepped = _fingerprint(clone)
                next_position = method.commit(clone, position, action)
                method.load(position)  # overwrites a scratch env before the next load
                difference = _first_difference(stepped, _fingerprint(method.load(next_position)))
                if difference:
                    raise failure(
                        f"a clone of a clone one move into the game differs from it: {difference}"
                    )
            self._scratch_holds = None
        except CloneCheckError:
            raise
        except Exception as error:  # a broken clone may fail in any way: report it as such
            raise failure(
                f"reading or stepping the clone raised {type(error).__name__}: {error}"
            ) from error
        if method.name != "snapshot":  # tic-tac-toe and connect four draw no random numbers
            self._check_determinism(env, position)
        self._checked = True

    def _check_determinism(self, env: AECEnv, position: Any) -> None:
        """The start-up determinism check (module docstring); raises ValueError."""
        method = self._method
        live_generators = frozenset(id(g) for g in _random_generators(env))
        for trial in range(DETERMINISM_TRIALS):
            copies = []
            for copy_number in (1, 2):
                clone = method.load(position)
                for generator in _random_generators(clone, live_generators):
                    _reseed(generator, 2 * trial + copy_number)
                copies.append(clone)
            first, second = copies
            rng = random.Random(trial)
            moves: list[Any] = []
            seen = _fingerprint(first)
            # (the methods checked here take their legal actions from the mask, as the
            # fingerprint does)
            while seen["legal actions"] and len(moves) < DETERMINISM_STEPS:
                actions = seen["legal actions"]
                moves.append(actions[rng.randrange(len(actions))])
                first.step(moves[-1])
                second.step(moves[-1])
                seen = _fingerprint(first)
                difference = _first_difference(seen, _fingerprint(second))
                if difference:
                    raise ValueError(
                        f"{_game_name(env)} is not deterministic: the moves {moves} from its "
                        "position, played in two copies whose random generators were reseeded "
                        f"differently, gave different games ({difference}). PettingZooModel "
                        "plans deterministic games only: the search would keep the first dice "
                        "roll or deal of each edge for ever"
                    )
