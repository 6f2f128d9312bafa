"""No doc, script, example or test names a module path that the moves of issue 40 retired (the
web app's flat modules, now in its domain packages; the engine's ``fast*`` modules, now its
``compiled`` package; the tests' flat files, now in folders that mirror the packages), nor
a test file that is not there: a newcomer following one would find nothing there. The changelog
keeps history's names."""

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

RETIRED_IN_PACKAGES = [
    "accounts/profiles",
    "accounts/turns",
]
"""Modules of the web's packages that moved to another package (an account's games and its "your
turn" list are the games' own: ``games/player_games.py``, ``games/turns.py``)."""

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

TEXT_SUFFIXES = (
    ".py",
    ".md",
    ".toml",
    ".cfg",
    ".txt",
    ".sh",
    ".yml",
    ".yaml",
    ".html",
    ".js",
    ".css",
)

TEST_PATH = re.compile(r"(?<![\w./-])tests/[\w/]*\w\.py\b")
"""A test file by its path (``tests/web/games/test_api.py``)."""
TEST_MODULE = re.compile(r"(?<![\w.])tests(?:\.\w+)+")
"""A test module by its dotted name, perhaps with a name in it (``tests.web.conftest.Json``)."""


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
    for name in RETIRED_IN_PACKAGES:
        dotted = re.escape(name.replace("/", "."))
        patterns.append(re.compile(rf"\bweb/{name}\.py\b"))
        patterns.append(re.compile(rf"\bbluegray\.web\.{dotted}\b"))
    for name in RETIRED_ENGINE:
        patterns.append(re.compile(rf"\b{name}\b"))
    patterns.append(re.compile(r"\bengine/compiled\.py\b"))
    return patterns


def test_no_file_names_a_retired_module_path() -> None:
    # One pass a file over all the patterns at once (a pass a pattern took seconds of CPU).
    retired = re.compile("|".join(f"(?:{pattern.pattern})" for pattern in _retired_patterns()))
    found = []
    for path in _tracked_texts():
        if not path.is_file():
            continue
        text = path.read_text("utf-8", errors="replace")
        for match in retired.finditer(text):
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


def _is_test_module(dotted: str) -> bool:
    """Whether ``dotted`` names a module of the tests (or a name inside one): each part is a
    package or module of tests/ until a module, whose names follow."""
    where = REPOSITORY / "tests"
    for part in dotted.split(".")[1:]:
        if where.with_suffix(".py").is_file():
            return True
        where = where / part
        if not (where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()):
            return False
    return True


def test_every_test_file_named_is_there() -> None:
    # The web tests' flat files (tests/web/test_lobby.py, tests.web.test_api, ...) moved into
    # folders by package (tests/web/lobby/, tests/web/games/, ...), and so did the flat files of
    # the engine's, the protocol's, the RL's, the command line's and the terminal client's tests
    # (tests/engine/, tests/protocol/, tests/rl/, tests/cli/, tests/tui/): no name of them is left.
    found = []
    for path in _tracked_texts():
        if not path.is_file():
            continue
        text = path.read_text("utf-8", errors="replace")
        for match in TEST_PATH.finditer(text):
            if not (REPOSITORY / match.group()).is_file():
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(REPOSITORY)}:{line}: {match.group()}")
        for match in TEST_MODULE.finditer(text):
            if not _is_test_module(match.group()):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(REPOSITORY)}:{line}: {match.group()}")
    assert found == []
