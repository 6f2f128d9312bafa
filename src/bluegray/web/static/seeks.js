// The lobby's people: open challenges (seeks) appearing and vanishing in real time over
// /ws/lobby, posting one (tied to this page's socket: it goes when the page closes), accepting
// one, cancelling one's own, quick pairing and challenging a named player. Names are set as
// text, never as HTML. The game a seek starts is announced on /ws/account (notify.js), which
// takes this page to it.

import { request } from "./api.js";
import { timeControlText } from "./correspondence.js";
import { changesText, fetchPreview } from "./game-rating.js";
import { goTo } from "./navigate.js";

const $ = (id) => document.getElementById(id);
const people = $("people");
const me = people ? people.dataset.account : "";
// The viewer's ratings by pool ("sackson/real-time": {rating, provisional}), as the page was
// made: only the seeks they can take offer "Play" (the server checks again).
const ratings = people && people.dataset.ratings ? JSON.parse(people.dataset.ratings) : {};
const quickBox = $("quick");
const widening = quickBox ? {
  range: Number(quickBox.dataset.range),
  points: Number(quickBox.dataset.widenPoints),
  seconds: Number(quickBox.dataset.widenSeconds),
  anyAfter: Number(quickBox.dataset.anyAfter),
} : null;
const seeks = new Map();
let connection = null;
let socket = null;
let retry = 500;
let waiting = null; // this page's seek in a quick pairing: {id, timer}
// Each rated seek's rating preview for this player (seek id → preview, or null while asked):
// what a win, a draw or a loss would change their rating by, as the game's end computes it.
const previews = new Map();

async function askPreview(seek) {
  previews.set(seek.id, null);
  const preview = await fetchPreview(`/api/seeks/${encodeURIComponent(seek.id)}/rating-preview`);
  if (!preview) return;
  previews.set(seek.id, preview);
  if (seeks.has(seek.id)) render();
}

// How far from a rating a quick pairing reaches after waiting `ms` (quick_pairings.py's quick_span).
function quickSpan(ms) {
  if (ms >= widening.anyAfter * 1000) return Infinity;
  return widening.range + Math.floor(Math.max(0, ms) / (widening.seconds * 1000)) * widening.points;
}

function myRating(seek) {
  return ratings[`${seek.rules}/${seek.time_class}`] || { rating: 1500, provisional: true };
}

// Why this viewer cannot take the seek, in words (null: they can).
function refusal(seek) {
  const mine = myRating(seek);
  if (seek.quick) {
    if (seek.provisional || mine.provisional) return null;
    const span = quickSpan(Date.now() - seek.created_ms);
    if (Math.abs(seek.rating - mine.rating) <= span) return null;
    return `For ratings within ${span} of ${Math.round(seek.rating)} for now: yours is ${mine.rating}.`;
  }
  if (seek.rating_min !== null && mine.rating < seek.rating_min) {
    return `For ratings from ${seek.rating_min}: yours is ${mine.rating}.`;
  }
  if (seek.rating_max !== null && mine.rating > seek.rating_max) {
    return `For ratings up to ${seek.rating_max}: yours is ${mine.rating}.`;
  }
  return null;
}

function describe(seek) {
  const clock = timeControlText(seek);
  const rating = `${Math.round(seek.rating)}${seek.provisional ? "?" : ""}`;
  let range = seek.rating_min !== null || seek.rating_max !== null
    ? ` · ${seek.rating_min ?? "any"}–${seek.rating_max ?? "any"}` : "";
  if (seek.quick && range) { // its range as it has widened by now
    const span = quickSpan(Date.now() - seek.created_ms);
    range = span === Infinity ? ""
      : ` · ${Math.max(0, Math.round(seek.rating - span))}–${Math.round(seek.rating + span)}`;
  }
  const colour = seek.color === "random" ? "" : ` · ${seek.color === "blue" ? "plays Blue" : "plays Gray"}`;
  return { who: `${seek.player}${seek.bot ? " BOT" : ""} (${rating})`,
    what: `${seek.rules} · ${clock} · ${seek.rated ? "rated" : "casual"}${colour}${range}` };
}

function render() {
  const list = $("seeks");
  list.replaceChildren();
  if (!seeks.size) {
    const empty = document.createElement("li");
    empty.className = "hint";
    empty.id = "no-seeks";
    empty.textContent = "Nobody is waiting. Post a challenge, or press a quick pairing.";
    list.append(empty);
    return;
  }
  for (const seek of seeks.values()) {
    const item = document.createElement("li");
    item.className = "seek";
    item.dataset.seekId = seek.id;
    item.dataset.player = seek.player;
    if (seek.quick) item.dataset.quick = seek.quick;
    const text = describe(seek);
    const who = document.createElement("strong");
    who.textContent = text.who;
    const what = document.createElement("span");
    what.textContent = ` ${text.what}`;
    item.append(who, what);
    const own = me && seek.player.toLowerCase() === me.toLowerCase();
    const why = me && !own ? refusal(seek) : null;
    if (why) {
      const note = document.createElement("span");
      note.className = "hint out-of-range";
      note.textContent = ` ${why}`;
      item.append(note);
    } else if (me) {
      if (seek.rated && !own) {
        if (!previews.has(seek.id)) askPreview(seek);
        const preview = previews.get(seek.id);
        if (preview) {
          const note = document.createElement("span");
          note.className = "hint rating-preview";
          note.dataset.win = String(Math.round(preview.you.win));
          note.dataset.draw = String(Math.round(preview.you.draw));
          note.dataset.loss = String(Math.round(preview.you.loss));
          note.textContent = ` ${changesText(preview.you)}`;
          item.append(note);
        }
      }
      const button = document.createElement("button");
      button.type = "button";
      button.className = own ? "secondary cancel-seek" : "primary accept-seek";
      button.textContent = own ? "Cancel" : "Play";
      button.addEventListener("click", () => (own ? cancel(seek.id) : accept(seek.id)));
      item.append(" ", button);
    }
    list.append(item);
  }
}

