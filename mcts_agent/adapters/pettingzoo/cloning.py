"""The ways of cloning a PettingZoo game's position (:attr:`PettingZooModel.clone_method`)."""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pettingzoo import AECEnv

from mcts_agent._validation import require_seed
from mcts_agent.adapters.errors import CloneCheckError
from mcts_agent.adapters.pettingzoo.reading import mask_actions

if TYPE_CHECKING:
    from mcts_agent.adapters.pettingzoo.known_games import KnownGame

__all__ = [
    "CLONE_METHODS",
    "AttributesMethod",
    "History",
    "MemoEntries",
    "ReplayMethod",
    "SnapshotMethod",
    "UserMethod",
    "copy_attributes",
    "nesting_depth",
    "restorable_copy",
    "shared_memo",
]

MemoEntries = Callable[[AECEnv], dict[int, Any]]
"""``(env) -> {id(object): replacement}``: entries a copy's ``copy.deepcopy`` memo starts with."""

History = tuple[int | None, Sequence[Any]]
"""``(seed, actions)``: the ``reset`` seed and every action stepped since, in order."""


CLONE_METHODS = ("snapshot", "attributes", "replay")
"""The built-in clone methods ``clone=`` may name (module docstring)."""


def copy_attributes(env: AECEnv, memo_entries: MemoEntries | None = None) -> AECEnv:
    """A copy of ``env``'s attributes, made without its constructor (bypasses EzPickle).

    Everything is deep-copied in one ``copy.deepcopy`` call, which keeps
    aliasing between attributes (e.g. ``agents`` and the agent selector's
    ``agent_order``), except what is shared: the action and observation spaces
    (fixed descriptions, never sampled by the model; the dicts holding them are
    copied) and pygame objects (the
    render window and clock). The copy does not render: its ``render_mode`` is
    None (PettingZoo's classic envs render from ``step`` in ``"human"`` mode).
    ``memo_entries(env)``, if given, adds ``{id(object): what the copy holds
    instead}`` to the memo (a game's objects that copies share or replace:
    ``HiddenGame.copy_memo``).

    Raises:
        CloneCheckError: if ``copy.deepcopy`` cannot copy an attribute (e.g. a
            ``threading.Lock``, or a value nested deeper than Python's
            recursion limit), naming the attribute and the cause.
    """
    attributes = env.__dict__
    clone = object.__new__(type(env))
    memo = shared_memo(attributes)
    if memo_entries is not None:
        memo.update(memo_entries(env))
    try:
        clone.__dict__.update(copy.deepcopy(attributes, memo))
    except Exception as error:  # RecursionError included
        raise CloneCheckError(_uncopyable(env, error)) from error
    if "render_mode" in attributes:
        clone.render_mode = None
    return clone


def shared_memo(attributes: dict[str, Any]) -> dict[int, Any]:
    """A ``copy.deepcopy`` memo keeping the spaces and pygame objects of ``attributes`` shared."""
    memo: dict[int, Any] = {}
    for name in ("action_spaces", "observation_spaces"):
        spaces_by_agent = attributes.get(name)
        if isinstance(spaces_by_agent, dict):
            for space in spaces_by_agent.values():
                memo[id(space)] = space
    for value in attributes.values():
        if type(value).__module__.startswith("pygame"):
            memo[id(value)] = value
    return memo


def restorable_copy(env: AECEnv) -> tuple[dict[str, Any], tuple[str, ...]]:
    """A deep copy of ``env``'s attributes to put back later, and the names it could not copy.

    One ``copy.deepcopy`` of the whole ``__dict__`` (aliasing kept, spaces
    and pygame objects shared); if that fails, each attribute on its own
    (with one memo), leaving out those ``copy.deepcopy`` cannot copy.
    """
    attributes = env.__dict__
    try:
        return copy.deepcopy(attributes, shared_memo(attributes)), ()
    except Exception:  # RecursionError included
        memo = shared_memo(attributes)
        saved, missed = {}, []
        for name, value in attributes.items():
            try:
                saved[name] = copy.deepcopy(value, memo)
            except Exception:
                missed.append(name)
        return saved, tuple(missed)


def _uncopyable(env: AECEnv, error: Exception) -> str:
    """Why ``copy.deepcopy`` of ``env``'s attributes raised ``error``: the attribute and cause."""
    attributes = env.__dict__
    name = next((n for n in attributes if not _deep_copies(attributes, n)), None)
    where = "an attribute" if name is None else f"attribute {name!r}"
    if isinstance(error, RecursionError):
        depth = "" if name is None else f" (nested {nesting_depth(attributes[name]):,} levels deep)"
        cause = (
            f"{where}{depth} is nested deeper than copy.deepcopy can go: it recurses once per "
            f"level, beyond Python's recursion limit ({sys.getrecursionlimit()})"
        )
    else:
        cause = f"copy.deepcopy cannot copy {where} ({type(error).__name__}: {error})"
    return (
        f"PettingZooModel cannot copy the attributes of {type(env).__qualname__}: {cause}. "
        "Pass clone=<function env -> independent copy> "
        "(to PettingZooModel or MCTSAgent) that copies the env's position without it: "
        "e.g. a new lock for the copy, or an immutable value (nested tuples) shared as it is"
    )


def _deep_copies(attributes: dict[str, Any], name: str) -> bool:
    try:
        copy.deepcopy(attributes[name], shared_memo(attributes))
    except Exception:
        return False
    return True


