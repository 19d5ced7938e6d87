"""Round robins: pairs and seats, the ratings of their games, files, and the command."""

from __future__ import annotations

import csv
import json
import re

import pytest
from test_evaluation import DRAW_LINE, FIRST_LEGAL, LAST_LEGAL, without_seconds

from mcts_agent.cli import main
from mcts_agent.evaluation import (
    PairScore,
    RandomPlayer,
    fit_ratings,
    make_game,
    make_player,
    round_robin,
    score_interval,
    tournament,
)

TTT = make_game("tictactoe")


def test_a_round_robin_plays_every_pair_in_both_seats():
    agents = {"first": FIRST_LEGAL, "last": LAST_LEGAL, "draw": DRAW_LINE}
    specs = round_robin(TTT, agents, 4, seed=5)
    assert [(s.agent, s.opponent) for s in specs] == [
        (FIRST_LEGAL, LAST_LEGAL),
        (FIRST_LEGAL, DRAW_LINE),
        (LAST_LEGAL, DRAW_LINE),
    ]
    assert all(s.games_per_seat == 2 and s.seed == 5 for s in specs)
    with pytest.raises(ValueError, match="games_per_pair must be even"):
        round_robin(TTT, agents, 3)


def test_the_ratings_are_the_fit_of_the_pairs_tallies_anchored_on_random():
    agents = {
        "mcts:iterations=40": make_player("mcts:iterations=40", TTT),
        "random": RandomPlayer(),
        "perfect": make_player("perfect", TTT),
    }
    result = tournament(TTT, agents, 6, seed=1, workers=1)
    assert result.names == tuple(agents) and result.anchor == "random"
    assert result.pairs == (
        ("mcts:iterations=40", "random"),
        ("mcts:iterations=40", "perfect"),
        ("random", "perfect"),
    )
    scores = [
        PairScore(a, b, *m.tally()) for (a, b), m in zip(result.pairs, result.matches, strict=True)
    ]
    assert result.ratings == fit_ratings(result.names, scores, anchor="random", prior_draws=2)
    elo = {r.agent: r.elo for r in result.ratings}
    assert elo["random"] == 0 and elo["perfect"] > elo["random"]
    assert result.matches[1].tally().wins == 0  # nobody beats perfect play
    for row, match in zip(result.pair_rows(), result.matches, strict=True):
        assert (row["wins"], row["draws"], row["losses"]) == tuple(match.tally())
        assert (row["score"], row["score_low"], row["score_high"]) == score_interval(*match.tally())
    again = tournament(TTT, agents, 6, seed=1, workers=2)
    assert [without_seconds(m) for m in again.matches] == [
        without_seconds(m) for m in result.matches
    ]
    table = result.table()
    assert "rank  agent" in table and "random = 0" in table and "profile-likelihood" in table


def test_without_virtual_draws_infinite_ratings_keep_the_games():
    result = tournament(TTT, {"first": FIRST_LEGAL, "last": LAST_LEGAL}, 2, prior_draws=0)
    # Each wins every game as X: 1-1, finite ratings; perfect against first-legal never loses.
    assert result.ratings_error is None
    one_sided = tournament(
        TTT, {"perfect": make_player("perfect", TTT), "first": FIRST_LEGAL}, 2, prior_draws=0
    )
    assert one_sided.ratings == () and "not all finite" in one_sided.ratings_error
    assert "no ratings: the maximum-likelihood ratings are not all finite" in one_sided.table()
    assert len(one_sided.matches[0].records) == 2


def test_the_tournament_command_prints_both_tables_and_writes_every_game(tmp_path, capsys):
    out = {name: tmp_path / f"t.{name}" for name in ("json", "csv", "png")}
    argv = [
        "tournament",
        "--game",
        "connect_four",
        "--agents",
        "mcts:iterations=8",
        "random",
        "minimax:depth=1",
        "--games",
        "4",
        "--workers",
        "1",
        "--no-progress",
        "--json",
        str(out["json"]),
        "--csv",
        str(out["csv"]),
        "--plot",
        str(out["png"]),
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("connect_four: round robin, 4 games per pair, seats alternating")
    assert re.search(
        r"mcts:iterations=8\s+random\s+\d+\s+\d+\s+\d+\s+\d\.\d{3}\s+\d\.\d{3}-", printed
    )
    data = json.loads(out["json"].read_text())
    assert [r["agent"] for r in data["ratings"]] == [
        "mcts:iterations=8",
        "random",
        "minimax:depth=1",
    ]
    assert set(data["ratings"][0]) == {"agent", "elo", "elo_low", "elo_high"}
    assert data["anchor"] == "random" and data["interval"] == "95% profile likelihood"
    assert len(data["games"]) == 12 and {g["agent"] for g in data["games"]} == {
        "mcts:iterations=8",
        "random",
    }
    assert data["agents"]["minimax:depth=1"] == {
        "kind": "minimax",
        "depth": 1,
        "evaluation": "heuristic",
    }
    rows = list(csv.DictReader(out["csv"].open()))
    assert [(r["first"], r["second"], r["games"]) for r in rows] == [
        ("mcts:iterations=8", "random", "4"),
        ("mcts:iterations=8", "minimax:depth=1", "4"),
        ("random", "minimax:depth=1", "4"),
    ]
    assert out["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    log = (tmp_path / "t.jsonl").read_text().splitlines()
    assert len(log) == 12


def test_the_sprt_command_stops_and_reports_the_games_it_took(tmp_path, capsys):
    argv = [
        "tournament",
        "--agents",
        "mcts:iterations=300",
        "mcts:iterations=5",
        "--sprt",
        "0,100",
        "--workers",
        "1",
        "--no-progress",
        "--json",
        str(tmp_path / "s.json"),
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    match = re.search(r"H1 accepted \(elo >= 100\) after (\d+) games", printed)
    assert match, printed
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["decision"] == "H1" and data["games_played"] == int(match[1]) == len(data["games"])
    assert len((tmp_path / "s.jsonl").read_text().splitlines()) == int(match[1])
