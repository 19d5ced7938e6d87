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
  et al. 2020, MuZero, Appendix B), tree reuse between steps, and for an env
  that declares no episode length (no ``TimeLimit``) a discount and a
  rollout horizon that keep returns finite.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "UNBOUNDED_GAMMA",
    "UNBOUNDED_ROLLOUT_LIMIT",
    "gymnasium_defaults",
]

DEFAULT_TIME_LIMIT = 0.1
"""Seconds per move when ``MCTSAgent`` is given neither ``iterations`` nor ``time_limit``."""

UNBOUNDED_GAMMA = 0.99
"""The discount for a Gymnasium env that declares no episode length (no ``TimeLimit``)."""

UNBOUNDED_ROLLOUT_LIMIT = 100
"""Rollout moves for such an env: its effective horizon ``1 / (1 - UNBOUNDED_GAMMA)``."""


def gymnasium_defaults(env: Any) -> dict[str, Any]:
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
      rollouts end at the limit (the model stops them there).

    Args:
        env: a ``gymnasium.Env``, wrapped or not.

    Returns:
        dict, option name -> value, of :class:`~mcts_agent.search.MCTS`'s keywords.
    """
    options: dict[str, Any] = {"value_normalization": True, "reuse_tree": True}
    if not _declares_episode_length(env):
        options["gamma"] = UNBOUNDED_GAMMA
        options["rollout_limit"] = UNBOUNDED_ROLLOUT_LIMIT
    return options


def _declares_episode_length(env: Any) -> bool:
    """True if a ``TimeLimit`` is among ``env``'s wrappers."""
    from gymnasium.wrappers import TimeLimit

    layer = env
    while layer is not None:
        if isinstance(layer, TimeLimit):
            return True
        layer = getattr(layer, "env", None)
    return False
