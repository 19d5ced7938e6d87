"""The arena: matches between two players, sweeps, and the backends that run them.

One module per concept, every public name re-exported here:

* :mod:`~mcts_agent.evaluation.players`: the players, picklable factories
  ``player(model, seed) -> policy`` (:class:`RandomPlayer`, :class:`PerfectPlayer`,
  :class:`MinimaxPlayer`, :class:`MCTSPlayer`).
* :mod:`~mcts_agent.evaluation.games`: where the games are played (:class:`ModelGame`,
  :class:`PettingZooGame`, :class:`FactoryGame`, :func:`make_game`, :data:`GAME_NAMES`;
  :func:`require_zero_sum`, the games minimax can search).
* :mod:`~mcts_agent.evaluation.user_modules`: a user's own module named by a
  ``module:attr`` game or env spec, imported (:func:`import_user_module`).
* :mod:`~mcts_agent.evaluation.match_spec`: what a match plays (:class:`MatchSpec`).
* :mod:`~mcts_agent.evaluation.results`: what came of it (:class:`Tally`,
  :class:`GameRecord`, :class:`MatchResult`, :class:`SweepResult`; tables, JSON, CSV, plots;
  :class:`GameLog`, each game on disk as it finishes; :func:`write_atomically`).
* :mod:`~mcts_agent.evaluation.runner`: seeding and the backends that play the games
  (:func:`game_seeds`, :func:`run_matches`, :func:`play_match`, :func:`sweep`,
  :func:`check_ray_address`; :class:`WorkerDiedWarning`, :class:`WorkerDiedError`).
* :mod:`~mcts_agent.evaluation.specs`: games and agents written as text
  (:func:`make_player`, :func:`parse_spec`: ``mcts:iterations=400,selection=puct``).
* :mod:`~mcts_agent.evaluation.ratings`: Elo from a Bradley-Terry fit with
  profile-likelihood intervals (:func:`fit_ratings`), score intervals.
* :mod:`~mcts_agent.evaluation.tournament`: round robins and their ratings
  (:func:`tournament`, :class:`TournamentResult`).
* :mod:`~mcts_agent.evaluation.sprt`: matches stopped by the sequential
  probability ratio test (:class:`SPRT`, :func:`sprt_match`).
* :mod:`~mcts_agent.evaluation.multiplayer`: games of n players or cooperative ones,
  seats rotated, every player's results (:func:`play_multiplayer`,
  :class:`MultiplayerResult`, :func:`make_multiplayer_game`).
* :mod:`~mcts_agent.evaluation.rlcard_players`: RLCard's own agents as opponents in
  PettingZoo's card games (:class:`RLCardPlayer`, ``rlcard:leduc-holdem-cfr``), payoffs in
  big blinds per hand (:func:`payoff_per_hand`, :class:`HandsPayoff`).

Example::

    game = make_game("tictactoe")
    with GameLog("games.jsonl") as log:  # each game on disk as it finishes
        result = sweep(game, [RandomPlayer(), PerfectPlayer()], iterations=[10, 100],
                       games_per_seat=50, on_game=log.write)
    print(result.table())
    result.save_json("results.json")
"""

from __future__ import annotations

from mcts_agent.evaluation.games import (
    GAME_NAMES,
    MODEL_GAMES,
    FactoryGame,
    Game,
    ModelGame,
    PettingZooGame,
    default_exploration,
    make_game,
    random_opening,
    require_zero_sum,
)
from mcts_agent.evaluation.match_spec import SEATS as SEATS
from mcts_agent.evaluation.match_spec import MatchSpec
from mcts_agent.evaluation.match_spec import Seats as Seats
from mcts_agent.evaluation.multiplayer import (
    MULTIPLAYER_GAMES,
    MultiplayerResult,
    PlayerResult,
    make_multiplayer_game,
    play_multiplayer,
)
from mcts_agent.evaluation.players import (
    DEFAULT_EXPLORATION,
    MCTSPlayer,
    MinimaxPlayer,
    PerfectPlayer,
    Player,
    RandomPlayer,
)
from mcts_agent.evaluation.ratings import PairScore, Rating, fit_ratings, score_interval
from mcts_agent.evaluation.results import (
    GameLog,
    GameRecord,
    MatchResult,
    SweepResult,
    Tally,
    write_atomically,
)
from mcts_agent.evaluation.rlcard_players import (
    RLCARD_MODELS,
    HandsPayoff,
    RLCardPlayer,
    payoff_per_hand,
)
from mcts_agent.evaluation.runner import (
    BACKENDS,
    RAY_CONNECT_TIMEOUT,
    REPORT_EVERY,
    WorkerDiedError,
    WorkerDiedWarning,
    check_ray_address,
    game_seeds,
    play_match,
    ray_session,
    run_matches,
    sweep,
)
from mcts_agent.evaluation.runner import Backend as Backend
from mcts_agent.evaluation.specs import (
    AGENT_KINDS,
    make_player,
    parse_settings,
    parse_spec,
    parse_sweep,
)
from mcts_agent.evaluation.sprt import SPRT, SPRTResult, sprt_match
from mcts_agent.evaluation.tournament import TournamentResult, round_robin, tournament
from mcts_agent.evaluation.user_modules import import_attribute, import_user_module

__all__ = [
    "AGENT_KINDS",
    "BACKENDS",
    "DEFAULT_EXPLORATION",
    "FactoryGame",
    "GAME_NAMES",
    "Game",
    "GameLog",
    "GameRecord",
    "HandsPayoff",
    "MCTSPlayer",
    "MatchResult",
    "MatchSpec",
    "MODEL_GAMES",
    "MULTIPLAYER_GAMES",
    "MinimaxPlayer",
    "ModelGame",
    "MultiplayerResult",
    "PairScore",
    "PerfectPlayer",
    "PettingZooGame",
    "Player",
    "PlayerResult",
    "RAY_CONNECT_TIMEOUT",
    "RLCARD_MODELS",
    "RLCardPlayer",
    "REPORT_EVERY",
    "RandomPlayer",
    "Rating",
    "SPRT",
    "SPRTResult",
    "SweepResult",
    "Tally",
    "TournamentResult",
    "WorkerDiedError",
    "WorkerDiedWarning",
    "check_ray_address",
    "fit_ratings",
    "game_seeds",
    "import_attribute",
    "import_user_module",
    "default_exploration",
    "make_game",
    "random_opening",
    "make_multiplayer_game",
    "make_player",
    "parse_settings",
    "parse_spec",
    "parse_sweep",
    "payoff_per_hand",
    "play_match",
    "play_multiplayer",
    "ray_session",
    "require_zero_sum",
    "round_robin",
    "run_matches",
    "score_interval",
    "sprt_match",
    "sweep",
    "tournament",
    "write_atomically",
]
