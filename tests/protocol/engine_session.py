"""``bluegray engine`` as a real process for the protocol's tests: the command that starts it,
the waits a loaded machine needs, and ``EngineSession``, which speaks to it line by line with a
timeout on every read (a hung engine fails a test instead of hanging it)."""

from __future__ import annotations

import queue
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bluegray.protocol import Info

ENGINE = [sys.executable, "-m", "bluegray", "engine"]
ENGINE_SPEC = "engine:" + shlex.join(ENGINE)
TIMEOUT = 60.0
"""How long to wait for an engine's answer before failing: generous, since a loaded machine (the
suite's parallel workers) can take many seconds to start a Python process; a failure only comes
later, a pass as soon as the answer does."""
COMPILING = 300.0
"""How long the first search of a compiled engine may take: numba compiles its kernel when the
cache has none (after any change to its sources), some 20 seconds idle, minutes when busy."""
WIN_IN_ONE = "9/9/9/9/9/5c3/9/9/4C3G g 0 40"  # sackson: Gray's only move f4-e5 wins
BLUE_ON_CENTRE = "4c4/9/9/9/4C4/9/9/9/9 g 0 30"  # finished: Blue's captain stands on e5
CUSTOM = "captain=turbo soldiers=private army=light lead=3 capture=maximal stalemate=loss"


def _names_the_kernel(info: Info) -> bool:
    return info.string is not None and info.string.startswith("kernel ")


class EngineSession:
    """``bluegray engine`` as a process, with a line reader that never waits forever."""

    def __init__(self, environment: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            ENGINE,
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.kernels: list[str] = []
        """The ``info string kernel ...`` messages of the searches so far."""
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read_all, daemon=True).start()

    def _read_all(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        for line in lines:
            self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def read(self, timeout: float = TIMEOUT) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"the engine did not answer within {timeout} s")
        assert line is not None, "the engine closed its output"
        return line

    def until(self, last: str, timeout: float = TIMEOUT) -> list[str]:
        """Lines up to and including the first that starts with ``last``."""
        deadline = time.monotonic() + timeout
        lines = [self.read(max(0.01, deadline - time.monotonic()))]
        while not lines[-1].startswith(last):
            lines.append(self.read(max(0.01, deadline - time.monotonic())))
        return lines

    def ready(self) -> list[str]:
        """``isready``: the lines the engine sent before ``readyok``."""
        self.send("isready")
        return self.until("readyok")[:-1]

    def go(self, command: str, timeout: float = TIMEOUT) -> tuple[list[Info], str]:
        """The info lines of a search (but the one that names the kernel, kept in
        ``kernels``) and its ``bestmove`` word."""
        self.send(command)
        lines = self.until("bestmove", timeout)
        infos = [Info.parse(line) for line in lines[:-1]]
        self.kernels += [info.string or "" for info in infos if _names_the_kernel(info)]
        return [info for info in infos if not _names_the_kernel(info)], lines[-1].split()[1]

    def wait_for_the_compiled_kernel(self, limit: float = 120.0) -> None:
        """Search until the compiled kernel answers (it loads in the background after the
        engine starts), so that a timed test measures the engine as it plays once warm (the
        test is marked ``compiled_kernel``: tests/protocol/conftest.py)."""
        deadline = time.monotonic() + limit
        while not self.kernels or self.kernels[-1] != "kernel compiled":
            assert time.monotonic() < deadline, self.kernels[-1:]
            self.send("position rules cooper startpos")
            self.go("go depth 1")
            time.sleep(0.1)  # poll interval: until the compiled kernel answers, up to the limit

    def lines_within(self, seconds: float) -> list[str]:
        """Whatever the engine says in the next ``seconds``."""
        deadline = time.monotonic() + seconds
        lines = []
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            assert line is not None, "the engine closed its output"
            lines.append(line)
        return lines

    def quit(self) -> int:
        self.send("quit")
        return self.process.wait(TIMEOUT)

    def stderr(self) -> str:
        assert self.process.stderr is not None
        return self.process.stderr.read()


def errors(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("info string error ")]


def processes_running(module: str, cache: Path) -> list[int]:
    """The processes of ``python -m module`` whose numba cache is ``cache`` (this machine's, read
    from /proc): the compiling process an engine started, if it still runs."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue  # gone meanwhile, or another user's
        if module.encode() in command and f"NUMBA_CACHE_DIR={cache}".encode() in environment:
            found.append(int(entry.name))
    return found
