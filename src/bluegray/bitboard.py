"""The fast board: bitboards, move generation, make/unmake and the end-of-game checks.

This is the one move generator of the project; everything else (positions, games, the engine)
goes through it. It trades beauty for speed, so it lives here alone (with its tables: ``steps``,
the masks, steps and jumps and the search for capture sequences; ``rule_tables``, what it needs
from a rule set), behind the clean API of ``position`` and ``game``;
``tests/reference_rules.py`` is the plain version it is tested against.

Representation
--------------
A *bitboard* is a Python ``int`` whose bit ``p`` is set when point ``p`` (``rank * 9 + file``,
``a1`` = bit 0, ``i9`` = bit 80) belongs to the set. A board holds, for each side (0 = Blue,
1 = Gray), its guards and privates as bitboards and its captain as a point, plus the side to
move, the no-progress count, the move number and a Zobrist hash of placement and side to move.

A *raw move* is a tuple ``(from, to, captured, path)``: the first and last point, a bitboard of
the pieces a capture takes (0 for other moves), and for captures the tuple of every point
visited (``None`` for steps and captain moves).
"""

from __future__ import annotations

import random
from typing import Final

from bluegray.points import CENTER, SIZE
from bluegray.rule_tables import RuleTables, rule_tables
from bluegray.rules import RuleSet
from bluegray.steps import (
    DIAGONAL,
    DIAGONAL_ANY,
    FAR_RANK,
    FORWARD,
    GUARD_JUMPS,
    GUARD_STEPS,
    NOT_FILE_A,
    NOT_FILE_I,
    PRIVATE_JUMPS,
    PRIVATE_STEPS,
    SOLDIER_SQUARES,
    RawMove,
    any_jump,
    bits,
    collect_jumps,
    jump_exists,
)

# Game-end codes, in the order docs/rules-reference.md §4 checks them.
ONGOING: Final = 0
CENTER_REACHED: Final = 1
LEAD: Final = 2
REPETITION: Final = 3
NO_PROGRESS: Final = 4
STALEMATE: Final = 5

# Zobrist keys: one per (piece, point) and one for Gray to move. A fixed seed makes hashes the
# same in every process, so that they can be stored and compared across runs.
_rng = random.Random(0xB1E6A7)
ZOBRIST_CAPTAIN: Final = tuple(tuple(_rng.getrandbits(64) for _ in range(81)) for _ in range(2))
ZOBRIST_GUARD: Final = tuple(tuple(_rng.getrandbits(64) for _ in range(81)) for _ in range(2))
ZOBRIST_PRIVATE: Final = tuple(tuple(_rng.getrandbits(64) for _ in range(81)) for _ in range(2))
ZOBRIST_GRAY_TO_MOVE: Final = _rng.getrandbits(64)
del _rng


