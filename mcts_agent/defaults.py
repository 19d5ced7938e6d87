"""The settings :class:`~mcts_agent.agent.MCTSAgent` picks when the user gives none.

Every default here is read from what an env declares about itself (its
spaces, its ``TimeLimit``), never from its id, and applies only to the
options the user left out: anything given to ``MCTSAgent`` wins.
``docs/guides/gymnasium.md``, "What MCTSAgent picks", lists them with the
reasons and the measurements behind them.

* :data:`DEFAULT_TIME_LIMIT`: the budget of a move when the agent is given
  neither ``iterations`` nor ``time_limit`` (every env, PettingZoo's too).
* :func:`gymnasium_defaults`: for a single-agent Gymnasium env, value
  normalisation (the exploration constant is then scale-free: Schrittwieser
  et al. 2020, MuZero, Appendix B), tree reuse between steps, for an env
  that declares no episode length (no ``TimeLimit``) a discount and a
  rollout horizon that keep returns finite, for an env with sampled
  (continuous) actions a narrower progressive widening, and for an env
  planned through its transition table one-step-lookahead rollouts.
* :func:`leduc_defaults`: for PettingZoo Leduc Hold'em planned on
  :class:`~mcts_agent.envs.leduc.LeducModel` (information-set MCTS), the
  exploration constant :data:`LEDUC_EXPLORATION`, in big blinds.
* :func:`go_defaults`: for PettingZoo go planned on
  :class:`~mcts_agent.envs.go.GoModel`, GRAVE (``selection="rave"``, Ludii's
  ``grave_ref`` and ``rave_bias``) with the exploration constant
  :data:`GO_EXPLORATION`.
* :func:`chess_defaults`: for PettingZoo chess planned on
  :class:`~mcts_agent.envs.chess.ChessModel`, PUCT guided by
  :class:`~mcts_agent.envs.chess_evaluator.ChessEvaluator` (a one-ply search and a
  capture search at each leaf, MVV-LVA priors), untried moves valued as their node
  (``unvisited_value="parent"``), the exploration constant :data:`CHESS_EXPLORATION`, and
  a move's budget of :data:`CHESS_TIME_LIMIT` seconds; :func:`warn_random_rollouts`
  warns, once, when chess is searched with random rollouts instead.
"""

from __future__ import annotations

import warnings
from typing import Any

from mcts_agent.widening import lists_actions

__all__ = [
    "CHESS_EXPLORATION",
    "CHESS_STEP_ASIDE",
    "CHESS_TIME_LIMIT",
    "DEFAULT_TIME_LIMIT",
    "SAMPLED_WIDENING",
    "UNBOUNDED_GAMMA",
    "UNBOUNDED_ROLLOUT_LIMIT",
    "GO_EXPLORATION",
    "GO_STEP_ASIDE",
    "LEDUC_EXPLORATION",
    "chess_defaults",
    "go_defaults",
    "gymnasium_defaults",
    "leduc_defaults",
    "warn_random_rollouts",
]

DEFAULT_TIME_LIMIT = 0.1
"""Seconds per move when ``MCTSAgent`` is given neither ``iterations`` nor ``time_limit``."""

UNBOUNDED_GAMMA = 0.99
"""The discount for a Gymnasium env that declares no episode length (no ``TimeLimit``)."""

UNBOUNDED_ROLLOUT_LIMIT = 100
"""Rollout moves for such an env: its effective horizon ``1 / (1 - UNBOUNDED_GAMMA)``."""

SAMPLED_WIDENING = (1.0, 0.5)
"""``widening=(k, alpha)`` for a Gymnasium env with sampled actions (``Box``, ``Dict``, ``Tuple``).

MCTS's own default for a model without actions is MCTS.jl's ``(10, 0.5)``, made for
budgets of thousands of iterations; at 0.1 s a step (a few hundred iterations) it gives
the root a child for nearly every visit, and the move played has been tried once or
twice. ``k = 1`` keeps about ``sqrt(N)`` children, each tried about as often
(``docs/guides/gymnasium.md``, "What MCTSAgent picks", has the measurements).
"""


