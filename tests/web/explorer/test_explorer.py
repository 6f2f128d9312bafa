"""The opening explorer through the API: rated games between people counted as they end
(transpositions merged; aborted, unrated, imported and AI games not counted; an end counted
once), the fill from the stored games (idempotent) and from a book, and the API's answers and
refusals. On SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, delete, func, inspect, select
from sqlalchemy.orm import Session

from bluegray.cli.main import main
from bluegray.game import Game
from bluegray.web.explorer import service as explorer_service
from bluegray.web.explorer.book import (
    decode_book,
    encode_book,
    read_book,
    shipped_path,
)
from bluegray.web.explorer.positions import MAX_PLIES, CountedGame, Tally, position_key
from bluegray.web.explorer.service import (
    BookLoadStoppedError,
    ShippedBooks,
    counted_live,
    explorer_ended,
    load_book,
    load_shipped_books,
)
from bluegray.web.games.live import LiveGame
from bluegray.web.games.store import load_game
from bluegray.web.migrations.schema import schema
from bluegray.web.platform.db import MIGRATIONS
from tests.web.account_clients import Browser, friend_game, post, sign_up, signed_up
from tests.web.conftest import Json, TestClient
from tests.web.explorer.explorer_games import (
    RATED,
    TRANSPOSED,
    play,
    play_game,
    play_rated_games,
    resign,
)


def explore(client: Any, **query: str) -> Json:
    answer = client.get("/api/explorer", params=query)
    assert answer.status_code == 200, answer.text
    body: Json = answer.json()
    return body


def site_moves(answer: Json) -> dict[str, tuple[int, int, int, int]]:
    """Each move's site counts: (games, Blue's wins, draws, Gray's wins)."""
    return {
        move["move"]: (
            move["site"]["games"],
            move["site"]["blue_wins"],
            move["site"]["draws"],
            move["site"]["gray_wins"],
        )
        for move in answer["moves"]
        if move["site"] is not None
    }


def count_rows(client: TestClient, table: str, **where: str) -> int:
    rows = schema().tables[table]

    def read(connection: Connection) -> int:
        clauses = [rows.c[name] == value for name, value in where.items()]
        return int(connection.scalar(select(func.count()).select_from(rows).where(*clauses)) or 0)

    return client.app.state.service.db.run(read)  # type: ignore[attr-defined,no-any-return]


