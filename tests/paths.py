"""Where the tests find the repository's data."""

from __future__ import annotations

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
CONFORMANCE = REPOSITORY / "conformance"
SHARED_CONFORMANCE = REPOSITORY.parent / "shared" / "conformance"
VECTOR_FILES = ("perft.jsonl", "positions.jsonl", "games.jsonl")