def gymnasium_defaults(env: Any, model: Any = None) -> dict[str, Any]:
    """The search options ``MCTSAgent`` uses for a single-agent Gymnasium env by default.

    Read from the env's declarations only:

    * ``value_normalization=True``: a Gymnasium env's returns may lie on any
      scale (CartPole's reach 500, CliffWalking's -100 a fall), and UCB1's
      exploration constant is in reward units unless values are normalised
      (MuZero's min-max statistics, :class:`~mcts_agent.search.MCTS`).
    * ``reuse_tree=True``: the subtree of the position reached is kept from
      one step to the next (its statistics were paid for).
    * No ``TimeLimit`` among the env's wrappers: ``gamma=UNBOUNDED_GAMMA`` and
      ``rollout_limit=UNBOUNDED_ROLLOUT_LIMIT``, so that a return stays
      finite and a rollout ends within the discount's effective horizon.
      With a ``TimeLimit`` the env's own objective is the undiscounted
      return of an episode that ends at the limit: ``gamma`` stays 1.0 and
      ``rollout_limit`` is the limit's ``max_episode_steps`` (the model
      ends each rollout at the steps left).
    * An env whose actions are sampled, not listed (a ``Box``, ``Dict`` or
      ``Tuple`` action space: the model has no ``actions``):
      ``widening=SAMPLED_WIDENING``, progressive widening narrower than
      MCTS's default for a model without actions (:data:`SAMPLED_WIDENING`).
    * An env planned through its transition table (``model.chance ==
      "outcomes"``: slippery FrozenLake and CliffWalking, rainy Taxi): the
      rollouts look one step ahead,
      ``rollout_policy=CautiousRolloutPolicy(model, loss_reward=least)``
      with ``least`` the smallest reward in the table, so a rollout avoids,
      where it can, a move that may end the episode with the worst reward
      there is (a FrozenLake hole); uniformly random rollouts fall into
      one within a few steps from most cells and rank the cells poorly.
      Measured: 0.675 of 40 episodes reach the goal of slippery FrozenLake
      4x4 at 0.1 s a move, against about 0.2 with random rollouts.

    Args:
        env: a ``gymnasium.Env``, wrapped or not.
        model: the agent's :class:`~mcts_agent.adapters.GymnasiumModel` of
            ``env``, or None (then no option that needs the model).

    Returns:
        dict, option name -> value, of :class:`~mcts_agent.search.MCTS`'s keywords.

    Raises:
        ValueError: if ``env`` is wrapped in a wrapper that changes its steps,
            which ``GymnasiumModel`` refuses too (the adapter's wrapper walk,
            :func:`~mcts_agent.adapters.gymnasium.wrappers.read_wrappers`).
    """
    options: dict[str, Any] = {"value_normalization": True, "reuse_tree": True}
    episode_length = _episode_length(env)
    if episode_length is None:
        options["gamma"] = UNBOUNDED_GAMMA
        options["rollout_limit"] = UNBOUNDED_ROLLOUT_LIMIT
    else:
        options["rollout_limit"] = episode_length
    if model is not None and not lists_actions(model):
        options["widening"] = SAMPLED_WIDENING
    if model is not None and getattr(model, "chance", None) == "outcomes":
        from mcts_agent.rollout_policies import CautiousRolloutPolicy

        least = model._table.least_reward()  # the table the model plans through
        options["rollout_policy"] = CautiousRolloutPolicy(model, loss_reward=least)
    return options


def _episode_length(env: Any) -> int | None:
    """The smallest ``max_episode_steps`` of the ``TimeLimit`` wrappers of ``env``, or None."""
    from mcts_agent.adapters.gymnasium.wrappers import read_wrappers

    time_limits, _ = read_wrappers(env)
    return min((limit._max_episode_steps for limit in time_limits), default=None)


LEDUC_EXPLORATION = 2.0
"""UCB1's c for Leduc Hold'em planned on ``LeducModel``, whose payoffs are in big blinds.

OpenSpiel's reference ISMCTS plays Leduc with ``c = 4`` on payoffs in chips; a big
blind is 2 chips, so the same balance of exploration and values is ``c = 2`` here (a
value ``Q`` in big blinds is ``Q / 2`` in chips' units, and ``c`` scales with it). Measured
on ``LeducModel`` against a random player, 1,000 iterations a move, 2,000 hands, seats
alternated (big blinds a hand, 95% intervals): c = 0.5 +0.514 ± 0.076, c = 1 +0.667 ±
0.080, c = 2 +0.836 ± 0.082, c = 4 +0.810 ± 0.083; c = 2 is among the best. With the
default budget (0.1 s a move), ``MCTSAgent`` won +0.811 ± 0.081 big blinds a hand against
a random player over 2,000 hands, seats swapped (``docs/guides/pettingzoo.md``).
"""


