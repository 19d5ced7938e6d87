"""PettingZoo's hidden-information games planned with information-set MCTS.

The adapter's information sets and worlds (mcts_agent/adapters/pettingzoo/hidden_information.py)
on leduc_holdem_v4, texas_holdem_v4, texas_holdem_no_limit_v6 and rps_v2; MCTSAgent on them
(Leduc on LeducModel); the live env untouched; the refusals that remain.
"""

from __future__ import annotations

import copy as copy_module
import functools
import itertools
import pickle
import random
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("rlcard")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pettingzoo.classic import (  # noqa: E402
    leduc_holdem_v4,
    rps_v2,
    texas_holdem_no_limit_v6,
    texas_holdem_v4,
)

from mcts_agent import MCTSAgent  # noqa: E402
from mcts_agent.adapters.pettingzoo import PettingZooModel  # noqa: E402
from mcts_agent.adapters.pettingzoo.cloning import copy_attributes  # noqa: E402
from mcts_agent.adapters.pettingzoo.hidden_information import GeneratorStandIn  # noqa: E402
from mcts_agent.adapters.pettingzoo.hidden_model import PettingZooHiddenModel  # noqa: E402
from mcts_agent.adapters.pettingzoo.reading import fingerprint  # noqa: E402
from mcts_agent.envs.leduc import LeducModel  # noqa: E402
from mcts_agent.search import MCTS  # noqa: E402

GAMES = {
    "leduc": leduc_holdem_v4,
    "texas": texas_holdem_v4,
    "texas_no_limit": texas_holdem_no_limit_v6,
    "rps": rps_v2,
}
CARD_GAMES = ("leduc", "texas", "texas_no_limit")


def legal(env):
    observation = env.observe(env.agent_selection)
    if isinstance(observation, dict):
        return np.flatnonzero(observation["action_mask"]).tolist()
    return list(range(env.action_space(env.agent_selection).n))  # rps: every move


def position(game, seed, moves):
    """An env of ``game`` reset with ``seed``, then up to ``moves`` random legal moves
    played (stopping before the game ends)."""
    env = GAMES[game].env()
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        action = rng.choice(legal(env))
        after = copy_attributes(env.unwrapped)
        after.step(action)
        if all(after.terminations.values()) or all(after.truncations.values()):
            break
        env.step(action)
    return env


@functools.cache
def model(game):
    """One model per game (its start-up check runs once); it reads any env of the game."""
    env = GAMES[game].env()
    env.reset(seed=0)
    return PettingZooModel(env)


@functools.cache
def positions(game):
    """Positions of ``game`` at several depths, with both players' points of view."""
    return tuple(position(game, seed, seed % 7) for seed in range(16))


def cards(env):
    """Every card of an RLCard game (hands, public cards, deck) as RLCard's indices."""
    game = env.unwrapped.env.game
    hands = [p.hand if isinstance(p.hand, list) else [p.hand] for p in game.players]
    public = getattr(game, "public_cards", None)
    if public is None:
        public = [] if game.public_card is None else [game.public_card]
    return (
        [[c.get_index() for c in hand] for hand in hands],
        [c.get_index() for c in public],
        [c.get_index() for c in game.dealer.deck],
    )


# ------------------------------------------------------------ the model made for each game


@pytest.mark.parametrize("game", GAMES)
def test_the_adapter_plans_these_games_with_ismcts(game):
    planned = model(game)
    assert type(planned) is PettingZooHiddenModel
    assert planned.zero_sum and planned.reward_players is None  # the mover's reward
    planner = MCTS(planned, 20, seed=0)
    assert planner.hidden
    env = positions(game)[3]
    assert planner(planned.state_of(env)) in legal(env)


def test_perfect_information_games_keep_the_plain_model():
    from pettingzoo.classic import tictactoe_v3

    env = tictactoe_v3.env()
    env.reset(seed=0)
    planned = PettingZooModel(env)
    assert type(planned) is PettingZooModel
    assert not hasattr(planned, "information_set") and not hasattr(planned, "sample_world")
    assert not MCTS(planned, 10, seed=0).hidden


# --------------------------------------------------------------- worlds and information sets


