// A game page: the board from board.svg, a text box for moves, and the state kept up to date
// over the WebSocket (reconnecting, and resynchronising by the full state, when it drops).
"use strict";

const main = document.getElementById("main");
const gameId = main.dataset.gameId;
const SEAT_KEY = `bluegray.seat.${gameId}`;
const INVITE_KEY = `bluegray.invite.${gameId}`;

let socket = null;
let state = null;
let mySide = null; // "blue", "gray", "both" or null (spectator)
let stateReceivedAt = 0;
let retryDelay = 500;
let refCounter = 0;
let stopped = false;

const $ = (id) => document.getElementById(id);
const title = (side) => (side === "blue" ? "Blue" : "Gray");

function say(text, isError = false) {
  const box = $("message");
  box.textContent = text;
  box.classList.toggle("error", isError);
}

async function joinFromLink() {
  // An invite arrives in the fragment (#join=CODE), which never reaches the server's logs.
  const match = location.hash.match(/^#join=([A-Za-z0-9_-]+)$/);
  if (!match) return;
  history.replaceState(null, "", location.pathname);
  if (localStorage.getItem(SEAT_KEY)) return;
  const response = await fetch(`/api/games/${encodeURIComponent(gameId)}/join`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ invite: match[1] }),
    credentials: "same-origin",
  });
  const data = await response.json().catch(() => ({}));
  if (response.ok) {
    localStorage.setItem(SEAT_KEY, data.seat.token);
  } else {
    say(data.error ? data.error.message : "Could not join the game.", true);
  }
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    message.ref = String(++refCounter);
    socket.send(JSON.stringify(message));
    return true;
  }
  say("Not connected: reconnecting…", true);
  return false;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(gameId)}`);
  socket.addEventListener("open", () => {
    retryDelay = 500;
    const hello = { type: "hello" };
    const token = localStorage.getItem(SEAT_KEY);
    if (token) hello.token = token;
    if (state) hello.version = state.version;
    socket.send(JSON.stringify(hello));
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    if (stopped || event.code === 4403 || event.code === 4404) {
      if (event.code === 4403) say("This browser's seat token was refused.", true);
      return;
    }
    say("Connection lost: reconnecting…", true);
    setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 10000);
  });
}

function receive(message) {
  switch (message.type) {
    case "welcome":
      mySide = message.side;
      $("seat").textContent = mySide === null
        ? "You are watching."
        : mySide === "both" ? "You play both sides." : `You play ${title(mySide)}.`;
      say("");
      break;
    case "state":
      state = message.game;
      stateReceivedAt = Date.now();
      render(message.event);
      break;
    case "presence":
      if (state) {
        state.seats = message.seats;
        state.spectators = message.spectators;
        state.claim_win_at_ms = message.claim_win_at_ms;
        renderActions();
      }
      break;
    case "error":
      say(message.message, true);
      break;
    default:
      break;
  }
}

function isMine(side) {
  return mySide === "both" || mySide === side;
}

function render(event) {
  const flipped = $("flip").checked;
  const board = $("board");
  board.src = `/api/games/${encodeURIComponent(gameId)}/board.svg?ply=${state.ply}` +
    `&flipped=${flipped}&v=${state.version}`;
  board.alt = `The board: ${state.position}`;

  let status;
  if (state.outcome) status = state.outcome.description;
  else if (state.status === "aborted") status = "The game was aborted.";
  else if (state.status === "waiting") status = "Waiting for your friend to join.";
  else status = `${title(state.turn)} to move` + (state.ai_thinking ? " (thinking…)" : "");
  $("status").textContent = `${state.rules.text} · ${status} · ` +
    `advancement Blue ${state.advancement.blue}, Gray ${state.advancement.gray} · ` +
    `captured by Blue ${state.captures.blue}, by Gray ${state.captures.gray}`;

  const moves = $("moves");
  moves.replaceChildren();
  state.moves.forEach((move) => {
    const item = document.createElement("li");
    item.textContent = move;
    moves.append(item);
  });

  const myTurn = state.status === "active" && !state.outcome && isMine(state.turn);
  $("move-form").hidden = !myTurn;
  const legal = $("legal-moves");
  legal.replaceChildren();
  for (const move of myTurn ? state.legal_moves : []) {
    const option = document.createElement("option");
    option.value = move;
    legal.append(option);
  }
  $("legal").textContent = myTurn ? `Legal moves: ${state.legal_moves.join(" ")}` : "";

  const invite = localStorage.getItem(INVITE_KEY);
  $("invite").hidden = !(invite && state.status === "waiting");
  if (invite) $("invite-link").value = invite;

  if (state.rematch_id) {
    $("next-game").hidden = false;
    $("next-game-link").href = `/game/${encodeURIComponent(state.rematch_id)}`;
    const token = localStorage.getItem(SEAT_KEY);
    // A rematch keeps each player's token: the same secret plays the new game.
    if (token) localStorage.setItem(`bluegray.seat.${state.rematch_id}`, token);
  } else {
    $("next-game").hidden = true;
  }
  if (event && event.kind !== "move") say(describeEvent(event));
  renderActions();
  renderClocks();
}

function describeEvent(event) {
  const who = event.side ? title(event.side) : "";
  const words = {
    joined: `${who} joined the game.`,
    draw_offered: `${who} offers a draw.`,
    draw_declined: `${who} declined the draw.`,
    takeback_requested: `${who} asks to take back a move.`,
    takeback_declined: `${who} refused the takeback.`,
    takeback: `${who}'s move was taken back.`,
    rematch_offered: `${who} offers a rematch.`,
    rematch_declined: `${who} declined the rematch.`,
    rematch: "The rematch is ready.",
  };
  return words[event.kind] || "";
}