def leduc_defaults() -> dict[str, Any]:
    """The search options ``MCTSAgent`` uses for PettingZoo Leduc Hold'em by default.

    On :class:`~mcts_agent.envs.leduc.LeducModel` (information-set MCTS):
    ``exploration=LEDUC_EXPLORATION``. The budget is the agent's usual one,
    :data:`DEFAULT_TIME_LIMIT` (0.1 s a move, several thousand iterations of
    ``LeducModel``), unless ``iterations`` or ``time_limit`` is given; the
    user's options win.

    Returns:
        dict, option name -> value, of :class:`~mcts_agent.search.MCTS`'s keywords.
    """
    return {"exploration": LEDUC_EXPLORATION}


GO_EXPLORATION = 0.0
"""UCB1's c of GRAVE on Go (``go_defaults``), for returns of +1 / -1: no exploration term.

RAVE's statistics guide the search from the first playouts, and every action is tried
once before any is selected, so it needs no exploration term: Gelly & Silver (2011,
section 5.2) found MC-RAVE, without one, at its best on 9x9 Go. Measured on
:class:`~mcts_agent.envs.go.GoModel`, 9x9, komi 7.5, 2,000 playouts a move, 40 games each,
seats alternated (``docs/guides/go.md``, "Searching Go: GRAVE in C"): c = 0 scored 0.68
[0.52, 0.80] against c = 0.2 and 0.75 [0.60, 0.86] against c = 0.1; c = 0.2 scored 0.80
[0.65, 0.90] against c = 2.83.
"""


GO_STEP_ASIDE = (
    "selection",
    "evaluator",
    "max_depth",
    "solve",
    "value_normalization",
    "reuse_tree",
    "leaf_batch",
    "workers",
    "widening",
    "root_noise",
)
"""The options after which :func:`go_defaults` gives none: the user chose the selection, or
an option GRAVE does not take (:func:`mcts_agent.rave.checked_options` says why), so the
search is the one those options ask for (plain UCT unless told)."""


def go_defaults(options: dict[str, Any]) -> dict[str, Any]:
    """The search options ``MCTSAgent`` uses for PettingZoo go planned on ``GoModel`` by default.

    GRAVE (Cazenave 2015; :mod:`mcts_agent.rave`): ``selection="rave"`` with
    its own defaults (Ludii's ``UCB1GRAVE``: ``grave_ref=100``,
    ``rave_bias=1e-5``, which the user may set), run by the compiled RAVE loop
    on Go, and ``exploration=GO_EXPLORATION``. Against plain UCT at equal
    playouts (9x9, 1,000 a move) it won 40 games of 40 (``docs/guides/go.md``).
    None of these when the user gives an option of :data:`GO_STEP_ASIDE` (at
    a value other than off): a selection of their own, or an option GRAVE
    does not take (``evaluator``, ``workers=2``, ``reuse_tree=True``...); the
    user's options win anyway.

    Args:
        options: the search options the user gave the agent.

    Returns:
        dict, option name -> value, of :class:`~mcts_agent.search.MCTS`'s keywords.
    """
    if any(_turned_on(name, options[name]) for name in GO_STEP_ASIDE if name in options):
        return {}
    return {"selection": "rave", "exploration": GO_EXPLORATION}


def _turned_on(name: str, value: Any) -> bool:
    """Whether option ``name`` given as ``value`` asks for more than the search's default."""
    if name == "selection":
        return True  # any selection, "rave" included: the user's own choice
    if value is None or value is False:
        return False
    if name in ("leaf_batch", "workers"):
        return value != 1
    return True


CHESS_TIME_LIMIT = 1.0
"""Seconds per move on chess when ``MCTSAgent`` is given neither ``iterations`` nor
``time_limit``: about 300 to 600 iterations of the chess defaults on one core (each
iteration evaluates one leaf with a one-ply search and a capture search below it,
:func:`~mcts_agent.envs.chess_evaluator.search_value`)."""

