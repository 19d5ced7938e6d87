"""Players: picklable factories that make a fresh, seeded policy for every game.

A *player* is a picklable factory ``player(model, seed) -> policy`` that makes a
fresh, seeded policy (``policy(state) -> action``, see
:mod:`mcts_agent.policies`) for every game: :class:`RandomPlayer`,
:class:`PerfectPlayer`, :class:`MinimaxPlayer`, :class:`MCTSPlayer`, or any
function of that shape.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mcts_agent.minimax import ExhaustiveMinimax, PositionEvaluator, check_alpha_beta_settings
from mcts_agent.model import Model
from mcts_agent.policies import MinimaxPolicy, PerfectPolicy, Policy, RandomPolicy
from mcts_agent.search import MCTS

__all__ = [
    "DEFAULT_EXPLORATION",
    "EnvEngine",
    "MCTSPlayer",
    "MinimaxPlayer",
    "PerfectPlayer",
    "Player",
    "RandomPlayer",
]

DEFAULT_EXPLORATION = 2 * math.sqrt(2)
"""c for games whose returns lie in [-1, 1] (UCB1's sqrt(2) scaled by the range 2)."""

Player = Callable[[Model, int], Policy]
"""``player(model, seed) -> policy``: makes a fresh seeded policy for one game."""


def _label(player: Any) -> str:
    label = getattr(player, "label", None)
    if isinstance(label, str):
        return label
    return getattr(player, "__name__", None) or repr(player)


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

    A numpy integer ``depth`` is stored as an ``int``.

    Raises:
        TypeError, ValueError: if ``depth`` is not an int >= 1 or None, or
            ``evaluation`` is not callable (:func:`~mcts_agent.minimax.check_alpha_beta_settings`).
    """

    depth: int | None = 4
    evaluation: PositionEvaluator | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "depth", check_alpha_beta_settings(self.depth, self.evaluation))

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


def _plain(value: Any) -> Any:
    """Returns a numpy number as the Python number it holds; anything else as it is."""
    return value.item() if isinstance(value, np.generic) else value


class MCTSPlayer:
    """Makes an :class:`~mcts_agent.search.MCTS` planner (itself a policy), any options.

    Every keyword is passed on by name to :class:`~mcts_agent.search.MCTS`
    (on a :class:`~mcts_agent.evaluation.ModelGame`) or to
    :class:`~mcts_agent.agent.MCTSAgent` (in a PettingZoo env loop), which
    check them: ``gamma``, ``selection``, ``evaluator``, ``max_depth``,
    ``root_noise``, ``native_models``... whatever those constructors take.
    The options are checked when the player is made, by making an
    ``MCTSAgent`` with them (whose planners check the search options), and
    against a game by :meth:`check` (which :class:`~mcts_agent.evaluation.MatchSpec`
    calls before any game).

    Args:
        iterations: iterations per move (int >= 1; see ``MCTS``).
        exploration: c >= 0 of UCB1 (default 2*sqrt(2), for returns in [-1, 1]).
        rollout_limit: int >= 0, most moves in one rollout.
        **options: any other keyword of ``MCTS`` or ``MCTSAgent`` (``seed``
            excepted: each game seeds its planner).

    Numpy numbers are stored as ``int`` and ``float`` (so :meth:`describe` is
    JSON-ready). Players with the same options are equal.

    Raises:
        TypeError, ValueError: if an option is unknown or has the wrong type or
            range (the messages of ``MCTS`` / ``MCTSAgent``).
    """

    def __init__(
        self,
        iterations: int | None,
        *,
        exploration: float = DEFAULT_EXPLORATION,
        rollout_limit: int = 1000,
        **options: Any,
    ) -> None:
        if "seed" in options:
            raise TypeError("an MCTSPlayer takes no seed: each game seeds its planner")
        options = {
            "iterations": iterations,
            "exploration": exploration,
            "rollout_limit": rollout_limit,
            **options,
        }
        self._options = {name: _plain(value) for name, value in options.items()}
        from mcts_agent.agent import MCTSAgent

        _construct(MCTSAgent, self._options)

    @property
    def options(self) -> dict[str, Any]:
        """The keywords passed to ``MCTS`` or ``MCTSAgent`` (a copy), iterations included."""
        return dict(self._options)

    @property
    def iterations(self) -> Any:
        """Iterations per move."""
        return self._options["iterations"]

    @property
    def exploration(self) -> float:
        """C of UCB1 (or PUCT)."""
        return self._options["exploration"]

    @property
    def rollout_limit(self) -> int:
        """Most moves in one rollout."""
        return self._options["rollout_limit"]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MCTSPlayer) and self._options == other._options

    def __hash__(self) -> int:
        return hash(repr(sorted(self._options.items())))

    def __repr__(self) -> str:
        return f"MCTSPlayer({', '.join(f'{k}={v!r}' for k, v in self._options.items())})"

    @property
    def label(self) -> str:
        """Short name for tables, e.g. ``mcts(iterations=100, c=2.83)``, other options after."""
        extra = "".join(
            f", {name}={_label(value) if callable(value) else repr(value)}"
            for name, value in self._options.items()
            if name not in ("iterations", "exploration", "rollout_limit")
        )
        return f"mcts(iterations={self.iterations}, c={self.exploration:.3g}{extra})"

    def check(self, model: Model | None) -> None:
        """Checks the options against a game: makes a planner (or an agent) with them.

        Args:
            model: the game's model (``MCTS`` options only), or None for a
                game played in a PettingZoo env loop (``MCTSAgent`` options).

        Raises:
            TypeError, ValueError: as ``MCTS`` or ``MCTSAgent`` refuses the options.
        """
        if model is None:
            from mcts_agent.agent import MCTSAgent

            _construct(MCTSAgent, self._options)
        else:
            _construct(functools.partial(MCTS, model), self._options)

    def __call__(self, model: Model, seed: int) -> Policy:
        """Returns a planner on ``model`` whose rollouts are seeded with ``seed``."""
        return MCTS(model, seed=seed, **self._options)

    def describe(self) -> dict[str, Any]:
        """Returns the player's settings as a JSON-ready dict (callables by name)."""
        return {
            "kind": "mcts",
            **{
                name: _label(value) if callable(value) else value
                for name, value in self._options.items()
            },
        }


def _construct(make: Callable[..., Any], options: dict[str, Any]) -> Any:
    """Calls ``make(**options, seed=0)``; an unknown keyword is a TypeError naming valid ones."""
    try:
        return make(seed=0, **options)
    except TypeError as error:
        match = re.search(r"unexpected keyword argument '(\w+)'", str(error))
        if match is None:
            raise
        target = make.func if isinstance(make, functools.partial) else make
        valid = [
            name
            for name in inspect.signature(target).parameters
            if name not in ("self", "model", "seed", "search_options")
        ]
        if target is not MCTS:
            valid += [n for n in inspect.signature(MCTS).parameters if n not in valid]
            valid = [n for n in valid if n not in ("model", "seed")]
        raise TypeError(
            f"unknown MCTS option {match[1]!r}; valid options: {', '.join(valid)}"
        ) from None


class EnvEngine:
    """The part of an engine player that plays one PettingZoo game in its env, never on a model.

    The base of :class:`~mcts_agent.evaluation.gtp_players.GTPPlayer` (go, ``gtp:``) and
    :class:`~mcts_agent.evaluation.uci_players.UCIPlayer` (chess, ``uci:``). A subclass
    sets ``game`` (the env's id, e.g. ``"classic/go_v5"``) and ``game_module`` (its env
    class's module), and defines ``label`` and ``_policy()``, the policy of one game.
    """

    game: str
    game_module: str
    label: str

    def _policy(self) -> Any:
        """The policy of one game (the engine starts at its first move)."""
        raise NotImplementedError

    def __call__(self, model: Any, seed: int) -> Any:
        """Refused: the engine plays in the game's PettingZoo env, not on a model.

        Raises:
            TypeError: always; play it in a PettingZoo env loop (:meth:`env_policy`).
        """
        raise TypeError(
            f"{self.label} plays in PettingZoo's {self.game} (env_policy), not on a model"
        )

    def env_policy(self, seed: int, env: Any) -> Any:
        """Returns the policy of one game in ``env`` (the engine starts at its first move).

        ``seed`` is not used: the engine gets no seed (its own options may fix one).

        Raises:
            ValueError: if ``env`` is not the game's PettingZoo env.
        """
        if type(env.unwrapped).__module__ != self.game_module:
            raise ValueError(f"{self.label} plays PettingZoo's {self.game}, not {env!r}")
        return self._policy()
