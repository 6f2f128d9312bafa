// The screen-reader mode of a board page: a toggle (remembered in localStorage) that makes the
// page say, in an aria-live region, each move in words ("Blue guard d2 to d3"), whose turn it
// is and the clocks, and the point under the keyboard cursor; "Read the board" writes every
// piece by point, "Read the clocks" the time each side has left (R and C on the board). The page's own words (the
// status line, the game-over line, the clock boxes) are read from the page, so this module
// only listens and speaks: game.js calls `speech.update(state, previous, event)` once a state
// is shown.
import { capturedPoints, movePoints, parsePosition } from "./board.js";

const KEY = "bluegray.speech";
const SIDES = { blue: "Blue", gray: "Gray" };

/** Whether the screen-reader mode is on (the visitor's choice, kept in this browser). */
export function speechOn() {
  try {
    return localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
}

function remember(on) {
  try {
    localStorage.setItem(KEY, on ? "on" : "off");
  } catch {
    // A browser that keeps nothing: the mode lasts as long as the page.
  }
}

/** A move in words: "Blue guard d2 to d3", "Blue guard d5 to d7 to d9, capturing d6 and d8".
 * `position` is the position after the move (the piece is found where it landed). */
export function moveWords(text, side, position) {
  const points = movePoints(text);
  const piece = parsePosition(position)[points[points.length - 1]];
  const who = `${SIDES[side]}${piece ? ` ${piece.kind}` : ""}`;
  let words = `${who} ${points.join(" to ")}`;
  if (text.includes("x")) words += `, capturing ${listWords(capturedPoints(points))}`;
  return words;
}

function listWords(items) {
  if (items.length < 2) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** Every piece of a position by point: "Blue: captain e1; guards a1, a2. Gray: ...". */
export function boardWords(position) {
  const pieces = parsePosition(position);
  const parts = [];
  for (const side of ["blue", "gray"]) {
    const kinds = {};
    for (const [point, piece] of Object.entries(pieces).sort(([a], [b]) => a.localeCompare(b))) {
      if (piece.side === side) (kinds[piece.kind] ||= []).push(point);
    }
    const words = ["captain", "guard", "private"]
      .filter((kind) => kinds[kind])
      .map((kind) => `${kind}${kinds[kind].length > 1 ? "s" : ""} ${kinds[kind].join(", ")}`);
    parts.push(`${SIDES[side]}: ${words.length ? words.join("; ") : "no pieces"}.`);
  }
  return parts.join(" ");
}

/** The clocks as the page shows them: "Clocks: Blue 4:05, Gray 3:59." ("" without a clock). */
function clockWords() {
  const times = [];
  for (const side of ["blue", "gray"]) {
    const box = document.querySelector(`[data-clock="${side}"]`);
    if (box && !box.hidden && box.textContent.trim()) times.push(`${SIDES[side]} ${box.textContent.trim()}`);
  }
  return times.length ? `Clocks: ${times.join(", ")}.` : "";
}

/**
 * Set up the screen-reader mode of a page with a played-on `board` (board.js's Board). The
 * page has `#speech-toggle` (a button with aria-pressed), `#speech` (the aria-live region),
 * `#read-board` and `#board-reading`, and optionally `#read-clocks`. `position()` gives the
 * position now shown.
 */
export function setUpSpeech(board, position) {
  const $ = (id) => document.getElementById(id);
  const toggle = $("speech-toggle");
  const region = $("speech");
  const reading = $("board-reading");
  const buttons = [$("read-board"), $("read-clocks")].filter(Boolean);
  let on = speechOn();

  function say(text) {
    if (on) region.textContent = text;
  }

  function show() {
    toggle.setAttribute("aria-pressed", String(on));
    for (const button of buttons) button.hidden = !on;
    if (!on) {
      region.textContent = "";
      reading.textContent = "";
      reading.hidden = true;
    }
  }

  toggle.addEventListener("click", () => {
    on = !on;
    remember(on);
    show();
    say(`Screen-reader mode on. ${turnWords()}`);
  });
  $("read-board").addEventListener("click", () => {
    reading.hidden = false;
    reading.textContent = boardWords(position());
  });
  if ($("read-clocks")) {
    $("read-clocks").addEventListener("click", () => say(clockWords() || "No clock in this game."));
  }
  // After the board's own handler (registered first) has moved its cursor: say the point.
  // In the mode, R on the board reads the board and C the clocks, without leaving it.
  board.container.addEventListener("keydown", (event) => {
    if (event.key.startsWith("Arrow")) say(board.describePoint(board.cursor));
    if (!on || event.ctrlKey || event.metaKey || event.altKey) return;
    const button = { r: $("read-board"), c: $("read-clocks") }[event.key.toLowerCase()];
    if (button) {
      button.click();
      event.preventDefault();
    }
  });

  function turnWords() {
    const over = document.getElementById("game-over");
    if (over && !over.hidden && over.textContent.trim()) return over.textContent.trim();
    const status = document.getElementById("status");
    return status ? status.textContent.trim() : "";
  }

  show();
  return {
    /** Say what changed: a new move in words, then whose turn it is and the clocks. */
    update(state, previous, event) {
      const last = state.last_move;
      const moved = last && previous && state.ply === previous.ply + 1 && event && event.kind === "move";
      const parts = [];
      if (moved) parts.push(`${moveWords(last.text, last.side, state.position)} (${last.text}).`);
      if (!previous || moved || previous.turn !== state.turn || previous.status !== state.status) {
        parts.push(turnWords());
        if (moved) parts.push(clockWords());
        say(parts.filter(Boolean).join(" "));
      }
      if (moved) {
        // The reading was of the position before: gone until asked again (it is live too).
        reading.textContent = "";
        reading.hidden = true;
      }
    },
    say,
  };
}
