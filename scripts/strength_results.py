"""The strength measurement's results: the file that keeps every match's summary
(docs/data/strength.json), which matches are seeds of one measurement and add up, which the engine
as shipped played, and the ladder's plan (what is still to play, which step is due an SPRT).

``strength_report.py`` plays the matches and records them here; ``strength_page.py`` renders
them into docs/strength.md.
"""

from __future__ import annotations

import fcntl
import json
from pathlib import Path
from typing import Any, Final

from bluegray.engine import ENGINE_VERSION
from bluegray.engine.levels import LEVELS
from bluegray.engine.players import parse_spec
from bluegray.engine.stats import elo_estimate
from bluegray.rules import PRESETS, Impasse, RuleSet, Soldiers

REPOSITORY = Path(__file__).resolve().parents[1]
RESULTS = REPOSITORY / "docs" / "data" / "strength.json"


def draws_dominate(rules: RuleSet) -> bool:
    """Whether neighbouring levels draw most of their games: guards on both sides (a guard on a
    captain's path holds it) and an impasse that is a draw (`cooper`, `classic-turbo`,
    `pow-classic`)."""
    return rules.soldiers is Soldiers.GUARD and rules.impasse is Impasse.DRAW


def planned(a: str, b: str, rules: str) -> tuple[int, int]:
    """How many seeds a ladder match is planned at, and games a seed (PLAN_TEXT says it in
    words): more where a step is narrow or most games are drawn."""
    level = level_of(a) or 0
    if b in ("random", "greedy"):
        return (2 if level == 2 else 1), 24
    if level <= 4:
        return 2, 24
    if level == 5 or draws_dominate(PRESETS[rules]):
        return 2, 12
    return 1, 12


PLAN_TEXT: Final = (
    "48 for levels 2-4, 24 for level 5, and 12 for levels 6-8 (24 in those three rule sets)"
)
"""The ladder's plan (``planned``) in the report's words."""

DECIDER_ELO: Final = (0.0, 50.0)
"""The SPRT that decides a step its planned games and further seed leave unseparated: H0 "the
higher level is no stronger" against H1 "it is 50 Elo stronger" (alpha = beta = 0.05)."""

DECIDER_GAMES: Final = 144
"""The most games the deciding SPRT plays: a step it has not decided by then stays unseparated."""


def load() -> list[dict[str, Any]]:
    if RESULTS.exists():
        data: list[dict[str, Any]] = json.loads(RESULTS.read_text(encoding="utf-8"))
        return data
    return []


