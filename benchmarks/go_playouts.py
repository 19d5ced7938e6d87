"""Light Go playouts per second on one core, 9x9: ours in C and in Python, GNU Go's, OpenSpiel's.

Measured in one run, the peers interleaved, ``--repeats`` times, medians printed:

* ``GoModel.rollout`` in C (``mcts_agent/_go.c``, through ``_core.call_native``: the capsule
  the compiled search uses) from the empty board, ``--native`` playouts per repeat;
* ``GoModel.rollout`` in Python, the same playouts, ``--python`` per repeat;
* both again with ``GoModel(9, capture_heuristic=True)``: the playout with the capture and
  atari-escape rule (``docs/guides/go.md``, "The capture heuristic");
* GNU Go 3.8's Monte Carlo mode (``gnugo --mode gtp --monte-carlo --boardsize 9 --level 1
  --mc-games-per-level K``): GNU Go plays no Monte Carlo game in the opening (its fuseki
  moves come first; ``genmove`` from the empty board takes the same time for any K), so the
  position is the empty board with 8 stones played (``GNUGO_SETUP``), and the games per
  second are ``(K_big - K_small) * genmoves / (t_big - t_small)`` (GNU Go plays
  ``mc_games_per_level * level`` games per genmove; the difference cancels the process start
  and the non-Monte-Carlo work). GNU Go's playouts use its 3x3 Monte Carlo patterns
  (``--mc-patterns``, "mc_mogo_classic" by default): heavier than light playouts;
* OpenSpiel's C++ MCTS (``pyspiel.MCTSBot`` on ``go(board_size=9)``, a
  ``RandomRolloutEvaluator`` of one rollout: uniformly random legal moves, eyes filled, up to
  the game's ``max_game_length``), ``--openspiel`` simulations from the initial state:
  rollouts per second, its tree's work included.

Times are wall clock (``time.perf_counter``) on a machine that may be shared: compare within
one run. A peer that is missing is skipped with its reason.

Run::

    python benchmarks/go_playouts.py --repeats 5
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable

from mcts_agent import compiled
from mcts_agent.envs.go import GoModel

GNUGO = "/usr/games/gnugo"
GNUGO_SETUP = ("E5", "E3", "C4", "G4", "D3", "F5", "F6", "G6")
"""The moves (black first) before GNU Go's timed genmoves: past its opening book."""


def ours_native(count: int, capture_heuristic: bool = False) -> float:
    """Playouts per second of the C light playout from the empty 9x9 board."""
    model = GoModel(9, capture_heuristic=capture_heuristic)
    capsule = model.native_rollout()
    state = model.initial_state()
    rng = random.Random(0)
    start = time.perf_counter()
    compiled._core.call_native(capsule, state, rng, 10**9, 1.0, count)
    return count / (time.perf_counter() - start)


def ours_python(count: int, capture_heuristic: bool = False) -> float:
    """Playouts per second of the Python light playout from the empty 9x9 board."""
    model = GoModel(9, capture_heuristic=capture_heuristic)
    state = model.initial_state()
    rng = random.Random(0)
    start = time.perf_counter()
    for _ in range(count):
        model.rollout(state, rng, 10**9, 1.0)
    return count / (time.perf_counter() - start)


def gnugo_seconds(games_per_level: int, genmoves: int) -> float:
    """Seconds of a GNU Go process playing the setup moves then ``genmoves`` genmoves."""
    commands = ["boardsize 9", "clear_board"]
    colours = "bw"
    commands += [f"play {colours[i % 2]} {move}" for i, move in enumerate(GNUGO_SETUP)]
    commands += [f"genmove {colours[i % 2]}" for i in range(genmoves)] + ["quit"]
    start = time.perf_counter()
    subprocess.run(
        [GNUGO, "--mode", "gtp", "--monte-carlo", "--boardsize", "9", "--level", "1"]
        + ["--mc-games-per-level", str(games_per_level)],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - start


def gnugo(games: int) -> float:
    """GNU Go's Monte Carlo games per second (the difference of two runs, module docstring)."""
    small = gnugo_seconds(10, 2)
    big = gnugo_seconds(games // 2, 2)
    return (2 * (games // 2) - 2 * 10) / (big - small)


def openspiel(simulations: int) -> float:
    """OpenSpiel MCTSBot simulations (one random rollout each) per second on 9x9 Go."""
    import pyspiel

    game = pyspiel.load_game("go", {"board_size": 9})
    evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, simulations, 10**9, False, 0, False)
    state = game.new_initial_state()
    start = time.perf_counter()
    bot.step(state)
    return simulations / (time.perf_counter() - start)


def peer_reason() -> dict[str, str]:
    """Why each peer is skipped ("" when it runs)."""
    reasons = {
        "ours (C)": "",
        "ours (C, capture)": "",
        "ours (Python)": "",
        "ours (Python, capture)": "",
        "GNU Go --monte-carlo": "",
        "OpenSpiel": "",
    }
    if compiled._core is None:
        reasons["ours (C)"] = reasons["ours (C, capture)"] = "the compiled core is not built"
    if shutil.which(GNUGO) is None:
        reasons["GNU Go --monte-carlo"] = f"{GNUGO} is not installed"
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        reasons["OpenSpiel"] = "pyspiel is not installed"
    return reasons


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--native", type=int, default=20_000, help="C playouts per repeat")
    parser.add_argument("--python", type=int, default=200, help="Python playouts per repeat")
    parser.add_argument("--gnugo", type=int, default=40_000, help="GNU Go games per repeat")
    parser.add_argument("--openspiel", type=int, default=2_000, help="OpenSpiel simulations")
    args = parser.parse_args()
    runs: dict[str, Callable[[], float]] = {
        "ours (C)": lambda: ours_native(args.native),
        "ours (C, capture)": lambda: ours_native(args.native, capture_heuristic=True),
        "ours (Python)": lambda: ours_python(args.python),
        "ours (Python, capture)": lambda: ours_python(args.python, capture_heuristic=True),
        "GNU Go --monte-carlo": lambda: gnugo(args.gnugo),
        "OpenSpiel": lambda: openspiel(args.openspiel),
    }
    reasons = peer_reason()
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, run in runs.items():
            if not reasons[name]:
                rates[name].append(run())
    print(f"9x9 playouts per second, one core, median of {args.repeats} interleaved repeats")
    print(f"  {'player':22s} {'playouts/s':>12s}  {'vs ours (C)':>11s}")
    reference = statistics.median(rates["ours (C)"]) if rates["ours (C)"] else None
    for name in runs:
        if reasons[name]:
            print(f"  {name:22s} skipped: {reasons[name]}")
            continue
        median = statistics.median(rates[name])
        ratio = f"{median / reference:10.3f}x" if reference else ""
        print(f"  {name:22s} {median:12,.0f}  {ratio:>11s}")
    print(
        "  (ours: light playouts from the empty board, 'capture': with the capture heuristic; "
        "GNU Go: its pattern playouts from an 8-stone position; "
        "OpenSpiel: MCTS simulations with one uniform rollout each)"
    )


if __name__ == "__main__":
    main()
