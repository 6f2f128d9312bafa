"""The wheel as it ships: built from this checkout (``pip wheel``, the build backend of
``pyproject.toml``), its metadata complete, and the files the program reads at run time inside
it — the evaluation's weights, the engine's networks, the web app's pages, scripts, styles and
migrations. The engine finds its shipped networks when imported from the wheel itself."""

from __future__ import annotations

import email.parser
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import bluegray
from tests.paths import REPOSITORY

SOURCE = REPOSITORY / "src" / "bluegray"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"),
            *("-w", str(folder), str(REPOSITORY)),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (built,) = folder.glob("bluegray-*.whl")
    return built


def _names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_has_complete_metadata(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        (metadata_name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.parser.Parser().parsestr(archive.read(metadata_name).decode())
        entry_points = archive.read(metadata_name.replace("METADATA", "entry_points.txt"))
        names = archive.namelist()
    assert metadata["Name"] == "bluegray"
    assert metadata["Version"] == bluegray.__version__
    assert metadata["License-Expression"] == "MIT"
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["Summary"].startswith("Blue and Gray")
    assert metadata["Author"] == "The bluegray developers"
    assert metadata.get_all("Project-URL")
    assert "web" in (metadata.get_all("Provides-Extra") or [])
    description = metadata.get_payload()
    assert isinstance(description, str) and description.startswith("# bluegray")  # the README
    assert b"bluegray = bluegray.cli.main:main" in entry_points


def test_the_wheel_carries_the_files_read_at_run_time(wheel: Path) -> None:
    names = _names(wheel)
    wanted = [
        path.relative_to(SOURCE.parent).as_posix()
        for pattern in (
            "engine/weights.json",
            "engine/networks/*.json",
            "web/static/*",
            "web/templates/*.html",
            "web/puzzles/starter/*.jsonl",
            "web/migrations/versions/*.py",
            "web/migrations/script.py.mako",
            "py.typed",
        )
        for path in SOURCE.glob(pattern)
    ]
    assert len(wanted) > 30
    assert sorted(set(wanted) - names) == []


def test_the_engine_finds_its_shipped_networks_in_the_wheel(wheel: Path) -> None:
    # Imported from the wheel itself (a pure-Python wheel is an importable archive): each
    # family with a network file in the sources finds it there, and the others find none.
    shipped = sorted(path.stem for path in (SOURCE / "engine" / "networks").glob("*.json"))
    probe = (
        "import json\n"
        "from bluegray.engine.evaluation import family\n"
        "from bluegray.engine.network_file import network_for\n"
        "from bluegray.rules import PRESETS\n"
        "import bluegray\n"
        "found = sorted({family(r) for r in PRESETS.values() if network_for(r) is not None})\n"
        "print(json.dumps([bluegray.__file__, found]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(wheel)}
    answer = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env
    )
    where, found = json.loads(answer.stdout.strip().splitlines()[-1])
    assert where.startswith(str(wheel))
    assert found == shipped
