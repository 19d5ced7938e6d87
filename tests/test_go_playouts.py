"""Go's light playout: GoModel.rollout / amaf_rollout on hand-made positions and replayed
games, the C playout (mcts_agent/_go.c) draw for draw against it, and the compiled loop's
trees on GoModel against the pure loop's."""

from __future__ import annotations

import random

import pytest
from test_compiled import CORE, assert_same_on_both

from mcts_agent.envs.go import BLACK, EMPTY, WHITE, GoModel, GoState, parse_board

needs_core = pytest.mark.skipif(CORE is None, reason="the compiled core is not built")


def own_eye(model: GoModel, board: bytes, point: int, player: int) -> bool:
    """The eye test of the contract, by coordinates: the orthogonal neighbours all the
    player's, at most one opponent stone on the diagonals, none on the edge."""
    n = model.board_size
    r, c = divmod(point, n)
    on = [(y, x) for y, x in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))]
    on = [(y, x) for y, x in on if 0 <= y < n and 0 <= x < n]
    if any(board[y * n + x] != player for y, x in on):
        return False
    diagonal = [(r + 1, c + 1), (r + 1, c - 1), (r - 1, c + 1), (r - 1, c - 1)]
    inside = [(y, x) for y, x in diagonal if 0 <= y < n and 0 <= x < n]
    foes = sum(board[y * n + x] == BLACK + WHITE - player for y, x in inside)
    return foes <= (1 if len(inside) == 4 else 0)


def group(model: GoModel, board: bytes, point: int) -> tuple[set[int], set[int]]:
    """The stones of the group on ``point`` and its liberties, by coordinates."""
    n = model.board_size
    stones, liberties, todo = {point}, set(), [point]
    while todo:
        r, c = divmod(todo.pop(), n)
        for y, x in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            q = y * n + x
            if not (0 <= y < n and 0 <= x < n) or q in stones:
                continue
            if board[q] == EMPTY:
                liberties.add(q)
            elif board[q] == board[point]:
                stones.add(q)
                todo.append(q)
    return stones, liberties


def tactical(model: GoModel, state: GoState, last: int) -> int | None:
    """The capture heuristic's move after the opponent's stone on ``last``, by the rule's
    words: capture that stone's group in atari if legal, else the smallest legal liberty of
    the mover's groups in atari next to ``last`` that leaves two liberties; None for none."""
    legal = model.actions(state)
    _, liberties = group(model, state.board, last)
    if len(liberties) == 1 and min(liberties) in legal:
        return min(liberties)
    n = model.board_size
    r, c = divmod(last, n)
    escapes = []
    for y, x in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
        q = y * n + x
        if not (0 <= y < n and 0 <= x < n) or state.board[q] != state.to_play:
            continue
        _, liberties = group(model, state.board, q)
        if len(liberties) == 1 and min(liberties) in legal:
            after = model.step(state, min(liberties)).next_state.board
            if len(group(model, after, min(liberties))[1]) >= 2:
                escapes.append(min(liberties))
    return min(escapes, default=None)


def replay(model: GoModel, state: GoState, moves, gamma: float, fired: list | None = None):
    """Plays ``moves`` with GoModel.step, checking each is legal and the light policy's (no
    own eye filled; a pass only when every legal point is an own eye) or, with the model's
    capture heuristic, the heuristic's move where it has one (counted in ``fired``); returns
    the return the playout must have given when it ended by two passes or at the cap."""
    coef = 1.0
    last = -1
    for k, (player, action) in enumerate(moves):
        assert player == model.player(state)
        legal = model.actions(state)
        assert action in legal
        rule = tactical(model, state, last) if model.capture_heuristic and last >= 0 else None
        if rule is not None:
            assert action == rule
            if fired is not None:
                fired.append(action)
        elif action == model.pass_action:
            assert all(own_eye(model, state.board, a, player) for a in legal[:-1])
        else:
            assert not own_eye(model, state.board, action, player)
        last = -1 if action == model.pass_action else action
        state, reward, done = model.step(state, action)
        if k + 1 < len(moves):
            assert not done
            coef *= -gamma
    black_wins = model.score(state) > 0
    return coef if black_wins == (player == BLACK) else -coef


