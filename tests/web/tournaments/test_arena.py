"""Arena tournaments: scores with streaks, the table, and the pairing of waiting players (by
closeness in the table, no immediate rematch, sides, the time)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bluegray.pieces import Side
from bluegray.web.tournaments.arena import (
    ArenaError,
    ArenaGame,
    ArenaPairing,
    ArenaPlayer,
    ArenaSettings,
    WaitingPlayer,
    pair_waiting,
    sheet,
    standings,
    waiting_players,
)
from bluegray.web.tournaments.results import Result

BLUE, GRAY, DRAW = Result.BLUE_WINS, Result.GRAY_WINS, Result.DRAW
START = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
HOUR = ArenaSettings(START, START + timedelta(hours=1))
SOON = START + timedelta(minutes=10)


def games_of(name: str, results: str) -> list[ArenaGame]:
    """``name``'s games against a stream of opponents: W a win, D a draw, L a loss."""
    outcome = {"W": BLUE, "D": DRAW, "L": GRAY}
    return [ArenaGame(name, f"o{i}", outcome[r]) for i, r in enumerate(results)]


F, T = False, True


@pytest.mark.parametrize(
    ("results", "points", "doubled", "on_fire"),
    [
        ("WWW", (2, 2, 4), (F, F, T), True),
        ("WWWWL", (2, 2, 4, 4, 0), (F, F, T, T, T), False),
        ("WWDW", (2, 2, 2, 2), (F, F, T, F), False),  # a draw on a streak counts double, ends it
        ("WLWDWW", (2, 0, 2, 1, 2, 2), (F, F, F, F, F, F), True),
        ("DDD", (1, 1, 1), (F, F, F), False),
        ("", (), (), False),
    ],
)
def test_wins_count_double_after_two_wins_in_a_row(
    results: str, points: tuple[int, ...], doubled: tuple[bool, ...], on_fire: bool
) -> None:
    card = sheet("ann", games_of("ann", results))
    assert card.points == points and card.doubled == doubled
    assert card.score == sum(points) and card.games == len(results)
    assert card.on_fire is on_fire
    assert (card.wins, card.draws, card.losses) == (
        results.count("W"),
        results.count("D"),
        results.count("L"),
    )


def test_a_sheet_reads_both_sides_and_skips_games_in_play() -> None:
    games = [
        ArenaGame("ann", "bob", BLUE),
        ArenaGame("cy", "ann", GRAY),
        ArenaGame("ann", "bob"),
    ]
    card = sheet("ann", games)
    assert card.points == (2, 2) and card.on_fire
    assert sheet("bob", games).points == (0,)


def test_the_table_orders_by_score_then_performance() -> None:
    players = [ArenaPlayer("ann", 1500), ArenaPlayer("bob", 1900), ArenaPlayer("cy", 1700)]
    games = [
        ArenaGame("ann", "bob", BLUE),  # ann beats the strongest
        ArenaGame("cy", "ann", DRAW),
        ArenaGame("bob", "cy", BLUE),
    ]
    table = standings([*players, ArenaPlayer("dee", 2000)], games)
    assert [(s.rank, s.name, s.score) for s in table] == [
        (1, "ann", 3),
        (2, "bob", 2),
        (3, "cy", 1),
        (4, "dee", 0),
    ]
    # ann: opponents 1900 and 1700, one win one draw: 1800 + 400 * 1 / 2.
    assert table[0].performance == 2000
    assert table[3].performance is None
    level = standings(players, [ArenaGame("ann", "cy", DRAW)])
    # Level on score: the better performance first (ann drew a stronger player).
    assert [s.name for s in level] == ["ann", "cy", "bob"]


def waiting(name: str, rank: int, rating: int = 1500, **more: object) -> WaitingPlayer:
    return WaitingPlayer(name, rank, rating, more.pop("since", SOON), **more)  # type: ignore[arg-type]


def test_two_waiting_players_are_paired_and_one_waits_alone() -> None:
    assert pair_waiting([waiting("ann", 1)], SOON, HOUR) == ()
    pairs = pair_waiting([waiting("ann", 1), waiting("bob", 2)], SOON, HOUR)
    assert pairs == (ArenaPairing("ann", "bob"),)


