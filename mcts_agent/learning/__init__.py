"""Learned guidance: train a policy-value network by self-play, use it as the search's evaluator.

AlphaZero's recipe (Silver et al., 2018, "A general reinforcement learning
algorithm that masters chess, shogi, and Go through self-play", Science 362;
OpenSpiel's ``open_spiel/python/algorithms/alpha_zero``; alpha-zero-general)
on this package's search (``docs/guides/learning.md``). One module a concept:

* :mod:`~mcts_agent.learning.encoding`: states as network inputs, actions as
  indices (:class:`TicTacToeEncoding`, :class:`ConnectFourEncoding`,
  :class:`PettingZooObservationEncoding`); numpy only;
* :mod:`~mcts_agent.learning.replay`: the replay buffer; numpy only;
* :mod:`~mcts_agent.learning.self_play`: one self-play game and its examples;
* :mod:`~mcts_agent.learning.network`: the policy-value network (torch);
* :mod:`~mcts_agent.learning.network_evaluator`: the network as an evaluator;
* :mod:`~mcts_agent.learning.training`: the trainer (:func:`train`);
* :mod:`~mcts_agent.learning.checkpoints`: saving and loading, and
  :func:`load_evaluator` (what ``--option evaluator=net.pt`` calls);
* :mod:`~mcts_agent.learning.curves`: the learning curve (matplotlib).

Importing this package imports no torch: each name is imported from its
module when first read (``mcts_agent.learning.train`` imports torch then; a
missing torch raises ImportError saying ``pip install 'mcts_agent[learn]'``).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "Batch",
    "Checkpoint",
    "ConnectFourEncoding",
    "Encoding",
    "Example",
    "GenerationRecord",
    "NetworkConfig",
    "NetworkEvaluator",
    "ObservationNetwork",
    "PettingZooObservationEncoding",
    "PolicyValueNet",
    "ReplayBuffer",
    "SelfPlayConfig",
    "SelfPlayGame",
    "TicTacToeEncoding",
    "TrainingConfig",
    "TrainingResult",
    "encoding_for_game",
    "is_checkpoint_path",
    "load_checkpoint",
    "load_evaluator",
    "load_network",
    "play_game",
    "plot_learning_curve",
    "save_checkpoint",
    "save_learning_curve",
    "train",
]

_MODULES = {
    "encoding": (
        "ConnectFourEncoding",
        "Encoding",
        "PettingZooObservationEncoding",
        "TicTacToeEncoding",
        "encoding_for_game",
    ),
    "replay": ("Batch", "Example", "ReplayBuffer"),
    "self_play": ("SelfPlayConfig", "SelfPlayGame", "play_game"),
    "network": ("NetworkConfig", "PolicyValueNet"),
    "network_evaluator": ("NetworkEvaluator", "ObservationNetwork"),
    "training": ("GenerationRecord", "TrainingConfig", "TrainingResult", "train"),
    "curves": ("plot_learning_curve", "save_learning_curve"),
    "checkpoints": (
        "Checkpoint",
        "is_checkpoint_path",
        "load_checkpoint",
        "load_evaluator",
        "load_network",
        "save_checkpoint",
    ),
}
_MODULE_OF = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    """Imports ``name`` from its module when it is first read (PEP 562)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'mcts_agent.learning' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"mcts_agent.learning.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