def random_positions(size: int, games: int, seed: int) -> list[GoState]:
    """Positions reached by random legal moves from the empty board, the game not over: the
    last of each of ``games`` games (or more, until one had a ko point: none on 2x2), and the first
    position with a ko point of each game."""
    model = GoModel(size)
    rng = random.Random(seed)
    found: list[GoState] = []
    while games > 0 or (size > 2 and not any(p.ko >= 0 for p in found)):
        games -= 1
        state = model.initial_state()
        ko_seen = False
        for _ in range(rng.randrange(3 * size * size)):
            actions = model.actions(state)
            # a pass now and then (some positions just after one), else a uniform action
            action = actions[-1] if rng.random() < 0.05 else rng.choice(actions)
            next_state = model.step(state, action).next_state
            if next_state.passes == 2:
                break
            state = next_state
            if state.ko >= 0 and not ko_seen:
                ko_seen = True
                found.append(state)
        found.append(state)
    return found


# ------------------------------------------------------------------ the Python playout


def test_an_own_eye_is_not_filled_and_a_pass_follows():
    model = GoModel(3, komi=7.5)
    board = parse_board("XXX\nX.X\nXXX")
    state = GoState(board, BLACK, -1, 0)
    g, moves = model.amaf_rollout(state, random.Random(0), 1, 1.0)
    assert (g, moves) == (0.0, [(BLACK, 9)])  # the centre is black's eye: black passes
    # white captures all nine stones by playing the centre, then black plays on
    g, moves = model.amaf_rollout(GoState(board, WHITE, -1, 0), random.Random(0), 2, 1.0)
    assert moves[0] == (WHITE, 4) and moves[1][0] == BLACK and moves[1][1] != 4
    # after white's pass, black's pass ends the game: black's 9 points against komi 7.5
    assert model.amaf_rollout(GoState(board, BLACK, -1, 1), random.Random(0), 5, 0.5) == (
        1.0,
        [(BLACK, 9)],
    )
    assert model.rollout(GoState(board, BLACK, -1, 1), random.Random(0), 5, 0.5) == 1.0


def test_an_eye_with_two_enemy_diagonals_or_one_on_the_edge_is_filled():
    model = GoModel(5, komi=0.5)
    # the point (2, 2) has black neighbours and two white diagonals: a false eye, playable
    board = parse_board(
        """
        OO.OO
        OOXOO
        .X.X.
        OOXOO
        OO.OO
        """
    )
    assert not own_eye(model, board, 12, BLACK)
    for seed in range(20):  # black's moves: the centre, or the edge points next to its stones
        _, moves = model.amaf_rollout(GoState(board, BLACK, -1, 0), random.Random(seed), 1, 1.0)
        assert moves[0] != (BLACK, model.pass_action)
    edge = parse_board(
        """
        X.X..
        XXO..
        .....
        .....
        .....
        """
    )
    assert not own_eye(model, edge, 1, BLACK)  # on the edge, one white diagonal: not an eye
    assert own_eye(model, parse_board("X.X..\nXXX..\n.....\n.....\n....."), 1, BLACK)


def test_the_cap_scores_the_board_as_it_stands():
    class Capped(GoModel):
        playout_cap = 4

    model = Capped(5, komi=2.5)
    state = model.initial_state()
    for seed in range(10):
        g, moves = model.amaf_rollout(state, random.Random(seed), 100, 0.5)
        assert len(moves) == 4
        assert g == replay(model, state, moves, 0.5)
        # two stones each (and at most a corner surrounded): white wins on komi 2.5; white
        # made the 4th move, so g = (+1 for white) * (-0.5) ** 3, black's loss
        assert g == -0.125


def test_the_limit_returns_zero_and_the_rollout_is_the_amaf_rollout():
    model = GoModel(5)
    state = model.initial_state()
    g, moves = model.amaf_rollout(state, random.Random(3), 7, 1.0)
    assert g == 0.0 and len(moves) == 7
    for seed in range(5):
        a, b = random.Random(seed), random.Random(seed)
        assert model.rollout(state, a, 10_000, 0.9) == model.amaf_rollout(state, b, 10_000, 0.9)[0]
        assert a.getstate() == b.getstate()


