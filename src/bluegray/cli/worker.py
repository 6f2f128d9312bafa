"""``bluegray worker``: the AI's engine processes for a scaled-out web service."""

from __future__ import annotations

import argparse
from typing import Any

from bluegray.cli.common import with_web_extra

HELP = "compute the AI's moves and analyses for web servers that share Redis"

DESCRIPTION = """\
Take AI moves and analyses from the job queue on Redis and compute them, for any number of
'bluegray serve' processes that share a database and Redis (docs/deploy.md). Run as many workers,
on as many machines, as the AI's load needs; each runs one engine process per CPU it may use
(its affinity and cgroup quota decide, not the host's CPU count), at most 2 unless told
(--processes; each holds about 250 MB), one of them kept for short jobs (levels 1-6, hints)
when there are two or more, and plays the moves it finds in their games itself.

The worker needs the same BLUEGRAY_DATABASE_URL and BLUEGRAY_REDIS_URL as the web processes
(or --database-url and --redis-url). It stops on SIGTERM or Ctrl+C, and its engine processes
stop with it; a job it was computing is handed back and taken up by another worker at once. It
keeps working through Redis restarts (waiting for Redis, then making the job queue again).
With --metrics-port it answers Prometheus at http://127.0.0.1:PORT/metrics.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "worker",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--redis-url", metavar="URL", help="Redis, e.g. redis://host:6379/0")
    parser.add_argument("--database-url", metavar="URL", help="the web service's database")
    parser.add_argument(
        "--processes",
        type=int,
        metavar="N",
        help="engine processes (default: BLUEGRAY_AI_WORKERS, else one per usable CPU, at most 2)",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        metavar="PORT",
        help="answer Prometheus at /metrics on this port (default: BLUEGRAY_WORKER_METRICS_PORT; "
        "0: none); BLUEGRAY_WORKER_METRICS_HOST sets the address (127.0.0.1)",
    )
    parser.add_argument("--name", metavar="NAME", help="this worker's name in logs and game events")
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("critical", "error", "warning", "info", "debug"),
        help="how much the worker logs (default: info)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    extra = with_web_extra("web_extra", "the worker needs")
    return int(extra.work(args))
