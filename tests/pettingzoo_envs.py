"""The PettingZoo envs the tests play, made through PettingZoo's registry (>= 1.27)."""

from __future__ import annotations

import pettingzoo


def make_tictactoe(**kwargs):
    return pettingzoo.make("aec", "classic/tictactoe-v3", **kwargs)


def make_connect_four(**kwargs):
    return pettingzoo.make("aec", "classic/connect_four-v3", **kwargs)


def make_chess(**kwargs):
    return pettingzoo.make("aec", "classic/chess-v6", **kwargs)
