"""Logs an operator can follow (issue 38, defect 10): every request has an id (the caller's
sane ``X-Request-ID``, or a new one) that comes back in its answer, in its JSON error and in
every log line written for it; log times carry their time zone; the access log names the client
behind a trusted proxy; workers log JSON when asked; and the idle connection time is a setting
(defect 12). The log tests run real ``bluegray serve`` and ``bluegray worker`` processes."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.servers import free_port
from tests.web.cluster import Node, nodes, service_env
from tests.web.conftest import TestClient, idle_connection_seconds

ZONED_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00 ")
"""The start of a plain log line: ISO 8601 in UTC, the offset said."""


def test_a_request_id_comes_back_and_is_named_in_every_error(client: TestClient) -> None:
    given = {"X-Request-ID": "proxy-7f3a.1:2"}
    answer = client.get("/api/games/nothing-here", headers=given)
    assert answer.status_code == 404
    assert answer.headers["x-request-id"] == "proxy-7f3a.1:2"
    assert answer.json()["error"]["request_id"] == "proxy-7f3a.1:2"
    # The gate's own refusals (here a host name not served) and invalid bodies too.
    refused = client.get("/api/rules", headers={**given, "Host": "evil.example"})
    assert (
        refused.status_code == 400
        and refused.json()["error"]["request_id"] == given["X-Request-ID"]
    )
    assert refused.headers["x-request-id"] == given["X-Request-ID"]
    invalid = client.post("/api/games", json={"rules": 5}, headers=given)
    assert invalid.status_code == 422
    assert invalid.json()["error"]["request_id"] == given["X-Request-ID"]
    # Without one, each request gets an id of its own.
    first = client.get("/api/rules").headers["x-request-id"]
    second = client.get("/api/rules").headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", first) and first != second


@pytest.mark.parametrize(
    "given", ["", "two words", "x" * 129, "line\\nbreak", 'quote"d', "<script>", "ü"]
)
def test_a_request_id_that_is_not_plain_is_replaced(client: TestClient, given: str) -> None:
    answer = client.get("/api/rules", headers={"X-Request-ID": given.encode()})
    assert answer.status_code == 200
    assert re.fullmatch(r"[0-9a-f]{32}", answer.headers["x-request-id"])


def test_health_answers_under_any_host_name_and_nothing_else_does(client: TestClient) -> None:
    # Load balancers name the upstream's address as the host in their health checks.
    for host in ("10.0.0.7:8000", "web-1:8000", "evil.example"):
        assert client.get("/api/health", headers={"Host": host}).status_code == 200
        answer = client.get("/api/ready", headers={"Host": host})
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_host"


class Served:
    """A real ``bluegray serve`` with its access log on, and the lines it has logged."""

    def __init__(self, node: Node) -> None:
        self.node = node

    def lines_with(self, text: str, seconds: float = 10) -> list[str]:
        """The log lines containing ``text``, once there is one (or none after ``seconds``)."""
        deadline = time.monotonic() + seconds
        while True:
            found = [line for line in self.node.output().splitlines() if text in line]
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)  # poll interval: until the line is logged, up to ``seconds``


KEEP_ALIVE_SECONDS = 1
"""The test server's idle connection time, well below uvicorn's own default (5 s)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory: Path = tmp_path_factory.mktemp("logs")
    env = service_env(
        f"sqlite:///{directory / 'games.sqlite3'}",
        None,
        keep_alive_seconds=KEEP_ALIVE_SECONDS,
        ai_processes="false",
    )
    with nodes() as started:
        port = free_port()
        # As Node.serve starts it, with the access log on.
        node = Node("web-logs", ["serve", "--port", str(port)], env, directory / "web.log")
        node.port = port
        started.append(node)
        node.wait_ready()
        yield Served(node)


def test_the_log_lines_of_a_request_name_its_id_and_their_time_zone(served: Served) -> None:
    answer = httpx.get(
        f"{served.node.url}/api/games/no-such-game", headers={"X-Request-ID": "trace-4711"}
    )
    assert answer.status_code == 404 and answer.headers["x-request-id"] == "trace-4711"
    lines = served.lines_with("request=trace-4711")
    assert any('"GET /api/games/no-such-game HTTP/1.1" 404' in line for line in lines), lines
    assert all(ZONED_TIME.match(line) for line in lines), lines
    # A request that brought no id is logged under the one it was given.
    made = httpx.get(f"{served.node.url}/api/rules").headers["x-request-id"]
    lines = served.lines_with(f"request={made}")
    assert any('"GET /api/rules HTTP/1.1" 200' in line for line in lines), lines


def test_the_access_log_names_the_client_behind_a_trusted_proxy(served: Served) -> None:
    # This test is the proxy: the server trusts the loopback address (the default).
    answer = httpx.get(
        f"{served.node.url}/api/rules",
        headers={"X-Forwarded-For": "203.0.113.9", "X-Request-ID": "behind-proxy"},
    )
    assert answer.status_code == 200
    (line,) = served.lines_with("request=behind-proxy")
    assert " 203.0.113.9:" in line and "127.0.0.1" not in line, line


def test_an_idle_connection_stays_open_as_long_as_the_setting_says(served: Served) -> None:
    # The server closes it after the setting's time, not uvicorn's 5 s.
    idle = idle_connection_seconds(served.node.port)
    assert KEEP_ALIVE_SECONDS - 0.2 < idle < KEEP_ALIVE_SECONDS + 2.5


@pytest.mark.slow
def test_a_worker_logs_json_lines_when_asked(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = service_env(postgres_url, redis_url, log_json="true")
    with nodes() as started:
        web = Node.serve("web-j", env, tmp_path)
        started.append(web)
        web.wait_ready()  # the schema, for the worker
        worker = Node.worker("worker-j", env, tmp_path, processes=1)
        started.append(worker)
        # An AI game: the worker's engine process plays the AI's move and logs it.
        created = httpx.post(
            f"{web.url}/api/games",
            json={"opponent": {"type": "ai", "level": 1}, "color": "gray"},
            timeout=20,
        )
        assert created.status_code == 201, created.text
        deadline = time.monotonic() + 60
        records: list[dict[str, str]] = []
        while time.monotonic() < deadline and not any(
            "level 1 played" in record.get("message", "") for record in records
        ):
            time.sleep(0.1)  # poll interval: until the worker logs the move, up to 60 s
            lines = [line for line in worker.output().splitlines() if line.startswith("{")]
            records = [json.loads(line) for line in lines]
        played = [record for record in records if "level 1 played" in record["message"]]
        assert played, worker.output()
        assert played[0]["process_name"].startswith("worker-j")
        assert played[0]["levelname"] == "INFO" and played[0]["asctime"].endswith("+00:00")
        plain = [line for line in worker.output().splitlines() if ZONED_TIME.match(line)]
        assert plain == [], "a log line that is not JSON"
