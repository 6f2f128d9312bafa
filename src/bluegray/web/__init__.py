"""The web app (``bluegray serve``): play online, against the AI or hot-seat; replay, analyse,
download and import games. It needs the ``web`` extra: ``pip install "bluegray[web]"``.

``create_app`` and ``Settings`` are imported on first use, so that the engine's worker
processes, which import ``bluegray.web.ai``, do not load the web framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bluegray.web.app import create_app
    from bluegray.web.settings import Settings

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from bluegray.web.app import create_app

        return create_app
    if name == "Settings":
        from bluegray.web.settings import Settings

        return Settings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
