"""A tournament as read from its rows, and its table computed from them (arena.py's or
swiss_standings.py's, over the games as values)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Row, func, select
from sqlalchemy.orm import Session

from bluegray.web.accounts.players import lock_accounts
from bluegray.web.games.schemas import ClockSettings
from bluegray.web.platform.models import table_of
from bluegray.web.tournaments import arena, swiss, swiss_standings
from bluegray.web.tournaments.results import Result
from bluegray.web.tournaments.rows import (
    TournamentByeRow,
    TournamentGameRow,
    TournamentPlayerRow,
    TournamentRow,
)
from bluegray.web.tournaments.schemas import (
    StandingLine,
    Standings,
    TournamentGame,
    TournamentInfo,
)

_TOURNAMENTS = table_of(TournamentRow)
_PLAYERS = table_of(TournamentPlayerRow)
_GAMES = table_of(TournamentGameRow)
_BYES = table_of(TournamentByeRow)


def moment(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


@dataclass(frozen=True)
class Snapshot:
    """A tournament's rows at one version."""

    row: Row[Any]
    players: tuple[Row[Any], ...]
    games: tuple[Row[Any], ...]
    """In the order they started."""
    byes: dict[int, int]
    """A Swiss's byes: round -> account id."""

    @property
    def names(self) -> dict[int, str]:
        return {player.account_id: player.name for player in self.players}

    def unfinished(self) -> list[Row[Any]]:
        return [game for game in self.games if game.result is None]

    def info(self) -> TournamentInfo:
        row = self.row
        return TournamentInfo(
            id=row.id,
            kind=row.kind,
            name=row.name,
            creator=row.creator_name,
            rules=row.rules,
            clock=ClockSettings(
                minutes=row.clock_initial_ms / 60_000,
                increment_seconds=row.clock_increment_ms / 1000,
            ),
            rated=row.rated,
            starts_at_ms=row.starts_at_ms,
            minutes=row.minutes,
            rounds=row.rounds,
            ends_at_ms=row.ends_at_ms,
            round=row.round,
            status=row.status,
            players=sum(not player.withdrawn for player in self.players),
            finished_ms=row.finished_ms,
            note=row.note,
            path=f"/tournament/{row.id}",
        )

    def game_views(self) -> list[TournamentGame]:
        names = self.names
        return [
            TournamentGame(
                game_id=game.game_id,
                path=f"/game/{game.game_id}",
                round=game.round,
                board=game.board,
                blue=names[game.blue_id],
                gray=names[game.gray_id],
                result=game.result,
                forfeit=game.forfeit,
            )
            for game in self.games
        ]

    # -- the algorithms' values ----------------------------------------------------------------

    def arena_players(self) -> list[arena.ArenaPlayer]:
        return [arena.ArenaPlayer(player.name, player.rating) for player in self.players]

    def arena_games(self) -> list[arena.ArenaGame]:
        """The games that count in an arena (a forfeit counts for neither)."""
        names = self.names
        return [
            arena.ArenaGame(
                names[game.blue_id],
                names[game.gray_id],
                None if game.result is None else Result(game.result),
            )
            for game in self.games
            if not game.forfeit
        ]

    def swiss_players(self) -> list[swiss.SwissPlayer]:
        return [swiss.SwissPlayer(player.name, player.rating) for player in self.players]

    def swiss_settings(self) -> swiss.SwissSettings:
        return swiss.SwissSettings(rounds=self.row.rounds or 1)

    def swiss_rounds(self) -> list[swiss.SwissRound]:
        names = self.names
        rounds = []
        for number in range(1, self.row.round + 1):
            games = tuple(
                swiss.SwissGame(
                    names[game.blue_id],
                    names[game.gray_id],
                    None if game.result is None else Result(game.result),
                    forfeit=game.forfeit,
                )
                for game in sorted(self.games, key=lambda game: game.board or 0)
                if game.round == number
            )
            bye = self.byes.get(number)
            rounds.append(swiss.SwissRound(games, None if bye is None else names[bye]))
        return rounds

    def withdrawn(self) -> set[str]:
        return {player.name for player in self.players if player.withdrawn}

    def standings(self) -> Standings:
        gone = self.withdrawn()
        lines = []
        if self.row.kind == "arena":
            for line in arena.standings(self.arena_players(), self.arena_games()):
                card = line.sheet
                lines.append(
                    StandingLine(
                        place=line.rank,
                        name=line.name,
                        score=line.score,
                        games=card.games,
                        wins=card.wins,
                        draws=card.draws,
                        losses=card.losses,
                        rating=line.rating,
                        withdrawn=line.name in gone,
                        on_fire=card.on_fire,
                        performance=line.performance,
                    )
                )
        else:
            ratings = {player.name: player.rating for player in self.players}
            table = swiss_standings.standings(
                self.swiss_players(), self.swiss_rounds(), self.swiss_settings()
            )
            for standing in table:
                lines.append(
                    StandingLine(
                        place=standing.place,
                        name=standing.name,
                        score=standing.points,
                        games=standing.wins + standing.draws + standing.losses,
                        wins=standing.wins + standing.forfeit_wins,
                        draws=standing.draws,
                        losses=standing.losses + standing.forfeit_losses,
                        rating=ratings[standing.name],
                        withdrawn=standing.name in gone,
                        buchholz=standing.buchholz,
                        sonneborn_berger=standing.sonneborn_berger,
                        byes=standing.byes,
                    )
                )
        names = self.names
        byes = {number: names[account] for number, account in self.byes.items()}
        return Standings(tournament=self.info(), standings=lines, byes=byes)


