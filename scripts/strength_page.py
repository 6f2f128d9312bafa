"""docs/strength.md from the recorded results (``strength_results.py``): the top level against
greedy and MCTS, the ladder at a glance, each rule set's ladder with the commands that play it
again and the ratings chained along it, and the other revisions of the levels.
"""

from __future__ import annotations

import math
from typing import Any, Final

from bluegray.engine import ENGINE_VERSION
from bluegray.engine.levels import LEVELS, TOP_LEVEL
from bluegray.engine.stats import H1_ACCEPTED
from bluegray.rules import PRESETS
from strength_results import (
    DECIDER_ELO,
    DECIDER_GAMES,
    PLAN_TEXT,
    REPOSITORY,
    draws_dominate,
    engine_of,
    is_decider,
    level_of,
    load,
    merged,
    planned,
    revisions,
    search_of,
    sentences,
    separated,
    shown_engine,
    superseded,
)

REPORT = REPOSITORY / "docs" / "strength.md"


def _span(levels: list[int]) -> str:
    """A run of levels as the report names it: ``1-6``."""
    return f"{min(levels)}-{max(levels)}"


FIXED_DEPTH: Final = _span([n for n in LEVELS if LEVELS[n].fixed_depth])
"""The levels that search to a fixed depth and now and then slip."""

TIMED: Final = _span([n for n in LEVELS if LEVELS[n].limits.time is not None])
"""The levels that search for a time a move."""

ENGINE_CHANGES: Final = {
    3: (
        "Engine 3 (2026-11-26) searches the same tree with either kernel, the compiled and the"
        " plain one: the compiled search lists moves in the rules core's order and its node"
        " limit counts as the plain one's, so it breaks ties between equally ordered moves"
        " differently from engine 2, and a fixed-depth level plays another move in about 3% of"
        " positions (3 of 90 sampled at depths 3-5)."
    ),
    4: (
        "Engine 4 (2026-11-27) corrects the linear evaluation with a network where a family"
        " ships one: `sackson`, `cooper` with `classic`, `super` and `pow-classic`"
        ' (docs/evaluation.md, "Engine 4\'s network"); the other rule sets play as engine 3 did.'
        " `classic-turbo`'s network has not passed its SPRT (undecided after 60 games, about +40"
        " Elo): that family keeps engine 3's evaluation, and its tables measure engine 4's search"
        " with engine 3's evaluation. On a clock engine 4 spends its time by a time manager"
        " (docs/engine.md); with a fixed time a move or depth, as in every match on this page, it"
        " keeps engine 3's rule: no new depth after 45% of the time."
    ),
}
"""What each engine changed, for the page (above its matches against earlier engines, or in
place of its tables while it has not been measured)."""

UNMEASURED: Final = (
    "Its ladders and its top level against greedy and MCTS are to be measured again"
    " (`ladder`, `versus`); until then the levels are stronger than these tables say."
)
"""What the page says of an engine whose ladder and versus results are not in yet."""

ENGINES: Final = {
    1: "bluegray 0.1.0's",
    2: "the pruning, 2026-11-25",
    3: "one search over two equal kernels, 2026-11-26",
    4: "the networks, 2026-11-27",
}
"""Each engine (``ENGINE_VERSION``) in a few words, for the tables that name it."""

MAIN_RULE_SETS: Final = ("sackson", "cooper", "super", "classic-turbo", "pow-classic")
"""The rule sets the report covers, in the order it shows them."""

TARGETS: Final = {"greedy": 0.95, "mcts": 0.75}
"""The score the top level should reach against each opponent."""

VERSUS_HEADER: Final = (
    "| rule set | player | opponent | engine | search | s/move | games | W-D-L | score "
    "| Elo (95% interval) |"
)

VERSUS_RULE: Final = "|---|---|---|---|---|---|---|---|---|---|"


def render() -> None:
    """Write docs/strength.md from every recorded result."""
    REPORT.write_text(page(merged(load())), encoding="utf-8")
    print(f"wrote {REPORT}")


