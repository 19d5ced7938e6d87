"""GoModel, checked move for move against PettingZoo's classic/go_v5 (minigo's rules)."""

from __future__ import annotations

import copy
import random
from collections import Counter

import numpy as np
import pettingzoo
import pytest

from mcts_agent import MCTS
from mcts_agent.envs.go import (
    BLACK,
    EMPTY,
    WHITE,
    GoModel,
    GoState,
    parse_board,
    render_board,
)
from mcts_agent.testing import check_model

AGENTS = ("black_0", "white_0")


def make_env(size, komi=7.5):
    """A fresh go env. PettingZoo's go env sets minigo's module globals (the board size) when
    made, so an env must be made again whenever the size changes."""
    env = pettingzoo.make("aec", "classic/go_v5", board_size=size, komi=komi)
    env.reset(seed=0)
    return env


def assert_same(env, model, state):
    """The env and the model agree on the state, the legal actions and the player to move."""
    assert model.state_of(env) == state
    observation, _, termination, truncation, _ = env.last()
    assert not truncation
    actions = model.actions(state)
    if termination:
        assert actions == ()
    else:
        assert tuple(np.flatnonzero(observation["action_mask"])) == actions
        assert model.player(state) == AGENTS.index(env.agent_selection) + 1
    return actions


def step_both(env, model, state, action):
    """Plays ``action`` in both; checks the rewards of a move that ends the game."""
    mover = env.agent_selection
    env.step(action)
    state, reward, terminated = model.step(state, action)
    assert terminated == all(env.terminations.values())
    assert env.rewards[mover] == reward
    assert env.rewards[AGENTS[1 - AGENTS.index(mover)]] == -reward
    if terminated:
        assert model.score(state) == env.unwrapped._go.score()
    return state


def play(size, moves, komi=7.5):
    """Plays ``moves`` in a fresh env and in the model, checking both agree after each."""
    env = make_env(size, komi)
    model = GoModel(size, komi)
    state = model.initial_state()
    assert_same(env, model, state)
    for action in moves:
        state = step_both(env, model, state, action)
        assert_same(env, model, state)
    return env, model, state


def random_game(size, komi, seed, events):
    """One uniformly random game played in both, compared at every move; counts its events."""
    env = make_env(size, komi)
    model = GoModel(size, komi)
    state = model.initial_state()
    rng = random.Random(seed)
    while True:
        actions = assert_same(env, model, state)
        if not actions:
            break
        empty = state.board.count(EMPTY)
        events["suicide points"] += empty - (len(actions) - 1) - (state.ko >= 0)
        events["ko points"] += state.ko >= 0
        action = rng.choice(actions)
        before = state
        state = step_both(env, model, state, action)
        events["moves"] += 1
        if action != model.pass_action:
            events["captures"] += state.board.count(EMPTY) > before.board.count(EMPTY) - 1
    events["games"] += 1
    events["draws"] += model.score(state) == 0
    events["black wins"] += model.score(state) > 0


@pytest.mark.parametrize(
    ("size", "komi", "seeds"),
    [
        (5, 7.5, range(0, 150)),
        (5, 0.0, range(1000, 1100)),  # an integer komi: drawn scores happen
        (7, 7.5, range(2000, 2100)),
        (9, 7.5, range(3000, 3060)),
    ],
)
def test_random_games_agree_with_pettingzoo_move_for_move(size, komi, seeds):
    events = Counter()
    for seed in seeds:
        random_game(size, komi, seed, events)
    assert events["games"] == len(seeds)
    # the games reached every rule: captures, suicides refused, ko points, both winners
    assert events["captures"] > 0 and events["suicide points"] > 0 and events["ko points"] > 0
    assert 0 < events["black wins"] < events["games"]
    if komi == 0.0:
        assert events["draws"] > 0  # and step_both checked PettingZoo gives them to white


def test_a_stone_without_liberties_is_captured():
    # black surrounds white's stone on the centre point 12 of a 5x5 board
    _, model, state = play(5, [7, 12, 11, 25, 13, 25, 17])
    assert state.board[12] == EMPTY and state.board.count(WHITE) == 0
    assert state.board.count(BLACK) == 4 and state.ko == -1 and state.to_play == WHITE
    assert 12 not in model.actions(state)  # the emptied point is now suicide for white


