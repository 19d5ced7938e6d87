"""RLCard's own agents as opponents (mcts_agent/evaluation/rlcard_players.py)."""

import sys

import numpy as np
import pytest

pytest.importorskip(
    "rlcard", reason="RLCard's agents need the rlcard extra: pip install -e '.[rlcard]'"
)
pytest.importorskip("pettingzoo.classic.leduc_holdem_v4", reason="PettingZoo's classic envs")

import pettingzoo  # noqa: E402
import rlcard  # noqa: E402

from mcts_agent.evaluation import (  # noqa: E402
    RLCARD_MODELS,
    PettingZooGame,
    RandomPlayer,
    RLCardPlayer,
    make_game,
    make_player,
    parse_spec,
    payoff_per_hand,
)
from mcts_agent.evaluation.rlcard_players import RLCardAgent  # noqa: E402

LEDUC = "classic/leduc_holdem-v4"
TEXAS = "classic/texas_holdem-v4"


@pytest.mark.parametrize("model_id", list(RLCARD_MODELS))
def test_spec_parses_to_the_model_id(model_id):
    assert parse_spec(f"rlcard:{model_id}") == ("rlcard", {"model": model_id})
    assert RLCardPlayer(model_id).label == f"rlcard:{model_id}"


@pytest.mark.parametrize(
    ("model_id", "env_id"),
    [("leduc-holdem-cfr", LEDUC), ("leduc-holdem-rule-v1", LEDUC), ("limit-holdem-rule-v1", TEXAS)],
)
def test_spec_plays_legal_moves_in_the_pettingzoo_env(model_id, env_id):
    player = make_player(f"rlcard:{model_id}", PettingZooGame(env_id))
    assert player == RLCardPlayer(model_id)
    env = pettingzoo.make("aec", env_id)
    policy = player.env_policy(0, env)
    moves = 0
    for hand in range(20):
        env.reset(seed=hand)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = policy(env)
            assert observation["action_mask"][action] == 1
            env.step(action)
            moves += 1
    assert moves >= 20


def test_gin_rummy_agent_plays_rlcard_own_env_and_leaves_numpy_global_stream():
    env = rlcard.make("gin-rummy", {"seed": 1})
    agents = [RLCardAgent("gin-rummy-novice-rule", seed) for seed in (0, 1)]
    np.random.seed(7)
    expected = np.random.random()
    np.random.seed(7)
    state, player = env.reset()
    while not env.is_over():
        action = agents[player].step(state)
        assert action in state["legal_actions"]
        state, player = env.step(action)
    assert np.random.random() == expected  # the agents' draws put the global stream back


def test_gin_rummy_has_no_pettingzoo_env_here():
    with pytest.raises(ValueError, match="no PettingZoo env"):
        make_player("rlcard:gin-rummy-novice-rule", PettingZooGame(LEDUC))


def test_bad_specs_are_refused_with_their_cause():
    leduc = PettingZooGame(LEDUC)
    with pytest.raises(ValueError, match="unknown RLCard model 'leduc-cfr'"):
        make_player("rlcard:leduc-cfr", leduc)
    with pytest.raises(ValueError, match="expected rlcard:MODEL_ID"):
        make_player("rlcard", leduc)
    with pytest.raises(ValueError, match="plays RLCard's 'leduc-holdem', not 'classic/texas"):
        make_player("rlcard:leduc-holdem-cfr", PettingZooGame(TEXAS))
    with pytest.raises(ValueError, match="not 'tictactoe'"):
        make_player("rlcard:leduc-holdem-rule-v1", make_game("tictactoe"))
    with pytest.raises(TypeError, match="not on a model"):
        RLCardPlayer("leduc-holdem-cfr")(None, 0)


def test_missing_rlcard_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "rlcard.models", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[rlcard\]'"):
        make_player("rlcard:leduc-holdem-cfr", PettingZooGame(LEDUC))


def test_cfr_agent_acts_where_rlcard_own_eval_step_fails_on_numpy_2():
    env = pettingzoo.make("aec", LEDUC)
    env.reset(seed=0)
    raw = env.unwrapped
    state = raw.env.get_state(raw._name_to_int(env.agent_selection))
    agent = RLCardAgent("leduc-holdem-cfr", 0)
    cfr = agent._agent
    assert state["obs"].tobytes() in cfr.average_policy  # the key RLCard's pickles hold
    if not hasattr(np.ndarray, "tostring"):
        with pytest.raises(AttributeError, match="tostring"):
            cfr.eval_step(state)
    assert agent.step(state) in state["legal_actions"]


def test_cfr_beats_random_on_leduc():
    # RLCard 1.2.0's CFR agent against random: +0.654 big blinds a hand over many hands
    # (the reference). 2,000 hands, seats swapped, seed fixed: 95% half-width about
    # 0.09, so the bound 0.3 leaves over 3 half-widths below the reference.
    result = payoff_per_hand(LEDUC, RLCardPlayer("leduc-holdem-cfr"), RandomPlayer(), 2000)
    assert result.hands == 2000
    assert 0 < result.half_width < 0.15
    assert result.mean - result.half_width > 0.3
    short = payoff_per_hand(LEDUC, RLCardPlayer("leduc-holdem-cfr"), RandomPlayer(), 100, seed=1)
    assert (
        payoff_per_hand(LEDUC, RLCardPlayer("leduc-holdem-cfr"), RandomPlayer(), 100, seed=1)
        == short
    )


def test_payoffs_are_zero_sum_with_seats_swapped():
    cfr, rule = RLCardPlayer("leduc-holdem-cfr"), RLCardPlayer("leduc-holdem-rule-v1")
    one = payoff_per_hand(LEDUC, rule, rule, 20, seed=3)
    assert one.mean == pytest.approx(0.0)  # the same deals with seats swapped cancel out
    with pytest.raises(ValueError, match="even int"):
        payoff_per_hand(LEDUC, cfr, rule, 3)


def _opponent_swaps(env):
    """Yields the other player's state after giving them each card of the deck in turn."""
    game = env.unwrapped.env.game
    other = 1 - env.unwrapped._name_to_int(env.agent_selection)
    player = game.players[other]
    hand = player.hand
    for card in game.dealer.deck:
        player.hand = [card, *hand[1:]] if isinstance(hand, list) else card
        yield env.unwrapped.env.get_state(other)["obs"].tobytes()
    player.hand = hand


@pytest.mark.parametrize(
    ("model_id", "env_id"), [("leduc-holdem-cfr", LEDUC), ("limit-holdem-rule-v1", TEXAS)]
)
def test_agent_never_reads_the_other_hand(model_id, env_id):
    for seed in range(5):
        env = pettingzoo.make("aec", env_id)
        env.reset(seed=seed)
        reference = RLCardAgent(model_id, seed).act(env)
        other_views = set()
        for other_view in _opponent_swaps(env):
            other_views.add(other_view)
            assert RLCardAgent(model_id, seed).act(env) == reference
        assert len(other_views) >= 3  # the swaps did change what the other player holds
