"""Playwright fixtures for the web app's browser tests, shared by every ``test_*browser*`` file.

- ``browser``: one headless Chromium for each test module that uses it (the system's
  ``/usr/bin/chromium``; Playwright's own browsers are never downloaded). Not for the whole
  session: while Playwright's sync API is alive it marks an asyncio loop as running in the main
  thread, so ``asyncio.run`` in a later, unrelated test would fail; a module's browser is closed
  when the module is done (starting one takes well under a second).
- ``live_url``: the base URL (``http://127.0.0.1:PORT``) of the app on a real port, on a fresh
  database, for one test (uvicorn in a thread: ``conftest.LiveServer``); each browser test runs
  on SQLite and on PostgreSQL (``conftest.database_url``).
- ``new_page``: make a page in a new browser context (its own cookies and ``localStorage``, so
  two calls are two different players), closed at the end of the test; keywords go to
  ``Browser.new_context`` (e.g. ``viewport={"width": 360, "height": 740}, has_touch=True``).

They are imported by ``conftest.py``, so every test module of ``tests/web`` can use them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from tests.web.conftest import LiveServer, settings_for

__all__ = ["browser", "live_server", "live_url", "new_page", "playwright_instance"]

CHROMIUM: str = "/usr/bin/chromium"
CHROMIUM_ARGS: list[str] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
]
#: How long a browser test waits for any one condition (milliseconds).
TIMEOUT_MS: int = 15_000


@pytest.fixture(scope="module")
def playwright_instance() -> Iterator[Playwright]:
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="module")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    """A headless Chromium shared by the tests of a module."""
    chromium = playwright_instance.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
    )
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture
def live_server(database_url: str, newest_schema: Callable[[], None]) -> Iterator[LiveServer]:
    """The app on a real port with a fresh database, SQLite and PostgreSQL in turn (rate limits
    off: the browser contexts of a test all come from 127.0.0.1)."""
    newest_schema()
    with LiveServer(settings_for(database_url, rate_limits=False)) as server:
        yield server


@pytest.fixture
def live_url(live_server: LiveServer) -> str:
    """The base URL of ``live_server``, e.g. ``http://127.0.0.1:53211`` (no trailing slash)."""
    return live_server.url


@pytest.fixture
def new_page(browser: Browser) -> Iterator[Callable[..., Page]]:
    """Make a page in a fresh browser context; every context is closed after the test."""
    contexts: list[Any] = []

    def make(**context_options: Any) -> Page:
        context = browser.new_context(**context_options)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    try:
        yield make
    finally:
        for context in contexts:
            context.close()
