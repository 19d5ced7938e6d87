"""Tree reuse (docs/guides/anytime-and-solver.md): the new root's subtree is kept, node for node."""

import math

import numpy as np
import pettingzoo
import pytest
from scripted_games import ScriptedGame, nested

from mcts_agent import MCTS, MCTSAgent, StepResult
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.reuse import find_node, reroot

C = 2 * math.sqrt(2)


def statistics(tree, index=0):
    """(N, W, proven value, children) of a subtree, nested: what reuse must keep."""
    node = tree[index]
    kids = tuple(statistics(tree, ch) if ch != -1 else None for ch in node.children)
    return (node.visits, node.value_sum, node.proven_value, node.actions, kids)


def after(model, state, *actions):
    for action in actions:
        state = model.step(state, action).next_state
    return state


OPTIONS = [{}, {"selection": "puct"}, {"solve": True, "value_bounds": (-1, 1)}]


@pytest.mark.parametrize("options", OPTIONS, ids=["plain", "puct", "solver"])
@pytest.mark.parametrize(
    "model, start, moves",
    [(TicTacToeModel(), EMPTY_BOARD, (4, 0)), (ConnectFourModel(), C4_START, (3, 3))],
    ids=["tictactoe", "connect_four"],
)
def test_the_reused_subtree_keeps_every_n_and_w_then_grows_by_the_iterations(
    model, start, moves, options
):
    planner = MCTS(model, 3000, exploration=C, seed=5, reuse_tree=True, **options)
    planner.search(start)
    old = planner.tree
    state = after(model, start, *moves)
    node = find_node(old, state, None)
    assert node is not None and old[node].state == state
    before = statistics(old, node)
    kept = reroot(old, node)
    assert statistics(kept) == before  # node for node, N, W and proven values
    assert (kept[0].reward, kept.discounts[0]) == (0.0, 0.0)  # the root has no mover
    assert statistics(old, node) == before  # the old tree is not changed
    planner.search(state)
    summary = planner.summary()
    assert summary.reused_visits == old[node].visits > 0
    if summary.stop_reason == "iterations":
        assert planner.tree[0].visits == old[node].visits + 3000
        assert summary.iterations == 3000


def test_reuse_then_search_equals_searching_the_rerooted_tree():
    # The re-rooted tree, grown by a plain loop, is exactly what the search built.
    model = TicTacToeModel()
    planner = MCTS(model, 2000, exploration=C, seed=2, reuse_tree=True)
    planner.search(EMPTY_BOARD)
    state = after(model, EMPTY_BOARD, 0, 4)
    kept = reroot(planner.tree, find_node(planner.tree, state, None))
    rng_state = planner.rng.getstate()
    planner.search(state)
    twin = MCTS(model, 2000, exploration=C, seed=0)
    twin.rng.setstate(rng_state)
    twin._run(kept, 2000)
    assert nested(planner.tree) == nested(kept)


def test_a_reply_the_old_tree_never_tried_gives_a_fresh_tree():
    # A one-move search tries only the first move: the position after any other is not there.
    model = TicTacToeModel()
    reusing = MCTS(model, 1, exploration=C, seed=4, reuse_tree=True)
    fresh = MCTS(model, 1, exploration=C, seed=4)
    for planner in (reusing, fresh):
        planner.search(EMPTY_BOARD)
        planner.search(after(model, EMPTY_BOARD, 8, 7), iterations=500)
    assert reusing.summary().reused_visits == 0
    assert nested(reusing.tree) == nested(fresh.tree)


def transposing_game():
    """One player: 'a' leads to 's' at once; 'b' then 'c' reach 's' again, deeper."""
    return ScriptedGame(
        {
            "root": (0, {"a": ("s", 0.0, False), "b": ("t", 0.0, False)}),
            "t": (0, {"c": ("s", 0.0, False)}),
            "s": (0, {"end": ("x", 1.0, True)}),
        }
    )


def test_the_node_nearest_the_root_is_reused():
    game = transposing_game()
    planner = MCTS(game, 50, seed=0, reuse_tree=True)
    planner.search("root")
    tree = planner.tree
    holding = [i for i in range(len(tree)) if tree[i].state == "s"]
    assert len(holding) == 2  # s at depth 1 (via a) and at depth 2 (via b, c)
    shallow = tree[0].children[0]
    assert find_node(tree, "s", None) == shallow
    planner.search("s")
    assert planner.summary().reused_visits == tree[shallow].visits


def test_the_model_key_decides_which_states_are_the_same():
    game = transposing_game()
    game.key = lambda state: "same" if state in ("s", "t") else state
    planner = MCTS(game, 50, seed=0, reuse_tree=True)
    planner.search("root")
    tree = planner.tree
    # By key, t (depth 1, made second) and s (depth 1, made first) are the same: s first.
    assert find_node(tree, "t", game.key) == tree[0].children[0]


