"""Accounts through the API: signing up and logging in and out, names, claiming the games a
browser played without an account, seats played by an account from any browser (its session or
its API token, over HTTP and the WebSocket), profiles with their results, bots, moderators and
closed accounts, and the command line's ``bluegray user``. On SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, insert, inspect, select

from bluegray.cli.main import main
from bluegray.web import endings
from bluegray.web.accounts.rows import ApiTokenRow
from bluegray.web.games import service as service_module
from bluegray.web.games.rows import SeatRow
from bluegray.web.platform.db import MIGRATIONS, make_engine, upgrade_schema
from bluegray.web.platform.models import ServerStateRow, table_of
from tests.web.account_clients import (
    PASSWORD,
    Browser,
    Client,
    csrf,
    friend_game,
    log_in,
    post,
    sign_up,
    signed_up,
)
from tests.web.conftest import Json, TestClient, ids_page_by_page


def account_of(client: Client) -> Json | None:
    account: Json | None = client.get("/api/account").json()["account"]
    return account


def test_signing_up_logs_in_and_the_account_is_known_on_the_next_request(
    client: TestClient,
) -> None:
    assert account_of(client) is None
    state = sign_up(client, "Ada_L")
    assert state["account"] == {
        "name": "Ada_L",
        "created_ms": state["account"]["created_ms"],
        "bot": False,
        "moderator": False,
        "profile": "/player/Ada_L",
    }
    cookie = client.cookies.get("bluegray_session")
    assert cookie and len(cookie) == 43
    assert account_of(client)["name"] == "Ada_L"  # type: ignore[index]
    assert state["csrf_token"] == csrf(client)
    # Logging out ends the session: the same cookie, sent again, is nobody's.
    answer = post(client, "/api/account/logout")
    assert answer.status_code == 200 and answer.json()["account"] is None
    assert account_of(client) is None
    client.cookies.set("bluegray_session", cookie)
    assert account_of(client) is None
    # And logging in again (in any case) gives a new session.
    client.cookies.delete("bluegray_session")
    answer = log_in(client, "ada_l")
    assert answer.status_code == 200 and answer.json()["account"]["name"] == "Ada_L"
    assert client.cookies.get("bluegray_session") not in (None, cookie)


def session_cookie(answer: Any) -> str:
    """The Set-Cookie header of the session in an answer."""
    headers: list[str] = answer.headers.get_list("set-cookie")
    return next(header for header in headers if header.startswith("bluegray_session="))


def test_the_session_cookie_is_httponly_samesite_lax_and_secure_when_set(
    make_client: Callable[..., TestClient],
) -> None:
    plain = make_client()
    cookie = session_cookie(
        post(plain, "/api/account/signup", {"name": "plain", "password": PASSWORD})
    )
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    assert "Max-Age=2592000" in cookie  # 30 days
    assert "Secure" not in cookie
    secure = make_client(secure_cookies=True)
    cookie = session_cookie(
        post(secure, "/api/account/signup", {"name": "secure", "password": PASSWORD})
    )
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "; Secure" in cookie


def test_names_are_checked_and_unique_without_regard_to_case(client: TestClient) -> None:
    for bad in ["ab", "x" * 21, "has space", "<b>x</b>", "né", "a.b", "ai", "Admin"]:
        answer = post(client, "/api/account/signup", {"name": bad, "password": PASSWORD})
        assert answer.status_code == 422, bad
        assert answer.json()["error"]["code"] == "invalid_name", bad
    sign_up(client, "Gray-Fox_9")
    post(client, "/api/account/logout")
    taken = post(client, "/api/account/signup", {"name": "GRAY-fox_9", "password": PASSWORD})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "name_taken"
    for name, password in [("other", "short"), ("other", "x" * 257), ("samesame", "SameSame")]:
        answer = post(client, "/api/account/signup", {"name": name, "password": password})
        assert answer.json()["error"]["code"] == "invalid_password", password


def test_a_new_password_ends_the_other_sessions_and_this_one_gets_a_new_id(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client()
    first, second = Browser(app), Browser(app)
    sign_up(first, "changer")
    assert log_in(second, "changer").status_code == 200
    before = first.cookies.get("bluegray_session")
    wrong = post(
        first, "/api/account/password", {"current_password": "nope", "new_password": "x" * 12}
    )
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "wrong_password"
    changed = post(
        first,
        "/api/account/password",
        {"current_password": PASSWORD, "new_password": "a new long password"},
    )
    assert changed.status_code == 200
    assert first.cookies.get("bluegray_session") != before
    assert account_of(first)["name"] == "changer"  # type: ignore[index]
    assert account_of(second) is None  # logged out everywhere else
    assert log_in(second, "changer").status_code == 401
    assert log_in(second, "changer", "a new long password").status_code == 200


def test_a_browser_claims_its_games_and_they_show_on_the_profile(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client()
    browser, friend, stranger = Browser(app), Browser(app), Browser(app)
    hotseat = browser.post("/api/games", json={"opponent": {"type": "hotseat"}}).json()
    ai = browser.post(
        "/api/games", json={"opponent": {"type": "ai", "level": 1}, "color": "blue"}
    ).json()
    game_id, _, _ = friend_game(browser, friend)
    others = stranger.post("/api/games", json={"opponent": {"type": "hotseat"}}).json()
    assert browser.get("/api/account").json()["unclaimed_games"] == 3
    state = sign_up(browser, "claimer", claim_games=True)
    assert state["unclaimed_games"] == 0
    profile = browser.get("/api/players/CLAIMER").json()
    ids = {game["id"] for game in profile["recent_games"]}
    assert ids == {hotseat["game"]["id"], ai["game"]["id"], game_id}
    assert others["game"]["id"] not in ids
    by_id = {game["id"]: game for game in profile["recent_games"]}
    assert by_id[hotseat["game"]["id"]]["side"] == "both"
    assert by_id[ai["game"]["id"]]["opponent"] == {
        "kind": "ai",
        "name": None,
        "bot": False,
        "level": 1,
    }
    assert by_id[game_id]["side"] == "blue"
    assert by_id[game_id]["opponent"]["kind"] == "anonymous"
    # The friend game's state names the account on its seat, for everyone; not the friend's.
    seats = friend.get(f"/api/games/{game_id}").json()["seats"]
    assert seats["blue"]["account"] == {"name": "claimer", "bot": False}
    assert "account" not in seats["gray"]
    game = friend.get(f"/api/games/{game_id}").json()
    assert game["version"] == 3  # created, joined, claimed


def test_an_account_plays_its_seats_from_any_browser_it_logs_in_to(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client()
    home, friend, away = Browser(app), Browser(app), Browser(app)
    sign_up(home, "traveller")
    game_id, _, friend_token = friend_game(home, friend)
    assert home.get(f"/api/games/{game_id}").json()["seats"]["blue"]["account"]["name"] == (
        "traveller"
    )
    assert log_in(away, "traveller").status_code == 200
    # Over HTTP with the session (and its CSRF token), without the seat token.
    moved = post(away, f"/api/games/{game_id}/moves", {"move": "d2-d3", "version": 2})
    assert moved.status_code == 200, moved.text
    # Without the CSRF token the cookie plays nothing.
    refused = away.post(f"/api/games/{game_id}/moves", json={"move": "d3-d4", "version": 3})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "csrf_failed"
    # Over the WebSocket: a hello without a token plays the account's seat.
    with away.websocket_connect(f"/ws/games/{game_id}") as socket:
        socket.send_json({"type": "hello"})
        assert socket.receive_json()["side"] == "blue"
        assert socket.receive_json()["type"] == "state"
    # A browser that is nobody's watches.
    with friend.websocket_connect(f"/ws/games/{game_id}") as socket:
        socket.send_json({"type": "hello"})
        assert socket.receive_json()["side"] is None
    # Another account plays no side of it.
    sign_up(friend, "bystander")
    answer = post(friend, f"/api/games/{game_id}/moves", {"move": "f8-f7", "version": 3})
    assert answer.status_code == 403 and "bystander plays no side" in answer.text
    answer = friend.post(
        f"/api/games/{game_id}/moves",
        json={"move": "f8-f7", "version": 3},
        headers={"Authorization": f"Bearer {friend_token}"},
    )
    assert answer.status_code == 200  # the seat token still plays, as before


def test_a_players_games_of_the_same_millisecond_are_all_listed_page_by_page(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_client()
    ada, bob = signed_up(app, "ada", "bob")
    monkeypatch.setattr(service_module, "now_ms", lambda: 1_700_000_000_000)
    ids = {friend_game(ada, bob)[0] for _ in range(3)}
    seen = ids_page_by_page(bob.get, "/api/players/bob/games", limit=2)
    assert sorted(seen) == sorted(ids) and len(seen) == 3


def test_a_profile_counts_wins_draws_losses_and_abandonments(
    make_client: Callable[..., TestClient], time_offset: Callable[[float], None]
) -> None:
    app = make_client(abandon_seconds=0.3)
    ada, bob = signed_up(app, "ada", "bob")
    game_id, _, _ = friend_game(ada, bob, moved=True)
    assert post(ada, f"/api/games/{game_id}/actions", {"action": "resign"}).status_code == 200
    # Bob wins a game that Ada leaves on her move.
    game_id, _, _ = friend_game(bob, ada, color="gray")
    assert post(ada, f"/api/games/{game_id}/moves", {"move": "d2-d3", "version": 2}).is_success
    assert post(bob, f"/api/games/{game_id}/moves", {"move": "f8-f7", "version": 3}).is_success
    time_offset(0.5)  # past the abandon time (0.3 s) since Ada's turn began
    claim = post(bob, f"/api/games/{game_id}/actions", {"action": "claim_win"})
    assert claim.status_code == 200, claim.text
    # A draw, a game against the AI, and a hot-seat game (which counts for nobody).
    game_id, _, _ = friend_game(ada, bob, moved=True)
    post(ada, f"/api/games/{game_id}/actions", {"action": "offer_draw"})
    assert post(bob, f"/api/games/{game_id}/actions", {"action": "accept_draw"}).is_success
    ai = post(ada, "/api/games", {"opponent": {"type": "ai", "level": 1}, "color": "blue"})
    post(ada, f"/api/games/{ai.json()['game']['id']}/actions", {"action": "resign"})
    hotseat = post(ada, "/api/games", {"opponent": {"type": "hotseat"}})
    post(ada, f"/api/games/{hotseat.json()['game']['id']}/actions", {"action": "resign"})

    ada_profile = ada.get("/api/players/ada").json()
    assert ada_profile["against_people"] == {
        "games": 3,
        "wins": 0,
        "draws": 1,
        "losses": 2,
        "abandoned": 1,
    }
    assert ada_profile["against_ai"] == {
        "games": 1,
        "wins": 0,
        "draws": 0,
        "losses": 1,
        "abandoned": 0,
    }
    assert ada_profile["ratings"] == []
    results = [game["result"] for game in ada_profile["recent_games"]]
    assert results == [None, "loss", "draw", "loss", "loss"]  # newest first
    bob_profile = bob.get("/api/players/bob").json()
    assert bob_profile["against_people"]["wins"] == 2
    assert bob_profile["recent_games"][0]["opponent"] == {
        "kind": "account",
        "name": "ada",
        "bot": False,
        "level": None,
    }
    page = bob.get("/api/players/bob/games?limit=2").json()
    assert len(page["games"]) == 2 and page["next_before_ms"] is not None
    older = bob.get(f"/api/players/bob/games?limit=2&before_ms={page['next_before_ms']}").json()
    assert len(older["games"]) == 1 and older["next_before_ms"] is None
    assert bob.get("/api/players/nobody").status_code == 404


def test_api_tokens_act_for_their_account_until_revoked(
    make_client: Callable[..., TestClient], database_url: str
) -> None:
    app = make_client()
    owner, program = Browser(app), Browser(app)
    sign_up(owner, "scripter")
    made = post(owner, "/api/account/tokens", {"description": "my script"})
    assert made.status_code == 201
    token = made.json()["token"]
    assert token.startswith("bgp_") and len(token) == 47
    listed = owner.get("/api/account/tokens").json()["tokens"]
    assert [info["description"] for info in listed] == ["my script"]
    bearer = {"Authorization": f"Bearer {token}"}
    assert program.get("/api/account", headers=bearer).json()["account"]["name"] == "scripter"
    # Only the digest is stored.
    engine = make_engine(database_url)
    with engine.connect() as connection:
        stored = connection.execute(select(ApiTokenRow.token_hash)).scalars().all()
    engine.dispose()
    assert token not in stored and len(stored) == 1 and len(stored[0]) == 64
    # A token plays the account's games, over HTTP and in the WebSocket's hello; it makes no
    # tokens and no password.
    created = program.post(
        "/api/games", json={"opponent": {"type": "friend"}, "color": "blue"}, headers=bearer
    ).json()
    game_id = created["game"]["id"]
    assert created["game"]["seats"]["blue"]["account"]["name"] == "scripter"
    program.post(f"/api/games/{game_id}/join", json={"invite": created["invite"]["code"]})
    moved = program.post(
        f"/api/games/{game_id}/moves", json={"move": "d2-d3", "version": 2}, headers=bearer
    )
    assert moved.status_code == 200
    with program.websocket_connect(f"/ws/games/{game_id}") as socket:
        socket.send_json({"type": "hello", "token": token})
        assert socket.receive_json()["side"] == "blue"
    assert (
        program.post(
            "/api/account/tokens", json={"description": "more"}, headers=bearer
        ).status_code
        == 403
    )
    # Revoked, it is refused, never taken for no token.
    token_id = listed[0]["id"]
    revoked = owner.delete(f"/api/account/tokens/{token_id}", headers={"X-CSRF-Token": csrf(owner)})
    assert revoked.status_code == 204
    answer = program.get("/api/account", headers=bearer)
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_token"
    with program.websocket_connect(f"/ws/games/{game_id}") as socket:
        socket.send_json({"type": "hello", "token": token})
        assert socket.receive_json()["code"] == "invalid_token"
    assert (
        owner.delete(
            f"/api/account/tokens/{token_id}", headers={"X-CSRF-Token": csrf(owner)}
        ).status_code
        == 404
    )


def test_a_bots_account_plays_with_its_token_only(make_client: Callable[..., TestClient]) -> None:
    app = make_client()
    bot, player = Browser(app), Browser(app)
    sign_up(bot, "robo")
    answer = post(bot, "/api/account/bot")
    assert answer.status_code == 200 and answer.json()["bot"] is True
    token = post(bot, "/api/account/tokens", {"description": "engine"}).json()["token"]
    # From the pages (its session), a bot's account plays nothing: the game is nobody's.
    game = post(bot, "/api/games", {"opponent": {"type": "hotseat"}}).json()["game"]
    assert "account" not in game["seats"]["blue"]
    # With its token it plays, and its seats say it is a bot.
    created = bot.post(
        "/api/games",
        json={"opponent": {"type": "friend"}, "color": "gray"},
        headers={"Authorization": f"Bearer {token}"},
    ).json()
    assert created["game"]["seats"]["gray"]["account"] == {"name": "robo", "bot": True}
    # An account that has played cannot become a bot's.
    sign_up(player, "human")
    friend_game(player, Browser(app))
    refused = post(player, "/api/account/bot")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_allowed"


@pytest.fixture
def closing_note() -> Iterator[None]:
    """A closing step that notes the account it closed (in the server's own table)."""

    def note(connection: Connection, account_id: int, now: int) -> None:
        table = table_of(ServerStateRow)
        connection.execute(insert(table).values(key=f"closed:{account_id}", value=str(now)))

    endings.CLOSING_STEPS.append(note)
    yield
    endings.CLOSING_STEPS.remove(note)


def test_a_moderator_closes_an_account_whose_sessions_and_tokens_end(
    make_client: Callable[..., TestClient],
    database_url: str,
    capsys: pytest.CaptureFixture[str],
    closing_note: None,
) -> None:
    app = make_client()
    moderator, target, program = Browser(app), Browser(app), Browser(app)
    sign_up(moderator, "warden")
    sign_up(target, "troll")
    token = post(target, "/api/account/tokens", {"description": "x"}).json()["token"]
    refused = post(moderator, "/api/players/troll/close")
    assert refused.status_code == 403  # not a moderator yet
    assert main(["user", "moderator", "WARDEN", "--database-url", database_url]) == 0
    assert capsys.readouterr().out == "bluegray: warden is a moderator now\n"
    assert account_of(moderator)["moderator"] is True  # type: ignore[index]
    assert post(moderator, "/api/players/troll/close").status_code == 204
    assert account_of(target) is None
    bearer = {"Authorization": f"Bearer {token}"}
    assert program.get("/api/account", headers=bearer).status_code == 401
    answer = log_in(target, "troll")
    assert answer.status_code == 401 and answer.json()["error"]["message"] == (
        "wrong name or password"
    )
    assert program.get("/api/players/troll").json()["closed"] is True
    # The closing steps ran in the same transaction.
    engine = make_engine(database_url)
    with engine.connect() as connection:
        table = table_of(ServerStateRow)
        keys = connection.execute(select(table.c.key)).scalars().all()
    engine.dispose()
    assert any(key.startswith("closed:") for key in keys)


def test_the_command_line_manages_accounts(
    client: TestClient, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sign_up(client, "Cmd_Line")
    post(client, "/api/account/tokens", {"description": "x"})
    assert main(["user", "show", "cmd_line", "--database-url", database_url]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("Cmd_Line: account ") and "a person, not a moderator, open" in shown
    assert "0 games, 1 sessions, 1 API tokens" in shown
    assert main(["user", "bot", "cmd_line", "--database-url", database_url]) == 0
    assert capsys.readouterr().out == "bluegray: Cmd_Line's account is a bot's now\n"
    assert main(["user", "moderator", "cmd_line", "--off", "--database-url", database_url]) == 0
    assert capsys.readouterr().out == "bluegray: Cmd_Line is no longer a moderator\n"
    assert main(["user", "close", "cmd_line", "--database-url", database_url]) == 0
    assert capsys.readouterr().out == (
        "bluegray: closed Cmd_Line's account (its sessions and API tokens ended)\n"
    )
    assert main(["user", "close", "cmd_line", "--database-url", database_url]) == 0
    assert capsys.readouterr().out == "bluegray: Cmd_Line's account was already closed\n"
    assert main(["user", "show", "cmd_line", "--database-url", database_url]) == 0
    assert "0 sessions, 0 API tokens" in capsys.readouterr().out
    assert main(["user", "close", "nobody", "--database-url", database_url]) == 2
    assert capsys.readouterr().err == "bluegray: error: no account is called nobody\n"
    assert account_of(client) is None


def test_games_stored_before_accounts_keep_their_seats_through_the_upgrade(
    database_url: str, make_client: Callable[..., TestClient]
) -> None:
    """Down to the schema before accounts (revision 0002) and up again: the games and their
    seats are kept, and the seats are nobody's."""
    client = make_client()
    game = client.post("/api/games", json={"opponent": {"type": "hotseat"}}).json()
    game_id, token = game["game"]["id"], game["seat"]["token"]
    engine = make_engine(database_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0002")
        assert "accounts" not in inspect(connection).get_table_names()
    upgrade_schema(engine)
    with engine.connect() as connection:
        seats = connection.execute(
            select(SeatRow.account_id, SeatRow.account_name, SeatRow.account_bot).where(
                SeatRow.game_id == game_id
            )
        ).all()
    engine.dispose()
    assert [tuple(seat) for seat in seats] == [(None, None, False), (None, None, False)]
    again = make_client()
    moved = again.post(
        f"/api/games/{game_id}/moves",
        json={"move": "d2-d3", "version": 1},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert moved.status_code == 200


def test_a_name_no_account_can_have_is_nobodys(client: TestClient) -> None:
    """Not a name at all (a NUL, which PostgreSQL cannot even store; too long; other
    characters): a login fails as for any unknown name, a profile is not found."""
    for name in ["a\x00b", "x" * 100, "é<>"]:
        answer = log_in(client, name)
        assert answer.status_code == 401, name
        assert answer.json()["error"]["code"] == "login_failed"
    assert client.get("/api/players/a%00b").status_code == 404
    assert client.get("/player/a%00b").status_code == 404


def test_the_accounts_api_is_in_the_openapi_schema(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    operations = {
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if "accounts" in item[method].get("tags", [])
    }
    assert operations == {
        ("GET", "/api/account"),
        ("POST", "/api/account/signup"),
        ("POST", "/api/account/login"),
        ("POST", "/api/account/logout"),
        ("POST", "/api/account/password"),
        ("POST", "/api/account/claim"),
        ("POST", "/api/account/bot"),
        ("GET", "/api/account/tokens"),
        ("POST", "/api/account/tokens"),
        ("DELETE", "/api/account/tokens/{token_id}"),
        ("GET", "/api/account/turn"),
        ("GET", "/api/account/notifications"),
        ("PUT", "/api/account/notifications"),
        ("GET", "/api/players/{name}"),
        ("GET", "/api/players/{name}/games"),
        ("POST", "/api/players/{name}/close"),
        ("GET", "/api/moderation/rated-pairs"),
    }
    components = schema["components"]["schemas"]
    for model in (
        "AccountState",
        "SignUpRequest",
        "PlayerProfile",
        "RatingInfo",
        "NewToken",
        "YourTurn",
        "NotificationRequest",
    ):
        assert model in components, model
    seat = components["SeatState"]["properties"]["account"]
    assert {"$ref": "#/components/schemas/SeatAccount"} in seat["anyOf"]
