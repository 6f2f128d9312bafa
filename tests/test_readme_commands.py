"""The README's two commands can run side by side: the test command (``scripts/check``) installs
into an environment of its own (``scripts/test-env``), so a server installed and started by the
first command goes on serving its pages. Reinstalling the package into the server's own
environment, as the test command once did, removes its templates from under it."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.paths import REPOSITORY
from tests.servers import free_port

PAGES = ("/", "/learn")


def _environment(**changes: str) -> dict[str, str]:
    """This process's environment without what points Python at the checkout or a venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(changes)
    return env


def _pip(target: Path, *arguments: str) -> None:
    python = str(target / "bin" / "python")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "--quiet",
            "--no-deps",
            *arguments,
        ],
        check=True,
        env=_environment(),
        timeout=600,
    )


def _environment_beside_this_one(path: Path) -> Path:
    """A new virtual environment that also sees this one's packages (through a ``.pth`` file),
    so that nothing but bluegray itself need be installed into it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", path], check=True)
    python = path / "bin" / "python"
    own = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        env=_environment(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(own, "this-environment.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return path


def _statuses(url: str) -> list[int]:
    return [httpx.get(url + page, timeout=10).status_code for page in PAGES]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """The first command: bluegray installed from the checkout (not editable) in an environment
    of its own, and ``bluegray serve`` started from it."""
    environment = _environment_beside_this_one(tmp_path / "served")
    _pip(environment, str(REPOSITORY))
    port = free_port()
    database = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    command = [str(environment / "bin" / "bluegray"), "serve", "--port", str(port)]
    server = subprocess.Popen(
        [*command, "--database-url", database, "--no-access-log"],
        env=_environment(BLUEGRAY_AI_PROCESSES="false"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, "the server of the first command died"
            try:
                httpx.get(url + "/api/health", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server of the first command never answered"
                time.sleep(0.2)  # poll interval: until the server answers, up to 60 s
        yield environment, url
    finally:
        server.terminate()
        server.wait(30)


def test_the_test_command_leaves_a_running_server_alone(
    served: tuple[Path, str], tmp_path: Path
) -> None:
    environment, url = served
    where = subprocess.run(
        [environment / "bin" / "python", "-c", "import bluegray; print(bluegray.__file__)"],
        env=_environment(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(environment))  # the server runs the installed copy
    assert _statuses(url) == [200, 200]

    # The second command's install, with the first command's environment active (its python
    # first on PATH). Its environment is made beforehand beside this one, so that the test
    # extra's dependencies are found installed and only bluegray is installed there.
    test_environment = _environment_beside_this_one(tmp_path / "test-venv")
    subprocess.run(
        [REPOSITORY / "scripts" / "test-env"],
        env=_environment(
            BLUEGRAY_TEST_VENV=str(test_environment),
            PATH=f"{environment / 'bin'}{os.pathsep}{os.environ['PATH']}",
        ),
        check=True,
        stdout=subprocess.PIPE,
        timeout=600,
    )
    tested = subprocess.run(
        [test_environment / "bin" / "python", "-c", "import bluegray; print(bluegray.__file__)"],
        env=_environment(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert tested.strip() == str(REPOSITORY / "src" / "bluegray" / "__init__.py")
    assert _statuses(url) == [200, 200]

    # The fight this prevents: the package reinstalled into the server's environment.
    _pip(environment, "--editable", str(REPOSITORY))
    assert _statuses(url) == [500, 500]
