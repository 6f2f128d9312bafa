"""The content of the Learn pages: the game's history, its rules in plain words for any rule set,
what each setting of the Super Blue and Gray families changes, strategy hints, and the board
diagrams (positions checked by the library, drawn in the page by ``static/board.js`` as every
board of the site is).

The rules are written from docs/rules-reference.md (the project's statement of them); the
examples in the diagrams are positions whose legal moves the library computes, so the words and
the pictures cannot drift apart from the move generator.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Final

from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.points import BLUE_PATH, GRAY_PATH, point_name
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


# -- the settings -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Choice:
    """One value of a setting: the rule in plain words, why it matters, and how to play it."""

    value: str
    rule: str
    effect: str
    hint: str


@dataclasses.dataclass(frozen=True)
class Setting:
    key: str
    title: str
    question: str
    choices: tuple[Choice, ...]


SETTINGS: Final = (
    Setting(
        "captain",
        "Captain: standard or turbo",
        "How far does a captain go in one move?",
        (
            Choice(
                "standard",
                "The captain steps to the next point of its path, and only if that point is "
                "empty: any piece, friend or enemy, stops it.",
                "Progress comes one step at a time, so every single point of the path counts.",
                "Count the empty points ahead of each captain: the side with the clearer path "
                "is usually ahead in the race. A soldier standing right in front of the enemy "
                "captain costs the enemy a move to remove it.",
            ),
            Choice(
                "turbo",
                "The captain slides along its path through empty points, and must go as far "
                "as it can: it stops only in front of an occupied point or on the centre. The "
                "whole slide is one move, written from its start to its end (e1-b4).",
                "One open stretch of path can carry a captain many steps in a single move, so "
                "a game can turn in one move; the turbo rule sets have no lead rule.",
                "Never leave a long empty stretch in front of the enemy captain: one blocker "
                "can stop a slide. Open your own path all at once rather than point by point, "
                "and remember that the slide must go as far as it can — you cannot stop early "
                "to keep a blocker in place.",
            ),
        ),
    ),
    Setting(
        "soldiers",
        "Soldiers: guards or privates",
        "What are the soldiers?",
        (
            Choice(
                "guard",
                "A guard steps to a neighbouring empty point along any line: up, down, left or "
                "right, or along one of the diagonal lines of the two paths, in either "
                "direction. It never enters the centre.",
                "Guards can come back to defend and can stand anywhere, which makes blockades "
                "strong and games long.",
                "Guards are flexible: keep some near your own captain's path to clear it, and "
                "send others to sit on the enemy path. Guards can retreat, so a blockade is "
                "never final — watch for the jump that opens it.",
            ),
            Choice(
                "private",
                "A private steps one point forward (Blue up, Gray down) or sideways, along "
                "straight lines only: never backwards, never diagonally, never onto the "
                "centre. It jumps only forward or sideways. A private that ends a move on the "
                "far rank (Blue rank 9, Gray rank 1) becomes a guard at once.",
                "Privates cannot come back, so every forward step is for good; the army "
                "thins out behind the front and blockades do not last.",
                "Do not rush privates forward: one that has passed the enemy captain's path "
                "can never return to block it. Sideways steps are your only way to wait. A "
                "private that reaches the far rank becomes a guard, which can walk back and "
                "defend — a goal worth a few moves.",
            ),
        ),
    ),
    Setting(
        "army",
        "Army: full or light",
        "How many soldiers does each side have?",
        (
            Choice(
                "full",
                "Each side has 17 soldiers: Blue on all of rank 2 and on rank 1 except e1, "
                "Gray on all of rank 8 and on rank 9 except e9.",
                "A crowded board: captains need their own soldiers to clear the way first, "
                "and there are many blockers to place.",
                "Your captain cannot move until its first step is cleared (for Blue, d2 holds "
                "a Blue soldier at the start), and rank 1 behind it is full: decide early "
                "which soldiers leave first, and bring others forward to meet the enemy.",
            ),
            Choice(
                "light",
                "Each side has 9 soldiers, one full rank: Blue on rank 2, Gray on rank 8.",
                "An open board: captains can start running almost at once and each soldier is "
                "precious.",
                "Tempo matters more than material: a blocker placed one move late is no "
                "blocker. Trade soldiers only when the trade slows the enemy captain.",
            ),
        ),
    ),
    Setting(
        "start",
        "Start: home or POW",
        "Where do the captains start?",
        (
            Choice(
                "home",
                "Blue's captain starts on e1 and follows the Blue path; Gray's starts on e9 "
                "and follows the Gray path.",
                "Each captain begins behind its own army.",
                "Your own soldiers are your captain's first obstacle: clear them off the "
                "path in a useful order.",
            ),
            Choice(
                "pow",
                "Prisoners of war: Blue's captain starts on e9 and follows the Gray path, and "
                "Gray's captain starts on e1 and follows the Blue path. Each starts behind "
                "enemy lines.",
                "The enemy army stands on your captain's path from the start, and your army "
                "stands on the enemy captain's path.",
                "Your soldiers defend by staying where they are, which the enemy must break "
                "with captures. With privates the defenders can only move forward or "
                "sideways, so every move they make away from the path weakens the wall for "
                "good: spend your moves elsewhere when you can.",
            ),
        ),
    ),
    Setting(
        "lead",
        "Lead rule",
        "Does a big enough lead win?",
        (
            Choice(
                "none",
                "There is no lead rule: only reaching the centre (or an impasse, stalemate "
                "or the end of the game by other means) decides.",
                "A captain may fall far behind and still come back.",
                "Advancement alone wins nothing; what counts is whether the leader's path to "
                "the centre can still be blocked.",
            ),
            Choice(
                "3",
                "After any move, if one captain has advanced at least three steps more along "
                "its path than the other, its side wins at once. (Any number can be set; "
                "three is the published value.)",
                "Cooper added it so that a clear lead in the race decides the game. It makes "
                "games shorter and every captain step urgent.",
                "A lead of two is a threat: one more step wins. Keep the enemy captain "
                "blocked early, and do not let your own captain be stuck while the other "
                "advances.",
            ),
        ),
    ),
    Setting(
        "capture",
        "Capture: free or maximal",
        "When captures are possible, which ones may be made?",
        (
            Choice(
                "free",
                "Capturing is compulsory, but you choose any complete capture sequence.",
                "You keep control of which piece jumps and where it ends.",
                "Because some capture must be made, you can offer a soldier to pull an "
                "enemy blocker away from your captain's path.",
            ),
            Choice(
                "maximal",
                "Capturing is compulsory, and only the sequences that take the greatest "
                "number of pieces available anywhere on the board are legal.",
                "The capture your opponent makes can be predicted and forced: a big enough "
                "offer decides where the jumping piece ends up.",
                "Before every move, count the longest capture each side will have. You can "
                "force the enemy's piece off a key point by offering two soldiers where "
                "they would rather take one.",
            ),
        ),
    ),
    Setting(
        "stalemate",
        "Stalemate: impasse or loss",
        "What happens to a side that has no legal move?",
        (
            Choice(
                "impasse",
                "The game ends in an impasse (decided by the impasse setting below).",
                "Sackson speaks of both captains being blockaded; this site treats a side that "
                "cannot move at all as the same deadlock.",
                "With Sackson's impasse rule, a side that is ahead in advancement may even "
                "welcome a complete deadlock.",
            ),
            Choice(
                "loss",
                "The side that cannot move loses.",
                "Blockading every enemy piece becomes a way to win.",
                "Count your opponent's legal moves late in the game: with few soldiers left, "
                "taking away the last moves wins outright.",
            ),
        ),
    ),
    Setting(
        "impasse",
        "Impasse: advance or draw",
        "Who wins a deadlock (repetition, no progress, or stalemate under impasse)?",
        (
            Choice(
                "advance",
                "The side whose captain has advanced farther along its path wins; equal "
                "advancement is a draw.",
                "Sackson's rule: the race is judged even when it cannot be finished.",
                "Get a step ahead, then lock the position: repetition or the no-progress "
                "count will end the game in your favour. The side behind must open the game "
                "up.",
            ),
            Choice(
                "draw",
                "An impasse is a draw.",
                "A deadlock saves the side that is behind.",
                "When you are losing the race, aim for a blockade you can hold: a "
                "repetition or a long stretch without progress draws.",
            ),
        ),
    ),
    Setting(
        "impasse-plies",
        "Impasse plies",
        "How long may the game go on without progress?",
        (
            Choice(
                "100",
                "The game ends in an impasse once 100 plies (single moves) in a row have "
                "passed without a capture, a captain move or a forward private move. Guard "
                "steps and sideways private steps add to the count. Any number can be set "
                "(impasse-plies=50); the same position standing for the third time also ends "
                "the game in an impasse.",
                "It guarantees that a game ends even when nobody can make progress.",
                "Shuffling guards back and forth brings the impasse closer: whoever profits "
                "from an impasse can simply wait.",
            ),
        ),
    ),
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


# -- diagrams ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Diagram:
    """A board of the Learn page: the position, its last move and the points to mark, which the
    page draws with ``static/board.js`` (``data-*`` attributes of its ``figure``)."""

    key: str
    title: str
    caption: str
    position: str
    pow: bool = False
    """Whether each captain walks the other side's path (the prisoners-of-war rules)."""
    last_move: str = ""
    targets: tuple[str, ...] = ()


