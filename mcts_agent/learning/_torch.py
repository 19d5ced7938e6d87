"""PyTorch, imported when a network is first needed (the ``learn`` extra)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

INSTALL_HINT = "pip install 'mcts_agent[learn]'"
"""How to get PyTorch (a CPU build): the ``learn`` extra."""


def import_torch() -> Any:
    """Returns the ``torch`` module.

    Raises:
        ImportError: if PyTorch is not installed, saying how to install it.
    """
    try:
        import torch
    except ImportError as error:
        raise ImportError(
            f"mcts_agent.learning's networks need PyTorch: {INSTALL_HINT} (or pip install "
            f"torch, a CPU build) ({error})"
        ) from error
    return torch


@contextlib.contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """Runs the block with ``torch.set_num_threads(threads)``, the count restored after.

    Small networks evaluated a position or a few at a time are fastest on one
    thread, and a process whose torch never ran a parallel region has not
    started its OpenMP pool, so it can fork worker processes safely (GNU
    OpenMP's pool does not survive ``fork``: a forked worker's first parallel
    region would hang).
    """
    torch = import_torch()
    previous = torch.get_num_threads()
    if previous == threads:
        yield
        return
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
