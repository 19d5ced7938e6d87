"""ChessModel, checked move for move against PettingZoo's classic/chess_v6."""

from __future__ import annotations

import random
from collections import Counter

import chess
import numpy as np
import pytest
from pettingzoo.classic import chess_v6
from pettingzoo.classic.chess import chess_utils

from mcts_agent.envs.chess import BLACK, WHITE, ChessModel, ChessState, action_of, board_of, move_of
from mcts_agent.testing import check_model

AGENTS = ("player_0", "player_1")
MODEL = ChessModel()

# Positions, white to move (PettingZoo's env gives the first move to player_0, white), where
# random play meets the rarer rules soon.
CASTLING = "r3k2r/pppqbppp/2np1n2/4p3/4P3/2NP1N2/PPPQBPPP/R3K2R w KQkq - 0 1"
PROMOTIONS = "8/PPP1k3/8/8/8/8/3K1ppp/8 w - - 0 1"
EN_PASSANT = "4k3/pppp4/8/PPPP4/4pppp/8/4PPPP/4K3 w - - 0 1"
FIFTY_MOVES = "4k3/8/8/8/8/8/8/R3K2R w - - 97 80"  # a quiet move leaves a claim at 99


def make_env(fen=None):
    """A fresh chess env, from ``fen`` (white to move) if given."""
    env = chess_v6.env()
    env.reset(seed=0)
    if fen is not None:
        env.unwrapped.board = chess.Board(fen)
    return env


def assert_same(env, state):
    """The env and the model agree on the legal actions and the player to move."""
    observation, _, termination, truncation, _ = env.last()
    assert not truncation
    actions = MODEL.actions(state)
    if termination:
        assert actions == ()
    else:
        assert actions == tuple(np.flatnonzero(observation["action_mask"]))
        assert MODEL.player(state) == AGENTS.index(env.agent_selection)
    return actions


def step_both(env, state, action):
    """Plays ``action`` in both; checks both players' rewards and the termination."""
    mover = env.agent_selection
    env.step(action)
    state, reward, terminated = MODEL.step(state, action)
    assert terminated == env.terminations["player_0"] == env.terminations["player_1"]
    assert env.rewards[mover] == reward
    assert env.rewards[AGENTS[1 - AGENTS.index(mover)]] == -reward
    return state


def random_game(fen, seed, events, max_plies=1000):
    """One uniformly random game in both, compared at every move; counts its events."""
    env = make_env(fen)
    state = MODEL.state_of(env)
    if fen is None:
        assert state == MODEL.initial_state()
    rng = random.Random(seed)
    for ply in range(max_plies):
        actions = assert_same(env, state)
        if not actions:
            break
        action = rng.choice(actions)
        board, move = board_of(state), move_of(state, action)
        colour = "white" if board.turn == chess.WHITE else "black"
        if board.is_castling(move):
            side = "kingside" if board.is_kingside_castling(move) else "queenside"
            events[f"{colour} castles {side}"] += 1
        events[f"{colour} takes en passant"] += board.is_en_passant(move)
        if move.promotion is not None:
            events[f"{colour} promotes to {chess.piece_name(move.promotion)}"] += 1
        state = step_both(env, state, action)
        if ply % 16 == 0:
            assert MODEL.state_of(env) == state
    else:
        return
    assert MODEL.state_of(env) == state
    board = board_of(state)
    if board.is_checkmate():
        events["white mates" if board.turn == chess.BLACK else "black mates"] += 1
    elif board.is_stalemate():
        events["stalemate"] += 1
    elif board.is_insufficient_material():
        events["insufficient material"] += 1
    elif board.can_claim_fifty_moves():
        events["fifty moves"] += 1
    else:
        events["threefold repetition"] += 1


@pytest.mark.parametrize(
    ("fen", "seeds", "max_plies", "expected"),
    [
        # whole games from the start, seeds where each way of ending a game happens
        (
            None,
            [3, 38, 18, 28, 2, 0],
            1000,
            {
                "white mates",
                "black mates",
                "threefold repetition",
                "stalemate",
                "fifty moves",
                "insufficient material",
            },
        ),
        (
            CASTLING,
            range(100, 130),
            24,
            {
                f"{c} castles {side}"
                for c in ("white", "black")
                for side in ("kingside", "queenside")
            },
        ),
        (
            PROMOTIONS,
            range(200, 210),
            16,
            {
                f"{c} promotes to {p}"
                for c in ("white", "black")
                for p in ("queen", "rook", "bishop", "knight")
            },
        ),
        (EN_PASSANT, range(300, 320), 16, {"white takes en passant", "black takes en passant"}),
        (FIFTY_MOVES, range(400, 403), 1000, {"fifty moves"}),
    ],
)
def test_random_games_agree_with_pettingzoo_move_for_move(fen, seeds, max_plies, expected):
    events = Counter()
    for seed in seeds:
        random_game(fen, seed, events, max_plies)
    # the games met the rules they were chosen for
    assert {name for name, count in events.items() if count} >= expected, events


