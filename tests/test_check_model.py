"""check_model catches each way a model can break the protocol, and passes good models."""

from __future__ import annotations

import itertools
import math
import random
import threading

import numpy as np
import pytest

from mcts_agent import StepResult
from mcts_agent.testing import MAX_ABS_REWARD, ModelCheckError, check_model


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


class Answers(Countdown):
    """Countdown whose answers go through ``faults``: {"actions"|"player"|"step"|...: f}."""

    def __init__(self, **faults):
        self.faults = faults

    def _answer(self, what, value):
        return self.faults[what](value) if what in self.faults else value

    def actions(self, state):
        return self._answer("actions", super().actions(state))

    def player(self, state):
        return self._answer("player", super().player(state))

    def step(self, state, action):
        result = super().step(state, action)
        result = result._replace(
            reward=self._answer("reward", result.reward),
            terminated=self._answer("terminated", result.terminated),
        )
        return self._answer("step", result)


def raise_(error):
    def answer(value):
        raise error

    return answer


class Box:
    """A state: a number n in a box, with a lock (not deep-copyable) or a failing ==."""

    def __init__(self, n, lock=False, eq_raises=False):
        self.n, self.eq_raises = n, eq_raises
        self.lock = threading.Lock() if lock else None

    def __eq__(self, other):
        if self.eq_raises:
            raise RuntimeError("cannot compare boxes")
        return isinstance(other, Box) and self.n == other.n

    __hash__ = None

    def __repr__(self):
        return f"Box({self.n})"


class BoxCountdown:
    def __init__(self, **box_options):
        self.box_options = box_options

    def actions(self, box):
        return (1,) if box.n > 0 else ()

    def player(self, box):
        return 0

    def step(self, box, action):
        return StepResult(Box(box.n - action, **self.box_options), 0.0, box.n == action)


class FusedRollout(Countdown):
    def __init__(self, rollout):
        self._rollout = rollout

    def rollout(self, state, rng, limit, gamma):
        return self._rollout(state)


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
        (
            TwoFields(),
            6,
            r"step\(6, 1\) returned \(5, 0.0\) \(tuple of 2 fields\); expected "
            r"StepResult\(next_state, reward, terminated\)",
        ),
        (NoneReward(), 6, r"returned the reward None \(NoneType\); expected a real number"),
        (
            RaisesOnLegalAction(),
            6,
            r"step\(6, 2\) raised KeyError: 'boom', although actions\(6\) lists 2 as legal",
        ),
        (UnstableOrder(), 6, "is not stable"),
        (SetOfActions(), 6, r"returned \{1, 2\} \(set\); expected a sequence"),
        (object(), 6, r"needs actions\(state\) \(its legal actions, listed\) or sample_action"),
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


# Before, each of these raised the model's own error or numpy's, or passed unnoticed.
@pytest.mark.parametrize(
    "model, state, message",
    [
        (
            Answers(actions=raise_(RuntimeError("no actions today"))),
            6,
            r"actions\(6\) raised RuntimeError: no actions today",
        ),
        (
            Answers(actions=lambda a: None),
            6,
            r"actions\(6\) returned None \(NoneType\); expected a sequence of the legal actions",
        ),
        (Answers(actions=lambda a: (x for x in a)), 6, r"actions\(6\) returned .* \(generator\)"),
        (Answers(actions=np.array), 6, r"returned array\(\[1, 2\]\) \(ndarray\); expected"),
        (Answers(player=raise_(KeyError("who"))), 6, r"player\(6\) raised KeyError: 'who'"),
        (
            Answers(player=lambda p: [p]),
            6,
            r"player\(6\) returned \[0\] \(list\); expected a hashable player id",
        ),
        (
            Answers(step=lambda r: None),
            6,
            r"step\(6, 1\) returned None \(NoneType\); expected StepResult",
        ),
        (Answers(step=lambda r: 7), 6, r"step\(6, 1\) returned 7 \(int\); expected StepResult"),
        (
            Answers(reward=lambda r: str(r)),
            6,
            r"step\(6, 1\) returned the reward '0.0' \(str\); expected a real number",
        ),
        (
            Answers(reward=lambda r: math.nan),
            6,
            r"step\(6, 1\) returned the reward nan; expected a finite number",
        ),
        (Answers(reward=lambda r: -math.inf), 6, r"returned the reward -inf; expected a finite"),
        (
            Answers(reward=lambda r: 1e300),
            6,
            r"step\(6, 1\) returned the reward 1e\+300; expected \|reward\| <= 9.75e\+288 "
            r"\(mcts_agent.testing.MAX_ABS_REWARD\)",
        ),
        (
            Answers(terminated=lambda t: np.array([t, t])),
            6,
            r"step\(6, 1\) returned terminated=array\(\[False, False\]\) \(ndarray\); "
            r"expected a bool",
        ),
        (
            BoxCountdown(lock=True),
            Box(3),
            r"copy.deepcopy\(Box\(2\)\) raised TypeError: cannot pickle '_thread.lock' object; "
            r"check_model compares a deep copy",
        ),
        (
            BoxCountdown(eq_raises=True),
            Box(3),
            r"comparing step results with == raised RuntimeError: cannot compare boxes",
        ),
        (FusedRollout(lambda s: math.nan), 6, r"the rollout from state 6 gave the return nan"),
        (
            FusedRollout(raise_(ZeroDivisionError("oops"))),
            6,
            r"rollout\(6, rng, 200, 1.0\) raised ZeroDivisionError: oops",
        ),
    ],
    ids=[
        "actions raises",
        "None actions",
        "generator actions",
        "ndarray actions",
        "player raises",
        "list player",
        "None step",
        "int step",
        "str reward",
        "NaN reward",
        "infinite reward",
        "overflowing reward",
        "array terminated",
        "state not deep-copyable",
        "equality raises",
        "NaN rollout",
        "rollout raises",
    ],
)
def test_every_fault_of_the_model_is_a_model_check_error(model, state, message):
    with pytest.raises(ModelCheckError, match=message):
        check_model(model, state, seed=0)


def test_the_reward_limit_keeps_sums_of_2_to_the_64_rewards_finite():
    assert math.isfinite(MAX_ABS_REWARD * 2.0**64)
    assert not math.isfinite(MAX_ABS_REWARD * 2.0**64 * 2)
    check_model(Answers(reward=lambda r: MAX_ABS_REWARD), 6, seed=0)  # at the limit: fine
    check_model(FusedRollout(lambda s: np.float32(0.5)), 6, seed=0)
