"""The lobby through the API and its sockets, on a real server: seeks appearing and vanishing
for everyone on the lobby page, accepting one starting the game for both at once, seeks that go
with their socket or their time, challenges to a named player heard on any page, quick
pairings, rating ranges and rate limits. On SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from bluegray.web.accounts.players import Account
from bluegray.web.lobby import service as lobby
from bluegray.web.lobby.service import Lobby
from bluegray.web.platform import clocks
from tests.web.conftest import LiveServer, Socket, clear_of_a_window_edge
from tests.web.lobby_clients import LiveSocket, Player, first_moves, set_ratings

CLOCK = {"minutes": 5, "increment_seconds": 3}


def code_of(answer: object) -> tuple[int, str]:
    status: int = answer.status_code  # type: ignore[attr-defined]
    return status, answer.json()["error"]["code"]  # type: ignore[attr-defined]


def test_a_seek_appears_for_everyone_and_accepting_it_starts_the_game_for_both(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    with (
        bob.socket("/ws/lobby") as watching,
        ada.socket("/ws/account") as ada_news,
        bob.socket("/ws/account") as bob_news,
    ):
        assert watching.receive("seeks")["seeks"] == []
        seek = ada.seek(rules="sackson", clock=CLOCK, rated=True, color="blue")
        shown = watching.receive("seek")["seek"]
        assert shown == seek and shown["player"] == "ada" and shown["provisional"] is True
        assert bob.get("/api/seeks")["seeks"] == [seek]
        # An anonymous visitor sees the lobby but cannot seek or accept.
        with LiveSocket(server.url.replace("http", "ws") + "/ws/lobby", None) as visitor:
            assert visitor.welcome["account"] is None
            assert visitor.receive("seeks")["seeks"] == [seek]
        with httpx.Client(base_url=server.url) as nobody:
            refused = nobody.post(f"/api/seeks/{seek['id']}/accept")
            assert code_of(refused) == (401, "unauthorized")
            assert code_of(nobody.post("/api/seeks", json={})) == (401, "unauthorized")
        assert code_of(ada.post(f"/api/seeks/{seek['id']}/accept")) == (409, "not_allowed")
        answer = bob.post(f"/api/seeks/{seek['id']}/accept")
        assert answer.status_code == 200, answer.text
        started = answer.json()
        assert started["side"] == "gray" and started["opponent"] == "ada" and started["rated"]
        game_id = started["game_id"]
        told_ada = ada_news.receive("game_started")["game"]
        told_bob = bob_news.receive("game_started")["game"]
        assert told_ada == {
            "game_id": game_id,
            "path": f"/game/{game_id}",
            "side": "blue",
            "opponent": "bob",
            "rated": True,
            "unrated_reason": None,
            "tournament": None,
        }
        assert told_bob == started
        assert watching.receive("seek_gone") == {
            "type": "seek_gone",
            "id": seek["id"],
            "reason": "accepted",
        }
    # The game is the two accounts', rated, and each plays it with their account.
    state = bob.get(f"/api/games/{game_id}")
    assert state["status"] == "active" and state["rated"] is True
    assert state["seats"]["blue"]["account"]["name"] == "ada"
    assert state["seats"]["gray"]["account"]["name"] == "bob"
    assert state["clock"]["initial_ms"] == 300_000
    with Socket(server.ws_url(game_id), ada.token) as playing:
        assert playing.welcome["side"] == "blue"
    assert code_of(bob.post(f"/api/seeks/{seek['id']}/accept")) == (404, "not_found")
    assert bob.get("/api/seeks")["seeks"] == []


def test_a_correspondence_seek_starts_a_correspondence_game_rated_by_correspondence(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    with bob.socket("/ws/lobby") as watching:
        watching.receive("seeks")
        seek = ada.seek(rules="cooper", correspondence={"days": 5}, rated=True, color="blue")
        assert seek["correspondence"] == {"days": 5} and seek["clock"] is None
        assert seek["time_class"] == "correspondence"
        assert watching.receive("seek")["seek"] == seek
    assert bob.get("/api/seeks")["seeks"] == [seek]
    answer = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert answer.status_code == 200, answer.text
    game_id = answer.json()["game_id"]
    state = bob.get(f"/api/games/{game_id}")
    assert state["clock"] is None and state["time_class"] == "correspondence"
    assert state["correspondence"]["days_per_move"] == 5
    assert state["correspondence"]["running"] == "blue"
    first_moves({"ada": ada, "bob": bob}, {"game_id": game_id, "blue": "ada", "gray": "bob"})
    resigned = bob.post(f"/api/games/{game_id}/actions", {"action": "resign"})
    assert resigned.status_code == 200, resigned.text
    assert resigned.json()["ratings"]["pool"] == "cooper/correspondence"
    assert [rating["perf"] for rating in ada.get("/api/players/ada")["ratings"]] == [
        "cooper/correspondence"
    ]
    # A challenge has days per move too, and its game has them.
    sent = ada.post("/api/challenges", {"to": "bob", "correspondence": {"days": 14}})
    assert sent.status_code == 201, sent.text
    challenge = sent.json()
    assert challenge["correspondence"] == {"days": 14}
    assert challenge["time_class"] == "correspondence"
    accepted = bob.post(f"/api/challenges/{challenge['id']}/accept").json()
    game = bob.get(f"/api/games/{accepted['game_id']}")
    assert game["correspondence"]["days_per_move"] == 14 and game["rated"] is False
    # A seek with a clock says so, and has no days.
    timed = ada.seek(clock=CLOCK)
    assert timed["correspondence"] is None and timed["time_class"] == "real-time"


def test_a_seek_has_a_clock_or_days_per_move_not_both_and_only_the_six_days(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    ada = Player(server.url, "ada")
    Player(server.url, "bob")
    for path, extra in (("/api/seeks", {}), ("/api/challenges", {"to": "bob"})):
        for bad, words in (
            ({"clock": CLOCK, "correspondence": {"days": 3}}, "not both"),
            ({"correspondence": {"days": 4}}, "correspondence.days"),
        ):
            refused = ada.post(path, {**extra, **bad})
            assert code_of(refused) == (422, "invalid_request"), (path, bad)
            assert words in refused.json()["error"]["message"]
    assert ada.get("/api/seeks")["seeks"] == []
    assert ada.get("/api/challenges")["outgoing"] == []


def test_a_seek_goes_with_its_lobby_socket_or_its_time(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False, seek_seconds=1.5, lobby_sweep_seconds=0.2)
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    with bob.socket("/ws/lobby") as watching:
        watching.receive("seeks")
        with ada.socket("/ws/lobby") as own:
            connection = own.welcome["connection"]
            seek = ada.seek(connection=connection)
            assert watching.receive("seek")["seek"]["id"] == seek["id"]
        assert watching.receive("seek_gone") == {
            "type": "seek_gone",
            "id": seek["id"],
            "reason": "left",
        }
        started = time.monotonic()
        lasting = ada.seek()  # no socket: it lasts its time
        assert watching.receive("seek")["seek"]["id"] == lasting["id"]
        gone = watching.receive("seek_gone", timeout=10)
        assert gone["id"] == lasting["id"] and gone["reason"] == "expired"
        assert time.monotonic() - started >= 1.0
    assert ada.get("/api/seeks")["seeks"] == []


def test_a_challenge_reaches_its_player_on_any_page_who_declines_or_accepts(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    ada, bob = Player(server.url, "ada"), Player(server.url, "Bob_B")
    with ada.socket("/ws/account") as ada_news, bob.socket("/ws/account") as bob_news:
        sent = ada.post("/api/challenges", {"to": "bob_b", "clock": CLOCK, "color": "gray"})
        assert sent.status_code == 201, sent.text
        challenge = sent.json()
        assert challenge["to"] == "Bob_B" and challenge["player"] == "ada"
        assert bob_news.receive("challenge")["seek"] == challenge
        assert ada_news.receive("challenge")["seek"] == challenge
        assert bob.get("/api/challenges")["incoming"] == [challenge]
        assert ada.get("/api/challenges")["outgoing"] == [challenge]
        assert ada.get("/api/seeks")["seeks"] == []  # not in the lobby
        assert bob.post(f"/api/challenges/{challenge['id']}/decline").status_code == 204
        gone = {"type": "challenge_gone", "id": challenge["id"], "reason": "declined"}
        assert ada_news.receive("challenge_gone") == gone
        assert bob_news.receive("challenge_gone") == gone
        second = ada.post("/api/challenges", {"to": "Bob_B"}).json()
        bob_news.receive("challenge")
        cal = Player(server.url, "cal")
        assert code_of(cal.post(f"/api/challenges/{second['id']}/accept")) == (404, "not_found")
        accepted = bob.post(f"/api/challenges/{second['id']}/accept").json()
        assert ada_news.receive("game_started")["game"]["game_id"] == accepted["game_id"]
        for bad, expected in (
            ({"to": "nobody"}, (404, "not_found")),
            ({"to": "ada"}, (409, "not_allowed")),
            ({"to": "cal", "rules": "sackson lead=5", "rated": True}, (422, "cannot_be_rated")),
        ):
            assert code_of(ada.post("/api/challenges", bad)) == expected


def test_an_account_socket_first_says_what_waits_then_each_change_of_turns(
    make_server: Callable[..., LiveServer],
) -> None:
    """A challenge sent before its player's socket opened is in the socket's first news, with
    the games waiting for the player's move; a move made later is sent within
    ``account_turn_seconds``."""
    server = make_server(rate_limits=False, account_turn_seconds=0.2)
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    sent = ada.post("/api/challenges", {"to": "bob", "color": "blue", "clock": CLOCK}).json()
    with bob.socket("/ws/account") as news:
        pending = news.receive("pending")  # before the fix: never sent
        assert [seek["id"] for seek in pending["challenges"]] == [sent["id"]]
        assert pending["turns"] == []
        game_id = bob.post(f"/api/challenges/{sent['id']}/accept").json()["game_id"]
        state = ada.get(f"/api/games/{game_id}")
        move = {"move": state["legal_moves"][0], "version": state["version"]}
        assert ada.post(f"/api/games/{game_id}/moves", move).status_code == 200
        turns = news.receive("turns", timeout=5)
        assert [game["id"] for game in turns["games"]] == [game_id]
        assert turns["games"][0]["opponent"]["name"] == "ada"
    with bob.socket("/ws/account") as again:
        assert [game["id"] for game in again.receive("pending")["turns"]] == [game_id]


def test_quick_pairing_pairs_the_second_player_who_presses_within_the_range(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False, quick_pairing_range=100)
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    pairings = ada.get("/api/lobby/quick")
    assert "sackson-5+3" in [pairing["key"] for pairing in pairings["pairings"]]
    with ada.socket("/ws/account") as ada_news:
        waiting = ada.post("/api/lobby/quick", {"pairing": "sackson-5+3"}).json()
        assert waiting["game"] is None and waiting["seek"]["quick"] == "sackson-5+3"
        # A new player's rating is provisional: it matches any range.
        assert (waiting["seek"]["rating_min"], waiting["seek"]["rating_max"]) == (None, None)
        other = bob.post("/api/lobby/quick", {"pairing": "cooper-5+3"}).json()
        assert other["game"] is None  # another pairing: no game
        paired = bob.post("/api/lobby/quick", {"pairing": "sackson-5+3"}).json()
        assert paired["seek"] is None and paired["game"]["opponent"] == "ada"
        assert ada_news.receive("game_started")["game"]["game_id"] == paired["game"]["game_id"]
    left = [seek["quick"] for seek in ada.get("/api/seeks")["seeks"]]
    assert left == ["cooper-5+3"]  # bob's other seek still waits; ada's was taken
    assert code_of(ada.post("/api/lobby/quick", {"pairing": "nosuch"})) == (404, "not_found")


def test_a_quick_pairing_s_range_widens_while_players_wait(
    make_server: Callable[..., LiveServer],
) -> None:
    """Two established players 600 points apart, both waiting, are paired once their ranges
    have widened that far (here 100 points, then 250 more every half second); a provisional
    rating matches any range at once."""
    server = make_server(
        rate_limits=False,
        quick_pairing_range=100,
        quick_pairing_widen_points=250,
        quick_pairing_widen_seconds=0.5,
        quick_pairing_any_after_seconds=60,
        lobby_sweep_seconds=0.2,
    )
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    cal, dee = Player(server.url, "cal"), Player(server.url, "dee")
    set_ratings(server, {"ada": 1200, "bob": 1800, "dee": 2400})
    pairings = ada.get("/api/lobby/quick")
    assert (pairings["rating_range"], pairings["widen_points"]) == (100, 250)
    with ada.socket("/ws/account") as ada_news, bob.socket("/ws/account") as bob_news:
        waiting = ada.post("/api/lobby/quick", {"pairing": "sackson-5+3"}).json()
        assert (waiting["seek"]["rating_min"], waiting["seek"]["rating_max"]) == (1100, 1300)
        started = time.monotonic()
        second = bob.post("/api/lobby/quick", {"pairing": "sackson-5+3"}).json()
        assert second["game"] is None  # 600 apart: too far, at first
        told_ada = ada_news.receive("game_started")["game"]  # before the fix: never
        told_bob = bob_news.receive("game_started")["game"]
        assert told_ada["game_id"] == told_bob["game_id"] and told_ada["opponent"] == "bob"
        assert time.monotonic() - started >= 0.5  # not before the ranges had widened
    assert ada.get("/api/seeks")["seeks"] == []
    # A provisional player (cal, new) is paired with dee at 2400 at once.
    assert dee.post("/api/lobby/quick", {"pairing": "sackson-3+2"}).json()["game"] is None
    paired = cal.post("/api/lobby/quick", {"pairing": "sackson-3+2"}).json()
    assert paired["game"] is not None and paired["game"]["opponent"] == "dee"


def test_two_quick_presses_crossing_in_time_still_meet(
    make_server: Callable[..., LiveServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ada presses first, but her seek, stamped at once, is stored only after Bob (pressing
    meanwhile) has stored his and looked again, as when her process's write is slow or its
    clock behind the other's: one of the two must still take the other's seek."""
    server = make_server(rate_limits=False)
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    store = Lobby._store
    ada_stamped, bob_waits = threading.Event(), threading.Event()

    async def slow_for_ada(self: Lobby, account: Account, *args: Any, **kw: Any) -> Any:
        if account.name != "ada":
            return await store(self, account, *args, **kw)
        stamp = clocks.now_ms()
        ada_stamped.set()
        while not bob_waits.is_set():
            await asyncio.sleep(0.01)  # poll interval: until Bob waits (the other thread's event)
        monkeypatch.setattr(lobby, "now_ms", lambda: stamp)
        try:
            return await store(self, account, *args, **kw)
        finally:
            monkeypatch.setattr(lobby, "now_ms", clocks.now_ms)

    monkeypatch.setattr(Lobby, "_store", slow_for_ada)
    answers: dict[str, httpx.Response] = {}
    with bob.socket("/ws/account") as bob_news:
        pressing = threading.Thread(
            target=press_quick, args=(ada, answers), name="ada presses", daemon=True
        )
        pressing.start()
        assert ada_stamped.wait(10)
        waiting = bob.post("/api/lobby/quick", {"pairing": "sackson-5+3"}).json()
        assert waiting["game"] is None  # Ada's seek is not stored yet
        bob_waits.set()
        pressing.join(10)
        assert not pressing.is_alive()
        paired = answers["ada"].json()
        assert paired["game"] is not None, paired  # before the fix: both left waiting
        assert paired["game"]["opponent"] == "bob"
        assert bob_news.receive("game_started")["game"]["game_id"] == paired["game"]["game_id"]
    assert ada.get("/api/seeks")["seeks"] == []


