"""A Gymnasium env as a one-player model (``mcts_agent.adapters.gymnasium``).

Modules: :mod:`~mcts_agent.adapters.gymnasium.model` (:class:`GymnasiumModel`,
:class:`GymnasiumState`; its docstring describes the adapter),
:mod:`~mcts_agent.adapters.gymnasium.cloning` (the ways of cloning a position),
:mod:`~mcts_agent.adapters.gymnasium.known_envs` (the envs known by heart),
:mod:`~mcts_agent.adapters.gymnasium.native_rollouts` (their rollouts in the
compiled core),
:mod:`~mcts_agent.adapters.gymnasium.wrappers` (the wrappers read, translated or
refused), :mod:`~mcts_agent.adapters.gymnasium.checks` (the start-up checks) and
:mod:`~mcts_agent.adapters.gymnasium.parameters` (noticing that the env's
parameters changed).
"""

from mcts_agent.adapters.gymnasium.model import GymnasiumModel as GymnasiumModel
from mcts_agent.adapters.gymnasium.model import GymnasiumState as GymnasiumState

__all__ = ["GymnasiumModel", "GymnasiumState"]
