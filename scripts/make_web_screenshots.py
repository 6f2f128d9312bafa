"""Screenshots of the web app for docs/web.md: start the server on a temporary SQLite file, drive
the system's Chromium with Playwright, and save docs/images/web-{lobby,game,game-over,phone}.png.

    python scripts/make_web_screenshots.py [--out docs/images]
"""

from __future__ import annotations

import argparse
import re
import socket
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import Page, ViewportSize, sync_playwright

from bluegray.web.app import create_app
from bluegray.web.platform.settings import Settings

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP: ViewportSize = {"width": 1180, "height": 860}
PHONE: ViewportSize = {"width": 360, "height": 740}


def serve(database: Path) -> tuple[str, uvicorn.Server, threading.Thread]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    settings = Settings(
        database_url=f"sqlite:///{database}", ai_processes=False, ai_workers=1, rate_limits=False
    )
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, thread


def new_game(page: Page, url: str, rules: str, level: int, clock: bool = False) -> None:
    page.goto(url + "/")
    page.select_option("#rules", rules)
    page.select_option("#level", str(level))
    page.check('input[name="color"][value="blue"]')
    if clock:
        page.check('input[name="clock"][value="on"]')
    page.click("#start")
    page.wait_for_url(re.compile(r".*/game/.+"))
    page.wait_for_selector('#main[data-my-turn="true"]')


def click_move(page: Page, move: str) -> None:
    ply = int(page.locator("#main").get_attribute("data-ply") or "0")
    for point in re.split(r"[-x]", move):
        page.locator(f'#board [data-point="{point}"]').click()
    page.wait_for_selector(
        f'#main[data-ply="{ply + 2}"][data-my-turn="true"], #game-over:not([hidden])'
    )


def legal(page: Page) -> list[str]:
    values = page.locator("#legal-moves option").evaluate_all("o => o.map(x => x.value)")
    return [str(value) for value in values]


def play_to_the_end(page: Page) -> None:
    for _ in range(300):
        if page.locator("#game-over").is_visible():
            return
        captain = page.locator("#board [data-kind=captain][data-side=blue]").get_attribute(
            "data-piece"
        )
        moves = legal(page)
        click_move(page, next((m for m in moves if m.startswith(f"{captain}-")), moves[0]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    out: Path = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        url, server, thread = serve(Path(tmp) / "games.sqlite3")
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            desktop = browser.new_page(viewport=DESKTOP)
            # A finished game (for the lobby's list and the game-over picture).
            new_game(desktop, url, "super-light", 1)
            play_to_the_end(desktop)
            desktop.locator("#game-over").wait_for()
            desktop.screenshot(path=str(out / "web-game-over.png"))
            print(desktop.locator("#game-over").inner_text())

            # A game in progress with a clock, a piece selected.
            new_game(desktop, url, "sackson", 2, clock=True)
            for move in ["d2-d3", "c2-c3", "f2-f3"]:
                click_move(desktop, move)
            desktop.locator('#board [data-point="d3"]').click()
            desktop.locator("#board [data-target]").first.wait_for()
            desktop.screenshot(path=str(out / "web-game.png"))

            desktop.goto(url + "/")
            desktop.locator("#games li a").first.wait_for()
            desktop.screenshot(path=str(out / "web-lobby.png"))

            phone = browser.new_page(viewport=PHONE, has_touch=True, is_mobile=True)
            new_game(phone, url, "super", 1)
            phone.locator('#board [data-point="e2"]').tap()
            phone.locator("#board [data-target]").first.wait_for()
            phone.screenshot(path=str(out / "web-phone.png"))
        finally:
            browser.close()
            server.should_exit = True
            thread.join(timeout=20)
    for name in ["web-lobby", "web-game", "web-game-over", "web-phone"]:
        path = out / f"{name}.png"
        print(f"{path}: {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
