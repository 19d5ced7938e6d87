"""Every player's reward (max^n): docs/guides/every-players-reward.md."""

import math
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scripted_games import ScriptedGame, nested, plain_configs, random_game

from mcts_agent import MCTS, Evaluation, StepResult
from mcts_agent.envs.connect_four import EMPTY_BOARD as C4_START
from mcts_agent.envs.connect_four import ConnectFourModel, heuristic_evaluator
from mcts_agent.envs.pig import PigModel
from mcts_agent.envs.three_in_a_row import ThreeInARowModel, parse_board
from mcts_agent.envs.tic_tac_toe import EMPTY_BOARD, TicTacToeModel
from mcts_agent.maxn import MaxnTree, maxn_moves, maxn_values
from mcts_agent.testing import ModelCheckError, check_model


class Scalar:
    """A model's actions, player and step only (no fused rollout): the generic rollout's draws."""

    def __init__(self, model):
        self.model = model

    def actions(self, state):
        return self.model.actions(state)

    def player(self, state):
        return self.model.player(state)

    def step(self, state, action):
        return self.model.step(state, action)


class ZeroSumMapping(Scalar):
    """The same two-player zero-sum game reported as ``{mover: r, other: -r}``."""

    def __init__(self, model, players=(1, 2)):
        super().__init__(model)
        self.reward_players = players

    def mapping(self, mover, reward):
        other = (
            self.reward_players[1] if mover == self.reward_players[0] else self.reward_players[0]
        )
        return {mover: reward, other: -reward}

    def step(self, state, action):
        next_state, reward, terminated = self.model.step(state, action)
        return StepResult(next_state, self.mapping(self.model.player(state), reward), terminated)


class ZeroSumChance(ZeroSumMapping):
    """A stochastic zero-sum model's outcomes reported as mappings."""

    def outcomes(self, state, action):
        mover = self.model.player(state)
        return [
            (p, StepResult(r.next_state, self.mapping(mover, r.reward), r.terminated))
            for p, r in self.model.outcomes(state, action)
        ]


class ScalarChance(Scalar):
    def outcomes(self, state, action):
        return self.model.outcomes(state, action)


def mapping_evaluator(evaluator, player, players=(1, 2)):
    """A scalar evaluator's values as ``{player to move: v, other: -v}``."""

    def evaluate(state, actions):
        value, priors = evaluator(state, actions)
        if value is None:
            return Evaluation(None, priors)
        mover = player(state)
        other = players[1] if mover == players[0] else players[0]
        return Evaluation({mover: value, other: -value}, priors)

    return evaluate


def same_searches(scalar_model, mapping_model, state, **config):
    plain = MCTS(scalar_model, **config)
    plain.search(state)
    vector = MCTS(mapping_model, **config)
    vector.search(state)
    assert isinstance(vector.tree, MaxnTree)
    assert nested(vector.tree) == nested(plain.tree)  # every N and W, exactly
    assert vector.summary()._replace(elapsed=0.0) == plain.summary()._replace(elapsed=0.0)
    assert vector.rng.getstate() == plain.rng.getstate()
    return plain, vector


# ------------------------------------------------- two-player zero-sum: the negamax tree


@pytest.mark.parametrize("gamma", [1.0, 0.9])
@pytest.mark.parametrize(
    "model, start, iterations",
    [(TicTacToeModel(), EMPTY_BOARD, 1500), (ConnectFourModel(), C4_START, 600)],
    ids=["tictactoe", "connect_four"],
)
def test_a_zero_sum_game_reported_as_a_mapping_gives_the_negamax_tree(
    model, start, iterations, gamma
):
    config = {"iterations": iterations, "exploration": 2 * math.sqrt(2), "gamma": gamma}
    for seed in (0, 1):
        plain, vector = same_searches(
            Scalar(model), ZeroSumMapping(model), start, seed=seed, **config
        )
        for node in vector.tree:  # the other player's return is the negative, exactly
            assert node.returns[1] == -node.returns[2]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    depth=st.integers(1, 5),
    branching=st.integers(1, 4),
    config=plain_configs,
    solve=st.booleans(),
    max_depth=st.none() | st.integers(1, 3),
)
def test_random_zero_sum_games_reported_as_mappings_give_the_negamax_tree(
    seed, depth, branching, config, solve, max_depth
):
    game = random_game(seed, depth, branching, num_players=2)
    same_searches(game, ZeroSumMapping(game), "", **config, solve=solve, max_depth=max_depth)


