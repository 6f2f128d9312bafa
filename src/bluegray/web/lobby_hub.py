"""The lobby's sockets in this process: everyone on the lobby page (``/ws/lobby``) and each
account's sockets on any page (``/ws/account``), and handing them the lobby's news.

The news comes on the bus's cluster channel, which every process hears: ``lobby`` news goes to
every lobby socket here, ``account:<id>`` news to that account's sockets here. A lobby socket
that has just come is sent the list of seeks first: news that arrives while the list is read
is held and sent after it, so the list is never followed by an older change.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Final

from bluegray.web.bus import News
from bluegray.web.ws import Connection

LOBBY: Final = "lobby"
ACCOUNT_PREFIX: Final = "account:"


class LobbyHub:
    """The lobby's and the accounts' sockets of this process."""

    def __init__(self) -> None:
        self._lobby: dict[Connection, list[str] | None] = {}
        """Each lobby socket, with the news held while its list of seeks is read (``None``:
        the list has been sent, news goes straight out)."""
        self._accounts: dict[int, set[Connection]] = defaultdict(set)

    def join_lobby(self, connection: Connection) -> None:
        """A lobby socket starts hearing the news (held until ``lobby_ready``)."""
        self._lobby[connection] = []

    def lobby_ready(self, connection: Connection, first: str) -> None:
        """Send a lobby socket its list of seeks, then the news held meanwhile."""
        held = self._lobby.get(connection) or []
        connection.send(first)
        for text in held:
            connection.send(text)
        if connection in self._lobby:
            self._lobby[connection] = None

    def leave_lobby(self, connection: Connection) -> None:
        self._lobby.pop(connection, None)

    def join_account(self, account_id: int, connection: Connection) -> None:
        self._accounts[account_id].add(connection)

    def leave_account(self, account_id: int, connection: Connection) -> None:
        sockets = self._accounts.get(account_id)
        if sockets is not None:
            sockets.discard(connection)
            if not sockets:
                del self._accounts[account_id]

    def lobby_count(self) -> int:
        return len(self._lobby)

    def account_count(self) -> int:
        return sum(len(sockets) for sockets in self._accounts.values())

    def deliver(self, news: News) -> None:
        """Lobby or account news (cluster news of other kinds is not the lobby's)."""
        if news.kind != "cluster":
            return
        if news.game_id == LOBBY:
            for connection, held in self._lobby.items():
                if held is None:
                    connection.send(news.text)
                else:
                    held.append(news.text)
        elif news.game_id.startswith(ACCOUNT_PREFIX):
            try:
                account_id = int(news.game_id.removeprefix(ACCOUNT_PREFIX))
            except ValueError:
                return
            for connection in list(self._accounts.get(account_id, ())):
                connection.send(news.text)

    async def close_all(self) -> None:
        connections = [*self._lobby, *(c for group in self._accounts.values() for c in group)]
        self._lobby.clear()
        self._accounts.clear()
        for connection in connections:
            await connection.stop()
