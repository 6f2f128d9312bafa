"""``bluegray match``: play two players against each other and report the score, the Elo
difference and, if asked, an SPRT verdict."""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from bluegray.cli.common import EXIT_OK, console, error_console, fail
from bluegray.engine.journal import MatchJournal, run_journaled
from bluegray.engine.limits import Limits
from bluegray.engine.match import (
    DEFAULT_MAX_PLIES,
    MatchGame,
    MatchSettings,
    MatchSummary,
    default_concurrency,
    run_match,
)
from bluegray.engine.openings import DEFAULT_PLIES
from bluegray.engine.player import (
    MAX_MOVE_SECONDS,
    InvalidPlayerError,
    Player,
    PlayerKind,
    register_player,
)
from bluegray.engine.players import (
    GreedyPlayer,
    RandomPlayer,
    SearchPlayer,
    player_from_spec,
    spec_help,
)
from bluegray.engine.stats import MatchStats, Tally
from bluegray.engine.time_manager import InvalidClockError, TimeControl
from bluegray.numerals import MAX_INT64
from bluegray.protocol import player as engine_player  # noqa: F401 - registers engine: players
from bluegray.record import write_records
from bluegray.rules import PRESETS, RuleSet

EXIT_INTERRUPTED = 130


def network_player(spec: str, seed: int) -> Player:
    """A ``network:FILE`` player (``bluegray.rl.network_player``), whose numpy is loaded only
    when one plays, so that the command starts without it."""
    try:
        from bluegray.rl import network_player as network  # noqa: PLC0415 - numpy, the rl extra
    except ImportError:
        raise InvalidPlayerError(
            f'invalid player {spec!r}: the network player needs numpy: pip install "bluegray[rl]"'
        ) from None
    return network.network_player(spec, seed)


register_player(
    PlayerKind(
        "network",
        network_player,
        "network:FILE.npz (a policy/value network trained by examples/self_play.py)",
    )
)

HELP = "play a match between two players and report the score, Elo difference and SPRT"

DESCRIPTION = f"""\
Play GAMES games between PLAYER_A and PLAYER_B in pairs: both games of a pair start from the
same balanced random opening (a few random plies that a shallow search finds even), A playing
Blue in the first and Gray in the second. Games run in parallel worker processes; each has its
own seeds derived from --seed and its number, so a match limited by --nodes is reproducible.

players: {spec_help()}

Scoring: win 1, draw 1/2, loss 0, for player A. With --sackson-scoring a game won by an
impasse (captain farther advanced: Sackson's rules) counts as half a game, as Sackson scored
his series: the winner gets 3/4 and the loser 1/4. The two still add up to 1 (so the score
converts to Elo as usual) and the winner's margin is half that of a full win.

The Elo difference is A's over B (logistic), with a 95% interval from the per-game score's
standard error; at a score of 0% or 100% the open side is infinite (null in --json).
--sprt ELO0,ELO1 runs the generalized SPRT (alpha = beta = 0.05) of H0 "A is ELO0 stronger"
against H1 "A is ELO1 stronger", and stops the match once either is accepted (checked after
whole pairs, in game order). A game still going after --max-plies plies is a draw
('max-plies'). Ctrl-C stops the match and reports the games finished so far (exit code 130).

With --clock each side plays the whole game on its own clock instead of a time a move: a move
that takes longer than its clock has left loses the game on time ('time'), and the report
counts each player's flags.
"""

