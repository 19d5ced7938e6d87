"""Checkpoints: a trained network in one file, with what it plays and how it was trained.

A checkpoint (``torch.save`` of a dict of plain values and tensors, read
back with ``torch.load(weights_only=True)``, so loading one runs no code
from the file) holds

* ``format``: :data:`CHECKPOINT_FORMAT`;
* ``game``: the game it was trained on (``"connect_four"``), and
  ``encoding``, ``input_shape``, ``num_actions``: the encoding its inputs
  and outputs follow (:mod:`mcts_agent.learning.encoding`);
* ``network``: its :class:`~mcts_agent.learning.network.NetworkConfig`, and
  ``state_dict``: its weights;
* ``generation``: the generations trained; ``history``: one dict per
  generation (:class:`~mcts_agent.learning.training.GenerationRecord`);
  ``training``: the training settings.

OpenSpiel's ``alpha_zero`` saves a checkpoint per step of its learner, and
alpha-zero-general a ``checkpoint_N.pth.tar`` per iteration; ``mcts-agent
train`` writes its ``--out`` file after every generation, so a run cut short
keeps its last finished generation. :func:`load_evaluator` turns a
checkpoint into the evaluator of a game's states, which is what
``--option evaluator=net.pt`` and the agent spec ``mcts:evaluator=net.pt``
do (:func:`is_checkpoint_path` tells a path from an evaluator's name).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcts_agent.learning._torch import import_torch, torch_threads

__all__ = [
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_SUFFIXES",
    "Checkpoint",
    "is_checkpoint_path",
    "load_checkpoint",
    "load_evaluator",
    "load_network",
    "save_checkpoint",
]

CHECKPOINT_FORMAT = "mcts_agent.learning/1"
"""The ``format`` entry of the checkpoints this version writes and reads."""

CHECKPOINT_SUFFIXES = (".pt", ".pth")
"""File name endings read as checkpoints where an evaluator is named (``evaluator=net.pt``)."""


def is_checkpoint_path(value: Any) -> bool:
    """True if an evaluator's name is a checkpoint's path: it ends in ``.pt`` or ``.pth``.

    Used where an evaluator is named (``--option evaluator=NAME``,
    ``mcts:evaluator=NAME``): a name the game does not have that ends so is
    loaded with :func:`load_evaluator`.
    """
    return isinstance(value, str | os.PathLike) and os.fspath(value).lower().endswith(
        CHECKPOINT_SUFFIXES
    )


@dataclass(frozen=True)
class Checkpoint:
    """What a checkpoint file holds (see the module docstring).

    Attributes:
        game: the name of the game trained on (``make_game``'s).
        encoding: the encoding's name (``"connect_four"``).
        input_shape: the encoding's shape.
        num_actions: the encoding's number of actions.
        network: the network's config, a dict of
            :class:`~mcts_agent.learning.network.NetworkConfig`'s fields.
        state_dict: the network's weights (tensors by parameter name).
        generation: generations trained.
        history: one dict per generation (``GenerationRecord._asdict()``).
        training: the training settings, as a dict.
    """

    game: str
    encoding: str
    input_shape: tuple[int, ...]
    num_actions: int
    network: dict[str, Any]
    state_dict: dict[str, Any] = field(repr=False)
    generation: int = 0
    history: tuple[dict[str, Any], ...] = ()
    training: dict[str, Any] = field(default_factory=dict)

    def make_network(self) -> Any:
        """Returns the :class:`~mcts_agent.learning.network.PolicyValueNet` with these weights."""
        from mcts_agent.learning.network import NetworkConfig, PolicyValueNet

        with torch_threads(1):  # no thread pool started: the process may fork workers after
            network = PolicyValueNet(
                self.input_shape, self.num_actions, NetworkConfig(**self.network)
            )
            network.load_state_dict(self.state_dict)
        network.eval()
        return network


def save_checkpoint(
    path: str | os.PathLike,
    network: Any,
    *,
    game: str,
    encoding: Any,
    generation: int = 0,
    history: Sequence[dict[str, Any]] = (),
    training: dict[str, Any] | None = None,
) -> None:
    """Writes ``network`` and what it plays to ``path``, atomically.

    The file is written next to ``path`` and renamed into place
    (:func:`~mcts_agent.evaluation.write_atomically`), so an existing
    checkpoint is replaced whole or left as it was.

    Args:
        path: the file (``net.pt``).
        network: a :class:`~mcts_agent.learning.network.PolicyValueNet`.
        game: the game's name (``"connect_four"``).
        encoding: the encoding it was trained with (its ``name``, ``shape``
            and ``num_actions`` are saved).
        generation: generations trained.
        history: one dict of plain values per generation.
        training: the training settings (plain values).

    Raises:
        OSError: if the file cannot be written.
    """
    torch = import_torch()
    payload = {
        "format": CHECKPOINT_FORMAT,
        "game": game,
        "encoding": encoding.name,
        "input_shape": [int(n) for n in encoding.shape],
        "num_actions": int(encoding.num_actions),
        "network": network.config.to_dict(),
        "state_dict": dict(network.state_dict()),
        "generation": int(generation),
        "history": [dict(record) for record in history],
        "training": dict(training or {}),
    }
    from mcts_agent.evaluation.results import write_atomically

    with write_atomically(path, binary=True) as file, torch_threads(1):
        torch.save(payload, file)


def load_checkpoint(path: str | os.PathLike) -> Checkpoint:
    """Reads a checkpoint written by :func:`save_checkpoint` (``mcts-agent train --out``).

    Args:
        path: the file.

    Returns:
        The :class:`Checkpoint`.

    Raises:
        FileNotFoundError: if there is no file at ``path``.
        ValueError: if the file is not a checkpoint of this format.
        ImportError: if PyTorch is not installed.
    """
    torch = import_torch()
    path = os.path.expanduser(os.fspath(path))
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"no checkpoint at {path!r} (write one with mcts-agent train --out {path})"
        )
    try:
        with torch_threads(1):
            payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch.load of a file it cannot read raises many kinds
        raise ValueError(
            f"{path!r} is not a checkpoint of mcts-agent train (torch.load: "
            f"{type(error).__name__}: {error})"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise ValueError(
            f"{path!r} is not a checkpoint of mcts-agent train (format {found!r}; expected "
            f"{CHECKPOINT_FORMAT!r})"
        )
    return Checkpoint(
        game=payload["game"],
        encoding=payload["encoding"],
        input_shape=tuple(payload["input_shape"]),
        num_actions=payload["num_actions"],
        network=dict(payload["network"]),
        state_dict=payload["state_dict"],
        generation=payload.get("generation", 0),
        history=tuple(payload.get("history", ())),
        training=dict(payload.get("training", {})),
    )


def load_network(path: str | os.PathLike) -> tuple[Any, Checkpoint]:
    """Returns ``(network, checkpoint)``: the checkpoint's network, weights loaded, in eval mode.

    Raises:
        FileNotFoundError, ValueError, ImportError: as :func:`load_checkpoint`.
    """
    checkpoint = load_checkpoint(path)
    return checkpoint.make_network(), checkpoint


def load_evaluator(path: str | os.PathLike, game: Any, *, cache_size: int = 0) -> Any:
    """Returns the evaluator of ``game``'s states that the checkpoint at ``path`` makes.

    The checkpoint's encoding must be the game's
    (:func:`~mcts_agent.learning.encoding.encoding_for_game`): a network
    trained on ``tictactoe`` plays ``tictactoe`` and ``classic/tictactoe-v3``
    (both planned on ``TicTacToeModel``), one trained on ``connect_four``
    plays ``connect_four`` and ``classic/connect_four-v3``.

    Args:
        path: the checkpoint (``net.pt``).
        game: a game of :func:`~mcts_agent.evaluation.make_game`, or its name.
        cache_size: the evaluator's cache of positions (0: none).

    Returns:
        A :class:`~mcts_agent.learning.network_evaluator.NetworkEvaluator`
        labelled with ``path``; for a PettingZoo game planned through the
        adapter (no ``model``), an
        :class:`~mcts_agent.adapters.env_view.EnvViewEvaluator` of an
        :class:`~mcts_agent.learning.network_evaluator.ObservationNetwork`
        (``MCTSAgent`` binds it to the model it plans on).

    Raises:
        FileNotFoundError: if there is no file at ``path``.
        ValueError: if the file is not a checkpoint, or was trained for
            another game (another encoding, shape or number of actions), or
            the game has no encoding.
        ImportError: if PyTorch is not installed.
    """
    from mcts_agent.learning.encoding import encoding_for_game
    from mcts_agent.learning.network_evaluator import NetworkEvaluator, ObservationNetwork

    if isinstance(game, str):
        from mcts_agent.evaluation import make_game

        game = make_game(game)
    checkpoint = load_checkpoint(path)
    encoding = encoding_for_game(game)
    game_name = getattr(game, "name", repr(game))
    found = (checkpoint.encoding, tuple(checkpoint.input_shape), checkpoint.num_actions)
    expected = (encoding.name, tuple(encoding.shape), encoding.num_actions)
    if found != expected:
        raise ValueError(
            f"{os.fspath(path)!r} was trained on {checkpoint.game} (encoding "
            f"{found[0]!r}, input {found[1]}, {found[2]} actions); {game_name} needs encoding "
            f"{expected[0]!r}, input {expected[1]}, {expected[2]} actions"
        )
    label = os.fspath(path)
    evaluator = NetworkEvaluator(
        checkpoint.make_network(), encoding, label=label, cache_size=cache_size
    )
    if getattr(game, "model", None) is None and hasattr(game, "make_env"):
        from mcts_agent.adapters.env_view import EnvViewEvaluator

        view_evaluator = EnvViewEvaluator(ObservationNetwork(evaluator))
        view_evaluator.label = label  # how tables name it
        return view_evaluator
    return evaluator
