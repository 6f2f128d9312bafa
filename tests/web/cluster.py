"""Real processes of the service for the tests: ``bluegray serve`` and ``bluegray worker`` started
as the deploy guide starts them (the same command lines and ``BLUEGRAY_*`` settings), each in a
session of its own, logging to a file, and killed for real."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx

from tests.process_tree import alive
from tests.servers import free_port

PROCESS_HEADER = "x-bluegray-process"
HEALTH_URI = "/api/health"
"""What the tests ask a web process to know it is up: the URI the shipped proxy's and compose
file's health checks ask for (``tests/web/processes/test_chaos.py`` checks that they agree)."""


class Node:
    """One process of the service."""

    def __init__(self, name: str, command: list[str], env: Mapping[str, str], log: Path) -> None:
        self.name = name
        self.log = log
        self._output = log.open("a")  # a process started again adds to its log
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bluegray", *command],
            stdout=self._output,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env, "BLUEGRAY_PROCESS_NAME": name},
            start_new_session=True,
        )

    @classmethod
    def serve(
        cls, name: str, env: Mapping[str, str], directory: Path, port: int | None = None
    ) -> Node:
        """A web process (on ``port``: to come back where a proxy expects it after a restart)."""
        port = port or free_port()
        node = cls(
            name,
            ["serve", "--port", str(port), "--no-access-log"],
            env,
            directory / f"{name}.log",
        )
        node.port = port
        return node

    @classmethod
    def worker(cls, name: str, env: Mapping[str, str], directory: Path, processes: int) -> Node:
        return cls(name, ["worker", "--processes", str(processes)], env, directory / f"{name}.log")

    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, seconds: float = 60) -> None:
        """Until the web process answers its health check (``HEALTH_URI``)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} stopped:\n{self.output()}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{self.url}{HEALTH_URI}", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)  # poll interval: until the health check answers, up to the deadline
        raise AssertionError(f"{self.name} did not start:\n{self.output()}")

    def children(self) -> list[int]:
        """The process ids of this process's children (its engine processes)."""
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        try:
            return [int(pid) for pid in path.read_text().split()]
        except OSError:
            return []

    def kill(self, signum: int = signal.SIGKILL) -> None:
        """Send ``signum`` to this process alone (not its children: they must follow it)."""
        if self.process.poll() is None:
            self.process.send_signal(signum)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        """Kill the whole session (whatever is left of it)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        self._output.close()

    def output(self) -> str:
        self._output.flush()
        return self.log.read_text(errors="replace")

    def wait_for_output(self, text: str, seconds: float = 10) -> None:
        """Until the process has written ``text``: a line logged after an act the test saw (a
        move committed, then logged) may come a moment after the test sees the act."""
        deadline = time.monotonic() + seconds
        while text not in self.output():
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name} did not write {text!r} within {seconds} s")
            time.sleep(0.05)  # poll interval: until the line is in the log, up to ``seconds``


def wait_gone(pids: list[int], seconds: float = 10) -> list[int]:
    """The processes of ``pids`` still running after ``seconds`` (none, hopefully)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = [pid for pid in pids if alive(pid)]
        if not left:
            return []
        time.sleep(0.1)  # poll interval: until the processes are gone, up to the deadline
    return [pid for pid in pids if alive(pid)]


@contextlib.contextmanager
def nodes() -> Iterator[list[Node]]:
    started: list[Node] = []
    try:
        yield started
    finally:
        for node in started:
            node.stop()


def service_env(database_url: str, redis_url: str | None, **settings: Any) -> dict[str, str]:
    """The ``BLUEGRAY_*`` variables of a test service: quick heartbeats and timers."""
    env = {
        "BLUEGRAY_DATABASE_URL": database_url,
        "BLUEGRAY_HEARTBEAT_SECONDS": "0.5",
        "BLUEGRAY_DEADLINE_POLL_SECONDS": "0.25",
        "BLUEGRAY_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "BLUEGRAY_RATE_LIMITS": "false",
        "BLUEGRAY_EXPLORER_BOOKS_AT_START": "false",  # some CPU seconds each process's start
    }
    if redis_url is not None:
        env["BLUEGRAY_REDIS_URL"] = redis_url
    env.update({f"BLUEGRAY_{name.upper()}": str(value) for name, value in settings.items()})
    return env


def two_processes(directory: Path, env: dict[str, str]) -> Iterator[dict[str, Node]]:
    """Two web processes, ``A`` and ``B``, of one service (a fixture's body: ``yield from``);
    their logs are printed when the test fails."""
    with nodes() as started:
        for name in ("A", "B"):
            node = Node.serve(name, env, directory)
            started.append(node)
            node.wait_ready()
        try:
            yield {node.name: node for node in started}
        except BaseException:
            for node in started:
                print(f"---- {node.name}\n{node.output()[-4000:]}")
            raise
