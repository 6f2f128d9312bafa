"""The lobby's sockets in this process: everyone on the lobby page (``/ws/lobby``), each
account's sockets on any page (``/ws/account``) and everyone on a tournament's page
(``/ws/tournament/{id}``), and handing them the news.

The news comes on the bus's cluster channel, which every process hears: ``lobby`` news goes to
every lobby socket here, ``account:<id>`` news to that account's sockets here,
``tournament:<id>`` news to that tournament's sockets here. A lobby (or tournament) socket that
has just come is sent the list of seeks (the table) first: news that arrives while it is read
is held and sent after it, so the first message is never followed by an older change; an
account socket likewise gets what waits for the account (``pending``) first.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Final

from bluegray.web.realtime.bus import News
from bluegray.web.realtime.sockets import Connection

LOBBY: Final = "lobby"
ACCOUNT_PREFIX: Final = "account:"
TOURNAMENT_PREFIX: Final = "tournament:"

Listeners = dict[Connection, list[str] | None]
"""Sockets with the news held while their first message is read (``None``: it has been sent,
news goes straight out)."""


def _ready(listeners: Listeners, connection: Connection, first: str) -> None:
    held = listeners.get(connection) or []
    connection.send(first)
    for text in held:
        connection.send(text)
    if connection in listeners:
        listeners[connection] = None


def _hand_out(listeners: Listeners, text: str) -> None:
    for connection, held in listeners.items():
        if held is None:
            connection.send(text)
        else:
            held.append(text)


class LobbyHub:
    """The lobby's and the accounts' sockets of this process."""

    def __init__(self) -> None:
        self._lobby: Listeners = {}
        """Each lobby socket, with the news held while its list of seeks is read."""
        self._accounts: dict[int, Listeners] = defaultdict(dict)
        """Each account's sockets, with the news held while what waits for it is read."""
        self._tournaments: dict[str, Listeners] = defaultdict(dict)
        """Each tournament's sockets, with the news held while its table is read."""

    def join_lobby(self, connection: Connection) -> None:
        """A lobby socket starts hearing the news (held until ``lobby_ready``)."""
        self._lobby[connection] = []

    def lobby_ready(self, connection: Connection, first: str) -> None:
        """Send a lobby socket its list of seeks, then the news held meanwhile."""
        _ready(self._lobby, connection, first)

    def leave_lobby(self, connection: Connection) -> None:
        self._lobby.pop(connection, None)

    def join_account(self, account_id: int, connection: Connection) -> None:
        """An account socket starts hearing its news (held until ``account_ready``)."""
        self._accounts[account_id][connection] = []

    def account_ready(self, account_id: int, connection: Connection, first: str) -> None:
        """Send an account socket what waits for the account, then the news held meanwhile."""
        _ready(self._accounts.get(account_id, {}), connection, first)

    def leave_account(self, account_id: int, connection: Connection) -> None:
        sockets = self._accounts.get(account_id)
        if sockets is not None:
            sockets.pop(connection, None)
            if not sockets:
                del self._accounts[account_id]

    def join_tournament(self, tournament_id: str, connection: Connection) -> None:
        """A tournament's socket starts hearing its news (held until ``tournament_ready``)."""
        self._tournaments[tournament_id][connection] = []

    def tournament_ready(self, tournament_id: str, connection: Connection, first: str) -> None:
        """Send a tournament's socket its table, then the news held meanwhile."""
        _ready(self._tournaments.get(tournament_id, {}), connection, first)

    def leave_tournament(self, tournament_id: str, connection: Connection) -> None:
        listeners = self._tournaments.get(tournament_id)
        if listeners is not None:
            listeners.pop(connection, None)
            if not listeners:
                del self._tournaments[tournament_id]

    def lobby_count(self) -> int:
        return len(self._lobby)

    def account_count(self) -> int:
        return sum(len(sockets) for sockets in self._accounts.values())

    def deliver(self, news: News) -> None:
        """Lobby, account or tournament news (other cluster news is not the lobby's)."""
        if news.kind != "cluster":
            return
        if news.game_id == LOBBY:
            _hand_out(self._lobby, news.text)
        elif news.game_id.startswith(TOURNAMENT_PREFIX):
            listeners = self._tournaments.get(news.game_id.removeprefix(TOURNAMENT_PREFIX))
            if listeners is not None:
                _hand_out(listeners, news.text)
        elif news.game_id.startswith(ACCOUNT_PREFIX):
            try:
                account_id = int(news.game_id.removeprefix(ACCOUNT_PREFIX))
            except ValueError:
                return
            listeners = self._accounts.get(account_id)
            if listeners is not None:
                _hand_out(listeners, news.text)

    async def close_all(self) -> None:
        connections = [
            *self._lobby,
            *(c for group in self._accounts.values() for c in group),
            *(c for group in self._tournaments.values() for c in group),
        ]
        self._lobby.clear()
        self._accounts.clear()
        self._tournaments.clear()
        for connection in connections:
            await connection.stop()
