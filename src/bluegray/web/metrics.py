"""What a web process tells Prometheus at ``/metrics`` (prometheus_client): moves and how long
they take, the AI's queue and how long its moves take, open sockets, errors by code.

Each app has a registry of its own (tests run several apps in one process). Figures that need
Redis or the database to read (the AI queue's depth, live workers) are refreshed by the
heartbeat, not read at scrape time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

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
