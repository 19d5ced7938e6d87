"""PettingZooModel on the real PettingZoo envs: exact clones, rewards, legality, the clone check."""

from __future__ import annotations

import copy
import math
import pickle
import random

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test
from pettingzoo.utils.wrappers import BaseWrapper
from pettingzoo_envs import (
    DiceRace,
    game_view,
    make_chess,
    make_connect_four,
    make_tictactoe,
    played,
)

from mcts_agent import MCTS, MCTSAgent
from mcts_agent.adapters import CloneCheckError, PettingZooModel, PettingZooState
from mcts_agent.testing import check_model

METHODS = ["snapshot", "attributes", "replay", "user"]
GAMES = {"tictactoe": make_tictactoe, "connect_four": make_connect_four}


def correct_clone(env):
    """A user clone that copies the unwrapped game's attributes (not via the constructor)."""
    inner = env.unwrapped
    clone = object.__new__(type(inner))
    clone.__dict__.update(copy.deepcopy(inner.__dict__))
    return clone


def model_for(method, make_env, env):
    if method == "user":
        return PettingZooModel(env, clone=correct_clone)
    if method == "replay":
        return PettingZooModel(env, clone=method, env_factory=make_env)
    return PettingZooModel(env, clone=method)


def state_for(model, env, seed, moves):
    return (
        model.state_of(env, history=(seed, moves))
        if model.clone_method == "replay"
        else (model.state_of(env))
    )


def mask_actions(env):
    """The legal actions as the real env states them (none once the game is over)."""
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        return ()
    return tuple(np.flatnonzero(env.observe(agent)["action_mask"]).tolist())


# ---------------------------------------------------------------- the cases


@pytest.mark.parametrize("method", METHODS)
def test_clone_after_centre_has_player_2_to_move_and_eight_actions(method):
    env = played(make_tictactoe, [4])
    before = game_view(env)
    model = model_for(method, make_tictactoe, env)
    assert model.clone_method == method
    state = state_for(model, env, 1, [4])
    assert model.player(state) == "player_2"
    assert list(model.actions(state)) == [0, 1, 2, 3, 5, 6, 7, 8]
    result = model.step(state, 0)
    assert model.player(result.next_state) == "player_1"
    assert list(model.actions(result.next_state)) == [1, 2, 3, 5, 6, 7, 8]
    assert game_view(env) == before
    assert env.unwrapped.board.squares == [0, 0, 0, 0, 1, 0, 0, 0, 0]
    # the state is unchanged too: stepping it again gives the same position
    assert model.actions(state) == (0, 1, 2, 3, 5, 6, 7, 8)
    assert model.step(state, 0).next_state == result.next_state


@pytest.mark.parametrize("method", METHODS)
def test_winning_move_rewards_player_1_and_ends_the_game(method):
    moves = [0, 3, 1, 4]  # X on 0, 1 (first column), O on 3, 4: X completes the column at 2
    env = played(make_tictactoe, moves)
    model = model_for(method, make_tictactoe, env)
    state = state_for(model, env, 1, moves)
    assert model.player(state) == "player_1"
    next_state, reward, terminated = model.step(state, 2)
    assert (reward, terminated) == (1.0, True)
    assert model.actions(next_state) == ()
    # ...and the live game agrees once the move is played in it
    env.step(2)
    assert env.rewards == {"player_1": 1, "player_2": -1}
    state = state_for(model, env, 1, [*moves, 2])
    assert model.actions(state) == ()
    # PettingZoo's mask still lists the empty cells after the win: the model does not trust it
    assert env.observe(env.agent_selection)["action_mask"].tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 1]


def test_clone_method_defaults_to_snapshot_for_known_games_and_attributes_otherwise():
    assert PettingZooModel(played(make_tictactoe, [])).clone_method == "snapshot"
    assert PettingZooModel(played(make_connect_four, [])).clone_method == "snapshot"
    assert PettingZooModel(played(make_chess, [])).clone_method == "attributes"


# --------------------------------------------- every method against the real game