def test_the_mapping_both_ways_on_every_legal_move_of_many_positions():
    rng = random.Random(7)
    positions = 0
    for fen in (None, CASTLING, PROMOTIONS, EN_PASSANT):
        state = MODEL.initial_state() if fen is None else MODEL.state_of_board(chess.Board(fen))
        while MODEL.actions(state) and positions < 400:
            board = board_of(state)
            pettingzoo_actions = sorted(chess_utils.legal_moves(board))  # fills its tables
            assert list(MODEL.actions(state)) == pettingzoo_actions
            player = MODEL.player(state)
            moves = set()
            for action in MODEL.actions(state):
                move = move_of(state, action)
                assert move in board.legal_moves
                assert move == chess_utils.action_to_move(board, action, player)
                assert action_of(state, move) == action
                moves.add(move)
            assert moves == set(board.legal_moves)  # one action per legal move
            positions += 1
            state = MODEL.step(state, rng.choice(MODEL.actions(state))).next_state
    assert positions == 400


def play(ucis, fen=None):
    """Plays the UCI moves in the env and the model; returns both, checked after each."""
    env = make_env(fen)
    state = MODEL.state_of(env)
    for uci in ucis:
        assert_same(env, state)
        state = step_both(env, state, action_of(state, chess.Move.from_uci(uci)))
    assert_same(env, state)
    assert MODEL.state_of(env) == state
    return env, state


def test_hand_worked_actions_both_colours():
    state = MODEL.initial_state()
    # e2e4: e2 is file 4, rank 1; two squares north: plane 8 * 1 + 4
    assert action_of(state, chess.Move.from_uci("e2e4")) == (8 * 4 + 1) * 73 + 12 == 2421
    state = MODEL.step(state, 2421).next_state
    # black's e7e5 is e2e4 in black's (mirrored) frame: the same action
    assert move_of(state, 2421) == chess.Move.from_uci("e7e5")
    assert MODEL.player(state) == BLACK
    # the knights: g1f3 is (-1, +2), knight plane 56 + 3; black's g8f6 the same action
    state = MODEL.step(state, 2421).next_state
    assert MODEL.player(state) == WHITE
    assert action_of(state, chess.Move.from_uci("g1f3")) == (8 * 6 + 0) * 73 + 59
    # castling kingside is the king's two squares east (plane 8 + 6), for both colours
    castles = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    white = MODEL.state_of_board(chess.Board(castles))
    black = MODEL.state_of_board(chess.Board(castles.replace(" w ", " b ")))
    for state, uci in ((white, "e1g1"), (black, "e8g8")):
        assert action_of(state, chess.Move.from_uci(uci)) == (8 * 4 + 0) * 73 + 14
    for state, uci in ((white, "e1c1"), (black, "e8c8")):  # two squares west: plane 8 + 1
        assert action_of(state, chess.Move.from_uci(uci)) == (8 * 4 + 0) * 73 + 9
    # promotions: a7a8 to a queen is a queen move (plane 4), to a knight plane 64 + 3
    promotions = MODEL.state_of_board(chess.Board("8/P3k3/8/8/8/8/4K2p/8 w - - 0 1"))
    assert action_of(promotions, chess.Move.from_uci("a7a8q")) == 6 * 73 + 4
    assert action_of(promotions, chess.Move.from_uci("a7a8n")) == 6 * 73 + 67
    assert move_of(promotions, 6 * 73 + 4) == chess.Move.from_uci("a7a8q")
    black_promotes = MODEL.state_of_board(chess.Board("8/P3k3/8/8/8/8/4K2p/8 b - - 0 1"))
    # h2h1 to a rook, mirrored h7h8: file 7, rank 6, plane 64 + 3 + 2
    assert action_of(black_promotes, chess.Move.from_uci("h2h1r")) == (8 * 7 + 6) * 73 + 69


def test_en_passant_both_colours():
    for ucis, capture in (
        (["e2e4", "a7a6", "e4e5", "d7d5"], "e5d6"),  # white takes d5 on d6
        (["a2a3", "d7d5", "a3a4", "d5d4", "e2e4"], "d4e3"),  # black takes e4 on e3
    ):
        env, state = play(ucis)
        board = board_of(state)
        action = action_of(state, chess.Move.from_uci(capture))
        assert board.is_en_passant(move_of(state, action))
        state = step_both(env, state, action)
        assert len(board_of(state).piece_map()) == 31
        assert MODEL.state_of(env) == state


