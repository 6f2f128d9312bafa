"""No doc, script, example or test names a module path that the moves of issue 40 retired (the
web app's flat modules, now in its domain packages; the engine's ``fast*`` modules, now its
``compiled`` package): a newcomer following one would find nothing there. The changelog keeps
history's names."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.paths import REPOSITORY

RETIRED_WEB = [
    "account_schemas",
    "accounts",
    "actions",
    "ai_moves",
    "api_tokens",
    "bus",
    "callers",
    "clocks",
    "cpus",
    "db",
    "deadlines",
    "engine_work",
    "errors",
    "fair_play",
    "glicko",
    "guard",
    "idempotency",
    "jobs",
    "leaderboards",
    "learn",
    "learn_diagrams",
    "learn_settings",
    "live",
    "lobby",
    "lobby_hub",
    "lobby_schemas",
    "local_queue",
    "logs",
    "mail",
    "metrics",
    "models",
    "notices",
    "passwords",
    "players",
    "presence",
    "profiles",
    "queries",
    "quick_pairings",
    "rated_pairs",
    "rates",
    "ratings",
    "redis_queue",
    "runtime",
    "schemas",
    "security",
    "seeks",
    "service",
    "sessions",
    "settings",
    "slow_clients",
    "store",
    "texts",
    "turns",
    "uptime",
    "view",
    "ws",
]
"""The web app's modules before it was cut by domain (some names are packages now)."""

RETIRED_ENGINE = [
    "compiled_cache",
    "fastbatch",
    "fastboard",
    "fasteval",
    "fastframes",
    "fastmcts",
    "fastmoves",
    "fastnet",
    "fastnode",
    "fastorder",
    "fastsearch",
    "fastsim",
    "fasttable",
]
"""The engine's compiled twin before it moved into ``engine/compiled/``."""

TEXT_SUFFIXES = (".py", ".md", ".toml", ".cfg", ".txt", ".sh", ".yml", ".yaml", ".html", ".js")


def _tracked_texts() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files"], cwd=REPOSITORY, capture_output=True, text=True, check=True
    ).stdout.split()
    return [
        REPOSITORY / name
        for name in names
        if name != "CHANGELOG.md"
        and name != "tests/test_module_paths.py"
        and (name.endswith(TEXT_SUFFIXES) or name.startswith("scripts/"))
    ]


def _retired_patterns() -> list[re.Pattern[str]]:
    web = REPOSITORY / "src" / "bluegray" / "web"
    patterns = []
    for name in RETIRED_WEB:
        patterns.append(re.compile(rf"\bweb/{name}\.py\b"))
        if not (web / name).is_dir():
            patterns.append(re.compile(rf"\bbluegray\.web\.{name}\b(?!\.)"))
    for name in RETIRED_ENGINE:
        patterns.append(re.compile(rf"\b{name}\b"))
    patterns.append(re.compile(r"\bengine/compiled\.py\b"))
    return patterns


def test_no_file_names_a_retired_module_path() -> None:
    patterns = _retired_patterns()
    found = []
    for path in _tracked_texts():
        if not path.is_file():
            continue
        text = path.read_text("utf-8", errors="replace")
        for pattern in patterns:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(REPOSITORY)}:{line}: {match.group()}")
    assert found == []


def test_the_engine_keeps_no_compiled_module_at_its_root() -> None:
    engine = REPOSITORY / "src" / "bluegray" / "engine"
    assert sorted(path.name for path in engine.glob("fast*.py")) == []
    assert (engine / "compiled" / "search.py").is_file()


def test_the_web_app_keeps_at_most_eight_modules_at_its_root() -> None:
    web = REPOSITORY / "src" / "bluegray" / "web"
    assert len(list(web.glob("*.py"))) <= 8
