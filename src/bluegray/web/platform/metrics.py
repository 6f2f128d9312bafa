"""What a web process tells Prometheus at ``/metrics`` (prometheus_client): moves and how long
they take, the AI's queue and how long its moves take, open sockets, errors by code; and what a
``bluegray worker`` tells it on its own port: jobs by priority, the queue's depth and age, the
AI's reply time, engine restarts and Redis reconnections.

Each app and worker has a registry of its own (tests run several apps in one process). Figures
that need Redis or the database to read (the AI queue's depth, live workers) are refreshed by the
heartbeat, not read at scrape time. A worker's engine processes report to their supervisor,
which alone keeps the figures (so no multiprocess mode is needed).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    start_http_server,
)

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0)
AI_BUCKETS: Final = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    def __init__(self, sockets: Callable[[], int]) -> None:
        registry = self.registry = CollectorRegistry()
        self.moves = Counter(
            "bluegray_moves",
            "Moves committed by this process, by who made them (human, ai).",
            ["by"],
            registry=registry,
        )
        self.move_seconds = Histogram(
            "bluegray_move_seconds",
            "A player's move in this process: from its arrival to its commit and publication.",
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.ai_reply_seconds = Histogram(
            "bluegray_ai_reply_seconds",
            "From the AI's turn to its move, for moves played by this process's own pool.",
            ["level"],
            buckets=AI_BUCKETS,
            registry=registry,
        )
        self.errors = Counter(
            "bluegray_errors",
            "Errors answered to clients (HTTP and WebSocket), by code.",
            ["code"],
            registry=registry,
        )
        self.ai_queue_depth = Gauge(
            "bluegray_ai_queue_depth",
            "AI jobs waiting or running (the whole cluster's when scaled out).",
            registry=registry,
        )
        self.ai_workers = Gauge(
            "bluegray_ai_workers",
            "Engine processes alive to take AI jobs.",
            registry=registry,
        )
        sockets_gauge = Gauge(
            "bluegray_open_sockets", "Game sockets open in this process.", registry=registry
        )
        sockets_gauge.set_function(lambda: float(sockets()))

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


JOB_BUCKETS: Final = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0)


class WorkerMetrics:
    """A ``bluegray worker``'s figures, served on a port of its own (``serve``)."""

    def __init__(self) -> None:
        registry = self.registry = CollectorRegistry()
        self.jobs = Counter(
            "bluegray_worker_jobs",
            "Jobs this worker finished, by priority (quick, short, long) and result (played, "
            "late: the game had moved on, analysed, failed, dropped: it killed its workers).",
            ["priority", "result"],
            registry=registry,
        )
        self.job_seconds = Histogram(
            "bluegray_worker_job_seconds",
            "The engine's time on a job, by priority.",
            ["priority"],
            buckets=JOB_BUCKETS,
            registry=registry,
        )
        self.ai_reply_seconds = Histogram(
            "bluegray_worker_ai_reply_seconds",
            "From an AI move's job being queued to its move being played, by priority.",
            ["priority"],
            buckets=JOB_BUCKETS,
            registry=registry,
        )
        self.queue_jobs = Gauge(
            "bluegray_worker_queue_jobs",
            "AI jobs waiting or running in the cluster's queue, by priority.",
            ["priority"],
            registry=registry,
        )
        self.queue_age_seconds = Gauge(
            "bluegray_worker_queue_oldest_seconds",
            "How long the oldest job waiting or running has been queued, by priority.",
            ["priority"],
            registry=registry,
        )
        self.engines = Gauge(
            "bluegray_worker_engine_processes",
            "This worker's engine processes taking jobs (alive and reaching Redis).",
            registry=registry,
        )
        self.engine_restarts = Counter(
            "bluegray_worker_engine_restarts",
            "Engine processes of this worker that stopped and were started again.",
            registry=registry,
        )
        self.redis_up = Gauge(
            "bluegray_worker_redis_up",
            "Whether this worker reached Redis at its last heartbeat (1) or not (0).",
            registry=registry,
        )
        self.redis_reconnections = Counter(
            "bluegray_worker_redis_reconnections",
            "Times this worker or one of its engine processes reached Redis again after losing it.",
            registry=registry,
        )
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    def serve(self, port: int, host: str) -> None:
        """Answer Prometheus's scrapes on ``host:port`` (in a thread)."""
        self._server, self._thread = start_http_server(port, addr=host, registry=self.registry)

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
