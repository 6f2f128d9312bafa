"""How the suite is cut (tests/conftest.py, docs/testing.md): a browser test runs each viewport
once, on one database (the desktop on SQLite, the phone on PostgreSQL, a test without viewports
on SQLite), while every other web test runs on both databases."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


PATHS = (
    "tests/web/browser/test_browser_lobby.py",
    "tests/web/browser/test_browser_accessibility.py",
    "tests/web/lobby/test_lobby.py",
)


@functools.cache
def collected() -> list[str]:
    """The node ids pytest collects from ``PATHS``, as the suite would (collected once)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *PATHS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_a_browser_test_runs_each_viewport_once_on_one_database() -> None:
    ids = [node for node in collected() if "/browser/" in node]
    lobby = [node for node in ids if "two_strangers_meet_in_the_lobby" in node]
    assert sorted(node.rsplit("[", 1)[1] for node in lobby) == [
        "postgresql-phone]",
        "sqlite-desktop]",
    ]
    # A test without viewports runs on SQLite alone.
    plain = [node for node in ids if "phone" not in node and "desktop" not in node]
    assert plain and all(node.endswith("[sqlite]") for node in plain), plain
    # A test that names its database keeps every viewport on it.
    checked = [node for node in ids if "accessibility_violation" in node]
    assert sorted(checked) == [
        "tests/web/browser/test_browser_accessibility.py::"
        "test_no_page_has_a_serious_or_critical_accessibility_violation[desktop-sqlite]",
        "tests/web/browser/test_browser_accessibility.py::"
        "test_no_page_has_a_serious_or_critical_accessibility_violation[phone-sqlite]",
    ]


def test_every_other_web_test_runs_on_both_databases() -> None:
    ids = [node for node in collected() if "/lobby/" in node]
    names = {node.rsplit("[", 1)[0] for node in ids}
    assert names
    for name in names:
        assert {f"{name}[sqlite]", f"{name}[postgresql]"} <= set(ids), name
