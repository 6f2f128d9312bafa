"""The move entry line: an input that completes legal moves and commands as you type."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.suggester import Suggester
from textual.widgets import Input

Words = Callable[[], list[list[str]]]
"""Where the words to complete come from: groups in order of preference (the legal moves, then
the commands), read afresh each time since they change with every move."""


class WordSuggester(Suggester):
    """Suggests the first word (a legal move, or a command) that starts with what is typed."""

    def __init__(self, words: Words) -> None:
        super().__init__(use_cache=False, case_sensitive=False)
        self._words = words

    async def get_suggestion(self, value: str) -> str | None:
        return first_completion([word for group in self._words() for word in group], value)


def completions(words: list[str], typed: str) -> list[str]:
    """The words that start with what was typed (ignoring case and surrounding spaces)."""
    prefix = typed.strip().lower()
    return [word for word in words if word.startswith(prefix)]


def first_completion(words: list[str], typed: str) -> str | None:
    """The first word that completes what was typed, if any is longer than it."""
    for word in completions(words, typed):
        if len(word) > len(typed.strip()):
            return word
    return None


def common_prefix(words: list[str]) -> str:
    """The longest text every word starts with."""
    first, last = min(words), max(words)
    length = 0
    while length < min(len(first), len(last)) and first[length] == last[length]:
        length += 1
    return first[:length]


class MoveInput(Input):
    """Where moves and commands are typed. Tab completes as far as the matches agree (all the
    way when one word matches), preferring moves to commands; Down moves into the list of legal
    moves."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "complete", "Complete", show=False),
        Binding("down", "to_list", "Legal moves", show=False),
    ]

    def __init__(
        self,
        words: Words,
        on_down: Callable[[], None],
        *,
        placeholder: str = "",
        id: str | None = None,
        compact: bool = False,
    ) -> None:
        super().__init__(
            placeholder=placeholder, suggester=WordSuggester(words), id=id, compact=compact
        )
        self._word_source = words
        self._on_down = on_down

    def action_complete(self) -> None:
        groups = (completions(group, self.value) for group in self._word_source())
        matches = next((group for group in groups if group), None)
        if matches is None:
            return
        common = matches[0] if len(matches) == 1 else common_prefix(matches)
        if len(common) > len(self.value.strip()):
            self.value = common
            self.cursor_position = len(common)

    def action_to_list(self) -> None:
        self._on_down()
