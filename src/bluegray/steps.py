"""Where soldiers step and jump, on bitboards: the board's masks, every direction a guard and a
private step in along the drawn lines, the jump tables, and the search for capture sequences.

The representation is ``bitboard``'s (a set of points is a Python ``int``, bit ``p`` for point
``p``); ``bitboard.Board`` generates its moves with these.
"""

from __future__ import annotations

from typing import Final

from bluegray.points import CENTER, DIAGONAL_LINES, SIZE

RawMove = tuple[int, int, int, "tuple[int, ...] | None"]
"""A move as the generator makes it (``bitboard``'s docstring): ``(from, to, captured, path)``."""

FULL: Final = (1 << 81) - 1
CENTER_BB: Final = 1 << CENTER
FILE_A: Final = sum(1 << (rank * SIZE) for rank in range(SIZE))
FILE_I: Final = FILE_A << 8
NOT_FILE_A: Final = FULL & ~FILE_A
NOT_FILE_I: Final = FULL & ~FILE_I
RANK_1: Final = (1 << SIZE) - 1
RANK_9: Final = RANK_1 << (8 * SIZE)
SOLDIER_SQUARES: Final = FULL & ~CENTER_BB
"""Where a soldier may stand or land: everywhere but the centre."""

FAR_RANK: Final = (RANK_9, RANK_1)
"""The rank each side's privates move towards and are promoted on."""
FORWARD: Final = (SIZE, -SIZE)
"""The step a private of each side takes forward."""


def _diagonal_source_masks() -> dict[int, int]:
    """For each diagonal step (+10, +8, -8, -10), the points with a diagonal line that way."""
    masks = {10: 0, 8: 0, -8: 0, -10: 0}
    for a, b in DIAGONAL_LINES:
        masks[b - a] |= 1 << a
        masks[a - b] |= 1 << b
    return masks


DIAGONAL: Final = _diagonal_source_masks()
"""For each diagonal step (+10, +8, -8, -10), the points with a diagonal line that way."""

GUARD_STEPS: Final = (
    (SIZE, FULL),
    (-SIZE, FULL),
    (1, NOT_FILE_I),
    (-1, NOT_FILE_A),
    (10, DIAGONAL[10]),
    (8, DIAGONAL[8]),
    (-8, DIAGONAL[-8]),
    (-10, DIAGONAL[-10]),
)
"""Every direction a guard steps in, with the points that have a line that way."""

PRIVATE_STEPS: Final = (
    ((SIZE, FULL), (1, NOT_FILE_I), (-1, NOT_FILE_A)),
    ((-SIZE, FULL), (1, NOT_FILE_I), (-1, NOT_FILE_A)),
)
"""For each side, the directions a private steps in: forward and sideways."""


def _jump_table(
    directions: tuple[tuple[int, int], ...],
) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """For each point, the jumps ``(over bit, landing point, landing bit)`` in these directions."""
    table = []
    for point in range(81):
        file, rank = point % SIZE, point // SIZE
        jumps = []
        for df, dr in directions:
            lf, lr = file + 2 * df, rank + 2 * dr
            if 0 <= lf < SIZE and 0 <= lr < SIZE:
                over = (rank + dr) * SIZE + file + df
                land = lr * SIZE + lf
                if land != CENTER:
                    jumps.append((1 << over, land, 1 << land))
        table.append(tuple(jumps))
    return tuple(table)


GUARD_JUMPS: Final = _jump_table(((0, 1), (0, -1), (1, 0), (-1, 0)))
PRIVATE_JUMPS: Final = (
    _jump_table(((0, 1), (1, 0), (-1, 0))),
    _jump_table(((0, -1), (1, 0), (-1, 0))),
)

DIAGONAL_ANY: Final = DIAGONAL[10] | DIAGONAL[8] | DIAGONAL[-8] | DIAGONAL[-10]


def bits(bitboard: int) -> list[int]:
    """The points of a bitboard, lowest first."""
    points = []
    while bitboard:
        low = bitboard & -bitboard
        points.append(low.bit_length() - 1)
        bitboard ^= low
    return points


def jump_exists(side: int, guards: int, privates: int, enemy: int, empty: int) -> bool:
    """Whether a soldier of ``side`` can jump an enemy: an enemy next to it along a line it may
    jump on, and an empty point straight beyond (guards: four ways; privates: forward, sideways)."""
    sideways = guards | privates
    east = ((sideways & NOT_FILE_I) << 1) & enemy
    west = ((sideways & NOT_FILE_A) >> 1) & enemy
    if side:
        forward = (sideways >> SIZE) & enemy
        backward = (guards << SIZE) & enemy
        return bool(
            (
                ((east & NOT_FILE_I) << 1)
                | ((west & NOT_FILE_A) >> 1)
                | (forward >> SIZE)
                | (backward << SIZE)
            )
            & empty
        )
    forward = (sideways << SIZE) & enemy
    backward = (guards >> SIZE) & enemy
    return bool(
        (
            ((east & NOT_FILE_I) << 1)
            | ((west & NOT_FILE_A) >> 1)
            | (forward << SIZE)
            | (backward >> SIZE)
        )
        & empty
    )


def any_jump(pieces: int, enemy: int, empty: int, directions: tuple[tuple[int, int], ...]) -> bool:
    """Whether any of ``pieces`` can jump an enemy in one of the (orthogonal) directions."""
    for delta, source in directions:
        if delta > 0:
            over = ((pieces & source) << delta) & enemy
            if ((over & source) << delta) & empty:
                return True
        else:
            over = ((pieces & source) >> -delta) & enemy
            if ((over & source) >> -delta) & empty:
                return True
    return False


def collect_jumps(
    point: int,
    path: tuple[int, ...],
    captured: int,
    enemy: int,
    empty: int,
    table: tuple[tuple[tuple[int, int, int], ...], ...],
    promotion_rank: int,
    found: list[RawMove],
) -> None:
    """Add every complete capture sequence continuing from ``point`` to ``found``.

    Jumped pieces leave the board at once, so their points become landable and they cannot be
    jumped again; the mover's start point is empty, so a sequence may come back through it.
    """
    extended = False
    for over_bit, land, land_bit in table[point]:
        if enemy & over_bit and empty & land_bit:
            extended = True
            longer = (*path, land)
            if land_bit & promotion_rank:
                found.append((path[0], land, captured | over_bit, longer))
            else:
                collect_jumps(
                    land,
                    longer,
                    captured | over_bit,
                    enemy ^ over_bit,
                    empty | over_bit,
                    table,
                    promotion_rank,
                    found,
                )
    if not extended and captured:
        found.append((path[0], point, captured, path))
