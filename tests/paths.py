"""Where the tests find the repository's data and scripts."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[1]
CONFORMANCE = REPOSITORY / "conformance"
SHARED_CONFORMANCE = REPOSITORY.parent / "shared" / "conformance"
VECTOR_FILES = ("perft.jsonl", "positions.jsonl", "games.jsonl")
SCRIPTS = REPOSITORY / "scripts"


def run_script(name: str) -> dict[str, Any]:
    """The names a script in scripts/ defines, run as ``python scripts/NAME`` would run it: with
    its folder on the import path, so that it imports its sibling modules."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    return runpy.run_path(str(SCRIPTS / name))
