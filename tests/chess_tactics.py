"""Chess tactics with Stockfish-checked solutions: mates in 1 and 2, hanging pieces, forks.

:data:`TACTICS` holds positions for the tactical benchmark of the chess defaults
(``benchmarks/chess_tactics.py``, ``tests/test_chess_tactics.py``). Each is a
:class:`Tactic`: its FEN, its category, the moves that solve it (UCI) and where it comes
from. The solutions are Stockfish's (``benchmarks/chess_tactics_check.py`` checks every
one at depth 18): for ``mate1`` and ``mate2`` every move that mates in the fewest moves
(1 or 2); for ``hanging`` (a piece left en prise) and ``fork`` every move within 100
centipawns of the best one, which wins at least 200 centipawns, with every other move at
least 250 centipawns worse. The positions are composed on well-known patterns (the
source says which); the mirrored ones (``board.mirror()``) give black the same tactic.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["CATEGORIES", "MATE_DISTANCE", "TACTICS", "Tactic"]

CATEGORIES = ("mate1", "mate2", "hanging", "fork")
"""The kinds of tactic, in the order tables list them."""

MATE_DISTANCE = {"mate1": 1, "mate2": 2}
"""Moves to mate (the solver's own moves) of the mate categories."""


class Tactic(NamedTuple):
    """A tactical position and its solutions.

    Attributes:
        fen: str, the position (FEN); the side to move has the tactic.
        category: str, one of :data:`CATEGORIES`.
        solutions: tuple of str, the moves (UCI) that solve it, as Stockfish says.
        source: str, the pattern or game it comes from.
    """

    fen: str
    category: str
    solutions: tuple[str, ...]
    source: str


TACTICS: tuple[Tactic, ...] = (
    Tactic(
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "mate1", ("d1d8",), "back-rank mate with a rook"
    ),
    Tactic(
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "mate1",
        ("h5f7",),
        "Scholar's mate, 4.Qxf7#",
    ),
    Tactic(
        "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",
        "mate1",
        ("d8h4",),
        "Fool's mate, 2...Qh4#",
    ),
    Tactic("6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1", "mate1", ("g5f7",), "smothered mate, Nf7#"),
    Tactic("k7/8/1K6/8/8/8/7Q/8 w - - 0 1", "mate1", ("h2h8",), "queen and king against king"),
    Tactic("7k/R7/5N2/8/8/8/8/6K1 w - - 0 1", "mate1", ("a7h7",), "Arabian mate, Rh7#"),
    Tactic(
        "6k1/5ppp/8/8/8/2B5/6Q1/6K1 w - - 0 1",
        "mate1",
        ("g2a8", "g2g7"),
        "queen and bishop on the long diagonal, Qxg7#",
    ),
    Tactic("3r2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1", "mate1", ("d8d1",), "back-rank mate for black"),
    Tactic(
        "7k/4P1pp/8/8/8/8/8/6K1 w - - 0 1",
        "mate1",
        ("e7e8q", "e7e8r"),
        "mate by promotion on the back rank",
    ),
    Tactic("6k1/5p1p/5PpQ/8/8/8/8/6K1 w - - 0 1", "mate1", ("h6g7",), "Lolli's mate pattern, Qg7#"),
    Tactic(
        "6k1/8/8/8/6n1/8/6PP/6RK b - - 0 1", "mate1", ("g4f2",), "smothered mate (colours mirrored)"
    ),
    Tactic(
        "6k1/8/8/8/8/5n2/r7/7K b - - 0 1", "mate1", ("a2h2",), "Arabian mate (colours mirrored)"
    ),
    Tactic("7k/8/8/6K1/8/8/8/R7 w - - 0 1", "mate2", ("g5g6",), "king and rook against king"),
    Tactic(
        "5r1k/4Nppp/8/7Q/8/8/8/K3R3 w - - 0 1",
        "mate2",
        ("h5h7",),
        "Anastasia's mate: Qxh7+ Kxh7 Rh1#",
    ),
    Tactic(
        "r5k1/5ppp/8/8/8/8/1Q3PPP/1R4K1 w - - 0 1",
        "mate2",
        ("b2b8",),
        "back-rank deflection: Qb8+ Rxb8 Rxb8#",
    ),
    Tactic(
        "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", "mate2", ("a2a7", "b1b7"), "two rooks, the lawnmower"
    ),
    Tactic(
        "r7/8/8/8/6k1/8/8/7K b - - 0 1",
        "mate2",
        ("g4g3",),
        "king and rook against king (colours mirrored)",
    ),
    Tactic(
        "k3r3/8/8/8/7q/8/4nPPP/5R1K b - - 0 1",
        "mate2",
        ("h4h2",),
        "Anastasia's mate: Qxh7+ Kxh7 Rh1# (colours mirrored)",
    ),
    Tactic(
        "1r4k1/1q3ppp/8/8/8/8/5PPP/R5K1 b - - 0 1",
        "mate2",
        ("b7b1",),
        "back-rank deflection: Qb8+ Rxb8 Rxb8# (colours mirrored)",
    ),
    Tactic(
        "1r4k1/r7/8/8/8/8/8/7K b - - 0 1",
        "mate2",
        ("a7a2", "b8b2"),
        "two rooks, the lawnmower (colours mirrored)",
    ),
    Tactic(
        "rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "hanging",
        ("f3h4",),
        "queen left en prise, Nxh4",
    ),
    Tactic(
        "rnb1kbnr/pppp1ppp/8/4q3/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 3",
        "hanging",
        ("d4e5",),
        "queen left to a pawn",
    ),
    Tactic(
        "rnbqkb1r/pppp1ppp/5n2/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 3 3",
        "hanging",
        ("f6h5",),
        "queen to h5 into Nxh5",
    ),
    Tactic(
        "r3k2r/ppp2ppp/8/3q4/8/2N5/PPP2PPP/R3K2R w KQkq - 0 1",
        "hanging",
        ("c3d5",),
        "queen attacked by knight? Nxd5",
    ),
    Tactic(
        "4k3/8/8/3r4/8/8/P5BP/4K3 w - - 0 1",
        "hanging",
        ("g2d5",),
        "rook left to a bishop on the long diagonal",
    ),
    Tactic("4k3/pp6/4n3/8/3Q4/8/8/4K3 b - - 0 1", "hanging", ("e6d4",), "queen left to a knight"),
    Tactic(
        "rnbqkbnr/ppp1pppp/8/3p4/4Q3/8/PPPP1PPP/RNB1KBNR b KQkq - 0 3",
        "hanging",
        ("d5e4",),
        "queen left to a pawn (colours mirrored)",
    ),
    Tactic(
        "r3k2r/ppp2ppp/2n5/8/3Q4/8/PPP2PPP/R3K2R b KQkq - 0 1",
        "hanging",
        ("c6d4",),
        "queen left to a knight (colours mirrored)",
    ),
    Tactic("4k3/pp6/8/3r4/8/4N3/PP6/4K3 w - - 0 1", "hanging", ("e3d5",), "rook left to a knight"),
    Tactic("4k3/pp3b2/8/8/2Q5/8/PP6/4K3 b - - 0 1", "hanging", ("f7c4",), "queen left to a bishop"),
    Tactic(
        "4k3/1q6/8/8/4N3/8/PP6/4K3 w - - 0 1",
        "fork",
        ("e4d6",),
        "knight fork of king and queen, Nd6+",
    ),
    Tactic(
        "r3k3/8/8/1N6/8/8/PP6/4K3 w - - 0 1",
        "fork",
        ("b5c7",),
        "knight fork of king and rook, Nc7+",
    ),
    Tactic(
        "2q3k1/8/8/3N4/8/8/PP6/6K1 w - - 0 1",
        "fork",
        ("d5e7",),
        "knight fork of king and queen, Ne7+",
    ),
    Tactic(
        "4k3/pp6/8/4n3/8/8/1Q6/4K3 b - - 0 1",
        "fork",
        ("e5d3",),
        "knight fork of king and queen (colours mirrored)",
    ),
    Tactic(
        "4k3/pp6/8/8/1n6/8/8/R3K3 b - - 0 1",
        "fork",
        ("b4c2",),
        "knight fork of king and rook (colours mirrored)",
    ),
    Tactic(
        "6k1/pp6/8/8/3n4/8/8/2Q3K1 b - - 0 1",
        "fork",
        ("d4e2",),
        "knight fork of king and queen (colours mirrored)",
    ),
    Tactic(
        "r3k3/8/8/3N4/8/8/PP6/4K3 w - - 0 1",
        "fork",
        ("d5c7",),
        "knight fork of king and rook, Nc7+",
    ),
    Tactic(
        "2q3k1/8/8/5N2/8/8/PP6/6K1 w - - 0 1",
        "fork",
        ("f5e7",),
        "knight fork of king and queen, Ne7+",
    ),
    Tactic(
        "4k3/pp6/8/8/3n4/8/8/R3K3 b - - 0 1",
        "fork",
        ("d4c2",),
        "knight fork of king and rook (colours mirrored)",
    ),
    Tactic(
        "6k1/pp6/8/8/5n2/8/8/2Q3K1 b - - 0 1",
        "fork",
        ("f4e2",),
        "knight fork of king and queen (colours mirrored)",
    ),
)
