"""``bluegray bot``, a real process with a real engine process, against a real server: a bot's
account joins a game by its invite link with its API token and plays it with ``bluegray engine``
over the WebSocket until the game is over; it posts seeks in the lobby and accepts others'; a
token the site does not know, or an account that is not a bot's, is a one-line error."""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from bluegray.cli import bot, bot_games
from bluegray.web.platform import clocks
from tests.web.conftest import Json, LiveServer, Socket
from tests.web.lobby_clients import Player

pytestmark = pytest.mark.slow

PASSWORD = "correct horse battery"


def account_with_token(server: LiveServer, name: str, *, bot: bool) -> str:
    """A new account's API token (a bot's, if ``bot``)."""
    with httpx.Client(base_url=server.url, timeout=20) as browser:

        def post(path: str, body: object = None) -> httpx.Response:
            token = browser.get("/api/account").json()["csrf_token"]
            return browser.post(path, json=body, headers={"X-CSRF-Token": token})

        assert post("/api/account/signup", {"name": name, "password": PASSWORD}).status_code == 201
        if bot:
            assert post("/api/account/bot").json()["bot"] is True
        token: str = post("/api/account/tokens", {"description": "engine"}).json()["token"]
        return token


def bot_command(server: LiveServer, token: str, *options: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "bluegray",
        "bot",
        "--token",
        token,
        "--server",
        server.url,
        "--engine",
        f"{sys.executable} -m bluegray engine",
        "--movetime",
        "30",
        "--poll",
        "0.2",
        *options,
    ]


