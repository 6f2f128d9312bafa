"""The client side of the protocol: start an engine process and talk to it (``player`` plays it as
a ``Player``: ``engine:COMMAND`` in a player spec, so ``bluegray match`` can run any engine)::

    with Engine("bluegray engine") as engine:
        engine.position(PositionCommand(RuleSet.parse("cooper")))
        move = engine.go(Go(depth=3)).move
"""

from __future__ import annotations

import collections
import contextlib
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Final

from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.protocol import (
    Go,
    Info,
    Option,
    PositionCommand,
    ProtocolError,
    Score,
    parse_bestmove,
    parse_integer,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "Engine",
    "EngineError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "GoResult",
]

DEFAULT_TIMEOUT: Final = 10.0
"""Seconds to wait for an answer that should come at once (``bgiok``, ``readyok``), and the
grace beyond a time-limited search's own time before ``go`` gives up."""
QUIT_GRACE: Final = 2.0
"""Seconds an engine gets to exit after ``quit`` before it is killed."""
LONGEST_WAIT: Final = 86400.0
"""Seconds one wait for a line may take: longer waits (a ``go movetime`` of years) are made of
several, since the platform's clock refuses a timeout that far ahead."""


class EngineError(BlueGrayError):
    """An engine that cannot be started, breaks the protocol, or rejects a command."""


class EngineTerminatedError(EngineError):
    """The engine process exited while it was expected to answer."""


class EngineTimeoutError(EngineError):
    """The engine did not answer in time."""


@dataclass(frozen=True)
class GoResult:
    """What a ``go`` brought back: the move (``None`` for ``bestmove (none)``) and every
    ``info`` line before it."""

    move: Move | None
    infos: tuple[Info, ...]

    @property
    def strings(self) -> tuple[str, ...]:
        """The ``info string`` messages (errors, a finished game)."""
        return tuple(info.string for info in self.infos if info.string is not None)

    @property
    def last(self) -> Info | None:
        """The last report of the search (the deepest)."""
        reports = [info for info in self.infos if info.depth is not None]
        return reports[-1] if reports else None

    @property
    def score(self) -> Score | None:
        scored = [info.score for info in self.infos if info.score is not None]
        return scored[-1] if scored else None


