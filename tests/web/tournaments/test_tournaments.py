"""Tournaments through the API, on a real server: a Swiss paired round by round (no repeated
opponent, byes), an arena pairing its free players. On SQLite and on PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from tests.web.conftest import LiveServer
from tests.web.lobby_clients import LiveSocket, Player, first_moves

CLOCK = {"minutes": 5, "increment_seconds": 3}


def wait_for(check: Callable[[], Any], timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)  # poll interval: until the check holds, up to ``timeout``
    raise AssertionError("timed out")


def play_out(players: dict[str, Player], games: list[dict[str, Any]]) -> None:
    """Blue wins every unfinished game: both sides move, then Gray resigns."""
    for game in games:
        if game["result"] is None:
            first_moves(players, game)
            answer = players[game["gray"]].post(
                f"/api/games/{game['game_id']}/actions", {"action": "resign"}
            )
            assert answer.status_code == 200, answer.text


def test_a_swiss_of_three_pairs_every_round_without_a_rematch_and_gives_each_a_bye(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    names = ("ada", "bob", "cyd")
    players = {name: Player(server.url, name) for name in names}
    ada = players["ada"]
    body = {"kind": "swiss", "name": "Three", "clock": CLOCK, "rounds": 3, "starts_in_seconds": 1}
    created = ada.post("/api/tournaments", body)
    assert created.status_code == 201, created.text
    tid = created.json()["id"]
    for player in players.values():
        assert player.post(f"/api/tournaments/{tid}/join").status_code == 200
    met: set[frozenset[str]] = set()
    for number in (1, 2, 3):

        def round_games(n: int = number) -> list[dict[str, Any]]:
            games = ada.get(f"/api/tournaments/{tid}/games")["games"]
            return [g for g in games if g["round"] == n]

        games = wait_for(round_games)
        assert len(games) == 1
        pair = frozenset((games[0]["blue"], games[0]["gray"]))
        assert pair not in met
        met.add(pair)
        play_out(players, games)
    final = wait_for(
        lambda: (
            (t := ada.get(f"/api/tournaments/{tid}"))["tournament"]["status"] == "finished" and t
        )
    )
    assert sorted(final["byes"].values()) == sorted(names)
    assert {line["name"] for line in final["standings"]} == set(names)
    assert sum(line["score"] for line in final["standings"]) == 3 + 3  # 3 games, 3 byes
    # The records name the players by their accounts and the tournament as the event.
    records = ada.http.get(f"/api/tournaments/{tid}/records").text
    games = ada.get(f"/api/tournaments/{tid}/games")["games"]
    for game in games:
        tags = f'[Blue "{game["blue"]}"]\n[Gray "{game["gray"]}"]\n[Result "1-0"]'
        assert tags in records
        assert f'[GameId "{game["game_id"]}"]\n[Round "{game["round"]}"]' in records
    assert records.count('[Event "Three"]') == 3 and "Anonymous" not in records
    # So does each game's own record.
    one = ada.http.get(f"/api/games/{games[1]['game_id']}/record").text
    assert '[Event "Three"]' in one and f'[Round "{games[1]["round"]}"]' in one


def test_an_arena_pairs_its_free_players_and_a_bad_tournament_is_refused(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    players = {name: Player(server.url, name) for name in ("ada", "bob")}
    ada = players["ada"]
    refused = ada.post("/api/tournaments", {"kind": "arena", "name": "A", "clock": CLOCK})
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "invalid_tournament"
    body = {"kind": "arena", "name": "A", "clock": CLOCK, "minutes": 5, "starts_in_seconds": 0}
    tid = ada.post("/api/tournaments", body).json()["id"]
    for player in players.values():
        assert player.post(f"/api/tournaments/{tid}/join").status_code == 200
    first = wait_for(lambda: ada.get(f"/api/tournaments/{tid}/games")["games"])
    play_out(players, first)
    # The two have just met: they are paired again once both have waited 20 s for another.
    games = wait_for(
        lambda: len(g := ada.get(f"/api/tournaments/{tid}/games")["games"]) == 2 and g, 45
    )
    assert games[0]["result"] == "1-0"
    table = ada.get(f"/api/tournaments/{tid}")["standings"]
    assert table[0]["name"] == first[0]["blue"] and table[0]["score"] == 2
    records = ada.http.get(f"/api/tournaments/{tid}/records")
    assert records.status_code == 200
    assert records.text.count("[GameId ") == 2 and first[0]["game_id"] in records.text


def test_a_tournaments_socket_sends_its_table_then_each_change(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    body = {"kind": "swiss", "name": "Live <b>", "clock": CLOCK, "rounds": 1}
    tid = ada.post("/api/tournaments", body).json()["id"]
    with ada.socket(f"/ws/tournament/{tid}") as socket:
        assert socket.welcome["account"] == "ada"
        first = socket.receive("tournament")["standings"]
        assert first["tournament"]["name"] == "Live <b>" and first["standings"] == []
        assert bob.post(f"/api/tournaments/{tid}/join").status_code == 200
        joined = socket.receive("tournament")["standings"]
        assert [line["name"] for line in joined["standings"]] == ["bob"]
        assert bob.post(f"/api/tournaments/{tid}/withdraw").status_code == 200
        left = socket.receive("tournament")["standings"]
        assert [line["withdrawn"] for line in left["standings"]] == [True]
    unknown = server.url.replace("http", "ws", 1) + "/ws/tournament/nothing"
    with pytest.raises(ConnectionClosed) as closed:
        LiveSocket(unknown, None)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404


def test_the_tournament_pages_show_the_tournaments_with_their_names_escaped(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    ada = Player(server.url, "ada")
    name = '<script>alert("x")</script>'
    body = {"kind": "arena", "name": name, "clock": CLOCK, "minutes": 5}
    tid = ada.post("/api/tournaments", body).json()["id"]
    assert ada.post(f"/api/tournaments/{tid}/join").status_code == 200
    escaped = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"
    listing = ada.http.get("/tournaments")
    assert listing.status_code == 200
    assert f'<a href="/tournament/{tid}">{escaped}</a>' in listing.text
    assert name not in listing.text and 'id="tournament-form"' in listing.text
    page = ada.http.get(f"/tournament/{tid}")
    assert page.status_code == 200 and name not in page.text
    assert f'<h1 id="tournament-name">{escaped}</h1>' in page.text
    assert '<tr data-player="ada">' in page.text
    assert 'src="/static/tournament.js"' in page.text
    missing = ada.http.get("/tournament/nothing")
    assert missing.status_code == 404 and 'id="no-tournament"' in missing.text


def test_a_swiss_pairs_by_score_tells_players_their_games_and_passes_over_the_withdrawn(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    names = ("ada", "bob", "cyd", "dan", "eve")
    players = {name: Player(server.url, name) for name in names}
    ada = players["ada"]
    body = {"kind": "swiss", "name": "Five", "clock": CLOCK, "rounds": 2, "starts_in_seconds": 1}
    tid = ada.post("/api/tournaments", body).json()["id"]
    for player in players.values():
        assert player.post(f"/api/tournaments/{tid}/join").status_code == 200

    def round_games(number: int) -> list[dict[str, Any]]:
        games = ada.get(f"/api/tournaments/{tid}/games")["games"]
        return [g for g in games if g["round"] == number]

    with ada.socket("/ws/account") as account:
        first = wait_for(lambda: round_games(1))
        assert len(first) == 2  # five players: two boards and a bye
        # ada (first on the starting list: the bye is the last one's) is told where her game
        # is, wherever she is on the site
        mine = next(g for g in first if "ada" in (g["blue"], g["gray"]))
        started = account.receive("game_started")["game"]
        assert started["game_id"] == mine["game_id"]
        assert started["path"] == f"/game/{mine['game_id']}"
        assert started["tournament"] == tid  # its tournament's page goes to it
    play_out(players, first[:1])
    gone = first[0]["blue"]  # the winner of the first game to end withdraws before the round ends
    assert players[gone].post(f"/api/tournaments/{tid}/withdraw").status_code == 200
    play_out(players, first[1:])
    bye = ada.get(f"/api/tournaments/{tid}")["byes"]["1"]
    winners = {g["blue"] for g in first}
    losers = {g["gray"] for g in first}
    second = wait_for(lambda: round_games(2))
    pairs = {frozenset((g["blue"], g["gray"])) for g in second}
    # The two with a point meet; the two without one meet; the withdrawn one is not paired.
    assert pairs == {frozenset({bye, *(winners - {gone})}), frozenset(losers)}
    assert "2" not in ada.get(f"/api/tournaments/{tid}")["byes"]
    play_out(players, second)
    final = wait_for(
        lambda: (
            (t := ada.get(f"/api/tournaments/{tid}"))["tournament"]["status"] == "finished" and t
        )
    )
    table = {line["name"]: line for line in final["standings"]}
    assert table[gone]["withdrawn"] and table[gone]["score"] == 1
    assert max(line["score"] for line in final["standings"]) == 2


def test_an_arena_counts_a_streak_double_and_ends_at_its_time(
    make_server: Callable[..., LiveServer], time_offset: Callable[[float], None]
) -> None:
    server = make_server(rate_limits=False)
    players = {name: Player(server.url, name) for name in ("ada", "bob")}
    ada = players["ada"]
    body = {"kind": "arena", "name": "Hot", "clock": CLOCK, "minutes": 10, "starts_in_seconds": 0}
    tid = ada.post("/api/tournaments", body).json()["id"]
    for player in players.values():
        assert player.post(f"/api/tournaments/{tid}/join").status_code == 200

    def games_when(count: int) -> list[dict[str, Any]]:
        games: list[dict[str, Any]] = ada.get(f"/api/tournaments/{tid}/games")["games"]
        return games if len(games) == count else []

    ahead = 0.0
    for count in (1, 2, 3):  # ada wins three games running: the third counts double
        games = wait_for(partial(games_when, count))
        newest = games[-1]
        assert {newest["blue"], newest["gray"]} == {"ada", "bob"}
        first_moves(players, newest)
        answer = players["bob"].post(
            f"/api/games/{newest['game_id']}/actions", {"action": "resign"}
        )
        assert answer.status_code == 200, answer.text
        if count < 3:
            ahead += 21  # both have waited long enough to meet again
            time_offset(ahead)
    expected = {"ada": 2 + 2 + 4, "bob": 0}
    table = wait_for(
        lambda: (
            (t := ada.get(f"/api/tournaments/{tid}")["standings"])
            and {line["name"]: line["score"] for line in t} == expected
        )
    )
    assert table
    time_offset(ahead + 10 * 60)  # past its end: no new game, and the final table
    final = wait_for(
        lambda: (
            (t := ada.get(f"/api/tournaments/{tid}"))["tournament"]["status"] == "finished" and t
        )
    )
    assert {line["name"]: line["score"] for line in final["standings"]} == expected
    assert len(ada.get(f"/api/tournaments/{tid}/games")["games"]) == 3
