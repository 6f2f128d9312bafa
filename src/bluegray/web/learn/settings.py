"""The settings of the Super Blue and Gray families as the Learn pages explain them: each
setting, its choices and what each choice changes (``learn`` builds the pages' words on them).
"""

from __future__ import annotations

import dataclasses
from typing import Final


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