@pytest.mark.parametrize("heuristic", [False, True])
@pytest.mark.parametrize("size", [2, 3, 5, 9])
def test_replayed_playouts_are_legal_light_games_with_the_return(size, heuristic):
    model = GoModel(size, capture_heuristic=heuristic)
    fired: list[int] = []
    for k, state in enumerate(random_positions(size, 6, seed=size)):
        for gamma in (1.0, 0.9):
            g, moves = model.amaf_rollout(state, random.Random(k), 10_000, gamma)
            assert moves[-1][1] == model.pass_action or len(moves) == model.playout_cap
            assert g == replay(model, state, moves, gamma, fired)
            if gamma == 1.0:
                assert g in (1.0, -1.0)
    assert (len(fired) > 0) == heuristic  # the rule played some moves


class Scripted:
    """A generator whose ``random()`` gives ``values`` in turn; ``draws`` counts the calls."""

    def __init__(self, *values: float) -> None:
        self.values = values
        self.draws = 0

    def random(self) -> float:
        self.draws += 1
        return self.values[self.draws - 1]


def first_then(model: GoModel, state: GoState, point: int) -> tuple[list, int]:
    """The first two moves of a playout whose first draw picks ``point`` (a light move), the
    second draw (if any) picking the first candidate; returns them and the draws made."""
    empty = [a for a in range(model.pass_action) if state.board[a] == EMPTY]
    rng = Scripted((empty.index(point) + 0.5) / len(empty), 0.0)
    _, moves = model.amaf_rollout(state, rng, 2, 1.0)
    assert moves[0] == (state.to_play, point)
    return moves, rng.draws