def test_a_group_of_two_in_the_corner_is_captured():
    # white 0 and 1 in the corner; black closes their liberties 2, 5 and finally 6
    _, _, state = play(5, [2, 0, 5, 1, 6])
    assert render_board(state.board) == "\n".join(["..X..", "XX...", ".....", ".....", "....."])


def test_suicide_is_refused():
    # black 1 and 5 take the corner's liberties: white 0 would have none
    env, model, state = play(5, [1, 24, 5])
    assert 0 not in model.actions(state)
    assert env.last()[0]["action_mask"][0] == 0
    with pytest.raises(ValueError, match="suicide"):
        model.step(state, 0)
    # a two-stone suicide: white 0 would join white 1, whose last liberty it is
    env, model, state = play(5, [5, 1, 6, 24, 2])
    assert state.to_play == WHITE and 0 not in model.actions(state)
    with pytest.raises(ValueError, match="suicide"):
        model.step(state, 0)


def test_a_move_without_liberties_that_captures_is_legal():
    # white 1 and 5 surround the corner; white 1 has its last liberty there
    env, model, state = play(5, [2, 1, 6, 5])
    assert 0 in model.actions(state)
    _, _, state = play(5, [2, 1, 6, 5, 0])
    assert state.board[0] == BLACK and state.board[1] == EMPTY
    assert state.ko == 1  # a single stone taken in a ko shape: white may not retake at once


def test_ko_forbids_the_immediate_retake_only():
    #  . X O . .     black 7 takes white 6 in a ko shape
    #  X O . O .
    #  . X O . .
    env, model, state = play(5, [1, 2, 5, 12, 11, 8, 20, 6, 7])
    assert state.board[6] == EMPTY and state.ko == 6 and state.to_play == WHITE
    assert 6 not in model.actions(state)
    assert env.last()[0]["action_mask"][6] == 0
    with pytest.raises(ValueError, match="not legal"):
        model.step(state, 6)
    # after a move elsewhere each, white may retake; the retake is a ko for black in turn
    state = step_both(env, model, state, 24)
    assert state.ko == -1
    state = step_both(env, model, state, 23)
    state = step_both(env, model, state, 6)
    assert_same(env, model, state)
    assert state.board[7] == EMPTY and state.ko == 7 and 7 not in model.actions(state)


def test_a_pass_clears_the_ko_point():
    env, model, state = play(5, [1, 2, 5, 12, 11, 8, 20, 6, 7, 25])
    assert state.ko == -1 and state.passes == 1 and state.to_play == BLACK
    state = step_both(env, model, state, 24)  # black plays: the passes are counted anew
    assert_same(env, model, state)
    assert state.passes == 0 and 6 in model.actions(state)


WALLS = [2, 3, 7, 8, 12, 13, 17, 18, 22, 23]  # black holds column 2, white column 3


@pytest.mark.parametrize(
    ("komi", "score", "white_reward"),
    [(7.5, -2.5, 1.0), (4.5, 0.5, -1.0), (5.0, 0.0, 1.0)],  # a drawn score is white's win
)
def test_area_scoring_with_komi_decides_the_winner(komi, score, white_reward):
    # black's area: 15 points (columns 0-2); white's: 10 (columns 3-4)
    env, model, state = play(5, [*WALLS, 25], komi=komi)
    assert state.passes == 1 and model.actions(state)
    state, reward, terminated = model.step(state, 25)  # white's pass ends the game
    assert terminated and model.actions(state) == () and state.passes == 2
    assert model.score(state) == score
    assert reward == white_reward
    env.step(25)
    assert env.rewards == {"black_0": -white_reward, "white_0": white_reward}
    assert env.unwrapped._go.score() == score
    assert model.state_of(env) == state


