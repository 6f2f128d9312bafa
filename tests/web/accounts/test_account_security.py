"""The accounts' security, each with its test: the password hashing's parameters, session
fixation, CSRF on every change a cookie authorises, account enumeration by messages and by timing,
and the limits on logins (brute force, per name and per address) and on new accounts."""

from __future__ import annotations

import base64
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy import select, update

from bluegray.cli.main import main
from bluegray.web.accounts.passwords import (
    HASHING_AT_ONCE,
    LANES,
    MEMORY_KIB,
    TIME_COST,
    verify_now,
)
from bluegray.web.accounts.rows import AccountRow
from bluegray.web.platform.db import make_engine
from bluegray.web.routers.pages import TEMPLATES
from tests.web.account_clients import PASSWORD, Browser, csrf, log_in, post, sign_up, signed_up
from tests.web.conftest import TestClient, clear_of_a_window_edge

ARGON2 = re.compile(r"\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([^$]+)\$([^$]+)")


def stored_hash(database_url: str, name: str) -> str:
    engine = make_engine(database_url)
    with engine.connect() as connection:
        value = connection.execute(
            select(AccountRow.password_hash).where(AccountRow.name_key == name.lower())
        ).scalar_one()
    engine.dispose()
    return str(value)


def unpadded(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


# -- password hashing ------------------------------------------------------------------------------


@pytest.mark.pinned_hashing
def test_passwords_are_stored_as_argon2id_with_the_pinned_parameters(
    client: TestClient, make_client: Callable[..., TestClient], database_url: str
) -> None:
    assert (MEMORY_KIB, TIME_COST, LANES) == (65536, 3, 4)  # RFC 9106's second recommendation
    assert HASHING_AT_ONCE >= 1
    sign_up(client, "hashed")
    post(client, "/api/account/logout")
    sign_up(client, "hashed2")
    first, second = stored_hash(database_url, "hashed"), stored_hash(database_url, "hashed2")
    for stored in (first, second):
        match = ARGON2.fullmatch(stored)
        assert match is not None, stored
        memory, passes, lanes, salt, digest = match.groups()
        assert (int(memory), int(passes), int(lanes)) == (65536, 3, 4)
        assert len(unpadded(salt)) == 16 and len(unpadded(digest)) == 32
        assert PASSWORD not in stored
        assert verify_now(stored, PASSWORD) and not verify_now(stored, PASSWORD + "!")
    assert first != second  # the same password, another salt


@pytest.mark.pinned_hashing
def test_a_hash_made_with_weaker_parameters_is_remade_at_the_next_login(
    client: TestClient, database_url: str
) -> None:
    sign_up(client, "oldtimer")
    weak = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1).hash(PASSWORD)
    engine = make_engine(database_url)
    with engine.begin() as connection:
        connection.execute(
            update(AccountRow).where(AccountRow.name_key == "oldtimer").values(password_hash=weak)
        )
    engine.dispose()
    post(client, "/api/account/logout")
    assert log_in(client, "oldtimer").status_code == 200
    remade = stored_hash(database_url, "oldtimer")
    assert remade != weak and remade.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert verify_now(remade, PASSWORD)


# -- session fixation ------------------------------------------------------------------------------


def test_logging_in_always_makes_a_new_session_id(make_client: Callable[..., TestClient]) -> None:
    app = make_client()
    attacker, victim = signed_up(app, "attacker", "victim")
    post(victim, "/api/account/logout")
    planted = attacker.cookies["bluegray_session"]
    # The attacker plants their own live session id in the victim's browser, then the victim
    # logs in there: the victim gets a new id, and the planted one is not the victim's.
    victim.set_cookie("bluegray_session", planted)
    assert log_in(victim, "victim").status_code == 200
    fresh = victim.cookies["bluegray_session"]
    assert fresh != planted
    answer = attacker.get("/api/account").json()["account"]
    assert answer is None or answer["name"] == "attacker"
    assert answer is None  # the planted session was ended by the login that replaced it
    # A made-up id is never accepted, not even after a login with it in the jar.
    made_up = "A" * 43
    stranger = Browser(app)
    stranger.set_cookie("bluegray_session", made_up)
    assert stranger.get("/api/account").json()["account"] is None
    assert log_in(stranger, "victim").status_code == 200
    assert stranger.cookies["bluegray_session"] != made_up
    impostor = Browser(app)
    impostor.set_cookie("bluegray_session", made_up)
    assert impostor.get("/api/account").json()["account"] is None


