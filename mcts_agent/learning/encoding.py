"""Input encodings: a model's state as a network's input array, its actions as indices.

A network sees a state as a ``float32`` array of a fixed shape and scores a
fixed set of ``num_actions`` actions; an :class:`Encoding` says how (numpy
only, no torch). Every encoding here encodes a state *from the point of view
of the player to move*: the mover's pieces are in plane 0, the opponent's in
plane 1, so one network plays both sides and its value is the mover's, as
the search's evaluators return it (:mod:`mcts_agent.evaluator`). This is
AlphaZero's input convention (Silver et al., 2018, "A general reinforcement
learning algorithm that masters chess, shogi, and Go through self-play",
Science 362; the board "oriented to the perspective of the current player")
and alpha-zero-general's ``getCanonicalForm``.

* :class:`TicTacToeEncoding`: ``TicTacToeModel``'s states, shape ``(2, 3, 3)``,
  9 actions (the cells);
* :class:`ConnectFourEncoding`: ``ConnectFourModel``'s states, shape
  ``(2, 6, 7)``, 7 actions (the columns);
* :class:`PettingZooObservationEncoding`: ``PettingZooModel``'s states, the
  env's own observation of the agent to move, its ``Discrete(n)`` actions.

Planes are ``[channel, row, column]``, rows top first (tic-tac-toe's cells
row by row, connect four's top row first as PettingZoo draws it). The
encodings of the two boards also give their symmetries
(:meth:`TicTacToeEncoding.symmetries`: the 8 of the square;
:meth:`ConnectFourEncoding.symmetries`: the mirror), which the trainer uses
to augment its samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mcts_agent.envs import connect_four as _connect_four

__all__ = [
    "ConnectFourEncoding",
    "Encoding",
    "PettingZooObservationEncoding",
    "TicTacToeEncoding",
    "encoding_for_game",
    "policy_vector",
]


@runtime_checkable
class Encoding(Protocol):
    """How a network reads a model's states and names its actions.

    Attributes:
        name: a short name saved in checkpoints (``"tic_tac_toe"``); a network
            is used only with the encoding it was trained with.
        shape: the shape of one encoded state, e.g. ``(2, 3, 3)``.
        num_actions: the size of the network's policy output; every legal
            action of every state has an index in ``[0, num_actions)``.
    """

    name: str
    shape: tuple[int, ...]
    num_actions: int

    def encode(self, state: Any) -> np.ndarray:
        """Returns ``state`` as a float32 array of shape ``shape``, seen by the player to move."""
        ...

    def action_index(self, action: Any) -> int:
        """Returns the index in ``[0, num_actions)`` of the model's ``action``."""
        ...

    def action(self, index: int) -> Any:
        """Returns the model's action of ``index`` (the inverse of :meth:`action_index`)."""
        ...


def _index(index: Any, count: int, what: str) -> int:
    """``index`` as an int in ``[0, count)``; TypeError or ValueError naming ``what`` else."""
    if isinstance(index, bool) or not isinstance(index, int | np.integer):
        raise TypeError(f"{what} must be an int in [0, {count}), got {index!r}")
    if not 0 <= index < count:
        raise ValueError(f"{what} must be an int in [0, {count}), got {index!r}")
    return int(index)