def random_moves(make_env, seed, count):
    """``count`` random legal moves from reset(seed), stopping before the game ends."""
    rng = random.Random(seed)
    env = played(make_env, [], seed)
    moves = []
    for _ in range(count):
        legal = mask_actions(env)
        move = legal[rng.randrange(len(legal))]
        probe = played(make_env, [*moves, move], seed)
        if not mask_actions(probe):
            break
        moves.append(move)
        env = probe
    return moves


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("depth", [0, 3, 6])
def test_model_plays_like_the_real_env_from_mid_game(game, method, depth):
    """From a mid-game live env, random games through the model match the same games
    played in a real env move by move: agent to move, legal actions, rewards, end."""
    make_env = GAMES[game]
    seed = 10 + depth
    moves = random_moves(make_env, seed, depth)
    env = played(make_env, moves, seed)
    before = game_view(env)
    model = model_for(method, make_env, env)
    root = state_for(model, env, seed, moves)
    rng = random.Random(depth)
    for _ in range(2):
        state, real = root, played(make_env, moves, seed)
        while True:
            assert model.player(state) == real.agent_selection
            assert model.actions(state) == mask_actions(real)
            if not model.actions(state):
                break
            action = rng.choice(model.actions(state))
            mover = real.agent_selection
            state, reward, terminated = model.step(state, action)
            real.step(action)
            assert reward == real.rewards[mover]
            assert terminated == all(real.terminations.values())
        assert terminated
    assert game_view(env) == before


@pytest.mark.parametrize("method", ["snapshot", "attributes", "replay"])
@pytest.mark.parametrize("game", GAMES)
def test_model_passes_check_model(game, method):
    make_env = GAMES[game]
    env = played(make_env, [3, 2])
    model = model_for(method, make_env, env)
    check_model(model, state_for(model, env, 1, [3, 2]), seed=0, num_playouts=3)


def test_attribute_copy_clones_chess_mid_game():
    """The generic method on a game with no snapshot: chess after 1. e4 e5 2. Nf3."""
    env = make_chess()
    env.reset(seed=0)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = game_view(env)
    fen = env.unwrapped.board.fen()
    model = PettingZooModel(env)
    state = model.state_of(env)
    assert model.clone_method == "attributes"
    assert model.actions(state) == mask_actions(env)
    assert model.player(state) == env.agent_selection == "player_1"
    action = model.actions(state)[-1]
    next_state = model.step(state, action).next_state
    assert (game_view(env), env.unwrapped.board.fen()) == (before, fen)
    env.step(action)
    assert model.actions(next_state) == mask_actions(env)
    assert model.player(next_state) == env.agent_selection
    assert next_state.position.board.fen() == env.unwrapped.board.fen()


# ------------------------------------------------------------------- the fused rollout


class StepOnly:
    """The same model without its fused rollout: the search then steps rollouts itself."""

    def __init__(self, model):
        self.actions, self.step, self.player = model.actions, model.step, model.player


@pytest.mark.parametrize("method", ["snapshot", "attributes"])
@pytest.mark.parametrize("game", GAMES)
def test_fused_rollout_builds_the_same_tree_as_the_generic_rollout(game, method):
    env = played(GAMES[game], [3])
    model = PettingZooModel(env, clone=method)
    state = model.state_of(env)
    fused = MCTS(model, 60, exploration=2 * math.sqrt(2), seed=7)
    generic = MCTS(StepOnly(model), 60, exploration=2 * math.sqrt(2), seed=7)
    fused.search(state)
    generic.search(state)
    assert fused.tree.visits == generic.tree.visits
    assert fused.tree.values == pytest.approx(generic.tree.values)
    assert fused.summary().action == generic.summary().action