# -- CSRF -----------------------------------------------------------------------------------------


def test_every_change_a_cookie_authorises_needs_its_csrf_token(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client()
    player = Browser(app)
    sign_up(player, "careful")
    changes = [
        ("/api/account/logout", None),
        ("/api/account/password", {"current_password": PASSWORD, "new_password": "x" * 12}),
        ("/api/account/claim", None),
        ("/api/account/bot", None),
        ("/api/account/tokens", {"description": "x"}),
        ("/api/players/careful/close", None),
        ("/api/account/login", {"name": "careful", "password": PASSWORD}),
        ("/api/account/signup", {"name": "second", "password": PASSWORD}),
    ]
    for path, body in changes:
        for headers in ({}, {"X-CSRF-Token": "0" * 64}):
            answer = player.post(path, json=body, headers=headers)
            assert answer.status_code == 403, (path, headers, answer.text)
            assert answer.json()["error"]["code"] == "csrf_failed", path
    assert (
        player.delete("/api/account/tokens/1", headers={"X-CSRF-Token": "0" * 64}).status_code
        == 403
    )
    # Nothing happened: still logged in, no token, no bot.
    state = player.get("/api/account").json()
    assert state["account"]["name"] == "careful" and state["account"]["bot"] is False
    assert player.get("/api/account/tokens").json()["tokens"] == []
    # A page elsewhere: refused by its Origin (or its Sec-Fetch-Site), even with the token.
    token = csrf(player)
    for header in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        answer = player.post("/api/account/logout", headers={"X-CSRF-Token": token, **header})
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "csrf_failed"
    # A form (not JSON) cannot even be sent.
    answer = player.post(
        "/api/account/login",
        content=b"name=careful&password=x",
        headers={"Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": token},
    )
    assert answer.status_code == 415
    # A new game without the token is nobody's (the cookie counts for nothing); with it, the
    # player's.
    anonymous = player.post("/api/games", json={"opponent": {"type": "hotseat"}}).json()
    assert "account" not in anonymous["game"]["seats"]["blue"]
    owned = post(player, "/api/games", {"opponent": {"type": "hotseat"}}).json()
    assert owned["game"]["seats"]["blue"]["account"]["name"] == "careful"
    # Logged in before, logging in again from this site with the token works.
    assert post(player, "/api/account/logout").status_code == 200
    assert log_in(player, "careful").status_code == 200


def test_an_api_token_cannot_take_the_account_over(
    make_client: Callable[..., TestClient], database_url: str
) -> None:
    """Becoming a bot, the email and notices, the password, closing an account, and minting or
    revoking tokens need a logged-in browser: an API token (a program's, or a leaked one) gets
    403 and changes nothing."""
    app = make_client(rate_limits=False)
    owner, _ = signed_up(app, "owner", "other")  # "other": an account to close
    assert main(["user", "moderator", "owner", "--database-url", database_url]) == 0
    made = post(owner, "/api/account/tokens", {"description": "program"}).json()
    program = Browser(app)
    bearer = {"Authorization": f"Bearer {made['token']}"}
    assert program.get("/api/account", headers=bearer).json()["account"]["name"] == "owner"
    changes = [
        ("POST", "/api/account/bot", None),
        ("PUT", "/api/account/notifications", {"email": "thief@example.org", "turn": True}),
        ("POST", "/api/account/password", {"current_password": PASSWORD, "new_password": "y" * 16}),
        ("POST", "/api/account/tokens", {"description": "mine now"}),
        ("DELETE", f"/api/account/tokens/{made['info']['id']}", None),
        ("POST", "/api/players/other/close", None),
    ]
    for method, path, body in changes:
        answer = program.client.request(method, path, json=body, headers=bearer)
        assert answer.status_code == 403, (path, answer.text)
        assert answer.json()["error"]["code"] == "forbidden", path
        assert "logged-in browser" in answer.json()["error"]["message"], path
    # Nothing changed: not a bot, no email, the one token, the other account open.
    assert owner.get("/api/account").json()["account"]["bot"] is False
    assert owner.get("/api/account/notifications").json()["email"] is None
    assert len(owner.get("/api/account/tokens").json()["tokens"]) == 1
    assert app.get("/api/players/other").json()["closed"] is False
    assert log_in(Browser(app), "owner").status_code == 200  # the password is as it was
    # The owner's browser may do each of them.
    answer = owner.put(
        "/api/account/notifications",
        json={"email": "owner@example.org"},
        headers={"X-CSRF-Token": csrf(owner)},
    )
    assert answer.status_code == 200, answer.text


def test_a_logged_out_browser_needs_the_token_of_its_browser_cookie_to_log_in(
    client: TestClient,
) -> None:
    """Login CSRF: a page elsewhere cannot log a visitor in to the attacker's account."""
    sign_up(client, "someone")
    post(client, "/api/account/logout")
    assert "bluegray_browser" in client.cookies
    answer = client.post("/api/account/login", json={"name": "someone", "password": PASSWORD})
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "csrf_failed"
    # A program without cookies has nothing to forge: it logs in without a token.
    client.cookies.clear()
    assert (
        client.post(
            "/api/account/login", json={"name": "someone", "password": PASSWORD}
        ).status_code
        == 200
    )


def test_the_pages_post_their_forms_as_json_with_the_pages_token(client: TestClient) -> None:
    for template in sorted(Path(TEMPLATES).glob("*.html")):
        html = template.read_text(encoding="utf-8")
        # No form is sent by the browser itself (at most a GET of the page): the page's
        # script posts it as JSON, with the token.
        for form in re.findall(r"<form\b[^>]*>", html):
            assert "method=" not in form and "action=" not in form, (template.name, form)
    page = client.get("/signup").text
    token = re.search(r'<meta name="csrf-token" content="([0-9a-f]{64})">', page)
    assert token is not None and token[1] == csrf(client)
    # Every change a page sends goes through api.js's ``request``, which adds the token: no
    # other script sets a method of its own.
    static = Path(TEMPLATES).parent / "static"
    assert '"X-CSRF-Token": csrfToken()' in (static / "api.js").read_text(encoding="utf-8")
    for script in static.glob("*.js"):
        if script.name != "api.js":
            assert "method" not in script.read_text(encoding="utf-8"), script.name
    for name in ("account.js", "lobby.js", "game.js", "seeks.js", "tournaments.js"):
        text = (static / name).read_text(encoding="utf-8")
        assert re.search(r'import \{[^}]*\brequest\b[^}]*\} from "\./api\.js"', text), name


# -- enumeration -----------------------------------------------------------------------------------


@pytest.mark.pinned_hashing  # the timing of a real hash
def test_a_failed_login_says_the_same_and_takes_as_long_for_any_reason(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(login_failures_per_name=100, login_failures_per_address=100)
    browser = Browser(app)
    sign_up(browser, "known")
    post(browser, "/api/account/logout")
    answers = [
        log_in(browser, "known", "wrong password"),
        log_in(browser, "unknown_name", "wrong password"),
        log_in(browser, "unknown_name", PASSWORD),
    ]
    assert {answer.status_code for answer in answers} == {401}
    bodies = [answer.json() for answer in answers]
    for body in bodies:
        assert body["error"].pop("request_id")  # each request's own id, the rest the same
    assert all(
        body == {"error": {"code": "login_failed", "message": "wrong name or password"}}
        for body in bodies
    )

    def timed(name: str) -> float:
        started = time.perf_counter()
        assert log_in(browser, name, "wrong password").status_code == 401
        return time.perf_counter() - started

    wrong = statistics.median(timed("known") for _ in range(5))
    unknown = statistics.median(timed("nobody_here") for _ in range(5))
    # An unknown name's password is hashed too (a dummy hash): the same work, within noise.
    # Without it an unknown name would answer a hundred times sooner.
    assert unknown > 0.5 * wrong, (unknown, wrong)
    assert wrong > 0.5 * unknown, (unknown, wrong)
    assert unknown > 0.02  # an Argon2id verification, not a dictionary look-up


# -- brute force and sign-ups ----------------------------------------------------------------------


def test_failed_logins_to_a_name_slow_it_down_from_anywhere_but_the_owners_browser(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(login_failures_per_name=3, rate_limits=False)
    owner, attacker, other = Browser(app), Browser(app), Browser(app)
    sign_up(owner, "target")
    post(owner, "/api/account/logout")
    for _ in range(3):
        assert log_in(attacker, "TARGET", "guess").status_code == 401
    slowed = log_in(other, "target")  # even the right password, from another browser
    assert slowed.status_code == 429 and slowed.json()["error"]["code"] == "rate_limited"
    assert int(slowed.headers["retry-after"]) > 0
    assert "too many failed logins to this name" in slowed.json()["error"]["message"]
    # The owner's browser (it has logged in to the account: its device cookie) is not slowed.
    assert log_in(owner, "target").status_code == 200
    post(owner, "/api/account/logout")
    # The waits grow with each failure, and nothing is ever locked.
    time.sleep(int(slowed.headers["retry-after"]))  # the wait the answer asked for
    assert log_in(attacker, "target", "guess").status_code == 401
    again = log_in(attacker, "target", "guess")
    assert again.status_code == 429
    assert int(again.headers["retry-after"]) > int(slowed.headers["retry-after"])
    # An unknown name slows the same way (the wait says nothing of who exists).
    for _ in range(3):
        assert log_in(attacker, "ghost", "guess").status_code == 401
    assert log_in(attacker, "ghost", "guess").status_code == 429
    # Other names are not slowed, and a good login forgets the failures before it.
    sign_up(other, "neighbour")
    post(other, "/api/account/logout")
    other.cookies.delete("bluegray_device")  # as a browser that never logged in to it
    for _ in range(2):
        assert log_in(other, "neighbour", "typo").status_code == 401
    assert log_in(other, "neighbour").status_code == 200
    post(other, "/api/account/logout")
    other.cookies.delete("bluegray_device")
    for _ in range(2):
        assert log_in(other, "neighbour", "typo").status_code == 401
    assert log_in(other, "neighbour").status_code == 200


@pytest.mark.slow
def test_the_owners_browser_logs_in_at_once_while_a_thousand_guesses_are_refused(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(trusted_proxies="*", http_rate=10_000.0, http_burst=10_000)
    owner, attacker = Browser(app), Browser(app)
    sign_up(owner, "besieged")
    post(owner, "/api/account/logout")
    token = csrf(attacker)
    refused = 0
    for index in range(1000):
        address = f"10.0.{index // 200}.{index % 200}"  # each guess from its own address
        guess = {"name": "besieged", "password": f"guess{index}"}
        sent = {"X-CSRF-Token": token, "X-Forwarded-For": address}
        answer = attacker.post("/api/account/login", json=guess, headers=sent)
        assert answer.status_code in (401, 429), answer.text
        if answer.status_code == 429:
            refused += 1
            assert int(answer.headers["retry-after"]) >= 1
        if index % 100 == 50:  # the owner, at home, in the middle of the attack
            started = time.perf_counter()
            mine = post(
                owner,
                "/api/account/login",
                {"name": "besieged", "password": PASSWORD},
                **{"X-Forwarded-For": "192.0.2.7"},
            )
            assert mine.status_code == 200, mine.text
            assert time.perf_counter() - started < 2
            post(owner, "/api/account/logout")
    assert refused > 950  # slowed down: a handful of the guesses were even tried


def test_failed_logins_from_an_address_are_limited_whatever_the_names(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(login_failures_per_address=4, login_failures_per_name=100)
    browser = Browser(app)
    for index in range(4):
        assert log_in(browser, f"name{index}", "guess").status_code == 401
    answer = log_in(browser, "name9", "guess")
    assert answer.status_code == 429
    assert "too many failed logins from your address" in answer.json()["error"]["message"]


def test_new_accounts_and_logins_from_an_address_are_rate_limited(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(signup_burst=2, signup_rate=0.001, login_burst=3, login_rate=0.001)
    clear_of_a_window_edge((0.001, 2), (0.001, 3))
    browser = Browser(app)
    sign_up(browser, "first1")
    post(browser, "/api/account/logout")
    sign_up(browser, "second2")
    post(browser, "/api/account/logout")
    answer = post(browser, "/api/account/signup", {"name": "third3", "password": PASSWORD})
    assert answer.status_code == 429 and "new accounts" in answer.json()["error"]["message"]
    assert answer.headers["retry-after"]
    for _ in range(3):
        assert log_in(browser, "first1").status_code == 200
        post(browser, "/api/account/logout")
    answer = log_in(browser, "first1")
    assert answer.status_code == 429 and "too many logins" in answer.json()["error"]["message"]


# -- weak passwords and look-alike names -----------------------------------------------------------


def test_a_common_password_is_refused_in_any_case_and_after_trimming(client: TestClient) -> None:
    for weak in ["12345678", "password", "qwertyuiop", " " * 8, "PassWord", "  iloveyou  "]:
        answer = post(client, "/api/account/signup", {"name": "weakling", "password": weak})
        assert answer.status_code == 422, weak
        assert answer.json()["error"]["code"] == "invalid_password", weak
    assert client.get("/api/account").json()["account"] is None  # no account was made
    sign_up(client, "weakling")
    changed = post(
        client,
        "/api/account/password",
        {"current_password": PASSWORD, "new_password": "Qwertyuiop"},
    )
    assert changed.status_code == 422 and "most common" in changed.json()["error"]["message"]
    assert log_in(Browser(client), "weakling").status_code == 200  # the password is unchanged


def test_reserved_names_are_refused_by_their_skeleton(client: TestClient) -> None:
    for name in ["admin_", "adm1n", "administrator", "moderator2", "bluegray-team", "R00t"]:
        answer = post(client, "/api/account/signup", {"name": name, "password": PASSWORD})
        assert answer.status_code == 422, name
        assert answer.json()["error"]["code"] == "invalid_name", name
    sign_up(client, "badminton")


def test_every_page_and_answer_that_depends_on_the_session_is_no_store(
    client: TestClient,
) -> None:
    """Pages carry the CSRF token and the viewer's name: no cache may keep them (``no-cache``
    only asks a cache to check before reusing)."""
    sign_up(client, "private")
    for path in ["/", "/account", "/login", "/signup", "/player/private", "/tournaments"]:
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert answer.headers["cache-control"] == "no-store", path
        assert csrf(client) in answer.text or path == "/player/private", path
    for path in ["/api/account", "/api/account/tokens", "/api/account/notifications"]:
        assert client.get(path).headers["cache-control"] == "no-store", path


def test_behind_a_trusted_tls_proxy_cookies_are_secure_and_answers_carry_hsts(
    make_client: Callable[..., TestClient],
) -> None:
    """The scheme the trusted proxy reports (``X-Forwarded-Proto``) decides, without
    ``BLUEGRAY_SECURE_COOKIES``; the same header from a client that is not a trusted proxy
    changes nothing."""
    https = {"X-Forwarded-Proto": "https"}
    behind = make_client(trusted_proxies=["*"])
    page = behind.get("/", headers=https)
    assert page.headers["strict-transport-security"].startswith("max-age=")
    assert "; secure" in page.headers["set-cookie"].lower()
    token = csrf(behind)
    signed = behind.post(
        "/api/account/signup",
        json={"name": "proxied", "password": PASSWORD},
        headers={"X-CSRF-Token": token, **https},
    )
    assert signed.status_code == 201, signed.text
    assert "; secure" in signed.headers["set-cookie"].lower()
    assert "strict-transport-security" in signed.headers
    plain = behind.get("/api/account")  # plain HTTP through the proxy: neither
    assert "strict-transport-security" not in plain.headers
    direct = make_client()  # the test client is no trusted proxy: its header is not believed
    answer = direct.get("/", headers=https)
    assert "strict-transport-security" not in answer.headers
    assert "secure" not in answer.headers["set-cookie"].lower()