def press_quick(player: Player, answers: dict[str, httpx.Response]) -> None:
    answers[player.name] = player.post("/api/lobby/quick", {"pairing": "sackson-5+3"})


def test_a_seek_s_rating_range_and_the_limits_on_seeking(
    make_server: Callable[..., LiveServer],
) -> None:
    # Rates so slow that no seek comes back within the test, however loaded the machine (at the
    # default, one came back after 5 s and the fourth seek was not refused).
    server = make_server(
        seek_burst=3, seek_rate=0.001, challenge_burst=1, challenge_rate=0.001, max_seeks=10
    )
    clear_of_a_window_edge((0.001, 3), (0.001, 1))
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    strong = ada.seek(rating_min=1600)
    refused = bob.post(f"/api/seeks/{strong['id']}/accept")
    assert code_of(refused) == (409, "out_of_range")
    assert "1500" in refused.json()["error"]["message"]
    assert code_of(ada.post("/api/seeks", {"rating_min": 1700, "rating_max": 1600})) == (
        422,
        "invalid_range",
    )
    ada.seek()
    limited = ada.post("/api/seeks", {})
    assert code_of(limited) == (429, "rate_limited") and "Retry-After" in limited.headers
    assert ada.post("/api/challenges", {"to": "bob"}).status_code == 201
    assert code_of(ada.post("/api/challenges", {"to": "bob"})) == (429, "rate_limited")
    assert len(ada.get("/api/seeks")["seeks"]) == 2
    assert ada.http.delete(f"/api/seeks/{strong['id']}").status_code == 204
    assert code_of(bob.http.delete(f"/api/seeks/{strong['id']}")) == (404, "not_found")


