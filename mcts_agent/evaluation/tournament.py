"""Tournaments: a round robin of named agents, both seats, and their Elo ratings.

:func:`tournament` plays every pair of agents ``games_per_pair`` games, seats
alternating, on the arena's backends (:func:`~mcts_agent.evaluation.run_matches`:
processes or Ray, each game seeded from the master seed and its index, each
game handed to ``on_game`` as it finishes), and fits Elo ratings to the
results (:func:`~mcts_agent.evaluation.ratings.fit_ratings`). The result
prints each pair's wins, draws and losses with a 95% interval of the score,
and the ratings table; it saves JSON (ratings and every game), CSV (one row
per pair) and a plot of the ratings with their intervals.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcts_agent._validation import require_int
from mcts_agent.evaluation.games import Game
from mcts_agent.evaluation.match_spec import MatchSpec
from mcts_agent.evaluation.players import Player, _label
from mcts_agent.evaluation.ratings import (
    PairScore,
    Rating,
    check_prior_draws,
    fit_ratings,
    score_interval,
)
from mcts_agent.evaluation.results import (
    MatchResult,
    _describe,
    new_figure,
    save_figure,
    write_atomically,
)
from mcts_agent.evaluation.runner import Backend, OnGame, run_matches

__all__ = ["DEFAULT_ANCHOR", "TournamentResult", "round_robin", "tournament"]

DEFAULT_ANCHOR = "random"
"""The agent rated 0 by default (if there is one so named; else the first agent)."""


def _names(agents: Mapping[str, Player] | Sequence[Player]) -> dict[str, Player]:
    if isinstance(agents, Mapping):
        named = dict(agents)
    else:
        named = {}
        for player in agents:
            name = _label(player)
            if name in named:
                raise ValueError(
                    f"two agents are both labelled {name!r}; pass a dict of names to players"
                )
            named[name] = player
    if len(named) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {list(named)}")
    return named


def round_robin(
    game: Game, agents: Mapping[str, Player], games_per_pair: int, seed: int = 0
) -> list[MatchSpec]:
    """Returns one :class:`MatchSpec` per pair of agents, in the order the agents are given.

    Each pair plays ``games_per_pair`` games, the first agent of the pair in
    seat 0 in the even-numbered games and in seat 1 in the odd ones; every
    pair uses the master seed ``seed``.

    Raises:
        ValueError: if ``games_per_pair`` is not an even int >= 2.
    """
    require_int("games_per_pair", games_per_pair, 2)
    if games_per_pair % 2:
        raise ValueError(
            f"games_per_pair must be even (each agent of a pair takes each seat as often), "
            f"got {games_per_pair}"
        )
    return [
        MatchSpec(game, agents[a], agents[b], games_per_pair // 2, seed)
        for a, b in itertools.combinations(agents, 2)
    ]


@dataclass(frozen=True)
class TournamentResult:
    """The games of a round robin and the ratings fitted to them.

    Attributes:
        names: the agents' names, in the order given.
        pairs: ``(first, second)`` names of each match, in the order of ``matches``.
        matches: one :class:`MatchResult` per pair (its agent is ``first``).
        ratings: one :class:`~mcts_agent.evaluation.ratings.Rating` per agent,
            in the order of ``names``.
        anchor: the agent rated 0.
        prior_draws: the virtual draws added to each pair by the fit.
        ratings_error: why there are no ratings (``ratings`` empty: some are
            infinite without virtual draws), or None.
    """

    names: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    matches: tuple[MatchResult, ...]
    ratings: tuple[Rating, ...]
    anchor: str
    prior_draws: float
    ratings_error: str | None = None

    @property
    def game(self) -> Game:
        """The game played."""
        return self.matches[0].spec.game

    def pair_rows(self) -> list[dict[str, Any]]:
        """Returns one dict per pair: names, games, wins, draws, losses, score and its interval.

        ``wins``, ``draws``, ``losses`` and ``score`` (a draw counts half) are
        the first agent's; ``score_low`` and ``score_high`` bound its 95%
        Wilson interval (:func:`~mcts_agent.evaluation.ratings.score_interval`).
        """
        rows = []
        for (first, second), match in zip(self.pairs, self.matches, strict=True):
            tally = match.tally()
            score, low, high = score_interval(*tally)
            rows.append(
                {
                    "first": first,
                    "second": second,
                    "games": tally.games,
                    "wins": tally.wins,
                    "draws": tally.draws,
                    "losses": tally.losses,
                    "score": score,
                    "score_low": low,
                    "score_high": high,
                }
            )
        return rows

    def table(self) -> str:
        """Returns the pairs' table and the ratings table (best first), as text."""
        rows = self.pair_rows()
        width = max(len(n) for n in self.names)
        lines = [
            f"{self.game.name}: round robin, {rows[0]['games']} games per pair, seats alternating",
            f"{'agent'.ljust(width)}  {'opponent'.ljust(width)}    W    D    L  score"
            "  95% interval",
        ]
        for r in rows:
            lines.append(
                f"{r['first'].ljust(width)}  {r['second'].ljust(width)}  {r['wins']:3d}  "
                f"{r['draws']:3d}  {r['losses']:3d}  {r['score']:.3f}  "
                f"{r['score_low']:.3f}-{r['score_high']:.3f}"
            )
        lines += [
            "",
            f"Elo (Bradley-Terry maximum likelihood, draws half a point, {self.prior_draws:g} "
            f"virtual draws per pair; {self.anchor} = 0; 95% profile-likelihood intervals)",
            f"{'rank':>4}  {'agent'.ljust(width)}  {'elo':>7}  95% interval",
        ]
        if self.ratings_error is not None:
            lines.append(f"no ratings: {self.ratings_error}")
        order = sorted(self.ratings, key=lambda r: -r.elo)
        for rank, rating in enumerate(order, 1):
            lines.append(
                f"{rank:4d}  {rating.agent.ljust(width)}  {rating.elo:+7.0f}  "
                f"{rating.elo_low:+.0f} to {rating.elo_high:+.0f}"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Returns the tournament as a JSON-ready dict: agents, pairs, ratings and every game.

        ``ratings`` holds ``{"agent", "elo", "elo_low", "elo_high"}`` per agent;
        ``games`` every game, with the names of its ``agent`` (whose seat,
        outcome and returns are given) and ``opponent``. An infinite interval
        bound is ``null``.
        """

        def number(x: float) -> float | None:
            return x if abs(x) != float("inf") else None

        games = []
        for (first, second), match in zip(self.pairs, self.matches, strict=True):
            for record in match.records:
                games.append({"agent": first, "opponent": second, **record.to_dict()})
        return {
            "game": self.game.name,
            "agents": {n: _describe(m) for n, m in zip(self.names, self._players(), strict=True)},
            "anchor": self.anchor,
            "prior_draws": self.prior_draws,
            "interval": "95% profile likelihood",
            "ratings": [
                {
                    "agent": r.agent,
                    "elo": r.elo,
                    "elo_low": number(r.elo_low),
                    "elo_high": number(r.elo_high),
                }
                for r in self.ratings
            ],
            "pairs": self.pair_rows(),
            "games": games,
        }

    def _players(self) -> list[Player]:
        players: dict[str, Player] = {}
        for (first, second), match in zip(self.pairs, self.matches, strict=True):
            players.setdefault(first, match.spec.agent)
            players.setdefault(second, match.spec.opponent)
        return [players[n] for n in self.names]

    def save_json(self, path: str | os.PathLike) -> None:
        """Writes :meth:`to_dict` to ``path`` as JSON (atomically: see ``write_atomically``)."""
        with write_atomically(path) as f:
            json.dump(self.to_dict(), f, indent=1)

    def save_csv(self, path: str | os.PathLike) -> None:
        """Writes :meth:`pair_rows` to ``path``, one row per pair, with both agents' Elo."""
        elo = {r.agent: r.elo for r in self.ratings}
        with write_atomically(path) as f:
            writer = csv.writer(f)
            columns = list(self.pair_rows()[0])
            writer.writerow([*columns, "first_elo", "second_elo"])
            for row in self.pair_rows():
                writer.writerow(
                    [*row.values(), elo.get(row["first"], ""), elo.get(row["second"], "")]
                )

    def plot(self, path: str | os.PathLike) -> None:
        """Draws each agent's Elo with its 95% interval, best at the top, to an image file.

        Raises:
            ImportError: if matplotlib is not installed.
        """
        order = sorted(self.ratings, key=lambda r: r.elo)
        figure = new_figure(figsize=(7, 1 + 0.5 * len(order)))
        axes = figure.subplots()
        finite = [b for r in order for b in (r.elo_low, r.elo_high) if abs(b) != float("inf")]
        span = (min(finite, default=-100), max(finite, default=100))
        for y, r in enumerate(order):
            low = r.elo_low if r.elo_low != -float("inf") else span[0]
            high = r.elo_high if r.elo_high != float("inf") else span[1]
            axes.errorbar(r.elo, y, xerr=[[r.elo - low], [high - r.elo]], fmt="o", capsize=4)
        axes.set_yticks(range(len(order)), [r.agent for r in order])
        axes.set_xlabel(f"Elo ({self.anchor} = 0), 95% profile-likelihood intervals")
        axes.grid(True, axis="x", alpha=0.3)
        axes.set_title(f"{self.game.name}: {self.matches[0].tally().games} games per pair")
        save_figure(figure, path)


def tournament(
    game: Game,
    agents: Mapping[str, Player] | Sequence[Player],
    games_per_pair: int = 20,
    *,
    seed: int = 0,
    anchor: str | None = None,
    prior_draws: float = 2.0,
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    progress: bool = False,
    on_game: OnGame | None = None,
) -> TournamentResult:
    """Plays a round robin of ``agents`` on ``game`` and rates them.

    Example::

        game = make_game("connect_four")
        agents = {s: make_player(s, game) for s in ("random", "mcts:iterations=30")}
        print(tournament(game, agents, 20, seed=0).table())

    Args:
        game: the game (from :func:`~mcts_agent.evaluation.make_game`).
        agents: ``{name: player}``, or players named by their labels.
        games_per_pair: even int >= 2, games per pair (half in each seat).
        seed: master seed (see :func:`round_robin`).
        anchor: the agent rated 0 (default: ``"random"`` if there is one so
            named, else the first agent).
        prior_draws: virtual draws per pair in the fit (see
            :func:`~mcts_agent.evaluation.ratings.fit_ratings`).
        workers: local processes (as :func:`~mcts_agent.evaluation.run_matches`).
        backend: ``"process"`` or ``"ray"``.
        address: Ray's address, or None.
        progress: show a progress bar over games.
        on_game: called with ``(spec, record)`` as each game finishes.

    Returns:
        The :class:`TournamentResult`.

    Raises:
        ValueError, TypeError: if an argument is invalid (checked before any game).
        ConnectionError, WorkerDiedError: as :func:`~mcts_agent.evaluation.run_matches`.
    """
    named = _names(agents)
    names = tuple(named)
    if anchor is None:
        anchor = DEFAULT_ANCHOR if DEFAULT_ANCHOR in named else names[0]
    elif anchor not in named:
        raise ValueError(f"the anchor {anchor!r} is not one of the agents {list(names)}")
    check_prior_draws(prior_draws)
    specs = round_robin(game, named, games_per_pair, seed)
    pairs = tuple(itertools.combinations(names, 2))
    results = run_matches(
        specs, workers=workers, backend=backend, address=address, progress=progress, on_game=on_game
    )
    scores = [PairScore(a, b, *m.tally()) for (a, b), m in zip(pairs, results, strict=True)]
    try:
        ratings, error = fit_ratings(names, scores, anchor=anchor, prior_draws=prior_draws), None
    except ValueError as failure:  # infinite ratings (prior_draws=0): keep the games
        ratings, error = (), str(failure)
    return TournamentResult(names, pairs, results, ratings, anchor, float(prior_draws), error)
