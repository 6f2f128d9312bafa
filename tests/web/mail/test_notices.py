"""Notices by email: an account's address and choices (never shown to others), and the mails
themselves, sent by the service's durable timers to a real SMTP server (aiosmtpd's, in a process
of its own on a loopback port): "your move", "your time is running out", tried again while the
mail server is down, and sent by the next process when the one that owed it died."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from email.message import Message
from typing import Any

import httpx
import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, func, inspect, select

from bluegray.web.accounts.rows import AccountRow, SessionRow
from bluegray.web.games.rows import GameRow, SeatRow
from bluegray.web.platform.db import MIGRATIONS, make_engine, upgrade_schema
from tests.servers import MailSink, free_port
from tests.web.account_clients import PASSWORD, Browser, friend_game, sign_up
from tests.web.conftest import ServeProcess, TestClient
from tests.web.games.game_clients import BLUE_MOVE, GRAY_MOVE

SITE = "http://bluegray.test"


@pytest.fixture
def sink() -> Iterator[MailSink]:
    with MailSink() as server:
        yield server


def mail_settings(port: int, **changes: Any) -> dict[str, Any]:
    return {
        "smtp_host": "127.0.0.1",
        "smtp_port": port,
        "smtp_security": "none",
        "smtp_from": "Blue and Gray <games@bluegray.test>",
        "public_url": SITE,
        "deadline_poll_seconds": 0.25,
        **changes,
    }


def choose(browser: Browser, **body: Any) -> Any:
    headers = {"X-CSRF-Token": browser.get("/api/account").json()["csrf_token"]}
    return browser.put("/api/account/notifications", json=body, headers=headers)


def play(browser: Browser, game_id: str, token: str, text: str) -> None:
    version = browser.get(f"/api/games/{game_id}").json()["version"]
    answer = browser.post(
        f"/api/games/{game_id}/moves",
        json={"move": text, "version": version},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 200, answer.text


def text_of(message: Message) -> str:
    body = message.get_payload(decode=True)
    assert isinstance(body, bytes)
    return body.decode()


def test_an_account_stores_an_address_and_its_choices_never_shown_to_others(
    client: TestClient,
) -> None:
    ada, nobody = Browser(client), Browser(client)
    sign_up(ada, "ada_l")
    assert nobody.get("/api/account/notifications").status_code == 401
    shown = ada.get("/api/account/notifications").json()
    assert shown == {"email": None, "turn": False, "time": False, "mail_enabled": False}
    bad = choose(ada, email="not an address", turn=True)
    assert bad.status_code == 422 and "email" in bad.json()["error"]["message"]
    alone = choose(ada, turn=True)
    assert alone.status_code == 422
    assert alone.json()["error"]["message"] == "email notices need an email address"
    no_csrf = ada.put("/api/account/notifications", json={"email": "ada@example.org"})
    assert no_csrf.status_code == 403
    assert ada.get("/api/account/notifications").json()["email"] is None  # nothing changed
    good = choose(ada, email="ada@example.org", turn=True, time=False)
    assert good.status_code == 200, good.text
    assert ada.get("/api/account/notifications").json() == {
        "email": "ada@example.org",
        "turn": True,
        "time": False,
        "mail_enabled": False,
    }
    assert "ada@example.org" not in nobody.get("/api/players/ada_l").text
    assert "ada@example.org" not in nobody.get("/player/ada_l").text


def test_your_move_and_time_running_out_by_email(
    make_client: Callable[..., TestClient],
    sink: MailSink,
    time_offset: Callable[[float], None],
) -> None:
    client = make_client(**mail_settings(sink.port))
    ada, bob = Browser(client), Browser(client)
    sign_up(ada, "ada_l")
    sign_up(bob, "bob_b")
    assert choose(bob, email="bob@example.org", turn=True, time=True).status_code == 200
    assert choose(ada, email="ada@example.org", turn=False, time=False).status_code == 200
    game_id, ada_token, bob_token = friend_game(ada, bob, correspondence={"days": 1})
    play(ada, game_id, ada_token, BLUE_MOVE)
    [first] = sink.wait_for(1)
    assert first["To"] == "bob@example.org"
    assert first["From"] == "Blue and Gray <games@bluegray.test>"
    assert first["Subject"] == "Your move against ada_l"
    body = text_of(first)
    assert f"{SITE}/game/{game_id}" in body and "It is your move (Gray)" in body
    assert "1 day per move" in body and "Hello bob_b" in body
    play(bob, game_id, bob_token, GRAY_MOVE)
    time.sleep(1.5)  # Ada asked for no mail: none comes
    assert len(sink.messages()) == 1
    play(ada, game_id, ada_token, "d3-d4")
    second = sink.wait_for(2)[1]
    assert second["To"] == "bob@example.org" and second["Subject"] == "Your move against ada_l"
    # A quarter of the day left (six hours): Bob is told his time is running out.
    time_offset(18 * 3600 + 60)
    third = sink.wait_for(3)[2]
    assert third["Subject"] == "Your time is running out against ada_l"
    assert f"{SITE}/game/{game_id}" in text_of(third)
    assert len(sink.wait_for(4, 1.5)) == 3  # each once


def test_a_mail_the_server_did_not_take_is_tried_again(
    make_client: Callable[..., TestClient],
) -> None:
    port = free_port()  # the mail server is down when the move is made
    client = make_client(**mail_settings(port, smtp_retry_seconds=0.5, smtp_timeout_seconds=2))
    ada, bob = Browser(client), Browser(client)
    sign_up(ada, "ada_l")
    sign_up(bob, "bob_b")
    choose(bob, email="bob@example.org", turn=True)
    game_id, ada_token, _ = friend_game(ada, bob, correspondence={"days": 3})
    play(ada, game_id, ada_token, BLUE_MOVE)
    time.sleep(1.5)  # a try or two fail
    with MailSink(port) as late:
        [message] = late.wait_for(1)
        assert message["To"] == "bob@example.org"
        assert len(late.wait_for(2, 1.5)) == 1


@pytest.mark.slow
def test_a_mail_owed_by_a_process_that_died_is_sent_by_the_next(
    database_url: str, processes: list[ServeProcess], sink: MailSink
) -> None:
    # The first process's mail server takes connections and never answers: the process is in
    # the middle of sending when it dies.
    with socket.create_server(("127.0.0.1", 0)) as silent:
        settings = mail_settings(silent.getsockname()[1], smtp_timeout_seconds=120)
        first = ServeProcess(free_port(), database_url, **_env(settings))
        processes.append(first)
        first.wait_ready()
        game_id = _game_with_move(first)
        time.sleep(1.5)  # its timer fired: it waits on the silent server
        first.kill()
    second = ServeProcess(free_port(), database_url, **_env(mail_settings(sink.port)))
    processes.append(second)
    second.wait_ready()
    [message] = sink.wait_for(1, 30)
    assert message["To"] == "bob@example.org"
    assert f"{SITE}/game/{game_id}" in text_of(message)


def _env(settings: dict[str, Any]) -> dict[str, str]:
    env = {f"BLUEGRAY_{name.upper()}": str(value) for name, value in settings.items()}
    return env | {"BLUEGRAY_RATE_LIMITS": "false"}


def _game_with_move(server: ServeProcess) -> str:
    """Ada and Bob (who asked for "your move" mails) in a correspondence game where Ada has
    moved, through the server's HTTP API as two browsers."""
    browsers = [httpx.Client(base_url=server.url, timeout=10) for _ in range(2)]
    try:
        for browser, name in zip(browsers, ("ada_l", "bob_b"), strict=True):
            csrf = browser.get("/api/account").json()["csrf_token"]
            made = browser.post(
                "/api/account/signup",
                json={"name": name, "password": PASSWORD},
                headers={"X-CSRF-Token": csrf},
            )
            assert made.status_code == 201, made.text
        ada, bob = browsers
        bob_csrf = bob.get("/api/account").json()["csrf_token"]
        chosen = bob.put(
            "/api/account/notifications",
            json={"email": "bob@example.org", "turn": True},
            headers={"X-CSRF-Token": bob_csrf},
        )
        assert chosen.status_code == 200, chosen.text
        game_id, ada_token, _ = friend_game(ada, bob, correspondence={"days": 2})  # type: ignore[arg-type]
        moved = ada.post(
            f"/api/games/{game_id}/moves",
            json={"move": BLUE_MOVE, "version": 2},
            headers={"Authorization": f"Bearer {ada_token}"},
        )
        assert moved.status_code == 200, moved.text
        return game_id
    finally:
        for browser in browsers:
            browser.close()


