"""A trained network as the search's evaluator: priors from its policy, its value.

:class:`NetworkEvaluator` is an evaluator (:mod:`mcts_agent.evaluator`):
``evaluator(state, actions) -> Evaluation(value, priors)`` with

* ``priors``: the softmax of the network's logits over the legal actions
  only (the other logits are ignored), in the order of ``actions``, summing
  to 1 (AlphaZero's masking of illegal moves; OpenSpiel's
  ``AlphaZeroEvaluator.prior``; alpha-zero-general's ``MCTS.search``);
* ``value``: the network's value head, in (-1, 1), from the point of view
  of the player to move (the encoding shows the position from that side).

It also has ``batch(states, actions_list)``, one forward pass for many
states, which the search's leaf batching calls (``MCTS(leaf_batch=k)``,
:mod:`mcts_agent.leaf_batching`). :class:`ObservationNetwork` is the same
network read from an env's observation and action mask, for
:class:`~mcts_agent.adapters.env_view.EnvViewEvaluator` (a PettingZoo game
planned through the adapter).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from mcts_agent.evaluator import Evaluation
from mcts_agent.learning._torch import import_torch, torch_threads
from mcts_agent.learning.encoding import Encoding

__all__ = ["NetworkEvaluator", "ObservationNetwork", "legal_softmax"]


def legal_softmax(logits: np.ndarray, indices: Sequence[int]) -> list[float]:
    """Returns the softmax of ``logits[indices]`` (Python floats), as a list.

    Args:
        logits: shape ``(num_actions,)``.
        indices: the policy indices of the legal actions, in their order.

    Returns:
        One probability per index, in order, summing to 1.
    """
    row = logits.tolist() if isinstance(logits, np.ndarray) else list(logits)
    chosen = [row[i] for i in indices]
    top = max(chosen)
    weights = [math.exp(c - top) for c in chosen]
    total = math.fsum(weights)
    return [w / total for w in weights]


class NetworkEvaluator:
    """An evaluator from a policy-value network and the encoding it was trained with.

    Args:
        network: a ``torch.nn.Module`` ``x -> (logits, value)`` with ``x`` of
            shape ``(B, *encoding.shape)``, ``logits`` ``(B, num_actions)`` and
            ``value`` ``(B,)`` (a :class:`~mcts_agent.learning.network.PolicyValueNet`).
        encoding: encodes the model's states and places its actions
            (:mod:`mcts_agent.learning.encoding`).
        label: the name tables and results print (e.g. the checkpoint's
            path); by default ``"network"``.
        cache_size: int >= 0, positions whose evaluations are kept (keyed by
            the state, which must then be hashable); 0 for none. The cache
            assumes the network's weights do not change.
        threads: int >= 1, torch's threads during a forward pass (the
            process's count is restored after). 1 by default: a batch of a
            few positions is fastest on one thread, and a process whose torch
            never started its thread pool can fork the evaluation's worker
            processes safely.

    The network is put in ``eval()`` mode; evaluations run under
    ``torch.inference_mode()``.

    Raises:
        TypeError: if ``network`` is not callable.
        ValueError: if ``threads`` is not an int >= 1.
    """

    def __init__(
        self,
        network: Any,
        encoding: Encoding,
        *,
        label: str | None = None,
        cache_size: int = 0,
        threads: int = 1,
    ) -> None:
        if not callable(network):
            raise TypeError(f"network must be a torch module x -> (logits, value), got {network!r}")
        self._torch = import_torch()
        self.network = network
        network.eval()
        self.encoding = encoding
        self.label = "network" if label is None else label
        self.cache_size = int(cache_size)
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be an int >= 1, got {threads!r}")
        self.threads = threads
        self._cache: OrderedDict[Hashable, tuple[np.ndarray, float]] = OrderedDict()

    def predict(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Returns the network's ``(logits, values)`` of encoded positions.

        Args:
            observations: float32, shape ``(B, *encoding.shape)``.

        Returns:
            ``logits`` float32 ``(B, num_actions)``, ``values`` float32 ``(B,)``.
        """
        torch = self._torch
        with torch_threads(self.threads), torch.inference_mode():
            logits, values = self.network(torch.from_numpy(np.ascontiguousarray(observations)))
        return logits.numpy(), values.numpy()

    def _evaluation(self, logits: np.ndarray, value: float, actions: Sequence[Any]) -> Evaluation:
        index = self.encoding.action_index
        return Evaluation(value, legal_softmax(logits, [index(a) for a in actions]))

    def __call__(self, state: Any, actions: Sequence[Any]) -> Evaluation:
        """Returns ``Evaluation(value, priors)`` of ``state`` (priors in the order of ``actions``).

        Raises:
            TypeError, ValueError: as the encoding refuses the state or an action.
        """
        if self.cache_size:
            cached = self._cache.get(state)
            if cached is not None:
                self._cache.move_to_end(state)
                return self._evaluation(cached[0], cached[1], actions)
        logits, values = self.predict(self.encoding.encode(state)[None])
        value = float(values[0])
        if self.cache_size:
            self._remember(state, logits[0], value)
        return self._evaluation(logits[0], value, actions)

    def batch(self, states: Sequence[Any], actions_list: Sequence[Sequence[Any]]) -> list:
        """Returns the evaluations of ``states`` in one forward pass (the leaf batching's call).

        Args:
            states: the states (a list).
            actions_list: ``actions_list[j]``, the legal actions of ``states[j]``.

        Returns:
            One :class:`~mcts_agent.evaluator.Evaluation` per state, in order:
            what ``self(states[j], actions_list[j])`` returns (up to float
            rounding of the batched arithmetic).
        """
        if not states:
            return []
        observations = np.stack([self.encoding.encode(s) for s in states])
        logits, values = self.predict(observations)
        results = []
        for j, (state, actions) in enumerate(zip(states, actions_list, strict=True)):
            value = float(values[j])
            if self.cache_size:
                self._remember(state, logits[j], value)
            results.append(self._evaluation(logits[j], value, actions))
        return results

    def _remember(self, state: Hashable, logits: np.ndarray, value: float) -> None:
        cache = self._cache
        cache[state] = (logits, value)
        if len(cache) > self.cache_size:
            cache.popitem(last=False)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_torch"]
        state["_cache"] = OrderedDict()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._torch = import_torch()

    def __repr__(self) -> str:
        return f"NetworkEvaluator({self.label!r}, {self.encoding!r})"


