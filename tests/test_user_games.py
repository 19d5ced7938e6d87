"""A user's own games and envs through the Python API, and the games minimax can search.

``make_game("module:factory")`` (:class:`FactoryGame`) and ``plan_episodes("module:EnvId")``
read the specs the command line reads (tests/test_cli_user_envs.py); the user's module is
tests/user_envs.py. Minimax and perfect play are refused, before any game, on a game planned
with every agent's reward (``require_zero_sum``), and minimax itself refuses such a model.
"""

from __future__ import annotations

import pickle

import pytest
import user_envs

from mcts_agent.adapters.pettingzoo import PettingZooModel
from mcts_agent.evaluation import (
    FactoryGame,
    MatchSpec,
    MCTSPlayer,
    MinimaxPlayer,
    ModelGame,
    PerfectPlayer,
    PettingZooGame,
    RandomPlayer,
    make_game,
    make_player,
    play_match,
    tournament,
)
from mcts_agent.evaluation.planning import plan_episodes
from mcts_agent.minimax import AlphaBetaMinimax, ExhaustiveMinimax

REFUSED = (
    r"^minimax\(depth=2\) searches two-player zero-sum games on the mover's reward; "
    r"user_envs:race:target=4 is not known to be one, so it is planned with every agent's "
    r"reward: play random or MCTS players$"
)


def test_make_game_makes_the_users_factory_game():
    game = make_game("user_envs:race:target=4")
    assert game == FactoryGame("user_envs:race", env_options=(("target", 4),))
    assert game.name == "user_envs:race:target=4"
    assert pickle.loads(pickle.dumps(game)) == game
    env = game.make_env()
    assert isinstance(env, user_envs.MaskedRace) and env.target == 4
    made = make_game("user_envs:MaskedRace:target=3").make_env()  # a class is a factory too
    assert isinstance(made, user_envs.MaskedRace) and made.target == 3
    assert type(make_game("classic/tictactoe-v3")) is PettingZooGame  # a registry id still
    with pytest.raises(ValueError, match="a FactoryGame's env_id is module:attr"):
        FactoryGame("classic/go-v5")
    with pytest.raises(ImportError, match="cannot import module 'no_such_module' of "):
        make_game("no_such_module:env")
    with pytest.raises(ValueError, match=r"^user_envs:race:size=3: race\(\) got an unexpected"):
        make_game("user_envs:race:size=3")


def test_a_match_in_the_users_env(tmp_path):
    game = make_game("user_envs:race:target=4")
    result = play_match(game, make_player("mcts:iterations=200", game), RandomPlayer(), 2, seed=3)
    assert len(result.records) == 4
    for record in result.records:
        seat = record.agent_seat  # returns: (the agent's, the opponent's)
        winner = seat if record.returns[0] > record.returns[1] else 1 - seat
        assert sorted(record.returns) == [-1.0, 1.0]
        scores = [sum(move + 1 for move in record.moves[s::2]) for s in (0, 1)]
        assert scores[winner] >= 4 > scores[1 - winner]  # the winner reached the target first
        if seat == 0:  # whoever moves first can always win: MCTS finds how
            assert winner == 0


def test_plan_episodes_in_the_users_gymnasium_env():
    result = plan_episodes("user_envs:Corridor-v0:size=4", {"iterations": 100, "gamma": 0.9}, 2)
    # size=4 reached the env: the goal is 3 steps right of the start
    assert [(r.steps, r.total_return, r.success) for r in result.records] == [(3, 1.0, None)] * 2
    with pytest.raises(ImportError, match="add its directory to PYTHONPATH"):
        plan_episodes("no_such_module:Corridor-v0", None, 1)
    with pytest.raises(ValueError, match=r"^env 'user_envs:Missing-v0': "):
        plan_episodes("user_envs:Missing-v0", None, 1)


def test_which_games_are_planned_as_zero_sum():
    assert make_game("tictactoe").zero_sum
    assert make_game("classic/connect_four-v3").zero_sum  # on our model
    assert PettingZooGame("classic/connect_four-v3").zero_sum  # the adapter knows the env
    assert not make_game("user_envs:race").zero_sum
    env = user_envs.race()
    env.reset(seed=0)
    model = PettingZooModel(env)  # every agent's reward: reward_players set
    assert model.reward_players == ("player_0", "player_1")
    assert not ModelGame(model, model.state_of(env), "race").zero_sum
    zero_sum = PettingZooModel(env, zero_sum=True)
    assert ModelGame(zero_sum, zero_sum.state_of(env), "race").zero_sum


def test_minimax_is_refused_before_any_game_on_a_game_not_known_to_be_zero_sum():
    game = make_game("user_envs:race:target=4")
    played = []
    with pytest.raises(ValueError, match=REFUSED):
        play_match(game, MinimaxPlayer(2), RandomPlayer(), 1, on_game=played.append)
    assert played == []
    with pytest.raises(ValueError, match=REFUSED):
        tournament(game, [MCTSPlayer(10), MinimaxPlayer(2)], 2, workers=1)
    with pytest.raises(ValueError, match=r"^agent spec 'minimax:depth=2': minimax\(depth=2\) "):
        make_player("minimax:depth=2", game)
    solvable = FactoryGame("user_envs:race", env_options=(("target", 4),), solvable=True)
    with pytest.raises(ValueError, match=r"^perfect searches two-player zero-sum games"):
        MatchSpec(solvable, RandomPlayer(), PerfectPlayer())
    with pytest.raises(ValueError, match=r"^agent spec 'perfect': perfect searches"):
        make_player("perfect", solvable)
    # the other players play it; minimax plays the games planned as zero-sum
    MatchSpec(game, MCTSPlayer(10), RandomPlayer())
    MatchSpec(make_game("connect_four"), MinimaxPlayer(2), RandomPlayer())


def test_minimax_refuses_a_model_of_every_players_reward():
    env = user_envs.race(target=4)
    env.reset(seed=0)
    model = PettingZooModel(env)
    message = (
        r"^minimax searches models that report the mover's reward \(two-player zero-sum "
        r"games\); this PettingZooModel reports every player's reward "
        r"\(reward_players=\('player_0', 'player_1'\)\): plan it with MCTS$"
    )
    for search in (AlphaBetaMinimax, ExhaustiveMinimax):
        with pytest.raises(ValueError, match=message):
            search(model)
    # said zero-sum, the same race is searched: the first player reaches 4 first by scoring 2
    solver = AlphaBetaMinimax(PettingZooModel(env, zero_sum=True), depth=None)
    state = solver.model.state_of(env)
    assert solver.value(state) == 1.0
    assert solver.best_actions(state) == (1,)
