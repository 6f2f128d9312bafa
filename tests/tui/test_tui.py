"""The full-screen app of ``bluegray play``, driven with Textual's test pilot: move entry and
completion, errors, the engine's replies in a worker, undo, hint, flip, files and the end."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from bluegray import Game, Side
from bluegray.record import read_record
from bluegray.tui.app import PlayApp
from bluegray.tui.board import BoardView
from bluegray.tui.screens import HelpScreen, NewGameScreen, PromptScreen
from bluegray.tui.session import Seats, Session

ONE_STEP = "4c4/9/9/3C5/9/9/9/9/8g b 0 1"
"""Blue's captain on d6, one step from the centre."""

Script = Callable[[Pilot[None], PlayApp], Awaitable[None]]


def run(app: PlayApp, script: Script, size: tuple[int, int] = (80, 24)) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await script(pilot, app)

    asyncio.run(main())


def hotseat(position: str | None = None, rules: str = "sackson") -> PlayApp:
    return PlayApp(Session(Game(rules, position), Seats(None)))


def against(level: int, human: Side) -> PlayApp:
    seats = Seats(level, human)
    return PlayApp(Session(Game(), seats, seed=7), flipped=human is Side.GRAY)


def text_of(app: PlayApp, selector: str) -> str:
    return str(app.query_one(selector, Static).content)


def board_of(app: PlayApp) -> str:
    return str(app.query_one("#board", BoardView).content)


def legal_shown(app: PlayApp) -> list[str]:
    listing = app.query_one("#legal", OptionList)
    return [str(listing.get_option_at_index(i).id) for i in range(listing.option_count)]


async def type_text(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*text)


async def settle(pilot: Pilot[None], app: PlayApp) -> None:
    """Wait for the engine's and the hint's workers and for what they hand back."""
    for _ in range(3):
        await app.workers.wait_for_complete()
        await pilot.pause()


def test_typing_a_move_changes_the_board_and_the_move_list() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        before = board_of(app)
        assert "no moves yet" in text_of(app, "#moves")
        await type_text(pilot, "d2-d3")
        await pilot.press("enter")
        assert [str(move) for move in app.session.game.moves] == ["d2-d3"]
        after = board_of(app)
        assert after != before
        assert " 3 . . . G + + + + + 3" in after
        assert "1. d2-d3" in text_of(app, "#moves")
        assert "Gray to move" in text_of(app, "#status")
        assert app.query_one("#entry", Input).value == ""

    run(hotseat(), script)


def test_completion_offers_the_legal_moves_as_you_type() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        assert len(legal_shown(app)) == 11
        await type_text(pilot, "f")
        assert legal_shown(app) == ["f2-f3", "f2-g3"]
        await pilot.press("tab")  # as far as the two agree
        entry = app.query_one("#entry", Input)
        assert entry.value == "f2-"
        await pilot.press("g")
        assert legal_shown(app) == ["f2-g3"]
        entry.value = ""
        await type_text(pilot, "d2")
        await pilot.pause()
        assert legal_shown(app) == ["d2-d3"]
        await pilot.press("right")  # accepts the suggestion
        assert entry.value == "d2-d3"

    run(hotseat(), script)


def test_completion_lists_captures() -> None:
    position = "4c4/9/9/9/9/4g4/3g1g3/3G5/4C4 b 0 1"

    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        assert legal_shown(app) == ["d2xd4xf4xf2"]
        await type_text(pilot, "d2")
        await pilot.press("tab")
        assert app.query_one("#entry", Input).value == "d2xd4xf4xf2"
        await pilot.press("enter")
        assert [piece.symbol for piece in app.session.captured(Side.GRAY)] == ["g", "g", "g"]
        assert "Blue took g g g" in text_of(app, "#status")

    run(hotseat(position), script)


def test_an_illegal_move_shows_an_error_and_changes_nothing() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        before = board_of(app)
        await type_text(pilot, "e1-e9")
        await pilot.press("enter")
        message = text_of(app, "#message")
        assert message.startswith("error: illegal move 'e1-e9'")
        assert app.query_one("#message").has_class("error")
        assert app.session.game.moves == []
        assert board_of(app) == before
        assert app.query_one("#entry", Input).value == "e1-e9"  # left to correct

    run(hotseat(), script)


def test_typing_after_a_refused_move_replaces_it() -> None:
    """The refused text stays, selected: the next move typed replaces it rather than being
    appended to it (before the fix: "e1-e9d2-d3", refused again)."""

    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        await type_text(pilot, "e1-e9")
        await pilot.press("enter")
        assert text_of(app, "#message").startswith("error: illegal move 'e1-e9'")
        await type_text(pilot, "d2-d3")
        assert app.query_one("#entry", Input).value == "d2-d3"
        await pilot.press("enter")
        assert [str(move) for move in app.session.game.moves] == ["d2-d3"]
        assert app.query_one("#entry", Input).value == ""

    run(hotseat(), script)


