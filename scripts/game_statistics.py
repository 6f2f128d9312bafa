"""What the game itself looks like in self-play: who wins, how long games last, how they end.

    python scripts/game_statistics.py [RECORDS...] [--write]

Reads self-play records (by default the equal-strength ones, ``data/selfplay/RULES.pgn``, as
written by ``scripts/tune_evaluation.py generate``) and prints, per rule set: Blue's (the first
player's) score and win/draw/loss rates with a 95% interval, game lengths, and the endings.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bluegray.engine import ENGINE_VERSION
from bluegray.record import read_records
from bluegray.rules import PRESETS

REPOSITORY = Path(__file__).resolve().parents[1]
DATA = REPOSITORY / "data" / "selfplay"
PAGE = REPOSITORY / "docs" / "game-statistics.md"
INTRODUCTION = """\
# What the game looks like

How do games of Blue and Gray go between competent players? These figures come from self-play:
{engines} against itself at {players}, from the match runner's book of balanced random openings
(each opening once with each colour), {games} distinct games in all: a player that always makes
the same move in the same position, meeting itself, plays the same game from an opening with
either colour, and such a game is counted once. Reproduce them with

    python scripts/tune_evaluation.py generate --games 300 --nodes 2000
    python scripts/game_statistics.py --write

Blue moves first. *Blue's score* counts a draw as half a win, with a 95% interval; a fair game
scores 0.50. *Plies* are single moves (Blue's or Gray's). An ending by `repetition`,
`no-progress` or (under Sackson's rules) `stalemate` is an impasse: a draw everywhere but in
`sackson`, where the captain farther along its path wins it.

"""
OBSERVATIONS = """
What stands out (engine 2's games; the observations are written by hand, so re-read them when
the table changes):

- **Sackson's game favours Blue.** Moving first is worth a clear edge under Sackson's rules
  (the only rule set where impasses are decided, by advancement): Blue's captain gets going first
  and keeps the lead that decides the impasse.
- **`super` favours Gray here, and that is not settled.** Gray scored 0.72 in `super` with
  engine 2, where engine 1 at the same 2,000 positions a move scored 0.51 for Gray over the same
  kind of openings, and the other rule sets with privates are fair within the error. Whether
  the stronger engine has found a real advantage for the second player in `super`, or plays one
  colour worse there, is not known yet: read it as a question, not a fact about the game. The
  MCTS player against itself leans the same way within a wide error: Blue scored 0.43 in 40
  games (`bluegray match mcts:iterations=300 mcts:iterations=300 --rules super --games 40
  --seed 1 --json`, its `blue` field).
- **The guard games draw.** With guards on both sides and impasses scored as draws (`cooper`,
  `classic`, the turbo `classic` games, `pow-classic`), 70-85% of the games are drawn, most by
  the no-progress rule: each side can block the other's captain for ever. Cooper's lead rule
  settles a quarter of them.
- **Privates make decisive games.** Privates cannot step back, so blockades dissolve: over
  three in four games of `super` and its light and turbo forms end by the lead rule or at the
  centre.
- **POW captains race where privates defend.** Starting behind enemy lines, turbo captains
  reach the centre in half the `pow-super` games and most `pow-super-light` ones; against
  guards (`pow-classic`) most games are drawn. `pow-super` games are the longest: a fifth of
  them reach the match runner's cap of 1,000 plies and are scored as draws (`adjudicated`).
"""


@dataclass
class RuleSetStatistics:
    """The tallies of one rule set's self-play games."""

    rules: str
    blue: int = 0
    gray: int = 0
    draws: int = 0
    plies: list[int] = field(default_factory=list)
    endings: Counter[str] = field(default_factory=Counter)
    players: set[str] = field(default_factory=set)
    engines: set[str] = field(default_factory=set)
    """Which engines played (``ENGINE_VERSION``, from the Event tag), ``?`` where unnamed."""

    @property
    def games(self) -> int:
        return self.blue + self.gray + self.draws

    @property
    def blue_score(self) -> float:
        return (self.blue + 0.5 * self.draws) / self.games

    @property
    def blue_score_margin(self) -> float:
        """Half the width of the 95% interval of Blue's score (normal approximation)."""
        mean = self.blue_score
        variance = (
            self.blue * (1 - mean) ** 2 + self.gray * mean**2 + self.draws * (0.5 - mean) ** 2
        ) / self.games
        return 1.96 * math.sqrt(variance / self.games)


def tally(paths: list[Path]) -> dict[str, RuleSetStatistics]:
    """Each rule set's distinct games: a deterministic player that meets itself plays the same
    game from an opening with either colour, and that game is one observation, not two."""
    found: dict[str, RuleSetStatistics] = {}
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    for path in paths:
        for record in read_records(path.read_text(encoding="utf-8")):
            rules = record.tags.get("Rules", "sackson")
            game = (rules, str(record.game.start), tuple(map(str, record.game.moves)))
            if game in seen:
                continue
            seen.add(game)
            entry = found.setdefault(rules, RuleSetStatistics(rules))
            entry.players.add(record.tags.get("Blue", "?"))
            named = re.search(r"engine (\d+)", record.tags.get("Event", ""))
            entry.engines.add(named.group(1) if named else "?")
            result = record.tags.get("Result")
            if result == "1-0":
                entry.blue += 1
            elif result == "0-1":
                entry.gray += 1
            else:
                entry.draws += 1
            entry.plies.append(len(record.game.moves))
            ending = record.tags.get("Termination", "?")
            if record.tags.get("Adjudication"):
                ending = "adjudicated"
            entry.endings[ending] += 1
    return found


def table(found: dict[str, RuleSetStatistics]) -> str:
    lines = [
        "| rule set | games | Blue wins | draws | Gray wins | Blue's score | plies (median, "
        "middle half) | endings |",
        "|---|---|---|---|---|---|---|---|",
    ]
    order = list(PRESETS)
    for name, entry in sorted(found.items(), key=lambda item: order.index(item[0])):
        quartiles = statistics.quantiles(entry.plies, n=4) if len(entry.plies) > 1 else [0, 0, 0]
        endings = ", ".join(
            f"{reason} {100 * count / entry.games:.0f}%"
            for reason, count in entry.endings.most_common()
        )
        lines.append(
            f"| `{name}` | {entry.games} | {100 * entry.blue / entry.games:.0f}% | "
            f"{100 * entry.draws / entry.games:.0f}% | {100 * entry.gray / entry.games:.0f}% | "
            f"{entry.blue_score:.2f} ± {entry.blue_score_margin:.2f} | "
            f"{statistics.median(entry.plies):.0f} ({quartiles[0]:.0f}-{quartiles[2]:.0f}) | "
            f"{endings} |"
        )
    return "\n".join(lines)


def engines_played(found: dict[str, RuleSetStatistics]) -> str:
    """Which engine played the games, as the page's introduction names it: the engine's
    version (``bluegray.engine.ENGINE_VERSION``) from the records' Event tag, since the
    statistics describe the game as that engine plays it."""
    versions = sorted({version for entry in found.values() for version in entry.engines})
    named = [version for version in versions if version != "?"]
    if not named:
        return "the engine (its version not named in the records)"
    text = ("engines " if len(named) > 1 else "engine ") + " and ".join(named)
    text += f" (`bluegray.engine.ENGINE_VERSION`; engine {ENGINE_VERSION} shipped when this page"
    text += " was written: a later engine's games may differ)"
    return text + (", and engines not named in the records," if "?" in versions else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("records", nargs="*", type=Path, help="record files")
    parser.add_argument("--write", action="store_true", help=f"write {PAGE.name} in docs/")
    args = parser.parse_args()
    paths = args.records or sorted(p for p in DATA.glob("*.pgn") if p.name.count(".") == 1)
    if not paths:
        raise SystemExit(f"no records: give files, or generate them into {DATA}")
    found = tally(paths)
    print(table(found))
    players = sorted({player for entry in found.values() for player in entry.players})
    print(f"\nplayers: {', '.join(players)}")
    if args.write:
        games = sum(entry.games for entry in found.values())
        described = ", ".join(f"`{player}`" for player in players)
        engines = engines_played(found)
        page = INTRODUCTION.format(engines=engines, players=described, games=f"{games:,}")
        page += table(found)
        PAGE.write_text(page + "\n" + OBSERVATIONS, encoding="utf-8")
        print(f"wrote {PAGE}")


if __name__ == "__main__":
    main()
