"""The layers hold at run time: importing the package or its engine loads no interface (the web
app, the terminal client, the protocol), and no numba: the compiled kernel loads in the
background, when a search wants it. Each import runs in a fresh interpreter, so that what the
test process has already imported hides nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest

INTERFACES = ("bluegray.web", "bluegray.tui", "bluegray.protocol", "bluegray.cli", "bluegray.rl")


def modules_loaded_by(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint(' '.join(sys.modules))"
    finished = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return set(finished.stdout.split())


@pytest.mark.parametrize(
    "statement",
    [
        "import bluegray",
        "import bluegray.engine",
        "from bluegray.engine.search import Searcher",
        "from bluegray.engine.players import player_from_spec",
        "from bluegray.engine.match import run_match",
    ],
)
def test_the_package_and_its_engine_load_no_interface(statement: str) -> None:
    loaded = modules_loaded_by(statement)
    assert "bluegray" in loaded
    leaked = sorted(
        name for name in loaded if name.startswith(INTERFACES) or name.split(".")[0] == "numba"
    )
    assert leaked == [], statement


def test_the_protocol_player_registers_engine_players() -> None:
    # The engine finds players by name: the protocol adds its kind, the engine knows nothing
    # of it until then.
    statement = (
        "from bluegray.engine.player import player_kinds\n"
        "before = [kind.name for kind in player_kinds()]\n"
        "import bluegray.engine.players\n"
        "builtin = [kind.name for kind in player_kinds()]\n"
        "import bluegray.protocol.player\n"
        "print(before, builtin, [kind.name for kind in player_kinds()])"
    )
    finished = subprocess.run(
        [sys.executable, "-c", statement], capture_output=True, text=True, check=True, timeout=120
    )
    assert finished.stdout.split("\n")[0] == (
        "[] ['level', 'mcts', 'greedy', 'random'] ['level', 'mcts', 'greedy', 'random', 'engine']"
    )


@pytest.mark.parametrize(
    "statement", ["import bluegray", "from bluegray.engine.search import Searcher"]
)
def test_the_drawing_code_loads_only_when_something_is_drawn(statement: str) -> None:
    # Every engine process imports positions and games and never draws: the SVG code (some 700
    # lines) loads when a notebook asks a position or a game for its picture.
    loaded = modules_loaded_by(statement)
    assert sorted(name for name in loaded if name.startswith("bluegray.svg")) == []
    drawn = modules_loaded_by(
        "from bluegray import Game\nassert Game('sackson')._repr_svg_().startswith('<svg')"
    )
    assert "bluegray.svg" in drawn
