"""The hub passes a game's news on to its sockets in version order, rereading a gap, and news of
another game or an unwatched one goes nowhere."""

from __future__ import annotations

import asyncio

from bluegray.web.realtime.bus import LocalBus, News
from bluegray.web.realtime.presence import LocalPresence
from bluegray.web.realtime.sockets import Connection, Hub

# -- the hub: states in version order ---------------------------------------------------------


class FakeSocket:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000) -> None:
        return None


def state(version: int) -> News:
    return News("state", "g", version, "other", f"v{version}")


def test_the_hub_passes_states_on_in_version_order_and_rereads_a_gap() -> None:
    rereads: list[str] = []

    async def reread(game_id: str) -> tuple[int, str]:
        rereads.append(game_id)
        return 9, "v9 (read again)"

    async def run() -> list[str]:
        hub = Hub(LocalBus(), LocalPresence("here"), reread)
        socket = FakeSocket()
        connection = Connection(socket, "g", frozenset())  # type: ignore[arg-type]
        await hub.watch("g")
        connection.send_state(4, "v4")
        await hub.add(connection)
        hub.deliver(state(6))  # early: 5 is missing
        hub.deliver(state(4))  # already seen
        hub.deliver(state(5))  # the gap fills: 5 and 6 go out in order
        hub.deliver(state(8))  # 7 never comes ...
        await asyncio.sleep(0.6)  # ... so the game is read again after a moment
        hub.deliver(state(7))  # too late: older than what was read
        await asyncio.sleep(0.05)  # the window in which the too-late news must not go out
        await connection.stop()
        return socket.sent

    sent = asyncio.run(run())
    assert sent == ["v4", "v5", "v6", "v9 (read again)"]
    assert rereads == ["g"]


def test_news_of_another_game_or_an_unwatched_one_goes_nowhere() -> None:
    async def run() -> list[str]:
        hub = Hub(LocalBus(), LocalPresence("here"), _never)
        socket = FakeSocket()
        connection = Connection(socket, "g", frozenset())  # type: ignore[arg-type]
        await hub.add(connection)
        hub.deliver(News("state", "h", 1, "other", "other game"))
        hub.deliver(News("presence", "g", 1, "other", "presence"))
        await asyncio.sleep(0.05)  # the window in which the other games' news must not arrive
        await hub.remove(connection, 0)
        hub.deliver(News("presence", "g", 1, "other", "after it left"))
        await connection.stop()
        return socket.sent

    assert asyncio.run(run()) == ["presence"]


async def _never(game_id: str) -> tuple[int, str]:
    raise AssertionError("no gap here")
