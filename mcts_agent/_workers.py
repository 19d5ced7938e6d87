"""Worker processes: what each does when it starts, and how a pool of them is stopped at once.

Every worker process of the package (the games and episodes of
:mod:`mcts_agent.evaluation`, the searches of ``MCTS(workers=k)``,
:mod:`mcts_agent.parallel`) runs :func:`start_worker` first:

- Ctrl-C, which a terminal sends to every process of its group, is ignored:
  the parent decides, and ends its workers (:func:`stop_pools`);
- ``SIGTERM`` ends the worker (a handler inherited through ``fork``, such as
  the command line's, which turns it into Ctrl-C, is reset);
- a daemon thread ends the worker within :data:`PARENT_POLL` seconds once the
  process that started it is gone (killed with ``SIGKILL``, crashed), so that
  no worker computes on, or holds that process's terminal or pipes open, after
  it. The process watched is the one that made the pool, not the worker's
  parent: a worker started by ``forkserver`` is the fork server's child, and
  the fork server stays as long as a worker does. On POSIX only (Windows has
  no such watch).
"""

from __future__ import annotations

import multiprocessing.connection
import os
import signal
import threading
import time
from collections.abc import Iterable
from typing import Any

PARENT_POLL = 0.5
"""Seconds between a worker's checks that its parent process is still there."""

STOP_TIMEOUT = 1.0
"""Seconds a stopped worker process has to exit after ``SIGTERM``, before ``SIGKILL``."""


def start_worker(main: int) -> None:
    """Prepares this worker process (module docstring): call it first, in the worker.

    Args:
        main: the process id of the process that started the worker (its
            ``os.getpid()``, given to the pool's ``initargs``): the worker ends
            when that process is gone.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if os.name == "posix":
        threading.Thread(
            target=_exit_without, args=(main,), name="mcts-agent-parent-watch", daemon=True
        ).start()


def _exit_without(main: int) -> None:
    """Ends this process (status 1, no clean-up) once process ``main`` is gone."""
    while _running(main):
        time.sleep(PARENT_POLL)
    os._exit(1)


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        if os.path.isdir("/proc/self"):
            return False
    except OSError:
        pass
    try:  # no /proc (macOS): ask the kernel
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def stop_pools(pools: Iterable[Any]) -> None:
    """Shuts process pools down without waiting for running tasks: terminates their processes.

    ``shutdown(cancel_futures=True)`` cancels only the tasks not yet started
    and waits for the running ones, so the processes of every pool are first
    sent ``SIGTERM`` (``SIGKILL`` to those still alive :data:`STOP_TIMEOUT`
    seconds later); once they are dead, each pool's thread sees it and
    ``shutdown`` returns. Python 3.14's ``terminate_workers`` does the same;
    before it, the processes are only reachable as ``pool._processes``.

    Args:
        pools: :class:`concurrent.futures.ProcessPoolExecutor` instances.
    """
    pools = list(pools)
    processes = [p for pool in pools for p in (pool._processes or {}).values()]
    for stop in ("terminate", "kill"):
        alive = {p.sentinel: p for p in processes if p.exitcode is None}
        for process in alive.values():
            getattr(process, stop)()
        # Wait on the sentinels, not join(): the pool's thread may be reaping them.
        deadline = time.monotonic() + STOP_TIMEOUT
        while alive and time.monotonic() < deadline:
            for sentinel in multiprocessing.connection.wait(
                list(alive), deadline - time.monotonic()
            ):
                del alive[sentinel]
    for pool in pools:
        pool.shutdown(wait=True, cancel_futures=True)  # quick: its processes are dead
