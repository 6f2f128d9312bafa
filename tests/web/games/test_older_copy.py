"""A game read again from an older copy is the game read whole: each save reads back and applies
as written."""

from __future__ import annotations

import dataclasses
from functools import partial
from pathlib import Path
from random import Random
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from bluegray import Game
from bluegray.pieces import Side
from bluegray.web.accounts.rows import AccountRow
from bluegray.web.games import actions
from bluegray.web.games.live import LiveGame, Seat
from bluegray.web.games.store import (
    apply_save,
    change_save,
    live_after,
    load_game,
    new_game_save,
    save_text,
)
from bluegray.web.platform.models import table_of
from tests.web.timers.test_timers import sqlite_database

# -- reading a game again from an older copy --------------------------------------------------


def test_a_game_read_from_an_older_copy_is_the_game_read_whole(tmp_path: Path) -> None:
    """A process that hears of a newer version plays only the moves its copy lacks; what it
    gets must be exactly what reading the whole game gives, takebacks and endings included."""
    database = sqlite_database(tmp_path)
    random = Random(7)
    try:
        game = Game("cooper")
        live = LiveGame(
            id="g", mode="hotseat", status="active", game=game, version=1, created_ms=0,
            updated_ms=0, seats={side: Seat("human", "t", "b", 0) for side in Side},
        )  # fmt: skip
        database.run(lambda c: apply_save(c, new_game_save(live, [])))
        copies = [live]
        for step in range(60):
            before = copies[-1]
            after = before.copy()
            if step % 9 == 8 and after.game.ply >= 2:
                actions.take_back(after, after.game.turn.other, step)
            elif after.game.outcome() is None:
                actions.play(after, str(random.choice(after.game.legal_moves)), step)
            else:
                break
            after.version = before.version + 1
            after.sync_status()
            save = change_save(before, after)
            database.run(partial(_save, save=save))
            copies.append(after)
            whole = database.run(lambda c: _read(c, None))
            assert whole is not None
            # What another process makes of the change's rows, published with the news.
            applied = live_after(before, save_text(save))
            assert _seen(applied) == _seen(whole) == _seen(after)
            for old in random.sample(copies, min(4, len(copies))):
                again = database.run(partial(_read, base=old))
                assert again is not None and whole is not None
                assert [str(m) for m in again.game.moves] == [str(m) for m in whole.game.moves]
                assert again.game.position == whole.game.position
                assert again.game.outcome() == whole.game.outcome()
                assert again.version == whole.version == after.version
    finally:
        database.close()


def test_a_seat_an_account_takes_reads_back_and_applies_as_written(tmp_path: Path) -> None:
    """A change that gives a seat to an account (a join, a claim): its rows, read back or
    applied by another process from the news, are the game as it was changed."""
    database = sqlite_database(tmp_path)
    try:
        accounts = table_of(AccountRow)
        database.run(
            lambda c: c.execute(
                insert(accounts).values(
                    id=7, name="Ada", name_key="ada", password_hash="-", created_ms=0,
                    password_changed_ms=0, bot=True, moderator=False,
                )
            )
        )  # fmt: skip
        before = LiveGame(
            id="g", mode="friend", status="waiting", game=Game("cooper"), version=1,
            created_ms=0, updated_ms=0,
            seats={Side.BLUE: Seat("human", "t", "b", 0), Side.GRAY: Seat("human")},
        )  # fmt: skip
        database.run(lambda c: apply_save(c, new_game_save(before, [])))
        after = before.copy()
        after.seats[Side.GRAY] = Seat("human", "u", "c", 5, None, 7, "Ada", True)
        after.status, after.version = "active", 2
        save = change_save(before, after, seats_changed=True)
        database.run(partial(_save, save=save))
        whole = database.run(lambda c: _read(c, None))
        assert whole is not None and whole.seats[Side.GRAY].played_by(7)
        assert (whole.seats[Side.GRAY].account_name, whole.seats[Side.GRAY].account_bot) == (
            "Ada",
            True,
        )
        assert _seen(live_after(before, save_text(save))) == _seen(whole) == _seen(after)
    finally:
        database.close()


def _seen(live: LiveGame) -> tuple[Any, ...]:
    """Everything a game is, but the ``Game`` object itself: its moves and position stand in."""
    fields = dataclasses.asdict(dataclasses.replace(live, game=Game("cooper")))
    del fields["game"], fields["_derived"]
    moves = [str(move) for move in live.game.moves]
    return (moves, str(live.game.position), live.game.outcome(), sorted(fields.items()))


def _save(connection: Any, save: Any) -> None:
    apply_save(connection, save)


def _read(connection: Any, base: LiveGame | None) -> LiveGame | None:
    with Session(connection) as session:
        return load_game(session, "g", base)
