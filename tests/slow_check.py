"""The ``slow`` marker's check (``pytest --slow-check``): a test marked slow takes more than
``SLOW_SECONDS``, and a test that takes more is marked slow.

Each test's time is its setup, call and teardown, as ``--durations`` counts them (a module's or
session's fixtures are counted on the test that starts them, so the first test of a module may
look slower than it is: the check names it and the time of each phase). Times depend on the
machine and on what else runs, so the check reports, and fails the run, only when asked to:
run it on an idle machine, without workers (docs/testing.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import pytest

SLOW_SECONDS: Final = 5.0
MARGIN: Final = 0.25
"""Tests within this share of ``SLOW_SECONDS`` either way are not reported: a test's time varies
from run to run."""


@dataclass
class _Times:
    marked_slow: bool
    phases: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return sum(self.phases.values())


class SlowCheck:
    """Collects every test's time and reports the ``slow`` markers that do not fit it."""

    def __init__(self) -> None:
        self.times: dict[str, _Times] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        times = self.times.setdefault(report.nodeid, _Times("slow" in report.keywords))
        times.phases[report.when] = times.phases.get(report.when, 0.0) + report.duration

    def violations(self) -> list[str]:
        lines = []
        for nodeid, times in sorted(self.times.items(), key=lambda entry: -entry[1].total):
            phases = ", ".join(f"{when} {seconds:.1f} s" for when, seconds in times.phases.items())
            if times.marked_slow and times.total < SLOW_SECONDS * (1 - MARGIN):
                lines.append(f"marked slow but took {times.total:.1f} s ({phases}): {nodeid}")
            elif not times.marked_slow and times.total > SLOW_SECONDS * (1 + MARGIN):
                lines.append(f"not marked slow but took {times.total:.1f} s ({phases}): {nodeid}")
        return lines

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        lines = self.violations()
        terminalreporter.section("slow markers")
        terminalreporter.line(
            f"{len(lines)} test(s) whose slow marker does not fit its time "
            f"(slow: over {SLOW_SECONDS:.0f} s)"
        )
        for line in lines:
            terminalreporter.line(line)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.violations() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def add_option(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow-check",
        action="store_true",
        help=f"report (and fail on) tests marked slow that take under {SLOW_SECONDS:.0f} s, "
        "and tests not marked slow that take longer (docs/testing.md)",
    )


def configure(config: pytest.Config) -> None:
    if config.getoption("--slow-check") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(SlowCheck(), "bluegray-slow-check")