@pytest.mark.parametrize("game", GAMES)
def test_every_world_keeps_the_players_information_set_and_legal_actions(game):
    planned = model(game)
    rng = random.Random(1)
    worlds_differ = 0
    for env in positions(game):
        state = planned.state_of(env)
        for player in planned.possible_agents:
            key = planned.information_set(state, player)
            for _ in range(6):
                world = planned.sample_world(state, player, rng)
                assert planned.information_set(world, player) == key
                assert world.actions == state.actions and world.agent == state.agent
                if game in CARD_GAMES:
                    hands, public, deck = cards(world.position)
                    true_hands, true_public, true_deck = cards(env)
                    mine = planned.possible_agents.index(player)
                    assert hands[mine] == true_hands[mine] and public == true_public
                    assert sorted(sum(hands, []) + deck) == sorted(sum(true_hands, []) + true_deck)
                    worlds_differ += hands != true_hands
                else:
                    worlds_differ += world.position.state != env.unwrapped.state
    assert worlds_differ > 0  # worlds are re-dealt, not copies


@pytest.mark.parametrize("game", CARD_GAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_information_sets_hold_no_hidden_card(game, data):
    # Two positions differing only in cards `player` cannot see: the other hands and the
    # deck, dealt in any order (a permutation hypothesis draws). Same information set.
    planned = model(game)
    env = data.draw(st.sampled_from(positions(game)))
    player = data.draw(st.sampled_from(planned.possible_agents))
    twin = copy_attributes(env.unwrapped)
    game_ = twin.env.game
    mine = planned.possible_agents.index(player)
    others = [p for i, p in enumerate(game_.players) if i != mine]
    unseen = [c for p in others for c in (p.hand if isinstance(p.hand, list) else [p.hand])]
    unseen += game_.dealer.deck
    order = data.draw(st.permutations(range(len(unseen))))
    shuffled = [unseen[i] for i in order]
    for p in others:
        if isinstance(p.hand, list):
            p.hand[:] = [shuffled.pop() for _ in p.hand]
        else:
            p.hand = shuffled.pop()
    game_.dealer.deck[:] = shuffled
    state, twin_state = planned.state_of(env), planned.state_of(twin)
    assert planned.information_set(twin_state, player) == planned.information_set(state, player)
    # A world depends on the rng and what player saw only, not on where the true cards lie.
    seed = data.draw(st.integers(0, 2**32))
    world = planned.sample_world(state, player, random.Random(seed))
    twin_world = planned.sample_world(twin_state, player, random.Random(seed))
    assert cards(world.position) == cards(twin_world.position)
    # ...and the player's own cards are in it: another hand, another information set.
    other = planned.possible_agents[1 - mine]
    hands = cards(twin)[0]
    if game == "leduc":  # keyed by rank
        hands = [[card[1] for card in hand] for hand in hands]
    if sorted(hands[mine]) != sorted(hands[1 - mine]):
        own_hand = game_.players[mine].hand
        game_.players[mine].hand, game_.players[1 - mine].hand = (
            game_.players[1 - mine].hand,
            own_hand,
        )
        swapped = planned.state_of(twin)
        assert planned.information_set(swapped, player) != planned.information_set(state, player)
        assert planned.information_set(swapped, other) != planned.information_set(twin_state, other)


def test_rps_information_set_hides_the_first_move_only():
    planned = model("rps")
    env = rps_v2.env()
    env.reset(seed=0)
    env.step(0)  # player_0 plays rock; player_1 to move
    keys = set()
    for move in range(3):
        twin = copy_attributes(env.unwrapped)
        twin.state["player_0"] = move
        state = planned.state_of(twin)
        keys.add(planned.information_set(state, "player_1"))
        assert planned.information_set(state, "player_0")[-1] == move  # its own move
    assert len(keys) == 1
    env.step(2)  # scissors: the round is over, both moves public
    state = planned.state_of(env)
    key = planned.information_set(state, "player_1")
    assert key[:2] == (1, (0, 2, -1, -1, -1, -1, -1, -1, -1, -1))
    world = planned.sample_world(state, "player_0", random.Random(0))
    assert world.position.state == {"player_0": 0, "player_1": 2}  # nothing hidden here


@pytest.mark.parametrize("game", GAMES)
def test_check_model_accepts_the_adapters_hidden_information_models(game):
    from mcts_agent.testing import check_model

    env = positions(game)[2]
    check_model(model(game), model(game).state_of(env), num_playouts=3)


# ------------------------------------------------------------------------- uniform worlds


def test_leduc_worlds_are_uniform_over_the_unseen_cards():
    stats = pytest.importorskip("scipy.stats")
    planned = model("leduc")
    env = leduc_holdem_v4.env()
    env.reset(seed=2)
    state = planned.state_of(env)
    player = env.agent_selection
    mine = planned.possible_agents.index(player)
    own = cards(env)[0][mine][0][1]  # its rank
    # Unseen: the five other cards; the opponent's is uniform over them, the public card
    # (top of the deck, dealt in round 2) uniform over the four left.
    unseen = [rank for rank in "JJQQKK"]
    unseen.remove(own)
    expected = Counter(
        (a, b) for a, b in itertools.permutations(unseen, 2)
    )  # (opponent's rank, public rank), 20 equally likely ordered pairs of physical cards
    rng = random.Random(5)
    draws = 600
    seen = Counter()
    for _ in range(draws):
        hands, _, deck = cards(planned.sample_world(state, player, rng).position)
        seen[hands[1 - mine][0][1], deck[-1][1]] += 1
    outcomes = sorted(expected)
    assert set(seen) == set(outcomes)
    result = stats.chisquare(
        [seen[o] for o in outcomes], [draws * expected[o] / 20 for o in outcomes]
    )
    assert result.pvalue > 0.001


def test_texas_worlds_deal_the_opponent_every_unseen_card_alike():
    stats = pytest.importorskip("scipy.stats")
    planned = model("texas")
    env = position("texas", 4, 3)  # after the flop maybe: the public cards are seen
    state = planned.state_of(env)
    player = env.agent_selection
    mine = planned.possible_agents.index(player)
    hands, public, deck = cards(env)
    unseen = sorted(hands[1 - mine] + deck)
    rng = random.Random(6)
    draws = 600
    seen = Counter()
    for _ in range(draws):
        world_hands, world_public, _ = cards(planned.sample_world(state, player, rng).position)
        assert world_public == public
        seen.update(world_hands[1 - mine])
    assert set(seen) <= set(unseen)
    expected = 2 * draws / len(unseen)
    assert stats.chisquare([seen[c] for c in unseen], [expected] * len(unseen)).pvalue > 0.001


def test_rps_worlds_draw_the_hidden_move_uniformly():
    stats = pytest.importorskip("scipy.stats")
    planned = model("rps")
    env = rps_v2.env()
    env.reset(seed=0)
    env.step(1)
    state = planned.state_of(env)
    rng = random.Random(7)
    seen = Counter(
        planned.sample_world(state, "player_1", rng).position.state["player_0"] for _ in range(900)
    )
    assert set(seen) == {0, 1, 2}
    assert stats.chisquare([seen[m] for m in range(3)]).pvalue > 0.001


# ------------------------------------------------------------------- LeducModel agrees


def test_leduc_model_state_of_agrees_with_the_adapters_information_sets():
    planned = model("leduc")
    leduc = LeducModel()
    pairs = set()
    for seed in range(80):
        env = position("leduc", seed, seed % 5)
        state, native = planned.state_of(env), leduc.state_of(env)
        assert state.actions == leduc.actions(native)
        assert state.agent == f"player_{leduc.player(native)}"
        for p in (0, 1):
            agent = f"player_{p}"
            pairs.add(
                (
                    (agent, planned.information_set(state, agent)),
                    (p, leduc.information_set(native, p)),
                )
            )
    adapter_keys = {a for a, _ in pairs}
    native_keys = {b for _, b in pairs}
    assert len(adapter_keys) == len(native_keys) == len(pairs) > 40  # a one-to-one match


# ------------------------------------------------ copies hold a stand-in for the generator


def test_copies_hold_a_stand_in_that_refuses_to_draw_and_share_the_cards():
    env = position("texas", 4, 2)
    live_generator = env.unwrapped.env.np_random
    planned = model("texas")
    state = planned.state_of(env)
    world = planned.sample_world(state, state.agent, random.Random(0))
    for copy in (state.position, world.position):
        game = copy.env.game
        holders = (copy.env, game, game.dealer, game.judger, game.round, *game.players)
        stand_ins = {id(holder.np_random) for holder in holders}
        assert len(stand_ins) == 1 and isinstance(game.np_random, GeneratorStandIn)
        assert id(live_generator) not in stand_ins
    # The live game's cards are the copies' (never changed), re-dealt in the world.
    live_cards = {id(card) for card in env.unwrapped.env.game.dealer.deck}
    live_cards |= {id(card) for p in env.unwrapped.env.game.players for card in p.hand}
    world_game = world.position.env.game
    world_cards = {id(card) for card in world_game.dealer.deck}
    world_cards |= {id(card) for p in world_game.players for card in p.hand}
    assert world_cards == live_cards
    # RLCard's only draw after the deal: a split pot's odd chip (3 players in the pot, 2
    # winners, 9 chips). It raises, naming the game and the cause, instead of drawing.
    judger = world_game.judger
    with pytest.raises(
        ValueError,
        match="a copy of the game drew from the env's generator: "
        "texas_holdem_v4 .*'choice'.*odd chip of a split pot",
    ):
        judger.split_pot_among_players([3, 3, 3], [1, 1, 0])
    assert env.unwrapped.env.np_random is live_generator  # the live env keeps its own
    leduc_copy = model("leduc").state_of(position("leduc", 1, 0)).position
    with pytest.raises(ValueError, match="leduc_holdem_v4 .*'shuffle'.*draws only to deal"):
        leduc_copy.env.game.dealer.shuffle()


def test_the_stand_in_is_copied_and_pickled_as_itself():
    stand_in = model("leduc").state_of(position("leduc", 2, 1)).position.env.game.np_random
    assert copy_module.deepcopy(stand_in) is stand_in
    assert pickle.loads(pickle.dumps(stand_in)) == stand_in
    assert not hasattr(stand_in, "__array__")  # dunder look-ups answer as usual


def test_three_player_holdem_refuses_an_odd_split_pot_in_its_copies():
    env = texas_holdem_no_limit_v6.env(num_players=3)
    env.reset(seed=1)
    planned = PettingZooModel(env)
    judger = planned.state_of(env).position.env.game.judger
    with pytest.raises(ValueError, match="texas_holdem_no_limit_v6 .*three players or more"):
        judger.split_pot_among_players([5, 5, 5], [1, 1, 0])


# Root visit counts and node counts from the code before copies held the stand-in (commit
# d7a34d7, where every copy deep-copied RLCard's RandomState), recorded by running this same
# search there: the stand-in and shared cards must leave the trees unchanged.
BEFORE_STAND_IN = {
    ("leduc", 3, 0): ({0: 26, 1: 41, 2: 13}, 33),
    ("texas", 5, 1): ({1: 42, 2: 8, 3: 30}, 73),
}


@pytest.mark.parametrize("game, seed, moves", list(BEFORE_STAND_IN))
def test_plans_are_those_of_the_full_copies(game, seed, moves):
    env = GAMES[game].env()
    env.reset(seed=seed)
    for _ in range(moves):
        env.step(legal(env)[0])
    planned = PettingZooModel(env)
    planner = MCTS(planned, 80, exploration=2.0, seed=7)
    planner.search(planned.state_of(env))
    tree = planner._tree
    visits, nodes = BEFORE_STAND_IN[game, seed, moves]
    assert dict(sorted(tree.edge_visits[0].items())) == visits
    assert len(tree) == nodes


# -------------------------------------------------------------- the agent plays full hands


def snapshot(env):
    """What must not change when the agent plans: the game, the cards, the generators."""
    inner = env.unwrapped
    view = [fingerprint(env), inner.agent_selection]
    if hasattr(inner, "env"):  # RLCard
        rlcard_env = inner.env
        view += [
            cards(env),
            list(rlcard_env.action_recorder),
            [p.in_chips for p in rlcard_env.game.players],
            rlcard_env.timestep,
        ]
        generators = [rlcard_env.np_random, rlcard_env.game.np_random]
    else:
        view += [dict(inner.state), list(inner.history), inner.num_moves]
        generators = []
    pettingzoo_rng = inner.__dict__.get("_np_random")
    if pettingzoo_rng is not None:
        generators.append(pettingzoo_rng)
    for generator in generators:
        state = generator.get_state() if hasattr(generator, "get_state") else None
        view.append(repr(state) if state is not None else repr(generator.bit_generator.state))
    view.append(random.getstate())
    view.append(repr(np.random.get_state()))
    return view


@pytest.mark.parametrize(
    "game, iterations, native",
    [
        ("leduc", 200, True),
        ("leduc", 20, False),
        ("texas", 8, True),
        ("texas_no_limit", 8, True),
        ("rps", 10, True),
    ],
)
def test_the_agent_plays_a_full_hand_and_leaves_the_env_alone(game, iterations, native):
    env = GAMES[game].env(**({"max_cycles": 3} if game == "rps" else {}))
    env.reset(seed=11)
    agent = MCTSAgent(iterations, seed=3, native_models=native)
    moves = 0
    for name in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        before = snapshot(env)
        action = agent.act(env)
        assert snapshot(env) == before  # the game, its cards and every generator as they were
        assert action in legal(env)
        assert agent.last_summary.player == name
        env.step(action)
        moves += 1
    assert moves >= 1 and not env.agents  # the hand played to its end
    expected = LeducModel if game == "leduc" and native else PettingZooHiddenModel
    assert type(agent.last_planner.model) is expected


def test_leduc_through_the_agent_uses_the_leduc_exploration_and_keeps_other_seeds():
    from mcts_agent.defaults import LEDUC_EXPLORATION

    agent = MCTSAgent(50, seed=9)
    rng = random.Random(9)
    tictactoe_seed, connect_four_seed, next_seed = (rng.getrandbits(63) for _ in range(3))
    planners = sorted(binding.planner.seed for binding in agent._native.values())
    assert planners == sorted([tictactoe_seed, connect_four_seed])  # as before Leduc
    env = leduc_holdem_v4.env()
    env.reset(seed=0)
    agent.act(env)
    assert agent.last_planner.seed == next_seed  # Leduc's, drawn when first used
    assert agent.last_planner.exploration == LEDUC_EXPLORATION
    assert MCTSAgent(50, seed=9, exploration=0.7).act(env) in legal(env)


# ----------------------------------------------------------------- what stays refused


def test_hanabi_and_other_hidden_games_stay_refused():
    from pettingzoo.classic.rlcard_envs import leduc_holdem

    class HiddenMore(leduc_holdem.raw_env):  # a subclass may hide more: not re-dealt
        pass

    env = HiddenMore()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="re-deal.*leduc_holdem_v4 is neither: it is an RLCard"):
        PettingZooModel(env)
    with pytest.raises(ValueError, match="is neither"):
        MCTSAgent(10).act(env)