class ObservationNetwork:
    """A network read from an env's view: ``(observation, action_mask) -> Evaluation``.

    For :class:`~mcts_agent.adapters.env_view.EnvViewEvaluator` (which
    ``MCTSAgent`` binds to the ``PettingZooModel`` it plans on): the
    observation is encoded by
    :meth:`~mcts_agent.learning.encoding.PettingZooObservationEncoding.encode_observation`;
    the priors cover the whole action space (0 for the masked actions, the
    softmax of the legal ones' logits elsewhere).

    Args:
        evaluator: the :class:`NetworkEvaluator` whose network and
            (PettingZoo observation) encoding are used.
    """

    def __init__(self, evaluator: NetworkEvaluator) -> None:
        self.evaluator = evaluator
        self.label = evaluator.label

    def __call__(self, observation: Any, action_mask: np.ndarray) -> Evaluation:
        """Returns ``Evaluation(value, priors over every action of the env)``."""
        encoding = self.evaluator.encoding
        logits, values = self.evaluator.predict(encoding.encode_observation(observation)[None])
        legal = np.flatnonzero(np.asarray(action_mask))
        priors = np.zeros(len(action_mask))
        priors[legal] = legal_softmax(logits[0], legal.tolist())
        return Evaluation(float(values[0]), priors.tolist())

    def __repr__(self) -> str:
        return f"ObservationNetwork({self.label!r})"