def test_the_schema_goes_down_before_notices_and_up_again_keeping_everything(
    database_url: str, make_client: Callable[..., TestClient]
) -> None:
    """Down to revision 0003 and up again: the games (with their seats' accounts), the accounts'
    sessions and the correspondence games' columns come back as they were, emptied of what 0006
    added (on SQLite too, where copying a table to change it would cascade to its rows)."""
    client = make_client()
    ada = Browser(client)
    sign_up(ada, "ada_l")
    choose(ada, email="ada@example.org", turn=True)
    game = ada.post(
        "/api/games",
        json={"opponent": {"type": "hotseat"}},
        headers={"X-CSRF-Token": ada.get("/api/account").json()["csrf_token"]},
    ).json()["game"]
    engine = make_engine(database_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))

    def counts(connection: Connection) -> tuple[int, int, list[Any]]:
        sessions = connection.execute(select(func.count()).select_from(SessionRow)).scalar()
        seats = connection.execute(
            select(SeatRow.account_name).where(SeatRow.game_id == game["id"])
        ).all()
        games = connection.execute(select(func.count()).select_from(GameRow.__table__)).scalar()
        return int(sessions or 0), int(games or 0), [tuple(row) for row in seats]

    with engine.begin() as connection:
        before = counts(connection)
        config.attributes["connection"] = connection
        command.downgrade(config, "0003")
        assert "email" not in {
            column["name"] for column in inspect(connection).get_columns("accounts")
        }
        assert counts(connection) == before
    upgrade_schema(engine)
    with engine.connect() as connection:
        assert counts(connection) == before == (1, 1, [("ada_l",), ("ada_l",)])
        assert connection.execute(select(AccountRow.email)).scalar() is None
    engine.dispose()
    assert ada.get("/api/account").json()["account"]["name"] == "ada_l"  # still logged in