def test_puct_with_an_evaluator_and_chance_give_the_negamax_tree_too():
    model = ConnectFourModel()
    evaluate = mapping_evaluator(heuristic_evaluator, model.player)
    config = {"iterations": 400, "exploration": 2.0, "selection": "puct", "seed": 3}
    plain = MCTS(Scalar(model), evaluator=heuristic_evaluator, **config)
    plain.search(C4_START)
    vector = MCTS(ZeroSumMapping(model), evaluator=evaluate, **config)
    vector.search(C4_START)
    assert nested(vector.tree) == nested(plain.tree)
    pig = PigModel(goal=12)
    plain = MCTS(ScalarChance(pig), iterations=600, seed=5)
    plain.search(pig.initial_state())
    vector = MCTS(ZeroSumChance(pig), iterations=600, seed=5)
    vector.search(pig.initial_state())
    # (a chance node's outcome keys hold the reward: a float in one tree, a vector in the other)
    assert [(n.visits, n.value_sum, n.children) for n in vector.tree] == [
        (n.visits, n.value_sum, n.children) for n in plain.tree
    ]


# ------------------------------------------------------------------- hand-worked trees

# Player 1 chooses a (then player 2 chooses x or y) or b. Max^n: player 2 takes x (0.5 > 0.1),
# so a is worth 0.3 to player 1, less than b's 0.5: player 1 plays b (y's 0.9 is a dream).
THREE = {
    "": (1, {"a": ("a", {1: 0.0}, False), "b": ("b", {1: 0.5, 2: 0.0, 3: 0.5}, True)}),
    "a": (
        2,
        {
            "x": ("ax", {1: 0.3, 2: 0.5, 3: 0.2}, True),
            "y": ("ay", {1: 0.9, 2: 0.1, 3: -0.3}, True),
        },
    ),
}


def three_players():
    game = ScriptedGame(THREE)
    game.reward_players = (1, 2, 3)
    return game


def test_each_node_keeps_every_players_return_and_its_value_is_the_movers():
    planner = MCTS(three_players(), iterations=6, exploration=1.0, rollout_limit=0, seed=0)
    planner.search("")
    tree = planner.tree
    a, b = (tree[c] for c in tree[0].children)
    # Iteration 1 expands a (G = 0), 2 expands b (terminal); UCB1 (c = 1) then takes b, of
    # higher value, three times, until a's exploration term wins at iteration 6, which
    # expands a's first action x.
    assert (a.visits, b.visits) == (2, 4)
    assert b.returns == {1: 0.5, 2: 0.0, 3: 0.5} and b.value == 0.5
    x = tree[a.children[0]]
    assert x.returns == {1: 0.3, 2: 0.5, 3: 0.2} and x.value == 0.5  # player 2 moved into x
    assert a.returns == {1: 0.15, 2: 0.25, 3: 0.1} and a.value == 0.15
    assert tree[0].returns == pytest.approx({1: 2.3 / 6, 2: 0.5 / 6, 3: 2.2 / 6})
    assert maxn_moves(three_players(), "") == ((0.5, 0.0, 0.5), ("b",))
    assert MCTS(three_players(), iterations=300, seed=0)("") == "b"


def test_gamma_discounts_every_players_return_with_no_change_of_sign():
    chain = ScriptedGame(
        {
            "": (1, {"m": ("1", {}, False)}),
            "1": (2, {"m": ("2", {}, False)}),
            "2": (3, {"m": ("3", {1: 1.0, 3: -1.0}, True)}),
        }
    )
    chain.reward_players = (1, 2, 3)
    planner = MCTS(chain, iterations=10, gamma=0.9, seed=0)
    planner.search("")
    first, second, third = planner.tree[1], planner.tree[2], planner.tree[3]
    assert (first.visits, second.visits, third.visits) == (10, 9, 8)
    assert first.returns == pytest.approx({1: 0.81, 2: 0.0, 3: -0.81})
    assert second.returns == pytest.approx({1: 0.9, 2: 0.0, 3: -0.9})
    assert (first.value, second.value, third.value) == pytest.approx((0.81, 0.0, -1.0))


