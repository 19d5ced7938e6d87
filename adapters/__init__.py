"""Adapters that turn Gymnasium and PettingZoo envs into models (``mcts_agent.adapters``)."""
