"""The Go Text Protocol, version 2 (the controller's side): drive a GTP engine such as GNU Go.

Follows G. Farnebäck, "GTP - Go Text Protocol, Version 2, Specification Draft 2"
(https://www.lysator.liu.se/~gunnar/gtp/gtp2-spec-draft2/gtp2-spec.html), sections 2.5-2.7:
the controller writes one command a line, ``id command_name arguments``; the engine answers
``=id result`` (success) or ``?id error message`` (failure), the response ended by an empty
line. :class:`GTPClient` starts the engine as a child process, numbers its commands, checks
that each answer carries its command's id, and waits for each answer at most ``timeout``
seconds. Whatever goes wrong is a :class:`GTPError` that names the command, the engine and
what it wrote on stderr last: a ``?`` answer (:class:`GTPCommandError`), an engine that
exits, a garbled answer, a timeout. :meth:`GTPClient.close` (and leaving a ``with`` block,
and the garbage collector as a last resort) sends ``quit`` and, if the engine has not exited
within a second, kills it; the process is always waited for, so none is left a zombie.

The engine's program is looked up on ``PATH``, then in ``/usr/games`` (:data:`EXTRA_PATHS`:
Debian installs GNU Go as ``/usr/games/gnugo``, which is not on a user's ``PATH``);
:func:`resolve_command` says which package to install when it is missing.

Vertices (``D4``, ``pass``) are :mod:`mcts_agent.gtp`'s :func:`~mcts_agent.gtp.vertex_of`
and :func:`~mcts_agent.gtp.action_of`: the same numbering as PettingZoo's ``classic/go_v5``
actions (``row * N + column``, row 0 on top, ``N * N`` a pass).
"""

from __future__ import annotations

import os
import queue
import shlex
import shutil
import subprocess
import tempfile
import threading
import weakref
from typing import IO, Any

__all__ = [
    "DEFAULT_TIMEOUT",
    "EXTRA_PATHS",
    "PACKAGES",
    "GTPClient",
    "GTPCommandError",
    "GTPError",
    "resolve_command",
]

DEFAULT_TIMEOUT = 60.0
"""Seconds :class:`GTPClient` waits for an answer by default."""

EXTRA_PATHS = ("/usr/games",)
"""Folders searched after ``PATH`` for an engine's program (Debian's games live there)."""

PACKAGES = {"gnugo": "apt-get install gnugo (Debian, Ubuntu), brew install gnu-go (macOS)"}
"""How to install the engines we know of, by program name, for the missing-program error."""

_QUIT_WAIT = 1.0
"""Seconds :meth:`GTPClient.close` waits for the engine to exit after ``quit`` before killing."""


class GTPError(RuntimeError):
    """A GTP engine failed: it exited, answered out of protocol, or took too long to answer."""


class GTPCommandError(GTPError):
    """A GTP engine answered a command with ``? message`` (the command failed).

    Attributes:
        command: the command line sent (without its id), e.g. ``"play b D4"``.
        message: the engine's error message, e.g. ``"illegal move"``.
    """

    def __init__(self, command: str, message: str, engine: str) -> None:
        super().__init__(f"the GTP engine {engine!r} answered {command!r} with '? {message}'")
        self.command = command
        self.message = message


