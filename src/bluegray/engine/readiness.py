"""Getting the compiled kernel ready without making anyone wait.

numba compiles the compiled kernel (``compiled.search``) the first time it runs after an install or
an
upgrade (some 20 seconds on an idle machine, a minute on a busy one) and keeps the result on disk
(``compiled.cache``), from where later processes load it in a fraction of a second. So that nobody
waits for that, a process that searches gets the compiled kernel ready in the background
(``prepare``) and searches with the plain kernel meanwhile: the two search the same tree, so a
fixed-depth search plays the very same move, only more slowly.

When the cache holds the kernel (``compiled.cache.is_marked_ready``) a background thread loads it
(a second or two, more on a loaded machine): an engine that is asked whether it is ready waits
for that (``wait_while_loading``), as engines initialise before they say so, but not for a
compile.
Otherwise a separate process compiles it into the cache first (``precompile``: compiling holds
Python's interpreter lock for seconds at a time, which would stall this process's own search),
then the thread loads it. One process compiles at a time; processes that start meanwhile wait for
it and load. The compiling process ends with the process that started it: that one stops it when
it exits, and on Linux the kernel kills it when that one dies any other way (SIGKILL, or the
SIGTERM with which a server stops its engine processes; ``precompile --parent``).

Loading numba itself happens in the background too: ``compiled.search`` is imported by the
background thread, when it is wanted, so that importing the engine never loads numba.
"""

from __future__ import annotations

import atexit
import enum
import importlib.metadata
import importlib.util
import os
import random
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import NamedTuple

from bluegray.bitboard import Board
from bluegray.engine.compiled.cache import is_marked_ready
from bluegray.engine.evaluation import Evaluator
from bluegray.engine.kernel import Kernel
from bluegray.engine.mcts_board import MctsBoard
from bluegray.errors import BlueGrayError
from bluegray.moves import Move
from bluegray.rules import RuleSet

PRECOMPILE_MODULE = "bluegray.engine.precompile"
"""What the separate process runs (``python -m``) to compile the kernel into the cache."""


class CompiledState(enum.Enum):
    """Where the compiled kernel stands in this process."""

    IDLE = "idle"
    """Nobody has asked for it yet."""
    ABSENT = "absent"
    """numba (the ``fast`` extra) is not installed: the plain kernel searches."""
    COMPILING = "compiling"
    """A separate process is compiling it into the cache."""
    LOADING = "loading"
    """This process is loading it from the cache."""
    READY = "ready"
    FAILED = "failed"


class CompiledParts(NamedTuple):
    """What the compiled code gives the engine once it is ready: the search's kernel, the MCTS
    player's board (``compiled.mcts``) and the opening book's random walk (``simulation``)."""

    kernel: type[Kernel]
    mcts_board: Callable[[Board, Evaluator], MctsBoard]
    random_walk: Callable[[RuleSet, random.Random, int], list[Move] | None]


class CompiledKernelNotReadyError(BlueGrayError):
    """The compiled kernel was required and cannot be had (numba is missing, or it failed)."""