def test_the_engine_replies_and_undo_takes_back_both_moves() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        start = board_of(app)
        await type_text(pilot, "d2-d3")
        await pilot.press("enter")
        await settle(pilot, app)
        moves = app.session.game.moves
        assert len(moves) == 2
        assert f"Gray (level 1) played {moves[1]}" in text_of(app, "#message")
        assert f"1. d2-d3      {moves[1]}" in text_of(app, "#moves")
        assert "Blue (you) to move" in text_of(app, "#status")
        await pilot.press("ctrl+z")
        assert app.session.game.moves == []
        assert board_of(app) == start
        assert text_of(app, "#message") == f"took back d2-d3 {moves[1]}"

    run(against(1, Side.BLUE), script)


def test_undo_after_resigning_is_refused_and_the_game_stays_over() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        await type_text(pilot, "d2-d3")
        await pilot.press("enter")
        await settle(pilot, app)
        await pilot.press("ctrl+r")
        await pilot.press("y")
        outcome = app.session.outcome()
        assert outcome is not None and outcome.describe() == "Gray wins: resignation"
        await pilot.press("ctrl+z")
        assert app.session.outcome() == outcome and len(app.session.game.moves) == 2
        assert text_of(app, "#message") == "error: the game ended by resignation: start a new game"

    run(against(1, Side.BLUE), script)


def test_the_engine_moves_first_when_you_play_gray() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        await settle(pilot, app)
        assert app.session.game.ply == 1
        assert "Gray (you) to move" in text_of(app, "#status")
        assert board_of(app).splitlines()[0].split() == list("ihgfedcba")

    run(against(1, Side.GRAY), script)


def test_hint_fills_in_the_engine_suggestion() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        await pilot.press("ctrl+t")
        await settle(pilot, app)
        entry = app.query_one("#entry", Input)
        legal = [str(move) for move in app.session.game.legal_moves]
        assert entry.value in legal
        hinted = entry.value
        assert text_of(app, "#message") == f"hint: {hinted} (Enter plays it)"
        await pilot.press("enter")
        assert [str(move) for move in app.session.game.moves] == [hinted]

    run(hotseat(rules="cooper"), script)


def test_flip_turns_the_board_round() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        assert board_of(app).splitlines()[0].split() == list("abcdefghi")
        assert board_of(app).splitlines()[1].split()[0] == "9"
        await pilot.press("ctrl+f")
        assert board_of(app).splitlines()[0].split() == list("ihgfedcba")
        assert board_of(app).splitlines()[1].split()[0] == "1"
        await type_text(pilot, "flip")
        await pilot.press("enter")
        assert board_of(app).splitlines()[0].split() == list("abcdefghi")

    run(hotseat(), script)


def test_the_list_of_legal_moves_plays_the_chosen_move() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        await pilot.press("down", "down", "enter")
        assert [str(move) for move in app.session.game.moves] == ["b2-b3"]
        assert app.query_one("#entry", Input).has_focus

    run(hotseat(), script)


def test_the_end_of_the_game_is_described_in_words() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        await type_text(pilot, "d6-e5")
        await pilot.press("enter")
        assert text_of(app, "#status").startswith("Game over: Blue wins 1-0")
        assert text_of(app, "#moves").endswith("1-0 Blue wins: captain reached the centre")
        assert legal_shown(app) == []
        assert app.query_one("#legal").border_title == "No legal moves"

    run(hotseat(ONE_STEP), script)


def test_save_and_load_through_the_prompt(tmp_path: Path) -> None:
    path = tmp_path / "saved.txt"

    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        await type_text(pilot, "d2-d3")
        await pilot.press("enter")
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one(Input).value = str(path)
        await pilot.press("enter")
        assert text_of(app, "#message") == f"saved {path}"
        record = read_record(path.read_text(encoding="utf-8"))
        assert [str(move) for move in record.game.moves] == ["d2-d3"]
        await type_text(pilot, "new")
        await pilot.press("enter")
        assert isinstance(app.screen, NewGameScreen)
        await pilot.press("escape")  # the new-game screen: keep this game
        await pilot.press("ctrl+z")
        assert app.session.game.moves == []
        await pilot.press("ctrl+o")
        app.screen.query_one(Input).value = str(path)
        await pilot.press("enter")
        assert [str(move) for move in app.session.game.moves] == ["d2-d3"]
        assert "1. d2-d3" in text_of(app, "#moves")

    run(hotseat(), script)


def test_help_screen_opens_and_closes() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)

    run(hotseat(), script)


def test_a_large_terminal_spreads_the_board_out() -> None:
    async def script(pilot: Pilot[None], app: PlayApp) -> None:
        rows = board_of(app).splitlines()
        assert rows[0].split() == list("abcdefghi")
        assert len(rows) == 19
        assert "g   g   g" in rows[1]

    run(hotseat(), script, size=(110, 40))
