"""A small policy-value network (PyTorch, CPU): logits over the actions and a tanh value.

AlphaZero's two-headed network (Silver et al., 2018; OpenSpiel's
``alpha_zero/model.py``, whose ``mlp`` and ``conv2d`` model types these
follow at a smaller size; alpha-zero-general's ``OthelloNNet``): a shared
trunk, then

* a **policy head**: ``num_actions`` logits (the evaluator takes the
  softmax over the legal actions), and
* a **value head**: one number in (-1, 1) (``tanh``), the expected return
  from the point of view of the player to move.

Two trunks (:class:`NetworkConfig`): ``"mlp"``, two fully connected layers
of ``hidden`` units on the flattened input; ``"conv"``, ``blocks`` 3x3
convolutions of ``channels`` channels (padding 1, ReLU) on a ``[C, H, W]``
input, then a fully connected layer of ``hidden`` units. Importing this
module imports torch (ImportError with ``pip install 'mcts_agent[learn]'``
if it is missing).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from mcts_agent.learning._torch import import_torch

torch = import_torch()
nn = torch.nn

__all__ = ["KINDS", "NetworkConfig", "PolicyValueNet", "default_network_config"]

KINDS = ("mlp", "conv")
"""The trunks :class:`NetworkConfig` knows."""


@dataclass(frozen=True)
class NetworkConfig:
    """The size and kind of a :class:`PolicyValueNet` (saved in checkpoints).

    Attributes:
        kind: ``"mlp"`` or ``"conv"`` (the latter for inputs ``[C, H, W]``).
        hidden: int >= 1, units of the fully connected layers.
        channels: int >= 1, channels of each convolution (``"conv"``).
        blocks: int >= 1, convolutions (``"conv"``) or hidden layers (``"mlp"``).
    """

    kind: str = "mlp"
    hidden: int = 64
    channels: int = 32
    blocks: int = 2

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        for name in ("hidden", "channels", "blocks"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """Returns the config as a plain dict (``NetworkConfig(**d)`` reads it back)."""
        return asdict(self)


def default_network_config(shape: tuple[int, ...]) -> NetworkConfig:
    """Returns the network used for an input of ``shape`` when none is given.

    A small convolutional net (2 blocks of 32 channels, 64 hidden units) for
    boards of 16 cells or more (``(2, 6, 7)``: connect four), else an MLP of
    two layers of 64 units (``(2, 3, 3)``: tic-tac-toe).
    """
    if len(shape) == 3 and shape[1] * shape[2] >= 16:
        return NetworkConfig(kind="conv", hidden=64, channels=32, blocks=2)
    return NetworkConfig(kind="mlp", hidden=64, blocks=2)


class PolicyValueNet(nn.Module):
    """The policy-value network: ``forward(x) -> (logits, value)``.

    Args:
        input_shape: the encoding's shape of one position (``(2, 3, 3)``).
        num_actions: int >= 1, the size of the policy output.
        config: the trunk (:class:`NetworkConfig`); by default
            :func:`default_network_config` of ``input_shape``.

    Raises:
        ValueError: if ``config.kind`` is ``"conv"`` and ``input_shape`` is
            not ``(C, H, W)``, or ``num_actions < 1``.
    """

    def __init__(
        self,
        input_shape: tuple[int, ...],
        num_actions: int,
        config: NetworkConfig | None = None,
    ) -> None:
        super().__init__()
        input_shape = tuple(int(n) for n in input_shape)
        if num_actions < 1:
            raise ValueError(f"num_actions must be >= 1, got {num_actions}")
        config = default_network_config(input_shape) if config is None else config
        self.input_shape = input_shape
        self.num_actions = int(num_actions)
        self.config = config
        layers: list[Any] = []
        if config.kind == "conv":
            if len(input_shape) != 3:
                raise ValueError(
                    f"a 'conv' network reads inputs [C, H, W], got the shape {input_shape}"
                )
            channels, height, width = input_shape
            for _ in range(config.blocks):
                layers += [nn.Conv2d(channels, config.channels, 3, padding=1), nn.ReLU()]
                channels = config.channels
            layers += [
                nn.Flatten(),
                nn.Linear(channels * height * width, config.hidden),
                nn.ReLU(),
            ]
        else:
            width = math.prod(input_shape)
            layers.append(nn.Flatten())
            for _ in range(config.blocks):
                layers += [nn.Linear(width, config.hidden), nn.ReLU()]
                width = config.hidden
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(config.hidden, self.num_actions)
        self.value_head = nn.Linear(config.hidden, 1)

    def forward(self, x: Any) -> tuple[Any, Any]:
        """Returns ``(logits, value)`` of a batch.

        Args:
            x: float32 tensor of shape ``(B, *input_shape)``.

        Returns:
            ``logits`` of shape ``(B, num_actions)`` and ``value`` of shape
            ``(B,)`` in (-1, 1).
        """
        features = self.trunk(x)
        return self.policy_head(features), torch.tanh(self.value_head(features)).squeeze(-1)
