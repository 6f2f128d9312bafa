"""Processes as Linux's /proc shows them, for tests that kill real processes and check that
nothing outlives them: whether one still runs, and what a process started."""

from __future__ import annotations

from pathlib import Path


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not count: it has ended, and only its
    parent's wait is missing)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def descendants(pid: int) -> set[int]:
    """The processes ``pid`` started, and theirs, and so on."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found