def save(results: list[dict[str, Any]]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


def record(entry: dict[str, Any]) -> None:
    """Keep a match's result, replacing an earlier one of the same pairing and settings (under a
    lock, so that several runs at once can share the results file). A note kept with the earlier
    result stays while the games are the same (the match recorded again from its journal)."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    match = (*_key(entry), entry.get("seed", 1))
    with open(RESULTS.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        results = []
        for old in load():
            if (*_key(old), old.get("seed", 1)) != match:
                results.append(old)
            elif old.get("note") and "note" not in entry and _same_games(old, entry):
                entry = entry | {"note": old["note"]}
        results.append(entry)
        save(results)


def _same_games(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Whether two results of a match count the same games: the same engine, W-D-L and length."""
    fields = ("games", "wins", "draws", "losses", "average_plies")
    return engine_of(first) == engine_of(second) and all(
        first.get(field) == second.get(field) for field in fields
    )


def unplayed(a: str, b: str, rules: str, results: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """The seeds of a ladder match (and their games) that the current engine and levels have not
    played: the planned ones; once those are in, and if they leave a step between two levels
    unseparated, the one further seed (``planned``'s seeds + 1), counted whatever it gives."""
    seeds, games = planned(a, b, rules)
    step = [
        entry
        for entry in results
        if (entry["kind"], entry["a"], entry["b"], entry["rules"]) == ("ladder", a, b, rules)
        and _is_current(entry)
        and not is_decider(entry)
    ]
    played = {entry.get("seed", 1) for entry in step}
    missing = [(seed, games) for seed in range(1, seeds + 1) if seed not in played]
    if missing or not b.startswith("level:") or seeds + 1 in played:
        return missing
    fixed = merged(step)
    return [(seeds + 1, games)] if len(fixed) == 1 and not separated(fixed[0]) else []


def needs_decider(a: str, b: str, rules: str, results: list[dict[str, Any]]) -> int | None:
    """The seed of a ladder step's deciding SPRT if the step is due one (None if not): its
    planned seeds and the one further seed were played by the current engine and levels and
    left it unseparated, and no deciding SPRT has been played. The SPRT's games are new ones,
    from the seed after the further seed."""
    further = planned(a, b, rules)[0] + 1
    step = [
        entry
        for entry in results
        if (entry["kind"], entry["a"], entry["b"], entry["rules"]) == ("ladder", a, b, rules)
        and _is_current(entry)
    ]
    if any(is_decider(entry) for entry in step):
        return None
    fixed = merged(step)
    if len(fixed) != 1 or not {seed for seed, _ in fixed[0].get("parts", [])} >= set(
        range(1, further + 1)
    ):
        return None
    return None if separated(fixed[0]) else further + 1


def _pairing(entry: dict[str, Any]) -> tuple[Any, ...]:
    """What a match measured, whichever search played it: its players, rules and time, the
    engine and the revisions of its levels."""
    return (
        entry["kind"],
        entry["a"],
        entry["b"],
        entry["rules"],
        entry["time"],
        engine_of(entry),
        revisions(entry),
        is_decider(entry),
    )


def is_decider(entry: dict[str, Any]) -> bool:
    """Whether a match is a step's deciding SPRT, kept apart from its fixed-length seeds (an
    SPRT stops when the games favour one side, so its score is no estimate to add to theirs)."""
    return entry.get("sprt") is not None


def separated(entry: dict[str, Any]) -> bool:
    """Whether a fixed-length match shows A stronger: its Elo interval lies above 0."""
    return entry["elo_low"] is not None and entry["elo_low"] > 0


def _key(entry: dict[str, Any]) -> tuple[Any, ...]:
    """A match's pairing and search: matches with one key are seeds of one measurement."""
    return (*_pairing(entry), search_of(entry))


def search_of(entry: dict[str, Any]) -> str:
    # Results from before the compiled search core were all the Python search's.
    return str(entry.get("search", "python"))


def engine_of(entry: dict[str, Any]) -> int:
    # Results from before engine versions were recorded were all the first engine's.
    return int(entry.get("engine", 1))


def level_of(spec: str) -> int | None:
    """The level a player spec plays at (``level:7,time=1`` → 7), None for other players."""
    parsed = parse_spec(spec)
    return int(parsed.options[""]) if parsed.name == "level" else None


def levels_in(*specs: str) -> list[int]:
    """The levels among the players of a match (none for greedy, MCTS or random)."""
    return [level for level in map(level_of, specs) if level is not None]


def revisions(entry: dict[str, Any]) -> tuple[tuple[int, int], ...]:
    """``(level, revision)`` for each level that played. Results from before the revisions were
    recorded were all played by each level's first revision."""
    recorded = entry.get("levels", {})
    return tuple(
        (level, int(recorded.get(str(level), 1))) for level in levels_in(entry["a"], entry["b"])
    )


def _is_current(entry: dict[str, Any], engine: int = ENGINE_VERSION) -> bool:
    """Whether the engine as shipped played this match: the current engine (or ``engine``, the
    one the page shows), and each level as it is now (a level whose settings changed has a new
    revision)."""
    return engine_of(entry) == engine and all(
        level in LEVELS and LEVELS[level].revision == revision
        for level, revision in revisions(entry)
    )


def merged(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per pairing and settings: matches played with different seeds (more openings)
    add up, and the score and Elo interval are computed from all their games."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for entry in results:
        groups.setdefault(_key(entry), []).append(entry)
    combined = []
    for entries in groups.values():
        if len(entries) == 1:
            combined.append(entries[0])
            continue
        wins = sum(e["wins"] for e in entries)
        draws = sum(e["draws"] for e in entries)
        losses = sum(e["losses"] for e in entries)
        games = wins + draws + losses
        estimate = elo_estimate([1.0] * wins + [0.5] * draws + [0.0] * losses)
        reasons: dict[str, int] = {}
        for e in entries:
            for reason, count in e["reasons"].items():
                reasons[reason] = reasons.get(reason, 0) + count
        combined.append(
            {
                **entries[0],
                "note": sentences([e["note"] for e in entries if e.get("note")]),
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "score": (wins + draws / 2) / games,
                "elo": estimate.elo,
                "elo_low": estimate.low,
                "elo_high": estimate.high,
                "reasons": reasons,
                "average_plies": sum(e["average_plies"] * e["games"] for e in entries) / games,
                "parts": [(e.get("seed", 1), e["games"]) for e in entries],
            }
        )
    return combined


def superseded(
    rows: list[dict[str, Any]], engine: int = ENGINE_VERSION
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Split results into the current engine's (``ENGINE_VERSION``, or ``engine``: the one the
    page shows; its levels' current revisions) and the others, each sorted by opponent, rule set
    and player. Where one engine played a match with both searches, only the compiled search's
    result is kept (the engine as shipped runs it)."""
    compiled = {_pairing(r) for r in rows if search_of(r) == "compiled"}
    kept = sorted(
        (r for r in rows if not (search_of(r) == "python" and _pairing(r) in compiled)),
        key=lambda r: (r["b"], r["rules"], r["a"], -engine_of(r)),
    )
    return (
        [r for r in kept if _is_current(r, engine)],
        [r for r in kept if not _is_current(r, engine)],
    )


def shown_engine(results: list[dict[str, Any]]) -> int:
    """The engine the page's tables show: the current one once it has any result, else the
    latest earlier one that has (until the current engine is measured, its predecessor's
    results are the best there is, marked as such)."""
    engines = {engine_of(r) for r in results if engine_of(r) <= ENGINE_VERSION}
    return ENGINE_VERSION if ENGINE_VERSION in engines or not engines else max(engines)


def sentences(notes: list[str]) -> str:
    """Notes joined as sentences: each after the first starts with a capital."""
    return " ".join(notes[:1] + [note[:1].upper() + note[1:] for note in notes[1:]])
