"""Issue 33's yardstick: MCTSAgent against a GTP engine (GNU Go) in PettingZoo's go.

``MCTSAgent`` (planning on :class:`~mcts_agent.envs.go.GoModel` with its go defaults: GRAVE,
:func:`~mcts_agent.defaults.go_defaults`, ``--exploration``) at ``--seconds`` a move
against ``--opponent`` (default: GNU Go 3.8 at level 1, Chinese rules, dead stones captured:
the issue's first target, score >= 0.5 at <= 5 s a move) on ``classic/go_v5`` at
``--size`` (9) and ``--komi`` (7.5), seats alternating, ``--games`` games in all. The match is
:func:`mcts_agent.evaluation.play_match` (game ``i`` seeded from ``(--seed, i)``) on
``--jobs`` processes; the engine is a ``gtp:COMMAND`` player
(:mod:`mcts_agent.evaluation.gtp_players`: a resignation is a loss for the side that resigns).

Prints the agent's score (a draw half a point; go_v5 has none) with its 95% Wilson interval
(:func:`~mcts_agent.evaluation.score_interval`), and writes one JSON line per game to
``--jsonl``: the agent's colour, the winner, the moves as GTP vertices, how the game ended
(``"score"`` after two passes, with the final area score, black's minus white's minus komi,
by :meth:`GoModel.score`; ``"resign"`` otherwise) and the game's seconds per move (both
sides' thinking).

Run: ``python benchmarks/go_matches.py --games 100 --seconds 5 --jobs 2 --jsonl /tmp/go.jsonl``
(or ``--iterations 10000`` for a fixed number of playouts a move, whatever else runs).
(GNU Go: ``apt-get install gnugo``; it lives in ``/usr/games``, found there).
"""

import argparse

from logged_matches import play_logged_match

from mcts_agent.defaults import GO_EXPLORATION
from mcts_agent.envs.go import GoModel
from mcts_agent.evaluation import MCTSPlayer, make_game, make_player
from mcts_agent.gtp import vertex_of

DEFAULT_OPPONENT = "gtp:gnugo --mode gtp --level 1 --chinese-rules --capture-all-dead"


def game_line(record, size: int, komi: float) -> dict:
    """The JSON line of one game (``GameRecord``): replays its moves on ``GoModel``."""
    model = GoModel(size, komi)
    state = model.initial_state()
    for move in record.moves:
        state = model.step(state, move).next_state
    ended = "score" if state.passes >= 2 else "resign"
    agent_colour = ("black", "white")[record.agent_seat]
    winner = agent_colour if record.outcome == "win" else ("white", "black")[record.agent_seat]
    return {
        "index": record.index,
        "agent": agent_colour,
        "winner": winner,
        "outcome": record.outcome,
        "ended": ended,
        "score": model.score(state) if ended == "score" else None,
        "moves": [vertex_of(move, size) for move in record.moves],
        "seconds_per_move": record.seconds / max(1, len(record.moves)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games in all, even (default 10)")
    parser.add_argument("--seconds", type=float, default=5.0, help="agent's seconds a move")
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="the agent's playouts a move instead of --seconds (immune to a busy machine)",
    )
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.5, help="komi (default 7.5)")
    parser.add_argument("--opponent", default=DEFAULT_OPPONENT, help="an agent spec")
    parser.add_argument(
        "--exploration",
        type=float,
        default=GO_EXPLORATION,
        help=f"the agent's c (default {GO_EXPLORATION:g}: MCTSAgent's go default)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    parser.add_argument("--jsonl", default=None, help="write one JSON line per game here")
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        parser.error(f"--games is even and >= 2 (half in each seat), got {args.games}")
    game = make_game(f"classic/go_v5:board_size={args.size},komi={args.komi}")
    opponent = make_player(args.opponent, game)
    # MCTSPlayer passes an exploration constant, which would override the agent's go default:
    # pass the default itself (--exploration), with the rest of go_defaults (GRAVE) unchanged.
    budget = {"time_limit": args.seconds} if args.iterations is None else {}
    agent = MCTSPlayer(args.iterations, exploration=args.exploration, **budget)
    _, score = play_logged_match(
        game,
        agent,
        opponent,
        args.games,
        lambda record: game_line(record, args.size, args.komi),
        args.jsonl,
        seed=args.seed,
        workers=args.jobs,
    )
    budget_text = (
        f"{args.seconds:g} s a move" if args.iterations is None else f"{args.iterations} playouts"
    )
    print(
        f"MCTSAgent ({budget_text}) vs {args.opponent}, {args.size}x{args.size} "
        f"komi {args.komi:g}: {score}"
    )


if __name__ == "__main__":
    main()