def test_regions_reaching_both_colours_or_none_count_for_neither():
    model = GoModel(5, komi=0.5)
    assert model.score(model.initial_state()) == -0.5
    one = GoState(parse_board("\n".join(["....."] * 2 + ["..X.."] + ["....."] * 2)), WHITE, -1, 0)
    assert model.score(one) == 25 - 0.5
    both = GoState(parse_board("\n".join(["X...."] + ["....."] * 3 + ["....O"])), BLACK, -1, 0)
    assert model.score(both) == 1 - 1 - 0.5


def test_state_of_reads_a_live_env_without_changing_it():
    env, model, state = play(5, [1, 2, 5, 12, 11, 8, 20, 6, 7])
    position = env.unwrapped._go
    board, recent, mask = position.board.copy(), position.recent, env.last()[0]["action_mask"]
    got = model.state_of(env)
    assert got == GoState(state.board, WHITE, 6, 0)
    assert got.board[7] == BLACK and got.board[2] == WHITE
    assert (position.board == board).all() and position.recent == recent
    assert env.agent_selection == "white_0" and (env.last()[0]["action_mask"] == mask).all()
    assert hash(got) == hash(copy.deepcopy(got))
    env.step(25)
    assert model.state_of(env).passes == 1 and model.state_of(env).ko == -1
    assert model.state_of(env.unwrapped) == model.state_of(env)


def test_state_of_refuses_another_env_or_another_size_or_komi():
    env = pettingzoo.make("aec", "classic/connect_four-v3")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="go_v5"):
        GoModel(5).state_of(env)
    env = make_env(5, komi=7.5)
    with pytest.raises(ValueError, match="board_size=5, komi=7.5; this model plays board_size=7"):
        GoModel(7).state_of(env)
    with pytest.raises(ValueError, match="komi=0.5"):
        GoModel(5, komi=0.5).state_of(env)


def test_mcts_on_the_model_captures_a_group_in_atari():
    # white's three stones have one liberty, point 8: black takes them (and the game)
    board = parse_board(".....\n.XX..\nXOOOX\n.XXX.\n.....")
    model = GoModel(5)
    state = GoState(board, BLACK, -1, 0)
    assert model.step(state, 8).next_state.board.count(WHITE) == 0
    assert [MCTS(model, 400, seed=seed)(state) for seed in range(4)] == [8, 8, 8, 8]


def test_the_model_passes_the_conformance_check():
    model = GoModel(5)
    check_model(model, model.initial_state(), seed=0, num_playouts=10, max_moves=300)


def test_board_text_round_trips():
    text = "X.O\n.X.\nO.."
    board = parse_board(text)
    assert board == bytes([BLACK, EMPTY, WHITE, EMPTY, BLACK, EMPTY, WHITE, EMPTY, EMPTY])
    assert render_board(board) == text
    with pytest.raises(ValueError, match="N lines of N cells"):
        parse_board("X.\n...")
    with pytest.raises(ValueError, match="'Z'"):
        parse_board("XZ\n..")
    with pytest.raises(TypeError):
        parse_board(b"X.\n..")


@pytest.mark.parametrize("action", [-1, 26, 1.0, "1", True, None, 12])
def test_bad_actions_raise(action):
    _, model, state = play(5, [12])
    with pytest.raises(ValueError, match="not legal"):
        model.step(state, action)


def test_numpy_actions_are_accepted():
    model = GoModel(5)
    state = model.step(model.initial_state(), np.int64(12)).next_state
    assert state.board[12] == BLACK
    assert model.step(state, np.int64(25)).next_state.passes == 1


def test_step_after_the_end_raises():
    _, model, state = play(5, [25, 25])
    assert model.actions(state) == ()
    with pytest.raises(ValueError, match="game is over"):
        model.step(state, 25)


@pytest.mark.parametrize(
    "state", [None, (bytes(25), 1, -1, 0), GoState(bytes(81), BLACK, -1, 0), "board"]
)
def test_bad_states_raise(state):
    model = GoModel(5)
    for method in (model.actions, model.player, model.score):
        with pytest.raises(ValueError, match="GoState with a board of 25 cells"):
            method(state)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"board_size": 1}, "board_size"),
        ({"board_size": 9.0}, "board_size"),
        ({"board_size": True}, "board_size"),
        ({"komi": float("nan")}, "komi"),
        ({"komi": "7.5"}, "komi"),
    ],
)
def test_bad_parameters_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GoModel(**kwargs)