CHESS_EXPLORATION = 1.2
"""PUCT's c on chess (:func:`chess_defaults`), for values in [-1, 1] and the evaluator's priors."""

CHESS_STEP_ASIDE = ("selection", "evaluator")
"""The options after which :func:`chess_defaults` gives no search options of its own: the user
chose the selection rule or the evaluator (``evaluator=None`` included: random rollouts), so
the search is the one those options ask for."""


def chess_defaults(options: dict[str, Any]) -> dict[str, Any]:
    """The search options ``MCTSAgent`` uses for PettingZoo chess planned on ``ChessModel``.

    Random rollouts cannot judge a chess position (a random game is decided by
    blunders, hundreds of moves later), so chess is searched with PUCT (Silver
    et al. 2017, AlphaZero's rule, :mod:`mcts_agent.selection`) guided by
    :class:`~mcts_agent.envs.chess_evaluator.ChessEvaluator` with
    ``search_depth=SEARCH_DEPTH`` (1): a leaf's value is a one-ply full-width
    alpha-beta search with a capture-only search below it, over material and
    piece-square tables (an MCTS-minimax hybrid, Baier & Winands 2015: a leaf
    sees every reply, quiet mates and forks included), and the priors favour
    captures of valuable pieces by cheap ones, checks and promotions. An
    untried move scores the value of its node (``unvisited_value="parent"``,
    :func:`mcts_agent.selection.parent_value`), so the side that stands worse
    does not try every move before looking deeper at any.
    ``exploration=CHESS_EXPLORATION``. None of these when the
    user gives an option of :data:`CHESS_STEP_ASIDE` (any value); the user's
    options win anyway. The budget, ``time_limit=CHESS_TIME_LIMIT``, is set by
    the agent when it is given neither ``iterations`` nor ``time_limit``.

    Args:
        options: the search options the user gave the agent.

    Returns:
        dict, option name -> value, of :class:`~mcts_agent.search.MCTS`'s keywords.
    """
    if any(name in options for name in CHESS_STEP_ASIDE):
        return {}
    from mcts_agent.envs.chess import board_of, history_of, move_of
    from mcts_agent.envs.chess_evaluator import SEARCH_DEPTH, ChessEvaluator

    return {
        "selection": "puct",
        "evaluator": ChessEvaluator(
            board_of, move_of, search_depth=SEARCH_DEPTH, history_of=history_of
        ),
        "exploration": CHESS_EXPLORATION,
        "unvisited_value": "parent",
    }


_warned_random_rollouts: set[str] = set()


PYTHON_ROLLOUT_ADVICE = (
    "Leave out selection and evaluator for the chess defaults (PUCT with ChessEvaluator, "
    "mcts_agent.defaults.chess_defaults), or give evaluator=ChessEvaluator(board_of, move_of) "
    "from mcts_agent.envs.chess_evaluator"
)
"""What :func:`warn_random_rollouts` advises by default: the Python spelling."""


def warn_random_rollouts(
    game: str, options: dict[str, Any], stacklevel: int = 1, advice: str = PYTHON_ROLLOUT_ADVICE
) -> None:
    """Warns once per game and process if ``game`` is searched with random rollouts.

    A search with no ``evaluator`` (None or absent) judges its leaves by
    uniformly random rollouts, which cannot judge chess: the warning says what
    to do instead (leave out ``selection`` and ``evaluator`` for the chess
    defaults, or give ``evaluator=ChessEvaluator(board_of, move_of)``).
    ``warnings.warn`` with ``UserWarning``; nothing when an evaluator is given.

    Args:
        game: the game's name, e.g. ``"chess"``.
        options: the search options the planner is made with (defaults included).
        stacklevel: as ``warnings.warn``'s, counted from the caller (1 blames the caller).
        advice: what to do instead, in the caller's terms (the CLI gives its options).
    """
    if options.get("evaluator") is not None or game in _warned_random_rollouts:
        return
    _warned_random_rollouts.add(game)
    warnings.warn(
        f"{game} is searched with uniformly random rollouts (no evaluator), which cannot "
        "judge its positions: a random game is decided by blunders hundreds of moves "
        f"later. {advice}",
        UserWarning,
        stacklevel=stacklevel + 1,
    )
