// The lobby's people: open challenges (seeks) appearing and vanishing in real time over
// /ws/lobby, posting one (tied to this page's socket: it goes when the page closes), accepting
// one, cancelling one's own, quick pairing and challenging a named player. Names are set as
// text, never as HTML. The game a seek starts is announced on /ws/account (notify.js), which
// takes this page to it.

import { request } from "./api.js";
import { timeControlText } from "./correspondence.js";
import { goTo } from "./navigate.js";

const $ = (id) => document.getElementById(id);
const people = $("people");
const me = people ? people.dataset.account : "";
const seeks = new Map();
let connection = null;
let socket = null;
let retry = 500;

function describe(seek) {
  const clock = timeControlText(seek);
  const rating = `${Math.round(seek.rating)}${seek.provisional ? "?" : ""}`;
  const range = seek.rating_min !== null || seek.rating_max !== null
    ? ` · ${seek.rating_min ?? "any"}–${seek.rating_max ?? "any"}` : "";
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
    const text = describe(seek);
    const who = document.createElement("strong");
    who.textContent = text.who;
    const what = document.createElement("span");
    what.textContent = ` ${text.what}`;
    item.append(who, what);
    if (me) {
      const button = document.createElement("button");
      button.type = "button";
      const own = seek.player.toLowerCase() === me.toLowerCase();
      button.className = own ? "secondary cancel-seek" : "primary accept-seek";
      button.textContent = own ? "Cancel" : "Play";
      button.addEventListener("click", () => (own ? cancel(seek.id) : accept(seek.id)));
      item.append(" ", button);
    }
    list.append(item);
  }
}

function status(text, error = false) {
  const box = error ? $("seek-error") || $("quick-status") : $("quick-status");
  if (box) box.textContent = text;
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
  for (const button of document.querySelectorAll(".quick-button")) {
    button.addEventListener("click", async () => {
      try {
        const result = await request("POST", "/api/lobby/quick", { pairing: button.dataset.pairing, connection });
        if (result.game) goTo(result.game.path);
        else status(`Waiting for someone to press ${button.textContent.trim()}…`);
      } catch (error) {
        status(error.message);
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