def test_the_lobby_is_in_the_openapi_schema(make_server: Callable[..., LiveServer]) -> None:
    server = make_server()
    paths = httpx.get(server.url + "/openapi.json").json()["paths"]
    for path in (
        "/api/seeks",
        "/api/seeks/{seek_id}/accept",
        "/api/challenges",
        "/api/challenges/{seek_id}/decline",
        "/api/lobby/quick",
        "/api/leaderboards/{rules}/{time_class}",
    ):
        assert path in paths, path
    lobby = str(httpx.get(server.url + "/api/ws/schema").json()["lobby_server_to_client"])
    for message in ("seek_gone", "challenge_gone", "game_started", "welcome"):
        assert message in lobby, message


def test_an_account_has_at_most_max_seeks_open(make_server: Callable[..., LiveServer]) -> None:
    server = make_server(rate_limits=False, max_seeks=2)
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    ada.seek()
    ada.post("/api/challenges", {"to": "bob"})
    refused = ada.post("/api/seeks", {})
    assert code_of(refused) == (409, "too_many_seeks")
    assert len(ada.get("/api/seeks")["seeks"]) == 1
    assert bob.seek()["player"] == "bob"  # the limit is each account's


def test_a_seek_left_by_a_stopped_server_goes_when_it_starts_again(
    make_server: Callable[..., LiveServer],
) -> None:
    first = make_server(rate_limits=False)
    ada = Player(first.url, "ada")
    kept = ada.seek()  # no socket: it lasts its time
    # A seek tied to a socket whose closing the server never saw (it was killed, say).
    tied = ada.seek(connection="socket-of-a-killed-server")
    first.server.should_exit = True
    first.thread.join(timeout=20)
    second = make_server(rate_limits=False)
    left = [seek["id"] for seek in Player(second.url, "ada", ada.token).get("/api/seeks")["seeks"]]
    assert left == [kept["id"]] and tied["id"] not in left