def test_players_are_paired_with_those_near_them_in_the_table() -> None:
    players = [waiting(n, r) for n, r in [("a", 1), ("b", 2), ("c", 9), ("d", 10)]]
    pairs = pair_waiting(players, SOON, HOUR)
    assert {frozenset((p.blue, p.gray)) for p in pairs} == {frozenset("ab"), frozenset("cd")}
    # Best-placed pair first.
    assert {pairs[0].blue, pairs[0].gray} == {"a", "b"}
    # Ratings count when the table does not tell them apart.
    rated = [
        waiting("a", 5, 1500),
        waiting("b", 5, 2100),
        waiting("c", 5, 1510),
        waiting("d", 5, 2090),
    ]
    pairs = pair_waiting(rated, SOON, HOUR)
    assert {frozenset((p.blue, p.gray)) for p in pairs} == {frozenset("ac"), frozenset("bd")}


def test_a_crowd_is_paired_neighbour_with_neighbour() -> None:
    crowd = [waiting(f"p{rank}", rank) for rank in range(121, 0, -1)]
    pairs = pair_waiting(crowd, SOON, HOUR)
    assert len(pairs) == 60
    ranks = [sorted(int(name[1:]) for name in (p.blue, p.gray)) for p in pairs]
    assert ranks == [[r, r + 1] for r in range(1, 121, 2)]


def test_the_odd_one_out_waits() -> None:
    players = [waiting("a", 1), waiting("b", 2), waiting("z", 30)]
    pairs = pair_waiting(players, SOON, HOUR)
    assert pairs == (ArenaPairing("a", "b"),)


def test_no_immediate_rematch_unless_both_have_waited() -> None:
    ann = waiting("ann", 1, last_opponent="bob")
    bob = waiting("bob", 2, last_opponent="ann")
    assert pair_waiting([ann, bob], SOON, HOUR) == ()
    cy = waiting("cy", 3)
    pairs = pair_waiting([ann, bob, cy], SOON, HOUR)
    assert len(pairs) == 1 and "cy" in (pairs[0].blue, pairs[0].gray)
    # After waiting long enough for someone else, they play again.
    later = SOON + HOUR.rematch_after
    assert len(pair_waiting([ann, bob], later, HOUR)) == 1
    fresh = waiting("bob", 2, last_opponent="ann", since=later - timedelta(seconds=1))
    assert pair_waiting([ann, fresh], later, HOUR) == ()


def test_blue_goes_to_whoever_had_it_less() -> None:
    ann = waiting("ann", 1, side_balance=1, last_side=Side.BLUE)
    bob = waiting("bob", 2, side_balance=0, last_side=Side.BLUE)
    assert pair_waiting([ann, bob], SOON, HOUR) == (ArenaPairing("bob", "ann"),)
    cy = waiting("cy", 2, side_balance=1, last_side=Side.GRAY)
    assert pair_waiting([ann, cy], SOON, HOUR) == (ArenaPairing("cy", "ann"),)
    # Nothing to tell them apart: the better placed has Blue.
    assert pair_waiting([waiting("x", 4), waiting("y", 3)], SOON, HOUR) == (ArenaPairing("y", "x"),)


def test_no_game_starts_before_the_start_or_close_to_the_end() -> None:
    pair = [waiting("ann", 1), waiting("bob", 2)]
    assert pair_waiting(pair, START - timedelta(seconds=1), HOUR) == ()
    assert len(pair_waiting(pair, START, HOUR)) == 1
    last_minute = HOUR.ends_at - HOUR.closes_before_end
    assert len(pair_waiting(pair, last_minute - timedelta(seconds=1), HOUR)) == 1
    assert pair_waiting(pair, last_minute, HOUR) == ()
    assert pair_waiting(pair, HOUR.ends_at + timedelta(hours=1), HOUR) == ()


def test_waiting_players_are_read_from_the_table_and_the_games() -> None:
    players = [ArenaPlayer("ann", 1600), ArenaPlayer("bob", 1500), ArenaPlayer("cy", 1400)]
    games = [ArenaGame("ann", "bob", BLUE), ArenaGame("cy", "ann", DRAW), ArenaGame("bob", "cy")]
    table = standings(players, games)
    (ann,) = waiting_players({"ann": SOON}, table, games)
    assert ann == WaitingPlayer("ann", 1, 1600, SOON, "cy", 0, Side.GRAY)
    with pytest.raises(ArenaError, match="'bob' waits but is still playing"):
        waiting_players({"bob": SOON}, table, games)
    with pytest.raises(ArenaError, match="'zed' waits but is not in the arena"):
        waiting_players({"zed": SOON}, table, games)


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ArenaError, match="cannot play themselves"):
        ArenaGame("ann", "ann")
    with pytest.raises(ArenaError, match="end after it starts"):
        ArenaSettings(START, START)
    with pytest.raises(ArenaError, match="'zed', who is not in the arena"):
        standings([ArenaPlayer("ann", 1500)], [ArenaGame("ann", "zed", DRAW)])
    with pytest.raises(ArenaError, match="'ann' is in two unfinished games"):
        standings(
            [ArenaPlayer("ann", 1), ArenaPlayer("bob", 1), ArenaPlayer("cy", 1)],
            [ArenaGame("ann", "bob"), ArenaGame("cy", "ann")],
        )
    with pytest.raises(ArenaError, match="waiting twice"):
        pair_waiting([waiting("ann", 1), waiting("ann", 1)], SOON, HOUR)


