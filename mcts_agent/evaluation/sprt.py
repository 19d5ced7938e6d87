"""Stopping a match early: the generalized sequential probability ratio test (GSPRT).

As chess engine testers do (fishtest, cutechess-cli, fast-chess): H0 says the
agent's Elo advantage is ``elo0``, H1 says it is ``elo1``; after each game
the log-likelihood ratio of the wins, draws and losses so far is compared
with Wald's bounds ``log(beta / (1 - alpha))`` (accept H0) and
``log((1 - beta) / alpha)`` (accept H1), and the match stops as soon as it
crosses one (Wald, 1945, "Sequential tests of statistical hypotheses").

The ratio is the trinomial GSPRT of fishtest's ``stat_util.LLR_logistic``
(Michel Van den Bergh, "A pseudo-GSPRT" / "Generalized SPRT" notes,
``http://hardy.uhasselt.be/Fishtest/GSPRT_approximation.pdf`` and
``support_MLE_multinomial.pdf``): each hypothesis fixes the expected score
``s = 1 / (1 + 10 ** (-elo / 400))`` (logistic Elo, a draw half a point) and
leaves the draw rate free, so the likelihood of each is maximised over the
distributions of game scores (0, 1/2, 1) with that mean. The maximum is
``p_i / (1 + x (a_i - s))`` with ``x`` the root of
``sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0`` (``p`` the observed
frequencies of the scores ``a``), found with ``scipy.optimize.brentq``. As
fishtest does, each count is raised by 1e-3 so the test is defined before
every outcome has been seen.

Games are counted in index order, whatever order the workers finish them
in, so a test stops at the same game on any backend and number of workers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import optimize

from mcts_agent._validation import require_float, require_int
from mcts_agent.evaluation.games import Game
from mcts_agent.evaluation.match_spec import MatchSpec
from mcts_agent.evaluation.players import Player
from mcts_agent.evaluation.results import GameRecord, MatchResult
from mcts_agent.evaluation.runner import Backend, OnGame, run_matches

__all__ = ["SPRT", "SPRTResult", "sprt_match"]

_REGULARIZE = 1e-3  # fishtest's regularisation of the counts
_SCORES = np.array([0.0, 0.5, 1.0])  # loss, draw, win


def _constrained_mle(frequencies: np.ndarray, s: float) -> np.ndarray:
    """The distribution over (0, 1/2, 1) of mean ``s`` most likely to give ``frequencies``."""
    a = _SCORES - s
    low, high = -1 / a.max(), -1 / a.min()  # 1 + x a > 0 for every a

    def secular(x: float) -> float:
        return float(np.sum(frequencies * a / (1 + x * a)))

    margin = 1e-12 * (high - low)
    x = optimize.brentq(secular, low + margin, high - margin, xtol=1e-15)
    p = frequencies / (1 + x * a)
    return p / p.sum()


@dataclass(frozen=True)
class SPRT:
    """The test: H0 ``elo = elo0`` against H1 ``elo = elo1`` (logistic Elo, see the module).

    Attributes:
        elo0: Elo of H0.
        elo1: Elo of H1, > ``elo0``.
        alpha: in (0, 1), the chance of accepting H1 when H0 holds.
        beta: in (0, 1), the chance of accepting H0 when H1 holds.

    Raises:
        TypeError, ValueError: if a field has the wrong type or range.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name, low, high in (("elo0", -2000, 2000), ("elo1", -2000, 2000)):
            object.__setattr__(self, name, require_float(name, getattr(self, name), low, high))
        for name in ("alpha", "beta"):
            value = require_float(name, getattr(self, name), 0.0, 1.0)
            if not 0 < value < 1:
                raise ValueError(f"{name} must be in (0, 1), got {value!r}")
            object.__setattr__(self, name, value)
        if self.elo1 <= self.elo0:
            raise ValueError(f"elo1 must be greater than elo0, got {self.elo0} and {self.elo1}")

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lower, upper)``: Wald's bounds on the log-likelihood ratio."""
        return (
            math.log(self.beta / (1 - self.alpha)),
            math.log((1 - self.beta) / self.alpha),
        )

    def llr(self, wins: int, draws: int, losses: int) -> float:
        """Returns the GSPRT log-likelihood ratio of H1 to H0 after these games (0.0 before any)."""
        counts = np.array([losses, draws, wins], dtype=float)
        if counts.sum() == 0:
            return 0.0
        counts = counts + _REGULARIZE
        frequencies = counts / counts.sum()
        s0, s1 = (1 / (1 + 10 ** (-elo / 400)) for elo in (self.elo0, self.elo1))
        p0, p1 = _constrained_mle(frequencies, s0), _constrained_mle(frequencies, s1)
        return float(np.sum(counts * np.log(p1 / p0)))

    def decision(self, wins: int, draws: int, losses: int) -> Literal["H0", "H1"] | None:
        """Returns ``"H1"``, ``"H0"``, or None (keep playing) after these games."""
        llr = self.llr(wins, draws, losses)
        lower, upper = self.bounds
        return "H1" if llr >= upper else "H0" if llr <= lower else None


