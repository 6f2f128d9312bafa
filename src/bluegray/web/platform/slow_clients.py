"""Slow clients dropped at the HTTP protocol, before any request reaches the app: uvicorn holds a
connection for as long as its client takes to send the request's headers (it has no header-read
timeout of its own), so a few hundred half-sent requests would hold as many connections for ever.

``slow_client_protocol`` is uvicorn's own h11 protocol with two deadlines: the headers of each
request within ``header_timeout_seconds`` of the connection's opening (or of the first byte of a
later request on it), and its body at ``body_min_bytes_per_second`` at least once that much time
has passed again. A connection that misses one is closed. The idle time between requests stays
uvicorn's keep-alive timeout, and a WebSocket, once upgraded, is no longer this protocol's.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from bluegray.web.platform.settings import Settings

CHECK_SECONDS = 1.0
"""How often a request's body is checked for its rate."""


def slow_client_protocol(settings: Settings) -> type[H11Protocol]:
    """uvicorn's h11 protocol, dropping the clients too slow for ``settings``."""
    header_seconds = settings.header_timeout_seconds
    body_rate = settings.body_min_bytes_per_second

    class SlowClientProtocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._timer: asyncio.TimerHandle | None = None
            self._body_started = 0.0
            self._body_bytes = 0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._timer = self.loop.call_later(header_seconds, self._headers_late)

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            state = self.conn.their_state
            if state is h11.IDLE:
                if self._timer is None and self.conn.trailing_data[0]:  # a request begun
                    self._timer = self.loop.call_later(header_seconds, self._headers_late)
            elif state is h11.SEND_BODY:
                if not self._body_started:
                    self._stop_timer()
                    self._body_started, self._body_bytes = self.loop.time(), 0
                    self._timer = self.loop.call_later(CHECK_SECONDS, self._check_body)
                self._body_bytes += len(data)
            else:
                self._stop_timer()
                self._body_started = 0.0

        def _stop_timer(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _ours(self) -> bool:
            """Whether the connection is still this protocol's (not upgraded, not closed)."""
            return self.transport.get_protocol() is self and not self.transport.is_closing()

        def _headers_late(self) -> None:
            self._timer = None
            if self._ours() and self.conn.their_state is h11.IDLE:
                self.transport.close()

        def _check_body(self) -> None:
            self._timer = None
            if not self._ours() or self.conn.their_state is not h11.SEND_BODY:
                return
            elapsed = self.loop.time() - self._body_started
            if self._body_bytes < body_rate * (elapsed - header_seconds):
                self.transport.close()
                return
            self._timer = self.loop.call_later(CHECK_SECONDS, self._check_body)

    return SlowClientProtocol
