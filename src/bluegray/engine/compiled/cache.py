"""Where numba keeps the compiled engine: a folder named after a digest of the engine's sources.

numba's own on-disk cache checks only the file that defines each compiled function, so editing a
function it calls in another file (the evaluation, say) leaves the compiled search running the
old machine code, silently. Keying the cache folder by the sources of every module the compiled
code is built from makes any such change compile afresh (``compiled.use_source_keyed_cache``
points numba at it). This module does not load numba: the engine asks it whether the compiled
kernel is in the cache before it decides how to get it ready (``kernels``).
"""

from __future__ import annotations

import ast
import hashlib
import os
import platform
import re
import shutil
import sys
import time
from functools import lru_cache
from pathlib import Path

_FOLDER = Path(__file__).resolve().parent
_PACKAGE = _FOLDER.parent.parent


def _module_file(module: str) -> Path | None:
    """The file of the package's module ``module`` (``bluegray.engine.records``), if it has one."""
    parts = module.split(".")
    if parts[0] != "bluegray":
        return None
    base = _PACKAGE.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _runs_at_import(statements: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a module body that run when it is imported, into ``if`` and ``try``
    blocks, leaving out ``if TYPE_CHECKING:`` (names for the annotations only)."""
    found: list[ast.stmt] = []
    for statement in statements:
        if isinstance(statement, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(statement.test):
                found += _runs_at_import(statement.body + statement.orelse)
        elif isinstance(statement, ast.Try):
            found += _runs_at_import(
                statement.body
                + [s for handler in statement.handlers for s in handler.body]
                + statement.orelse
                + statement.finalbody
            )
        else:
            found.append(statement)
    return found


_FIRST_DEFINITION = re.compile(r"^(?:def|async def|class|@)", re.MULTILINE)


def _module_head(text: str) -> list[ast.stmt]:
    """The statements of a module before its first function or class: where its imports are
    (ruff's E402 keeps them there). Parsing only that part costs a tenth of the whole; a head
    that does not parse alone (a docstring line that starts with ``def``) falls back to it."""
    first = _FIRST_DEFINITION.search(text)
    try:
        return ast.parse(text[: first.start()] if first else text).body
    except SyntaxError:
        return ast.parse(text).body


def imported_files(path: Path) -> set[Path]:
    """The package's source files that ``path`` imports when it is loaded (``from bluegray
    import bitboard`` and ``from bluegray.bitboard import Board`` both name ``bitboard.py``)."""
    files: set[Path] = set()
    for statement in _runs_at_import(_module_head(path.read_text("utf-8"))):
        if isinstance(statement, ast.Import):
            modules = [alias.name for alias in statement.names]
        elif isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
            modules = [f"{statement.module}.{alias.name}" for alias in statement.names]
            modules = [m if _module_file(m) else statement.module for m in modules]
        else:
            continue
        files.update(file for file in map(_module_file, modules) if file is not None)
    return files


@lru_cache(maxsize=1)
def sources() -> tuple[str, ...]:
    """Every module of this folder (the compiled code) and every module of the package they
    import, directly or through each other (package-relative paths, sorted): their code and
    constants are what the compiled functions are built from. Computed from the imports, so a
    module the compiled code starts to use joins the key by itself."""
    waiting = sorted(_FOLDER.glob("*.py"))
    seen: set[Path] = set()
    while waiting:
        path = waiting.pop()
        if path not in seen:
            seen.add(path)
            waiting += sorted(imported_files(path) - seen)
    return tuple(sorted(path.relative_to(_PACKAGE).as_posix() for path in seen))


STALE_AFTER_DAYS = 30
"""A cache folder of other sources that no process has used for this long is removed: every edit
or upgrade leaves one behind (some megabytes each), and nothing else would ever delete them."""


@lru_cache(maxsize=1)
def source_digest() -> str:
    """A short digest of ``sources()``: it changes whenever any of them does."""
    digest = hashlib.sha256()
    for name in sources():
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


READY_MARK = "compiled"
"""A file in the cache folder that says the compiled kernel was compiled into it, by which
numba and Python (``ready_mark``)."""


def ready_mark(numba_version: str) -> str:
    """What ``READY_MARK`` holds for a numba version on this Python and machine."""
    return f"numba {numba_version} python {sys.version.split()[0]} {platform.machine()}\n"


def is_marked_ready(numba_version: str) -> bool:
    """Whether this version of the sources was compiled into the cache by this numba here: then
    loading the kernel takes a fraction of a second, no compiling."""
    try:
        return (cache_folder() / READY_MARK).read_text() == ready_mark(numba_version)
    except OSError:
        return False


def mark_ready(numba_version: str) -> None:
    """Record that the compiled kernel is in the cache (best effort: a cache folder that cannot
    be written only means the next process compiles again)."""
    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f"{READY_MARK}.{os.getpid()}"
        temporary.write_text(ready_mark(numba_version))
        temporary.replace(folder / READY_MARK)
    except OSError:
        pass


def touch_folder() -> Path | None:
    """Make the cache folder, mark it as used and remove the stale folders of other sources; the
    folder, or ``None`` when it cannot be written."""
    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
    except OSError:
        return None  # a cache location we cannot write to: numba reports that itself
    prune_stale_folders(folder)
    return folder


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