def read_snapshot(session: Session, tournament_id: str) -> Snapshot | None:
    row = session.execute(select(_TOURNAMENTS).where(_TOURNAMENTS.c.id == tournament_id)).first()
    if row is None:
        return None
    players = session.execute(
        select(_PLAYERS)
        .where(_PLAYERS.c.tournament_id == tournament_id)
        .order_by(_PLAYERS.c.joined_ms, _PLAYERS.c.account_id)
    ).all()
    games = session.execute(
        select(_GAMES).where(_GAMES.c.tournament_id == tournament_id).order_by(_GAMES.c.seq)
    ).all()
    byes = session.execute(select(_BYES).where(_BYES.c.tournament_id == tournament_id)).all()
    return Snapshot(row, tuple(players), tuple(games), {bye.round: bye.account_id for bye in byes})


def event_of_game(session: Session, game_id: str) -> tuple[str, int | None] | None:
    """The tournament a game was played in, as its record names it: the tournament's name and
    the game's round (``None`` in an arena); ``None`` for a game of no tournament."""
    found = session.execute(
        select(_TOURNAMENTS.c.name, _GAMES.c.round)
        .join(_GAMES, _GAMES.c.tournament_id == _TOURNAMENTS.c.id)
        .where(_GAMES.c.game_id == game_id)
    ).first()
    return None if found is None else (found.name, found.round)


def list_rows(session: Session, offset: int = 0, limit: int = 100) -> tuple[list[Snapshot], int]:
    """One page of the tournaments: those to come and running first (soonest first), then the
    finished (latest first), ``limit`` from ``offset`` in that order; and how many there are in
    all (the pages never leave one out)."""
    unfinished = _TOURNAMENTS.c.status != "finished"
    open_count = session.execute(
        select(func.count()).select_from(_TOURNAMENTS).where(unfinished)
    ).scalar_one()
    total = session.execute(select(func.count()).select_from(_TOURNAMENTS)).scalar_one()
    ids: list[str] = []
    if offset < open_count:
        ids += session.execute(
            select(_TOURNAMENTS.c.id)
            .where(unfinished)
            .order_by(_TOURNAMENTS.c.starts_at_ms, _TOURNAMENTS.c.id)
            .offset(offset)
            .limit(limit)
        ).scalars()
    if len(ids) < limit:
        ids += session.execute(
            select(_TOURNAMENTS.c.id)
            .where(~unfinished)
            .order_by(_TOURNAMENTS.c.finished_ms.desc(), _TOURNAMENTS.c.id)
            .offset(max(0, offset - open_count))
            .limit(limit - len(ids))
        ).scalars()
    found = (read_snapshot(session, tournament_id) for tournament_id in ids)
    return [snapshot for snapshot in found if snapshot is not None], int(total)


def created_by(connection: Connection, account_id: int, since_ms: int) -> tuple[int, int]:
    """How many tournaments the account has created that have not finished, and how many it
    created since ``since_ms``, holding its row (PostgreSQL) so that two creations at once count
    one after the other."""
    lock_accounts(connection, [account_id])
    mine = _TOURNAMENTS.c.creator_id == account_id
    unfinished = connection.execute(
        select(func.count())
        .select_from(_TOURNAMENTS)
        .where(mine, _TOURNAMENTS.c.status != "finished")
    ).scalar_one()
    recent = connection.execute(
        select(func.count())
        .select_from(_TOURNAMENTS)
        .where(mine, _TOURNAMENTS.c.created_ms >= since_ms)
    ).scalar_one()
    return int(unfinished), int(recent)
