"""How the engine's compiled functions are compiled: numba's ``njit``, cached on disk in the
folder ``compiled.cache`` names after the sources, and without numba's runtime.

Each compiled module (``compiled.board``, ``compiled.moves``, ``compiled.evaluation``,
``compiled.search``, ...) calls
``use_source_keyed_cache`` before it defines anything, and decorates its functions with
``compiled``.
"""

from __future__ import annotations

import importlib.metadata
import os
from collections.abc import Callable
from typing import Any, TypeVar

# numba colours its error messages with colorama wherever colorama can be imported (ray brings
# its own), and each error it makes while typing (many, and caught, in every compile) wraps
# sys.stdout and then puts back the stream it found. Compiling in a background thread
# (``readiness``), that put back a stream the main thread had replaced meanwhile: a program's
# output went to the stream of a moment before. Plain messages touch no stream. (numba reads the
# variable when it is first imported, which is here.)
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

import numba
from numba.core.options import DefaultOptions

from bluegray.engine.compiled.cache import cache_folder, touch_folder

_Function = TypeVar("_Function", bound=Callable[..., Any])

NUMBA_VERSION = importlib.metadata.version("numba")
"""The installed numba's version, as the cache's ready mark records it."""


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


def entry_point(function: Callable[..., Any], *arguments: Any) -> Callable[..., Any]:
    """The machine code that ``function`` (a compiled function, already called with arguments
    of these types) runs for ``arguments``' types, to be called directly with arguments of the
    same types: numba's dispatcher works out the types of its arguments at every call, which
    takes microseconds for named tuples of arrays (more than a small function runs). The
    dispatcher itself where numba keeps its compiled versions differently."""
    try:
        types = tuple(function.typeof_pyval(argument) for argument in arguments)  # type: ignore[attr-defined]
        entry: Callable[..., Any] = function.overloads[types].entry_point  # type: ignore[attr-defined]
    except (AttributeError, KeyError):
        return function
    return entry


def use_source_keyed_cache() -> None:
    """Point numba's cache at ``cache.cache_folder()`` (numba reads the setting when a
    function is decorated, so this must run before the compiled modules define theirs), mark it
    as used and remove the stale folders of other sources."""
    # numba re-reads its settings from the environment at a compile when a NUMBA_ variable has
    # changed since it last read them (this module sets one, and numba may have been imported
    # before it), which would reset the folder set here: read them now, then set it.
    numba.core.config.reload_config()  # type: ignore[no-untyped-call]
    # numba's config module sets its attributes at run time, so mypy cannot see this one.
    numba.config.CACHE_DIR = str(cache_folder())  # type: ignore[attr-defined]
    touch_folder()
