"""The command line: conformance, perft and show, their output, errors and exit codes."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from bluegray.cli.main import build_parser, main
from bluegray.protocol.client import Engine
from tests.paths import CONFORMANCE, VECTOR_FILES


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    if code and not err:
        # Once, in a fresh environment while the compiled kernel was compiling in the
        # background, an error line reached the captured stream only after main() returned
        # (not reproduced since): read again briefly rather than fail on where it lands.
        deadline = time.monotonic() + 2
        while not err and time.monotonic() < deadline:
            time.sleep(0.02)  # poll interval: reading the late error line, up to the deadline
            more_out, err = capsys.readouterr()
            out += more_out
    return code, out, err


def test_conformance_passes_on_the_vectors(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(CONFORMANCE / name) for name in VECTOR_FILES]
    code, out, _ = run(["conformance", *files], capsys)
    lines = out.strip().splitlines()
    assert code == 0
    assert len(lines) == 4
    total = sum(1 for name in VECTOR_FILES for line in (CONFORMANCE / name).open() if line.strip())
    assert lines[-1] == f"{total} passed, 0 failed"
    assert all(": ok (" in line for line in lines[:3])


def test_conformance_fails_loudly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = (CONFORMANCE / "perft.jsonl").read_text().splitlines()[0]
    wrong = good.replace('"nodes":11', '"nodes":12')
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([good, wrong, "{oops"]) + "\n")
    code, out, _ = run(["conformance", str(path), str(tmp_path / "missing.jsonl")], capsys)
    assert code == 1
    assert "mixed.jsonl: FAILED (1 passed, 2 failed)" in out
    assert "mixed.jsonl:2: perft FAILED: perft 1 of" in out
    assert "is 11, expected 12" in out
    assert "mixed.jsonl:3: unparsable FAILED: cannot parse vector: not JSON" in out
    assert "missing.jsonl: FAILED (0 passed, 1 failed)" in out
    assert "cannot read file" in out
    assert out.strip().splitlines()[-1] == "1 passed, 3 failed"


def test_perft(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["perft", "3"], capsys)
    assert code == 0
    rows = [line.split() for line in out.splitlines() if line.split() and line.split()[0].isdigit()]
    assert [(row[0], row[1]) for row in rows] == [("1", "11"), ("2", "121"), ("3", "1,925")]


def test_perft_divide(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["perft", "2", "--rules", "pow-classic", "--divide"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert any(line.startswith("a2-a3") and line.split()[1] == "11" for line in lines)
    total = next(line for line in lines if line.startswith("total"))
    assert total.split()[1] == "122"


def test_perft_from_a_position_after_moves(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["perft", "1", "--moves", "1. d2-d3 f8-f7"], capsys)
    assert code == 0
    assert "GGG1GGGGG" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["perft", "2", "--rules", "chess"], "unknown rule set 'chess'"),
        (["perft", "0"], "perft depth must be at least 1"),
        (["perft", "2", "--position", "9/9 b 0 1"], "invalid position '9/9 b 0 1'"),
        (["show", "--moves", "d2-d4"], "illegal move 'd2-d4'"),
        (["show", "--moves", "d2d4"], "invalid move 'd2d4'"),
        (["show", "--rules", "cooper lead=zero"], "invalid value 'zero'"),
        (["show", "--rules", "sackson impasse-plies=" + "9" * 30], "from 1 to 1000"),
        pytest.param(
            [
                "show",
                "--position",
                "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b " + "9" * 5000 + " 1",
            ],
            "(5,000 characters) must be a whole number from 0 to 999999999",
            id="5000-digit count",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(args, capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("bluegray: error: ")
    assert message in err


def test_show(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["show", "--rules", "cooper", "--moves", "d2-d3 f8-f7"], capsys)
    assert code == 0
    assert "rules: cooper" in out
    assert "position: ggggcgggg/ggggg1ggg/5g3/9/9/9/3G5/GGG1GGGGG/GGGGCGGGG b 2 2" in out
    assert "Blue to move; 18 legal moves:" in out
    assert " 9 g g g g c g g g g 9" in out


def test_show_a_finished_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["show", "--position", "9/9/9/9/4c4/9/9/9/G3C4 b 0 18"], capsys)
    assert code == 0
    assert "game over: Gray wins: captain reached the centre (0-1)" in out


def test_help_teaches(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    out = capsys.readouterr().out
    assert exited.value.code == 0
    for word in ("conformance", "perft", "show", "examples:", "b2xb4xd4"):
        assert word in out
    with pytest.raises(SystemExit):
        main(["perft", "--help"])
    assert "--divide" in capsys.readouterr().out


def test_the_installed_command_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bluegray", "perft", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert " 11 " in result.stdout


def test_show_writes_an_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import xml.etree.ElementTree as ElementTree

    path = tmp_path / "board.svg"
    code, out, _ = run(["show", "--rules", "super", "--moves", "e2-e3", "--svg", str(path)], capsys)
    assert code == 0
    assert f"wrote {path}" in out
    root = ElementTree.fromstring(path.read_text(encoding="utf-8"))
    assert root.tag.endswith("svg")
    assert "e2-e3" in path.read_text(encoding="utf-8")


def test_show_refuses_an_unwritable_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["show", "--svg", str(tmp_path / "missing" / "board.svg")], capsys)
    assert code == 2
    assert "cannot write" in err


def test_the_bot_s_default_engine_starts_without_bluegray_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bluegray bot`` run from a virtualenv that is not activated (no ``bluegray`` on the PATH)
    starts its default engine: this installation's, by the Python running the bot."""
    args = build_parser().parse_args(["bot"])
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no bluegray, no python
    with Engine(args.engine) as engine:  # before the fix: 'bluegray' not found
        assert engine.protocol is not None


@pytest.mark.parametrize(
    ("command", "needing"),
    [
        (["serve"], "the web app needs"),
        (["db", "upgrade"], "the database needs"),
        (["worker"], "the worker needs"),
        (["explorer", "fill"], "the explorer needs"),
    ],
)
def test_a_command_without_the_web_extra_says_how_to_install_it(
    command: list[str], needing: str
) -> None:
    # As in an install without the extra: importing SQLAlchemy fails (None in sys.modules).
    script = (
        "import sys; sys.modules['sqlalchemy'] = None; "
        "from bluegray.cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *command], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr == (
        f'bluegray: error: {needing} the web extra: pip install "bluegray[web]" '
        "(sqlalchemy missing)\n"
    )