// What the player is told: an error where it is seen (under the seeks), or the quick
// pairing's news.
function status(text, error = false) {
  $("people-error").textContent = error ? text : "";
  if (!error) $("quick-status").textContent = text;
}

function stopWaiting() {
  if (waiting) clearInterval(waiting.timer);
  waiting = null;
}

// The waiting panel: whom this player can be paired with now, widening as they wait.
function showWaiting(label, seek) {
  stopWaiting();
  const pressed = Date.now();
  const tick = () => {
    const span = seek.provisional ? Infinity : quickSpan(Date.now() - pressed);
    const range = span === Infinity ? "any rating"
      : `ratings ${Math.max(0, Math.round(seek.rating - span))}–${Math.round(seek.rating + span)}`;
    status(`Waiting for someone to press ${label}… (${range})`);
  };
  tick();
  waiting = { id: seek.id, timer: setInterval(tick, 1000) };
}

async function accept(id) {
  try {
    const game = await request("POST", `/api/seeks/${encodeURIComponent(id)}/accept`);
    goTo(game.path);
  } catch (error) {
    status(error.message, true);
  }
}

async function cancel(id) {
  try {
    await request("DELETE", `/api/seeks/${encodeURIComponent(id)}`);
  } catch (error) {
    status(error.message, true);
  }
}

const seekTime = () => document.querySelector('input[name="seek-time"]:checked').value;

function terms() {
  const body = {
    rules: $("seek-rules").value,
    rated: $("seek-rated").checked,
    color: $("seek-color").value,
  };
  if (seekTime() === "days") {
    body.correspondence = { days: Number($("seek-days").value) };
  } else {
    const minutes = Number($("seek-minutes").value);
    body.clock = { minutes, increment_seconds: Number($("seek-increment").value || 0) };
  }
  return body;
}

function showTime() {
  $("seek-clock-row").hidden = seekTime() !== "clock";
  $("seek-days-row").hidden = seekTime() !== "days";
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/lobby`);
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "welcome") {
      connection = message.connection;
      people.dataset.connected = "true";
    } else if (message.type === "seeks") {
      seeks.clear();
      for (const seek of message.seeks) seeks.set(seek.id, seek);
      render();
    } else if (message.type === "seek") {
      seeks.set(message.seek.id, message.seek);
      render();
    } else if (message.type === "seek_gone") {
      seeks.delete(message.id);
      if (waiting && waiting.id === message.id && message.reason !== "accepted") {
        stopWaiting();
        status("");
      }
      render();
    }
  });
  socket.addEventListener("open", () => { retry = 500; });
  socket.addEventListener("close", () => {
    people.dataset.connected = "false";
    connection = null;
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  });
}

if (people) {
  connect();
  // A quick seek's range widens as it waits: what it offers is looked at again.
  let offered = "";
  setInterval(() => {
    const now = [...seeks.values()].filter((seek) => seek.quick)
      .map((seek) => `${seek.id}:${refusal(seek)}:${describe(seek).what}`).join();
    if (now !== offered) render();
    offered = now;
  }, 2000);
  for (const button of document.querySelectorAll(".quick-button")) {
    button.addEventListener("click", async () => {
      try {
        const result = await request("POST", "/api/lobby/quick", { pairing: button.dataset.pairing, connection });
        if (result.game) goTo(result.game.path);
        else showWaiting(button.firstChild.textContent.trim(), result.seek);
      } catch (error) {
        status(error.message, true);
      }
    });
  }
  const form = $("seek-form");
  if (form) {
    for (const radio of document.querySelectorAll('input[name="seek-time"]')) {
      radio.addEventListener("change", showTime);
    }
    showTime();
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = { ...terms(), connection };
      const low = $("seek-min").value;
      const high = $("seek-max").value;
      if (low) body.rating_min = Number(low);
      if (high) body.rating_max = Number(high);
      try {
        await request("POST", "/api/seeks", body);
        $("seek-error").textContent = "";
      } catch (error) {
        $("seek-error").textContent = error.message;
      }
    });
    $("challenge-send").addEventListener("click", async () => {
      const to = $("challenge-name").value.trim();
      if (!to) { $("seek-error").textContent = "Whom? Type a player's name."; return; }
      try {
        await request("POST", "/api/challenges", { ...terms(), to });
        $("seek-error").textContent = `Challenge sent to ${to}.`;
      } catch (error) {
        $("seek-error").textContent = error.message;
      }
    });
  }
}