def page(results: list[dict[str, Any]]) -> str:
    """The report's text from the merged results (``merged``)."""
    shown = shown_engine([r for r in results if r["kind"] != "engines"])
    lines = [
        "# Strength",
        "",
        "Measured with the match runner (`bluegray match`) on a shared 2-core machine; every match",
        "alternates colours over pairs of games from a book of balanced random openings. Elo",
        "differences come with 95% intervals. Reproduce any line with the command under its",
        "table, or all of them with `python scripts/strength_report.py ladder|versus` (results",
        "are kept in `docs/data/strength.json`; `render` rewrites this page from them; with",
        "`--journal DIR` a stopped run goes on where it was, game by game). Matches",
        "limited by time ran while other jobs used the same cores, so each side searched less",
        "than its nominal time would give on an idle machine (both sides alike). The search",
        "column says which kernel the engine searched with: `compiled` (the numba kernel, the",
        "default wherever numba is installed) or `python` (the plain kernel, before the",
        "compiled one existed or without numba); [benchmarks](benchmarks.md) gives their",
        "speeds. The engine column says which engine played: the tables show the current one",
        f"({ENGINE_VERSION}: `bluegray.engine.ENGINE_VERSION`, one more whenever a change to the",
        "search, the evaluation or the levels makes earlier results stale) and list earlier",
        "engines' results against greedy and MCTS apart. Engine 3's matches were played after",
        "the compiled kernel became about twice as fast (2026-11-26); the earlier engines' were",
        "played before it, so at the same time a move their levels saw about half as many",
        "positions.",
        "",
    ]
    if shown != ENGINE_VERSION:
        lines += [
            f"**Engine {ENGINE_VERSION} has not been measured yet**: the tables below are",
            f"engine {shown}'s, the latest measured. {ENGINE_CHANGES.get(ENGINE_VERSION, '')}",
            UNMEASURED,
            "",
        ]
    lines += _engines_section([r for r in results if r["kind"] == "engines"])
    versus_rows = [r for r in results if r["kind"] == "versus"]
    if versus_rows:
        lines += [
            "## The top level against greedy and MCTS",
            "",
            f"Level {TOP_LEVEL} (the strongest) at the given seconds per move against the one-ply",
            "greedy player and against the MCTS player given the same time per move. The",
            "targets: at least 95% against greedy and 75% against MCTS. In the rule sets with",
            "guards on both sides and impasses drawn (`cooper`, `classic`, the turbo `classic`",
            "games) strong play draws most games ([70-85% of self-play",
            "games](game-statistics.md)): a weaker player that keeps a guard on the captain's",
            "path can hold a draw by repetition or no progress, so scores there stay nearer 50%",
            "than the players' strengths alone would give.",
            "",
            *_verdicts(versus_rows, shown),
            VERSUS_HEADER,
            VERSUS_RULE,
        ]
        current, earlier = (
            sorted(rows, key=_versus_order) for rows in superseded(versus_rows, shown)
        )
        lines += [_versus_row(r) for r in current]
        noted = [r for r in current if r.get("note")]
        if noted:
            lines += ["", *(f"- `{r['rules']}` against `{r['b']}`: {r['note']}" for r in noted)]
        lines += ["", "Commands:", ""]
        lines += [f"    {command(r)}" for r in current]
        if earlier:
            lines += [
                "",
                f"Earlier engines ({_engines_named(earlier)}), the Python search's results only",
                "where that engine did not play the match with the compiled search:",
                "",
                VERSUS_HEADER,
                VERSUS_RULE,
                *(_versus_row(r) for r in earlier),
            ]
            noted = [r for r in earlier if r.get("note")]
            lines += ["", *(f"- `{r['rules']}` against `{r['b']}`: {r['note']}" for r in noted)]
        lines.append("")
    ladders = [r for r in results if r["kind"] == "ladder"]
    current_ids = {id(r) for r in superseded(ladders, shown)[0]}
    # The ladders show the current engine only, the baselines first, then up the levels.
    ladder_rows = sorted((r for r in ladders if id(r) in current_ids), key=_ladder_order)
    lines += _ladder_overview(ladder_rows, shown)
    for rules in sorted({r["rules"] for r in ladder_rows}, key=_rules_order):
        rows = [r for r in ladder_rows if r["rules"] == rules]
        lines += [
            f"## The level ladder: `{rules}`",
            "",
            "Each level against the one below it, each with its own search limits (levels "
            f"{FIXED_DEPTH}",
            f"a fixed depth with occasional mistakes, {TIMED} a time per move).",
            "",
            "| match | search | games | W-D-L | score | Elo difference (95% interval) |",
            "|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(f"| {_step_name(r)} | {search_of(r)} | " + _outcome_cells(r))
        noted = [r for r in rows if _notes(r)]
        if noted:
            lines += ["", *(f"- {_step_name(r)}: {_notes(r)}" for r in noted)]
        lines += ["", "Commands:", ""]
        lines += [f"    {command(r)}" for r in rows]
        chain = _chain([r for r in rows if not is_decider(r)])
        if chain:
            lines += [
                "",
                "Ratings chained along the ladder from level 1 = 0 (each step's interval adds",
                "up, so the top of the ladder is the least certain; after a step won without",
                "a loss or a draw the ratings are lower bounds, from the low end of its",
                "interval):",
                "",
                "| player | Elo | description |",
                "|---|---|---|",
            ]
            for name, elo, at_least in chain:
                level = level_of(name)
                text = LEVELS[level].description if level else name
                rating = f"at least {elo:+.0f}" if at_least else f"{elo:+.0f}"
                lines.append(f"| `{name}` | {rating} | {text} |")
        lines.append("")
    lines += _revised_levels(ladders, shown)
    return "\n".join(lines)


ENGINE_3_COMMIT: Final = "cb84620"
"""Engine 3: the commit issue 42 (engine 4) started from, tagged ``engine-3`` (a tag is no part of
a clone of main, so the page names the commit)."""


def _engines_section(rows: list[dict[str, Any]]) -> list[str]:
    """This engine against earlier ones, both over the engine protocol."""
    if not rows:
        return []
    lines = [
        f"## Engine {ENGINE_VERSION} against earlier engines",
        "",
        *([ENGINE_CHANGES[ENGINE_VERSION], ""] if ENGINE_VERSION in ENGINE_CHANGES else []),
        "Both engines as `engine:` players, each game in a fresh `bluegray engine` process",
        "(the compiled kernel loaded before `readyok`): this version's, and the earlier one's",
        "from an install of its tag, run with `BLUEGRAY_SEARCH=compiled`. Plain scoring. An",
        "SPRT (H0 against H1, alpha = beta = 0.05) stops once its games decide it, so its score",
        "is no estimate of the difference; a fixed match's is. Each engine had `Hash` at its",
        "default of the time, 64 MB counted at 256 bytes an entry: 262,144 entries on both sides.",
        "This version's `Hash` now counts the compiled table's 16 bytes a slot, and its default",
        "(16 MB) is 1,048,576 entries: to play these matches again with the tables they had, give",
        'it `Hash=4` (`bluegray match "engine:bluegray engine;Hash=4" ...`).',
        "",
        "| rule set | A | B | s a move | games | W-D-L | score | Elo (95% interval) | SPRT |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    ordered = sorted(rows, key=lambda r: (_rules_order(r["rules"]), r["time"] or 0, "sprt" in r))
    for r in ordered:
        sprt = r.get("sprt")
        verdict = (
            "—"
            if sprt is None
            else f"{sprt['elo0']:g},{sprt['elo1']:g}: {sprt['verdict']} (LLR {sprt['llr']:.2f})"
        )
        lines.append(
            f"| `{r['rules']}` | {r['a']} | {r['b']} | {_seconds(r['time'])} | "
            + _outcome_cells(r)
            + f" {verdict} |"
        )
    lines += [
        "",
        "Commands (`E3`: a virtual environment with engine 3 installed: the commit engine 4's work",
        f"started from, `{ENGINE_3_COMMIT}`, tagged `engine-3`: `git worktree add E3-SRC",
        f'{ENGINE_3_COMMIT} && python -m venv E3 && E3/bin/pip install -e "E3-SRC[fast]"`). A long',
        "match can be played in pieces: with `--journal DIR` the same command goes on where it",
        "stopped, from the games kept in `DIR` (`docs/data/journals/` holds the journals of the",
        "1 s matches, each game's opening and moves, finished or under way; a journal names its",
        "players' commands, so run it from the same paths).",
        "",
    ]
    for r in ordered:
        sprt = r.get("sprt")
        limit = (
            f"--games {r['games']}"
            if sprt is None
            else f"--sprt {sprt['elo0']:g},{sprt['elo1']:g} --games {r['games_planned']}"
        )
        lines.append(
            '    python scripts/strength_report.py engines --engine-3 "env BLUEGRAY_SEARCH=compiled'
            f' E3/bin/python -m bluegray engine" --rules {r["rules"]} --time {_seconds(r["time"])}'
            f" {limit} --seed {r.get('seed', 1)} --concurrency {r.get('concurrency', 1)}"
        )
    return [*lines, ""]


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def _ladder_overview(rows: list[dict[str, Any]], engine: int = ENGINE_VERSION) -> list[str]:
    """One table of every step of the ladder in every rule set: the higher level's score, and
    whether the games played show it stronger (the Elo interval's low end above 0)."""
    current, _ = superseded(rows, engine)
    found = {(r["rules"], r["a"], r["b"]): r for r in current if not is_decider(r)}
    deciders = {(r["rules"], r["a"], r["b"]): r for r in current if is_decider(r)}
    rule_sets = sorted({r["rules"] for r in current}, key=_rules_order)
    steps = [(f"level:{n + 1}", f"level:{n}") for n in range(1, TOP_LEVEL)]
    if not rule_sets:
        return []
    lines = [
        "## The level ladder at a glance",
        "",
        "Each level against the one below it, in each rule set: the higher level's score,",
        "✓ where it is clearly stronger (the 95% interval of the Elo difference lies above 0),",
        "≈ where the games played do not yet separate the two. Levels "
        f"{FIXED_DEPTH} search to a fixed",
        f"depth and now and then slip; levels {TIMED} search for a time a move. Where guards "
        "stand on",
        f"both sides and an impasse is a draw ({_drawn_rule_sets()}), many",
        "games between neighbouring levels are drawn, by the no-progress rule or repetition: the",
        "weaker level keeps a guard in the captain's path and the stronger cannot break through,",
        "so the scores there stay nearer 50% and need more games to separate. Games planned",
        f"for each step: {PLAN_TEXT}.",
        "Where a step's planned games left it ≈, one further seed was played and counted",
        "whatever it gave (the notes under each rule set's ladder say which). Where that",
        'still left it ≈, an SPRT over new games decides it: H0 "no stronger" '
        f"({DECIDER_ELO[0]:g} Elo) against",
        f'H1 "{DECIDER_ELO[1]:g} Elo stronger", alpha = beta = 0.05, at most {DECIDER_GAMES} '
        'games; "SPRT ✓" where it',
        "accepted H1, with the games it took in brackets.",
        "",
        "| step | " + " | ".join(f"`{rules}`" for rules in rule_sets) + " |",
        "|---|" + "---|" * len(rule_sets),
    ]
    clear = measured = 0
    for a, b in steps:
        cells = []
        for rules in rule_sets:
            r = found.get((rules, a, b))
            if r is None:
                cells.append("-")
                continue
            measured += 1
            cell = f"{100 * r['score']:.0f}% ({r['games']}) {'✓' if separated(r) else '≈'}"
            decider = deciders.get((rules, a, b))
            if decider is not None:
                mark = "✓" if _decided_stronger(decider) else "≈"
                cell += f", SPRT {mark} ({decider['games']})"
            clear += separated(r) or (decider is not None and _decided_stronger(decider))
            cells.append(cell)
        lines.append(f"| `{a}` vs `{b}` | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"In {clear} of the {measured} steps measured the higher level is clearly stronger",
        "(games played in brackets); the tables below give each match's wins, draws and losses",
        "and the commands to play it again.",
        "",
    ]
    return lines


def _revised_levels(ladders: list[dict[str, Any]], engine: int = ENGINE_VERSION) -> list[str]:
    """The current engine's ladder matches played by another revision of a level than the
    current one (an earlier one, or one tried and not kept): kept, so that what a change to a
    level did can be read against the levels as they are."""
    rows = sorted(
        (r for r in superseded(ladders, engine)[1] if engine_of(r) == engine),
        key=lambda r: (_rules_order(r["rules"]), _ladder_order(r)),
    )
    if not rows:
        return []
    lines = [
        "## Other revisions of the levels",
        "",
        f"Engine {engine}'s ladder matches played by a level with other settings than",
        "it has now: earlier ones, or ones tried and not kept (`LevelConfig.revision` in",
        "`bluegray.engine.levels`; the revision of each level that played is in brackets, and",
        "[the engine's page](engine.md#levels) says what each revision was). The ladders above",
        "do not count them.",
        "",
        "| rule set | match | games | W-D-L | score | Elo difference (95% interval) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        revision = {f"level:{level}": f" (rev. {rev})" for level, rev in revisions(r)}
        a, b = (f"`{spec}`{revision.get(spec, '')}" for spec in (r["a"], r["b"]))
        lines.append(f"| `{r['rules']}` | {_match_name(r, a, b)} | " + _outcome_cells(r))
    notes = dict.fromkeys(_notes(r) for r in rows if _notes(r))  # each once
    if notes:
        lines += ["", *(f"- {note}" for note in notes)]
    return [*lines, ""]


def _verdicts(rows: list[dict[str, Any]], engine: int = ENGINE_VERSION) -> list[str]:
    """One line per opponent: how many rule sets reach the target score (by the current
    results: the shown engine's, the compiled search's where a rule set has one)."""
    lines = []
    current, _ = superseded(rows, engine)
    for opponent, target in TARGETS.items():
        latest: dict[str, dict[str, Any]] = {}
        # One row per rule set: the compiled search's result where there is one.
        for r in current:
            if r["b"] != opponent or r["a"] != f"level:{TOP_LEVEL}":
                continue
            if r["rules"] not in latest or search_of(r) == "compiled":
                latest[r["rules"]] = r
        mine = list(latest.values())
        if not mine:
            continue
        reached = [r["rules"] for r in mine if r["score"] >= target]
        missed = [f"`{r['rules']}` ({100 * r['score']:.0f}%)" for r in mine if r["score"] < target]
        text = f"- Against `{opponent}`: {len(reached)} of {len(mine)} rule sets reach {target:.0%}"
        lines.append(text + (f"; below it: {', '.join(missed)}." if missed else "."))
    return [*lines, ""] if lines else []


def _versus_row(r: dict[str, Any]) -> str:
    return (
        f"| `{r['rules']}` | `{r['a']}` | `{r['b']}` | {engine_of(r)} | {search_of(r)} | "
        f"{r['time']:g} | " + _outcome_cells(r)
    )


def _outcome_cells(r: dict[str, Any]) -> str:
    """A match's last cells in every table: games, W-D-L, score and Elo with its interval."""
    return (
        f"{r['games']} | {r['wins']}-{r['draws']}-{r['losses']} | {100 * r['score']:.1f}% | "
        f"{_elo(r['elo'])} ({_elo(r['elo_low'])} to {_elo(r['elo_high'])}) |"
    )


def _drawn_rule_sets() -> str:
    """The main rule sets where draws dominate, as the report names them."""
    return ", ".join(f"`{name}`" for name in MAIN_RULE_SETS if draws_dominate(PRESETS[name]))


def _rules_order(rules: str) -> tuple[int, str]:
    known = MAIN_RULE_SETS.index(rules) if rules in MAIN_RULE_SETS else len(MAIN_RULE_SETS)
    return known, rules


def _versus_order(entry: dict[str, Any]) -> tuple[str, tuple[int, str], int, str]:
    """Where a match of the top level stands in its table: by opponent, then rule set in the
    report's order, the latest engine first."""
    return entry["b"], _rules_order(entry["rules"]), -engine_of(entry), entry["a"]


def _ladder_order(entry: dict[str, Any]) -> tuple[bool, int, bool, str, bool]:
    """Where a ladder match stands in its table: the matches against ``random`` and ``greedy``
    first, then each level against the one below, from the bottom up (a step's deciding SPRT
    after its planned games)."""
    level = level_of(entry["a"]) or 0
    return (
        entry["b"].startswith("level:"),
        level,
        entry["b"] != "random",
        entry["b"],
        is_decider(entry),
    )


def command(entry: dict[str, Any]) -> str:
    """The match runner's command lines that play a recorded match again (one per seed)."""
    limit = "" if entry["time"] is None else f" --time {entry['time']:g}"
    if is_decider(entry):
        elo0, elo1 = entry["sprt"]["elo0"], entry["sprt"]["elo1"]
        limit += f" --sprt {elo0:g},{elo1:g}"
        parts = [(entry.get("seed", 1), entry["games_planned"])]
    else:
        parts = entry.get("parts", [(entry.get("seed", 1), entry["games"])])
    return "\n    ".join(
        f"bluegray match {entry['a']} {entry['b']} --rules {entry['rules']} "
        f"--games {games}{limit} --seed {seed}"
        for seed, games in parts
    )


def _elo(value: float | None) -> str:
    if value is None or math.isinf(value):
        return "∞" if value is None or value > 0 else "-∞"
    return f"{value:+.0f}"


def _decided_stronger(entry: dict[str, Any]) -> bool:
    """Whether a deciding SPRT accepted H1: the higher level is stronger."""
    return bool(entry["sprt"]["verdict"] == H1_ACCEPTED)


def _decider_note(entry: dict[str, Any]) -> str:
    """What a deciding SPRT did, in the report's words."""
    sprt = entry["sprt"]
    return (
        f"the deciding SPRT (H0 {sprt['elo0']:g} Elo against H1 {sprt['elo1']:+g}, alpha = "
        f"beta = {sprt['alpha']:g}, at most {entry['games_planned']} new games from seed "
        f"{entry.get('seed', 1)}): {sprt['verdict']} after {entry['games']} games (log-likelihood "
        f"ratio {sprt['llr']:.2f}, bounds {sprt['lower']:.2f} and {sprt['upper']:.2f}). An SPRT "
        "stops when its games favour one side, so its score is no estimate of the step: the "
        "ratings below chain the planned games only."
    )


def _match_name(entry: dict[str, Any], a: str, b: str) -> str:
    """A ladder match as its table names it, the deciding SPRT marked."""
    return f"{a} vs {b}" + (" (SPRT)" if is_decider(entry) else "")


def _step_name(entry: dict[str, Any]) -> str:
    """A ladder match as its rule set's table names it: `level:7` vs `level:6`."""
    return _match_name(entry, f"`{entry['a']}`", f"`{entry['b']}`")


def _notes(entry: dict[str, Any]) -> str:
    """A match's notes: a deciding SPRT's own account or why a further seed was played, then
    any note kept with its result."""
    notes = [_decider_note(entry)] if is_decider(entry) else []
    further = _further_note(entry)
    notes += [further] if further else []
    notes += [entry["note"]] if entry.get("note") else []
    return sentences(notes)


def _further_note(entry: dict[str, Any]) -> str | None:
    """Why a step's seed beyond its planned ones was played (``unplayed``), unless a note kept
    with its result says so already; None for a match without one."""
    if entry["kind"] != "ladder" or not entry["b"].startswith("level:") or is_decider(entry):
        return None
    seeds, games = planned(entry["a"], entry["b"], entry["rules"])
    further = [seed for seed, _ in entry.get("parts", []) if seed > seeds]
    if not further or f"seed {further[0]} was played" in entry.get("note", ""):
        return None
    planned_seeds = "seed 1" if seeds == 1 else f"seeds 1-{seeds}"
    return (
        f"seed {further[0]} was played because the {seeds * games} planned games "
        f"({planned_seeds}) left the step unseparated (≈), and counts whatever it gave."
    )


def _engines_named(rows: list[dict[str, Any]]) -> str:
    """The engines that played these results, each with its few words (``ENGINES``)."""
    shown = sorted({engine_of(r) for r in rows})
    return "; ".join(f"{engine}: {ENGINES.get(engine, 'unnamed')}" for engine in shown)


def _chain(rows: list[dict[str, Any]]) -> list[tuple[str, float, bool]]:
    """Ratings from level 1 = 0 up the ladder: ``(player, Elo, at least)``. A step won without
    a loss or draw has an infinite difference, so it adds the lower end of its interval and
    the ratings from there on are lower bounds."""
    step = {r["b"]: (r["a"], r["elo"], r["elo_low"]) for r in rows if r["b"].startswith("level:")}
    chain = [("level:1", 0.0, False)]
    current = "level:1"
    while current in step:
        nxt, diff, low = step[current]
        bound = chain[-1][2]
        if diff is None or math.isinf(diff):
            if low is None or math.isinf(low):
                break
            diff, bound = low, True
        chain.append((nxt, chain[-1][1] + diff, bound))
        current = nxt
    return chain if len(chain) > 1 else []