def test_rollout_returns_the_movers_discounted_result():
    """X on PettingZoo cells 0 and 3 (the top row's first two), O on 1, O to move: with
    gamma = 0.5 a rollout's value is 0 (draw) or +-0.5**k (a win k plies later)."""
    env = played(make_tictactoe, [0, 1, 3])  # X: 0, 3 (first row); O: 1
    model = PettingZooModel(env)
    state = model.state_of(env)
    rng = random.Random(0)
    seen = {model.rollout(state, rng, 1000, 0.5) for _ in range(300)}
    allowed = {0.0} | {s * 0.5**k for k in range(6) for s in (1.0, -1.0)}
    assert seen <= allowed
    assert -0.5 in seen  # O does not block at 6 and X wins on its next move
    assert model.rollout(state, random.Random(0), 1, 0.5) == 0.0  # one move: no win yet


# ------------------------------------------------------------------- the clone check


@pytest.mark.parametrize(
    "clone",
    [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))],
    ids=["deepcopy", "pickle"],
)
@pytest.mark.parametrize("moves", [[], [4, 0]], ids=["start", "mid-game"])
def test_clone_check_rejects_constructor_rebuilding_copies(clone, moves):
    env = played(make_tictactoe, moves)
    before = game_view(env)
    with pytest.raises(CloneCheckError, match=r"clone method 'user'.*clone=None"):
        PettingZooModel(env, clone=clone)
    assert game_view(env) == before


def shallow_clone(env):
    """A new env object whose attributes are the original's own board, dicts and lists."""
    clone = object.__new__(type(env.unwrapped))
    clone.__dict__.update(env.unwrapped.__dict__)
    return clone


def test_clone_check_rejects_a_clone_sharing_the_original():
    env = played(make_connect_four, [3, 3])
    before = game_view(env)
    with pytest.raises(CloneCheckError, match=r"shares mutable objects with the live env \(env.board,"):
        PettingZooModel(env, clone=shallow_clone)
    assert game_view(env) == before  # the check undid the broken clone's damage
    env = played(make_connect_four, [3, 3])
    with pytest.raises(CloneCheckError, match="the clone is the original env itself"):
        PettingZooModel(env, clone=copy.copy)  # a new wrapper around the same game
    with pytest.raises(CloneCheckError, match="must return a new"):
        PettingZooModel(env, clone=lambda e: e)


def test_clone_check_rejects_a_replay_of_other_moves():
    env = played(make_tictactoe, [4, 0])
    model = PettingZooModel(env, clone="replay", env_factory=make_tictactoe)
    with pytest.raises(CloneCheckError, match=r"clone method 'replay'.*history"):
        model.state_of(env, history=(1, [4, 8]))
    model.state_of(env, history=(1, [4, 0]))  # checked once, then every position is compared
    env.step(8)
    with pytest.raises(CloneCheckError, match=r"did not reach the env's position"):
        model.state_of(env, history=(1, [4, 0, 2]))
    assert model.actions(model.state_of(env, history=(1, [4, 0, 8]))) == (1, 2, 3, 5, 6, 7)


# ------------------------------------------------------------------- wrappers


class DoubleRewards(BaseWrapper):
    """A wrapper that changes the game: every reward counts twice, as a numpy float
    (the type of RLCard's payoffs)."""

    @property
    def rewards(self):
        return {agent: np.float64(2 * reward) for agent, reward in self.env.rewards.items()}


def make_doubled_tictactoe():
    return DoubleRewards(make_tictactoe())


def test_built_in_methods_refuse_a_wrapper_that_changes_the_game():
    env = make_doubled_tictactoe()
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"DoubleRewards.*clone="):
        PettingZooModel(env)


def test_replay_steps_the_wrapped_env_and_keeps_its_meaning():
    env = make_doubled_tictactoe()
    env.reset(seed=1)
    for move in [0, 3, 1, 4]:
        env.step(move)
    model = PettingZooModel(env, clone="replay", env_factory=make_doubled_tictactoe)
    state = model.state_of(env, history=(1, [0, 3, 1, 4]))
    assert model.step(state, 2)[1:] == (2.0, True)


