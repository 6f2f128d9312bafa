"""Processes that end with the process that started them, however it ends.

A process that dies of SIGKILL (or of SIGTERM, which Python does not catch) runs no clean-up, so
it cannot stop the processes it started: on Linux each child asks the kernel to kill it when its
parent dies (``die_with_parent``). Elsewhere the parent stops its children itself when it exits.
"""

from __future__ import annotations

import ctypes
import os
import signal
from typing import Final

PR_SET_PDEATHSIG: Final = 1
"""The ``prctl`` option that names the signal a process gets when its parent dies (Linux)."""


def die_with_parent(parent_pid: int, signum: int = signal.SIGKILL) -> bool:
    """Have the kernel send ``signum`` to this process when ``parent_pid``, its parent, dies
    (Linux; elsewhere nothing happens); ``False`` when the parent has died already, before it
    could be followed (the caller should exit).

    The kernel watches the parent's thread that started this process: that thread must live as
    long as this process should (a main thread, or one that waits for this process)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signum)
    except (OSError, AttributeError):  # not Linux: the parent stops its children itself
        pass
    return os.getppid() == parent_pid
