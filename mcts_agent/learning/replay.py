"""A fixed-capacity replay buffer of self-play examples (numpy only).

AlphaZero trains on positions drawn uniformly from the most recent self-play
games (Silver et al., 2018: "the last 1,000,000 games"; OpenSpiel's
``alpha_zero`` keeps a ``Buffer`` of ``replay_buffer_size`` states and
samples it uniformly; alpha-zero-general keeps ``numItersForTrainExamplesHistory``
iterations). :class:`ReplayBuffer` keeps the last ``capacity`` positions in
a ring of preallocated arrays and samples them with a seeded
``numpy.random.Generator``, so a run with one seed draws the same batches.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

__all__ = ["Batch", "Example", "ReplayBuffer"]


class Example(NamedTuple):
    """One training position from a self-play game.

    Attributes:
        observation: float32 array of the encoding's ``shape``: the position
            seen by the player to move (:meth:`~mcts_agent.learning.encoding.Encoding.encode`).
        policy: float32 array of shape ``(num_actions,)``: the search's
            policy target (visit distribution, or the Gumbel search's
            improved policy), 0 for illegal actions; sums to 1.
        outcome: the game's return from the point of view of the player to
            move in the position, in [-1, 1] for our games (1 won, 0 drawn,
            -1 lost).
    """

    observation: np.ndarray
    policy: np.ndarray
    outcome: float


class Batch(NamedTuple):
    """A sampled batch: arrays with a leading batch axis ``B``.

    Attributes:
        observations: float32, shape ``(B, *shape)``.
        policies: float32, shape ``(B, num_actions)``.
        outcomes: float32, shape ``(B,)``.
    """

    observations: np.ndarray
    policies: np.ndarray
    outcomes: np.ndarray


class ReplayBuffer:
    """The last ``capacity`` examples, sampled uniformly with replacement.

    Args:
        capacity: int >= 1, most examples kept; adding more replaces the oldest.
        shape: the encoding's shape of one observation.
        num_actions: the length of a policy target.

    Raises:
        TypeError, ValueError: if ``capacity`` is not an int >= 1, or
            ``num_actions`` not an int >= 1.
    """

    def __init__(self, capacity: int, shape: tuple[int, ...], num_actions: int) -> None:
        for name, value in (("capacity", capacity), ("num_actions", num_actions)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int >= 1, got {value!r}")
            if value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        self.capacity = capacity
        self.shape = tuple(int(n) for n in shape)
        self.num_actions = num_actions
        self._observations = np.zeros((capacity, *self.shape), dtype=np.float32)
        self._policies = np.zeros((capacity, num_actions), dtype=np.float32)
        self._outcomes = np.zeros(capacity, dtype=np.float32)
        self._size = 0
        self._next = 0  # where the next example goes
        self.added = 0
        """Examples added since the buffer was made (those replaced included)."""

    def __len__(self) -> int:
        return self._size

    def add(self, example: Example) -> None:
        """Adds one example, replacing the oldest when the buffer is full.

        Raises:
            ValueError: if the observation or the policy has the wrong shape.
        """
        observation, policy, outcome = example
        observation = np.asarray(observation, dtype=np.float32)
        policy = np.asarray(policy, dtype=np.float32)
        if observation.shape != self.shape:
            raise ValueError(
                f"observation of shape {observation.shape}; the buffer holds {self.shape}"
            )
        if policy.shape != (self.num_actions,):
            raise ValueError(
                f"policy of shape {policy.shape}; the buffer holds ({self.num_actions},)"
            )
        i = self._next
        self._observations[i] = observation
        self._policies[i] = policy
        self._outcomes[i] = float(outcome)
        self._next = (i + 1) % self.capacity
        self._size = min(self._size + 1, self.capacity)
        self.added += 1

    def extend(self, examples: Iterable[Example]) -> None:
        """Adds every example of ``examples``, in order (as :meth:`add`)."""
        for example in examples:
            self.add(example)

    def examples(self) -> Batch:
        """Returns every example held, oldest first (copies)."""
        if self._size < self.capacity:
            order = np.arange(self._size)
        else:
            order = (np.arange(self.capacity) + self._next) % self.capacity
        return Batch(self._observations[order], self._policies[order], self._outcomes[order])

    def sample(self, batch_size: int, rng: np.random.Generator) -> Batch:
        """Returns ``batch_size`` examples drawn uniformly, with replacement.

        Args:
            batch_size: int >= 1.
            rng: the generator that draws the indices (``np.random.default_rng(seed)``).

        Returns:
            A :class:`Batch` of copies.

        Raises:
            ValueError: if the buffer is empty or ``batch_size < 1``.
        """
        if self._size == 0:
            raise ValueError("cannot sample an empty replay buffer: add self-play examples first")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        indices = rng.integers(0, self._size, size=batch_size)
        return Batch(self._observations[indices], self._policies[indices], self._outcomes[indices])
