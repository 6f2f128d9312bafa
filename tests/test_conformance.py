"""Every conformance vector of docs/rules-reference.md §7 passes through the library, and the copies in the
repository are the shared originals."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bluegray.conformance import (
    GAMES,
    PERFT,
    POSITIONS,
    VectorFormatError,
    check_file,
    check_lines,
    check_vector,
    vector_kind,
)
from tests.paths import CONFORMANCE, SHARED_CONFORMANCE, VECTOR_FILES


def _vectors() -> list[Any]:
    params = []
    for name in VECTOR_FILES:
        lines = (CONFORMANCE / name).read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            if line.strip():
                params.append(pytest.param(json.loads(line), id=f"{name}:{number}"))
    return params


@pytest.mark.parametrize("vector", _vectors())
def test_vector_passes(vector: dict[str, Any]) -> None:
    assert check_vector(vector) is None


def test_every_kind_is_present() -> None:
    kinds = {
        name: {vector_kind(json.loads(line)) for line in (CONFORMANCE / name).open()}
        for name in VECTOR_FILES
    }
    assert kinds == {"perft.jsonl": {PERFT}, "positions.jsonl": {POSITIONS}, "games.jsonl": {GAMES}}


def test_copies_equal_the_shared_vectors() -> None:
    """The repository's copies must follow ../shared/conformance wherever it exists."""
    for name in VECTOR_FILES:
        copy = (CONFORMANCE / name).read_bytes()
        assert copy.count(b"\n") > 10
        if SHARED_CONFORMANCE.is_dir():
            assert copy == (SHARED_CONFORMANCE / name).read_bytes(), (
                f"conformance/{name} differs from {SHARED_CONFORMANCE / name}: copy it again"
            )
    if SHARED_CONFORMANCE.is_dir():
        shared = {path.name for path in SHARED_CONFORMANCE.glob("*.jsonl")}
        assert shared == set(VECTOR_FILES), "the shared folder has new vector files: copy them"


def test_a_wrong_count_fails() -> None:
    vector = {
        "rules": "sackson",
        "position": "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1",
        "depth": 2,
        "nodes": 120,
    }
    failure = check_vector(vector)
    assert failure is not None
    assert "121" in failure and "120" in failure


def test_a_wrong_move_list_fails() -> None:
    vector = {
        "rules": "sackson",
        "position": "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1",
        "moves": ["a2-a3"],
    }
    failure = check_vector(vector)
    assert failure is not None and "unexpected" in failure


def test_a_wrong_game_result_fails() -> None:
    line = (CONFORMANCE / "games.jsonl").read_text().splitlines()[0]
    vector = json.loads(line)
    vector["result"]["winner"] = "gray" if vector["result"]["winner"] == "blue" else "blue"
    failure = check_vector(vector)
    assert failure is not None and "expected winner" in failure


def test_a_game_that_goes_on_fails() -> None:
    vector = json.loads((CONFORMANCE / "games.jsonl").read_text().splitlines()[0])
    vector["moves"] = vector["moves"][:-1]
    failure = check_vector(vector)
    assert failure is not None and "not over" in failure


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"rules": "sackson", "position": "x"}', "match no vector kind"),
        (
            '{"rules": "nope", "position": "9/9/9/9/9/9/9/9/9 b 0 1", "moves": []}',
            "unknown rule set 'nope'",
        ),
        (
            '{"rules": "sackson", "position": "bad", "depth": 1, "nodes": 1}',
            "invalid position 'bad'",
        ),
        (
            '{"rules": "sackson", "position": "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1", "depth": "1", "nodes": 1}',
            "'depth' must be a int",
        ),
        (
            '{"rules": "sackson", "moves": ["a2-a3"], "result": {"winner": "red", "reason": "center"}, "final": "x"}',
            "'result' must be",
        ),
    ],
)
def test_an_unparsable_vector_fails_loudly(line: str, why: str) -> None:
    (result,) = check_lines([line], "test")
    assert not result.passed
    assert result.failure is not None
    assert "cannot parse vector" in result.failure
    assert why in result.failure


def test_vector_kind_rejects_extra_keys() -> None:
    with pytest.raises(VectorFormatError, match="match no vector kind"):
        vector_kind({"rules": "sackson", "position": "p", "moves": [], "extra": 1})


def test_empty_file_fails(tmp_path: Any) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n")
    (result,) = check_file(path)
    assert not result.passed and result.failure == "the file holds no vectors"


def test_perft_playing_every_move_agrees_with_bulk_counting() -> None:
    from bluegray import Position
    from bluegray.perft import perft

    for line in (CONFORMANCE / "perft.jsonl").read_text().splitlines():
        vector = json.loads(line)
        if vector["nodes"] < 40_000:
            position = Position.parse(vector["position"], vector["rules"])
            assert perft(position, vector["depth"], bulk=False) == vector["nodes"]
