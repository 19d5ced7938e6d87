"""Game models and environments of our own (installed as ``mcts_agent.envs``)."""