class _Preparation:
    """The compiled kernel's preparation in this process (one per process: ``PREPARATION``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._state = CompiledState.IDLE
        self._kernel: type[Kernel] | None = None
        self._parts: CompiledParts | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._closing = False
        self.error = ""
        """Why the kernel failed, when it did."""

    @property
    def state(self) -> CompiledState:
        return self._state

    @property
    def kernel(self) -> type[Kernel] | None:
        """The compiled kernel's class once it is ready."""
        return self._kernel

    @property
    def parts(self) -> CompiledParts | None:
        """Everything compiled, once it is ready."""
        return self._parts

    def prepare(self) -> None:
        """Start getting the compiled kernel ready in the background, once per process."""
        with self._lock:
            if self._state is not CompiledState.IDLE:
                return
            if not _numba_installed():
                self._state = CompiledState.ABSENT
                self._done.set()
                return
            numba_version = importlib.metadata.version("numba")
            marked = is_marked_ready(numba_version)
            self._state = CompiledState.LOADING if marked else CompiledState.COMPILING
            atexit.register(self.close)
        threading.Thread(
            target=self._get_ready, args=(marked,), name="compiled-kernel", daemon=True
        ).start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the preparation has ended (ready, failed or absent); whether it has."""
        return self._done.wait(timeout)

    def wait_while_loading(self, timeout: float) -> bool:
        """Wait, ``timeout`` seconds at most, while the compiled kernel loads from the cache (a
        compile is not waited for: it takes up to a minute); whether it is ready. An engine
        does this before it says it is ready, so that a kernel in the cache plays its first
        move."""
        if self._state is CompiledState.LOADING:
            self._done.wait(timeout)
        return self._kernel is not None

    def require(self) -> type[Kernel]:
        """The compiled kernel, waiting for it (compiling it if need be)."""
        self.prepare()
        self._done.wait()
        if self._kernel is None:
            if self._state is CompiledState.ABSENT:
                raise CompiledKernelNotReadyError(
                    'the compiled search needs numba: pip install "bluegray[fast]"'
                )
            raise CompiledKernelNotReadyError(f"the compiled search failed: {self.error}")
        return self._kernel

    def describe(self) -> str:
        """Why the plain kernel searches, or that the compiled one does, in a few words."""
        return {
            CompiledState.IDLE: "the compiled kernel is not wanted",
            CompiledState.ABSENT: "numba is not installed",
            CompiledState.COMPILING: "the compiled kernel is still compiling",
            CompiledState.LOADING: "the compiled kernel is still loading",
            CompiledState.READY: "the compiled kernel is ready",
            CompiledState.FAILED: f"the compiled kernel failed: {self.error}",
        }[self._state]

    def close(self) -> None:
        """End a compiling process this process started (at exit)."""
        self._closing = True
        process = self._process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def _get_ready(self, marked: bool) -> None:
        try:
            if not marked and self._compile_elsewhere():
                self._state = CompiledState.LOADING
            if self._closing:
                return
            # The compiled kernel loads numba: here, in the background, and only when wanted, so
            # that importing the engine never waits for it (nor needs it). What the cache lacks
            # is compiled here (when no separate process could do it).
            from bluegray.engine import simulation  # noqa: PLC0415 - numba, in the background
            from bluegray.engine.compiled import mcts as compiled_mcts  # noqa: PLC0415
            from bluegray.engine.compiled import search as compiled_search  # noqa: PLC0415

            compiled_mcts.warm_up()
            simulation.warm_up()
            compiled_search.warm_up()
            self._parts = CompiledParts(
                compiled_search.CompiledKernel,
                compiled_mcts.CompiledMctsBoard,
                simulation.random_walk,
            )
            self._kernel = compiled_search.CompiledKernel
            self._state = CompiledState.READY
        except Exception as error:  # the plain kernel goes on searching; the reason is kept
            self.error = f"{type(error).__name__}: {error}"
            self._state = CompiledState.FAILED
        finally:
            self._done.set()

    def _compile_elsewhere(self) -> bool:
        """Compile the kernel into the cache in a separate process, and wait for it; whether it
        did."""
        with self._lock:
            if self._closing:
                return False
            try:
                self._process = subprocess.Popen(
                    # Started by this thread, which lives until the process ends, as the
                    # kernel's watch over the parent requires (``die_with_parent``).
                    [sys.executable, "-m", PRECOMPILE_MODULE, "--parent", str(os.getpid())],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
            except OSError as error:
                self.error = f"no process to compile in ({error})"
                return False
        _, errors = self._process.communicate()
        if self._process.returncode and not self._closing:
            lines = errors.decode(errors="replace").strip().splitlines()
            self.error = lines[-1] if lines else f"exit status {self._process.returncode}"
            return False
        return True


def _numba_installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("numba", "numpy"))


PREPARATION = _Preparation()
"""This process's preparation of the compiled kernel."""


def prepare() -> None:
    """Start getting the compiled kernel ready in the background (see the module's docstring)."""
    PREPARATION.prepare()


def compiled_kernel() -> type[Kernel] | None:
    """The compiled kernel's class if it is ready in this process, else ``None``."""
    return PREPARATION.kernel


def compiled_parts() -> CompiledParts | None:
    """Everything compiled if it is ready in this process, else ``None``."""
    return PREPARATION.parts


def wait_while_loading(timeout: float) -> bool:
    """Wait while the compiled kernel loads from the cache, not while it compiles (see
    ``_Preparation.wait_while_loading``); whether it is ready."""
    return PREPARATION.wait_while_loading(timeout)


def require_compiled() -> type[Kernel]:
    """The compiled kernel's class, waiting for it: for a search that must be compiled."""
    return PREPARATION.require()


def state() -> CompiledState:
    return PREPARATION.state


def describe() -> str:
    return PREPARATION.describe()
