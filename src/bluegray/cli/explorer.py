"""``bluegray explorer``: the web app's opening explorer, filled from the games already stored
(``fill``), and its book of engine games made (``book``)."""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Final

from bluegray.cli.common import EXIT_OK, console, fail, with_web_extra

HELP = "the web app's opening explorer: fill it, make its book of engine games"

DESCRIPTION = """\
The opening explorer shows, for a position under a preset rule set, the moves played from it in
the site's rated games between people and in a book of engine games shipped with bluegray.

'fill' loads the shipped books (a book already loaded is skipped unless its file changed) and
counts the finished rated games already stored that are not counted yet: run it twice, the
second run adds nothing. 'bluegray db upgrade' does the same after upgrading the schema; games
that end later are counted as they end.

'book' plays engine games (both sides at one level, each game from a few random moves, so that
games differ) and writes the book file of a rule set: the first 30 moves and the result of each
game, gzipped JSON.
"""

EPILOG = """\
examples:
  bluegray explorer fill
  bluegray explorer fill --database-url postgresql://bg:secret@db/bluegray
  bluegray explorer book --rules sackson --games 1000 --processes 2
"""

BOOK_LEVEL: Final = 1
BOOK_MAX_PLIES: Final = 1000
"""A match's cap: the games end by the rules long before (level-1 games run 200 to 450 plies in
``sackson``; a lower cap adjudicated most of them drawn)."""
OPENING_PLIES: Final = (2, 6)
"""Each game starts with 2 to 6 random moves, so that the games differ."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "explorer",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="explorer_command", metavar="COMMAND", required=True)
    fill = commands.add_parser(
        "fill",
        help="count the stored games not counted yet and load the shipped books",
        description="Count the finished rated games already stored that are not counted yet, "
        "and load the shipped books that are not loaded yet.",
    )
    fill.add_argument(
        "--database-url",
        metavar="URL",
        help="SQLAlchemy database URL (default: BLUEGRAY_DATABASE_URL, else the SQLite file in "
        "the user data directory)",
    )
    fill.set_defaults(run=run_fill)
    book = commands.add_parser(
        "book",
        help="play engine games and write a rule set's book file",
        description="Play engine games under a preset rule set and write its book file.",
    )
    book.add_argument("--rules", required=True, metavar="NAME", help="a preset rule set")
    book.add_argument("--games", type=int, default=1000, help="how many games (default 1000)")
    book.add_argument(
        "--level", type=int, default=BOOK_LEVEL, help=f"the engine's level (default {BOOK_LEVEL})"
    )
    book.add_argument("--seed", type=int, default=1, help="the random openings' seed (default 1)")
    book.add_argument("--processes", type=int, default=1, help="games played at once (default 1)")
    book.add_argument(
        "--output",
        type=Path,
        metavar="FILE",
        help="where to write it (default: the shipped book of the rule set, in the package)",
    )
    book.set_defaults(run=run_book)


def run_fill(args: argparse.Namespace) -> int:
    extra = with_web_extra("web_extra", "the explorer needs")
    return int(extra.explorer_fill(args))


def _book_game(task: tuple[str, int, int]) -> tuple[list[str], str]:
    """One book game: (rules, level, seed) → its moves and result."""
    from bluegray.engine.games import play_game  # noqa: PLC0415 - in the engine's processes
    from bluegray.engine.players import player_from_spec  # noqa: PLC0415
    from bluegray.engine.simulation import random_walk  # noqa: PLC0415
    from bluegray.rules import rules_by_name  # noqa: PLC0415

    rules, level, seed = task
    rng = random.Random(seed)
    opening = None
    while opening is None:
        opening = random_walk(rules_by_name(rules), rng, rng.randint(*OPENING_PLIES))
    result = play_game(
        player_from_spec(f"level:{level}", seed=seed),
        player_from_spec(f"level:{level}", seed=seed + 1),
        rules,
        opening,
        max_plies=BOOK_MAX_PLIES,
    )
    return [str(move) for move in result.moves], result.result


def run_book(args: argparse.Namespace) -> int:
    from bluegray.rules import PRESETS  # noqa: PLC0415
    from bluegray.web.explorer.book import encode_book, shipped_path  # noqa: PLC0415

    if args.rules not in PRESETS:
        fail(f"--rules must be a preset rule set ({', '.join(PRESETS)}), not {args.rules!r}")
    if not 1 <= args.games <= 100_000:
        fail(f"--games must be 1 to 100000, not {args.games}")
    if not 1 <= args.level <= 8:
        fail(f"--level must be 1 to 8, not {args.level}")
    if not 1 <= args.processes <= 64:
        fail(f"--processes must be 1 to 64, not {args.processes}")
    output = args.output or shipped_path(args.rules)
    tasks = [
        (args.rules, args.level, args.seed * 1_000_003 + 2 * index) for index in range(args.games)
    ]
    started = time.perf_counter()
    games = []
    step = max(1, len(tasks) // 20)  # a line on standard error every 5% of the games
    with ProcessPoolExecutor(args.processes) as pool:
        for game in pool.map(_book_game, tasks):
            games.append(game)
            if len(games) % step == 0 or len(games) == len(tasks):
                spent = time.perf_counter() - started
                left = spent / len(games) * (len(tasks) - len(games))
                print(
                    f"bluegray: {len(games)}/{len(tasks)} games of {args.rules}, "
                    f"{spent:.0f} s, about {left:.0f} s left",
                    file=sys.stderr,
                    flush=True,
                )
    seconds = time.perf_counter() - started
    data = encode_book(args.rules, f"level:{args.level} against itself", games)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(data)
    console.print(
        f"bluegray: {len(games)} games of {args.rules} in {seconds:.0f} s "
        f"({seconds / len(games):.2f} s a game), {len(data):,} bytes written to {output}"
    )
    return EXIT_OK
