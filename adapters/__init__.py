"""Adapters that turn Gymnasium and PettingZoo envs into models (``mcts_agent.adapters``)."""

from mcts_agent.adapters.pettingzoo_model import CloneCheckError, PettingZooModel, PettingZooState
