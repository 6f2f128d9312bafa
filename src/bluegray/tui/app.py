"""The full-screen app of ``bluegray play``: the board, the game's state, the move list, the
legal moves, and an entry line with completion. The engine thinks in a worker thread, so the
screen never waits for it."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.tui.board import BoardView
from bluegray.tui.commands import COMMANDS, Command, parse_command
from bluegray.tui.entry import MoveInput, completions
from bluegray.tui.screens import (
    MODAL_CSS,
    ConfirmScreen,
    HelpScreen,
    NewGameScreen,
    PromptScreen,
)
from bluegray.tui.session import EngineRequest, Seats, Session
from bluegray.tui.status import status_text

DEFAULT_FILE = "bluegray-game.txt"
WIDE_SIZE = (100, 36)
"""The terminal size (columns, rows) from which the board is drawn spread out."""
_POSITION_QUOTE = re.compile(r" in [1-9CGPcgp/]+ [bg] \d+ \d+")
CLOCK_TICK = 0.1
"""Seconds between clock updates."""

CSS = """
Screen {
    layout: vertical;
}
#main {
    height: 1fr;
}
#left {
    width: auto;
}
#board {
    border: round $primary;
    border-title-align: center;
    min-width: 31;
    content-align: center top;
}
#status {
    width: 31;
    height: auto;
    padding: 0 1;
}
#moves-pane, #legal {
    height: 1fr;
    width: 1fr;
    border: round $secondary;
}
#moves-pane:focus-within, #legal:focus {
    border: round $accent;
}
#message {
    height: auto;
    max-height: 3;
    padding: 0 1;
}
#message.error {
    color: $error;
    text-style: bold;
}
#entry-row {
    height: 1;
    background: $boost;
}
#prompt {
    width: auto;
    padding: 0 1;
    text-style: bold;
}
#entry {
    width: 1fr;
}
"""


class PlayApp(App[None]):
    """Blue and Gray in the terminal, against the engine or two at one keyboard."""

    TITLE = "Blue and Gray"
    CSS = CSS + MODAL_CSS
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+z", "undo", "Undo"),
        Binding("ctrl+t", "hint", "Hint"),
        Binding("ctrl+f", "flip", "Flip"),
        Binding("ctrl+s", "save", "Save"),
        Binding("ctrl+o", "load", "Load"),
        Binding("ctrl+n", "new_game", "New"),
        Binding("ctrl+r", "resign", "Resign"),
        Binding("f1", "help", "Help"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("escape", "to_entry", "Entry", show=False),
    ]
    KEYS: ClassVar[list[tuple[str, str]]] = [
        ("Enter", "play the move typed, or the move chosen in the list"),
        ("Tab", "complete the move typed as far as the legal moves agree"),
        ("Right", "accept the grey suggestion"),
        ("Down", "go to the list of legal moves (Escape comes back)"),
        ("Ctrl+Z", "undo: take back your move and the engine's reply"),
        ("Ctrl+T", "hint: the engine's suggestion (Enter plays it)"),
        ("Ctrl+F", "flip the board"),
        ("Ctrl+S", "save the game record"),
        ("Ctrl+O", "load a game record"),
        ("Ctrl+N", "new game: choose the opponent and your side"),
        ("Ctrl+R", "resign"),
        ("F1", "this help"),
        ("Ctrl+Q", "quit"),
    ]

    def __init__(self, session: Session, *, flipped: bool = False) -> None:
        super().__init__()
        self.session = session
        self.flipped = flipped
        self.wide = False
        self.file = DEFAULT_FILE
        self._thinking: int | None = None
        """The session version the engine is thinking about, if it is."""
        self._legal: list[str] = []
        self._legal_version = -1

    # -- layout --------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardView(id="board")
                yield Static(id="status")
            with VerticalScroll(id="moves-pane"):
                yield Static(id="moves")
            yield OptionList(id="legal")
        yield Static(id="message")
        with Horizontal(id="entry-row"):
            yield Label("Move >", id="prompt")
            yield MoveInput(
                self._words,
                self._to_list,
                placeholder="e.g. d2-d3, or a command: undo, hint, save FILE, help…",
                id="entry",
                compact=True,
            )
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#moves-pane").border_title = "Moves"
        self.query_one("#entry", MoveInput).focus()
        if self.session.clock is not None:
            self.set_interval(CLOCK_TICK, self._tick)
        self._after_change()

    def on_resize(self, event: Resize) -> None:
        wide = event.size.width >= WIDE_SIZE[0] and event.size.height >= WIDE_SIZE[1]
        if wide != self.wide:
            self.wide = wide
            self._show_board()

    # -- showing the game ----------------------------------------------------------------------

    def _after_change(self) -> None:
        """Show the game as it now is, and let the engine think if it is its turn."""
        request = self.session.engine_request()
        if request is not None and self._thinking != request.version:
            self._thinking = request.version
            self._think(request)
        self._refresh_view()

    def _refresh_view(self) -> None:
        self._show_board()
        self._show_status()
        self._show_moves()
        self._show_legal(self.query_one("#entry", MoveInput).value)

    def _show_board(self) -> None:
        game = self.session.game
        board = self.query_one("#board", BoardView)
        board.show(game.position, flipped=self.flipped, last_move=game.last_move, wide=self.wide)
        board.border_title = f"{game.rules}" + (" (flipped)" if self.flipped else "")

    def _show_status(self) -> None:
        thinking = self._thinking is not None and self.session.engine_to_move()
        self.query_one("#status", Static).update(status_text(self.session, thinking=thinking))

    def _show_moves(self) -> None:
        text = Text()
        rows = self.session.move_rows()
        for index, row in enumerate(rows):
            if index:
                text.append("\n")
            last = index == len(rows) - 1
            text.append(f"{row.number:>3}. ", style="dim")
            blue = str(row.blue) if row.blue is not None else "…"
            text.append(f"{blue:<11}", style="reverse" if last and row.gray is None else "")
            if row.gray is not None:
                text.append(str(row.gray), style="reverse" if last else "")
        if not rows:
            text.append("no moves yet", style="dim")
        outcome = self.session.outcome()
        if outcome is not None:
            text.append(f"\n\n{outcome.result} {outcome.describe()}", style="bold")
        pane = self.query_one("#moves-pane", VerticalScroll)
        self.query_one("#moves", Static).update(text)
        plies = self.session.game.ply
        pane.border_subtitle = f"{plies} {'ply' if plies == 1 else 'plies'}" if rows else ""
        self.call_after_refresh(pane.scroll_end, animate=False)

    def _legal_words(self) -> list[str]:
        if self._legal_version != self.session.version:
            self._legal = [str(move) for move in self.session.game.legal_moves]
            self._legal_version = self.session.version
        return self._legal

    def _words(self) -> list[list[str]]:
        """What the entry line completes: the legal moves, then the commands."""
        return [self._legal_words(), sorted(COMMANDS)]

    def _show_legal(self, typed: str) -> None:
        legal = self._legal_words()
        shown = completions(legal, typed) if typed.strip() else legal
        listing = self.query_one("#legal", OptionList)
        listing.set_options(Option(word, id=word) for word in shown)
        if not legal:
            listing.border_title = "No legal moves"
        elif typed.strip():
            listing.border_title = f"Legal moves {len(shown)}/{len(legal)}"
        else:
            listing.border_title = f"Legal moves {len(legal)}"
        engine_turn = self.session.engine_to_move()
        listing.border_subtitle = "engine's turn" if engine_turn else ""

    def say(self, message: str, *, error: bool = False) -> None:
        """A message above the entry line; errors are marked in words, not colour alone. The
        position that the library's errors quote is left out: the board shows it."""
        if error:
            message = _POSITION_QUOTE.sub("", message)
        widget = self.query_one("#message", Static)
        widget.set_class(error, "error")
        widget.update(Text(f"error: {message}" if error else message))

    # -- input ---------------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "entry":
            self._show_legal(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "entry":
            return
        text = event.value.strip()
        if not text:
            return
        try:
            command = parse_command(text)
            if command is None:
                self._play(text)
            else:
                self._command(command)
        except (BlueGrayError, ValueError, OSError) as error:
            self.say(str(error), error=True)
            # The refused text stays to correct, selected: what is typed next replaces it.
            event.input.select_all()
            return
        event.input.value = ""

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "legal" or event.option.id is None:
            return
        try:
            self._play(event.option.id)
        except BlueGrayError as error:
            self.say(str(error), error=True)
            return
        entry = self.query_one("#entry", MoveInput)
        entry.value = ""
        entry.focus()

    def _play(self, text: str) -> None:
        side = self.session.game.turn
        legal = self._legal_words()
        matches = completions(legal, text)
        if text.lower() not in legal and len(matches) == 1:
            text = matches[0]  # the one legal move that completes what was typed
        move = self.session.play(text)
        self.say(f"{self.session.seats.label(side)} played {move}")
        self._after_change()

    def _command(self, command: Command) -> None:
        actions = {
            "moves": self._to_list,
            "undo": self.action_undo,
            "hint": self.action_hint,
            "new": self.action_new_game,
            "resign": self.action_resign,
            "flip": self.action_flip,
            "board": self._refresh_view,
            "help": self.action_help,
            "quit": self.exit,
        }
        if command.name == "save":
            self._save(command.argument)
        elif command.name == "load":
            self._load(command.argument)
        else:
            actions[command.name]()

    def _to_list(self) -> None:
        listing = self.query_one("#legal", OptionList)
        if listing.option_count:
            listing.focus()
            listing.highlighted = 0

    def action_to_entry(self) -> None:
        self.query_one("#entry", MoveInput).focus()

    # -- the engine ----------------------------------------------------------------------------

    @work(thread=True, group="engine", exit_on_error=False)
    def _think(self, request: EngineRequest) -> None:
        try:
            move = self.session.think(request)
        except Exception as error:  # report it in the app rather than end the game
            self.call_from_thread(self._engine_failed, request, error)
            return
        self.call_from_thread(self._engine_replied, request, move)

    def _engine_replied(self, request: EngineRequest, move: Move) -> None:
        if self._thinking == request.version:
            self._thinking = None
        side = request.game.turn
        if self.session.apply(request, move):
            self.say(f"{self.session.seats.label(side)} played {move}")
        self._after_change()

    def _engine_failed(self, request: EngineRequest, error: Exception) -> None:
        if self._thinking == request.version:
            self._thinking = None
        self.say(f"the engine failed: {error}", error=True)
        self._refresh_view()

    @work(thread=True, group="hint", exclusive=True, exit_on_error=False)
    def _find_hint(self, version: int, game: Game) -> None:
        try:
            move = self.session.hint(game)
        except ValueError as error:
            self.call_from_thread(self.say, str(error), error=True)
            return
        self.call_from_thread(self._hinted, version, move)

    def _hinted(self, version: int, move: Move) -> None:
        if version != self.session.version:
            return
        entry = self.query_one("#entry", MoveInput)
        entry.value = str(move)
        entry.cursor_position = len(entry.value)
        entry.focus()
        self.say(f"hint: {move} (Enter plays it)")

    def _tick(self) -> None:
        version = self.session.version
        self.session.check_time()
        if self.session.version != version:
            self._after_change()
        else:
            self._show_status()

    # -- actions -------------------------------------------------------------------------------

    def action_undo(self) -> None:
        try:
            taken = self.session.undo()
        except BlueGrayError as error:
            self.say(str(error), error=True)
            return
        self.say("took back " + " ".join(str(move) for move in taken))
        self._after_change()

    def action_hint(self) -> None:
        session = self.session
        outcome = session.outcome()
        if outcome is not None:
            self.say(f"the game is over ({outcome.describe()}): no hint", error=True)
        elif session.engine_to_move():
            self.say("the engine is to move: wait for its reply", error=True)
        else:
            self.say("looking for a hint…")
            self._find_hint(session.version, session.game.copy())

    def action_flip(self) -> None:
        self.flipped = not self.flipped
        self._show_board()

    def action_save(self) -> None:
        self.push_screen(PromptScreen("Save the game record to file:", self.file), self._save)

    def _save(self, name: str | None) -> None:
        if not name:
            return
        try:
            path = self.session.save(name)
        except BlueGrayError as error:
            self.say(str(error), error=True)
            return
        self.file = name
        self.say(f"saved {path}")

    def action_load(self) -> None:
        self.push_screen(PromptScreen("Load a game record from file:", self.file), self._load)

    def _load(self, name: str | None) -> None:
        if not name:
            return
        try:
            record = self.session.load(name)
        except BlueGrayError as error:
            self.say(str(error), error=True)
            return
        self.file = name
        self.say(f"loaded {name}: {record.game.ply} moves")
        self._after_change()

    def action_new_game(self) -> None:
        self.push_screen(NewGameScreen(self.session.seats), self._start_new_game)

    def _start_new_game(self, seats: Seats | None) -> None:
        if seats is None:
            return
        self.session.new_game(seats)
        if not seats.hotseat:
            self.flipped = seats.human.value == "gray"
        what = "hot seat" if seats.level is None else f"against level {seats.level}"
        self.say(f"new game {what}")
        self._after_change()

    def action_resign(self) -> None:
        if self.session.outcome() is not None:
            self.say("the game is already over", error=True)
            return
        self.push_screen(ConfirmScreen("Resign this game?"), self._resign)

    def _resign(self, yes: bool | None) -> None:
        if not yes:
            return
        try:
            outcome = self.session.resign()
        except BlueGrayError as error:
            self.say(str(error), error=True)
            return
        self.say(outcome.describe())
        self._after_change()

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.KEYS, self.session.game.rules))
