"""Adapters that turn Gymnasium and PettingZoo envs into models (``mcts_agent.adapters``)."""

from mcts_agent.adapters.errors import CloneCheckError as CloneCheckError
from mcts_agent.adapters.gymnasium_model import GymnasiumModel as GymnasiumModel
from mcts_agent.adapters.gymnasium_model import GymnasiumState as GymnasiumState
from mcts_agent.adapters.pettingzoo_model import PettingZooModel as PettingZooModel
from mcts_agent.adapters.pettingzoo_model import PettingZooState as PettingZooState
