"""Adapters that turn Gymnasium and PettingZoo envs into models (``mcts_agent.adapters``)."""

from mcts_agent.adapters.env_view import EnvView as EnvView
from mcts_agent.adapters.env_view import EnvViewEvaluator as EnvViewEvaluator
from mcts_agent.adapters.errors import CloneCheckError as CloneCheckError
from mcts_agent.adapters.gymnasium import GymnasiumModel as GymnasiumModel
from mcts_agent.adapters.gymnasium import GymnasiumState as GymnasiumState
from mcts_agent.adapters.pettingzoo import PettingZooModel as PettingZooModel
from mcts_agent.adapters.pettingzoo import PettingZooState as PettingZooState
