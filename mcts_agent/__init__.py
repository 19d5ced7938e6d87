"""mcts_agent: Monte Carlo Tree Search (UCT) planning for Gymnasium and PettingZoo.

The public surface::

    from mcts_agent import MCTS, Model, StepResult
    planner = MCTS(model, iterations=5000, exploration=2 * math.sqrt(2), seed=0)
    action = planner(state)
"""

from mcts_agent.agent import MCTSAgent
from mcts_agent.evaluator import Evaluation, Evaluator
from mcts_agent.minimax import AlphaBetaMinimax, ExhaustiveMinimax
from mcts_agent.model import Model, RolloutModel, StepResult
from mcts_agent.policies import MinimaxPolicy, PerfectPolicy, Policy, RandomPolicy
from mcts_agent.search import MCTS, RolloutPolicy, SearchSummary
from mcts_agent.tree import ROOT, UNVISITED, Node, Tree

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
    "SearchSummary",
    "StepResult",
    "Tree",
)
