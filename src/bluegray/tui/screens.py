"""The pop-up screens of the full-screen app: help, a file name, a yes-or-no question, and the
choice of opponent for a new game."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from bluegray.engine.levels import LEVELS
from bluegray.pieces import Side
from bluegray.rules import RuleSet
from bluegray.tui.commands import COMMAND_HELP
from bluegray.tui.session import Seats

MODAL_CSS = """
/* The pop-up screens' look: part of the app's CSS, which applies to every screen. */
ModalScreen {
    align: center middle;
}
ModalScreen > Vertical {
    width: 76;
    max-width: 100%;
    height: auto;
    max-height: 100%;
    border: thick $primary;
    background: $surface;
    padding: 0 1;
}
ModalScreen Label.title {
    text-style: bold;
    width: 100%;
    content-align: center middle;
}
ModalScreen .hint {
    color: $text-muted;
}
"""


def help_text(keys: list[tuple[str, str]], rules: RuleSet) -> Text:
    """What the help screen says: keys, typed commands, notation, the picture's legend."""
    text = Text()
    text.append("Moves\n", style="bold")
    text.append(
        "Type a move in notation and press Enter: d2-d3 (a step, or a captain's move), "
        "b2xb4xd4 (a capture: the start and every landing point). As you type, the list on the "
        "right shows the legal moves that match and the grey suggestion completes the first "
        "one: Right accepts it, Tab completes as far as the matching moves agree, Down moves into "
        "the list, and Enter there plays the move.\n\n"
    )
    text.append("Keys\n", style="bold")
    for key, description in keys:
        text.append(f"  {key:<8}", style="bold")
        text.append(f" {description}\n")
    text.append("\nCommands (type them instead of a move)\n", style="bold")
    for usage, description in COMMAND_HELP:
        text.append(f"  {usage:<10}", style="bold")
        text.append(f" {description}\n")
    text.append("\nThe board\n", style="bold")
    text.append(
        "  Upper case is Blue, lower case Gray: C captain, G guard, P private. '+' marks an "
        "empty point of a captain's path (Blue's on the left half, Gray's on the right), '*' "
        "the centre e5, '.' other empty points; the last move's points are shown in reverse.\n"
    )
    text.append("\nRules: ", style="bold")
    text.append(f"{rules} — {rules.description}\n")
    text.append(
        "  A captain follows its path to the centre; soldiers capture by jumping, and capture "
        "is compulsory. The first captain on the centre wins.\n"
    )
    return text


class HelpScreen(ModalScreen[None]):
    """Keys, commands, notation and the legend of the board."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q,enter", "dismiss", "Close"),
    ]

    def __init__(self, keys: list[tuple[str, str]], rules: RuleSet) -> None:
        super().__init__()
        self._text = help_text(keys, rules)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Blue and Gray — help", classes="title")
            with VerticalScroll():
                yield Static(self._text)
            yield Label("Escape closes this help.", classes="hint")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)


class PromptScreen(ModalScreen[str | None]):
    """Asks for a line of text (a file name); ``None`` if cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, value: str = "") -> None:
        super().__init__()
        self._question = question
        self._value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._question, classes="title")
            yield Input(value=self._value, id="answer")
            yield Label("Enter confirms, Escape cancels.", classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes-or-no question."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self._question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._question, classes="title")
            yield Label("y: yes    n or Escape: no", classes="hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class NewGameScreen(ModalScreen[Seats | None]):
    """Choose the opponent (an engine level, or a second person) and your side."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("c", "change_colour", "Change side"),
    ]

    def __init__(self, seats: Seats) -> None:
        super().__init__()
        self._human = seats.human
        self._current = "hotseat" if seats.level is None else str(seats.level)

    def compose(self) -> ComposeResult:
        options = [
            Option(f"Level {level}  {config.description}", id=str(level))
            for level, config in LEVELS.items()
        ]
        options.append(Option("Hot seat  two people at this keyboard", id="hotseat"))
        with Vertical():
            yield Label("New game: choose your opponent", classes="title")
            yield Label(self._side_text(), id="side")
            yield OptionList(*options, id="opponents")
            yield Label("Enter starts, c changes your side, Escape cancels.", classes="hint")

    def on_mount(self) -> None:
        opponents = self.query_one("#opponents", OptionList)
        opponents.highlighted = opponents.get_option_index(self._current)
        opponents.focus()

    def _side_text(self) -> str:
        return f"Against the engine you play {self._human.title} (press c to change)"

    def action_change_colour(self) -> None:
        self._human = self._human.other
        self.query_one("#side", Label).update(self._side_text())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice = event.option.id
        if choice == "hotseat":
            self.dismiss(Seats(None, Side.BLUE))
        elif choice is not None:
            self.dismiss(Seats(int(choice), self._human))

    def action_cancel(self) -> None:
        self.dismiss(None)
