"""Swiss standings: points, Buchholz and Sonneborn-Berger on hand-made tournaments, shared
places, byes and forfeits, and the table's sums on random ones."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bluegray.web.tournaments.results import Result
from bluegray.web.tournaments.swiss import (
    NoPairingError,
    SwissGame,
    SwissPlayer,
    SwissRound,
    SwissSettings,
    pair_round,
)
from bluegray.web.tournaments.swiss_standings import SwissStanding, standings

BLUE, GRAY, DRAW = Result.BLUE_WINS, Result.GRAY_WINS, Result.DRAW
FOUR = [
    SwissPlayer("ann", 1900),
    SwissPlayer("ben", 1800),
    SwissPlayer("cat", 1700),
    SwissPlayer("dan", 1600),
]


def line(table: tuple[SwissStanding, ...], name: str) -> SwissStanding:
    return next(s for s in table if s.name == name)


def test_a_round_robin_s_table_with_both_tie_breaks() -> None:
    rounds = [
        SwissRound((SwissGame("ann", "cat", BLUE), SwissGame("dan", "ben", DRAW))),
        SwissRound((SwissGame("ben", "ann", DRAW), SwissGame("cat", "dan", BLUE))),
        SwissRound((SwissGame("dan", "ann", BLUE), SwissGame("ben", "cat", BLUE))),
    ]
    table = standings(FOUR, rounds, SwissSettings(rounds=3))
    assert [(s.place, s.name, s.points) for s in table] == [
        (1, "ben", 2.0),
        (2, "dan", 1.5),
        (3, "ann", 1.5),
        (4, "cat", 1.0),
    ]
    # ann and dan: the same points and Buchholz (4.5); dan beat ann, so Sonneborn-Berger
    # (2.5 against 2.0) puts dan ahead.
    assert (line(table, "dan").buchholz, line(table, "dan").sonneborn_berger) == (4.5, 2.5)
    assert (line(table, "ann").buchholz, line(table, "ann").sonneborn_berger) == (4.5, 2.0)
    assert (line(table, "ben").buchholz, line(table, "ben").sonneborn_berger) == (4.0, 2.5)
    assert (line(table, "cat").buchholz, line(table, "cat").sonneborn_berger) == (5.0, 1.5)
    assert (line(table, "ann").wins, line(table, "ann").draws, line(table, "ann").losses) == (
        1,
        1,
        1,
    )


def test_players_level_on_everything_share_their_place() -> None:
    rounds = [SwissRound((SwissGame("ann", "ben", DRAW), SwissGame("cat", "dan", DRAW)))]
    table = standings(FOUR, rounds, SwissSettings(rounds=3))
    assert [(s.place, s.name) for s in table] == [(1, "ann"), (1, "ben"), (1, "cat"), (1, "dan")]


def test_byes_and_forfeits_score_but_lift_no_tie_break() -> None:
    rounds = [
        SwissRound((SwissGame("ann", "ben", BLUE),), bye="cat"),
        SwissRound((SwissGame("cat", "ann", GRAY, forfeit=True),), bye="ben"),
    ]
    table = standings(FOUR[:3], rounds, SwissSettings(rounds=3, bye_points=0.5))
    ann, ben, cat = line(table, "ann"), line(table, "ben"), line(table, "cat")
    assert (ann.points, ann.buchholz, ann.sonneborn_berger, ann.forfeit_wins) == (2.0, 0.5, 0.5, 1)
    assert (ben.points, ben.byes, ben.buchholz) == (0.5, 1, 2.0)
    assert (cat.points, cat.byes, cat.forfeit_losses, cat.buchholz) == (0.5, 1, 1, 0.0)
    assert [s.name for s in table] == ["ann", "ben", "cat"]


def test_the_live_table_counts_finished_games_only() -> None:
    rounds = [SwissRound((SwissGame("ann", "ben", GRAY), SwissGame("cat", "dan")))]
    table = standings(FOUR, rounds, SwissSettings(rounds=3))
    assert table[0].name == "ben" and table[0].points == 1
    assert line(table, "cat").points == line(table, "dan").points == 0
    assert line(table, "cat").wins + line(table, "cat").losses + line(table, "cat").draws == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 8), st.integers(1, 5), st.data())
def test_the_table_adds_up(count: int, rounds: int, data: st.DataObject) -> None:
    players = [SwissPlayer(f"p{i}", 2000 - i) for i in range(count)]
    swiss = SwissSettings(rounds=rounds, bye_points=1.0)
    history: list[SwissRound] = []
    for _ in range(rounds):
        try:
            pairing = pair_round(players, history, swiss)
        except NoPairingError:
            break
        results = [data.draw(st.sampled_from(list(Result))) for _ in pairing.boards]
        games = tuple(
            SwissGame(b.blue, b.gray, r) for b, r in zip(pairing.boards, results, strict=True)
        )
        history.append(SwissRound(games, pairing.bye))
    table = standings(players, history, swiss)
    byes = sum(1 for r in history if r.bye)
    assert sum(s.points for s in table) == sum(len(r.games) for r in history) + byes
    assert sorted(s.name for s in table) == sorted(p.name for p in players)
    assert [s.place for s in table] == sorted(s.place for s in table)
    for s in table:
        assert 0 <= s.sonneborn_berger <= s.buchholz
        assert s.wins + s.draws + s.losses == sum(
            1 for r in history for g in r.games if s.name in (g.blue, g.gray)
        )
    keys = [(-s.points, -s.buchholz, -s.sonneborn_berger) for s in table]
    assert keys == sorted(keys)