def test_an_evaluators_value_mapping_replaces_the_rollout():
    values = {"a": Evaluation({1: 0.2, 2: 0.7}, None)}

    def evaluator(state, actions):
        return values.get(state, Evaluation(None, None))

    planner = MCTS(three_players(), iterations=1, evaluator=evaluator, seed=0)
    planner.search("")
    assert planner.tree[1].returns == {1: 0.2, 2: 0.7, 3: 0.0}  # a player left out gets 0


# -------------------------------------------------------- solver: the brute-force max^n


def random_general_sum_game(seed, depth, branching, num_players=3):
    """A random game whose moves give every player a reward (general-sum)."""
    game = random_game(seed, depth, branching, num_players)
    rng = random.Random(seed)
    for _, moves in game.table.values():
        for action, (nxt, _, terminated) in list(moves.items()):
            reward = {p: round(rng.uniform(-1, 1), 3) for p in range(1, num_players + 1)}
            moves[action] = (nxt, reward, terminated)
    game.reward_players = tuple(range(1, num_players + 1))
    return game


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    depth=st.integers(1, 4),
    branching=st.integers(1, 3),
    gamma=st.sampled_from([1.0, 0.9]),
)
@example(seed=1, depth=4, branching=3, gamma=1.0)  # unproven at c = 4 (below)
def test_the_solver_proves_the_brute_force_maxn_values(seed, depth, branching, gamma):
    game = random_general_sum_game(seed, depth, branching)
    if not game.actions(""):
        return
    # c = 8, the returns' range (4 moves of rewards in [-1, 1]): with c = 4 a proven child of
    # high value can starve an unproven sibling for longer than the budget (seed=1, depth=4,
    # branching=3: unproven after 100,000 iterations; 7 of 1,200 random games unproven
    # after 20,000, against none with c = 8, every one proven within 51 iterations).
    planner = MCTS(game, iterations=20_000, exploration=8.0, solve=True, gamma=gamma, seed=0)
    planner.search("")
    assert planner.summary().stop_reason == "solved"
    expected, best = maxn_moves(game, "", gamma)
    assert planner.tree.proven_vectors[0] == expected  # the same operations, exactly
    assert planner.best_action() in best


# --------------------------------------------------- three in a row: known right moves

POSITIONS = [
    # Player 3 threatens 4 and 7; player 1 must block one (player 2, who loses too if 3
    # wins, blocks the other); only 7 keeps the draw. Negamax, taking player 3's win for
    # player 1's own, leaves both open.
    ("1..2 .33. 2..1 ....", {7}),
    # Player 2 makes two threats (5 and 10) at 9, trusting player 3 to block player 1's
    # threat at 2 (3 loses too if 1 wins); then player 1 can block only one.
    ("11.. ...3 ...2 12.3", {9}),
    # Player 2's only move that wins against every defence.
    ("2123 .... 1... 1..3", {10}),
]


@pytest.mark.parametrize("board, right", POSITIONS, ids=["block-fork", "trust-3", "win-later"])
def test_three_in_a_row_known_right_moves(board, right):
    model = ThreeInARowModel()
    state = parse_board(board)
    assert set(maxn_moves(model, state)[1]) == right  # the oracle agrees
    for seed in range(3):
        assert MCTS(model, iterations=3000, exploration=1.5, seed=seed)(state) in right


def test_three_in_a_row_rules():
    model = ThreeInARowModel()
    state = parse_board("11.. 22.. 33.. ....")
    assert model.player(state) == 1
    result = model.step(state, 2)
    assert result.reward == {1: 1.0, 2: -0.5, 3: -0.5} and result.terminated
    assert model.actions(result.next_state) == ()
    assert maxn_values(model, result.next_state) == (0.0, 0.0, 0.0)  # over: nothing more
    two = ThreeInARowModel(2, every_reward=False)
    assert two.reward_players is None and two.step(parse_board("11.2 2... .... ...."), 2)[1:] == (
        1.0,
        True,
    )
    with pytest.raises(ValueError, match="every_reward=False reports the mover's reward only"):
        ThreeInARowModel(3, every_reward=False)
    with pytest.raises(ValueError, match=r"action 3 is not legal in '111\.22"):
        model.step(result.next_state, 3)


# ------------------------------------------------------------------------- errors


def one_move(reward, players=(1, 2)):
    game = ScriptedGame({"": (1, {"m": ("end", reward, True)})})
    game.reward_players = players
    return game


