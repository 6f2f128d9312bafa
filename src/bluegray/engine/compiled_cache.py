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
from functools import lru_cache
from pathlib import Path

import numba

_PACKAGE = Path(__file__).resolve().parent.parent
SOURCES = (
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
    decorated, so this must run before the compiled modules define theirs)."""
    # numba's config module sets its attributes at run time, so mypy cannot see this one.
    numba.config.CACHE_DIR = str(cache_folder())  # type: ignore[attr-defined]
