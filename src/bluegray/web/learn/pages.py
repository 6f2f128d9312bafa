"""The content of the Learn pages: the game's history, its rules in plain words for any rule set,
what each setting of the Super Blue and Gray families changes, strategy hints, and the board
diagrams (positions checked by the library, drawn in the page by ``static/board.js`` as every
board of the site is).

The rules are written from docs/rules-reference.md (the project's statement of them); the
examples in the diagrams are positions whose legal moves the library computes, so the words and
the pictures cannot drift apart from the move generator. The settings' words are
``learn_settings``', the diagrams ``learn_diagrams``'; this module holds the history and the
presets' words, and is where the pages' routes take all of it from.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Final

from bluegray.position import Position
from bluegray.rules import (
    PRESETS,
    Army,
    Capture,
    Impasse,
    RuleSet,
    Soldiers,
    Stalemate,
    Start,
)
from bluegray.web.learn.diagrams import Diagram, diagrams
from bluegray.web.learn.settings import SETTINGS, Choice, Setting

# -- history ----------------------------------------------------------------------------------

HISTORY: Final = (
    "Blue and Gray was patented in 1903 by Henry Busch and Arthur Jaeger (US patent 726,023). "
    "It is also known as Cats and Dogs, Wild West, Thumps Game, and Captain and Soldiers.",
    "Sid Sackson published the game in his book A Gamut of Games (1969). His "
    "rules are the default here (the rule set called sackson): when the two captains block "
    "each other for good, the captain farther along its path wins — and Sackson writes that "
    "in a series he counted such a win as half a game.",
    "In 2000 Roger Cooper implemented the game for Zillions of Games. In place of Sackson's "
    "impasse rule he added the lead rule: a captain three steps ahead of the other wins at "
    "once, and a deadlock is a draw (the rule set cooper).",
    "In 2003 Richard Hutnik extended Cooper's version into Super Blue and Gray, a family of "
    "twelve variants. He calls the guard a Sargeant and adds a second kind of soldier, the "
    "private, which can only go forward or sideways and becomes a guard on the far rank. His "
    "variants "
    "combine three choices: guards (the Classic family) or privates (the Super family); full "
    "armies or light ones; and captains that step or turbo captains that slide. The POW "
    "variants start each captain behind enemy lines. In all of them the longest capture is "
    "compulsory and a deadlock is a draw.",
)

DECISIONS: Final = (
    "Sackson speaks of both captains being blockaded. A side that has no legal move at all is "
    "the same deadlock, so under Sackson's rules it is treated as an impasse.",
    "The old rules say nothing about endless play, so this project ends a game in an impasse "
    "when the same position (pieces and side to move) stands for the third time, counting the "
    "start, or after a set number of plies (100 unless the rule set says otherwise) without "
    "a capture, a captain move or a forward private move.",
    "Under Cooper's and Hutnik's rules an impasse is a draw.",
)


# -- the presets ------------------------------------------------------------------------------

FAMILIES: Final = {
    "Sackson": "Sackson's rules from A Gamut of Games (1969), the default.",
    "Cooper": "Roger Cooper's Zillions of Games version (2000): Sackson's game with the lead "
    "rule and drawn impasses.",
    "Classic": "Hutnik's Super Blue and Gray with guards (2003): maximal capture, stalemate "
    "loses, impasses draw.",
    "Super": "Hutnik's Super Blue and Gray with privates (2003): privates promote to guards on "
    "the far rank; maximal capture, stalemate loses, impasses draw.",
    "POW": "Hutnik's prisoner-of-war variants (2003): turbo captains start behind enemy lines.",
}


def family_of(name: str) -> str:
    if name.startswith("pow-"):
        return "POW"
    if name.startswith("super"):
        return "Super"
    if name.startswith("classic"):
        return "Classic"
    return name.capitalize()


@dataclasses.dataclass(frozen=True)
class PresetInfo:
    name: str
    family: str
    description: str
    settings: dict[str, str]
    settings_text: str
    start: str
    rules: tuple[str, ...]
    differences: tuple[str, ...]
    hints: tuple[str, ...]


def _choice(key: str, value: str) -> Choice:
    setting = next(s for s in SETTINGS if s.key == key)
    for choice in setting.choices:
        if choice.value == value:
            return choice
    return setting.choices[-1]  # a number other than the published one (lead, impasse plies)


def rules_in_words(rules: RuleSet) -> tuple[str, ...]:
    """The complete rules of a rule set, one paragraph a topic, in plain words."""
    blue_start = "e9" if rules.start is Start.POW else "e1"
    gray_start = "e1" if rules.start is Start.POW else "e9"
    blue_path = "Gray" if rules.start is Start.POW else "Blue"
    gray_path = "Blue" if rules.start is Start.POW else "Gray"
    soldier = "guard" if rules.soldiers is Soldiers.GUARD else "private"
    count = 17 if rules.army is Army.FULL else 9
    if rules.army is Army.FULL:
        placement = "all of rank 2 and rank 1 (Blue) and all of rank 8 and rank 9 (Gray)"
    else:
        placement = "rank 2 (Blue) and rank 8 (Gray)"
    paragraphs = [
        "The board has 81 points in a 9 by 9 grid, joined by straight lines, plus the 18 "
        "diagonal lines of the two captains' paths (no other diagonals exist). The red dot in "
        "the middle, e5, is the centre: only a captain may ever stand there.",
        f"Each side has one captain and {count} {soldier}s. The {soldier}s fill {placement}"
        + (", except e1 and e9, where the captains start. " if count == 17 else ". ")
        + f"Blue's captain starts on {blue_start} and follows the {blue_path} path; Gray's "
        f"starts on {gray_start} and follows the {gray_path} path. Each path has 17 steps to "
        "the centre. Blue moves first, then the sides take turns; passing is not allowed.",
        "Goal: bring your captain to the centre. The first captain to stand on it wins.",
        "Captain: " + _choice("captain", rules.captain.value).rule + " A captain never "
        "captures, is never captured and can never be jumped.",
        f"{soldier.capitalize()}s: " + _choice("soldiers", rules.soldiers.value).rule,
        "Capturing: a soldier captures an adjacent enemy soldier (never a captain) by jumping "
        "over it along a line to the empty point straight beyond; the jumped piece is removed. "
        + (
            "Guards jump up, down, left or right. "
            if rules.soldiers is Soldiers.GUARD
            else "Privates jump forward or sideways; a guard (a promoted private) jumps in all "
            "four straight directions. A private that lands on the far rank while capturing "
            "becomes a guard and its move ends there. "
        )
        + "If the piece can jump again from where it lands, it must: the capture goes on until "
        "no jump is left, may change direction, and may even come back over its own start "
        "point. No capture ever lands on the centre.",
        "Capturing is compulsory: when you can capture, you must, and no other move (not even "
        "a captain move) is allowed. "
        + (
            "You may choose any complete capture sequence."
            if rules.capture is Capture.FREE
            else "Only the sequences that take the most pieces available anywhere on the board "
            "are allowed (maximal capture)."
        ),
    ]
    if rules.lead is not None:
        paragraphs.append(
            f"Lead rule: after any move, if one captain has advanced {rules.lead} or more steps "
            "farther along its path than the other, its side wins."
        )
    else:
        paragraphs.append("There is no lead rule: being ahead in the race wins nothing by itself.")
    impasse = (
        "the side whose captain is farther along its path wins, and equal advancement is a draw"
        if rules.impasse is Impasse.ADVANCE
        else "the game is a draw"
    )
    paragraphs.append(
        "Endless play: if the same position (pieces and side to move) stands for the third "
        f"time, or {rules.impasse_plies} plies in a row pass without a capture, a captain move "
        "or a forward private move, the game ends in an impasse."
    )
    if rules.stalemate is Stalemate.IMPASSE:
        paragraphs.append(
            "A side that has no legal move on its turn is in a deadlock: the game ends in an "
            "impasse."
        )
    else:
        paragraphs.append("A side that has no legal move on its turn loses.")
    paragraphs.append(f"In an impasse {impasse}.")
    paragraphs.append(
        "After every move these are checked in order: a captain on the centre, the lead rule, "
        "repetition, the no-progress count, and finally whether the side to move can move. "
        "Players may also agree a draw or resign, and a clock may run out."
    )
    return tuple(paragraphs)


def differences(rules: RuleSet) -> tuple[str, ...]:
    """What this rule set changes from Sackson's rules, one line per setting."""
    base = PRESETS["sackson"].settings()
    result = []
    for key, value in rules.settings().items():
        if base[key] != value:
            setting = next(s for s in SETTINGS if s.key == key)
            result.append(f"{setting.title}: {value} — {_choice(key, value).rule}")
    return tuple(result)