def test_rated_games_between_people_count_once_with_transpositions_merged(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(rate_limits=False)
    ada, bob, anonymous = Browser(app), Browser(app), Browser(app)
    sign_up(ada, "ada")
    sign_up(bob, "bob")
    assert explore(app)["moves"] == [] or all(m["site"] is None for m in explore(app)["moves"])
    ids = play_rated_games(ada, bob)

    # Not counted: an unrated game, a game aborted before both sides moved, a game with a
    # player without an account, an imported record.
    assert play_game(ada, bob, ("e2-e3", "h8-h7"), "gray")[1] == "finished"
    game_id, blue_token, _ = friend_game(ada, bob, **RATED)
    play(ada, game_id, {"blue": blue_token, "gray": ""}, ("i2-i3",))
    assert resign(ada, game_id, blue_token) == "aborted"
    assert play_game(ada, anonymous, ("f2-f3", "h8-h7"), "gray")[1] == "finished"
    record = '[Rules "sackson"]\n[Result "1-0"]\n\n1. b2-b3 h8-h7 1-0\n'
    assert post(ada, "/api/records", {"text": record}).status_code == 201

    start = explore(app, rules="sackson")
    assert start["position"] == "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b"
    assert site_moves(start) == {"c2-c3": (2, 1, 0, 1), "g2-g3": (1, 0, 0, 1)}
    assert start["site"]["games"] == 3 and start["site"]["blue_score"] == pytest.approx(1 / 3)
    assert [move["move"] for move in start["moves"]][:2] == ["c2-c3", "g2-g3"]  # most played
    first = next(move for move in start["moves"] if move["move"] == "c2-c3")
    assert first["site"]["blue_score"] == 0.5
    assert abs(first["site"]["average_rating"] - 1500) <= 5  # both start at 1500

    # Both move orders reach the same position: the games merge there.
    merged = explore(app, rules="sackson", position=TRANSPOSED)
    assert site_moves(merged) == {"a2-a3": (2, 1, 0, 1)}
    after_two = explore(app, rules="sackson", position=_after("c2-c3", "h8-h7"))
    assert site_moves(after_two) == {"g2-g3": (1, 1, 0, 0), "d2-d3": (1, 0, 0, 1)}
    assert count_rows(app, "explorer_games") == 3

    # The end-hook run again on a stored end (as another process would): nothing added twice.
    db = app.app.state.service.db  # type: ignore[attr-defined]
    stored: list[LiveGame] = []
    for game_id in ids:
        with Session(db.engine) as session:
            found = load_game(session, game_id)
        assert found is not None
        stored.append(found)
        db.run(lambda connection, live=found: explorer_ended(connection, live))
    live = stored[-1]
    assert site_moves(explore(app, rules="sackson")) == site_moves(start)
    assert site_moves(explore(app, rules="cooper")) == {}  # another rule set's positions apart

    # The same end, were it a game against the AI, a bot's, or one whose ratings did not change
    # (an account closed meanwhile): not counted.
    counted = counted_live(live)
    assert counted is not None and counted.rules == "sackson" and counted.blue_score == 0.0
    against_ai = dataclasses.replace(live, mode="ai")
    bots = {side: dataclasses.replace(seat, account_bot=True) for side, seat in live.seats.items()}
    unrated = dataclasses.replace(live, rating_result=None)
    for other in (against_ai, dataclasses.replace(live, seats=bots), unrated):
        assert counted_live(other) is None


def _after(*moves: str) -> str:
    game = Game("sackson")
    game.push_all(moves)
    return str(game.position)


def test_the_fill_counts_the_stored_games_once_and_loads_the_books(
    make_client: Callable[..., TestClient], database_url: str
) -> None:
    app = make_client(rate_limits=False)
    ada, bob = signed_up(app, "ada", "bob")
    play_rated_games(ada, bob)
    counted = explore(app, rules="sackson", position=TRANSPOSED)
    start = explore(app, rules="sackson")
    tables = schema().tables

    def forget(connection: Connection) -> None:  # as before the explorer's upgrade
        connection.execute(delete(tables["explorer_moves"]))
        connection.execute(delete(tables["explorer_games"]))
        connection.execute(delete(tables["explorer_books"]))

    db = app.app.state.service.db  # type: ignore[attr-defined]
    db.run(forget)
    assert explore(app, rules="sackson", position=TRANSPOSED)["moves"] == []
    assert main(["explorer", "fill", "--database-url", database_url]) == 0
    assert explore(app, rules="sackson", position=TRANSPOSED) == counted
    filled = explore(app, rules="sackson")
    assert site_moves(filled) == site_moves(start)
    books = count_rows(app, "explorer_books")
    assert books >= 1 and filled["book"]["games"] >= 10  # the shipped books, loaded
    assert main(["explorer", "fill", "--database-url", database_url]) == 0
    assert explore(app, rules="sackson") == filled  # twice: the same counts
    assert count_rows(app, "explorer_games") == 3


def test_a_book_is_counted_in_its_own_source_and_replaced_not_added(
    client: TestClient, tmp_path: Path
) -> None:
    games = [
        (["c2-c3", "h8-h7", "g2-g3", "b8-b7"], "1-0"),
        (["g2-g3", "b8-b7", "c2-c3", "h8-h7", "a2-a3"], "1/2-1/2"),
        (["c2-c3", "b8-b7"], "0-1"),
    ]
    book = decode_book(encode_book("sackson", "level:1 against itself", games))
    assert encode_book("sackson", "level:1 against itself", games) == encode_book(
        "sackson", "level:1 against itself", games
    )  # the same games, the same bytes
    engine = client.app.state.service.db.engine  # type: ignore[attr-defined]
    assert load_book(engine, book, again=True)
    assert not load_book(engine, book)  # the same file: skipped
    assert load_book(engine, book, again=True)  # loaded again: replaced, not added
    answer = explore(client, rules="sackson")
    books = {move["move"]: move["book"] for move in answer["moves"]}
    assert books["c2-c3"]["games"] == 2 and books["c2-c3"]["blue_score"] == 0.5
    assert books["c2-c3"]["average_rating"] is None and answer["site"] is None
    assert books["g2-g3"] == {
        "games": 1,
        "blue_wins": 0,
        "draws": 1,
        "gray_wins": 0,
        "blue_score": 0.5,
        "average_rating": None,
    }
    assert explore(client, rules="sackson", position=TRANSPOSED)["moves"][0]["book"]["games"] == 1


def test_a_tally_counts_the_first_moves_of_a_game_and_a_repeated_pair_once() -> None:
    tally = Tally()
    shuffle = ["c2-c3", "h8-h7", "c3-c2", "h7-h8"] * 2  # back and forth: the start again
    tally.add(CountedGame("sackson", shuffle, 1.0, 1600.0))
    assert tally.games == 1
    assert len(tally.moves) == 4  # each (position, move) once, however often repeated
    assert all(counts.games == 1 and counts.rating_sum == 1600 for counts in tally.moves.values())
    assert MAX_PLIES == 30
    longer = Tally()
    longer.add(CountedGame("sackson", _random_moves(60), 0.5))
    assert sum(counts.games for counts in longer.moves.values()) <= MAX_PLIES


def _random_moves(plies: int) -> list[str]:
    game = Game("sackson")
    for _ in range(plies):
        moves = list(game.legal_moves)
        if not moves or game.outcome() is not None:
            break
        game.push(moves[len(moves) // 2])
    return [str(move) for move in game.moves]


def test_a_position_is_keyed_by_its_placement_and_turn_only() -> None:
    game = Game("sackson", "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 7 12")
    assert position_key(game.position) == position_key(Game("sackson").position)
    assert position_key(Game("sackson", TRANSPOSED).position) != position_key(game.position)


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ({"rules": "nonesuch"}, 422, "invalid_rules"),
        ({"rules": "cooper lead=5"}, 422, "invalid_rules"),
        ({"rules": "x" * 40}, 422, "invalid_request"),
        ({"rules": "sackson", "position": "not a position"}, 422, "invalid_position"),
        ({"rules": "sackson", "position": "9/9/9/9/9/9/9/9/9 b 0 1"}, 422, "invalid_position"),
        ({"rules": "sackson", "position": "g" * 300}, 422, "invalid_request"),
    ],
)
def test_a_bad_query_is_refused_with_a_422(
    client: TestClient, query: dict[str, str], status: int, code: str
) -> None:
    answer = client.get("/api/explorer", params=query)
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code


def test_a_position_on_the_board_of_a_rated_game_being_played_is_refused(
    make_client: Callable[..., TestClient],
) -> None:
    app = make_client(rate_limits=False)
    ada, bob = signed_up(app, "ada", "bob")
    game_id, blue_token, gray_token = friend_game(ada, bob, **RATED)
    play(ada, game_id, {"blue": blue_token, "gray": gray_token}, ("c2-c3", "h8-h7"))
    refused = ada.get("/api/explorer", params={"position": _after("c2-c3", "h8-h7")})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_allowed"
    assert explore(ada, rules="sackson")["rules"] == "sackson"  # another position: answered
    resign(ada, game_id, gray_token)
    assert site_moves(explore(ada, position=_after("c2-c3", "h8-h7"))) == {}


def test_the_upgrade_that_creates_the_explorer_counts_the_stored_games(
    make_client: Callable[..., TestClient], database_url: str
) -> None:
    app = make_client(rate_limits=False)
    ada, bob = signed_up(app, "ada", "bob")
    play_rated_games(ada, bob)
    counted = explore(app, rules="sackson", position=TRANSPOSED)
    db = app.app.state.service.db  # type: ignore[attr-defined]
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with db.engine.begin() as connection:  # the schema as it was before the explorer
        config.attributes["connection"] = connection
        command.downgrade(config, "0010")
    assert "explorer_moves" not in inspect(db.engine).get_table_names()
    assert main(["db", "upgrade", "--database-url", database_url]) == 0
    assert explore(app, rules="sackson", position=TRANSPOSED) == counted
    assert count_rows(app, "explorer_books") == 5  # the main rule sets' books
    assert main(["db", "upgrade", "--database-url", database_url]) == 0  # up to date: the same
    assert explore(app, rules="sackson", position=TRANSPOSED) == counted


def test_the_book_command_plays_legal_games_says_how_far_it_is_and_refuses_bad_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "cooper.json.gz"
    assert (
        main(["explorer", "book", "--rules", "cooper", "--games", "2", "--output", str(output)])
        == 0
    )
    captured = capsys.readouterr()
    assert "2/2 games of cooper" in captured.err  # the progress, on standard error
    assert "2 games of cooper in" in captured.out and str(output) in captured.out
    book = read_book(output)
    assert book.rules == "cooper" and len(book.games) == 2
    for counted in book.games:
        game = Game("cooper")
        game.push_all(list(counted.moves))  # every move legal from the start
        assert counted.blue_score in (0.0, 0.5, 1.0)
    refused = ["explorer", "book", "--rules", "cooper", "--games", "0", "--output", str(output)]
    assert main(refused) == 2
    assert capsys.readouterr().err.strip() == "bluegray: error: --games must be 1 to 100000, not 0"
    assert read_book(output).games == book.games  # the file as it was


def test_a_web_process_loads_the_shipped_books_as_it_starts(
    make_client: Callable[..., TestClient],
) -> None:
    # As `bluegray serve` starts on a fresh install (the tests' apps leave the books out).
    client = make_client(explorer_books_at_start=True)
    deadline = time.monotonic() + 60
    while True:
        answer = client.get("/api/explorer", params={"rules": "cooper"})
        assert answer.status_code == 200, answer.text
        book = answer.json()["book"]
        if book is not None:
            break
        assert time.monotonic() < deadline, "the books were not loaded within 60 s"
        time.sleep(0.2)  # poll interval: until the start-up's thread has loaded them
    # Every game of the book passes the start (a game that comes back to it and plays on counts
    # there once more).
    assert book["games"] >= len(read_book(shipped_path("cooper")).games) == 1000


def test_processes_loading_the_same_books_at_once_all_succeed_and_count_them_once(
    client: TestClient,
) -> None:
    # As processes starting together on a new database do (`db upgrade`, `serve`): before the
    # books' lock, each loaded the book, and PostgreSQL could find a deadlock between one's
    # delete and another's insert.
    engine = client.app.state.service.db.engine  # type: ignore[attr-defined]
    book = read_book(shipped_path("cooper"))
    errors: list[BaseException] = []
    loaded: list[bool] = []

    def load() -> None:
        try:
            loaded.append(load_book(engine, book))
        except BaseException as error:  # told to the test below
            errors.append(error)

    threads = [threading.Thread(target=load) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(loaded) == [False, False, True]  # loaded once; the others found it loaded
    at_once = explore(client, rules="cooper")
    assert load_book(engine, book, again=True)  # alone this time
    assert explore(client, rules="cooper") == at_once  # the same counts: not twice them


def test_processes_waiting_for_a_book_being_loaded_do_not_count_it_again(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Servers and upgrades starting together all find the book missing at first. Before, each
    # counted its games (about a CPU second a book) before taking the books' lock, then found it
    # loaded: CPU seconds wasted by every process but one.
    engine = client.app.state.service.db.engine  # type: ignore[attr-defined]
    book = read_book(shipped_path("cooper"))
    all_looked = threading.Barrier(3, timeout=30)
    looked = explorer_service._loaded
    counted: list[int] = []
    tally = explorer_service._tally

    def look_together(engine: Any, book: Any) -> bool:
        found = looked(engine, book)
        all_looked.wait()  # all three have found the book missing before any goes on
        return found

    def count(games: Any) -> Tally:
        counted.append(len(games))
        return tally(games)

    monkeypatch.setattr(explorer_service, "_loaded", look_together)
    monkeypatch.setattr(explorer_service, "_tally", count)
    loaded: list[bool] = []
    threads = [
        threading.Thread(target=lambda: loaded.append(load_book(engine, book))) for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(loaded) == [False, False, True]
    assert counted == [len(book.games)]  # counted once, by the process that loaded it


class StopAfter(threading.Event):
    """An event that reads as set from its ``checks``+1-th look on."""

    def __init__(self, checks: int) -> None:
        super().__init__()
        self.checks = checks

    def is_set(self) -> bool:
        self.checks -= 1
        return self.checks < 0


def test_a_book_load_stopped_midway_writes_nothing(client: TestClient) -> None:
    # A web process stopping while it loads the books gives the load up between two batches:
    # here after the first of sackson's (5,000 of its rows written, then rolled back).
    engine = client.app.state.service.db.engine  # type: ignore[attr-defined]
    with pytest.raises(BookLoadStoppedError, match="the book of sackson was not loaded: stopped"):
        load_shipped_books(engine, StopAfter(1))
    assert count_rows(client, "explorer_books") == 0
    assert count_rows(client, "explorer_moves") == 0
    assert explore(client, rules="sackson")["book"] is None


def test_a_web_process_stopping_gives_up_the_books_it_is_loading(client: TestClient) -> None:
    # Before, its stop waited for every book to load: a SIGTERM on a fresh install took minutes
    # on a busy host.
    books = ShippedBooks(client.app.state.service.db)  # type: ignore[attr-defined]

    async def start_then_stop() -> None:
        books.start()
        await books.stop()

    asyncio.run(start_then_stop())
    assert count_rows(client, "explorer_books") == 0
