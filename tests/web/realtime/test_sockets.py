"""Real-time play over WebSockets on a real server: two players and a spectator, versions,
reconnection, refused messages, offers, takebacks, resignation, rematches and abandonment."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from tests.web.conftest import LiveServer, Socket


def friend_game(server: LiveServer, **body: Any) -> tuple[str, str, str]:
    """A game between two browsers: its id, Blue's token and Gray's token."""
    body = {"opponent": {"type": "friend"}, "color": "blue", **body}
    created = httpx.post(f"{server.url}/api/games", json=body).json()
    game_id = created["game"]["id"]
    joined = httpx.post(
        f"{server.url}/api/games/{game_id}/join", json={"invite": created["invite"]["code"]}
    ).json()
    return game_id, created["seat"]["token"], joined["seat"]["token"]


@pytest.fixture
def server(make_server: Callable[..., LiveServer]) -> LiveServer:
    return make_server()


def test_moves_are_broadcast_to_players_and_spectators(server: LiveServer) -> None:
    game_id, blue_token, gray_token = friend_game(server)
    with (
        Socket(server.ws_url(game_id), blue_token) as blue,
        Socket(server.ws_url(game_id), gray_token) as gray,
        Socket(server.ws_url(game_id)) as spectator,
    ):
        assert blue.welcome["side"] == "blue" and gray.welcome["side"] == "gray"
        assert spectator.welcome["side"] is None
        presence = spectator.receive("presence")
        assert presence["spectators"] == 1
        assert presence["seats"]["blue"]["connected"] and presence["seats"]["gray"]["connected"]
        version = blue.state["version"]
        seen: list[int] = []
        for mover, text in ((blue, "d2-d3"), (gray, "f8-f7"), (blue, "c2-c3")):
            mover.send({"type": "move", "move": text, "version": version, "ref": text})
            for client in (blue, gray, spectator):
                state = client.receive("state", version=version + 1)
                assert state["event"]["move"] == text and state["game"]["moves"][-1] == text
            ack = mover.receive("ack", ref=text)
            assert ack["version"] == version + 1
            version += 1
            seen.append(version)
        assert seen == sorted(seen) and len(set(seen)) == 3
        assert spectator.state["moves"] == ["d2-d3", "f8-f7", "c2-c3"]


def test_a_spectator_cannot_move_and_a_forged_token_is_refused(server: LiveServer) -> None:
    game_id, _blue_token, _ = friend_game(server)
    with Socket(server.ws_url(game_id)) as spectator:
        version = spectator.state["version"]
        spectator.send({"type": "move", "move": "d2-d3", "version": version, "ref": "x"})
        error = spectator.receive("error")
        assert error["code"] == "unauthorized" and error["ref"] == "x"
        spectator.send({"type": "action", "action": "resign", "ref": "y"})
        assert spectator.receive("error")["code"] == "unauthorized"
        spectator.send({"type": "sync"})
        assert spectator.receive("state")["game"]["moves"] == []
    forged = Socket(server.ws_url(game_id), hello=False)
    forged.send({"type": "hello", "token": "A" * 43})
    error = forged.receive("error")
    assert error["code"] == "forbidden"
    with pytest.raises(ConnectionClosed):
        forged.next(timeout=5)
    assert forged.connection.close_code == 4403
    state = httpx.get(f"{server.url}/api/games/{game_id}").json()
    assert state["moves"] == [] and state["version"] == 2


def test_the_first_message_must_be_a_hello(server: LiveServer) -> None:
    game_id, _blue_token, _ = friend_game(server)
    raw = Socket(server.ws_url(game_id), hello=False)
    raw.send({"type": "move", "move": "d2-d3", "version": 2})
    assert raw.receive("error")["code"] == "hello_expected"
    with pytest.raises(ConnectionClosed):
        raw.next(timeout=5)
    missing = Socket(server.ws_url("nothing-here"), hello=False)
    missing.send({"type": "hello"})
    assert missing.receive("error")["code"] == "not_found"


def test_reconnecting_with_a_stale_version_gets_the_full_state(server: LiveServer) -> None:
    game_id, blue_token, gray_token = friend_game(server)
    with Socket(server.ws_url(game_id), blue_token) as blue:
        stale = blue.state["version"]
        blue.send({"type": "move", "move": "d2-d3", "version": stale})
        blue.receive("ack")
    with Socket(server.ws_url(game_id), gray_token) as gray:
        gray.send({"type": "move", "move": "f8-f7", "version": gray.state["version"]})
        gray.receive("ack")
    # Blue comes back, still believing the game is at the old version.
    with Socket(server.ws_url(game_id), blue_token) as blue:
        assert blue.state["moves"] == ["d2-d3", "f8-f7"] and blue.state["version"] == stale + 2
        blue.send({"type": "move", "move": "c2-c3", "version": stale, "ref": "old"})
        error = blue.receive("error", ref="old")
        assert error["code"] == "stale_version" and error["version"] == stale + 2
        resync = blue.receive("state")
        assert resync["version"] == stale + 2 and resync["game"]["turn"] == "blue"
        blue.send({"type": "move", "move": "c2-c3", "version": stale + 2, "ref": "new"})
        assert blue.receive("ack", ref="new")["version"] == stale + 3


def test_oversized_and_malformed_messages_get_errors_and_the_socket_lives_on(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(max_ws_message_bytes=512)
    game_id, blue_token, _ = friend_game(server)
    with Socket(server.ws_url(game_id), blue_token) as blue:
        blue.send_text(json.dumps({"type": "ping", "ref": "x" * 40, "pad": "y" * 1000}))
        assert blue.receive("error")["code"] == "message_too_large"
        blue.send_text("{not json")
        assert blue.receive("error")["code"] == "invalid_message"
        blue.send({"type": "teleport"})
        assert blue.receive("error")["code"] == "invalid_message"
        blue.send({"type": "move", "move": "d2-d3"})
        assert "version" in blue.receive("error")["message"]
        blue.connection.send(b"\x00\x01")
        assert blue.receive("error")["code"] == "invalid_message"
        blue.send({"type": "ping", "ref": "p"})
        pong = blue.receive("pong", ref="p")
        assert abs(pong["server_time_ms"] - time.time() * 1000) < 5000
        blue.send({"type": "move", "move": "d2-d3", "version": blue.state["version"]})
        assert blue.receive("ack")["version"] == 3
    assert httpx.get(f"{server.url}/api/health").json()["status"] == "ok"


def test_messages_beyond_the_rate_limit_are_refused(make_server: Callable[..., LiveServer]) -> None:
    server = make_server(ws_rate=1, ws_burst=3)
    game_id, blue_token, _ = friend_game(server)
    with Socket(server.ws_url(game_id), blue_token) as blue:
        for index in range(6):
            blue.send({"type": "ping", "ref": str(index)})
        replies = [blue.receive("pong" if i < 3 else "error") for i in range(6)]
        assert [reply["type"] for reply in replies] == ["pong"] * 3 + ["error"] * 3
        assert all(reply["code"] == "rate_limited" for reply in replies[3:])


def test_a_draw_offered_and_accepted_ends_the_game(server: LiveServer) -> None:
    game_id, blue_token, gray_token = friend_game(server)
    with (
        Socket(server.ws_url(game_id), blue_token) as blue,
        Socket(server.ws_url(game_id), gray_token) as gray,
    ):
        refused = {"type": "action", "action": "offer_draw", "ref": "early"}
        blue.send(refused)  # not before both sides have moved
        assert blue.receive("error", ref="early")["code"] == "not_allowed"
        blue.send({"type": "move", "move": "d2-d3", "version": 2})
        gray.receive("state", version=3)
        gray.send({"type": "move", "move": "f8-f7", "version": 3})
        blue.receive("state", version=4)
        blue.send({"type": "action", "action": "offer_draw"})
        offered = gray.receive("state", version=5)
        assert offered["event"] == {
            "kind": "draw_offered",
            "side": "blue",
            "move": None,
            "game_id": None,
            "worker": None,
        }
        assert offered["game"]["offers"]["draw"] == "blue"
        gray.send({"type": "action", "action": "decline_draw"})
        assert blue.receive("state", version=6)["game"]["offers"]["draw"] is None
        blue.send({"type": "action", "action": "offer_draw"})
        gray.receive("state", version=7)
        gray.send({"type": "action", "action": "accept_draw", "ref": "yes"})
        assert gray.receive("ack", ref="yes")["version"] == 8
        final = blue.receive("state", version=8)["game"]
        assert final["outcome"]["reason"] == "agreement" and final["outcome"]["winner"] is None
        assert final["status"] == "finished" and final["outcome"]["result"] == "1/2-1/2"
        blue.send({"type": "action", "action": "accept_draw", "ref": "late"})
        assert blue.receive("error", ref="late")["code"] == "game_over"


def test_a_takeback_asked_and_allowed_undoes_the_move(server: LiveServer) -> None:
    game_id, blue_token, gray_token = friend_game(server)
    with (
        Socket(server.ws_url(game_id), blue_token) as blue,
        Socket(server.ws_url(game_id), gray_token) as gray,
    ):
        blue.send({"type": "move", "move": "d2-d3", "version": 2})
        gray.receive("state", version=3)
        blue.send({"type": "action", "action": "request_takeback"})
        asked = gray.receive("state", version=4)["game"]
        assert asked["offers"]["takeback"] == "blue"
        gray.send({"type": "action", "action": "decline_takeback"})
        blue.receive("state", version=5)
        blue.send({"type": "action", "action": "request_takeback"})
        gray.receive("state", version=6)
        gray.send({"type": "action", "action": "accept_takeback"})
        undone = blue.receive("state", version=7)
        assert undone["event"]["kind"] == "takeback"
        assert undone["game"]["moves"] == [] and undone["game"]["turn"] == "blue"
        gray.send({"type": "action", "action": "request_takeback", "ref": "none"})
        assert gray.receive("error", ref="none")["code"] == "not_allowed"


def test_resignation_and_a_rematch_with_colours_swapped(server: LiveServer) -> None:
    game_id, blue_token, gray_token = friend_game(server)
    with (
        Socket(server.ws_url(game_id), blue_token) as blue,
        Socket(server.ws_url(game_id), gray_token) as gray,
    ):
        blue.send({"type": "move", "move": "d2-d3", "version": 2})
        gray.receive("state", version=3)
        gray.send({"type": "move", "move": "f8-f7", "version": 3})
        blue.receive("state", version=4)
        gray.send({"type": "action", "action": "resign"})
        over = blue.receive("state", version=5)["game"]
        assert over["outcome"]["winner"] == "blue" and over["outcome"]["reason"] == "resign"
        blue.send({"type": "action", "action": "offer_rematch"})
        assert gray.receive("state", version=6)["game"]["offers"]["rematch"] == "blue"
        gray.send({"type": "action", "action": "accept_rematch"})
        started = blue.receive("state", version=7)
        new_id = started["event"]["game_id"]
        assert started["game"]["rematch_id"] == new_id and new_id != game_id
    # Each keeps their token, and the colours are swapped.
    with (
        Socket(server.ws_url(new_id), gray_token) as new_blue,
        Socket(server.ws_url(new_id), blue_token) as new_gray,
    ):
        assert new_blue.welcome["side"] == "blue" and new_gray.welcome["side"] == "gray"
        assert new_blue.state["parent_id"] == game_id and new_blue.state["moves"] == []
        new_blue.send({"type": "move", "move": "d2-d3", "version": 1})
        assert new_gray.receive("state", version=2)["game"]["moves"] == ["d2-d3"]


def test_an_abandoned_game_can_be_claimed_after_the_grace_time(
    make_server: Callable[..., LiveServer], time_offset: Callable[[float], None]
) -> None:
    server = make_server(abandon_seconds=1.0)
    game_id, blue_token, gray_token = friend_game(server)
    with Socket(server.ws_url(game_id), blue_token) as blue:
        gray = Socket(server.ws_url(game_id), gray_token)
        blue.send({"type": "move", "move": "d2-d3", "version": 2})
        gray.receive("state", version=3)
        gray.send({"type": "move", "move": "f8-f7", "version": 3})
        second = blue.receive("state", version=4)["game"]["legal_moves"][0]
        blue.send({"type": "move", "move": second, "version": 4})
        gray.receive("state", version=5)
        gray.close()  # Gray leaves on their turn (a claim before both have moved aborts)
        presence = blue.receive("presence")
        while presence["seats"]["gray"]["connected"]:  # (Gray's arrival, if not seen yet)
            presence = blue.receive("presence")
        assert presence["seats"]["gray"]["away_since_ms"] is not None
        claim_at = presence["claim_win_at_ms"]
        assert claim_at is not None
        blue.send({"type": "action", "action": "claim_win", "ref": "early"})
        early = blue.receive("error", ref="early")
        assert early["code"] == "not_allowed" and "claim in" in early["message"]
        time_offset(max(0.0, claim_at / 1000 - time.time()) + 0.1)  # the grace time is over
        blue.send({"type": "action", "action": "claim_win", "ref": "now"})
        blue.receive("ack", ref="now")
        final = blue.state
        assert final["outcome"]["winner"] == "blue" and final["outcome"]["reason"] == "abandoned"
        assert final["outcome"]["description"] == "Blue wins: Gray left the game"


def test_a_hotseat_socket_plays_both_sides(server: LiveServer) -> None:
    created = httpx.post(
        f"{server.url}/api/games", json={"opponent": {"type": "hotseat"}, "rules": "cooper"}
    ).json()
    game_id, token = created["game"]["id"], created["seat"]["token"]
    with Socket(server.ws_url(game_id), token) as both:
        assert both.welcome["side"] == "both"
        for version, text in ((1, "d2-d3"), (2, "f8-f7")):
            both.send({"type": "move", "move": text, "version": version})
            both.receive("ack")
        both.send({"type": "action", "action": "request_takeback"})
        both.receive("ack")
        assert both.state_at(4)["moves"] == ["d2-d3"]


def test_a_socket_from_another_site_is_refused(server: LiveServer) -> None:
    game_id, blue_token, _ = friend_game(server)
    with pytest.raises(InvalidStatus) as refused:
        connect(server.ws_url(game_id), origin=Origin("https://evil.example"), open_timeout=10)
    assert refused.value.response.status_code == 403
    same_site = connect(server.ws_url(game_id), origin=Origin(server.url), open_timeout=10)
    with same_site:
        same_site.send(json.dumps({"type": "hello", "token": blue_token}))
        assert json.loads(same_site.recv(timeout=10))["type"] == "welcome"


def test_a_silent_socket_and_a_huge_frame_are_closed(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(hello_timeout=0.3, max_ws_frame_bytes=65536)
    game_id, blue_token, _ = friend_game(server)
    silent = Socket(server.ws_url(game_id), hello=False)
    assert silent.receive("error")["code"] == "timeout"
    with pytest.raises(ConnectionClosed):
        silent.next(timeout=5)
    with Socket(server.ws_url(game_id), blue_token) as blue:
        blue.send_text("x" * 100_000)
        with pytest.raises(ConnectionClosed):
            read_until_closed(blue)
        assert blue.connection.close_code == 1009
    with Socket(server.ws_url(game_id), blue_token) as again:  # the server carries on
        again.send({"type": "move", "move": "d2-d3", "version": 2})
        assert again.receive("ack")["version"] == 3


def read_until_closed(socket: Socket) -> None:
    """Read (presence messages, say) until the server closes the socket."""
    while True:
        socket.next(timeout=5)
