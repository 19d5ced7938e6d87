"""Encodings of mcts_agent.learning (numpy only): hand-made positions, both players' views."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pettingzoo
import pytest

from mcts_agent.envs import connect_four, tic_tac_toe
from mcts_agent.evaluation import make_game
from mcts_agent.learning import (
    ConnectFourEncoding,
    Encoding,
    PettingZooObservationEncoding,
    TicTacToeEncoding,
    encoding_for_game,
)
from mcts_agent.learning.encoding import policy_vector


def cells(plane: np.ndarray) -> list[int]:
    """The row-major indices of a plane's ones."""
    return np.flatnonzero(plane.reshape(-1)).tolist()


def test_importing_the_package_and_its_numpy_modules_does_not_import_torch():
    code = (
        "import sys, mcts_agent, mcts_agent.learning\n"
        "from mcts_agent.learning import TicTacToeEncoding, ReplayBuffer, play_game\n"
        "from mcts_agent.learning.curves import plot_learning_curve\n"
        "import mcts_agent.cli\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_missing_torch_says_how_to_install_it():
    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # as if PyTorch were not installed\n"
        "from mcts_agent.learning import TicTacToeEncoding  # numpy only: fine\n"
        "try:\n"
        "    from mcts_agent.learning import PolicyValueNet\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'mcts_agent[learn]'" in out.stdout


def test_tic_tac_toe_planes_show_the_position_from_the_movers_side():
    encoding = TicTacToeEncoding()
    assert isinstance(encoding, Encoding)
    x_to_move = tic_tac_toe.parse_board("XX.OO....")
    planes = encoding.encode(x_to_move)
    assert planes.shape == (2, 3, 3) and planes.dtype == np.float32
    assert cells(planes[0]) == [0, 1]  # X's marks: X moves
    assert cells(planes[1]) == [3, 4]
    o_to_move = tic_tac_toe.parse_board("XX.OO...X")
    planes = encoding.encode(o_to_move)
    assert cells(planes[0]) == [3, 4]  # O's marks: O moves
    assert cells(planes[1]) == [0, 1, 8]
    assert planes[1, 2, 2] == 1.0  # cell 8 is row 2, column 2
    assert encoding.encode(tic_tac_toe.EMPTY_BOARD).sum() == 0.0


def test_tic_tac_toe_actions_map_to_indices_and_back():
    encoding = TicTacToeEncoding()
    assert [encoding.action_index(cell) for cell in range(9)] == list(range(9))
    assert [encoding.action(encoding.action_index(cell)) for cell in range(9)] == list(range(9))
    with pytest.raises(ValueError, match=r"in \[0, 9\)"):
        encoding.action_index(9)
    with pytest.raises(TypeError):
        encoding.action("4")
    with pytest.raises(TypeError, match="int bitboard"):
        encoding.encode((0, 0))


def test_tic_tac_toe_symmetries_move_the_policy_with_the_cells():
    encoding = TicTacToeEncoding()
    planes = encoding.encode(tic_tac_toe.parse_board("XO......."))  # X corner, O edge; X moves
    # a policy drawn on the board: 0.25 on X's corner, 0.75 on O's edge
    policy = (0.25 * planes[0] + 0.75 * planes[1]).reshape(-1)
    pairs = encoding.symmetries(planes, policy)
    assert len(pairs) == 8
    assert np.array_equal(pairs[0][0], planes) and np.array_equal(pairs[0][1], policy)
    assert len({observation.tobytes() for observation, _ in pairs}) == 8  # all different
    for observation, moved in pairs:
        assert observation.shape == (2, 3, 3) and moved.shape == (9,)
        assert np.array_equal(moved, (0.25 * observation[0] + 0.75 * observation[1]).reshape(-1))
    assert sorted(cells(observation[0])[0] for observation, _ in pairs) == [0, 0, 2, 2, 6, 6, 8, 8]


def test_connect_four_planes_follow_the_board_top_row_first_from_the_movers_side():
    encoding = ConnectFourEncoding()
    # bottom row: X X O . . . . with an X on top of column 0; X to move (2 pieces each)
    x_to_move = connect_four.parse_board("." * 28 + "X......" + "XOO....")
    planes = encoding.encode(x_to_move)
    assert planes.shape == (2, 6, 7) and planes.dtype == np.float32
    assert sorted(zip(*np.nonzero(planes[0]), strict=True)) == [(4, 0), (5, 0)]
    assert sorted(zip(*np.nonzero(planes[1]), strict=True)) == [(5, 1), (5, 2)]
    o_to_move = connect_four.ConnectFourModel().step(x_to_move, 6).next_state
    planes = encoding.encode(o_to_move)
    assert sorted(zip(*np.nonzero(planes[0]), strict=True)) == [(5, 1), (5, 2)]
    assert sorted(zip(*np.nonzero(planes[1]), strict=True)) == [(4, 0), (5, 0), (5, 6)]
    assert [encoding.action(encoding.action_index(c)) for c in range(7)] == list(range(7))
    with pytest.raises(ValueError):
        encoding.action_index(7)


def test_connect_four_mirror_reverses_columns_and_policy():
    encoding = ConnectFourEncoding()
    planes = encoding.encode(connect_four.parse_board("." * 35 + "X......"))
    policy = np.arange(7, dtype=np.float32) / 21
    (same, same_policy), (mirror, mirror_policy) = encoding.symmetries(planes, policy)
    assert np.array_equal(same, planes) and np.array_equal(same_policy, policy)
    assert mirror[1, 5, 6] == 1.0 and mirror[1, 5, 0] == 0.0
    assert mirror_policy.tolist() == policy[::-1].tolist()


def test_pettingzoo_tictactoe_observation_is_our_planes_transposed():
    # PettingZoo numbers the cells column by column: its planes [c, i, j] are ours [c, j, i]
    env = pettingzoo.make("aec", "classic/tictactoe-v3")
    env.reset(seed=0)
    encoding = PettingZooObservationEncoding(env)
    assert (encoding.shape, encoding.num_actions) == ((2, 3, 3), 9)
    for action in (0, 4, 1):  # X at row 0 column 0, O centre, X row 1 column 0
        env.step(action)
    state = encoding.model.state_of(env)
    ours = TicTacToeEncoding().encode(tic_tac_toe.state_from_pettingzoo(env))
    assert tic_tac_toe.format_board(tic_tac_toe.state_from_pettingzoo(env)) == "X..XO...."
    observed = encoding.encode(state)
    assert np.array_equal(observed, ours.transpose(0, 2, 1))
    assert cells(observed[0]) == [4]  # O to move: its centre first
    assert encoding.action_index(5) == 5 and encoding.action(5) == 5


def test_pettingzoo_connect_four_observation_is_our_encoding():
    env = pettingzoo.make("aec", "classic/connect_four-v3")
    env.reset(seed=0)
    encoding = PettingZooObservationEncoding(env)
    for action in (3, 3, 2):
        env.step(action)
    ours = ConnectFourEncoding().encode(connect_four.from_pettingzoo_board(env.unwrapped.board))
    assert np.array_equal(encoding.encode(encoding.model.state_of(env)), ours)
    with pytest.raises(ValueError, match="shape"):
        encoding.encode_observation(np.zeros((3, 3, 2)))


def test_each_game_gets_its_encoding():
    assert encoding_for_game(make_game("tictactoe")) == TicTacToeEncoding()
    assert encoding_for_game(make_game("classic/tictactoe-v3")) == TicTacToeEncoding()
    assert encoding_for_game(make_game("connect_four")) == ConnectFourEncoding()
    go = encoding_for_game(make_game("classic/go-v5:board_size=5"))
    assert (go.name, go.shape, go.num_actions) == ("pettingzoo:go_v5", (17, 5, 5), 26)
    with pytest.raises(ValueError, match="no encoding"):
        encoding_for_game(make_game("classic/chess-v6"))


def test_policy_vector_places_weights_by_action_index_zero_elsewhere():
    vector = policy_vector(TicTacToeEncoding(), (2, 5, 8), (0.5, 0.25, 0.25))
    assert vector.dtype == np.float32
    assert vector.tolist() == [0, 0, 0.5, 0, 0, 0.25, 0, 0, 0.25]
