"""The tests' own server (``conftest.LiveServer``, uvicorn in a thread) keeps idle connections as
``bluegray serve`` does: the browser tests' request contexts reuse a connection after a pause,
and a server closing it at that moment answers them ``read ECONNRESET``."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from tests.web.conftest import LiveServer

#: Shorter than uvicorn's own default (5 s), so that the test is quick and tells them apart.
KEEP_ALIVE_SECONDS = 1


def test_the_test_server_keeps_an_idle_connection_as_long_as_the_setting_says(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(keep_alive_seconds=KEEP_ALIVE_SECONDS)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert connection.recv(65536).startswith(b"HTTP/1.1 200")
        answered = time.monotonic()
        # The server closes it (the read ends) after the setting's time, not uvicorn's 5 s.
        while connection.recv(65536):
            pass
        idle = time.monotonic() - answered
    assert KEEP_ALIVE_SECONDS - 0.2 < idle < KEEP_ALIVE_SECONDS + 2.5
