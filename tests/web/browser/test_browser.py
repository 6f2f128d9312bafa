"""The play pages in a real browser (headless Chromium driven by Playwright): a game against the
AI played to the end by clicking, an online game between two browsers with a spectator and a
multi-jump capture entered point by point, a phone with touch, and keyboard entry and flipping.

Every wait is on a condition of the page (the game page mirrors its state in attributes of
``<main>``: ``data-ply``, ``data-turn``, ``data-my-turn``, ``data-status``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from bluegray import Game, RuleSet

Json = dict[str, Any]

PHONE = {"width": 360, "height": 740}

#: A game of super-light where Blue's sixth move is the double capture d5xd7xd9 (found with the
#: library: the only legal move there).
TO_DOUBLE_CAPTURE = [
    "b2-b3",
    "e8-e7",
    "d2-d3",
    "e7-d7",
    "d3-d4",
    "f8-e8",
    "d4-d5",
    "e8-f8",
    "e1-d2",
    "d7-d6",
]
DOUBLE_CAPTURE = "d5xd7xd9"

GAME_OVER = re.compile(
    r"^(Blue wins|Gray wins|Draw): .*(centre|ahead|repeated|no progress|no legal move|resigned"
    r"|agreed|time ran out|left the game)"
)


def test_the_double_capture_sequence_is_what_the_library_says() -> None:
    game = Game("super-light")
    for move in TO_DOUBLE_CAPTURE:
        game.push(move)
    assert [str(move) for move in game.legal_moves] == [DOUBLE_CAPTURE]


def ply_of(page: Page) -> int:
    return int(page.locator("#main").get_attribute("data-ply") or "0")


def wait_ply(page: Page, ply: int) -> None:
    page.wait_for_selector(f'#main[data-ply="{ply}"]')


def legal_moves(page: Page) -> list[str]:
    return [
        str(value)
        for value in page.locator("#legal-moves option").evaluate_all(
            "options => options.map(o => o.value)"
        )
    ]


def click_move(page: Page, move: str, *, tap: bool = False) -> None:
    """Enter a move on the board point by point, checking each next point is offered."""
    points = re.split(r"[-x]", move)
    for index, point in enumerate(points):
        if index > 0:
            expect(page.locator(f'#board [data-target="{point}"]')).to_have_count(1)
        target = page.locator(f'#board [data-point="{point}"]')
        if tap:
            target.tap()
        else:
            target.click()


def start_from_lobby(
    page: Page, url: str, *, rules: str, opponent: str, level: int = 1, tap: bool = False
) -> str:
    """Fill the lobby's form (Blue, no clock) and start; the game's id."""
    page.goto(url + "/")
    page.select_option("#rules", rules)
    page.check(f'input[name="opponent"][value="{opponent}"]')
    if opponent == "ai":
        page.select_option("#level", str(level))
    if opponent != "hotseat":
        page.check('input[name="color"][value="blue"]')
    if tap:
        page.locator("#start").tap()
    else:
        page.click("#start")
    page.wait_for_url(re.compile(r".*/game/[A-Za-z0-9_-]+$"))
    page.wait_for_selector("#main[data-ply]")
    return page.url.rsplit("/", 1)[1]


def test_a_game_against_the_ai_is_played_to_the_end_by_clicking(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page(viewport={"width": 1100, "height": 900})
    start_from_lobby(page, live_url, rules="super-light", opponent="ai", level=1)
    expect(page.locator("#bar-top")).to_contain_text("AI level 1")
    game_over = page.locator("#game-over")
    for _ in range(200):
        page.wait_for_selector('#main[data-my-turn="true"], #game-over:not([hidden])')
        if game_over.is_visible():
            break
        ply = ply_of(page)
        moves = legal_moves(page)
        # The captain's moves first (a shorter game), else the first legal move.
        captain = page.locator("#board [data-kind=captain][data-side=blue]").get_attribute(
            "data-piece"
        )
        move = next((m for m in moves if m.startswith(f"{captain}-")), moves[0])
        click_move(page, move)
        page.wait_for_selector(
            f'#main[data-ply="{ply + 2}"][data-my-turn="true"], #game-over:not([hidden])'
        )
    expect(game_over).to_be_visible()
    assert GAME_OVER.match(game_over.inner_text()), game_over.inner_text()
    expect(page.locator('#actions [data-action="offer_rematch"]')).to_be_visible()
    expect(page.locator("#move-form")).to_be_hidden()


def test_two_browsers_play_online_with_a_double_capture_and_a_spectator(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    blue = new_page()
    game_id = start_from_lobby(blue, live_url, rules="super-light", opponent="friend")
    link = blue.locator("#invite-link")
    expect(link).to_be_visible()
    invite = link.input_value()
    assert invite.startswith(f"{live_url}/game/{game_id}#join=")

    watcher = new_page()
    watcher.goto(f"{live_url}/game/{game_id}")
    expect(watcher.locator("#seat")).to_have_text("You are watching.")
    gray = new_page()
    gray.goto(invite)
    expect(gray.locator("#seat")).to_have_text("You play Gray.")
    expect(blue.locator("#invite")).to_be_hidden()
    expect(gray.locator("#bar-bottom")).to_contain_text("Gray (you)")  # flipped for Gray

    # News is said once: the join is announced, and the first move replaces it.
    for page in (blue, watcher):
        expect(page.locator("#message")).to_have_text("Gray joined the game.")
    for ply, move in enumerate(TO_DOUBLE_CAPTURE, start=1):
        mover = blue if ply % 2 == 1 else gray
        mover.wait_for_selector('#main[data-my-turn="true"]')
        click_move(mover, move)
        for page in (blue, gray, watcher):
            wait_ply(page, ply)
        if ply == 1:
            for page in (blue, gray, watcher):
                expect(page.locator("#message")).to_have_text("")

    # The double capture, point by point: after d5 and d7, only d9 is offered.
    blue.wait_for_selector('#main[data-my-turn="true"]')
    blue.locator('#board [data-point="d5"]').click()
    expect(blue.locator("#board [data-target]")).to_have_count(1)
    blue.locator('#board [data-point="d7"]').click()
    expect(blue.locator("#board [data-target]")).to_have_count(1)
    expect(blue.locator('#board [data-target="d9"]')).to_have_count(1)
    expect(blue.locator("#message")).to_contain_text("d5xd7")
    assert ply_of(blue) == len(TO_DOUBLE_CAPTURE)  # nothing sent yet
    blue.locator('#board [data-point="d9"]').click()

    total = len(TO_DOUBLE_CAPTURE) + 1
    expected = [*TO_DOUBLE_CAPTURE, DOUBLE_CAPTURE]
    for page in (blue, gray, watcher):
        wait_ply(page, total)
        assert page.locator("#moves .mv").all_inner_texts() == expected
        expect(page.locator('.player-bar[data-side="blue"] [data-captures="2"]')).to_have_count(1)
        expect(page.locator('#board [data-captured="d6"]')).to_have_count(1)
        expect(page.locator('#board [data-captured="d8"]')).to_have_count(1)
        expect(page.locator('#board [data-piece="d9"][data-side="blue"]')).to_have_count(1)
    # The spectator cannot move: clicking selects nothing and no move form is shown.
    watcher.locator('#board [data-point="a8"]').click()
    expect(watcher.locator("#board [data-target]")).to_have_count(0)
    expect(watcher.locator("#move-form")).to_be_hidden()
    expect(watcher.locator('#actions [data-action="resign"]')).to_be_hidden()

    # Gray offers a draw, Blue accepts: both pages and the spectator say so.
    gray.locator('#actions [data-action="offer_draw"]').click()
    blue.locator('#actions [data-action="accept_draw"]').click()
    for page in (blue, gray, watcher):
        expect(page.locator("#game-over")).to_contain_text("Draw: agreed")


def test_a_phone_plays_by_tapping_and_nothing_scrolls_sideways(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
    start_from_lobby(page, live_url, rules="sackson", opponent="ai", level=1, tap=True)
    page.wait_for_selector('#main[data-my-turn="true"]')
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    box = page.locator("#board").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert box["width"] >= 300  # the board takes the width
    click_move(page, "d2-d3", tap=True)
    wait_ply(page, 2)
    expect(page.locator("#moves .mv").first).to_have_text("d2-d3")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_moves_typed_or_entered_with_the_keyboard_and_flipping(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page()
    start_from_lobby(page, live_url, rules="sackson", opponent="hotseat")
    expect(page.locator("#seat")).to_have_text("You play both sides.")

    # A typed move, with the legal moves as suggestions.
    field = page.locator("#move")
    assert "d2-d3" in legal_moves(page)
    field.fill("D2-D3")
    field.press("Enter")
    wait_ply(page, 1)
    expect(page.locator('#board [data-piece="d3"][data-side="blue"]')).to_have_count(1)

    # An illegal one: the library's reason, as the terminal gives it, and what that piece could
    # do instead; nothing changes and the box is emptied for the next try.
    message = page.locator("#message")
    field.fill("e8-e6")
    field.press("Enter")
    expect(message).to_have_text(
        "Illegal move 'e8-e6': that piece cannot move there. From e8: e8-e7"
    )
    expect(message).to_have_class(re.compile(r"\berror\b"))
    expect(field).to_have_value("")
    assert ply_of(page) == 1
    expect(page.locator("#moves .mv")).to_have_count(1)
    expect(page.locator('#board [data-piece="e8"]')).to_have_count(1)
    # Text that is no move at all gets the format, with an example that is a real capture.
    field.fill("e8e7")
    field.press("Enter")
    expect(message).to_have_text(
        "Not a move: “e8e7”. Write it from-to, like d2-d3, or a capture with each landing,"
        " like b2xb4xd4."
    )
    expect(field).to_have_value("")

    # The board itself: focus it, move the cursor with the arrows, Enter to pick and drop.
    board = page.locator("#board")
    board.focus()
    for key in ["ArrowUp", "ArrowUp", "ArrowUp", "Enter"]:  # e5 -> e8
        board.press(key)
    expect(page.locator('#board [data-target="e7"]')).to_have_count(1)
    board.press("ArrowDown")
    board.press("Enter")
    wait_ply(page, 2)
    expect(page.locator("#moves .mv")).to_have_text(["d2-d3", "e8-e7"])

    # Clicking an empty point or the other side's piece says why nothing happens.
    page.locator('#board [data-point="e4"]').click()
    expect(message).to_have_text("No piece on e4: click one of Blue's pieces, then where it goes.")
    page.locator('#board [data-point="e7"]').click()
    expect(message).to_have_text(
        "That is a Gray piece, and it is Blue's move: click one of Blue's pieces."
    )
    expect(page.locator("#board [data-target]")).to_have_count(0)

    # Flipping puts a1 in the top right corner and Blue's bar on top.
    before = page.locator('#board [data-point="a1"]').bounding_box()
    page.click("#flip")
    after = page.locator('#board [data-point="a1"]').bounding_box()
    assert before is not None and after is not None
    assert after["x"] > before["x"] and after["y"] < before["y"]
    expect(page.locator("#flip")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#bar-top")).to_contain_text("Blue")

    # Resigning asks first, then names the winner and the reason.
    page.click('#actions [data-action="resign"]')
    page.click("#resign-yes")
    expect(page.locator("#game-over")).to_contain_text("Gray wins: Blue resigned")


def test_every_ending_is_put_in_words(live_url: str, new_page: Callable[..., Page]) -> None:
    page = new_page()
    page.goto(live_url + "/")
    sackson = {"settings": {"lead": "none", "stalemate": "impasse", "impasse-plies": "100"}}
    cooper = {"settings": {"lead": "3", "stalemate": "loss", "impasse-plies": "100"}}

    def ended(reason: str, winner: str | None, rules: Json = sackson, turn: str = "blue") -> Json:
        result = {"blue": "1-0", "gray": "0-1", None: "1/2-1/2"}[winner]
        outcome = {"winner": winner, "reason": reason, "result": result, "description": ""}
        return {"status": "finished", "rules": rules, "turn": turn, "outcome": outcome}

    cases: list[tuple[Json, str]] = [
        (ended("center", "blue"), "Blue wins: captain reached the centre (1-0)."),
        (ended("lead", "gray", cooper), "Gray wins: captain 3 steps ahead (0-1)."),
        (ended("repetition", None), "Draw: impasse (position repeated three times) (1/2-1/2)."),
        (
            ended("no-progress", "gray"),
            "Gray wins: impasse (no progress in 100 moves) — captain farther advanced (0-1).",
        ),
        (
            ended("stalemate", "gray"),
            "Gray wins: impasse (Blue has no legal move) — captain farther advanced (0-1).",
        ),
        (ended("stalemate", "blue", cooper, "gray"), "Blue wins: Gray has no legal move (1-0)."),
        (ended("resign", "blue"), "Blue wins: Gray resigned (1-0)."),
        (ended("agreement", None), "Draw: agreed (1/2-1/2)."),
        (ended("time", "gray"), "Gray wins: Blue's time ran out (0-1)."),
        (ended("abandoned", "blue"), "Blue wins: Gray left the game (1-0)."),
        ({"status": "aborted", "outcome": None, "rules": sackson}, "Game aborted — no result."),
    ]
    words = page.evaluate(
        "async (games) => games.map((await import('/static/play-outcome.js')).outcomeText)",
        [game for game, _ in cases],
    )
    assert words == [text for _, text in cases]


def test_a_dropped_connection_reconnects_and_catches_up(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page()
    game_id = start_from_lobby(page, live_url, rules="sackson", opponent="hotseat")
    expect(page.locator("#connection")).to_have_text("Connected.")
    token = page.evaluate(f"localStorage.getItem('bluegray.seat.{game_id}')")
    page.evaluate("window.bluegray.dropConnection()")
    expect(page.locator("#connection")).to_contain_text("reconnecting")
    # A move made meanwhile (over HTTP) is shown once the page is back.
    answer = page.request.post(
        f"{live_url}/api/games/{game_id}/moves",
        data={
            "move": "d2-d3",
            "version": int(page.locator("#main").get_attribute("data-version") or 0),
        },
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.ok, answer.text()
    wait_ply(page, 1)
    expect(page.locator("#connection")).to_have_text("Connected.")
    expect(page.locator("#moves .mv")).to_have_text(["d2-d3"])


RECORD_SOCKETS = """
window.openedAt = {};
window.connectDelays = [];
const nativeSetTimeout = window.setTimeout;
window.setTimeout = function (handler, delay, ...rest) {
  if (typeof handler === "function" && handler.name === "connect") {
    window.connectDelays.push(delay ?? 0);
  }
  return nativeSetTimeout.call(this, handler, delay, ...rest);
};
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  constructor(...args) {
    super(...args);
    const url = String(args[0]);
    window.openedAt[url] = [...(window.openedAt[url] || []), performance.now()];
  }
};
document.addEventListener("DOMContentLoaded", () => {
  const line = document.getElementById("connection");
  if (!line) return;
  new MutationObserver(() => {
    if (line.textContent.startsWith("The server is restarting")) {
      window.restartHeardAt = window.restartHeardAt ?? performance.now();
    }
  }).observe(line, { childList: true, characterData: true, subtree: true });
});
"""
"""Record in the page when each WebSocket was opened, by address, the delay of each reconnection
the page schedules, and when the page heard that the server restarts (its connection line says
so in the socket's close handler)."""


def test_a_server_that_restarts_is_left_at_once_for_another(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page()
    page.add_init_script(RECORD_SOCKETS)
    games: list[WebSocketRoute] = []

    def through(socket: WebSocketRoute) -> None:
        socket.connect_to_server()
        games.append(socket)

    page.route_web_socket(re.compile(r"/ws/games/"), through)
    game_id = start_from_lobby(page, live_url, rules="sackson", opponent="hotseat")
    expect(page.locator("#connection")).to_have_text("Connected.")
    url = live_url.replace("http", "ws") + f"/ws/games/{game_id}"
    games[-1].close(code=1012, reason="the server is restarting")  # as a deploy stops it
    page.wait_for_function(f"() => window.openedAt[{url!r}].length === 2")
    expect(page.locator("#connection")).to_have_text("Connected.")
    assert page.evaluate("window.restartHeardAt") is not None  # it said why it reconnects
    # At once, not after a backoff (at least 375 ms): the delay the page chose, not the time it
    # took, which a loaded machine stretches (1.4 s once in CI, three workers on two cores).
    delays = page.evaluate("window.connectDelays")
    assert len(delays) == 1 and 0 <= delays[0] < 300, delays  # ms


def test_a_hint_suggests_a_legal_move_and_marks_it_on_the_board(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page()
    game_id = start_from_lobby(page, live_url, rules="sackson", opponent="ai", level=1)
    page.wait_for_selector('#main[data-my-turn="true"]')
    moves = legal_moves(page)
    button = page.locator("#hint")
    expect(button).to_be_visible()
    expect(page.locator("#board [data-hint]")).to_have_count(0)

    # Asked with the keyboard: the button waits (disabled, keeping the focus), then the move
    # shows in words and on the board.
    button.focus()
    button.press("Enter")
    expect(button).to_have_attribute("aria-disabled", "true")
    words = page.locator("#hint-text")
    expect(words).to_have_attribute("data-move", re.compile(r"\S"))
    hinted = words.get_attribute("data-move") or ""
    assert hinted in moves, (hinted, moves)
    expect(words).to_have_text(re.compile(rf"^Hint: {re.escape(hinted)} — \S"))
    expect(button).to_have_attribute("aria-disabled", "false")
    expect(button).to_be_focused()
    start, *landings = re.split(r"[-x]", hinted)
    marks = page.locator("#board [data-hint]")
    expect(marks).to_have_count(1 + len(landings))
    expect(page.locator(f'#board [data-hint="{start}"][data-hint-role="from"]')).to_have_count(1)
    for point in landings:
        expect(page.locator(f'#board [data-hint="{point}"][data-hint-role="to"]')).to_have_count(1)
    path = page.locator("#board [data-hint-path]")
    expect(path).to_have_count(1)
    assert (path.get_attribute("data-hint-path") or "").split()[0] == start
    expect(page.locator("#message")).not_to_have_class(re.compile(r"\berror\b"))

    # Playing it clears the hint; the AI answers and the button is back for the next move.
    click_move(page, hinted)
    page.wait_for_selector('#main[data-ply="2"][data-my-turn="true"]')
    expect(marks).to_have_count(0)
    expect(words).to_have_text("")
    expect(button).to_be_visible()

    # A spectator gets no hint button.
    watcher = new_page()
    watcher.goto(f"{live_url}/game/{game_id}")
    expect(watcher.locator("#seat")).to_have_text("You are watching.")
    expect(watcher.locator("#hint-box")).to_be_hidden()


def test_custom_settings_are_checked_and_named_once(
    live_url: str, new_page: Callable[..., Page]
) -> None:
    page = new_page()
    page.goto(live_url + "/")
    page.select_option("#rules", "custom")
    page.fill("#custom-rules", "cooper impasse-plies=50")
    page.click("#check-rules")
    result = page.locator("#custom-rules-result")
    expect(result).to_have_class(re.compile(r"\bok\b"))
    settings = str(RuleSet.parse("cooper impasse-plies=50").settings_text())
    expect(result).to_contain_text(settings)
    assert result.inner_text().count(settings) == 1, result.inner_text()
    page.fill("#custom-rules", "cooper captain=warp")
    page.click("#check-rules")
    expect(result).to_contain_text("✗")
    expect(result).to_contain_text("warp")