def test_numpy_rewards_come_out_as_python_floats():
    env = make_doubled_tictactoe()
    env.reset(seed=1)
    for move in [0, 3, 1]:
        env.step(move)
    model = PettingZooModel(env, clone="replay", env_factory=make_doubled_tictactoe)
    state = model.state_of(env, history=(1, [0, 3, 1]))
    assert type(model.step(model.step(state, 4).next_state, 2).reward) is float
    returns = [model.rollout(state, random.Random(seed), 1000, 1.0) for seed in range(5)]
    assert {type(g) for g in returns} == {float}
    assert set(returns) <= {-2.0, 0.0, 2.0}
    planner = MCTS(model, 40, seed=0)
    planner(state)
    assert {type(value) for value in planner.summary().values} == {float}


# ------------------------------------------------------------------- bad input


def test_illegal_actions_raise_value_error():
    env = played(make_tictactoe, [4])
    model = PettingZooModel(env)
    state = model.state_of(env)
    for action in (4, 9, -1, None):
        with pytest.raises(ValueError, match="not legal for 'player_2'") as raised:
            model.step(state, action)
        assert str(raised.value).endswith("legal actions: [0, 1, 2, 3, 5, 6, 7, 8]")
    later = model.step(model.step(state, 0).next_state, 8).next_state
    assert model.actions(later) == (1, 2, 3, 5, 6, 7)
    with pytest.raises(ValueError, match="not legal for 'player_2'"):
        model.step(later, 0)
    won = played(make_tictactoe, [0, 3, 1, 4, 2])
    with pytest.raises(ValueError, match=r"action 5 is not legal: the game is over \(no legal"):
        model.step(model.state_of(won), 5)


def test_bad_arguments_raise_clear_errors():
    env = played(make_tictactoe, [])
    with pytest.raises(TypeError, match="pettingzoo.AECEnv"):
        PettingZooModel("tictactoe")
    with pytest.raises(ValueError, match="env_factory"):
        PettingZooModel(env, clone="replay")
    with pytest.raises(ValueError, match="clone must be None"):
        PettingZooModel(env, clone="pickle")
    with pytest.raises(TypeError, match="clone must be None"):
        PettingZooModel(env, clone=3)
    with pytest.raises(TypeError, match="env_factory must be a callable"):
        PettingZooModel(env, clone="replay", env_factory=3)
    for clone in (None, "attributes", correct_clone):
        with pytest.raises(ValueError, match="env_factory is only used by clone='replay'"):
            PettingZooModel(env, clone=clone, env_factory=make_tictactoe)
    with pytest.raises(ValueError, match="knows tictactoe and connect_four only"):
        PettingZooModel(played(make_chess, []), clone="snapshot")
    for unreset in (make_tictactoe(), make_chess()):  # both set agent_selection in __init__
        with pytest.raises(ValueError, match="env has not been reset"):
            PettingZooModel(unreset)
    model = PettingZooModel(env)
    with pytest.raises(TypeError, match="model's game"):
        model.state_of(played(make_connect_four, []))
    replay = PettingZooModel(env, clone="replay", env_factory=make_tictactoe)
    with pytest.raises(ValueError, match="history"):
        replay.state_of(env)


def test_states_are_immutable_values():
    env = played(make_connect_four, [3])
    model = PettingZooModel(env)
    state = model.state_of(env)
    assert isinstance(state, PettingZooState)
    assert copy.deepcopy(state) is state
    assert model.state_of(env) == state
    assert model.step(state, 3).next_state != state
    env.step(2)  # the live game moves on; the state does not
    assert model.actions(state) == (0, 1, 2, 3, 4, 5, 6)
    assert model.player(state) == "player_1"


def test_copies_do_not_render(monkeypatch):
    """In "human" mode PettingZoo's tic-tac-toe renders (and waits a frame) on every step."""
    from pettingzoo.classic.tictactoe import tictactoe

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    rendered = []
    monkeypatch.setattr(tictactoe.raw_env, "render", lambda self: rendered.append(self))
    env = make_tictactoe(render_mode="human")
    env.reset(seed=1)
    env.step(4)
    assert len(rendered) == 1
    for clone in (None, "attributes"):
        model = PettingZooModel(env, clone=clone)
        MCTS(model, 50, seed=0).search(model.state_of(env))
    assert rendered == [env.unwrapped]


