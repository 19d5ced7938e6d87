"""A run of games with each game logged as it finishes: the CLI's error handling.

``evaluate`` and ``tournament`` play through :func:`_run_logged`, which turns Ctrl-C, a dead
worker, a lost cluster or a full disk into one line saying how many games were kept and
where, and an exit status (:data:`EXIT_INTERRUPTED` after Ctrl-C, 1 after a failure).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any, TextIO

from mcts_agent.cli.options import games_log_path
from mcts_agent.evaluation import GameLog, WorkerDiedError, WorkerDiedWarning

EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as shells report it)."""


def _result_files(
    args: argparse.Namespace, result: Any
) -> list[tuple[str | None, Callable[[str], None]]]:
    """``report``'s ``(path, write)`` pairs of ``--json``, ``--csv`` and ``--plot``.

    ``result``: a :class:`~mcts_agent.evaluation.SweepResult` or
    :class:`~mcts_agent.evaluation.TournamentResult` (``save_json``, ``save_csv``, ``plot``).
    """
    return [(args.json, result.save_json), (args.csv, result.save_csv), (args.plot, result.plot)]


def _kept(log: GameLog, total: int) -> str:
    if not log.kept:
        return f"no game of {total} had finished"
    return f"{log.kept} of {total} games kept in {log.path} (JSON Lines, one game per line)"


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"mcts-agent: warning: {message}", file=sys.stderr)


def _run_logged(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    out: TextIO,
    total: int,
    play: Callable[[Callable], Any],
    report: Callable[[Any, float], list[tuple[str | None, Callable[[str], None]]]],
) -> int:
    """Runs ``play(on_game)`` with every game logged as it finishes; the CLI's error handling.

    ``report(result, seconds)`` prints the result and returns the
    ``(path, write)`` pairs of the final files (written if ``path`` is given).
    With ``--pgn`` (chess), each game is also appended to that file as PGN
    (:class:`~mcts_agent.pgn.PGNLog`). Returns the exit status (see
    :func:`mcts_agent.cli.main`).
    """
    log = GameLog(games_log_path(args.json, args.jsonl))
    on_game = log.write
    if args.pgn is not None:  # chess (checked): python-chess is there
        from mcts_agent.pgn import PGNLog

        pgn = PGNLog(args.pgn, event=parser.prog)

        def on_game(spec: Any, record: Any) -> None:
            log.write(spec, record)
            pgn.write(spec, record)

    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", WorkerDiedWarning)
            warnings.showwarning = _show_warning
            result = play(on_game)
        for path, write in report(result, time.perf_counter() - start):
            if path is not None:
                try:
                    write(path)
                except OSError as error:
                    raise OSError(
                        error.errno, f"{error.strerror}; {path} is left as it was", path
                    ) from error
                print(f"wrote {path}", file=out)
    except KeyboardInterrupt:
        log.close()
        print(f"mcts-agent: interrupted; {_kept(log, total)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ConnectionError as error:
        log.close()
        if log.kept:  # a cluster lost during the run
            print(f"mcts-agent: error: {error}; {_kept(log, total)}", file=sys.stderr)
            return 1
        parser.error(f"argument --address: {error}")  # Ray found no cluster: before any game
    except (OSError, WorkerDiedError) as error:
        log.close()
        print(f"mcts-agent: error: {error}; {_kept(log, total)}", file=sys.stderr)
        return 1
    except BaseException:
        log.close()
        print(f"mcts-agent: stopped; {_kept(log, total)}", file=sys.stderr)
        raise
    log.close()
    if args.json is None and args.jsonl is None:
        if log.path is not None:
            os.unlink(log.path)  # the temporary log: the run completed and nothing asked for it
    else:
        print(f"wrote {log.path} (each game as it finished)", file=out)
    if args.pgn is not None:
        print(f"wrote {args.pgn} ({pgn.kept} games as PGN)", file=out)
    return 0
