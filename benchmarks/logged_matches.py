"""A match for the yardstick scripts (``go_matches.py``, ``chess_matches.py``): logged, scored.

Each game is printed as one JSON line (without its moves) as it finishes and written whole to
a JSON Lines file when one is given; the result comes back with the agent's score and its 95%
Wilson interval (:func:`~mcts_agent.evaluation.ratings.score_interval`).
"""

import json
from collections.abc import Callable
from typing import Any

from mcts_agent.evaluation import play_match
from mcts_agent.evaluation.ratings import score_interval


def play_logged_match(
    game: Any,
    agent: Any,
    opponent: Any,
    games: int,
    game_line: Callable[[Any], dict],
    jsonl: str | None = None,
    **match_options: Any,
) -> tuple[Any, str]:
    """Plays ``games`` games (half in each seat) and logs each as ``game_line(record)``.

    Args:
        game, agent, opponent: as :func:`~mcts_agent.evaluation.play_match`.
        games: even, games in all.
        game_line: ``GameRecord -> dict`` (JSON-ready), with the moves under ``"moves"``.
        jsonl: a path for one JSON line per game, or None.
        **match_options: ``play_match``'s other keywords (``seed``, ``workers``...).

    Returns:
        ``(MatchResult, text)``: the text says the score, its interval and the tally.
    """
    log = open(jsonl, "w") if jsonl else None  # noqa: SIM115 (closed below)

    def on_game(spec, record):
        line = game_line(record)
        print(json.dumps({k: v for k, v in line.items() if k != "moves"}), flush=True)
        if log is not None:
            log.write(json.dumps(line) + "\n")
            log.flush()

    try:
        result = play_match(game, agent, opponent, games // 2, on_game=on_game, **match_options)
    finally:
        if log is not None:
            log.close()
    wins, draws, losses = result.tally()
    score, low, high = score_interval(wins, draws, losses)
    print(result.summary())
    text = (
        f"score {score:.3f} [{low:.3f}, {high:.3f}] over {wins + draws + losses} games "
        f"({wins} won, {draws} drawn, {losses} lost)"
    )
    return result, text