def test_hanabi_is_refused_with_its_cause():
    pytest.importorskip("shimmy")
    pytest.importorskip("pyspiel")
    import pettingzoo

    env = pettingzoo.make("aec", "classic/hanabi-v5")
    env.reset(seed=0)
    state = env.unwrapped.hanabi_env.game_state
    import pyspiel

    with pytest.raises(pyspiel.SpielError, match="ResampleFromInfostate"):  # the cause, checked
        state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    with pytest.raises(ValueError, match="hanabi_v5 is neither.*ResampleFromInfostate"):
        PettingZooModel(env)


def test_replay_clones_are_refused_for_re_dealt_games():
    env = leduc_holdem_v4.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="no replay of the env's actions"):
        PettingZooModel(env, clone="replay", env_factory=leduc_holdem_v4.env)


def test_bad_arguments_are_named():
    planned = model("leduc")
    state = planned.state_of(positions("leduc")[0])
    with pytest.raises(ValueError, match="player must be one of"):
        planned.information_set(state, "player_7")
    with pytest.raises(TypeError, match="rng must be a random.Random"):
        planned.sample_world(state, "player_0", 3)


def test_minimax_refuses_a_hidden_information_model():
    from mcts_agent.minimax import AlphaBetaMinimax, ExhaustiveMinimax

    for search in (ExhaustiveMinimax, AlphaBetaMinimax):
        with pytest.raises(ValueError, match="would see the hidden cards or moves"):
            search(model("rps"))
        with pytest.raises(ValueError, match="would see the hidden cards or moves"):
            search(LeducModel())


def test_mcts_agent_with_determinize_plans_leduc_by_pimc_and_refuses_a_perfect_information_game():
    from pettingzoo.classic import leduc_holdem_v4, tictactoe_v3

    agent = MCTSAgent(iterations=300, seed=1, determinize=True)  # constructs: options apply later
    env = leduc_holdem_v4.env()
    env.reset(seed=3)
    action = agent.act(env)
    assert agent.last_planner.determinize and sum(agent.last_summary.visit_counts) == 300
    assert env.unwrapped.env.get_state(0)["legal_actions"] and action in range(4)
    board = tictactoe_v3.env()
    board.reset(seed=3)
    with pytest.raises(ValueError, match="determinize=True searches sampled worlds"):
        agent.act(board)
