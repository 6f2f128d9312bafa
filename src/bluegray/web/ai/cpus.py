"""How many CPUs this process may really use: the ones its affinity mask allows, capped by a
cgroup CPU quota (a container limited to 1.5 CPUs on a 64-core host gets 2 workers, not 64).
``os.cpu_count()`` counts the host's CPUs and ignores both."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Final

CGROUP_V2: Final = Path("/sys/fs/cgroup/cpu.max")
CGROUP_V1_QUOTA: Final = Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
CGROUP_V1_PERIOD: Final = Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us")


def quota_cpus(cpu_max: str | None = None, v1: tuple[str, str] | None = None) -> float | None:
    """The CPU quota as a number of CPUs (``None``: no quota). Reads cgroup v2's ``cpu.max``
    (``"150000 100000"`` is 1.5 CPUs, ``"max 100000"`` none), else cgroup v1's quota and period;
    the texts may be given instead, for tests."""
    if cpu_max is None and v1 is None:
        cpu_max = _read(CGROUP_V2)
        if cpu_max is None:
            quota, period = _read(CGROUP_V1_QUOTA), _read(CGROUP_V1_PERIOD)
            v1 = None if quota is None or period is None else (quota, period)
    if cpu_max is not None:
        parts = cpu_max.split()
        if len(parts) == 2 and parts[0] != "max":
            return _ratio(parts[0], parts[1])
        return None
    if v1 is not None:
        return _ratio(*v1)
    return None


def usable_cpus() -> int:
    """The CPUs this process may use: at least 1."""
    try:
        allowed = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        allowed = os.cpu_count() or 1
    quota = quota_cpus()
    if quota is not None:
        allowed = min(allowed, math.ceil(quota))
    return max(1, allowed)


def _ratio(quota: str, period: str) -> float | None:
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    if q <= 0 or p <= 0:
        return None
    return q / p


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None