class Engine:
    """A running engine process, spoken to through the protocol; a context manager that quits
    it. Starting it does the handshake: ``name``, ``author`` and ``options`` come from it.

    Every method waits for the engine's answer: ``position`` and ``set_option`` follow their
    command with ``isready``, so an error the engine reports raises ``EngineError`` here.
    """

    def __init__(self, command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise EngineError("no engine command given")
        self.timeout = timeout
        self.name = self.argv[0]
        self.author = ""
        self.protocol: int | None = None
        self.options: dict[str, Option] = {}
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        try:
            self._process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                # Its own session: Ctrl-C in a terminal stops the client, which then quits the
                # engine; an engine whose client dies sees its input end and quits.
                start_new_session=True,
            )
        except OSError as error:
            raise EngineError(
                f"cannot start engine {shlex.join(self.argv)!r}: {error.strerror or error}"
            ) from None
        assert self._process.stdout is not None and self._process.stderr is not None
        self._closed = False
        self._hung = False
        """Set when the engine failed to answer in time: it is killed, not asked to quit."""
        _reader(self._process.stdout, self._lines.put, at_end=lambda: self._lines.put(None))
        _reader(self._process.stderr, self._stderr.append)
        try:
            self._handshake()
        except EngineError:
            self.close()
            raise

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Engine {self.name!r} pid={self._process.pid}>"

    # -- commands -----------------------------------------------------------------------------

    def _handshake(self) -> None:
        self.send("bgi")
        deadline = time.monotonic() + self.timeout
        while (line := self._read(deadline, "bgi")) != "bgiok":
            words = line.split(None, 2)
            if words[:2] == ["id", "name"] and len(words) == 3:
                self.name = words[2]
            elif words[:2] == ["id", "author"] and len(words) == 3:
                self.author = words[2]
            elif words[:2] == ["id", "protocol"] and len(words) == 3:
                # A version this client cannot read is no version: the engine still plays.
                with contextlib.suppress(ProtocolError):
                    self.protocol = parse_integer(words[2], "id protocol", least=0)
            elif words[:1] == ["option"]:
                try:
                    option = Option.parse(line)
                except ProtocolError as error:
                    raise EngineError(f"engine {self.name!r}: {error}") from None
                self.options[option.name.lower()] = option

    def option(self, name: str) -> Option | None:
        """The option the engine offers under ``name`` (any case), or ``None``."""
        return self.options.get(name.lower())

    def set_option(self, name: str, value: object) -> None:
        """Set an option the engine offers (its name in any case)."""
        option = self.option(name)
        if option is None:
            known = ", ".join(option.name for option in self.options.values()) or "none"
            raise EngineError(f"engine {self.name!r} has no option {name!r}; options: {known}")
        if option.type == "button":
            self.send(f"setoption name {option.name}")
        else:
            text = str(value).lower() if isinstance(value, bool) else str(value)
            self.send(f"setoption name {option.name} value {text}")
        self.is_ready()

    def is_ready(self) -> None:
        """Wait until the engine has handled every command sent so far; an error it reported
        meanwhile raises ``EngineError``."""
        self.send("isready")
        deadline = time.monotonic() + self.timeout
        errors = []
        while (line := self._read(deadline, "isready")) != "readyok":
            if line.startswith("info string"):
                info = Info.parse(line)
                if info.error is not None:
                    errors.append(info.error)
        if errors:
            raise EngineError(f"engine {self.name!r}: {'; '.join(errors)}")

    def new_game(self) -> None:
        self.send("newgame")
        self.is_ready()

    def position(self, command: PositionCommand | Game) -> None:
        """Set up a position: a ``position`` command, or the game that one describes."""
        if isinstance(command, Game):
            command = PositionCommand.from_game(command)
        self.send(str(command))
        self.is_ready()

    def go(
        self,
        go: Go | None = None,
        *,
        timeout: float | None = None,
        stop_after: float | None = None,
        on_info: Callable[[Info], None] | None = None,
    ) -> GoResult:
        """Search and wait for ``bestmove``. ``stop_after`` sends ``stop`` after that many
        seconds (the way to end ``go infinite``). Without ``timeout``, a search limited by time
        may take its time plus ``self.timeout``; one limited otherwise may take as long as it
        needs (a dead engine is still noticed at once)."""
        go = go or Go()
        if timeout is None:
            timeout = _expected_seconds(go, stop_after)
            if timeout is not None:
                timeout += self.timeout
        self.send(str(go))
        now = time.monotonic()
        deadline = None if timeout is None else now + timeout
        stop_at = None if stop_after is None else now + stop_after
        infos: list[Info] = []
        while True:
            waits = [limit for limit in (deadline, stop_at) if limit is not None]
            line = self._read(min(waits) if waits else None, str(go), quiet=stop_at is not None)
            if not line:  # the stop time has come
                self.send("stop")
                stop_at = None
                continue
            if line.startswith("bestmove"):
                try:
                    return GoResult(parse_bestmove(line), tuple(infos))
                except ProtocolError as error:
                    raise EngineError(f"engine {self.name!r}: {error}") from None
            if line.startswith("info"):
                try:
                    info = Info.parse(line)
                except ProtocolError:
                    continue  # a report this client cannot read does not stop the game
                infos.append(info)
                if on_info is not None:
                    on_info(info)

    def stop(self) -> None:
        self.send("stop")

    def send(self, line: str) -> None:
        """Send one command line."""
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except (OSError, ValueError):
            raise self._terminated(repr(line)) from None

    # -- the end ------------------------------------------------------------------------------

    def close(self) -> int | None:
        """Quit the engine (killing it if it does not exit) and return its exit code."""
        if self._closed:
            return self._process.returncode
        self._closed = True
        process = self._process
        if process.poll() is None and not self._hung:
            with contextlib.suppress(EngineError, OSError):
                self.send("quit")
                assert process.stdin is not None
                process.stdin.close()  # an engine that ignores quit still sees its input end
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(QUIT_GRACE)
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        return self._process.returncode

    quit = close

    @property
    def returncode(self) -> int | None:
        """The exit code once the process has ended, else ``None``."""
        return self._process.poll()

    # -- reading ------------------------------------------------------------------------------

    def _read(self, deadline: float | None, waiting_for: str, *, quiet: bool = False) -> str:
        """The next line that is not blank; at the deadline "" if ``quiet``, else
        ``EngineTimeoutError``."""
        if self._closed:
            raise EngineError(f"engine {self.name!r} has been closed")
        line: str | None = ""
        while line == "" or (line is not None and line.isspace()):
            try:
                if deadline is None:
                    line = self._lines.get()
                else:
                    wait = min(max(0.0, deadline - time.monotonic()), LONGEST_WAIT)
                    line = self._lines.get(timeout=wait)
            except queue.Empty:
                if deadline is not None and deadline > time.monotonic():
                    line = ""  # a longer wait than one call may take goes on in pieces
                    continue
                if quiet:
                    return ""
                self._hung = True
                raise EngineTimeoutError(
                    f"engine {self.name!r} did not answer {waiting_for!r} in time"
                ) from None
        if line is None:
            self._lines.put(None)  # every later read sees the end too
            raise self._terminated(repr(waiting_for))
        return line

    def _terminated(self, waiting_for: str) -> EngineTerminatedError:
        try:
            code = self._process.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        time.sleep(0.05)  # let the stderr reader catch the last words
        said = " / ".join(line for line in self._stderr if line.strip())
        status = "closed its output" if code is None else f"exited with code {code}"
        return EngineTerminatedError(
            f"engine {self.name!r} {status} while the client waited for an answer to "
            f"{waiting_for}" + (f"; it said: {said[-500:]}" if said else "")
        )


def _reader(
    stream: IO[str], put: Callable[[str], object], *, at_end: Callable[[], object] | None = None
) -> threading.Thread:
    """A thread passing each line of ``stream`` (without its newline) to ``put``, and calling
    ``at_end`` when the stream ends."""

    def run() -> None:
        try:
            for line in stream:
                put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        if at_end is not None:
            at_end()

    thread = threading.Thread(target=run, name="engine-reader", daemon=True)
    thread.start()
    return thread


def _expected_seconds(go: Go, stop_after: float | None) -> float | None:
    """How long ``go`` should take at most, when its time is bounded."""
    if stop_after is not None:
        return stop_after
    if go.infinite:
        return None
    times = [go.movetime] if go.movetime is not None else []
    times += [clock for clock in (go.btime, go.gtime) if clock is not None]
    return max(times) / 1000 if times else None
