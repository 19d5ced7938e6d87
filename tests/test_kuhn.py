"""KuhnModel: equal to OpenSpiel's kuhn_poker, and its hidden-information protocol."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from mcts_agent.envs.kuhn import BET, JACK, KING, PASS, QUEEN, KuhnModel, KuhnState
from mcts_agent.testing import check_model

MODEL = KuhnModel()
DEALS = list(itertools.permutations((JACK, QUEEN, KING), 2))


def _histories() -> list[tuple[int, ...]]:
    histories, stack = [], [()]
    while stack:
        history = stack.pop()
        histories.append(history)
        stack.extend(history + (a,) for a in MODEL.actions(KuhnState((JACK, QUEEN), history)))
    return histories


HISTORIES = _histories()
ALL_STATES = [KuhnState(deal, history) for deal in DEALS for history in HISTORIES]


def test_equal_to_openspiel_on_every_deal_and_sequence():
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel (pyspiel) is not installed")
    game = pyspiel.load_game("kuhn_poker")
    ends = 0
    for state in ALL_STATES:
        spiel = game.new_initial_state()
        for action in state.cards + state.history:
            spiel.apply_action(action)
        assert tuple(spiel.legal_actions()) == MODEL.actions(state)
        if spiel.is_terminal():
            ends += 1
            assert tuple(spiel.returns()) == MODEL.payoffs(state)
            before = KuhnState(state.cards, state.history[:-1])
            mover = MODEL.player(before)
            assert MODEL.step(before, state.history[-1]) == (state, spiel.returns()[mover], True)
        else:
            assert spiel.current_player() == MODEL.player(state)
            for player in (0, 1):
                # OpenSpiel's information state: the card and the history (p/b)
                expected = spiel.information_state_string(player)
                key = MODEL.information_set(state, player)
                assert expected == str(key[1]) + "".join("pb"[a] for a in key[2])
    assert ends == 6 * 5


def test_hand_worked_payoffs():
    # without OpenSpiel too: the five endings for the deal (king, jack)
    expected = {
        (PASS, PASS): (1.0, -1.0),
        (BET, BET): (2.0, -2.0),
        (PASS, BET, BET): (2.0, -2.0),
        (BET, PASS): (1.0, -1.0),  # player 1 folds
        (PASS, BET, PASS): (-1.0, 1.0),  # player 0 folds
    }
    for history, payoffs in expected.items():
        assert MODEL.payoffs(KuhnState((KING, JACK), history)) == payoffs
        assert MODEL.payoffs(KuhnState((JACK, KING), history)) == (
            payoffs if history[-1] == PASS and history != (PASS, PASS) else payoffs[::-1]
        )
    state, reward, done = MODEL.step(KuhnState((KING, JACK), (PASS, BET)), PASS)
    assert (reward, done, MODEL.actions(state)) == (-1.0, True, ())


def test_information_set_holds_what_the_player_sees_only():
    by_seen: dict = {}
    by_key: dict = {}
    for state in ALL_STATES:
        for player in (0, 1):
            key = MODEL.information_set(state, player)
            seen = (player, state.cards[player], state.history)
            assert by_seen.setdefault(seen, key) == key
            assert by_key.setdefault((player, key), seen) == seen
    assert len(by_seen) == 2 * 3 * len(HISTORIES)  # half the states: the other card is hidden


def test_sample_world_is_consistent_and_uniform():
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(0)
    for state in ALL_STATES:
        for player in (0, 1):
            key = MODEL.information_set(state, player)
            for _ in range(5):
                world = MODEL.sample_world(state, player, rng)
                assert MODEL.information_set(world, player) == key
                assert MODEL.actions(world) == MODEL.actions(state)
    state = KuhnState((QUEEN, KING), (PASS,))
    counts = Counter(MODEL.sample_world(state, 1, rng).cards[0] for _ in range(4000))
    assert set(counts) == {JACK, QUEEN}
    assert stats.chisquare([counts[JACK], counts[QUEEN]]).pvalue > 1e-3


def test_initial_state_is_a_uniform_deal():
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(1)
    counts = Counter(MODEL.initial_state(rng).cards for _ in range(6000))
    assert set(counts) == set(DEALS)
    assert stats.chisquare([counts[d] for d in DEALS]).pvalue > 1e-3


def test_check_model():
    for deal in DEALS:
        check_model(MODEL, KuhnState(deal, ()), num_playouts=10)


def test_bad_input():
    with pytest.raises(ValueError, match="not a Kuhn"):
        MODEL.actions(KuhnState((KING, KING), ()))
    with pytest.raises(ValueError, match="not legal"):
        MODEL.step(KuhnState((KING, JACK), (BET, BET)), PASS)
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        MODEL.information_set(KuhnState((KING, JACK), ()), 2)
    with pytest.raises(TypeError, match="random.Random"):
        MODEL.sample_world(KuhnState((KING, JACK), ()), 0, None)
