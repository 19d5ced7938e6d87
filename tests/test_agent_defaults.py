"""MCTSAgent's defaults (mcts_agent.defaults): read from the env's declarations, never its id."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.envs.classic_control import CartPoleEnv
from gymnasium.wrappers import TimeLimit
from pettingzoo.classic import tictactoe_v3

from mcts_agent import MCTSAgent
from mcts_agent.defaults import (
    DEFAULT_TIME_LIMIT,
    SAMPLED_WIDENING,
    UNBOUNDED_GAMMA,
    UNBOUNDED_ROLLOUT_LIMIT,
    gymnasium_defaults,
)
from mcts_agent.rollout_policies import CautiousRolloutPolicy


class Walk(gym.Env):
    """Cells 0..9 in a row: -1 a step, +10 onto cell 9, -20 into the hole at cell 3 (ends it).

    Rewards are multiplied by ``scale``. Actions: 0 left, 1 right, 2 jump two cells right
    (costs 2). An optimal walk from 0 returns 2: it must jump from cell 2 over the hole.
    """

    def __init__(self, scale: float = 1.0):
        self.scale = scale
        self.observation_space = spaces.Discrete(10)
        self.action_space = spaces.Discrete(3)
        self.position = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.position = 0
        return self.position, {}

    def get_state(self):
        return self.position

    def set_state(self, state):
        self.position = state

    def is_terminal(self):
        return self.position in (3, 9)

    def step(self, action):
        move = (-1, 1, 2)[int(action)]
        self.position = min(max(self.position + move, 0), 9)
        reward = -2.0 if action == 2 else -1.0
        if self.position == 3:
            reward = -20.0
        elif self.position == 9:
            reward = 10.0
        terminated = self.position in (3, 9)
        return self.position, reward * self.scale, terminated, False, {}


def test_no_budget_is_the_default_time_limit_for_every_env():
    agent = MCTSAgent(seed=0)
    env = tictactoe_v3.env()
    env.reset(seed=0)
    agent.act(env)
    assert agent.last_planner.time_limit == DEFAULT_TIME_LIMIT
    assert agent.last_planner.iterations is None
    assert agent.last_summary.stop_reason == "time_limit"
    assert not agent.last_planner.value_normalization  # PettingZoo: no Gymnasium defaults


def test_a_given_budget_is_kept():
    assert MCTSAgent(iterations=10)._search_options.get("time_limit") is None
    assert MCTSAgent(time_limit=0.5)._search_options["time_limit"] == 0.5


def test_a_time_limited_env_is_planned_undiscounted_to_its_limit():
    env = gym.make("CartPole-v1")
    env.reset(seed=0)
    agent = MCTSAgent(iterations=20, seed=0)
    agent.act(env)
    planner = agent.last_planner
    assert planner.value_normalization and planner.reuse_tree
    assert planner.gamma == 1.0 and planner.rollout_limit == 500  # the TimeLimit's length
    assert agent.last_summary.value_range is not None
    assert "normalised by the range" in str(agent.last_summary)


def test_the_defaults_come_from_the_wrappers_not_the_id():
    # The same env built from its class, with and without a TimeLimit: no id anywhere.
    unbounded = CartPoleEnv()
    assert gymnasium_defaults(unbounded) == {
        "value_normalization": True,
        "reuse_tree": True,
        "gamma": UNBOUNDED_GAMMA,
        "rollout_limit": UNBOUNDED_ROLLOUT_LIMIT,
    }
    bounded = TimeLimit(CartPoleEnv(), max_episode_steps=500)
    assert gymnasium_defaults(bounded) == {
        "value_normalization": True,
        "reuse_tree": True,
        "rollout_limit": 500,
    }
    longer = TimeLimit(CartPoleEnv(), max_episode_steps=3000)
    assert gymnasium_defaults(longer)["rollout_limit"] == 3000  # more than MCTS's 1000
    assert gymnasium_defaults(gym.make("CartPole-v1")) == gymnasium_defaults(bounded)
    # CliffWalking-v1 is registered without a TimeLimit.
    assert gymnasium_defaults(gym.make("CliffWalking-v1"))["gamma"] == UNBOUNDED_GAMMA


def test_what_the_user_gives_wins():
    env = gym.make("CliffWalking-v1")
    env.reset(seed=0)
    agent = MCTSAgent(
        iterations=20, value_normalization=False, gamma=0.5, rollout_limit=7, reuse_tree=False
    )
    agent.act(env)
    planner = agent.last_planner
    assert not planner.value_normalization and not planner.reuse_tree
    assert (planner.gamma, planner.rollout_limit) == (0.5, 7)


def play(env: gym.Env, agent: MCTSAgent, seed: int) -> tuple[list, float]:
    """One episode: the actions taken and the return."""
    env.reset(seed=seed)
    actions, total = [], 0.0
    while True:
        action = agent.act(env)
        actions.append(action)
        _, reward, terminated, truncated, _ = env.step(action)
        total += reward
        if terminated or truncated:
            return actions, total


@pytest.mark.parametrize("scale", [1 / 1024, 1024.0, 1000.0])
def test_rewards_on_another_scale_give_the_same_plan(scale):
    # Normalised values make c scale-free: every reward times 1024 or 1/1024 (exact in binary)
    # or 1000 plays the same walk as the original, with the same seed and the default c: an
    # optimal one (return 2: a step costs 1 a cell, the jump over the hole 2 for two cells).
    def episode(reward_scale: float) -> tuple[list, float]:
        env = TimeLimit(Walk(reward_scale), max_episode_steps=30)
        return play(env, MCTSAgent(iterations=300, seed=3), seed=0)

    original, total = episode(1.0)
    scaled, scaled_total = episode(scale)
    assert total == 2.0
    assert scaled == original
    assert scaled_total == pytest.approx(total * scale)


def test_without_normalisation_the_scale_changes_the_plan():
    # The contrast: with the option off, the same c explores rewards of size 1/1024 widely and
    # finds the optimum, but trusts early estimates of returns in the tens (or thousands) and
    # jumps into the hole.
    def episode(reward_scale: float) -> tuple[list, float]:
        env = TimeLimit(Walk(reward_scale), max_episode_steps=30)
        return play(env, MCTSAgent(iterations=300, value_normalization=False, seed=3), seed=0)

    assert episode(1 / 1024)[1] == 2 / 1024
    for scale in (1.0, 1024.0):
        actions, total = episode(scale)
        assert actions == [1, 2] and total == -21.0 * scale  # right, then the jump into cell 3


def test_taxi_with_the_defaults_delivers_on_the_shortest_route():
    # Short-budget version of the Gymnasium suite (benchmarks/gymnasium_suite.py): 3,000
    # iterations a step, the defaults otherwise. A return >= 5 is a delivery within 16 steps
    # (+20, -1 a step); the optimum averages 7.9 over Taxi's starts.
    env = gym.make("Taxi-v4")
    for seed in (0, 1):
        _, total = play(env, MCTSAgent(iterations=3000, seed=seed), seed=seed)
        assert total >= 5.0, (seed, total)


def test_cartpole_with_the_defaults_balances_to_the_limit():
    env = gym.make("CartPole-v1", max_episode_steps=200)
    _, total = play(env, MCTSAgent(iterations=300, seed=0), seed=0)
    assert total == 200.0


@pytest.mark.parametrize(
    ("kwargs", "least"),
    [({"is_slippery": True}, 0.0), ({"map_name": "8x8"}, 0.0)],
)
def test_a_transition_table_gets_cautious_rollouts_with_its_least_reward(kwargs, least):
    env = gym.make("FrozenLake-v1", **kwargs)
    env.reset(seed=0)
    agent = MCTSAgent(iterations=50, seed=0)
    agent.act(env)
    policy = agent.last_planner.rollout_policy
    assert isinstance(policy, CautiousRolloutPolicy)
    assert policy.model is agent.last_planner.model and policy.loss_reward == least


def test_slippery_cliff_walking_counts_the_cliff_as_its_least_reward():
    # Reaching the goal pays -1 and ends the episode: with loss_reward 0 it would count as a
    # loss and rollouts would shun the goal; the table's least reward is the cliff's -100.
    env = gym.make("CliffWalking-v1", is_slippery=True)
    env.reset(seed=0)
    agent = MCTSAgent(iterations=50, seed=0)
    agent.act(env)
    assert agent.last_planner.rollout_policy.loss_reward == -100.0


def test_a_deterministic_table_keeps_random_rollouts_and_the_user_may_say_so_too():
    env = gym.make("Taxi-v4")
    env.reset(seed=0)
    agent = MCTSAgent(iterations=50, seed=0)
    agent.act(env)
    assert agent.last_planner.rollout_policy is None
    slippery = gym.make("FrozenLake-v1")
    slippery.reset(seed=0)
    uniform = MCTSAgent(iterations=50, rollout_policy=None, seed=0)
    uniform.act(slippery)
    assert uniform.last_planner.rollout_policy is None


def test_slippery_frozen_lake_with_the_defaults_beats_random_rollouts():
    # Short-budget version of the suite's FrozenLake row: 1,000 iterations a move, seeds 0-11.
    # Observed: the defaults (cautious rollouts) reach the goal in 8 of 12 episodes, random
    # rollouts in 0 (the optimum is 0.744 of episodes).
    env = gym.make("FrozenLake-v1")

    def goals(**options) -> int:
        return sum(
            play(env, MCTSAgent(iterations=1000, seed=seed, **options), seed=seed)[1] > 0
            for seed in range(12)
        )

    assert goals() >= 7
    assert goals(rollout_policy=None) <= 2


def test_sampled_actions_get_the_narrower_widening_and_the_user_wins():
    env = gym.make("Pendulum-v1")
    env.reset(seed=0)
    agent = MCTSAgent(iterations=20, seed=0)
    agent.act(env)
    assert agent.last_planner.widening == SAMPLED_WIDENING == (1.0, 0.5)
    mine = MCTSAgent(iterations=20, seed=0, widening=(3.0, 0.25))
    mine.act(env)
    assert mine.last_planner.widening == (3.0, 0.25)
    taxi = gym.make("Taxi-v4")
    taxi.reset(seed=0)
    listed = MCTSAgent(iterations=20, seed=0)
    listed.act(taxi)
    assert listed.last_planner.widening is None


@pytest.mark.parametrize("seed", [0, 1])
def test_pendulum_with_the_defaults_swings_up_and_balances(seed):
    # Short-budget version of the suite's Pendulum-v1 (benchmarks/gymnasium_suite.py): 150
    # iterations a step, the defaults otherwise, 100 steps. Random torques return about
    # -600 over 100 steps; the pendulum here is up within 80 steps and stays there.
    env = gym.make("Pendulum-v1", max_episode_steps=100)
    env.reset(seed=seed)
    agent = MCTSAgent(iterations=150, seed=seed)
    total, angles = 0.0, []
    for _ in range(100):
        observation, reward, terminated, truncated, _ = env.step(agent.act(env))
        total += reward
        angles.append(abs(float(np.arctan2(observation[1], observation[0]))))
        if terminated or truncated:
            break
    assert total > -200.0
    assert max(angles[-20:]) < 0.1  # upright (within 6 degrees) for the last 20 steps


@pytest.mark.parametrize("seed", [0, 1])
def test_the_point_robot_goes_around_the_obstacle_with_short_discounted_rollouts(seed):
    # The straight line to the goal crashes into the obstacle (tests/test_point_robot.py);
    # 120 iterations a step with 30-step rollouts discounted by 0.99 (the suite's defaults
    # roll out to the episode's end: docs/benchmarks.md) go around it to the goal.
    import mcts_agent.envs  # noqa: F401 (registers mcts_agent/PointRobot-v0)

    env = gym.make("mcts_agent/PointRobot-v0")
    env.reset(seed=seed)
    agent = MCTSAgent(iterations=120, seed=seed, rollout_limit=30, gamma=0.99)
    for _ in range(100):
        _, _, terminated, truncated, info = env.step(agent.act(env))
        if terminated or truncated:
            break
    assert info["reached_goal"] and not info["crashed"]


def test_the_summary_of_a_box_env_prints_its_env_actions():
    import mcts_agent.envs  # noqa: F401 (registers mcts_agent/PointRobot-v0)

    env = gym.make("mcts_agent/PointRobot-v0")
    env.reset(seed=0)
    agent = MCTSAgent(iterations=40, seed=0)
    action = agent.act(env)
    text = str(agent.last_summary)
    assert isinstance(action, np.ndarray) and action.shape == (2,)
    first_row = text.splitlines()[2]  # the move played comes first
    assert first_row.startswith(f"[{float(action[0]):.4g}, {float(action[1]):.4g}]")


def test_options_of_some_models_are_checked_on_the_model_planned():
    # state_widening needs a stochastic model, action_sampler sampled actions: the agent
    # takes them, and the model planned decides (not tic-tac-toe's, made before any env).
    agent = MCTSAgent(iterations=10, seed=0, action_sampler=lambda state, rng, tried: (0.25,))
    pendulum = gym.make("Pendulum-v1")
    pendulum.reset(seed=0)
    assert agent.act(pendulum).tolist() == [0.25]
    stochastic = MCTSAgent(iterations=10, seed=0, state_widening=(1.0, 0.5))
    lake = gym.make("FrozenLake-v1", is_slippery=True)
    lake.reset(seed=0)
    stochastic.act(lake)
    assert stochastic.last_planner.state_widening == (1.0, 0.5)
    with pytest.raises(ValueError, match="GymnasiumModel is deterministic"):
        stochastic.act(pendulum)


# ------------------------------------------------------------------ chess


def _chess_env(*ucis):
    from pettingzoo.classic import chess_v6

    env = chess_v6.env()
    env.reset(seed=0)
    import chess

    from mcts_agent.envs.chess import ChessModel, action_of

    model = ChessModel()
    for uci in ucis:
        env.step(action_of(model.state_of(env), chess.Move.from_uci(uci)))
    return env


def test_chess_is_planned_on_the_chess_model_with_puct_and_its_evaluator():
    from mcts_agent.defaults import CHESS_EXPLORATION, CHESS_TIME_LIMIT
    from mcts_agent.envs.chess import ChessModel
    from mcts_agent.envs.chess_evaluator import ChessEvaluator

    env = _chess_env("e2e4", "d7d5", "d1g4")  # issue 34: the queen left hanging
    board = env.unwrapped.board.copy()
    agent = MCTSAgent(iterations=200, seed=0)
    action = agent.act(env)
    planner = agent.last_planner
    assert isinstance(planner.model, ChessModel) and planner.selection == "puct"
    assert isinstance(planner.evaluator, ChessEvaluator) and planner.evaluator.search_depth == 1
    assert planner.unvisited_value == "parent"
    assert planner.exploration == CHESS_EXPLORATION and planner.time_limit is None
    assert agent.last_summary.player == "player_1"
    from mcts_agent.envs.chess import move_of

    assert move_of(ChessModel().state_of(env), action).uci() == "c8g4"  # takes the queen
    assert env.unwrapped.board == board and env.unwrapped.board.move_stack == board.move_stack
    # no budget given: chess's own, not the 0.1 s of other games
    assert (
        MCTSAgent(seed=0, max_nodes=50)
        ._native_binding(("pettingzoo.classic.chess.chess", "raw_env"))
        .planner.time_limit
        == CHESS_TIME_LIMIT
    )
    assert MCTSAgent(seed=0, time_limit=0.3).act(env) is not None


def test_the_users_options_win_and_random_rollouts_on_chess_warn_once(recwarn):
    import warnings

    import mcts_agent.defaults as defaults

    defaults._warned_random_rollouts.discard("chess")
    env = _chess_env()
    with pytest.warns(UserWarning, match="random rollouts .* cannot judge") as caught:
        agent = MCTSAgent(iterations=5, selection="uct", seed=0)
        agent.act(env)
    assert caught[0].filename == __file__  # blames the caller of act
    assert agent.last_planner.selection == "uct" and agent.last_planner.evaluator is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MCTSAgent(iterations=5, evaluator=None, seed=1).act(env)  # once per process
        custom = MCTSAgent(iterations=5, exploration=3.0, seed=1)
        custom.act(env)  # the defaults, no warning
    assert custom.last_planner.exploration == 3.0 and custom.last_planner.selection == "puct"


def test_planning_chess_on_the_env_itself_warns_that_it_has_no_evaluator():
    import mcts_agent.defaults as defaults

    defaults._warned_random_rollouts.discard("chess")
    env = _chess_env()
    with pytest.warns(UserWarning, match="need the native model") as caught:
        agent = MCTSAgent(iterations=3, native_models=False, seed=0)
        agent.act(env)
    assert caught[0].filename == __file__  # blames the caller of act
    assert agent.last_planner.evaluator is None  # the generic adapter, random rollouts