def hints(rules: RuleSet) -> tuple[str, ...]:
    """Strategy hints for a rule set: general ones, then one per setting that shapes play."""
    general = (
        "The whole game is a race between two captains that cannot fight: soldiers win it by "
        "clearing their own captain's path and blocking the enemy's. A soldier standing on "
        "the enemy path is worth more than one anywhere else.",
        "Captures are compulsory, so a soldier offered at the right moment pulls an enemy "
        "blocker off its point — or drags it away from your path.",
    )
    keys = ("captain", "soldiers", "army", "start", "lead", "capture", "stalemate", "impasse")
    values = rules.settings()
    return general + tuple(
        _choice(key, "3" if key == "lead" and values[key] != "none" else values[key]).hint
        for key in keys
    )


@functools.cache
def presets() -> tuple[PresetInfo, ...]:
    return tuple(
        PresetInfo(
            name=name,
            family=family_of(name),
            description=rules.description,
            settings=rules.settings(),
            settings_text=rules.settings_text(),
            start=str(Position.start(rules)),
            rules=rules_in_words(rules),
            differences=differences(rules),
            hints=hints(rules),
        )
        for name, rules in PRESETS.items()
    )


def preset(name: str) -> PresetInfo | None:
    return next((info for info in presets() if info.name == name), None)


__all__ = [
    "DECISIONS",
    "FAMILIES",
    "HISTORY",
    "SETTINGS",
    "Choice",
    "Diagram",
    "PresetInfo",
    "Setting",
    "diagrams",
    "differences",
    "family_of",
    "hints",
    "preset",
    "presets",
    "rules_in_words",
]