@dataclass(frozen=True)
class SPRTResult:
    """A match stopped by the test.

    Attributes:
        test: the :class:`SPRT`.
        match: the games counted (the first ``len(match.records)`` of the match).
        decision: ``"H1"`` (the agent is at least ``elo1`` better, at the test's
            error rates), ``"H0"`` (at most ``elo0``), or None if the match
            reached its most games first.
        llr: the log-likelihood ratio after the last game counted.
    """

    test: SPRT
    match: MatchResult
    decision: Literal["H0", "H1"] | None
    llr: float

    @property
    def games(self) -> int:
        """Games it took."""
        return len(self.match.records)

    def summary(self) -> str:
        """Returns two lines: the test and its outcome after how many games."""
        t = self.test
        lower, upper = t.bounds
        tally = self.match.tally()
        verdict = {
            "H1": f"H1 accepted (elo >= {t.elo1:g})",
            "H0": f"H0 accepted (elo <= {t.elo0:g})",
            None: "no decision: the most games were played",
        }[self.decision]
        return (
            f"SPRT elo0={t.elo0:g} elo1={t.elo1:g} alpha={t.alpha:g} beta={t.beta:g}: "
            f"LLR {self.llr:.2f} (bounds {lower:.2f}, {upper:.2f})\n"
            f"{verdict} after {self.games} games (W/D/L {tally.wins}/{tally.draws}/{tally.losses})"
        )

    def to_dict(self) -> dict:
        """Returns the test, its outcome and the match (every game counted) as a JSON-ready dict."""
        t = self.test
        return {
            "sprt": {"elo0": t.elo0, "elo1": t.elo1, "alpha": t.alpha, "beta": t.beta},
            "decision": self.decision,
            "llr": self.llr,
            "bounds": list(t.bounds),
            "games_played": self.games,
            **self.match.to_dict(),
        }


class _Decided(Exception):
    """Raised by the test's ``on_game`` to stop the match."""


def sprt_match(
    game: Game,
    agent: Player,
    opponent: Player,
    test: SPRT,
    max_games: int = 10_000,
    *,
    seed: int = 0,
    workers: int | None = None,
    backend: Backend = "process",
    address: str | None = None,
    progress: bool = False,
    on_game: OnGame | None = None,
) -> SPRTResult:
    """Plays ``agent`` against ``opponent``, seats alternating, until ``test`` decides.

    The games are those of ``MatchSpec(game, agent, opponent, max_games //
    2, seed)`` (so the first ``n`` are the same as a fixed match's); the test
    counts them in index order, and the match stops (its workers terminated)
    at the first game after which it decides. ``on_game`` sees the counted
    games only, in index order.

    Args:
        game: the game.
        agent: the player whose Elo advantage is tested.
        opponent: the other player.
        test: the :class:`SPRT`.
        max_games: even int >= 2, the most games to play.
        seed: master seed (as :class:`MatchSpec`).
        workers: local processes (as :func:`~mcts_agent.evaluation.run_matches`).
        backend: ``"process"`` or ``"ray"``.
        address: Ray's address, or None.
        progress: show a progress bar over the most games.
        on_game: called with ``(spec, record)`` for each counted game.

    Returns:
        The :class:`SPRTResult`.

    Raises:
        TypeError, ValueError: if an argument is invalid (before any game).
    """
    if not isinstance(test, SPRT):
        raise TypeError(f"test must be an SPRT, got {test!r}")
    require_int("max_games", max_games, 2)
    if max_games % 2:
        raise ValueError(f"max_games must be even (seats alternate), got {max_games}")
    spec = MatchSpec(game, agent, opponent, max_games // 2, seed)
    waiting: dict[int, GameRecord] = {}
    counted: list[GameRecord] = []
    tally = {"win": 0, "draw": 0, "loss": 0}
    llr, decision = 0.0, None

    def count(match_spec: MatchSpec, record: GameRecord) -> None:
        nonlocal llr, decision
        waiting[record.index] = record
        while len(counted) in waiting:
            next_record = waiting.pop(len(counted))
            counted.append(next_record)
            tally[next_record.outcome] += 1
            if on_game is not None:
                on_game(match_spec, next_record)
            results = (tally["win"], tally["draw"], tally["loss"])
            llr, decision = test.llr(*results), test.decision(*results)
            if decision is not None:
                raise _Decided

    try:
        run_matches(
            [spec],
            workers=workers,
            backend=backend,
            address=address,
            progress=progress,
            on_game=count,
        )
    except _Decided:
        pass
    return SPRTResult(test, MatchResult(spec, tuple(counted)), decision, float(llr))