def resolve_command(command: str) -> list[str]:
    """Returns ``command`` split as a shell would, its program made a full path.

    A program with no ``/`` is looked up on ``PATH``, then in :data:`EXTRA_PATHS`
    (``/usr/games``); one with a ``/`` must be an executable file.

    Args:
        command: the engine's command line, e.g. ``"gnugo --mode gtp --level 1"``.

    Returns:
        The arguments, e.g. ``["/usr/games/gnugo", "--mode", "gtp", "--level", "1"]``.

    Raises:
        TypeError: if ``command`` is not a str.
        ValueError: if ``command`` is empty or its quotes are not closed.
        FileNotFoundError: if the program is not found; the message says where it was looked
            for and, for a known engine (:data:`PACKAGES`), how to install it.
    """
    if not isinstance(command, str):
        raise TypeError(
            f"a GTP engine's command is a str such as 'gnugo --mode gtp', got {command!r}"
        )
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise ValueError(f"cannot split the GTP engine command {command!r}: {error}") from None
    if not argv:
        raise ValueError("the GTP engine command is empty; expected e.g. 'gnugo --mode gtp'")
    program = argv[0]
    if "/" in program:
        found = program if os.path.isfile(program) and os.access(program, os.X_OK) else None
        where = "(no such executable file)"
    else:
        found = shutil.which(program) or shutil.which(program, path=os.pathsep.join(EXTRA_PATHS))
        where = f"on PATH or in {', '.join(EXTRA_PATHS)}"
    if found is None:
        install = PACKAGES.get(os.path.basename(program))
        hint = f"; install it: {install}" if install else ""
        raise FileNotFoundError(f"the GTP engine program {program!r} was not found {where}{hint}")
    return [found, *argv[1:]]


def _read_lines(stream: IO[str], lines: queue.Queue) -> None:
    """Puts each line of ``stream`` on ``lines``, then None at the end of the stream."""
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):  # the pipe closed under us by close()
        pass
    lines.put(None)


def _stop(process: subprocess.Popen, quit_first: bool) -> None:
    """Ends ``process``: ``quit`` (if asked and it runs), a second's grace, then kill; waits."""
    if process.poll() is None and quit_first:
        try:
            process.stdin.write("quit\n")
            process.stdin.flush()
            process.wait(_QUIT_WAIT)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
    if process.poll() is None:
        process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout):
        try:
            stream.close()
        except OSError:
            pass