def test_the_heuristic_captures_the_stone_the_previous_move_left_in_atari():
    board = parse_board(
        """
        . . O . .
        . O . . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    state = GoState(board, BLACK, -1, 0)
    # black's 1 has one liberty, 0: white takes it there, drawing nothing
    moves, draws = first_then(GoModel(5, capture_heuristic=True), state, 1)
    assert moves[1] == (WHITE, 0) and draws == 1
    moves, draws = first_then(GoModel(5), state, 1)  # off: the light move, the draw's point
    assert moves[1] == (WHITE, 0) and draws == 2  # the first candidate, 0 again: drawn
    moves, draws = first_then(GoModel(5), state, 3)
    assert draws == 2
    moves, draws = first_then(GoModel(5, capture_heuristic=True), state, 3)
    assert moves[1] == (WHITE, 0) and draws == 2  # no atari: the light move


def test_the_heuristic_escapes_an_atari_only_where_it_gains_a_liberty():
    escape = parse_board(
        """
        . . . . .
        . O X O .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    model = GoModel(5, capture_heuristic=True)
    # white's 12 leaves black's 7 one liberty, 2; black extends there: liberties 1 and 3
    moves, draws = first_then(model, GoState(escape, WHITE, -1, 0), 12)
    assert moves[1] == (BLACK, 2) and draws == 1
    trapped = parse_board(
        """
        . O . . .
        . O X O .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    # extending to 2 would leave one liberty (3): black plays the light move instead
    moves, draws = first_then(model, GoState(trapped, WHITE, -1, 0), 12)
    assert moves[1] == (BLACK, 0) and draws == 2


def test_the_heuristic_does_not_retake_a_ko_and_escapes_instead():
    board = parse_board(
        """
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
        """
    )
    model = GoModel(5, capture_heuristic=True)
    # black's 7 takes white's 6 (a ko: 6 is the ko point); black's 7 is in atari at 6, but
    # white may not retake: it saves its 2 (one liberty, 3) at 3, joining 8: three liberties
    state = GoState(board, BLACK, -1, 0)
    assert model.step(state, 7).next_state.ko == 6
    moves, draws = first_then(model, state, 7)
    assert moves[1] == (WHITE, 3) and draws == 1


# ------------------------------------------------------------------ the C playout


@needs_core
@pytest.mark.parametrize("heuristic", [False, True])
@pytest.mark.parametrize("size", list(range(2, 20)))
def test_the_c_playout_draws_and_returns_as_the_python_one(size, heuristic):
    model = GoModel(size, komi=0.5 + size % 3, capture_heuristic=heuristic)
    capsule = model.native_rollout()
    positions = random_positions(size, 3 if size > 13 else 6, seed=100 + size)
    positions += [p._replace(passes=1) for p in positions[:2]]
    for k, state in enumerate(positions):
        for limit, gamma in ((10_000, 1.0), (10_000, 0.9), (1 + k % 7, 0.7)):
            python, native = random.Random(k), random.Random(k)
            expected = model.amaf_rollout(state, python, limit, gamma)
            native_moves = CORE.go_amaf_rollout(model.komi, heuristic, state, native, limit, gamma)
            assert native_moves == expected
            assert native.getstate() == python.getstate()
            python, native = random.Random(k), random.Random(k)
            g = CORE.call_native(capsule, state, native, limit, gamma)
            assert g == model.rollout(state, python, limit, gamma)
            assert native.getstate() == python.getstate()


def test_positions_with_a_ko_point_or_a_pass_are_among_the_random_ones():
    for size in range(2, 20):
        positions = random_positions(size, 3 if size > 13 else 6, seed=100 + size)
        assert size < 3 or any(p.ko >= 0 for p in positions)
        assert any(p.passes == 1 for p in positions)


@needs_core
def test_the_c_playout_refuses_what_is_not_a_go_state():
    capsule = GoModel(3).native_rollout()
    rng = random.Random(0)
    for state, match in (
        (GoState(bytes(9), BLACK, -1, 2), "game is over"),
        (GoState(bytes(9), BLACK, -1, 3), "GoState"),
        (GoState(bytes(10), BLACK, -1, 0), "GoState"),
        (GoState(bytes(400), BLACK, -1, 0), "GoState"),
        (GoState(bytes(9), 3, -1, 0), "GoState"),
        (GoState(bytes(9), BLACK, 9, 0), "GoState"),
        (GoState(bytes([0] * 8 + [3]), BLACK, -1, 0), "cell 8 is 3"),
        (GoState(parse_board("X..\n...\n..."), BLACK, 0, 0), "ko point 0 is not empty"),
        (GoState(parse_board("XO.\nO..\n..."), BLACK, -1, 0), "no liberty"),
        ((bytes(9), BLACK, -1), "GoState"),
    ):
        with pytest.raises(ValueError, match=match):
            CORE.call_native(capsule, state, rng, 10, 1.0)
    with pytest.raises(ValueError, match="limit"):
        CORE.call_native(capsule, GoState(bytes(9), BLACK, -1, 0), rng, 0, 1.0)
    with pytest.raises(ValueError, match="komi"):
        CORE.go_native_rollout(float("nan"), False)
    with pytest.raises(ValueError, match="capture_heuristic must be a bool"):
        CORE.go_native_rollout(7.5, 1)
    with pytest.raises(ValueError, match="capture_heuristic must be a bool"):
        GoModel(9, capture_heuristic=1)
    assert GoModel(20).native_rollout() is None  # the Python playout runs past 19


@needs_core
@pytest.mark.parametrize("heuristic", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_the_compiled_loop_builds_the_pure_loops_tree_on_go(seed, heuristic):
    model = GoModel(9, capture_heuristic=heuristic)
    planner = assert_same_on_both(model, model.initial_state(), iterations=300, seed=seed)
    assert sum(planner.tree.visits[c] for c in planner.tree.children[0]) == 300
    state = random_positions(9, 1, seed=seed)[0]
    assert_same_on_both(model, state, iterations=300, seed=seed, gamma=0.95)


def test_a_stone_placed_by_the_playout_is_off_its_own_eye():
    board = parse_board(
        """
        .X.X.
        XXXXX
        .....
        OO.OO
        .O.O.
        """
    )
    model = GoModel(5)
    state = GoState(board, BLACK, -1, 0)
    for seed in range(30):
        _, moves = model.amaf_rollout(state, random.Random(seed), 1, 1.0)
        assert moves[0][1] not in (0, 2, 4)  # black's three eyes on the top edge
        assert board[moves[0][1]] == EMPTY


@needs_core
@pytest.mark.parametrize("size", [2, 3, 4, 5, 7, 9, 13, 19])
def test_the_c_board_has_the_models_actions_and_steps(size):
    model = GoModel(size)
    positions = random_positions(size, 3, seed=size)
    positions.append(positions[0]._replace(passes=2))
    for state in positions:
        legal = list(model.actions(state))
        assert CORE.go_actions(state) == legal
        for action in legal:
            assert GoState(*CORE.go_step(state, action)) == model.step(state, action).next_state
        illegal = [a for a in range(size * size + 2) if a not in legal]
        for action in illegal[:5]:
            with pytest.raises(ValueError, match="not legal"):
                CORE.go_step(state, action)