def most_pairs(players: list[WaitingPlayer], now: datetime) -> int:
    """The most pairs that can be made (searched exhaustively)."""
    for size in range(len(players) // 2, 0, -1):
        for chosen in itertools.combinations(players, 2 * size):
            if _perfect(list(chosen), now):
                return size
    return 0


def _perfect(players: list[WaitingPlayer], now: datetime) -> bool:
    if not players:
        return True
    first, rest = players[0], players[1:]
    for other in rest:
        just_met = first.last_opponent == other.name or other.last_opponent == first.name
        waited = min(now - first.waiting_since, now - other.waiting_since)
        if just_met and waited < HOUR.rematch_after:
            continue
        if _perfect([p for p in rest if p is not other], now):
            return True
    return False


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 9), st.data())
def test_the_most_pairs_are_made_and_no_rematch_comes_too_soon(
    count: int, data: st.DataObject
) -> None:
    names = [f"p{i}" for i in range(count)]
    players = []
    for rank, name in enumerate(names, start=1):
        opponent = data.draw(st.sampled_from([None, *[n for n in names if n != name]]))
        waited = data.draw(st.integers(0, 40))
        players.append(
            WaitingPlayer(
                name,
                rank,
                data.draw(st.integers(1000, 2500)),
                SOON - timedelta(seconds=waited),
                last_opponent=opponent,
                side_balance=data.draw(st.integers(-2, 2)),
            )
        )
    pairs = pair_waiting(players, SOON, HOUR)
    seated = [n for p in pairs for n in (p.blue, p.gray)]
    assert len(seated) == len(set(seated)) and set(seated) <= set(names)
    assert len(pairs) == most_pairs(players, SOON)
    by_name = {p.name: p for p in players}
    for p in pairs:
        a, b = by_name[p.blue], by_name[p.gray]
        if a.last_opponent == b.name or b.last_opponent == a.name:
            assert min(SOON - a.waiting_since, SOON - b.waiting_since) >= HOUR.rematch_after
        assert a.side_balance <= b.side_balance


@given(st.text(alphabet="WDL", max_size=30))
def test_a_score_is_between_the_plain_points_and_double_them(results: str) -> None:
    card = sheet("ann", games_of("ann", results))
    plain = 2 * results.count("W") + results.count("D")
    assert plain <= card.score <= 2 * plain
    if "WW" not in results[:-1]:
        assert card.score == plain


@pytest.mark.parametrize(
    ("winner", "token", "blue_points"),
    [(Side.BLUE, "1-0", 1), (Side.GRAY, "0-1", 0), (None, "1/2-1/2", 0.5)],
)
def test_results_are_spelled_as_game_records_spell_them(
    winner: Side | None, token: str, blue_points: float
) -> None:
    result = Result.of(winner)
    assert result.value == token and Result(token) is result and result.winner is winner
    assert result.points(Side.BLUE) == blue_points
    assert result.points(Side.BLUE) + result.points(Side.GRAY) == 1


def test_a_web_process_starts_without_networkx_and_loads_it_when_an_arena_pairs() -> None:
    # networkx took a tenth of every web process's start-up, for the arena's pairing alone. In
    # a fresh interpreter: this one has loaded it for the tests above.
    program = (
        "import sys; import bluegray.web.app; print('networkx' in sys.modules); "
        "from bluegray.web.tournaments.arena import pair_waiting; "
        "from tests.web.tournaments.test_arena import HOUR, SOON, waiting; "
        "assert pair_waiting([waiting('ann', 1), waiting('bob', 2)], SOON, HOUR); "
        "print('networkx' in sys.modules)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=Path(__file__).parents[3],  # the checkout, whose tests package the program imports
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert shown.stdout.split() == ["False", "True"]