def _square_symmetries(
    observation: np.ndarray, policy: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The 8 rotations and reflections of ``[C, n, n]`` planes and an ``n * n`` policy."""
    side = observation.shape[-1]
    grid = policy.reshape(side, side)
    pairs = []
    for flip in (False, True):
        planes = observation[..., ::-1] if flip else observation
        cells = grid[:, ::-1] if flip else grid
        for turns in range(4):
            pairs.append(
                (
                    np.ascontiguousarray(np.rot90(planes, turns, axes=(-2, -1))),
                    np.ascontiguousarray(np.rot90(cells, turns)).reshape(-1),
                )
            )
    return pairs


_TIC_TAC_TOE_SHIFTS = np.arange(18, dtype=np.int64)


class TicTacToeEncoding:
    """Tic-tac-toe (:class:`~mcts_agent.envs.tic_tac_toe.TicTacToeModel`) as two 3x3 planes.

    ``encode(state)[0, r, c]`` is 1 where the player to move has a mark on
    cell ``3 * r + c``, ``[1, r, c]`` where the opponent has one; actions are
    the cells, ``action_index(cell) == cell``.

    Example: in ``parse_board("XX.OO....")`` X moves, so plane 0 holds cells
    0 and 1 and plane 1 cells 3 and 4; after X plays 8, O moves, and the
    planes swap roles.
    """

    name = "tic_tac_toe"
    shape = (2, 3, 3)
    num_actions = 9

    def encode(self, state: int) -> np.ndarray:
        """Returns the planes of ``state`` (shape ``(2, 3, 3)``, float32), mover first.

        Raises:
            TypeError: if ``state`` is not an int bitboard.
        """
        if isinstance(state, bool) or not isinstance(state, int):
            raise TypeError(f"a tic-tac-toe state is an int bitboard, got {state!r}")
        bits = (np.int64(state) >> _TIC_TAC_TOE_SHIFTS) & 1
        x, o = bits[:9], bits[9:]
        mover_first = (x, o) if x.sum() == o.sum() else (o, x)
        return np.stack(mover_first).astype(np.float32).reshape(2, 3, 3)

    def action_index(self, action: int) -> int:
        """Returns ``action`` (a cell 0..8) as the policy index: itself.

        Raises:
            TypeError, ValueError: if ``action`` is not an int in [0, 9).
        """
        return _index(action, 9, "a tic-tac-toe action")

    def action(self, index: int) -> int:
        """Returns the cell of policy index ``index``: itself.

        Raises:
            TypeError, ValueError: if ``index`` is not an int in [0, 9).
        """
        return _index(index, 9, "a tic-tac-toe policy index")

    def symmetries(
        self, observation: np.ndarray, policy: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Returns the 8 symmetric copies of an example (the identity first).

        Args:
            observation: planes of shape ``(2, 3, 3)``.
            policy: shape ``(9,)``, indexed by cell.

        Returns:
            ``[(observation', policy'), ...]``: the 4 rotations, then the 4
            rotations of the mirror image, the policy moved with its cells.
        """
        return _square_symmetries(observation, policy)

    def __eq__(self, other: object) -> bool:
        return type(other) is TicTacToeEncoding

    def __hash__(self) -> int:
        return hash(TicTacToeEncoding)

    def __repr__(self) -> str:
        return "TicTacToeEncoding()"


_ROWS, _COLUMNS = _connect_four.ROWS, _connect_four.COLUMNS
# _CONNECT_FOUR_SHIFTS[r, c] is the bit of row r (top first), column c: 7 * c + 5 - r.
_CONNECT_FOUR_SHIFTS = np.array(
    [[(_ROWS + 1) * c + _ROWS - 1 - r for c in range(_COLUMNS)] for r in range(_ROWS)],
    dtype=np.int64,
)


class ConnectFourEncoding:
    """Connect four (:class:`~mcts_agent.envs.connect_four.ConnectFourModel`) as two 6x7 planes.

    ``encode(state)[0, r, c]`` is 1 where the player to move has a piece in
    row ``r`` (top row first, as PettingZoo's board and observation) and
    column ``c``, ``[1, r, c]`` where the opponent has one (the bit ``7 * c +
    5 - r`` of the state's bitboards); actions are the columns,
    ``action_index(column) == column``. This is PettingZoo's observation
    ``observation[r, c, k]`` with the channel axis first.
    """

    name = "connect_four"
    shape = (2, _ROWS, _COLUMNS)
    num_actions = _COLUMNS

    def encode(self, state: tuple[int, int]) -> np.ndarray:
        """Returns the planes of ``state`` (shape ``(2, 6, 7)``, float32), mover first.

        Raises:
            TypeError: if ``state`` is not a pair of int bitboards.
        """
        try:
            x, o = state
            mover_first = (x, o) if x.bit_count() == o.bit_count() else (o, x)
        except (TypeError, ValueError, AttributeError):
            raise TypeError(
                f"a connect four state is a tuple (x, o) of two int bitboards, got {state!r}"
            ) from None
        boards = np.array(mover_first, dtype=np.int64).reshape(2, 1, 1)
        return ((boards >> _CONNECT_FOUR_SHIFTS) & 1).astype(np.float32)

    def action_index(self, action: int) -> int:
        """Returns ``action`` (a column 0..6) as the policy index: itself.

        Raises:
            TypeError, ValueError: if ``action`` is not an int in [0, 7).
        """
        return _index(action, _COLUMNS, "a connect four action")

    def action(self, index: int) -> int:
        """Returns the column of policy index ``index``: itself.

        Raises:
            TypeError, ValueError: if ``index`` is not an int in [0, 7).
        """
        return _index(index, _COLUMNS, "a connect four policy index")

    def symmetries(
        self, observation: np.ndarray, policy: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Returns the example and its mirror image (columns reversed, the policy too).

        Args:
            observation: planes of shape ``(2, 6, 7)``.
            policy: shape ``(7,)``, indexed by column.
        """
        return [
            (observation, policy),
            (np.ascontiguousarray(observation[..., ::-1]), np.ascontiguousarray(policy[::-1])),
        ]

    def __eq__(self, other: object) -> bool:
        return type(other) is ConnectFourEncoding

    def __hash__(self) -> int:
        return hash(ConnectFourEncoding)

    def __repr__(self) -> str:
        return "ConnectFourEncoding()"


class PettingZooObservationEncoding:
    """A PettingZoo game's own observation of the agent to move, for ``PettingZooModel``'s states.

    ``encode(state)`` is ``model.env_view(state).observation``
    (:meth:`~mcts_agent.adapters.PettingZooModel.env_view`: ``env.observe(agent)``'s
    ``"observation"`` entry for the agent to move, the classic games' own
    view of the board from that agent's side) as float32; an observation of
    3 dimensions ``[row, column, channel]`` (the classic board games') is
    transposed to ``[channel, row, column]``, any other is kept as it is.
    Actions are the env's ``Discrete(n)`` actions, ``action_index(a) == a``.

    Args:
        env: the PettingZoo AEC env, reset (its spaces give ``shape`` and
            ``num_actions``; the first of ``possible_agents`` is read).
        model: the :class:`~mcts_agent.adapters.PettingZooModel` whose states
            are encoded; by default one made from ``env``.

    Raises:
        TypeError: if the agent's action space is not ``Discrete`` or its
            observation space has no shape.
    """

    def __init__(self, env: Any, model: Any = None) -> None:
        agent = env.possible_agents[0]
        space = env.observation_space(agent)
        if hasattr(space, "spaces") and "observation" in getattr(space, "spaces", {}):
            space = space["observation"]
        shape = getattr(space, "shape", None)
        if not shape:
            raise TypeError(
                f"PettingZooObservationEncoding needs an observation space with a shape (a "
                f"Box), got {space!r}"
            )
        actions = env.action_space(agent)
        if not isinstance(getattr(actions, "n", None), int | np.integer):
            raise TypeError(
                f"PettingZooObservationEncoding needs a Discrete action space, got {actions!r}"
            )
        self.transposed = len(shape) == 3
        self.shape = (shape[2], shape[0], shape[1]) if self.transposed else tuple(shape)
        self.num_actions = int(actions.n)
        self.name = f"pettingzoo:{env.unwrapped.metadata.get('name', type(env.unwrapped).__name__)}"
        if model is None:
            from mcts_agent.adapters.pettingzoo import PettingZooModel

            model = PettingZooModel(env)
        self.env = env
        self.model = model

    def encode(self, state: Any) -> np.ndarray:
        """Returns the observation of the agent to move in ``state`` (shape ``shape``, float32)."""
        return self.encode_observation(self.model.env_view(state).observation)

    def encode_observation(self, observation: Any) -> np.ndarray:
        """Returns an observation of the env (its ``"observation"`` entry) as the network's input.

        Raises:
            ValueError: if its shape is not the env's.
        """
        array = np.asarray(observation, dtype=np.float32)
        if self.transposed and array.ndim == 3:
            array = array.transpose(2, 0, 1)
        if array.shape != self.shape:
            raise ValueError(
                f"observation of shape {array.shape} (after the channel axis is moved first); "
                f"{self.name} observes shape {self.shape}"
            )
        return np.ascontiguousarray(array)

    def action_index(self, action: int) -> int:
        """Returns ``action`` (the env's own) as the policy index: itself.

        Raises:
            TypeError, ValueError: if ``action`` is not an int in [0, num_actions).
        """
        return _index(action, self.num_actions, f"an action of {self.name}")

    def action(self, index: int) -> int:
        """Returns the env's action of policy index ``index``: itself.

        Raises:
            TypeError, ValueError: if ``index`` is not an int in [0, num_actions).
        """
        return _index(index, self.num_actions, f"a policy index of {self.name}")

    def __repr__(self) -> str:
        return f"PettingZooObservationEncoding({self.name!r}, shape={self.shape})"


def encoding_for_game(game: Any) -> Encoding:
    """Returns the encoding of a game's states, as its players' planners see them.

    Args:
        game: a game of :func:`~mcts_agent.evaluation.make_game`: ``tictactoe``
            and ``classic/tictactoe-v3`` (planned on ``TicTacToeModel``),
            ``connect_four`` and ``classic/connect_four-v3``
            (``ConnectFourModel``), or a PettingZoo game planned through the
            adapter (no ``model``; e.g. ``classic/go-v5:board_size=5``).

    Returns:
        :class:`TicTacToeEncoding`, :class:`ConnectFourEncoding`, or a
        :class:`PettingZooObservationEncoding` of a new env of the game, reset
        with seed 0 (its ``model`` a ``PettingZooModel`` of that env).

    Raises:
        ValueError: for a game planned on another model (chess, go on the
            native model, a user's model): no encoding is provided for it.
    """
    from mcts_agent.envs.connect_four import ConnectFourModel
    from mcts_agent.envs.tic_tac_toe import TicTacToeModel

    model = getattr(game, "model", None)
    if isinstance(model, TicTacToeModel):
        return TicTacToeEncoding()
    if isinstance(model, ConnectFourModel):
        return ConnectFourEncoding()
    if model is None and callable(getattr(game, "make_env", None)):
        env = game.make_env()
        env.reset(seed=0)
        return PettingZooObservationEncoding(env)
    raise ValueError(
        f"no encoding for {getattr(game, 'name', game)!r}, planned on "
        f"{type(model).__name__}: encodings exist for tic-tac-toe, connect four and "
        "PettingZoo games planned through the adapter (write an Encoding for another model)"
    )


def policy_vector(encoding: Encoding, actions: Sequence[Any], weights: Sequence[float]) -> Any:
    """Returns ``weights`` (one per action) as a float32 vector of ``num_actions`` (0 elsewhere).

    Args:
        encoding: the encoding whose ``action_index`` places each action.
        actions: the root's actions (``summary().actions``).
        weights: one number per action, in that order.

    Returns:
        A numpy float32 array of shape ``(num_actions,)``.
    """
    vector = np.zeros(encoding.num_actions, dtype=np.float32)
    for action, weight in zip(actions, weights, strict=True):
        vector[encoding.action_index(action)] = weight
    return vector
