"""PettingZoo AEC envs as models (``mcts_agent.adapters.pettingzoo``).

Modules: :mod:`~mcts_agent.adapters.pettingzoo.model` (:class:`PettingZooModel`,
:class:`PettingZooState`; its docstring describes the adapter),
:mod:`~mcts_agent.adapters.pettingzoo.cloning` (the ways of cloning a position),
:mod:`~mcts_agent.adapters.pettingzoo.known_games` (the games known by heart:
refused or snapshotted), :mod:`~mcts_agent.adapters.pettingzoo.reading`
(reading an env without changing it),
:mod:`~mcts_agent.adapters.pettingzoo.checks` (the start-up checks),
:mod:`~mcts_agent.adapters.pettingzoo.hidden_information` (what the
hidden-information games it plans with ISMCTS hide, and how their worlds are
re-dealt) and :mod:`~mcts_agent.adapters.pettingzoo.hidden_model`
(:class:`PettingZooHiddenModel`, the model ``PettingZooModel(env)`` makes for
them).
"""

from mcts_agent.adapters.pettingzoo.checks import DETERMINISM_STEPS as DETERMINISM_STEPS
from mcts_agent.adapters.pettingzoo.checks import DETERMINISM_TRIALS as DETERMINISM_TRIALS
from mcts_agent.adapters.pettingzoo.checks import PLANNING_CHECK_EVERY as PLANNING_CHECK_EVERY
from mcts_agent.adapters.pettingzoo.checks import (
    PLANNING_CHECKS_PER_DEPTH as PLANNING_CHECKS_PER_DEPTH,
)
from mcts_agent.adapters.pettingzoo.checks import POLICING_WRAPPERS as POLICING_WRAPPERS
from mcts_agent.adapters.pettingzoo.checks import check_clone_arguments as check_clone_arguments
from mcts_agent.adapters.pettingzoo.checks import require_reset as require_reset
from mcts_agent.adapters.pettingzoo.checks import unwrap_policing as unwrap_policing
from mcts_agent.adapters.pettingzoo.cloning import CLONE_METHODS as CLONE_METHODS
from mcts_agent.adapters.pettingzoo.hidden_model import (
    PettingZooHiddenModel as PettingZooHiddenModel,
)
from mcts_agent.adapters.pettingzoo.known_games import (
    IMPERFECT_INFORMATION_GAMES as IMPERFECT_INFORMATION_GAMES,
)
from mcts_agent.adapters.pettingzoo.known_games import (
    require_perfect_information as require_perfect_information,
)
from mcts_agent.adapters.pettingzoo.model import PettingZooModel as PettingZooModel
from mcts_agent.adapters.pettingzoo.model import PettingZooState as PettingZooState

__all__ = [
    "CLONE_METHODS",
    "DETERMINISM_STEPS",
    "DETERMINISM_TRIALS",
    "IMPERFECT_INFORMATION_GAMES",
    "PLANNING_CHECKS_PER_DEPTH",
    "PLANNING_CHECK_EVERY",
    "POLICING_WRAPPERS",
    "PettingZooHiddenModel",
    "PettingZooModel",
    "PettingZooState",
    "check_clone_arguments",
    "require_perfect_information",
    "require_reset",
    "unwrap_policing",
]
