"""mcts_agent: Monte Carlo Tree Search (UCT) planning for Gymnasium and PettingZoo.

The public surface::

    from mcts_agent import MCTS, Model, StepResult
    planner = MCTS(model, iterations=5000, exploration=2 * math.sqrt(2), seed=0)
    action = planner(state)

``mcts_agent.__version__`` is the installed distribution's version (the one in
pyproject.toml, read with :func:`importlib.metadata.version`), or ``"unknown"``
when the package is imported from a source tree that was never installed.
``mcts_agent.core_backend()`` says whether the plain search loop runs compiled
(``"compiled"``, ``mcts_agent._core``) or in pure Python (``"python"``).
"""

import logging
from importlib.metadata import PackageNotFoundError, version

from mcts_agent.agent import MCTSAgent
from mcts_agent.compiled import core_backend
from mcts_agent.evaluator import Evaluation, Evaluator
from mcts_agent.minimax import AlphaBetaMinimax, ExhaustiveMinimax
from mcts_agent.model import (
    HiddenInformationModel,
    Model,
    RolloutModel,
    SampledActionsModel,
    StepResult,
    StochasticModel,
)
from mcts_agent.policies import MinimaxPolicy, PerfectPolicy, Policy, RandomPolicy
from mcts_agent.search import MCTS, RolloutPolicy, SearchSummary
from mcts_agent.tree import ROOT, UNVISITED, Node, Tree

# A library's loggers get no handler but this one (the logging HOWTO): records reach the
# application's handlers only where it configures logging.getLogger("mcts_agent").
logging.getLogger(__name__).addHandler(logging.NullHandler())

try:
    __version__ = version("mcts-agent")
except PackageNotFoundError:  # a source tree on sys.path, never pip-installed
    __version__ = "unknown"

__all__ = (
    "MCTS",
    "MCTSAgent",
    "ROOT",
    "UNVISITED",
    "AlphaBetaMinimax",
    "Evaluation",
    "Evaluator",
    "ExhaustiveMinimax",
    "MinimaxPolicy",
    "Model",
    "Node",
    "PerfectPolicy",
    "Policy",
    "RandomPolicy",
    "RolloutModel",
    "RolloutPolicy",
    "HiddenInformationModel",
    "SampledActionsModel",
    "SearchSummary",
    "StepResult",
    "StochasticModel",
    "Tree",
    "__version__",
    "core_backend",
)
