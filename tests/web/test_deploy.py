"""The deployment files: the compose file is valid (Debian's ``docker-compose config``, which
needs no Docker daemon), it runs the processes the way docs/deploy.md and the cluster test do,
with settings the app has, and the image installs bluegray the README's way."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from typing import Any

import yaml

from bluegray.web.settings import ENV_PREFIX, Settings
from tests.paths import REPOSITORY

COMMANDS = {("bluegray", "serve"), ("bluegray", "worker"), ("bluegray", "db")}
"""The processes of the service (the cluster test starts serve and worker the same way)."""


def compose_config() -> dict[str, Any]:
    answer = subprocess.run(
        ["docker-compose", "--file", str(REPOSITORY / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        env={**os.environ, "POSTGRES_PASSWORD": "secret", "BLUEGRAY_HOST": "play.example.org"},
        check=False,
        timeout=60,
    )
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