# ------------------------------------------- hidden information and chance are refused

HIDDEN_INFORMATION_GAMES = {
    "classic/rps-v2": "rps_v2.*hidden move",
    "classic/leduc_holdem-v4": "leduc_holdem_v4.*hidden cards",
    "classic/texas_holdem-v4": "texas_holdem_v4.*hidden cards",
    "classic/texas_holdem_no_limit-v6": "texas_holdem_no_limit_v6.*hidden cards",
}


@pytest.mark.parametrize("game", HIDDEN_INFORMATION_GAMES)
def test_games_with_hidden_information_or_chance_are_refused(game):
    env = pettingzoo.make("aec", game)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(mask_or_all(env))[0]))  # the first player has moved
    with pytest.raises(
        ValueError, match="perfect information only, and " + HIDDEN_INFORMATION_GAMES[game]
    ):
        PettingZooModel(env)
    for clone in ("attributes", correct_clone):
        with pytest.raises(ValueError, match="perfect information only"):
            PettingZooModel(env, clone=clone)


def test_hanabi_is_refused_by_name_before_any_reset():
    # Hanabi needs the hanabi-learning-environment library, which is not installed: make
    # the env object without running its constructor. Its class is enough to refuse it,
    # and the refusal comes before "not reset" (a reset would not make it plannable).
    from pettingzoo.classic.hanabi import hanabi

    env = hanabi.raw_env.__new__(hanabi.raw_env)
    message = "perfect information only, and hanabi_v5 is not one: .*hidden hand"
    with pytest.raises(ValueError, match=message):
        PettingZooModel(env)
    with pytest.raises(ValueError, match=message):
        MCTSAgent(10).act(env)


@pytest.mark.parametrize("game", ["classic/rps-v2", "classic/leduc_holdem-v4"])
def test_a_hidden_information_game_never_reset_is_refused_for_what_it_is(game):
    env = pettingzoo.make("aec", game)
    message = HIDDEN_INFORMATION_GAMES[game]
    with pytest.raises(ValueError, match=message):
        PettingZooModel(env)
    with pytest.raises(ValueError, match=message):
        MCTSAgent(10).act(env)


def mask_or_all(env):
    observation = env.observe(env.agent_selection)
    if isinstance(observation, dict):
        return observation["action_mask"]
    return np.ones(env.action_space(env.agent_selection).n)


def test_dice_race_is_a_valid_aec_env():
    api_test(DiceRace(6), num_cycles=50)


def test_a_game_of_chance_fails_the_determinism_check():
    env = DiceRace(6)
    env.reset(seed=0)
    env.step(0)
    live_generator = env.np_random.bit_generator.state
    with pytest.raises(ValueError, match=r"dice_race_v0 is not deterministic: the moves \["):
        PettingZooModel(env)
    with pytest.raises(ValueError, match="not deterministic"):
        PettingZooModel(env, clone=correct_clone)
    replay = PettingZooModel(env, clone="replay", env_factory=lambda: DiceRace(6))
    with pytest.raises(ValueError, match="not deterministic"):
        replay.state_of(env, history=(0, [0]))
    assert env.np_random.bit_generator.state == live_generator  # the live env's is not reseeded


def test_a_random_draw_that_changes_nothing_passes_the_determinism_check():
    """A one-sided die draws from np_random but always rolls 1: the game is deterministic."""
    env = DiceRace(1)
    env.reset(seed=0)
    live_generator = env.np_random.bit_generator.state
    model = PettingZooModel(env)
    assert model.clone_method == "attributes"
    state = model.state_of(env)
    assert model.actions(state) == (0, 1)
    for _ in range(5):  # five 1-point moves each... player_0 reaches 6 on its sixth
        state = model.step(model.step(state, 1).next_state, 0).next_state
    assert model.step(state, 1)[1:] == (1.0, True)
    assert env.np_random.bit_generator.state == live_generator
