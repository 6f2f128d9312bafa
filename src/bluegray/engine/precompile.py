"""Compile the compiled kernel into numba's on-disk cache, then exit: what ``readiness`` runs in
a separate process (``python -m bluegray.engine.precompile [--parent PID]``), so that compiling
never stalls a search. One process compiles at a time (a lock on a file in the cache folder, where
the platform has ``fcntl``); one that waited for another finds the kernel in the cache and only
loads it.

With ``--parent PID`` (what ``readiness`` passes) the process dies with the engine process that
started it, however that one ends (``processes.die_with_parent``): a server or worker stopped
mid-compile leaves no compiler running. It ties itself to its parent before it loads numba.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from bluegray.engine.compiled.cache import touch_folder
from bluegray.engine.processes import die_with_parent

try:
    import fcntl
except ImportError:  # not on Windows: there two processes may compile side by side
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = "compiling.lock"


@contextlib.contextmanager
def compiling_lock(folder: Path | None) -> Iterator[None]:
    """Hold the cache folder's compiling lock (waiting for another holder), where there is one."""
    if folder is None or fcntl is None:
        yield
        return
    with open(folder / LOCK_FILE, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bluegray.engine.precompile")
    parser.add_argument("--parent", type=int, metavar="PID", help="die with this process")
    args = parser.parse_args(argv)
    if args.parent is not None and not die_with_parent(args.parent):
        sys.exit(0)  # the engine process that wanted the kernel has gone already
    if hasattr(os, "nice"):
        os.nice(10)  # the searches of the process that started this one come first
    # numba loads now, once this process is tied to its parent: loading it takes seconds.
    from bluegray.engine import simulation  # noqa: PLC0415 - numba, after the tie to the parent
    from bluegray.engine.compiled import mcts as compiled_mcts  # noqa: PLC0415
    from bluegray.engine.compiled import search as compiled_search  # noqa: PLC0415

    with compiling_lock(touch_folder()):
        compiled_mcts.warm_up()
        simulation.warm_up()
        compiled_search.warm_up()  # last: it marks the cache ready


if __name__ == "__main__":
    main()