def test_root_noise_is_drawn_anew_for_a_reused_root():
    model = TicTacToeModel()
    planner = MCTS(
        model, 2000, exploration=C, seed=0, selection="puct", root_noise=(0.3, 0.5), reuse_tree=True
    )
    planner.search(EMPTY_BOARD)
    state = after(model, EMPTY_BOARD, 4, 0)
    node = find_node(planner.tree, state, None)
    clean = planner.tree.priors[node]
    assert len(set(clean)) == 1  # uniform: no evaluator, and not the root
    planner.search(state)
    priors = planner.summary().priors
    assert len(set(priors)) > 1 and math.isclose(sum(priors), 1.0)


class ArrayModel:
    """A one-player count to 3 whose states are numpy arrays (== is element-wise)."""

    def actions(self, state):
        return () if state[0] >= 3 else (1,)

    def player(self, state):
        return 0

    def step(self, state, action):
        return StepResult(state + 1, 1.0, bool(state[0] + 1 >= 3))


def test_states_that_do_not_compare_to_a_bool_need_a_key():
    model = ArrayModel()
    planner = MCTS(model, 10, seed=0, reuse_tree=True)
    planner.search(np.array([0]))
    with pytest.raises(TypeError, match=r"give the model a key\(state\)"):
        planner.search(np.array([1]))
    model.key = lambda state: int(state[0])
    planner.search(np.array([1]))
    assert planner.summary().reused_visits > 0


@pytest.mark.parametrize("native_models", [True, False], ids=["native", "adapter"])
@pytest.mark.parametrize("game", ["classic/tictactoe-v3", "classic/connect_four-v3"])
def test_the_agent_finds_the_position_after_the_replies_in_a_game_loop(game, native_models):
    # 300 iterations try every reply to every first move in both games, so the position after
    # the agent's move and the opponent's random reply is always in the previous tree.
    agent = MCTSAgent(300, exploration=C, seed=1, reuse_tree=True, native_models=native_models)
    env = pettingzoo.make("aec", game)
    env.reset(seed=3)
    env.action_space(env.possible_agents[1]).seed(7)
    reused = []
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            action = None
        elif name == env.possible_agents[0]:
            action = agent.act(env)
            reused.append(agent.last_summary.reused_visits)
        else:
            action = env.action_space(name).sample(observation["action_mask"])
        env.step(action)
    assert len(reused) >= 3
    assert reused[0] == 0
    assert all(r > 0 for r in reused[1:]), reused


@pytest.mark.parametrize("seed", range(6))
def test_a_reused_root_with_fresh_noise_never_tries_an_action_twice(seed):
    # PUCT tries a node's untried actions in the order of its priors; fresh noise changes the
    # reused root's priors, and the actions it had tried must stay out of the new order.
    from mcts_agent.envs.connect_four import heuristic_evaluator

    model = ConnectFourModel()
    planner = MCTS(
        model,
        300,
        exploration=2.0,
        seed=seed,
        selection="puct",
        evaluator=heuristic_evaluator,
        root_noise=(0.3, 0.5),
        reuse_tree=True,
    )
    planner.search(C4_START)
    state = after(model, C4_START, 3, 2)
    planner.search(state)
    tree = planner.tree
    assert planner.summary().reused_visits > 0
    for index, node in enumerate(tree):
        tried = [a for a, child in zip(node.actions, node.children, strict=True) if child != -1]
        made = [tree.action_indices[child] for child in tree.children[index]]
        assert len(made) == len(set(made)) == len(tried)  # no action made twice
        if not node.terminated:
            below = sum(tree[child].visits for child in tree.children[index])
            assert node.visits == below + 1  # every node (the reused root too) made by one


@pytest.mark.parametrize(
    "env_id, kwargs",
    [("CartPole-v1", {}), ("FrozenLake-v1", {"is_slippery": False}), ("FrozenLake-v1", {})],
    ids=["cartpole", "frozenlake", "frozenlake-slippery"],
)
def test_the_agent_reuses_its_tree_in_a_gymnasium_episode(env_id, kwargs):
    # CartPole's snapshot holds a numpy array (== is element-wise): the model's key compares
    # positions; slippery FrozenLake reaches its next position through a chance node.
    import gymnasium

    env = gymnasium.make(env_id, **kwargs)
    env.reset(seed=0)
    agent = MCTSAgent(200, seed=0, reuse_tree=True, rollout_limit=20)
    reused = []
    for _ in range(5):
        action = agent.act(env)
        reused.append(agent.last_summary.reused_visits)
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    assert reused[0] == 0
    assert len(reused) >= 2 and all(r > 0 for r in reused[1:]), reused


def test_reuse_through_chance_nodes_leaves_the_previous_tree_as_it_was():
    from mcts_agent.envs.pig import ROLL, PigModel

    model = PigModel()
    planner = MCTS(model, 300, seed=0, reuse_tree=True)
    start = model.initial_state()
    planner.search(start)
    old = planner.tree
    before = [None if r is None else dict(r.index) for r in old.chance_records]
    state = next(  # an outcome of rolling that the old tree holds
        r.next_state for _, r in model.outcomes(start, ROLL) if find_node(old, r.next_state, None)
    )
    planner.search(state)
    assert planner.summary().reused_visits > 0
    assert [None if r is None else dict(r.index) for r in old.chance_records] == before
