"""The return against the search budget: ``MCTSAgent(iterations=n)`` on one env, n by n.

Issue 31 asks for "the curve against the budget" of the continuous envs. For each
``--iterations`` n this plays ``--episodes`` episodes with ``MCTSAgent(iterations=n)``,
every other option the agent's default (the same episodes for every n:
:func:`~mcts_agent.evaluation.planning.plan_episodes` seeds episode i from ``--seed`` and
i), and prints the mean return with its 95% Student-t interval, the success rate where
the env has a goal, and the agent's seconds per step. An iteration budget, unlike a time
limit, gives the same trees on any machine; the seconds per step say what it costs here.

Run: ``python benchmarks/budget_curve.py --env Pendulum-v1 --iterations 10 30 100 300
--episodes 5`` (``--plot curve.png`` draws it with matplotlib; ``--processes 2`` plays
episodes in parallel).
"""

from __future__ import annotations

import argparse
import sys

from mcts_agent.evaluation.planning import plan_episodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, help="a Gymnasium id, e.g. Pendulum-v1")
    parser.add_argument(
        "--iterations", type=int, nargs="+", default=[10, 30, 100, 300], help="budgets"
    )
    parser.add_argument("--episodes", type=int, default=5, help="episodes per budget")
    parser.add_argument("--seed", type=int, default=0, help="the master seed")
    parser.add_argument("--processes", type=int, default=1, help="episodes in parallel")
    parser.add_argument("--plot", help="a PNG file for the curve (matplotlib)")
    args = parser.parse_args(argv)
    rows = []
    print(f"{args.env}: {args.episodes} episodes a budget, MCTSAgent's defaults")
    print(f"{'iterations':>10}  {'mean return':>11}  {'95% interval':>21}  {'success':>7}  s/step")
    for n in args.iterations:
        result = plan_episodes(
            args.env, {"iterations": n}, args.episodes, seed=args.seed, workers=args.processes
        )
        mean, low, high = result.mean_return()
        rate = result.success_rate
        steps = sum(r.steps for r in result.records)
        seconds = sum(r.seconds for r in result.records) / steps
        success = "-" if rate is None else f"{rate:.2f}"
        print(
            f"{n:>10}  {mean:>11.1f}  [{low:>8.1f}, {high:>8.1f}]  {success:>7}  {seconds:.4f}",
            flush=True,
        )
        rows.append((n, mean, low, high))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axes = plt.subplots(figsize=(5, 3.5))
        budgets = [r[0] for r in rows]
        axes.plot(budgets, [r[1] for r in rows], marker="o")
        axes.fill_between(budgets, [r[2] for r in rows], [r[3] for r in rows], alpha=0.25)
        axes.set_xscale("log")
        axes.set_xlabel("iterations per step")
        axes.set_ylabel("mean return (95% interval)")
        axes.set_title(args.env)
        figure.tight_layout()
        figure.savefig(args.plot, dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