function renderActions() {
  if (!state) return;
  const playing = state.status === "active" && !state.outcome && mySide !== null;
  const over = state.outcome !== null || state.status === "aborted";
  const offers = state.offers;
  const mine = mySide === "both" ? null : mySide;
  const other = mine === "blue" ? "gray" : mine === "gray" ? "blue" : null;
  const show = {
    offer_draw: playing && state.mode !== "ai" && offers.draw !== mine,
    accept_draw: playing && offers.draw !== null && (mine === null || offers.draw === other),
    decline_draw: playing && offers.draw !== null && (mine === null || offers.draw === other),
    request_takeback: playing && state.ply > 0 && offers.takeback === null,
    accept_takeback: playing && offers.takeback !== null && offers.takeback === other,
    decline_takeback: playing && offers.takeback !== null && offers.takeback === other,
    abort: mySide !== null && !over && state.ply < 2,
    resign: playing,
    claim_win: playing && state.claim_win_at_ms !== null && mine !== null &&
      state.turn === other && Date.now() >= state.claim_win_at_ms,
    offer_rematch: mySide !== null && over && state.mode !== "imported" &&
      !state.rematch_id && offers.rematch !== mine,
    accept_rematch: mySide !== null && over && offers.rematch !== null && offers.rematch === other,
    decline_rematch: mySide !== null && over && offers.rematch !== null && offers.rematch === other,
  };
  for (const button of document.querySelectorAll("#actions button")) {
    button.hidden = !show[button.dataset.action];
  }
}

function formatMs(ms) {
  const total = Math.max(0, Math.ceil(ms / 100)) / 10;
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  return total < 20
    ? `${minutes}:${seconds.toFixed(1).padStart(4, "0")}`
    : `${minutes}:${String(Math.floor(seconds)).padStart(2, "0")}`;
}

function renderClocks() {
  const top = $("clock-top");
  const bottom = $("clock-bottom");
  if (!state || !state.clock) {
    top.textContent = bottom.textContent = "";
    return;
  }
  const clock = state.clock;
  const elapsed = Date.now() - stateReceivedAt;
  const left = {
    blue: clock.blue_ms - (clock.running === "blue" ? elapsed : 0),
    gray: clock.gray_ms - (clock.running === "gray" ? elapsed : 0),
  };
  const flipped = $("flip").checked;
  const [upper, lower] = flipped ? ["blue", "gray"] : ["gray", "blue"];
  top.textContent = `${title(upper)} ${formatMs(left[upper])}`;
  bottom.textContent = `${title(lower)} ${formatMs(left[lower])}`;
  top.classList.toggle("running", clock.running === upper);
  bottom.classList.toggle("running", clock.running === lower);
}

$("move-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("move");
  const text = input.value.trim();
  if (!text || !state) return;
  if (send({ type: "move", move: text, version: state.version })) input.value = "";
});

for (const button of document.querySelectorAll("#actions button")) {
  button.addEventListener("click", () => {
    const action = button.dataset.action;
    if (action === "resign" && !confirm("Resign this game?")) return;
    const message = { type: "action", action };
    if (mySide === "both") {
      if (action === "resign") message.side = state.turn;
    }
    send(message);
  });
}

$("flip").addEventListener("change", () => state && render(null));
$("copy-invite").addEventListener("click", () => {
  const input = $("invite-link");
  input.select();
  if (navigator.clipboard) navigator.clipboard.writeText(input.value);
});

setInterval(() => {
  renderClocks();
  if (state && state.claim_win_at_ms) renderActions();
}, 200);

if (localStorage.getItem(SEAT_KEY) === null && main.dataset.version === "1" && !location.hash) {
  $("seat").textContent = "You are watching.";
}
joinFromLink().finally(connect);
window.addEventListener("beforeunload", () => { stopped = true; });
