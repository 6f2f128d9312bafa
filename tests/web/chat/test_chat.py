"""A game's chat through the API and the game's socket: the two rooms, canned messages for
players without an account, the limits, mutes (for oneself and a moderator's), closed accounts,
reports and their decisions, the chat turned off, and the stored chat read again. On SQLite and
on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.testclient import WebSocketTestSession

from bluegray.cli.main import main
from tests.web.account_clients import Browser, Client, friend_game, post, sign_up, signed_up
from tests.web.conftest import Json, TestClient


def chat(client: Client, game_id: str, token: str | None = None) -> Json:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    answer = client.get(f"/api/games/{game_id}/chat", headers=headers)
    assert answer.status_code == 200, answer.text
    log: Json = answer.json()
    return log


def texts(log: Json) -> list[str]:
    return [line["text"] for line in log["messages"]]


def say(client: Client, game_id: str, text: str | None = None, **body: Any) -> Any:
    message = ({"text": text} if text is not None else {}) | body
    return post(client, f"/api/games/{game_id}/chat", message)


def moderator(database_url: str, name: str) -> None:
    assert main(["user", "moderator", name, "--database-url", database_url]) == 0


def api_token(client: Client) -> str:
    token: str = post(client, "/api/account/tokens", {"description": "chat"}).json()["token"]
    return token


def watch(app: TestClient, game_id: str, token: str) -> WebSocketTestSession:
    """A socket on the game of the account whose API token this is (in the handshake)."""
    socket = app.websocket_connect(
        f"/ws/games/{game_id}", headers={"Authorization": f"Bearer {token}"}
    )
    opened = socket.__enter__()
    opened.send_json({"type": "hello"})
    assert opened.receive_json()["type"] == "welcome"
    assert opened.receive_json()["type"] == "state"
    return opened


def next_chat(socket: WebSocketTestSession) -> Json:
    while True:
        message: Json = socket.receive_json()
        if message["type"] == "chat":
            line: Json = message["line"]
            return line


def four(app: TestClient) -> tuple[Browser, Browser, Browser, Browser, str]:
    """Two players (blue and gray), a spectator and a moderator-to-be, and their game."""
    blue, gray, fan, warden = Browser(app), Browser(app), Browser(app), Browser(app)
    for browser, name in ((blue, "bluey"), (gray, "grayson"), (fan, "watcher"), (warden, "warden")):
        sign_up(browser, name)
    game_id, _, _ = friend_game(blue, gray)
    return blue, gray, fan, warden, game_id


def test_players_and_spectators_write_in_their_rooms_apart_until_the_game_ends(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client()
    blue, gray, fan, _, game_id = four(app)
    answer = say(blue, game_id, "  <b>Good luck</b> http://example.com  ")
    assert answer.status_code == 201, answer.text
    line = answer.json()
    assert (line["room"], line["author"], line["side"]) == ("players", "bluey", "blue")
    assert line["text"] == "<b>Good luck</b> http://example.com"  # kept as plain text
    assert say(fan, game_id, "blue is winning").json()["room"] == "spectators"
    assert say(gray, game_id, canned="good_luck").json()["text"] == "Good luck!"
    # The players see only their room while the game runs; spectators see both.
    shown = chat(gray, game_id)
    assert shown["room"] == "players" and shown["spectators_shown"] is False
    assert texts(shown) == ["<b>Good luck</b> http://example.com", "Good luck!"]
    assert texts(chat(fan, game_id)) == [
        "<b>Good luck</b> http://example.com",
        "blue is winning",
        "Good luck!",
    ]
    assert chat(fan, game_id)["room"] == "spectators"
    # Once the game is over the players see the spectators' room too.
    ended = post(blue, f"/api/games/{game_id}/actions", {"action": "resign"})
    assert ended.status_code == 200, ended.text
    assert "blue is winning" in texts(chat(blue, game_id))
    # Anyone may read; the stored chat is the same after a restart of the app (a reload).
    assert len(texts(chat(make_client(), game_id))) == 3


def test_canned_messages_work_for_players_without_an_account_and_free_text_does_not(
    client: TestClient,
) -> None:
    creator, joiner, stranger = Browser(client), Browser(client), Browser(client)
    game_id, blue_token, gray_token = friend_game(creator, joiner)
    bearer = {"Authorization": f"Bearer {blue_token}"}
    answer = post(creator, f"/api/games/{game_id}/chat", {"canned": "good_game"}, **bearer)
    assert answer.status_code == 201, answer.text
    assert (answer.json()["author"], answer.json()["side"]) == (None, "blue")
    refused = post(creator, f"/api/games/{game_id}/chat", {"text": "hi"}, **bearer)
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
    # A stranger without an account or seat may read, but not write.
    assert texts(chat(stranger, game_id)) == ["Good game!"]
    assert say(stranger, game_id, canned="hello").status_code == 401
    assert chat(joiner, game_id, gray_token)["room"] == "players"
    wrong = post(
        creator, f"/api/games/{game_id}/chat", {"canned": "hello"}, Authorization="Bearer x"
    )
    assert wrong.status_code == 403


def test_bad_messages_are_refused_with_422_and_unknown_games_with_404(
    client: TestClient,
) -> None:
    blue, gray = Browser(client), Browser(client)
    sign_up(blue, "bluey")
    sign_up(gray, "grayson")
    game_id, _, _ = friend_game(blue, gray)
    for body in (
        {"text": "x" * 141},
        {"text": " \n\t "},
        {"canned": "you_lose"},
        {"text": "hi", "canned": "hello"},
        {},
        {"text": "hi", "colour": "red"},
    ):
        answer = post(blue, f"/api/games/{game_id}/chat", body)
        assert answer.status_code == 422, (body, answer.text)
        assert "error" in answer.json()
    assert say(blue, game_id, "x" * 140).status_code == 201
    assert say(blue, "nosuchgame1", "hi").status_code == 404
    assert blue.get("/api/games/nosuchgame1/chat").status_code == 404


def test_the_rate_and_the_games_limit_hold(make_client: Callable[..., TestClient]) -> None:
    app = make_client(rate_limits=True, chat_burst=3, chat_rate=0.01, chat_messages_per_game=4)
    blue, gray = signed_up(app, "bluey", "grayson")
    game_id, _, _ = friend_game(blue, gray)
    answers = [say(blue, game_id, f"m{n}") for n in range(4)]
    assert [answer.status_code for answer in answers] == [201, 201, 201, 429]
    assert answers[3].json()["error"]["code"] == "rate_limited"
    assert say(gray, game_id, "mine").status_code == 201  # each account its own rate
    full = say(gray, game_id, canned="thanks")  # the game's 5th: past its cap of 4
    assert full.status_code == 409 and full.json()["error"]["code"] == "chat_full"
    assert len(chat(gray, game_id)["messages"]) == 4


def test_muting_for_oneself_hides_only_from_oneself_on_reading_and_live(
    client: TestClient,
) -> None:
    blue, gray, fan, _, game_id = four(client)
    fan_token, gray_token = api_token(fan), api_token(gray)
    muted = client.put("/api/account/chat/muted/BLUEY", headers={"X-CSRF-Token": ""})
    assert muted.status_code in (401, 403)
    answer = fan.put("/api/account/chat/muted/BLUEY", headers={"X-CSRF-Token": csrf_of(fan)})
    assert answer.status_code == 200 and answer.json()["muted"] == ["bluey"]
    assert fan.put("/api/account/chat/muted/watcher", headers=csrf_header(fan)).status_code == 422
    assert (
        fan.put("/api/account/chat/muted/nobody_here", headers=csrf_header(fan)).status_code == 404
    )
    fan_socket = watch(client, game_id, fan_token)
    gray_socket = watch(client, game_id, gray_token)
    try:
        say(blue, game_id, "from blue")
        say(gray, game_id, "from gray")
        assert next_chat(fan_socket)["text"] == "from gray"  # blue's never came
        assert next_chat(gray_socket)["text"] == "from blue"
        assert next_chat(gray_socket)["text"] == "from gray"
    finally:
        fan_socket.__exit__(None, None, None)
        gray_socket.__exit__(None, None, None)
    assert texts(chat(fan, game_id)) == ["from gray"]
    assert texts(chat(gray, game_id)) == ["from blue", "from gray"]
    unmuted = fan.delete("/api/account/chat/muted/bluey", headers=csrf_header(fan))
    assert unmuted.json()["muted"] == []
    assert texts(chat(fan, game_id)) == ["from blue", "from gray"]


def csrf_of(client: Client) -> str:
    token: str = client.get("/api/account").json()["csrf_token"]
    return token


def csrf_header(client: Client) -> dict[str, str]:
    return {"X-CSRF-Token": csrf_of(client)}


def test_a_moderators_mute_silences_an_account_everywhere(
    client: TestClient, database_url: str
) -> None:
    blue, gray, fan, warden, game_id = four(client)
    say(blue, game_id, "before the mute")
    assert post(warden, "/api/players/bluey/mute").status_code == 403
    moderator(database_url, "warden")
    assert post(warden, "/api/players/nobody_here/mute").status_code == 404
    assert post(warden, "/api/players/bluey/mute").status_code == 204
    refused = say(blue, game_id, "after")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "chat_muted"
    for reader in (gray, fan, warden, blue):
        assert texts(chat(reader, game_id)) == []
    # Live: what it wrote before reaches nobody either, and gray's message still does.
    gray_socket = watch(client, game_id, api_token(fan))
    try:
        say(gray, game_id, "still here")
        assert next_chat(gray_socket)["text"] == "still here"
    finally:
        gray_socket.__exit__(None, None, None)
    assert post(warden, "/api/players/bluey/unmute").status_code == 204
    assert texts(chat(gray, game_id)) == ["before the mute", "still here"]


def test_a_closed_accounts_messages_reach_nobody(client: TestClient, database_url: str) -> None:
    blue, gray, fan, warden, game_id = four(client)
    say(blue, game_id, "soon gone")
    say(gray, game_id, "stays")
    moderator(database_url, "warden")
    assert post(warden, "/api/players/bluey/close").status_code == 204
    assert texts(chat(gray, game_id)) == ["stays"]
    assert texts(chat(fan, game_id)) == ["stays"]


def test_reports_are_listed_for_moderators_who_dismiss_mute_or_close(
    client: TestClient, database_url: str
) -> None:
    blue, gray, fan, warden, game_id = four(client)
    first = say(blue, game_id, "rude one").json()["id"]
    second = say(blue, game_id, "rude two").json()["id"]
    third = say(fan, game_id, "rude three").json()["id"]
    report = post(gray, f"/api/games/{game_id}/chat/{first}/report")
    assert report.status_code == 201 and report.json()["state"] == "open"
    again = post(gray, f"/api/games/{game_id}/chat/{first}/report")
    assert again.json()["id"] == report.json()["id"]  # once per reporter
    # A player cannot report what it is not shown (the spectators' room, while the game runs).
    assert post(gray, f"/api/games/{game_id}/chat/{third}/report").status_code == 404
    assert post(Browser(client), f"/api/games/{game_id}/chat/{first}/report").status_code == 401
    second_report = post(gray, f"/api/games/{game_id}/chat/{second}/report").json()["id"]
    third_report = post(warden, f"/api/games/{game_id}/chat/{third}/report").json()["id"]
    assert warden.get("/api/moderation/chat-reports").status_code == 403
    assert warden.get("/moderation/chat").status_code == 403
    moderator(database_url, "warden")
    page = warden.get("/moderation/chat")
    assert page.status_code == 200 and "/static/moderation.js" in page.text
    listed = warden.get("/api/moderation/chat-reports").json()["reports"]
    assert [(r["reporter"], r["message"]["text"]) for r in listed] == [
        ("warden", "rude three"),
        ("grayson", "rude two"),
        ("grayson", "rude one"),
    ]
    path = "/api/moderation/chat-reports"
    dismissed = post(warden, f"{path}/{report.json()['id']}", {"action": "dismiss"})
    assert dismissed.status_code == 200 and dismissed.json()["state"] == "dismissed"
    muted = post(warden, f"{path}/{second_report}", {"action": "mute"})
    assert muted.json()["state"] == "acted"
    closed = post(warden, f"{path}/{third_report}", {"action": "close"})
    assert closed.json()["state"] == "acted"
    assert warden.get(path).json()["reports"] == []
    everything = {r["id"]: r for r in warden.get(f"{path}?state=acted").json()["reports"]}
    assert len(warden.get(f"{path}?state=all").json()["reports"]) == 3
    assert everything[second_report]["author_muted"] is True
    assert everything[third_report]["author_closed"] is True
    assert texts(chat(gray, game_id)) == []
    assert post(warden, f"{path}/999999", {"action": "dismiss"}).status_code == 404
    assert post(warden, f"{path}/{second_report}", {"action": "ban"}).status_code == 422


def test_the_chat_turned_off_shows_and_sends_nothing(client: TestClient) -> None:
    blue, gray, fan, _, game_id = four(client)
    gray_token, fan_token = api_token(gray), api_token(fan)
    assert gray.get("/api/account/chat").json() == {"chat_off": False, "muted": []}
    turned = gray.put("/api/account/chat", json={"chat_off": True}, headers=csrf_header(gray))
    assert turned.status_code == 200 and turned.json()["chat_off"] is True
    gray_socket = watch(client, game_id, gray_token)
    fan_socket = watch(client, game_id, fan_token)
    try:
        say(blue, game_id, "hello gray")
        assert next_chat(fan_socket)["text"] == "hello gray"
        gray_socket.send_json({"type": "ping", "ref": "p"})
        kinds = [gray_socket.receive_json()["type"]]
        while kinds[-1] != "pong":
            kinds.append(gray_socket.receive_json()["type"])
        assert "chat" not in kinds  # no chat came before the answer to the ping
    finally:
        gray_socket.__exit__(None, None, None)
        fan_socket.__exit__(None, None, None)
    shown = chat(gray, game_id)
    assert shown["chat_off"] is True and shown["messages"] == []
    refused = say(gray, game_id, "hi")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "chat_off"
    assert Browser(client).get("/api/account/chat").status_code == 401
    gray.put("/api/account/chat", json={"chat_off": False}, headers=csrf_header(gray))
    assert texts(chat(gray, game_id)) == ["hello gray"]


def test_the_socket_brings_each_room_to_those_who_may_see_it(client: TestClient) -> None:
    blue, gray, fan, _, game_id = four(client)
    gray_socket = watch(client, game_id, api_token(gray))
    fan_socket = watch(client, game_id, api_token(fan))
    try:
        say(fan, game_id, "spectators only")
        say(blue, game_id, canned="good_luck")
        assert next_chat(fan_socket)["text"] == "spectators only"
        line = next_chat(fan_socket)
        assert (line["text"], line["canned"], line["room"]) == (
            "Good luck!",
            "good_luck",
            "players",
        )
        assert next_chat(gray_socket)["text"] == "Good luck!"  # not the spectators' message
        post(blue, f"/api/games/{game_id}/actions", {"action": "resign"})
        say(fan, game_id, "after the end")
        assert next_chat(gray_socket)["text"] == "after the end"
    finally:
        gray_socket.__exit__(None, None, None)
        fan_socket.__exit__(None, None, None)