@pytest.mark.parametrize(
    "reward, error, message",
    [
        (1.0, TypeError, r"1\.0 \(float\).*expected a mapping"),
        ({3: 1.0}, ValueError, r"whose key 3 is not one of the model's reward_players \(1, 2\)"),
        ({1: "1"}, TypeError, r"the value of 1 is '1' \(str\); expected a real number"),
        ({1: math.nan}, ValueError, r"the value of 1 is nan; expected a finite number"),
    ],
)
def test_bad_reward_mappings_are_errors_naming_step(reward, error, message):
    with pytest.raises(error, match=r"step\('', 'm'\) returned the reward .*" + message):
        MCTS(one_move(reward), iterations=2, seed=0).search("")


def test_mismatched_declarations_are_errors():
    game = one_move({1: 1.0})
    game.reward_players = None
    with pytest.raises(TypeError, match=r"give the model the attribute reward_players"):
        MCTS(game, iterations=2, seed=0).search("")
    with pytest.raises(ValueError, match=r"the player to move 1 is not one of .* \(2, 3\)"):
        MCTS(one_move({2: 1.0}, players=(2, 3)), iterations=2, seed=0).search("")
    with pytest.raises(ValueError, match=r"lists a player twice"):
        MCTS(one_move({1: 1.0}, players=(1, 1)), iterations=2)
    with pytest.raises(TypeError, match=r"reward_players must be a sequence"):
        MCTS(one_move({1: 1.0}, players="12"), iterations=2)

    def scalar_value(state, actions):
        return Evaluation(0.5, None)

    with pytest.raises(TypeError, match=r"the evaluator gave state '' the value 0\.5"):
        MCTS(three_players(), iterations=3, evaluator=scalar_value, seed=0).search("")


def test_leaf_batching_and_workers_are_refused_with_every_players_reward():
    """Both keep one value per node (virtual loss, the merged roots): refused, not dropped."""
    with pytest.raises(ValueError, match=r"got leaf_batch=4$"):
        MCTS(three_players(), iterations=8, leaf_batch=4)
    with pytest.raises(ValueError, match=r"got workers=2$"):  # names the option set, only it
        MCTS(three_players(), iterations=8, workers=2)
    with pytest.raises(ValueError, match=r"got leaf_batch=4 and workers=2$"):
        MCTS(three_players(), iterations=8, leaf_batch=4, workers=2)


# ------------------------------------------------------------------------ tree reuse


def test_tree_reuse_keeps_every_players_returns():
    model = ThreeInARowModel()
    state = parse_board("1..2 .33. 2..1 ....")
    planner = MCTS(model, iterations=400, reuse_tree=True, seed=0)
    planner.search(state)
    child_index = planner.tree[0].children[0]
    child = planner.tree[child_index]
    kept = planner.search(child.state, iterations=1)
    assert isinstance(planner.tree, MaxnTree) and planner.summary().reused_visits == child.visits
    assert kept.visits == child.visits + 1
    assert planner.tree[planner.tree[0].children[0]].returns is not None


def test_check_model_checks_every_players_rewards():
    model = ThreeInARowModel()
    check_model(model, model.initial_state, seed=0, num_playouts=5)
    with pytest.raises(ModelCheckError, match=r"whose key 3 is not one of the model's reward"):
        check_model(one_move({3: 1.0}), "")


def test_a_players_reward_out_of_the_solvers_bounds_is_an_error():
    model = ThreeInARowModel()  # a loser gets -0.5, below lo = -0.25
    planner = MCTS(model, iterations=3000, solve=True, value_bounds=(-0.25, 1.0), seed=0)
    with pytest.raises(ValueError, match=r"\(-0\.25, 1\.0\) .* pays the reward -0\.5 at"):
        planner.search(parse_board("11.. ...3 ...2 12.3"))


def test_the_solver_proves_a_three_in_a_row_win_with_value_bounds():
    model = ThreeInARowModel()
    planner = MCTS(model, iterations=3000, solve=True, value_bounds=(-0.5, 1.0), seed=0)
    assert planner(parse_board("11.. ...3 ...2 12.3")) == 9  # "trust-3" above
    assert planner.summary().stop_reason == "solved"
    assert planner.tree.proven_vectors[0] == (-0.5, 1.0, -0.5)  # player 2 wins