class Board:
    """A mutable position with a move stack: the engine room behind ``Position`` and ``Game``.

    ``history`` holds the hash of every position since the board was set up, the current one
    last, for the repetition rule.
    """

    __slots__ = (
        "_undo",
        "captains",
        "count",
        "guards",
        "hash",
        "history",
        "number",
        "privates",
        "tables",
        "turn",
    )

    def __init__(
        self,
        rules: RuleSet,
        guards: tuple[int, int],
        privates: tuple[int, int],
        captains: tuple[int, int],
        turn: int,
        count: int,
        number: int,
    ) -> None:
        self.tables = rule_tables(rules)
        self.guards = list(guards)
        self.privates = list(privates)
        self.captains = list(captains)
        self.turn = turn
        self.count = count
        self.number = number
        self.hash = self.compute_hash()
        self.history = [self.hash]
        self._undo: list[tuple[int, int, int, int, int, int, int, int]] = []

    def copy(self) -> Board:
        """An independent board at the same position, with the same history."""
        board = Board.__new__(Board)
        board.tables = self.tables
        board.guards = self.guards[:]
        board.privates = self.privates[:]
        board.captains = self.captains[:]
        board.turn = self.turn
        board.count = self.count
        board.number = self.number
        board.hash = self.hash
        board.history = self.history[:]
        board._undo = self._undo[:]
        return board

    @property
    def rules(self) -> RuleSet:
        return self.tables.rules

    def compute_hash(self) -> int:
        """The Zobrist hash of placement and side to move, computed from scratch."""
        h = ZOBRIST_GRAY_TO_MOVE if self.turn else 0
        for side in (0, 1):
            h ^= ZOBRIST_CAPTAIN[side][self.captains[side]]
            for point in bits(self.guards[side]):
                h ^= ZOBRIST_GUARD[side][point]
            for point in bits(self.privates[side]):
                h ^= ZOBRIST_PRIVATE[side][point]
        return h

    def occupied(self) -> int:
        g, p, c = self.guards, self.privates, self.captains
        return g[0] | g[1] | p[0] | p[1] | (1 << c[0]) | (1 << c[1])

    # -- making moves ---------------------------------------------------------------------

    def push(self, move: RawMove) -> None:
        """Play a raw move (which must be legal here)."""
        frm, to, captured, _ = move
        side = self.turn
        guards = self.guards
        privates = self.privates
        captains = self.captains
        self._undo.append(
            (
                guards[0],
                guards[1],
                privates[0],
                privates[1],
                captains[side],
                self.count,
                self.number,
                self.hash,
            )
        )
        h = self.hash ^ ZOBRIST_GRAY_TO_MOVE
        from_bit = 1 << frm
        to_bit = 1 << to
        if captains[side] == frm:
            captains[side] = to
            h ^= ZOBRIST_CAPTAIN[side][frm] ^ ZOBRIST_CAPTAIN[side][to]
            count = 0
        elif guards[side] & from_bit:
            # A capture may run in a circle back to its start, so clear before setting.
            guards[side] = (guards[side] ^ from_bit) | to_bit
            h ^= ZOBRIST_GUARD[side][frm] ^ ZOBRIST_GUARD[side][to]
            count = self.count + 1
        else:
            privates[side] ^= from_bit
            h ^= ZOBRIST_PRIVATE[side][frm]
            if to_bit & FAR_RANK[side]:
                guards[side] |= to_bit
                h ^= ZOBRIST_GUARD[side][to]
                count = 0
            else:
                privates[side] |= to_bit
                h ^= ZOBRIST_PRIVATE[side][to]
                count = 0 if to - frm == FORWARD[side] else self.count + 1
        if captured:
            count = 0
            other = side ^ 1
            taken = guards[other] & captured
            if taken:
                guards[other] ^= taken
                keys = ZOBRIST_GUARD[other]
                while taken:
                    low = taken & -taken
                    h ^= keys[low.bit_length() - 1]
                    taken ^= low
            taken = privates[other] & captured
            if taken:
                privates[other] ^= taken
                keys = ZOBRIST_PRIVATE[other]
                while taken:
                    low = taken & -taken
                    h ^= keys[low.bit_length() - 1]
                    taken ^= low
        self.count = count
        if side:
            self.number += 1
        self.turn = side ^ 1
        self.hash = h
        self.history.append(h)

    def push_null(self) -> None:
        """Pass the turn without moving: never legal in the game, but what a search asks when
        it wants to know whether the opponent could hurt it even with a move in hand (null-move
        pruning). The no-progress count restarts, so no repetition is looked for across it;
        ``pop`` takes it back."""
        side = self.turn
        guards = self.guards
        privates = self.privates
        self._undo.append(
            (
                guards[0],
                guards[1],
                privates[0],
                privates[1],
                self.captains[side],
                self.count,
                self.number,
                self.hash,
            )
        )
        self.count = 0
        if side:
            self.number += 1
        self.turn = side ^ 1
        self.hash ^= ZOBRIST_GRAY_TO_MOVE
        self.history.append(self.hash)

    def pop(self) -> None:
        """Take back the last move pushed."""
        g0, g1, p0, p1, captain, count, number, h = self._undo.pop()
        side = self.turn ^ 1
        self.turn = side
        self.guards[0] = g0
        self.guards[1] = g1
        self.privates[0] = p0
        self.privates[1] = p1
        self.captains[side] = captain
        self.count = count
        self.number = number
        self.hash = h
        self.history.pop()

    @property
    def ply(self) -> int:
        """Moves pushed since the board was set up."""
        return len(self._undo)

    # -- move generation -------------------------------------------------------------------

    def captain_move(self, occupied: int) -> RawMove | None:
        """The move of the side to move's captain, if it has one."""
        side = self.turn
        frm = self.captains[side]
        nxt = self.tables.next_point[side]
        to = nxt[frm]
        if to < 0 or occupied >> to & 1:
            return None
        if self.tables.turbo:
            while to != CENTER:
                ahead = nxt[to]
                if occupied >> ahead & 1:
                    break
                to = ahead
        return (frm, to, 0, None)

    def captures(self) -> list[RawMove]:
        """Every legal capture of the side to move (empty when there is none)."""
        side = self.turn
        other = side ^ 1
        enemy = self.guards[other] | self.privates[other]
        occupied = self.occupied()
        empty = SOLDIER_SQUARES & ~occupied
        found: list[RawMove] = []
        guards = self.guards[side]
        if guards and any_jump(guards, enemy, empty, GUARD_STEPS[:4]):
            for frm in bits(guards):
                collect_jumps(frm, (frm,), 0, enemy, empty | (1 << frm), GUARD_JUMPS, 0, found)
        privates = self.privates[side]
        if privates and any_jump(privates, enemy, empty, PRIVATE_STEPS[side]):
            table = PRIVATE_JUMPS[side]
            far = FAR_RANK[side]
            for frm in bits(privates):
                collect_jumps(frm, (frm,), 0, enemy, empty | (1 << frm), table, far, found)
        if found and self.tables.maximal:
            most = max(len(move[3]) for move in found)  # type: ignore[arg-type]
            found = [move for move in found if len(move[3]) == most]  # type: ignore[arg-type]
        return found

    def moves(self) -> list[RawMove]:
        """Every legal move of the side to move, by §3 alone (the caller checks for a game end)."""
        side = self.turn
        other = side ^ 1
        guards = self.guards[side]
        privates = self.privates[side]
        enemy = self.guards[other] | self.privates[other]
        captains = self.captains
        occupied = guards | privates | enemy | (1 << captains[0]) | (1 << captains[1])
        empty = SOLDIER_SQUARES & ~occupied
        if enemy and jump_exists(side, guards, privates, enemy, empty):
            return self.captures()
        found: list[RawMove] = []
        if guards:
            for delta, source in GUARD_STEPS:
                if delta > 0:
                    targets = ((guards & source) << delta) & empty
                else:
                    targets = ((guards & source) >> -delta) & empty
                while targets:
                    low = targets & -targets
                    to = low.bit_length() - 1
                    found.append((to - delta, to, 0, None))
                    targets ^= low
        if privates:
            for delta, source in PRIVATE_STEPS[side]:
                if delta > 0:
                    targets = ((privates & source) << delta) & empty
                else:
                    targets = ((privates & source) >> -delta) & empty
                while targets:
                    low = targets & -targets
                    to = low.bit_length() - 1
                    found.append((to - delta, to, 0, None))
                    targets ^= low
        captain = self.captain_move(occupied)
        if captain is not None:
            found.append(captain)
        return found

    def has_capture(self) -> bool:
        """Whether the side to move has a capture (and so must capture)."""
        side = self.turn
        other = side ^ 1
        guards = self.guards[side]
        privates = self.privates[side]
        enemy = self.guards[other] | self.privates[other]
        if not enemy:
            return False
        captains = self.captains
        empty = SOLDIER_SQUARES & ~(
            guards | privates | enemy | (1 << captains[0]) | (1 << captains[1])
        )
        return jump_exists(side, guards, privates, enemy, empty)

    def count_moves(self) -> int:
        """How many legal moves the side to move has (faster than ``len(moves())``)."""
        side = self.turn
        other = side ^ 1
        guards = self.guards[side]
        privates = self.privates[side]
        enemy = self.guards[other] | self.privates[other]
        occupied = guards | privates | enemy | (1 << self.captains[0]) | (1 << self.captains[1])
        empty = SOLDIER_SQUARES & ~occupied
        if enemy and jump_exists(side, guards, privates, enemy, empty):
            return len(self.captures())
        total = 0
        if guards:
            total = (
                ((guards << SIZE) & empty).bit_count()
                + ((guards >> SIZE) & empty).bit_count()
                + (((guards & NOT_FILE_I) << 1) & empty).bit_count()
                + (((guards & NOT_FILE_A) >> 1) & empty).bit_count()
            )
            diagonal = guards & DIAGONAL_ANY
            if diagonal:
                total += (
                    (((diagonal & DIAGONAL[10]) << 10) & empty).bit_count()
                    + (((diagonal & DIAGONAL[8]) << 8) & empty).bit_count()
                    + (((diagonal & DIAGONAL[-8]) >> 8) & empty).bit_count()
                    + (((diagonal & DIAGONAL[-10]) >> 10) & empty).bit_count()
                )
        if privates:
            if side:
                total += ((privates >> SIZE) & empty).bit_count()
            else:
                total += ((privates << SIZE) & empty).bit_count()
            total += (((privates & NOT_FILE_I) << 1) & empty).bit_count()
            total += (((privates & NOT_FILE_A) >> 1) & empty).bit_count()
        to = self.tables.next_point[side][self.captains[side]]
        if to >= 0 and not occupied >> to & 1:
            total += 1
        return total

    def can_step(self) -> bool:
        """A cheap test that the side to move is not stalemated: one of its soldiers has an empty
        point beside it or ahead, where every soldier may step (unless it must capture, and then
        it has a capture)."""
        side = self.turn
        soldiers = self.guards[side] | self.privates[side]
        empty = SOLDIER_SQUARES & ~self.occupied()
        sideways = ((soldiers & NOT_FILE_I) << 1) | ((soldiers & NOT_FILE_A) >> 1)
        forward = soldiers << SIZE if side == 0 else soldiers >> SIZE
        return bool((sideways | forward) & empty)

    def is_stalemate(self) -> bool:
        """Whether the side to move has no legal move (``can_step`` first, then counting)."""
        return not self.can_step() and self.count_moves() == 0

    # -- the end of the game ---------------------------------------------------------------

    def end_by_move(self) -> int:
        """Which of §4 rules 1-4 ends the game now (``ONGOING`` if none); stalemate is separate."""
        captains = self.captains
        if captains[0] == CENTER or captains[1] == CENTER:
            return CENTER_REACHED
        tables = self.tables
        lead = tables.lead
        if lead is not None:
            advancement = tables.advancement
            if abs(advancement[0][captains[0]] - advancement[1][captains[1]]) >= lead:
                return LEAD
        count = self.count
        if count >= 8 and self.is_third_repetition():
            return REPETITION
        if count >= tables.impasse_plies:
            return NO_PROGRESS
        return ONGOING

    def end_at_start(self) -> int:
        """Which of §4 rules 1, 2 and 5 ends a game set up here (``ONGOING`` if none)."""
        captains = self.captains
        if captains[0] == CENTER or captains[1] == CENTER:
            return CENTER_REACHED
        lead = self.tables.lead
        if lead is not None:
            advancement = self.tables.advancement
            if abs(advancement[0][captains[0]] - advancement[1][captains[1]]) >= lead:
                return LEAD
        if self.count_moves() == 0:
            return STALEMATE
        return ONGOING

    def end(self) -> int:
        """Which rule of §4 ends the game now, checked in order (``ONGOING`` if none)."""
        if not self._undo:
            return self.end_at_start()
        code = self.end_by_move()
        if code == ONGOING and self.count_moves() == 0:
            return STALEMATE
        return code

    def is_third_repetition(self) -> bool:
        """Whether the current position stood twice before (the history holds only positions since
        the last irreversible move that can repeat, so the scan stops at the no-progress count)."""
        history = self.history
        reach = min(self.count, len(history) - 1)
        h = self.hash
        seen = 0
        for back in range(2, reach + 1, 2):
            if history[-1 - back] == h:
                seen += 1
                if seen == 2:
                    return True
        return False

    def advancement(self, side: int) -> int:
        """How far a side's captain is along its path: 0 at the start, 17 on the centre."""
        return self.tables.advancement[side][self.captains[side]]

    def winner(self, code: int) -> int | None:
        """The winning side (0 Blue, 1 Gray) of a game ended by ``code``, ``None`` for a draw."""
        if code == CENTER_REACHED:
            return 0 if self.captains[0] == CENTER else 1
        if code == LEAD:
            return 0 if self.advancement(0) > self.advancement(1) else 1
        if code == STALEMATE and self.tables.stalemate_loses:
            return self.turn ^ 1
        if self.tables.impasse_by_advance:
            blue, gray = self.advancement(0), self.advancement(1)
            if blue != gray:
                return 0 if blue > gray else 1
        return None

    def is_impasse(self, code: int) -> bool:
        """Whether the game-end ``code`` is an impasse (decided by the impasse setting)."""
        if code in (REPETITION, NO_PROGRESS):
            return True
        return code == STALEMATE and not self.tables.stalemate_loses


__all__ = [
    "CENTER_REACHED",
    "LEAD",
    "NO_PROGRESS",
    "ONGOING",
    "REPETITION",
    "STALEMATE",
    "ZOBRIST_CAPTAIN",
    "ZOBRIST_GRAY_TO_MOVE",
    "ZOBRIST_GUARD",
    "ZOBRIST_PRIVATE",
    "Board",
    "RawMove",
    "RuleTables",
    "bits",
    "rule_tables",
]
