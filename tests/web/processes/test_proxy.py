"""The shipped proxy, as shipped: real Caddy running ``deploy/Caddyfile`` unchanged in front of
two real ``bluegray serve`` processes on PostgreSQL and Redis, with the host gate on. Its health
checks pass, ``/metrics`` stays inside, and a web process killed with SIGKILL costs the players
no failed request (issue 38)."""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from bluegray.web.platform.settings import Settings
from tests.servers import CADDYFILE, CaddyProxy, compose_health_uris, proxy_health_uri
from tests.web.cluster import PROCESS_HEADER, Node, nodes, service_env

SITE: str = "localhost"
"""The site's only host name in these tests: the upstreams' address (127.0.0.1) is not one."""


def caddyfile_seconds(directive: str) -> float:
    """The duration a directive of the shipped Caddyfile sets (``health_interval 5s``)."""
    found = re.search(
        rf"^\s*{directive}\s+(\d+(?:\.\d+)?)(ms|s|m)\s*$", CADDYFILE.read_text(), re.M
    )
    assert found is not None, f"the Caddyfile sets no {directive}"
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0}[found.group(2)]
    return float(found.group(1)) * scale


def test_the_proxy_closes_idle_connections_before_the_web_processes_do() -> None:
    # An idle connection the server closes while the proxy sends a request on it is a 502: the
    # proxy's idle timeout must be the shorter one.
    proxy_idle = caddyfile_seconds("keepalive")
    assert proxy_idle < Settings().keep_alive_seconds


def test_the_health_checks_ask_whether_a_process_is_alive_not_ready() -> None:
    # /api/ready fails on every process at once when Redis or the workers are down: a check on
    # it would turn their outage into the whole site's.
    uri = proxy_health_uri()
    assert uri == "/api/health"
    compose = compose_health_uris()
    assert set(compose) == {"web-1", "web-2"} and set(compose.values()) == {uri}


@pytest.mark.slow
def test_the_shipped_caddyfile_spreads_requests_and_hides_a_killed_process(
    tmp_path: Path,
    postgres_url: str,
    redis_url: str,
    make_caddy: Callable[..., CaddyProxy],
) -> None:
    env = service_env(postgres_url, redis_url, allowed_hosts=SITE)
    with nodes() as started, httpx.Client(timeout=20) as client:
        first = Node.serve("A", env, tmp_path)
        started.append(first)
        first.wait_ready()  # the first process brings the empty database's schema up
        second = Node.serve("B", env, tmp_path)
        started.append(second)
        second.wait_ready()
        proxy = make_caddy([first.port, second.port], host=SITE)
        # The upstream's own address is refused by the gate like any host not the site's ...
        direct = client.get(f"{first.url}/api/rules")
        assert direct.status_code == 400 and direct.json()["error"]["code"] == "invalid_host"

        # ... yet its health checks pass: requests keep being answered, by both processes,
        # through the first active health checks and beyond.
        seen: set[str] = set()
        until = time.monotonic() + caddyfile_seconds("health_interval") + 1.5
        while time.monotonic() < until:
            answer = client.get(f"{proxy.url}/api/rules")
            assert answer.status_code == 200, (answer.status_code, answer.text)
            seen.add(answer.headers[PROCESS_HEADER])
        assert seen == {"A", "B"}

        # The metrics are the monitoring's, on the inside only.
        assert client.get(f"{proxy.url}/metrics").status_code == 404
        inside = client.get(f"{first.url}/metrics", headers={"Host": SITE})
        assert inside.status_code == 200 and "# TYPE" in inside.text

        # A web process dies just as the round robin is about to send it the next request (a
        # new game: a body the proxy must send again): that request and the following ones go
        # to the other process.
        for _ in range(4):
            if client.get(f"{proxy.url}/api/health").headers[PROCESS_HEADER] == "A":
                break
        second.kill(signal.SIGKILL)
        answers: list[tuple[int, str]] = []
        for index in range(30):
            if index % 3 == 0:
                answer = client.post(
                    f"{proxy.url}/api/games",
                    json={"rules": "cooper", "opponent": {"type": "friend"}, "color": "blue"},
                )
            else:
                answer = client.get(f"{proxy.url}/api/health")
            answers.append((answer.status_code, answer.headers.get(PROCESS_HEADER, "the proxy")))
        expected = [(201 if index % 3 == 0 else 200, "A") for index in range(30)]
        assert answers == expected, proxy.log.read_text()[-3000:]
