"""The deployment files: the compose file is valid (Debian's ``docker-compose config``, which needs
no Docker daemon), it runs the processes the way docs/deploy.md and the cluster test do, with
settings the app has, it has no default password, its proxy is the Caddy the suite runs
(``tests/web/processes/test_proxy.py`` runs the shipped Caddyfile), and the image installs bluegray
the README's way."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from typing import Any

import yaml

from bluegray.web.platform.settings import ENV_PREFIX, Settings
from tests.paths import REPOSITORY
from tests.servers import CADDY

COMMANDS = {("bluegray", "serve"), ("bluegray", "worker"), ("bluegray", "db")}
"""The processes of the service (the cluster test starts serve and worker the same way)."""


OPERATOR_VARIABLES = ("POSTGRES_PASSWORD", "BLUEGRAY_HOST")
"""What an operator sets for the compose file (the tests set them, or leave them out)."""


def compose(**variables: str) -> subprocess.CompletedProcess[str]:
    """``docker-compose config`` with the operator's variables (and none of this process's)."""
    given = {name: value for name, value in os.environ.items() if name not in OPERATOR_VARIABLES}
    return subprocess.run(
        ["docker-compose", "--file", str(REPOSITORY / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        env={**given, **variables},
        check=False,
        timeout=60,
    )


def compose_config() -> dict[str, Any]:
    answer = compose(POSTGRES_PASSWORD="secret", BLUEGRAY_HOST="play.example.org")
    assert answer.returncode == 0, answer.stderr
    config: dict[str, Any] = yaml.safe_load(answer.stdout)
    return config


def test_the_compose_file_is_valid_and_starts_the_whole_service() -> None:
    services = compose_config()["services"]
    assert {"postgres", "redis", "migrate", "proxy"} <= set(services)
    web = [
        name
        for name, service in services.items()
        if service.get("command", [])[:2] == ["bluegray", "serve"]
    ]
    workers = [
        name
        for name, service in services.items()
        if service.get("command", [])[:2] == ["bluegray", "worker"]
    ]
    assert len(web) == 2 and len(workers) == 2
    assert services["migrate"]["command"] == ["bluegray", "db", "upgrade"]
    for name in [*web, *workers, "migrate"]:
        service = services[name]
        assert tuple(service["command"][:2]) in COMMANDS
        settings = {
            key[len(ENV_PREFIX) :].lower()
            for key in service["environment"]
            if key.startswith(ENV_PREFIX)
        }
        unknown = settings - set(Settings.model_fields)
        assert unknown == set(), f"{name} sets what the app does not read: {unknown}"
        assert {"database_url", "redis_url"} <= settings
        Settings.from_env(service["environment"])  # every value is one the setting takes
    names = [services[name]["environment"]["BLUEGRAY_PROCESS_NAME"] for name in web + workers]
    assert len(set(names)) == len(names)
    caddyfile = (REPOSITORY / "deploy" / "Caddyfile").read_text()
    assert all(re.search(rf"\b{name}:8000\b", caddyfile) for name in web)


def test_the_image_installs_bluegray_the_readme_way() -> None:
    dockerfile = (REPOSITORY / "Dockerfile").read_text()
    install = next(line for line in dockerfile.splitlines() if line.startswith("RUN pip install"))
    words = shlex.split(install)
    readme = (REPOSITORY / "README.md").read_text()
    first = re.search(r"```bash\n(.*)\n", readme)
    assert first is not None
    readme_words = shlex.split(first.group(1).split("&&")[0])
    assert readme_words[:2] == ["pip", "install"]
    assert words[1:3] == ["pip", "install"] and words[-1] == readme_words[-1]


def test_the_compose_file_refuses_to_start_without_a_database_password() -> None:
    # No silent default password: without one, compose says what is missing and starts nothing.
    answer = compose(BLUEGRAY_HOST="play.example.org")
    assert answer.returncode != 0 and "POSTGRES_PASSWORD" in answer.stderr
    config = compose_config()
    database = config["services"]["web-1"]["environment"]["BLUEGRAY_DATABASE_URL"]
    assert ":secret@" in database
    assert config["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"] == "secret"


def test_the_proxy_runs_the_caddy_version_the_tests_run_and_the_guide_names() -> None:
    shown = subprocess.run(
        [CADDY, "version"], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    found = re.match(r"v?(\d+)\.(\d+)\.", shown)
    assert found is not None, shown
    minor = f"{found.group(1)}.{found.group(2)}"
    proxy = compose_config()["services"]["proxy"]
    assert proxy["image"] == f"caddy:{minor}"
    assert proxy["environment"]["BLUEGRAY_SITE_ADDRESS"] == "play.example.org"
    assert f"Caddy {minor}" in (REPOSITORY / "docs" / "deploy.md").read_text()
