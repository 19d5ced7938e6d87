"""Game models and environments of our own (installed as ``mcts_agent.envs``).

Importing this package registers the Gymnasium envs defined here:

* ``"mcts_agent/GridMaze-v0"``: :class:`mcts_agent.envs.grid_maze.GridMazeEnv`
  (200 steps per episode).
* ``"mcts_agent/PointRobot-v0"``: :class:`mcts_agent.envs.point_robot.PointRobotEnv`
  (100 steps per episode).

``gymnasium.make("mcts_agent.envs:mcts_agent/GridMaze-v0")`` imports this
package first, so it works without an explicit import.
"""

import gymnasium

gymnasium.register(
    id="mcts_agent/GridMaze-v0",
    entry_point="mcts_agent.envs.grid_maze:GridMazeEnv",
    max_episode_steps=200,
)
gymnasium.register(
    id="mcts_agent/PointRobot-v0",
    entry_point="mcts_agent.envs.point_robot:PointRobotEnv",
    max_episode_steps=100,
)