EPILOG = """\
examples:
  bluegray match level:2 greedy --rules cooper --games 8
  bluegray match level:6 level:5 --games 200 --nodes 20000 --out games.pgn --sprt 0,50
  bluegray match level:5 random --games 20 --sackson-scoring --json
  bluegray match level:8 mcts --games 100 --time 1 --cluster 10.0.0.5:6379
  bluegray match level:8 "engine:bluegray engine" --games 100 --clock 1+0 --concurrency 4
  BLUEGRAY_PROGRESS=1 nohup bluegray match level:8 level:7 --games 400 --json > out.json 2> log &
  bluegray match level:8 level:7 --games 400 --time 1 --journal l8-l7.jsonl   # again: goes on

A progress bar shows on a terminal; in the background, BLUEGRAY_PROGRESS=1 writes a line to
standard error after each game instead: the score, the SPRT's log-likelihood ratio, the time so
far and about how long is left.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "match",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("player_a", metavar="PLAYER_A", help="the first player's spec")
    parser.add_argument("player_b", metavar="PLAYER_B", help="the second player's spec")
    parser.add_argument(
        "--rules",
        "-r",
        default="sackson",
        metavar="NAME",
        help="rule set: one of "
        + ", ".join(PRESETS)
        + "; or settings like 'cooper impasse-plies=50' (default: sackson)",
    )
    parser.add_argument("--games", "-n", type=int, required=True, metavar="N", help="games")
    parser.add_argument(
        "--time",
        type=float,
        metavar="SECONDS",
        help="seconds per move for both players (at most 86400; levels 1-5 keep their fixed "
        "depth, random and greedy do not search)",
    )
    parser.add_argument(
        "--nodes", type=int, metavar="N", help="search nodes per move (same players as --time)"
    )
    parser.add_argument(
        "--clock",
        metavar="MIN+INC",
        help="give each side a game clock instead of a time a move: MIN minutes for the whole "
        "game, plus INC seconds after each of its moves (1+0: a minute each; 3+2; 0.5+0.1). A "
        "player whose clock runs out loses the game ('time'), and the report counts the flags. "
        "Levels 6-8 share their clock out with the engine's time manager, engine: players get "
        "both clocks through the protocol (go btime/gtime/binc/ginc), levels 1-5 keep their "
        "fixed depth; not with --time or --nodes",
    )
    parser.add_argument(
        "--concurrency",
        "-j",
        type=int,
        metavar="K",
        help="games played at once, in worker processes (default: the number of CPUs)",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the games on a Ray cluster, spread over every CPU of every node (the head's "
        "HOST:PORT from 'ray start --head', or auto; needs the cluster extra, and bluegray on "
        "every node); the same seed and --nodes give the same games as a local run",
    )
    parser.add_argument("--out", "-o", type=Path, metavar="FILE", help="write the game records")
    parser.add_argument(
        "--journal",
        type=Path,
        metavar="FILE",
        help="write each game to FILE as it finishes; run the same command again with the same "
        "FILE and the match goes on where it stopped (Ctrl-C, a kill, a reboot): the games "
        "already in FILE are not played again, and count in the report, the records and the "
        "SPRT. A FILE of another match (other players, rules, limits, seed, ...) is refused",
    )
    parser.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        help="run the SPRT and stop once it is decided (a negative ELO0: --sprt=-10,10)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the summary as one JSON object, nothing else"
    )
    parser.add_argument(
        "--sackson-scoring",
        action="store_true",
        help="a game won by an impasse scores 3/4 to the winner, 1/4 to the loser",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="match seed (default 0)")
    parser.add_argument(
        "--opening-plies",
        default=f"{DEFAULT_PLIES[0]}-{DEFAULT_PLIES[1]}",
        metavar="P",
        help="random plies of each book opening: N or MIN-MAX; 0 starts every game from the "
        "start (default: %(default)s)",
    )
    parser.add_argument(
        "--max-plies",
        type=int,
        default=DEFAULT_MAX_PLIES,
        metavar="N",
        help="adjudicate a game still going after N plies as a draw (default: %(default)s)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    _check_out(args.out)
    journal = None if args.journal is None else MatchJournal(args.journal, settings).open()
    done = {} if journal is None else dict(journal.games)
    if done:  # on standard error, with --json too (as the progress lines are)
        error_console.print(
            Text(
                f"bluegray: {len(done)} of the {settings.games} games read from the journal "
                f"{args.journal}"
            ),
            soft_wrap=True,
        )
    try:
        with _ProgressBar(settings, enabled=not args.json, done=len(done)) as progress:
            if journal is None:
                summary = run_match(settings, progress.update)
            else:
                summary = run_journaled(settings, journal, progress.update)
    finally:
        if journal is not None:
            journal.close()
    if args.out is not None:
        _write(args.out, summary)
    if args.json:
        print(json.dumps(summary.to_json(), allow_nan=False))
    else:
        print_summary(summary, out=args.out)
    return EXIT_INTERRUPTED if summary.interrupted else EXIT_OK


def settings_from(args: argparse.Namespace) -> MatchSettings:
    """The match the options describe, every bad value a one-line error."""
    rules = RuleSet.parse(args.rules or "sackson")
    if args.games < 1:
        fail(f"--games must be at least 1, not {args.games}")
    if args.time is not None and args.nodes is not None:
        fail("give --time or --nodes, not both")
    clock = None
    if args.clock is not None:
        if args.time is not None or args.nodes is not None:
            fail("give --clock or a limit a move (--time, --nodes), not both")
        try:
            clock = TimeControl.parse(args.clock)
        except InvalidClockError as error:
            fail(f"--clock: {error}")
    if args.time is not None and not 0 < args.time <= MAX_MOVE_SECONDS:
        fail(
            f"--time must be a positive number of seconds, at most {MAX_MOVE_SECONDS:g}, "
            f"not {args.time:g}"
        )
    if args.nodes is not None and not 1 <= args.nodes <= MAX_INT64:
        fail(f"--nodes must be at least 1 and at most {MAX_INT64}, not {args.nodes}")
    if args.concurrency is not None and args.concurrency < 1:
        fail(f"--concurrency must be at least 1, not {args.concurrency}")
    if args.cluster is not None and args.concurrency is not None:
        fail("give --cluster or --concurrency, not both: a cluster plays on all its CPUs")
    if args.cluster is not None and not args.cluster.strip():
        fail("--cluster needs the cluster's address (HOST:PORT, or auto)")
    if args.max_plies < 1:
        fail(f"--max-plies must be at least 1, not {args.max_plies}")
    for spec in (args.player_a, args.player_b):
        _check_player(spec)
    limits = None
    if args.time is not None or args.nodes is not None:
        limits = Limits(nodes=args.nodes, time=args.time)
    concurrency = args.concurrency or default_concurrency(args.games)
    return MatchSettings(
        player_a=args.player_a.strip(),
        player_b=args.player_b.strip(),
        rules=rules,
        games=args.games,
        limits=limits,
        clock=clock,
        concurrency=min(concurrency, args.games),
        seed=args.seed,
        opening_plies=_plies(args.opening_plies),
        max_plies=args.max_plies,
        sackson_scoring=args.sackson_scoring,
        sprt=None if args.sprt is None else _sprt(args.sprt),
        cluster=None if args.cluster is None else args.cluster.strip(),
    )


def _check_player(spec: str) -> None:
    """Make the player once here, so that a bad spec is an error before any game starts."""
    try:
        player = player_from_spec(spec)
    except ImportError as error:
        fail(f"player {spec!r} is not available: {error}")
    player.close()


def _plies(text: str) -> tuple[int, int]:
    low, sep, high = text.partition("-")
    try:
        plies = (int(low), int(high if sep else low))
    except ValueError:
        fail(f"--opening-plies must be N or MIN-MAX, not {text!r}")
    if not 0 <= plies[0] <= plies[1]:
        fail(f"--opening-plies {text!r}: expected 0 <= MIN <= MAX")
    return plies


def _sprt(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        elo0, elo1 = (float(part) for part in parts)
    except ValueError:
        fail(f"--sprt must be ELO0,ELO1 (two numbers), not {text!r}")
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        fail(f"--sprt {text!r}: ELO0 must be below ELO1")
    return elo0, elo1


def _check_out(path: Path | None) -> None:
    """Check that the records file can be written before hours of games go into it."""
    if path is None:
        return
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as error:
        fail(f"cannot write {path}: {error.strerror}")


def _write(path: Path, summary: MatchSummary) -> None:
    try:
        path.write_text(write_records(summary.records()), encoding="utf-8")
    except OSError as error:
        fail(f"cannot write {path}: {error.strerror}")


PROGRESS_VARIABLE = "BLUEGRAY_PROGRESS"
"""Set (to anything but empty), a match whose standard error is not a terminal (run in the
background, its output in a file) writes a line there after each game."""


class _ProgressBar:
    """A Rich progress bar on stderr: games done, A's score so far, elapsed time and ETA; on a
    standard error that is no terminal, with ``BLUEGRAY_PROGRESS`` set, a line after each game."""

    def __init__(self, settings: MatchSettings, *, enabled: bool, done: int = 0) -> None:
        self.settings = settings
        self.done = done  # games played before (a journal's): the bar starts there
        self.lines = bool(os.environ.get(PROGRESS_VARIABLE)) and not error_console.is_terminal
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("games"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=error_console,
            disable=not enabled or not error_console.is_terminal,
            transient=True,
        )
        self.task: TaskID | None = None
        self.started = time.monotonic()

    def __enter__(self) -> _ProgressBar:
        self.progress.start()
        self.task = self.progress.add_task(
            self._describe(None), total=self.settings.games, completed=self.done, start=True
        )
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def update(self, game: MatchGame, stats: MatchStats) -> None:
        if self.task is not None:
            self.progress.update(
                self.task, completed=stats.games, description=self._describe(stats)
            )
        if self.lines:
            line = f"{stats.games} of {self.settings.games} games: {self._describe(stats)}"
            if stats.sprt is not None:
                sprt = stats.sprt
                line += f"; SPRT LLR {sprt.llr:.2f} ({sprt.lower:.2f} to {sprt.upper:.2f})"
            played = stats.games - self.done
            elapsed = time.monotonic() - self.started
            line += f"; {pace(self.settings, stats.games, played, elapsed)}"
            error_console.print(Text(line), soft_wrap=True)

    def _describe(self, stats: MatchStats | None) -> str:
        a = self.settings.player_a
        if stats is None:
            return f"{a}: starting"
        return f"{a}: {stats.points:g}/{stats.games} {stats.a}"


def pace(settings: MatchSettings, done: int, played: int, elapsed: float) -> str:
    """How long a match with ``done`` games finished has run, and about how long it has to go
    at the pace of the ``played`` games of ``elapsed`` seconds (this run's: a journal's earlier
    games took none of it); with an SPRT, when its last planned game would end, as it may stop
    sooner."""
    text = f"{timedelta(seconds=round(elapsed))} so far"
    if played <= 0:
        return text
    left = max(settings.games - done, 0) * elapsed / played
    text += f", about {timedelta(seconds=round(left))} to go"
    return text + (" at most (the SPRT may stop it sooner)" if settings.sprt is not None else "")


def describe_limits(settings: MatchSettings) -> str:
    """What each move may use, in words: the match's limits, and the players that do not
    follow them (a weaker level's fixed depth, a player that does not search)."""
    limits = settings.limits
    if settings.clock is not None:
        clock = settings.clock
        text = f"a clock of {clock.minutes:g} min + {clock.increment:g} s a move each"
        limits = Limits(time=clock.seconds)  # a clock spends time, as a time a move does
    elif limits is None:
        return "each player's own limits"
    elif limits.nodes is not None:
        text = f"{limits.nodes} nodes a move"
    else:
        text = f"{limits.time:g} s a move"
    exceptions = []
    for spec in dict.fromkeys((settings.player_a, settings.player_b)):
        own = _own_limits(spec, limits)
        if own is not None:
            exceptions.append(f"{spec} {own}")
    return text if not exceptions else f"{text}, except {' and '.join(exceptions)}"


def _own_limits(spec: str, limits: Limits) -> str | None:
    """How a player spends its moves when it does not follow the match's ``limits``, else
    ``None``. An engine is sent the limits, and what it does with them is its own affair."""
    if spec.startswith("engine:"):
        return None
    player = player_from_spec(spec, seed=0)
    try:
        if isinstance(player, (RandomPlayer, GreedyPlayer)):
            return "(no search)"
        if isinstance(player, SearchPlayer):
            depth = player.limits(limits).depth
            if player.config.fixed_depth and depth is not None:
                return f"(its level's fixed depth, {depth} {'ply' if depth == 1 else 'plies'})"
        return None
    finally:
        player.close()


def print_summary(summary: MatchSummary, *, out: Path | None = None) -> None:
    """The match report, for people."""
    settings, stats = summary.settings, summary.stats
    a, b = settings.player_a, settings.player_b
    per_move = describe_limits(settings)
    console.print(
        Text(
            f"{a} vs {b}, rules {settings.rules}: {stats.games} games, {per_move}, "
            f"seed {settings.seed}, {summary.seconds:.1f} s"
        )
    )
    width = max(len(a), len(b))
    for name, tally, points, blue, gray in (
        (a, stats.a, stats.points, stats.a_as_blue, stats.a_as_gray),
        (
            b,
            stats.b,
            stats.games - stats.points,
            stats.a_as_gray.mirrored(),
            stats.a_as_blue.mirrored(),
        ),
    ):
        share = points / stats.games if stats.games else 0.5
        console.print(
            Text(
                f"  {name:<{width}}  {tally}  {points:g}/{stats.games} ({share:.1%})  "
                f"as Blue {blue}, as Gray {gray}"
            )
        )
    if settings.sackson_scoring:
        console.print(
            f"  Sackson scoring: impasse wins {stats.impasse_wins_a} for A, "
            f"{stats.impasse_wins_b} for B, each 3/4 to the winner"
        )
    elo = stats.elo
    console.print(
        Text(
            f"Elo difference ({a} over {b}): {_elo(elo.elo)}  "
            f"95% interval [{_elo(elo.low)}, {_elo(elo.high)}]"
        )
    )
    console.print(f"Blue (moving first) scored {_blue_share(stats.blue)}")
    reasons = ", ".join(f"{reason} {count}" for reason, count in stats.reasons.items())
    console.print(f"Endings: {reasons or 'none'}; average length {stats.average_plies:.1f} plies")
    if settings.clock is not None:
        flags_a, flags_b = summary.flags
        console.print(
            Text(f"Flags (games lost on time): {flags_a + flags_b}: {a} {flags_a}, {b} {flags_b}")
        )
    sprt = stats.sprt
    if sprt is not None:
        console.print(
            f"SPRT elo0={sprt.elo0:g} elo1={sprt.elo1:g} (alpha={sprt.alpha:g}, beta="
            f"{sprt.beta:g}): LLR {sprt.llr:.2f}, bounds [{sprt.lower:.2f}, {sprt.upper:.2f}]: "
            f"{sprt.verdict}"
        )
    if summary.stopped_early:
        console.print(f"Stopped early after {stats.games} games: the SPRT reached a bound.")
    if summary.interrupted:
        console.print(f"Interrupted: {stats.games} of {settings.games} games finished.")
    if out is not None:
        console.print(Text(f"Wrote {len(summary.games)} games to {out}"))


def _elo(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


def _blue_share(tally: Tally) -> str:
    games = tally.games
    share = (tally.wins + tally.draws / 2) / games if games else 0.5
    return f"{tally} ({share:.1%})"
