"""Arena tournaments, as lichess runs them: for a fixed time, a player who is free is paired as
soon as someone near them in the table is free too, and a streak of wins scores double.

Scoring: a win is 2 points, a draw 1, a loss 0. After two wins in a row a player is on a
streak ("on fire"): every game counts double (a win 4, a draw 2) until a game that is not a win.

Pairing (`pair_waiting`): among the players waiting at a moment, as many pairs as can be made,
of the least total distance, where the distance of two players is their distance in the table
(weighing more near the top, as on lichess) plus their difference in rating. Two players who
have just played each other are not paired again unless both have waited `rematch_after` for
someone else (a small arena would otherwise stall). No pairing before the start or in the last
`closes_before_end`.

Pure functions over explicit values: the games so far, who is waiting since when, the time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bluegray.pieces import Side
from bluegray.web.tournaments.results import Result, TournamentError

WIN_POINTS = 2
DRAW_POINTS = 1
STREAK_WINS = 2
"""Wins in a row that put a player on a streak."""

EXACT_POOL = 40
"""The most waiting players matched at once (`pair_waiting`)."""

PERFORMANCE_SPREAD = 400
"""Rating points per unit of (wins - losses) / games in the performance (Elo's linear rule)."""


class ArenaError(TournamentError):
    """Bad arena input: an unknown player, a player waiting twice or waiting while playing..."""


@dataclass(frozen=True)
class ArenaPlayer:
    """A player of the arena and their rating when they joined (it orders newcomers)."""

    name: str
    rating: int


@dataclass(frozen=True)
class ArenaGame:
    """A game of the arena; ``result`` is ``None`` while it is played. Games are given in the
    order they started (a player plays one game at a time, so it is also their finishing
    order)."""

    blue: str
    gray: str
    result: Result | None = None

    def __post_init__(self) -> None:
        if self.blue == self.gray:
            raise ArenaError(f"{self.blue!r} cannot play themselves")


@dataclass(frozen=True)
class ArenaSheet:
    """A player's score sheet: each finished game's points in order, with the games that
    counted double marked."""

    name: str
    points: tuple[int, ...] = ()
    doubled: tuple[bool, ...] = ()
    wins: int = 0
    draws: int = 0
    losses: int = 0
    on_fire: bool = False
    """Whether the player's next game counts double."""

    @property
    def score(self) -> int:
        return sum(self.points)

    @property
    def games(self) -> int:
        return len(self.points)


def sheet(name: str, games: Sequence[ArenaGame]) -> ArenaSheet:
    """``name``'s score sheet from the arena's ``games`` (unfinished ones count nothing)."""
    points: list[int] = []
    doubled: list[bool] = []
    wins = draws = losses = in_a_row = 0
    for game in games:
        if game.result is None or name not in (game.blue, game.gray):
            continue
        side = Side.BLUE if game.blue == name else Side.GRAY
        on_fire = in_a_row >= STREAK_WINS
        factor = 2 if on_fire else 1
        if game.result.winner is side:
            points.append(WIN_POINTS * factor)
            wins += 1
            in_a_row += 1
        elif game.result is Result.DRAW:
            points.append(DRAW_POINTS * factor)
            draws += 1
            in_a_row = 0
        else:
            points.append(0)
            losses += 1
            in_a_row = 0
        doubled.append(on_fire)
    return ArenaSheet(
        name, tuple(points), tuple(doubled), wins, draws, losses, in_a_row >= STREAK_WINS
    )


@dataclass(frozen=True)
class ArenaStanding:
    """One line of the arena's table."""

    rank: int
    """The place in the table, 1 at the top; every player has their own."""
    name: str
    score: int
    sheet: ArenaSheet
    performance: int | None
    """The rating the player's results are worth: the opponents' mean rating, plus
    `PERFORMANCE_SPREAD` times (wins - losses) / games; ``None`` before a finished game."""
    rating: int


def _check_games(known: Mapping[str, object], games: Sequence[ArenaGame]) -> None:
    playing: set[str] = set()
    for game in games:
        for name in (game.blue, game.gray):
            if name not in known:
                raise ArenaError(f"a game names {name!r}, who is not in the arena")
            if game.result is None:
                if name in playing:
                    raise ArenaError(f"{name!r} is in two unfinished games")
                playing.add(name)


def standings(
    players: Sequence[ArenaPlayer], games: Sequence[ArenaGame]
) -> tuple[ArenaStanding, ...]:
    """The table: by score, then performance (players without a finished game after those with
    one), then rating, then name. Live while games are played, final at the end."""
    ratings = {p.name: p.rating for p in players}
    if len(ratings) != len(players):
        raise ArenaError("a player is in the arena twice")
    _check_games(ratings, games)
    lines = []
    for player in players:
        card = sheet(player.name, games)
        opponents = [
            ratings[g.gray if g.blue == player.name else g.blue]
            for g in games
            if g.result is not None and player.name in (g.blue, g.gray)
        ]
        performance = None
        if opponents:
            balance = PERFORMANCE_SPREAD * (card.wins - card.losses) / len(opponents)
            performance = round(sum(opponents) / len(opponents) + balance)
        lines.append((player, card, performance))
    lines.sort(
        key=lambda line: (
            -line[1].score,
            line[2] is None,
            -(line[2] or 0),
            -line[0].rating,
            line[0].name,
        )
    )
    return tuple(
        ArenaStanding(rank, player.name, card.score, card, performance, player.rating)
        for rank, (player, card, performance) in enumerate(lines, start=1)
    )


@dataclass(frozen=True)
class ArenaSettings:
    """When the arena runs, and its pairing's timings."""

    starts_at: datetime
    ends_at: datetime
    closes_before_end: timedelta = timedelta(seconds=30)
    """No new game starts this close to the end (lichess: half the clock, 30 s to 2 min)."""
    rematch_after: timedelta = timedelta(seconds=20)
    """How long two players who have just played each other wait for someone else."""

    def __post_init__(self) -> None:
        if self.ends_at <= self.starts_at:
            raise ArenaError("an arena must end after it starts")
        if self.closes_before_end < timedelta(0) or self.rematch_after < timedelta(0):
            raise ArenaError("the arena's timings cannot be negative")

    def pairing_open(self, now: datetime) -> bool:
        """Whether games may start at ``now``."""
        return self.starts_at <= now < self.ends_at - self.closes_before_end


@dataclass(frozen=True)
class WaitingPlayer:
    """A player free for a game: where they stand, since when they wait, and what the pairing
    needs of their history (`waiting_players` builds these from the games)."""

    name: str
    rank: int
    rating: int
    waiting_since: datetime
    last_opponent: str | None = None
    side_balance: int = 0
    """Games with Blue minus games with Gray."""
    last_side: Side | None = None


def waiting_players(
    waiting: Mapping[str, datetime],
    table: Sequence[ArenaStanding],
    games: Sequence[ArenaGame],
) -> tuple[WaitingPlayer, ...]:
    """The waiting players (name: waiting since) as the pairing reads them, from the table and
    the games (none of the waiting may be in an unfinished game)."""
    lines = {line.name: line for line in table}
    result = []
    for name, since in waiting.items():
        if name not in lines:
            raise ArenaError(f"{name!r} waits but is not in the arena")
        theirs = [g for g in games if name in (g.blue, g.gray)]
        if any(g.result is None for g in theirs):
            raise ArenaError(f"{name!r} waits but is still playing")
        sides = [Side.BLUE if g.blue == name else Side.GRAY for g in theirs]
        last = theirs[-1] if theirs else None
        result.append(
            WaitingPlayer(
                name,
                lines[name].rank,
                lines[name].rating,
                since,
                last_opponent=(last.gray if last.blue == name else last.blue) if last else None,
                side_balance=sides.count(Side.BLUE) - sides.count(Side.GRAY),
                last_side=sides[-1] if sides else None,
            )
        )
    return tuple(result)


@dataclass(frozen=True)
class ArenaPairing:
    """A game to start."""

    blue: str
    gray: str


def distance(a: WaitingPlayer, b: WaitingPlayer, lowest_rank: int) -> int:
    """How far apart two waiting players are: their distance in the table, weighed from 300
    (at the bottom) to 2000 (at the top), plus their difference in rating (lichess's pair
    score). ``lowest_rank`` is the largest rank among those waiting."""
    weight = 300 + 1700 * (lowest_rank - min(a.rank, b.rank)) // max(lowest_rank, 1)
    return abs(a.rank - b.rank) * weight + abs(a.rating - b.rating)


def _may_meet(a: WaitingPlayer, b: WaitingPlayer, now: datetime, settings: ArenaSettings) -> bool:
    just_met = a.last_opponent == b.name or b.last_opponent == a.name
    if not just_met:
        return True
    waited = min(now - a.waiting_since, now - b.waiting_since)
    return waited >= settings.rematch_after


def _sides(a: WaitingPlayer, b: WaitingPlayer) -> ArenaPairing:
    """Blue to whoever had it less often, then to whoever had Gray last, then to the higher
    placed."""

    def claim(p: WaitingPlayer) -> tuple[int, int, int]:
        return (p.side_balance, 0 if p.last_side is Side.GRAY else 1, p.rank)

    first, second = sorted((a, b), key=claim)
    return ArenaPairing(first.name, second.name)


def pair_waiting(
    waiting: Sequence[WaitingPlayer], now: datetime, settings: ArenaSettings
) -> tuple[ArenaPairing, ...]:
    """The games to start now among the ``waiting`` players: as many as can be made, then the
    least total `distance` (see the module's docstring). Best-placed pairs first.

    Up to `EXACT_POOL` players are matched exactly (a maximum-weight matching); a larger crowd
    is taken in slices of that many by rank, each slice's unpaired players joining the next,
    so that the time stays proportional to the crowd (lichess too pairs large arenas by
    simpler means)."""
    names = [p.name for p in waiting]
    if len(set(names)) != len(names):
        raise ArenaError("a player is waiting twice")
    if not settings.pairing_open(now) or len(waiting) < 2:
        return ()
    lowest_rank = max(p.rank for p in waiting)
    ordered = sorted(waiting, key=lambda p: (p.rank, p.name))
    pairs: list[tuple[WaitingPlayer, WaitingPlayer]] = []
    left: list[WaitingPlayer] = []
    for start in range(0, len(ordered), EXACT_POOL):
        pool = left + ordered[start : start + EXACT_POOL]
        paired = _match(pool, lowest_rank, now, settings)
        pairs += paired
        seated = {p.name for pair in paired for p in pair}
        left = [p for p in pool if p.name not in seated]
    pairs.sort(key=lambda pair: min(pair[0].rank, pair[1].rank))
    return tuple(_sides(a, b) for a, b in pairs)


def _match(
    pool: Sequence[WaitingPlayer], lowest_rank: int, now: datetime, settings: ArenaSettings
) -> list[tuple[WaitingPlayer, WaitingPlayer]]:
    """The most pairs of ``pool``, of the least total distance."""
    edges = [
        (i, j, distance(a, b, lowest_rank))
        for i, a in enumerate(pool)
        for j, b in enumerate(pool)
        if i < j and _may_meet(a, b, now, settings)
    ]
    if not edges:
        return []
    # Maximum weight over the matchings of the most pairs: weights that are all positive
    # and fall as the distance grows make it the least total distance.
    ceiling = max(d for _, _, d in edges) + 1
    # networkx takes a tenth of a second or more to import: a web process loads it when an
    # arena first pairs, not as it starts (a tenth of its start-up).
    import networkx as nx  # noqa: PLC0415 - loaded when an arena pairs

    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(len(pool)))
    graph.add_weighted_edges_from((i, j, ceiling - d) for i, j, d in edges)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return [(pool[min(i, j)], pool[max(i, j)]) for i, j in sorted(matching)]
