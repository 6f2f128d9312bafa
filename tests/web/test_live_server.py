"""The tests' own server (``conftest.LiveServer``, uvicorn in a thread) keeps idle connections as
``bluegray serve`` does: the browser tests' request contexts reuse a connection after a pause,
and a server closing it at that moment answers them ``read ECONNRESET``."""

from __future__ import annotations

from collections.abc import Callable

from tests.web.conftest import LiveServer, idle_connection_seconds

#: Shorter than uvicorn's own default (5 s), so that the test is quick and tells them apart.
KEEP_ALIVE_SECONDS = 1


def test_the_test_server_keeps_an_idle_connection_as_long_as_the_setting_says(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(keep_alive_seconds=KEEP_ALIVE_SECONDS)
    # The server closes it after the setting's time, not uvicorn's 5 s.
    idle = idle_connection_seconds(server.port)
    assert KEEP_ALIVE_SECONDS - 0.2 < idle < KEEP_ALIVE_SECONDS + 2.5
