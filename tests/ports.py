"""Free loopback ports for the tests' servers, without races between parallel test workers.

A port the kernel picks (``bind`` to port 0) comes from its ephemeral range, which every outgoing
connection and every other test worker draws from too: a port found free and bound by a server
a moment later could be taken in between. So the tests take their ports from a range below the
ephemeral one (Linux's starts at 32768), which no outgoing connection uses, and each pytest-xdist
worker (``PYTEST_XDIST_WORKER`` gw0, gw1, ...) from its own slice of it: within a worker the
ports are handed out in turn, each checked free when it is given, so two servers of one worker
never get the same port either.
"""

from __future__ import annotations

import itertools
import os
import random
import socket
import threading
from typing import Final

HOST: Final = "127.0.0.1"
PORTS: Final = range(12000, 32000)
"""The tests' ports: below the kernel's ephemeral range (``/proc/sys/net/ipv4/ip_local_port_range``,
32768-60999 on Linux)."""


def worker_ports(environment: dict[str, str] | os._Environ[str] = os.environ) -> range:
    """This test process's slice of ``PORTS``: all of it without pytest-xdist, else the slice
    of its worker (``gw3`` of 4 workers: the fourth quarter)."""
    worker = environment.get("PYTEST_XDIST_WORKER", "")
    count = int(environment.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or count < 2:
        return PORTS
    index = int(worker[2:]) % count
    span = len(PORTS) // count
    start = PORTS.start + index * span
    return range(start, start + span)


_lock = threading.Lock()
_ports = worker_ports()
# From a random place in the slice: another test run on the machine at the same time (without
# workers, or with as many) most likely starts elsewhere, and is told "in use" where it does not.
_turns = itertools.count(random.randrange(len(_ports)))


def free_port() -> int:
    """A TCP port of this test process's own that nothing listens on now, on the loopback
    address (the next free one of ``worker_ports``, in turn)."""
    with _lock:
        for _ in range(len(_ports)):
            port = _ports[next(_turns) % len(_ports)]
            with socket.socket() as sock:
                try:
                    sock.bind((HOST, port))
                except OSError:
                    continue
            return port
    raise OSError(f"no free port among {_ports}")
