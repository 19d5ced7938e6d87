"""LeducModel: equal to PettingZoo's leduc_holdem_v4, and its hidden-information protocol."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from mcts_agent.envs.leduc import (
    CALL,
    CHECK,
    FOLD,
    JACK,
    KING,
    QUEEN,
    RAISE,
    LeducModel,
    LeducState,
)
from mcts_agent.testing import check_model

MODEL = LeducModel()


def _all_states() -> list[LeducState]:
    """Every position of every deal (ranks; no rank three times) and both openers."""
    deals = [d for d in itertools.product(range(3), repeat=3) if max(Counter(d).values()) <= 2]
    states = []
    for first in (0, 1):
        histories, stack = [], [()]
        while stack:
            history = stack.pop()
            histories.append(history)
            probe = LeducState((JACK, QUEEN), KING, first, history)
            stack.extend(history + (a,) for a in MODEL.actions(probe))
        for h0, h1, public in deals:
            states.extend(LeducState((h0, h1), public, first, h) for h in histories)
    return states


ALL_STATES = _all_states()


def test_pettingzoo_equivalence_on_random_games():
    np = pytest.importorskip("numpy")
    leduc = pytest.importorskip(
        "pettingzoo.classic.leduc_holdem_v4", reason="PettingZoo's classic games (rlcard) missing"
    )
    env = leduc.env()
    rng = random.Random(0)
    endings = Counter()
    for game in range(2000):
        env.reset(seed=game)
        state = MODEL.state_of(env)
        while True:
            observation, _, termination, _, _ = env.last()
            if termination:
                break
            mask = tuple(np.flatnonzero(observation["action_mask"]).tolist())
            assert MODEL.actions(state) == mask
            mover = MODEL.player(state)
            assert env.agent_selection == f"player_{mover}"
            public = env.unwrapped.env.game.public_card
            seen = None if public is None else "JQK".index(public.rank)
            assert MODEL.information_set(state, mover)[2] == seen
            # fold seldom, so that many hands reach round 2 and the showdown
            unfolded = [a for a in mask if a != FOLD]
            action = rng.choice(unfolded if rng.random() < 0.85 else mask)
            env.step(action)
            state, reward, terminated = MODEL.step(state, action)
            assert MODEL.state_of(env) == state
            if terminated:
                rewards = env.unwrapped.rewards
                assert MODEL.payoffs(state) == (rewards["player_0"], rewards["player_1"])
                assert reward == rewards[f"player_{mover}"]
                assert MODEL.actions(state) == ()
                endings[action] += 1
            else:
                assert reward == 0.0
    # folds in both rounds and showdowns after calls and checks were all played
    assert min(endings[FOLD], endings[CALL], endings[CHECK]) > 200


def test_hand_worked_payoffs():
    # player 0 opens (small blind 1, big blind 2) holding a king, player 1 a queen, public queen
    state = LeducState((KING, QUEEN), QUEEN, 0, ())
    assert MODEL.actions(state) == (CALL, RAISE, FOLD)
    state, reward, done = MODEL.step(state, FOLD)
    assert (reward, done, MODEL.payoffs(state)) == (-0.5, True, (-0.5, 0.5))
    # raise (4), re-raise (6), call by player 0: round 2 is opened by player 1 (who did not call)
    state = LeducState((KING, QUEEN), QUEEN, 0, (RAISE, RAISE, CALL))
    assert MODEL.player(state) == 1 and MODEL.actions(state) == (RAISE, FOLD, CHECK)
    state, _, _ = MODEL.step(state, RAISE)  # 10 against 6
    state, reward, done = MODEL.step(state, CALL)  # player 1's queen pairs the public queen
    assert (reward, done, MODEL.payoffs(state)) == (-5.0, True, (-5.0, 5.0))
    # equal cards split the pot
    state = LeducState((KING, KING), QUEEN, 1, (CALL, CHECK, CHECK))
    state, reward, done = MODEL.step(state, CHECK)
    assert (reward, done, MODEL.payoffs(state)) == (0.0, True, (0.0, 0.0))


def test_cap_of_two_raises_per_round():
    state = LeducState((JACK, QUEEN), KING, 1, (RAISE, RAISE))
    assert MODEL.actions(state) == (CALL, FOLD)
    assert MODEL.player(state) == 1
    with pytest.raises(ValueError, match="not legal"):
        MODEL.step(state, RAISE)


def test_information_set_holds_what_the_player_sees_only():
    # over every state: the key and what the player sees determine each other (whether the
    # public card is seen is checked against the env in the equivalence test)
    by_key: dict = {}
    by_seen: dict = {}
    for state in ALL_STATES:
        for player in (0, 1):
            key = MODEL.information_set(state, player)
            public = state.public if key[2] is not None else None
            seen = (player, state.hands[player], public, state.first, state.history)
            assert by_key.setdefault(key + (player,), seen) == seen
            assert by_seen.setdefault(seen, key) == key
    assert len(by_seen) < len(ALL_STATES)  # states differing in hidden cards share keys
    state = LeducState((KING, QUEEN), JACK, 0, (CALL,))
    key = MODEL.information_set(state, 0)
    assert MODEL.information_set(state._replace(hands=(KING, JACK), public=QUEEN), 0) == key
    assert MODEL.information_set(state._replace(hands=(QUEEN, QUEEN)), 0) != key
    assert MODEL.information_set(state._replace(history=(RAISE,)), 0) != key
    assert MODEL.information_set(state._replace(first=1, history=(CALL,)), 0) != key
    revealed = LeducState((KING, QUEEN), JACK, 0, (CALL, CHECK))
    assert MODEL.information_set(revealed._replace(public=QUEEN), 0) != MODEL.information_set(
        revealed, 0
    )
    assert MODEL.information_set(revealed._replace(hands=(KING, KING)), 0) == (
        MODEL.information_set(revealed, 0)
    )


def test_sample_world_is_consistent():
    rng = random.Random(1)
    for state in ALL_STATES[::7]:
        for player in (0, 1):
            key = MODEL.information_set(state, player)
            for _ in range(5):
                world = MODEL.sample_world(state, player, rng)
                assert MODEL.information_set(world, player) == key
                assert MODEL.actions(world) == MODEL.actions(state)
                assert world.history == state.history and world.first == state.first


@pytest.mark.parametrize(
    ("state", "player"),
    [
        (LeducState((KING, QUEEN), JACK, 0, (CALL,)), 0),  # public card not seen yet
        (LeducState((KING, QUEEN), KING, 1, (CALL, CHECK, RAISE)), 1),  # public card seen
    ],
)
def test_sample_world_is_uniform_over_deals(state, player):
    stats = pytest.importorskip("scipy.stats")
    revealed = MODEL.information_set(state, player)[2] is not None
    # the physical cards: two per rank; the player's own card (and a revealed public card) are out
    unseen = [0, 0, 1, 1, 2, 2]
    unseen.remove(state.hands[player])
    if revealed:
        unseen.remove(state.public)
    expected = Counter()
    for i, theirs in enumerate(unseen):
        if revealed:
            expected[theirs, state.public] += 1
        else:
            for j, public in enumerate(unseen):
                if j != i:
                    expected[theirs, public] += 1
    rng = random.Random(2)
    draws = 12000
    observed = Counter()
    for _ in range(draws):
        world = MODEL.sample_world(state, player, rng)
        observed[world.hands[1 - player], world.public] += 1
    assert set(observed) == set(expected)
    total = sum(expected.values())
    cells = sorted(expected)
    result = stats.chisquare(
        [observed[c] for c in cells], [draws * expected[c] / total for c in cells]
    )
    assert result.pvalue > 1e-3


def test_initial_state_is_a_uniform_deal():
    rng = random.Random(3)
    counts = Counter(MODEL.initial_state(rng) for _ in range(6000))
    assert all(s.history == () for s in counts)
    assert set(s.hands[0] for s in counts) == {0, 1, 2}
    # (J, J, J) is impossible: two jacks in the deck
    assert not any(s.hands == (JACK, JACK) and s.public == JACK for s in counts)
    assert sum(c for s, c in counts.items() if s.first == 0) == pytest.approx(3000, abs=200)


def test_check_model():
    rng = random.Random(4)
    for _ in range(3):
        check_model(MODEL, MODEL.initial_state(rng), num_playouts=30)


def test_bad_input():
    with pytest.raises(ValueError, match="not a Leduc"):
        MODEL.actions(LeducState((KING, QUEEN), JACK, 0, (CHECK,)))
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        MODEL.information_set(LeducState((KING, QUEEN), JACK, 0, ()), 2)
    with pytest.raises(TypeError, match="random.Random"):
        MODEL.sample_world(LeducState((KING, QUEEN), JACK, 0, ()), 0, 5)
    with pytest.raises(ValueError, match="not a Leduc deal"):
        MODEL.sample_world(LeducState((KING, KING), KING, 0, ()), 0, random.Random(0))
    with pytest.raises(ValueError, match="not a Leduc deal"):
        MODEL.step(LeducState((KING, 7), JACK, 0, (CALL, CHECK, CHECK)), CHECK)
    with pytest.raises(TypeError, match="leduc_holdem_v4"):
        MODEL.state_of(object())