def test_fools_mate_wins_for_black():
    env, state = play(["f2f3", "e7e5", "g2g4"])
    state, reward, terminated = MODEL.step(state, action_of(state, chess.Move.from_uci("d8h4")))
    env.step(action_of(MODEL.state_of(env), chess.Move.from_uci("d8h4")))
    assert (reward, terminated) == (1.0, True)
    assert env.rewards == {"player_0": -1, "player_1": 1}
    assert MODEL.actions(state) == ()


def test_a_threefold_repetition_ends_the_game_when_the_next_move_could_claim_it():
    # after Ng1 (ply 7) black can claim by Ng8, which makes the start position's third
    # occurrence: PettingZoo ends the game there, a draw
    env, state = play(["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"])
    assert MODEL.actions(state)
    state = step_both(env, state, action_of(state, chess.Move.from_uci("f3g1")))
    assert MODEL.actions(state) == () and env.terminations["player_1"]
    assert env.rewards == {"player_0": 0, "player_1": 0}


def test_an_irreversible_move_clears_the_repetition_history():
    _, state = play(["g1f3", "g8f6", "f3g1", "f6g8", "e2e4"])
    assert len(state.history) == 1
    assert state != MODEL.initial_state()
    again = MODEL.state_of_board(board_of(state))  # the same position without its past
    assert again == state and hash(again) == hash(state)


def test_state_of_leaves_the_env_unchanged_and_refuses_other_envs():
    env, state = play(["e2e4", "e7e5", "g1f3"])
    fen, stack = env.unwrapped.board.fen(), list(env.unwrapped.board.move_stack)
    assert MODEL.state_of(env) == state
    assert env.unwrapped.board.fen() == fen and env.unwrapped.board.move_stack == stack
    with pytest.raises(TypeError, match="chess_v6"):
        MODEL.state_of(object())


def test_bad_actions_raise_value_errors():
    state = MODEL.initial_state()
    for bad in (0, 4672, -1, "e2e4", 2421.0, True, None):
        with pytest.raises(ValueError, match="not legal"):
            MODEL.step(state, bad)
        with pytest.raises(ValueError, match="not legal"):
            move_of(state, bad)
    with pytest.raises(ValueError, match="e2e5 is not legal"):
        action_of(state, chess.Move.from_uci("e2e5"))
    with pytest.raises(ValueError, match="chess.Move"):
        action_of(state, "e2e4")
    with pytest.raises(ValueError, match="ChessState"):
        MODEL.actions("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    _, over = play(["f2f3", "e7e5", "g2g4", "d8h4"])
    with pytest.raises(ValueError, match="game is over"):
        MODEL.step(over, 2421)
    with pytest.raises(ValueError, match="standard chess.Board"):
        MODEL.state_of_board(chess.Board(chess960=True))


def test_check_model_and_immutability():
    state = MODEL.initial_state()
    assert isinstance(state, ChessState)
    with pytest.raises(AttributeError):
        state.key = None
    check_model(MODEL, state, num_playouts=3, max_moves=60)


def test_state_of_board_sees_a_repetition_already_on_the_board():
    # the start position a third time, reached by two different knight tours: no move
    # reaches a position seen twice, but the position itself has been seen three times
    board = chess.Board()
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8", "b1c3", "b8c6", "c3b1", "c6b8"):
        board.push_uci(uci)
    assert board.can_claim_threefold_repetition()
    state = MODEL.state_of_board(board)
    assert MODEL.actions(state) == () and len(state.history) == 9
    board.pop()  # one ply earlier black could claim it with the move: over too
    assert MODEL.actions(MODEL.state_of_board(board)) == ()
    board.pop()
    assert MODEL.actions(MODEL.state_of_board(board))


def test_puct_with_the_chess_evaluator_takes_the_queen_left_hanging():
    """1.e4 d5 2.Qg4?? (issue 34's example): black's bishop takes the queen, c8g4."""
    from mcts_agent import MCTS
    from mcts_agent.envs.chess_evaluator import ChessEvaluator

    model = ChessModel()
    state = model.initial_state()
    for uci in ("e2e4", "d7d5", "d1g4"):
        state = model.step(state, action_of(state, chess.Move.from_uci(uci))).next_state
    evaluator = ChessEvaluator(board_of, move_of)
    moves = [
        MCTS(model, 60, selection="puct", evaluator=evaluator, seed=seed)(state)
        for seed in range(3)
    ]
    assert {move_of(state, action).uci() for action in moves} == {"c8g4"}
