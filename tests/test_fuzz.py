"""The fuzz targets of every parser, on a short budget (``scripts/fuzz`` runs them long).

Each input must end in the library's typed error or in a value that prints back as what was read;
the inputs that once failed run first every time (``Target.regressions``)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.fuzzing import TARGETS, Target, fuzz
from tests.paths import REPOSITORY

INPUTS = 200
"""Inputs per target in the suite: a few seconds each; scripts/fuzz runs a million."""


@pytest.mark.parametrize("target", TARGETS, ids=[target.name for target in TARGETS])
def test_every_input_ends_in_a_typed_error_or_a_round_trip(target: Target) -> None:
    fuzz(target, INPUTS)


def test_the_fuzz_script_runs_a_target_and_reports_progress() -> None:
    script = REPOSITORY / "scripts" / "fuzz"
    result = subprocess.run(
        [sys.executable, str(script), "move", "--inputs", "40", "--chunk", "20", "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "fuzzing move: 40 inputs each, seed 3"
    progress = [line for line in lines if line.startswith("move: ")]
    assert len(progress) == 2
    for line, done in zip(progress, ("20/40", "40/40"), strict=True):
        assert re.fullmatch(rf"move: {done} inputs, [0-9,]+ a second, no failures", line)
    assert lines[-1] == "no failures"
    help_text = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert all(target.name in help_text for target in TARGETS)
