"""Where numba keeps the compiled engine: a folder named after a digest of the engine's sources.

numba's own on-disk cache checks only the file that defines each compiled function, so editing a
function it calls in another file (the evaluation, say) leaves the compiled search running the
old machine code, silently. Keying the cache folder by the sources of every module the compiled
code is built from makes any such change compile afresh. ``use_source_keyed_cache`` is called by
each compiled module before it defines anything.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import numba
from numba.core.options import DefaultOptions

_PACKAGE = Path(__file__).resolve().parent.parent
SOURCES = (
    "engine/compiled_cache.py",
    "engine/fastboard.py",
    "engine/fasteval.py",
    "engine/fastsearch.py",
    "engine/evaluation.py",
    "engine/search.py",
    "bitboard.py",
    "errors.py",
    "moves.py",
    "points.py",
    "position.py",
)
"""The compiled modules and every module of the package they import (package-relative): their
code and constants are what the compiled functions are built from."""

_Function = TypeVar("_Function", bound=Callable[..., Any])


def without_runtime(options: type) -> dict[str, bool]:
    """The ``njit`` option that leaves numba's runtime out, if numba's ``options`` (its
    ``DefaultOptions``) still list it: ``_nrt`` is an underscored option, and a numba without it
    would otherwise refuse to compile the engine. Without the option the compiled functions run
    with the runtime, the same search at about half the speed."""
    return {"_nrt": False} if hasattr(options, "_nrt") else {}


def compiled(*, inline: bool = False, nogil: bool = False) -> Callable[[_Function], _Function]:
    """numba's ``njit`` as the engine's compiled functions use it: cached, inlined into each
    caller where ``inline``, releasing the GIL where ``nogil``, and without numba's runtime (NRT).

    The runtime counts references to arrays with an atomic instruction at every view and call,
    which took half the search's time (docs/benchmarks.md). Without it a compiled function can
    allocate nothing, so every array the engine's compiled functions use is made, and kept
    alive, by the Python object that calls them."""
    njit: Callable[..., Callable[[_Function], _Function]] = numba.njit
    return njit(
        cache=True,
        inline="always" if inline else "never",
        nogil=nogil,
        **without_runtime(DefaultOptions),
    )


STALE_AFTER_DAYS = 30
"""A cache folder of other sources that no process has used for this long is removed: every edit
or upgrade leaves one behind (some megabytes each), and nothing else would ever delete them."""


@lru_cache(maxsize=1)
def source_digest() -> str:
    """A short digest of ``SOURCES``: it changes whenever any of them does."""
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update(name.encode())
        digest.update((_PACKAGE / name).read_bytes())
    return digest.hexdigest()[:16]


def cache_folder() -> Path:
    """The folder for this version of the sources: under ``NUMBA_CACHE_DIR`` when it is set,
    else under the user's cache folder (``XDG_CACHE_HOME`` or ``~/.cache``)."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "bluegray", "numba"
    )
    return Path(base) / f"bluegray-{source_digest()}"


def use_source_keyed_cache() -> None:
    """Point numba's cache at ``cache_folder()`` (numba reads the setting when a function is
    decorated, so this must run before the compiled modules define theirs), mark it as used and
    remove the stale folders of other sources."""
    folder = cache_folder()
    # numba's config module sets its attributes at run time, so mypy cannot see this one.
    numba.config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
    except OSError:
        return  # a cache location we cannot write to: numba reports that itself, if it matters
    prune_stale_folders(folder)


def prune_stale_folders(current: Path, stale_after_days: float = STALE_AFTER_DAYS) -> list[Path]:
    """Remove the other ``bluegray-*`` cache folders beside ``current`` that have not been used
    (their modification time, refreshed at each use) for ``stale_after_days``; return them.

    Another installed version of bluegray still in use keeps its folder fresh, so only caches
    of sources nobody runs any more go."""
    cutoff = time.time() - stale_after_days * 86400
    removed = []
    for folder in current.parent.glob("bluegray-*"):
        try:
            stale = folder != current and folder.is_dir() and folder.stat().st_mtime < cutoff
        except OSError:
            continue
        if stale:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
