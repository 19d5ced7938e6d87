"""check_model catches each way a model can break the protocol, and passes good models."""

from __future__ import annotations

import itertools
import random

import pytest

from mcts_agent import StepResult
from mcts_agent.testing import ModelCheckError, check_model


class Countdown:
    """A good one-player model: from n, take 1 or 2; reaching 0 ends with reward 1."""

    def actions(self, state):
        return (1, 2) if state >= 2 else (1,) if state == 1 else ()

    def player(self, state):
        return 0

    def step(self, state, action):
        if action not in self.actions(state):
            raise ValueError(f"illegal action {action} in {state}")
        nxt = state - action
        return StepResult(nxt, 1.0 if nxt == 0 else 0.0, nxt == 0)


class MutatesItsInput(Countdown):
    def step(self, state, action):
        state[0] -= action
        return StepResult(list(state), 0.0, state[0] <= 0)

    def actions(self, state):
        return (1,) if state[0] > 0 else ()


class Noisy(Countdown):
    def step(self, state, action):
        result = super().step(state, action)
        return result._replace(reward=random.random())


class SaysTerminatedTooEarly(Countdown):
    def step(self, state, action):
        nxt, reward, _ = super().step(state, action)
        return StepResult(nxt, reward, True)


class TwoFields(Countdown):
    def step(self, state, action):
        return super().step(state, action)[:2]


class NoneReward(Countdown):
    def step(self, state, action):
        return super().step(state, action)._replace(reward=None)


class RaisesOnLegalAction(Countdown):
    def step(self, state, action):
        if action == 2:
            raise KeyError("boom")
        return super().step(state, action)


class UnstableOrder(Countdown):
    def __init__(self):
        self.flip = itertools.cycle([False, True])

    def actions(self, state):
        actions = super().actions(state)
        return actions[::-1] if next(self.flip) else actions


class SetOfActions(Countdown):
    def actions(self, state):
        return set(super().actions(state))


def test_a_good_model_passes():
    check_model(Countdown(), 6, seed=0)


@pytest.mark.parametrize(
    "model, state, message",
    [
        (MutatesItsInput(), [5], r"changed its input state"),
        (Noisy(), 6, "is not deterministic"),
        (
            SaysTerminatedTooEarly(),
            6,
            r"step\(6, \d\) said terminated, but actions\([45]\) still lists",
        ),
        (TwoFields(), 6, r"must return StepResult\(next_state, reward, terminated\)"),
        (NoneReward(), 6, "reward must be a real number, got None"),
        (RaisesOnLegalAction(), 6, r"step\(6, 2\) raised KeyError"),
        (UnstableOrder(), 6, "is not stable"),
        (SetOfActions(), 6, "must return a sequence, got set"),
        (object(), 6, r"has no actions\(\)"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_each_protocol_violation_is_named(model, state, message):
    with pytest.raises(ModelCheckError, match=message):
        check_model(model, state, seed=0)


def test_a_finished_start_and_bad_counts_are_rejected():
    with pytest.raises(ModelCheckError, match="needs a state with legal actions"):
        check_model(Countdown(), 0)
    with pytest.raises(ValueError, match="num_playouts must be >= 1, got 0"):
        check_model(Countdown(), 6, num_playouts=0)