def _names(points: list[str]) -> str:
    return ", ".join(points[:-1]) + " and " + points[-1] if len(points) > 1 else "".join(points)


def _destinations(position: Position, start: str) -> list[str]:
    return sorted(
        point_name(move.to_point)
        for move in position.legal_moves()
        if point_name(move.from_point) == start
    )


def _after(rules: str, text: str, move: str, title: str, caption: str, key: str) -> Diagram:
    game = Game(rules, Position.parse(text, rules))
    played = game.push(move)
    return Diagram(key, title, caption, str(game.position), last_move=str(played))


@functools.cache
def diagrams() -> dict[str, Diagram]:
    """The teaching diagrams of the Learn page, by key."""
    result: list[Diagram] = []
    paths = Position.parse("4c4/9/9/9/9/9/9/9/4C4 b 0 1", "sackson")
    result.append(
        Diagram(
            "paths",
            "The board and the two paths",
            "The dark line is Blue's path from e1, the light line Gray's path from e9; both end "
            "on the red centre e5. Blue's path: "
            + " ".join(point_name(point) for point in BLUE_PATH)
            + ". Gray's path: "
            + " ".join(point_name(point) for point in GRAY_PATH)
            + ".",
            str(paths),
        )
    )
    guard = Position.parse("4c4/9/9/9/2G6/9/9/9/4C4 b 0 1", "sackson")
    targets = _destinations(guard, "c5")
    result.append(
        Diagram(
            "guard",
            "How a guard moves",
            f"The Blue guard (G) on c5 may step to {_names(targets)} (marked): straight lines "
            "in four directions, and the diagonal path lines that meet at c5.",
            str(guard),
            targets=tuple(targets),
        )
    )
    private = Position.parse("4c4/9/9/9/9/2P6/9/9/4C4 b 0 1", "super")
    targets = _destinations(private, "c4")
    result.append(
        Diagram(
            "private",
            "How a private moves",
            f"The Blue private (P) on c4 may step to {_names(targets)} (marked): forward or "
            "sideways, never back and never diagonally.",
            str(private),
            targets=tuple(targets),
        )
    )
    result.append(
        _after(
            "sackson",
            "4c4/9/9/9/9/9/9/9/4C4 b 0 1",
            "e1-d2",
            "A standard captain's step",
            "A standard captain moves one step along its own path: Blue's first step is the "
            "diagonal e1-d2.",
            "standard",
        )
    )
    result.append(
        _after(
            "classic-light-turbo",
            "4c4/9/9/9/1G7/9/9/9/4C4 b 0 1",
            "e1-b4",
            "A turbo captain's slide",
            "A turbo captain slides as far as it can: from e1 along d2, d3, d4 and c5 to b4, "
            "where its own guard on b5 stops it. The move is written e1-b4.",
            "turbo",
        )
    )
    result.append(
        _after(
            "sackson",
            "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1",
            "a1xa3xc3xc1xa1",
            "A capture that runs in a circle",
            "The Blue guard on a1 must keep jumping while it can: a1xa3xc3xc1xa1 takes four "
            "Gray guards (crossed) and ends where it began.",
            "capture",
        )
    )
    text = "4c4/9/9/9/9/7g1/9/g6g1/G3C2G1 b 0 1"
    free = _names([str(move) for move in Position.parse(text, "sackson").legal_moves()])
    maximal = _names([str(move) for move in Position.parse(text, "classic").legal_moves()])
    result.append(
        Diagram(
            "maximal",
            "Free choice or maximal capture",
            f"Blue must capture. With free choice (sackson, cooper) both {free} are legal; with "
            f"maximal capture (every Hutnik rule set) only {maximal}, which takes two pieces.",
            str(Position.parse(text, "classic")),
        )
    )
    result.append(
        _after(
            "super",
            "4c4/2P6/9/9/9/9/9/9/4C4 b 0 1",
            "c8-c9",
            "Promotion",
            "A Blue private that reaches rank 9 becomes a guard at once (G): from now on it "
            "moves and jumps in every direction a guard may.",
            "promotion",
        )
    )
    lead = Position.parse("9/5c3/9/9/2C6/9/9/9/9 g 0 5", "cooper")
    outcome = lead.outcome()
    assert outcome is not None
    result.append(
        Diagram(
            "lead",
            "The lead rule",
            f"Blue's captain is on c5, {lead.advancement(Side.BLUE)} steps along its path; "
            f"Gray's is on f8, {lead.advancement(Side.GRAY)} step along. Under a lead rule of "
            f"three the game is over: {outcome.describe()}.",
            str(lead),
        )
    )
    return {diagram.key: diagram for diagram in result}