def test_a_bot_joins_by_invite_and_plays_its_game_to_the_end(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    token = account_with_token(server, "robo", bot=True)
    created = httpx.post(
        f"{server.url}/api/games",
        json={"rules": "cooper", "opponent": {"type": "friend"}, "color": "blue"},
    ).json()
    game_id, human_token = created["game"]["id"], created["seat"]["token"]
    link = server.url + created["invite"]["path"]
    bot = subprocess.Popen(
        bot_command(server, token, "--join", link, "--games", "1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=os.environ.copy(),
    )
    try:
        with Socket(server.ws_url(game_id), human_token) as human:
            deadline = time.monotonic() + 60
            replies = 0
            while replies < 3:
                state = human.state
                if state["status"] == "active" and state["turn"] == "blue":
                    human.send(
                        {
                            "type": "move",
                            "move": state["legal_moves"][0],
                            "version": state["version"],
                        }
                    )
                    state = human.state_at(state["version"] + 1)
                    state = human.state_at(state["version"] + 1, timeout=30)  # the bot's reply
                    assert state["last_move"]["side"] == "gray"
                    replies += 1
                else:
                    human.next(timeout=max(0.1, deadline - time.monotonic()))
            assert state["seats"]["gray"]["account"] == {"name": "robo", "bot": True}
            assert state["seats"]["gray"]["connected"] is True  # the bot holds a socket
            human.send({"type": "action", "action": "resign"})
            final = human.state_at(state["version"] + 1)
            assert final["outcome"]["winner"] == "gray"
        output, _ = bot.communicate(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 0, output
    lines = output.splitlines()
    assert f"bluegray bot robo: joined game {game_id}" in lines
    assert f"bluegray bot robo: game {game_id}: playing gray" in lines
    assert f"bluegray bot robo: game {game_id}: over: 0-1, Gray wins: resignation" in lines


def test_a_bot_needs_a_known_token_of_a_bots_account(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    person = account_with_token(server, "person", bot=False)
    for token, message in [
        ("bgp_" + "x" * 43, "that API token is unknown or revoked"),
        (person, "person is not a bot's account: make it one first"),
    ]:
        done = subprocess.run(
            bot_command(server, token), capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2
        assert done.stderr.startswith(f"bluegray: error: {message}"), done.stderr


def play_until_the_bot_moves_then_resign(server: LiveServer, game_id: str, token: str) -> Json:
    """As the bot's human opponent: move when it is our turn until both sides have moved (the
    bot at least once), then resign; the final state."""
    with Socket(server.ws_url(game_id), token) as human:
        mine = human.welcome["side"]
        deadline = time.monotonic() + 60
        while True:
            state = human.state
            if state["ply"] >= 2:  # both sides have moved: the game can be resigned, rated
                break
            if state["turn"] == mine:
                move = {
                    "type": "move",
                    "move": state["legal_moves"][0],
                    "version": state["version"],
                }
                human.send(move)
                human.state_at(state["version"] + 1)
            else:
                human.next(timeout=max(0.1, deadline - time.monotonic()))
        human.send({"type": "action", "action": "resign"})
        return human.state_at(state["version"] + 1)


def test_a_bot_plays_seeks_it_posts_and_seeks_it_accepts(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    token = account_with_token(server, "robo", bot=True)
    human = Player(server.url, "ada")
    # It posts its own rated seek, which a person accepts.
    with human.socket("/ws/lobby") as lobby:
        lobby.receive("seeks")
        bot = subprocess.Popen(
            bot_command(
                server, token, "--seek", "cooper", "--clock", "5+3", "--rated", "--games", "1"
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            seek = lobby.receive("seek", timeout=60)["seek"]
            assert (seek["player"], seek["bot"], seek["rules"], seek["rated"]) == (
                "robo",
                True,
                "cooper",
                True,
            )
            game_id = human.post(f"/api/seeks/{seek['id']}/accept").json()["game_id"]
            final = play_until_the_bot_moves_then_resign(server, game_id, human.token)
            assert final["rated"] is True and final["ratings"]["blue"]["change"] != 0
            output, _ = bot.communicate(timeout=60)
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
    assert bot.returncode == 0, output
    assert f"bluegray bot robo: posted a challenge in the lobby: {seek['id']}" in output
    assert f"bluegray bot robo: game {game_id}: over:" in output
    # It accepts a person's seek (under the rule sets it is told).
    human.seek(rules="cooper")  # not one it plays
    wanted = human.seek(rules="sackson", color="blue")
    bot = subprocess.Popen(
        bot_command(server, token, "--accept-seeks", "sackson", "--games", "1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        with human.socket("/ws/account") as news:
            started = news.receive("game_started", timeout=60)["game"]
        assert started["opponent"] == "robo" and started["side"] == "blue"
        play_until_the_bot_moves_then_resign(server, started["game_id"], human.token)
        output, _ = bot.communicate(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 0, output
    assert f"accepted ada's challenge: game {started['game_id']}" in output
    assert [seek["rules"] for seek in human.get("/api/seeks")["seeks"]] == ["cooper"]
    assert wanted["id"] not in [seek["id"] for seek in human.get("/api/seeks")["seeks"]]


@contextlib.contextmanager
def running(command: list[str]) -> Iterator[subprocess.Popen[str]]:
    """A bot's process (its output in ``stdout``), killed at the end if it still runs."""
    bot = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        yield bot
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()


def test_a_bot_posts_a_correspondence_seek_with_days_per_move(
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(rate_limits=False)
    token = account_with_token(server, "robo", bot=True)
    human = Player(server.url, "ada")
    both = subprocess.run(
        bot_command(server, token, "--seek", "cooper", "--days", "3", "--clock", "5+3"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert both.returncode == 2
    assert both.stderr == (
        "bluegray: error: a game has a clock or days per move, not both: give --clock or --days\n"
    )
    seeking = bot_command(
        server, token, "--seek", "cooper", "--days", "3", "--rated", "--games", "1"
    )
    with human.socket("/ws/lobby") as lobby:
        lobby.receive("seeks")
        with running(seeking) as bot:
            seek = lobby.receive("seek", timeout=60)["seek"]
            assert (seek["correspondence"], seek["clock"], seek["time_class"]) == (
                {"days": 3},
                None,
                "correspondence",
            )
            game_id = human.post(f"/api/seeks/{seek['id']}/accept").json()["game_id"]
            final = play_until_the_bot_moves_then_resign(server, game_id, human.token)
            assert final["correspondence"]["days_per_move"] == 3
            assert final["ratings"]["pool"] == "cooper/correspondence"
            output, _ = bot.communicate(timeout=60)
    assert bot.returncode == 0, output
    assert f"bluegray bot robo: game {game_id}: over:" in output


def test_the_bot_offers_the_days_per_move_the_site_allows() -> None:
    assert bot.DAYS_PER_MOVE == clocks.DAYS_PER_MOVE


def test_a_bot_whose_seek_was_just_accepted_posts_no_second_one(
    make_server: Callable[..., LiveServer],
) -> None:
    """The race its loop runs into: it read its games (none yet), then a person accepted its
    seek, then it reads the lobby and finds its seek gone. It must see the game that took the
    seek, not post another (which would stay in the lobby after the bot stops)."""
    server = make_server(rate_limits=False)
    token = account_with_token(server, "robo", bot=True)
    human = Player(server.url, "ada")
    site = bot_games.Site(server.url, token)
    seek_id = site.post_seek("cooper", (5, 3), None, True)
    assert human.post(f"/api/seeks/{seek_id}/accept").status_code == 200
    said: list[str] = []
    args = argparse.Namespace(seek="cooper", accept_seeks=None, days=None, rated=True)
    bot_games.use_the_lobby(site, args, "robo", (5, 3), said.append)
    assert said == []
    assert [seek["player"] for seek in human.get("/api/seeks")["seeks"]] == []
