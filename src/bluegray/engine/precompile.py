"""Compile the compiled kernel into numba's on-disk cache, then exit: what ``readiness`` runs in
a separate process (``python -m bluegray.engine.precompile``), so that compiling never stalls a
search. One process compiles at a time (a lock on a file in the cache folder, where the platform
has ``fcntl``); one that waited for another finds the kernel in the cache and only loads it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from bluegray.engine import fastmcts, fastsearch, simulation
from bluegray.engine.compiled_cache import touch_folder

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


def main() -> None:
    if hasattr(os, "nice"):
        os.nice(10)  # the searches of the process that started this one come first
    with compiling_lock(touch_folder()):
        fastmcts.warm_up()
        simulation.warm_up()
        fastsearch.warm_up()  # last: it marks the cache ready


if __name__ == "__main__":
    main()