def test_mcts_agent_plans_pettingzoo_go_on_go_model_and_leaves_the_env_as_it_was():
    import copy

    from pettingzoo.classic import go_v5

    from mcts_agent import MCTSAgent

    def play(seed):
        agent = MCTSAgent(iterations=200, seed=seed)
        env = go_v5.env(board_size=5, komi=0.5)
        env.reset(seed=0)
        moves = []
        for _ in range(6):
            observation = env.last()[0]
            before = copy.deepcopy(env.unwrapped._go)
            action = agent.act(env)
            assert type(agent.last_planner.model) is GoModel
            assert agent.last_planner.model.board_size == 5
            assert observation["action_mask"][action] == 1  # legal in PettingZoo
            after = env.unwrapped._go
            assert (after.board == before.board).all() and after.to_play == before.to_play
            moves.append(action)
            env.step(action)
        return moves

    assert play(3) == play(3)  # reproducible per seed


@pytest.mark.parametrize(
    ("text", "right_move"),
    [
        # black's four stones have one liberty, (3, 4): extending there escapes the atari
        (".......\n.OOOO..\nOXXXXO.\n.OOO...\n.......\n.......\n.......", 3 * 7 + 4),
        # black's five stones have one liberty, (4, 4), where extending leaves one again; the
        # white stone inside, in atari at (4, 3), is the one to take: the capture saves them
        (".......\n..OOO..\n.OXXXO.\n.OXOXO.\n..O..O.\n....O..\n.......", 4 * 7 + 3),
    ],
    ids=["atari-escape", "capture-that-saves"],
)
def test_grave_finds_the_move_that_saves_a_group_in_atari(text, right_move):
    model = GoModel(7, komi=0.5)
    state = GoState(parse_board(text), BLACK, -1, 0)
    legal = model.actions(state)
    saved = [a for a in legal if a != model.pass_action and _liberties_after(model, state, a) > 1]
    assert right_move in saved
    moves = [
        MCTS(model, 3000, seed=seed, selection="rave", exploration=0.2)(state) for seed in range(4)
    ]
    assert moves == [right_move] * 4


def _liberties_after(model: GoModel, state: GoState, action: int) -> int:
    """The liberties of black's largest group after black plays ``action``."""
    board = model.step(state, action).next_state.board
    size = model.board_size
    best_stones, best_liberties = 0, 0
    seen = set()
    for start, cell in enumerate(board):
        if cell != BLACK or start in seen:
            continue
        group, liberties = [start], set()
        seen.add(start)
        for point in group:
            row, column = divmod(point, size)
            for r, c in (
                (row - 1, column),
                (row + 1, column),
                (row, column - 1),
                (row, column + 1),
            ):
                if 0 <= r < size and 0 <= c < size:
                    n = r * size + c
                    if board[n] == EMPTY:
                        liberties.add(n)
                    elif board[n] == BLACK and n not in seen:
                        seen.add(n)
                        group.append(n)
        if len(group) > best_stones:
            best_stones, best_liberties = len(group), len(liberties)
    return best_liberties


def test_mcts_agent_plans_go_with_grave_and_the_go_defaults_unless_told_otherwise():
    from pettingzoo.classic import go_v5

    from mcts_agent import MCTSAgent
    from mcts_agent.defaults import GO_EXPLORATION

    env = go_v5.env(board_size=5, komi=0.5)
    env.reset(seed=0)
    cases = [
        ({}, "rave", GO_EXPLORATION),
        ({"exploration": 1.0}, "rave", 1.0),
        ({"selection": "uct"}, "uct", MCTS(GoModel(5), 1).exploration),
    ]
    for options, selection, exploration in cases:
        agent = MCTSAgent(iterations=50, seed=0, **options)
        agent.act(env)
        planner = agent.last_planner
        assert (planner.selection, planner.exploration) == (selection, exploration)
        assert type(planner.model) is GoModel