def nesting_depth(value: Any) -> int:
    """How many levels of containers and instance ``__dict__``s ``value`` nests (iteratively).

    Args:
        value: any object; dicts, lists, tuples, sets and objects with a
            ``__dict__`` are entered, each object once.

    Returns:
        int >= 1: 1 for a value with nothing inside it.
    """
    deepest = 0
    seen: set[int] = set()
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, (list, tuple, set, frozenset)):
            children = item
        elif isinstance(getattr(item, "__dict__", None), dict) and not isinstance(item, type):
            children = vars(item).values()
        else:
            continue
        stack.extend((child, depth + 1) for child in children)
    return deepest


class SnapshotMethod:
    """Snapshot/restore of a known game's variables into one scratch env."""

    name = "snapshot"
    reuses_scratch = True  # every load goes into the same scratch env
    description = "a snapshot of the game's variables restored into a scratch env"
    advice = (
        "pass clone='attributes' (a copy of the env's attributes), clone='replay' with "
        "env_factory=<() -> new env> (then give state_of or MCTSAgent.act "
        "history=(seed, actions)), or clone=<function env -> independent copy>, to "
        "PettingZooModel or MCTSAgent"
    )
    _MISSING = "<no _skip_agent_selection>"  # a str: it pickles as itself (a worker's copy)

    def __init__(self, env: AECEnv, game: KnownGame) -> None:
        self.get_board, self.set_board, self.legal_actions = game
        self.scratch = copy_attributes(env.unwrapped)

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
        if skip_agent_selection == self._MISSING:
            env.__dict__.pop("_skip_agent_selection", None)
        else:
            env._skip_agent_selection = skip_agent_selection
        return env


class EnvPerPosition:
    """Shared by the clone methods whose position is a whole env copy (attributes, user)."""

    reuses_scratch = False
    legal_actions = staticmethod(mask_actions)

    def commit(self, env: AECEnv, position: AECEnv, action: Any) -> AECEnv:
        """The env just stepped: it is the new position's copy."""
        return env


class AttributesMethod(EnvPerPosition):
    """A copy of the env's attributes per clone (any AEC env)."""

    name = "attributes"
    description = "a copy of the env's attributes, bypassing its constructor"

    def __init__(self, memo_entries: MemoEntries | None = None) -> None:
        self.memo_entries = memo_entries  # copy_attributes' memo_entries

    advice = (
        "pass clone='replay' with env_factory=<() -> new env> (a fresh env, reset with the "
        "same seed, the same actions replayed; then give state_of or MCTSAgent.act "
        "history=(seed, actions)), or clone=<function env -> independent copy>, to "
        "PettingZooModel or MCTSAgent"
    )

    def capture(self, env: AECEnv) -> AECEnv:
        """A copy of the (unwrapped) live ``env``'s attributes."""
        return copy_attributes(env.unwrapped, self.memo_entries)

    def load(self, position: AECEnv) -> AECEnv:
        """A new copy of ``position``, free to step."""
        return copy_attributes(position, self.memo_entries)


class UserMethod(EnvPerPosition):
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
            "clone='replay' with env_factory=<() -> new env> (then give state_of or "
            "MCTSAgent.act history=(seed, actions)), to PettingZooModel or MCTSAgent"
        )

    def capture(self, env: AECEnv) -> AECEnv:
        """The user's clone of the live ``env`` (wrappers included)."""
        return self.load(env)

    def load(self, position: AECEnv) -> AECEnv:
        """The user's clone of ``position``; raises CloneCheckError if it is not a new AECEnv."""
        clone = self.clone(position)
        if clone is position or not isinstance(clone, AECEnv):
            raise CloneCheckError(
                f"clone method 'user' ({self.description}) must return a new pettingzoo.AECEnv, "
                f"got {'the same env' if clone is position else type(clone).__name__}; "
                + self.advice
            )
        return clone


class ReplayMethod:
    """A fresh env from a factory, reset with the same seed, the same actions replayed."""

    name = "replay"
    reuses_scratch = False
    description = "a fresh env from env_factory, reset with the same seed, the actions replayed"
    advice = (
        "check that env_factory builds the same game and that history=(seed, actions) lists "
        "the reset seed and every action since; or pass clone=<function env -> independent "
        "copy> (to PettingZooModel or MCTSAgent)"
    )

    def __init__(self, env_factory: Callable[[], AECEnv]) -> None:
        self.env_factory = env_factory

    def position_of(self, history: History) -> tuple:
        """``(seed, actions)`` of ``history``, checked; raises TypeError or ValueError."""
        if not (isinstance(history, tuple) and len(history) == 2):
            raise TypeError(
                f"history must be a tuple (seed, actions), got {type(history).__name__}"
            )
        seed, actions = history
        return (require_seed("history's seed", seed), tuple(actions))

    def load(self, position: tuple) -> AECEnv:
        """A fresh env from the factory, reset with the seed, the actions replayed."""
        seed, actions = position
        env = self.env_factory()
        if not isinstance(env, AECEnv):
            raise TypeError(f"env_factory() must return a pettingzoo.AECEnv, got {env!r}")
        env.reset(seed=seed)
        for action in actions:
            env.step(action)
        return env

    def commit(self, env: AECEnv, position: tuple, action: Any) -> tuple:
        """The history of ``position`` followed by ``action``."""
        seed, actions = position
        return (seed, (*actions, action))

    legal_actions = staticmethod(mask_actions)