class GTPClient:
    """A GTP version 2 engine run as a child process: send commands, read the answers.

    :meth:`send` sends any command and returns the result; the methods named after the
    commands (:meth:`boardsize`, :meth:`komi`, :meth:`clear_board`, :meth:`play`,
    :meth:`genmove`, :meth:`name`, :meth:`protocol_version`) send those. Use it in a
    ``with`` block or call :meth:`close`.

    Args:
        command: the engine's command line, e.g. ``"gnugo --mode gtp --level 1"``
            (:func:`resolve_command` finds its program).
        timeout: float > 0, most seconds to wait for one answer (:data:`DEFAULT_TIMEOUT`).

    Raises:
        TypeError, ValueError, FileNotFoundError: as :func:`resolve_command`; ValueError for
            a ``timeout`` that is not a positive number.
        GTPError: if the process cannot be started.
    """

    def __init__(self, command: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise ValueError(f"timeout is a number of seconds > 0, got {timeout!r}")
        argv = resolve_command(command)
        self.command = command
        self.timeout = float(timeout)
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        try:
            self._process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as error:
            self._stderr.close()
            raise GTPError(f"cannot start the GTP engine {command!r}: {error}") from error
        self._lines: queue.Queue = queue.Queue()
        self._reader = threading.Thread(
            target=_read_lines, args=(self._process.stdout, self._lines), daemon=True
        )
        self._reader.start()
        self._next_id = 1
        self._finalizer = weakref.finalize(self, _stop, self._process, True)

    @property
    def pid(self) -> int:
        """The engine process's id."""
        return self._process.pid

    @property
    def running(self) -> bool:
        """True until the engine process has exited."""
        return self._process.poll() is None

    def _stderr_tail(self) -> str:
        """The last lines the engine wrote on stderr, for error messages ("" if none)."""
        try:
            self._stderr.flush()
            self._stderr.seek(0)
            text = self._stderr.read()[-500:].strip()
        except (OSError, ValueError):
            return ""
        return f"; its stderr ends: {text!r}" if text else ""

    def _died(self, command: str, when: str) -> GTPError:
        """The error for an engine that exited (waits for it, so it is not left a zombie)."""
        code = self._process.wait()
        tail = self._stderr_tail()
        self.close()
        return GTPError(
            f"the GTP engine {self.command!r} exited with status {code} {when} {command!r}{tail}"
        )

    def send(self, command: str) -> str:
        """Sends one command and returns its result: the answer's text after ``=id``.

        Args:
            command: a command line without an id, e.g. ``"genmove b"``.

        Returns:
            The result with its leading and trailing white space removed (a multi-line
            result keeps its inner newlines): ``"D4"``, ``""``.

        Raises:
            ValueError: if ``command`` is not one non-empty line.
            GTPCommandError: if the engine answers ``? message``.
            GTPError: if the client was closed, the engine exits before answering, answers
                without the command's id or out of protocol, or does not answer within
                ``timeout`` seconds (the engine is then killed: its state is unknown).
        """
        if not isinstance(command, str) or "\n" in command or not command.strip():
            raise ValueError(f"a GTP command is one non-empty line, got {command!r}")
        if self._finalizer.alive is False:
            raise GTPError(f"the GTP client of {self.command!r} is closed; cannot send {command!r}")
        ident = self._next_id
        self._next_id += 1
        try:
            self._process.stdin.write(f"{ident} {command}\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died(command, "before it could be sent") from None
        lines = []
        while True:
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                tail = self._stderr_tail()
                self.close()
                raise GTPError(
                    f"the GTP engine {self.command!r} did not answer {command!r} within "
                    f"{self.timeout:g} s (it was stopped){tail}"
                ) from None
            if line is None:
                raise self._died(command, "while answering")
            line = line.rstrip("\r\n")
            if not lines and not line.strip():
                continue  # blank lines before a response
            if lines and not line.strip():
                break  # the empty line that ends the response
            lines.append(line)
        return self._result(command, ident, lines)

    def _result(self, command: str, ident: int, lines: list[str]) -> str:
        head = lines[0]
        status, rest = head[:1], head[1:]
        given = rest.split(maxsplit=1)[0] if rest[:1].isdigit() else ""
        if status not in "=?" or given != str(ident):
            self.close()
            raise GTPError(
                f"the GTP engine {self.command!r} answered {command!r} (id {ident}) out of "
                f"protocol: {chr(10).join(lines)!r} (expected '={ident} ...' or '?{ident} ...')"
            )
        text = "\n".join([rest[len(given) :], *lines[1:]]).strip()
        if status == "?":
            raise GTPCommandError(command, text, self.command)
        return text

    def protocol_version(self) -> str:
        """Sends ``protocol_version``; returns the engine's answer (``"2"``)."""
        return self.send("protocol_version")

    def name(self) -> str:
        """Sends ``name``; returns the engine's name (``"GNU Go"``)."""
        return self.send("name")

    def boardsize(self, size: int) -> None:
        """Sends ``boardsize size`` (the board is then empty, per the spec)."""
        self.send(f"boardsize {int(size)}")

    def clear_board(self) -> None:
        """Sends ``clear_board``: the empty board, no captures, no move history."""
        self.send("clear_board")

    def komi(self, komi: float) -> None:
        """Sends ``komi komi`` (points given to white)."""
        self.send(f"komi {float(komi):g}")

    def play(self, colour: str, vertex: str) -> None:
        """Sends ``play colour vertex``, e.g. ``play("b", "D4")``, ``play("w", "pass")``.

        Raises:
            GTPCommandError: if the engine refuses the move (``illegal move``).
        """
        self.send(f"play {colour} {vertex}")

    def genmove(self, colour: str) -> str:
        """Sends ``genmove colour``; returns the engine's move in lower case.

        Returns:
            A vertex (``"d4"``), ``"pass"`` or ``"resign"``.
        """
        return self.send(f"genmove {colour}").lower()

    def close(self) -> None:
        """Sends ``quit``, waits a second, kills the engine if it still runs; waits for it.

        Safe to call more than once.
        """
        if self._finalizer.alive:
            self._finalizer()
            self._reader.join(timeout=_QUIT_WAIT)
        try:
            self._stderr.close()
        except OSError:
            pass

    def __enter__(self) -> GTPClient:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