def test_a_rated_seek_previews_the_changes_its_game_then_applies(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    ada, bob = Player(server.url, "ada"), Player(server.url, "bob")
    set_ratings(server, {"ada": 1600.0, "bob": 1450.0})
    seek = ada.seek(rules="sackson", clock=CLOCK, rated=True, color="blue")
    assert code_of(ada.http.get(f"/api/seeks/{seek['id']}/rating-preview")) == (404, "not_found")
    casual = bob.seek(rules="sackson", clock=CLOCK, rated=False)
    assert code_of(ada.http.get(f"/api/seeks/{casual['id']}/rating-preview")) == (
        404,
        "not_found",
    )
    preview = bob.get(f"/api/seeks/{seek['id']}/rating-preview")
    assert preview["pool"] == "sackson/real-time"
    assert (preview["you"]["rating"], preview["them"]["rating"]) == (1450.0, 1600.0)
    # The lower rated player gains more by a win than they lose by a loss.
    assert preview["you"]["win"] > -preview["you"]["loss"] > 0
    assert preview["you"]["draw"] > 0 > preview["them"]["draw"]
    answer = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert answer.status_code == 200, answer.text
    game_id = answer.json()["game_id"]
    first_moves({"ada": ada, "bob": bob}, {"game_id": game_id, "blue": "ada", "gray": "bob"})
    ended = ada.post(f"/api/games/{game_id}/actions", {"action": "resign"})
    assert ended.status_code == 200, ended.text
    applied = ended.json()["ratings"]
    # Bob (Gray) won: his change is the preview's win, Ada's its loss.
    assert round(applied["gray"]["change"]) == round(preview["you"]["win"])
    assert round(applied["blue"]["change"]) == round(preview["them"]["loss"])
