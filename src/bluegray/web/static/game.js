// A game page: its WebSocket (reconnecting with backoff; the server's full state then replaces
// whatever was shown, docs/web.md), the moves and actions a player enters, and the hint. The
// board is board.js's, the player bars game-bars.js's, the page's words game-words.js's.
import { readJson, request } from "./api.js";
import { Board, lastMoveView, movePoints, parsePosition, travelled } from "./board.js";
import { notifyTurn, setUpNotifyButton } from "./correspondence.js";
import { showBars, showClocks } from "./game-bars.js";
import { fetchPreview, showPreview, showRatedLine, sideRatings } from "./game-rating.js";
import {
  aiWaiting, cleanMessage, describeEvent, hintWords, seatText, showEnd, showHint, showMoveForm,
  showMoves, statusText, suggestion, whyNotThis,
} from "./game-words.js";
import { other, title } from "./play-outcome.js";
import { setUpSpeech } from "./speech.js";

const main = document.getElementById("main");
const gameId = main.dataset.gameId;
const SEAT_KEY = (id) => `bluegray.seat.${id}`;
const INVITE_KEY = (id) => `bluegray.invite.${id}`;
const JOIN_KEY = (id) => `bluegray.join.${id}`; // an invite kept while its player logs in

const $ = (id) => document.getElementById(id);

let socket = null;
let state = null;
let mySide = null; // "blue", "gray", "both" or null (a spectator)
let stateReceivedAt = 0;
let serverOffset = 0; // server clock minus ours, in ms
let retryDelay = 500;
let retryTimer = null;
let refCounter = 0;
const sentMoves = new Map(); // ref → a move sent and not yet answered
const UNAVAILABLE = new Set(["store_unavailable", "service_unavailable"]);
let stopped = false;
let selection = []; // the points clicked so far for the move being entered
let flipped = false;
let flipChosen = false;
let hint = null; // the engine's suggestion: {version, move, points, path, words}, for one version
let hintPending = false;
let typed = null; // a typed move sent to the server: {ref, text}, until it is answered
let preview = null; // a rated game's rating preview (game-rating.js), asked for once both play
let previewAsked = false;

const board = new Board($("board"), { onPoint: pointChosen });
const speech = setUpSpeech(board, () => (state ? state.position : ""));

// -- talking to the server -----------------------------------------------------------------

function say(text, isError = false) {
  const box = $("message");
  box.textContent = text;
  box.classList.toggle("error", isError);
}

async function joinFromLink() {
  // An invite arrives in the fragment (#join=CODE), which never reaches the server's logs; or it
  // was kept while its player logged in to join a rated game (JOIN_KEY).
  const match = location.hash.match(/^#join=([A-Za-z0-9_-]+)$/);
  const invite = match ? match[1] : localStorage.getItem(JOIN_KEY(gameId));
  if (!invite) return;
  if (match) history.replaceState(null, "", location.pathname);
  localStorage.removeItem(JOIN_KEY(gameId));
  if (localStorage.getItem(SEAT_KEY(gameId))) return;
  try {
    // With the page's CSRF token a logged-in player who joins takes the seat for their account.
    const joined = await request("POST", `/api/games/${encodeURIComponent(gameId)}/join`, { invite });
    localStorage.setItem(SEAT_KEY(gameId), joined.seat.token);
  } catch (error) {
    say(`Could not join: ${error.message}. You are watching.`, true);
    if (error.code === "forbidden" && !document.querySelector(".account-link[data-account]")) {
      localStorage.setItem(JOIN_KEY(gameId), invite); // a rated game: back here once logged in
      const back = encodeURIComponent(location.pathname);
      const login = Object.assign(document.createElement("a"), { id: "login-to-join", href: `/login?next=${back}` });
      login.textContent = "Log in to join";
      $("message").append(" ", login, " (or ", Object.assign(document.createElement("a"), {
        href: `/signup?next=${back}`, textContent: "make an account" }), ").");
    }
  }
}

/** Send a message; its `ref` (the server's answer names it), or null when not connected. */
function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    message.ref = String(++refCounter);
    if (message.type === "move") sentMoves.set(message.ref, message);
    socket.send(JSON.stringify(message));
    return message.ref;
  }
  say("Not connected: reconnecting…", true);
  return null;
}

/** A move the server could not store for a moment (its database or Redis was out: nothing was
 * done): sent again after `seconds`, at the same version, so that it cannot be played twice. */
function resendLater(sent, seconds) {
  say(`The server is out for a moment: sending ${sent.move} again…`, true);
  const wait = Math.max(1, seconds || 1) * 1000 * (1 + Math.random() * 0.25);
  setTimeout(() => {
    if (!state || state.version !== sent.version) return; // the game moved on meanwhile
    const ref = send({ type: "move", move: sent.move, version: sent.version });
    if (ref && typed && typed.ref === sent.ref) typed.ref = ref;
  }, wait);
}

function setConnection(text, ok) {
  const box = $("connection");
  box.textContent = text;
  box.classList.toggle("offline", !ok);
}

function connect() {
  clearTimeout(retryTimer);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(gameId)}`);
  socket = ws;
  ws.addEventListener("open", () => {
    const hello = { type: "hello" };
    const token = localStorage.getItem(SEAT_KEY(gameId));
    if (token) hello.token = token;
    if (state) hello.version = state.version;
    ws.send(JSON.stringify(hello));
  });
  ws.addEventListener("message", (event) => {
    if (ws === socket) receive(JSON.parse(event.data));
  });
  ws.addEventListener("close", (event) => {
    if (ws !== socket || stopped) return;
    if (event.code === 4403 || event.code === 4404) {
      setConnection(event.code === 4403 ? "This browser's seat was refused." : "No such game.", false);
      return;
    }
    if (event.code === 1012) {
      // The server is restarting (a deploy): another one takes the game at once.
      setConnection("The server is restarting: reconnecting…", false);
      retryDelay = 500;
      retryTimer = setTimeout(connect, Math.random() * 200);
      return;
    }
    const delay = retryDelay * (0.75 + Math.random() * 0.5);
    setConnection(`Connection lost: reconnecting in ${Math.ceil(delay / 1000)} s…`, false);
    retryTimer = setTimeout(connect, delay);
    retryDelay = Math.min(retryDelay * 2, 10000);
  });
}

function reconnectNow() {
  if (socket && socket.readyState === WebSocket.OPEN) return;
  retryDelay = 500;
  connect();
}

function receive(message) {
  switch (message.type) {
    case "welcome":
      retryDelay = 500;
      mySide = message.side;
      serverOffset = message.server_time_ms - Date.now();
      setConnection("Connected.", true);
      $("seat").textContent = seatText(mySide);
      if (!flipChosen) {
        flipped = mySide === "gray";
        board.flipped = flipped;
        $("flip").setAttribute("aria-pressed", String(flipped));
      }
      break;
    case "state": {
      const previous = state;
      state = message.game;
      stateReceivedAt = Date.now();
      if (!previous || previous.version !== state.version) {
        selection = [];
        hint = null; // a move (or a takeback) makes the hint stale
      }
      render(previous, message.event);
      document.dispatchEvent(new CustomEvent("bluegray:state", { detail: state }));
      break;
    }
    case "presence":
      if (state) {
        state.seats = message.seats;
        state.spectators = message.spectators;
        state.claim_win_at_ms = message.claim_win_at_ms;
        renderBars();
        renderActions();
      }
      break;
    case "ack":
      sentMoves.delete(message.ref);
      break;
    case "error": {
      const sent = sentMoves.get(message.ref);
      sentMoves.delete(message.ref);
      if (sent && UNAVAILABLE.has(message.code)) {
        resendLater(sent, message.retry_after);
        break;
      }
      // A typed move the server refused: its reason (the library's, as the terminal gives it),
      // and what that piece could do instead.
      const mine = typed && message.ref === typed.ref;
      const advice = mine && message.code === "illegal_move" && canMove()
        ? suggestion(state.legal_moves, typed.text) : "";
      if (mine) typed = null;
      say(`${cleanMessage(message.message)}${advice ? `. ${advice}` : ""}`, true);
      break;
    }
    case "ai":
      // What holds up the AI's move changed (busy, or no AI worker running): say so.
      if (state && message.version === state.version && state.ai_thinking) {
        state.ai_status = message.status;
        $("status").textContent = aiWaiting(state);
      }
      break;
    case "pong":
      serverOffset = message.server_time_ms - Date.now();
      break;
    case "chat": // the game's chat (chat.js) shows it
      document.dispatchEvent(new CustomEvent("bluegray:chat", { detail: message.line }));
      break;
    default:
      break;
  }
}

// -- entering moves --------------------------------------------------------------------------

function isMine(side) {
  return mySide === "both" || (mySide !== null && mySide === side);
}

function canMove() {
  return Boolean(state) && state.status === "active" && !state.outcome && isMine(state.turn);
}

function legalPoints() {
  return canMove() ? state.legal_moves.map((text) => ({ text, points: movePoints(text) })) : [];
}

function candidates() {
  return legalPoints().filter((move) => selection.every((point, i) => move.points[i] === point));
}

function boardView() {
  const moves = selection.length ? candidates() : [];
  const targets = [...new Set(moves.filter((m) => m.points.length > selection.length)
    .map((m) => m.points[selection.length]))];
  const last = state.last_move;
  const shown = currentHint();
  return {
    selected: selection,
    targets,
    capturing: moves.some((m) => m.text.includes("x")),
    lastMove: last ? lastMoveView(last.text, state.position, board.paths) : null,
    hint: shown ? { move: shown.move, points: shown.points, path: shown.path } : null,
  };
}

function pointChosen(point) {
  if (!state) return;
  if (!canMove()) {
    if (mySide === null) say("You are watching: only the players move.");
    else if (state.status === "active" && !state.outcome) say("It is not your turn.");
    return;
  }
  const starts = new Set(legalPoints().map((m) => m.points[0]));
  if (selection.length === 0) {
    if (starts.has(point)) {
      selection = [point];
      say(selectionHint());
    } else {
      say(whyNotThis(state, point, mySide));
    }
  } else {
    const view = boardView();
    if (view.targets.includes(point)) {
      selection = [...selection, point];
      const moves = candidates();
      const done = moves.find((m) => m.points.length === selection.length);
      if (done && moves.length === 1) {
        play(done.text);
        return;
      }
      say(selectionHint());
    } else if (selection.length === 1 && point === selection[0]) {
      selection = [];
      say("");
    } else if (selection.length === 1 && starts.has(point)) {
      selection = [point];
      say(selectionHint());
    } else {
      say(selection.length > 1 ? "Capture cancelled." : "");
      selection = [];
    }
  }
  board.show(state.position, boardView());
}

function selectionHint() {
  const view = boardView();
  const next = view.targets.join(", ");
  if (selection.length === 1) return `${selection[0]} selected: it can go to ${next}.`;
  return `Capture so far ${selection.join("x")}: jump on to ${next}.`;
}

function play(text) {
  selection = [];
  hint = null;
  renderHint();
  if (send({ type: "move", move: text, version: state.version })) {
    say(`Playing ${text}…`);
  }
  board.show(state.position, boardView());
}

function typedMove(event) {
  event.preventDefault();
  const input = $("move");
  const written = input.value.trim();
  const text = written.toLowerCase().replace(/\s+/g, "");
  if (!text || !canMove()) return;
  input.value = ""; // a refused move does not stay in the box: the message quotes it
  const legal = state.legal_moves.find((m) => m.toLowerCase() === text);
  if (legal) {
    play(legal);
    return;
  }
  if (!/^[a-i][1-9]([-x][a-i][1-9])+$/.test(text)) {
    say(`Not a move: “${written}”. Write it from-to, like d2-d3, or a capture with each landing, like b2xb4xd4.`, true);
    return;
  }
  // The server says why it is illegal, in the library's words (as the terminal does).
  const ref = send({ type: "move", move: text, version: state.version });
  if (ref) {
    typed = { ref, text };
    say(`Checking ${text}…`);
  }
}

// -- hints -------------------------------------------------------------------------------------

/** Hints are for the player to move against the AI or hot-seat: never in a game between two
 * people (the server refuses to analyse those while they are played), nor for spectators. */
function canHint() {
  return canMove() && (state.mode === "ai" || state.mode === "hotseat");
}

function currentHint() {
  return hint && state && hint.version === state.version ? hint : null;
}

async function askHint() {
  if (!canHint() || hintPending) return;
  const asked = state.version;
  hintPending = true;
  hint = null;
  renderHint();
  say("");
  try {
    const url = `/api/games/${encodeURIComponent(gameId)}/analysis?ply=${state.ply}&seconds=1`;
    const response = await fetch(url, { credentials: "same-origin" });
    let data;
    try {
      data = await readJson(response); // a refusal, told as the server words it
    } catch (error) {
      say(`No hint: ${cleanMessage(error.message)}.`, true);
      return;
    }
    if (!state || state.version !== asked) return; // the game moved on meanwhile
    if (!data.best_move) {
      say(`No hint: ${data.description}.`);
      return;
    }
    const points = movePoints(data.best_move);
    const piece = parsePosition(state.position)[points[0]];
    const path = piece ? travelled(points, piece.kind, board.paths[piece.side]) : points;
    hint = {
      version: asked,
      move: data.best_move,
      points,
      path,
      words: hintWords(data),
    };
    board.show(state.position, boardView());
  } catch {
    say("No hint: the server could not be reached.", true);
  } finally {
    hintPending = false;
    renderHint();
  }
}

function renderHint() {
  if (!state) return;
  const elements = { box: $("hint-box"), button: $("hint"), text: $("hint-text") };
  showHint(elements, currentHint(), hintPending, canHint());
}

// -- showing the state -----------------------------------------------------------------------

function render(previous, event) {
  board.setRules(state.rules.settings);
  let animate = null;
  const last = state.last_move;
  if (previous && last && state.ply === previous.ply + 1 && event && event.kind === "move") {
    const piece = parsePosition(state.position)[last.points[last.points.length - 1]];
    if (piece) animate = travelled(last.points, piece.kind, board.paths[piece.side]);
  }
  board.show(state.position, boardView(), animate);

  const over = Boolean(state.outcome) || state.status === "aborted";
  showEnd($("game-over"), state, mySide, over);
  main.dataset.rated = String(Boolean(state.rated));
  showRatedLine($("rated-line"), state);
  askPreview();
  showPreview($("rating-preview"), state, preview, mySide, over);
  // A game asked for as rated but played unrated (the daily limit between two accounts) says why.
  $("unrated-reason").hidden = !state.unrated_reason;
  $("unrated-reason").textContent = state.unrated_reason ? `Unrated: ${state.unrated_reason}.` : "";
  $("status").textContent = statusText(state, mySide, over);
  main.dataset.version = String(state.version);
  main.dataset.status = state.status;
  main.dataset.ply = String(state.ply);
  main.dataset.turn = state.turn;
  main.dataset.myTurn = String(canMove());
  $("notify").hidden = !(state.correspondence && mySide !== null && mySide !== "both" && !over);
  if (canMove() && mySide !== "both" && (!previous || previous.turn !== state.turn || previous.ply !== state.ply)) {
    notifyTurn("Blue and Gray: your move", `${title(state.turn)} to move (move ${state.ply + 1}).`, location.pathname);
  }

  showMoves($("moves"), $("move-count"), state);
  renderMoveForm();
  renderHint();
  renderInvite();
  renderBars();

  if (state.rematch_id) {
    $("next-game").hidden = false;
    $("next-game-link").href = `/game/${encodeURIComponent(state.rematch_id)}`;
    const token = localStorage.getItem(SEAT_KEY(gameId));
    // A rematch keeps each player's token: the same secret plays the new game.
    if (token) localStorage.setItem(SEAT_KEY(state.rematch_id), token);
    // Both players go to the rematch at once, as on lichess: a seat held by its token or by the
    // account logged in (a spectator stays, with the link).
    if (event && event.kind === "rematch" && (token || mySide !== null)) {
      location.assign(`/game/${encodeURIComponent(state.rematch_id)}`);
    }
  } else {
    $("next-game").hidden = true;
  }
  // An event is news once: the next change replaces its words (a move clears "Gray joined"),
  // and a page that opens (or reconnects) on a game does not announce what happened before.
  if (event && previous && previous.version !== state.version) say(describeEvent(event));
  renderActions();
  speech.update(state, previous, event);
}

function renderMoveForm() {
  const elements = { form: $("move-form"), datalist: $("legal-moves"), legal: $("legal") };
  showMoveForm(elements, canMove() ? state.legal_moves : null);
}

function renderInvite() {
  const waiting = state.status === "waiting" && mySide !== null;
  const invite = localStorage.getItem(INVITE_KEY(gameId));
  $("invite").hidden = !waiting;
  $("invite-link").value = invite || "";
  $("invite-link").hidden = !invite;
  $("copy-invite").hidden = !invite;
  $("new-invite").hidden = Boolean(invite);
}

/** Ask for a rated game's preview once both seats are an account's (then show it). */
async function askPreview() {
  if (previewAsked || !state.rated || !state.seats.blue.account || !state.seats.gray.account) return;
  previewAsked = true;
  preview = await fetchPreview(`/api/games/${encodeURIComponent(gameId)}/rating-preview`);
  if (!preview) previewAsked = false; // not reachable now: asked again with the next state
  const over = Boolean(state.outcome) || state.status === "aborted";
  showPreview($("rating-preview"), state, preview, mySide, over);
  renderBars();
}

function renderBars() {
  if (!state) return;
  showBars([$("bar-top"), $("bar-bottom")], state, mySide, flipped, sideRatings(state, preview));
  renderClocks();
}

function renderClocks() {
  if (!state) return;
  showClocks(document.querySelectorAll("[data-clock]"), state, stateReceivedAt, serverOffset);
}

function renderActions() {
  if (!state) return;
  const playing = state.status === "active" && !state.outcome && mySide !== null;
  const over = state.outcome !== null || state.status === "aborted";
  const offers = state.offers;
  const mine = mySide === "both" ? null : mySide;
  const them = mine ? other(mine) : null;
  const now = Date.now() + serverOffset;
  // Between two people, resigning and draws wait until both sides have moved (before that the
  // game can only be aborted, unrated), as on lichess.
  const bothMoved = state.mode !== "friend" || state.ply >= 2;
  const show = {
    offer_draw: playing && bothMoved && state.mode !== "ai" && offers.draw === null,
    accept_draw: playing && offers.draw !== null && (mine === null || offers.draw === them),
    decline_draw: playing && offers.draw !== null && (mine === null || offers.draw === them),
    request_takeback: playing && state.ply > 0 && offers.takeback === null,
    accept_takeback: playing && offers.takeback !== null && offers.takeback === them,
    decline_takeback: playing && offers.takeback !== null && offers.takeback === them,
    abort: mySide !== null && !over && state.ply < 2 && state.mode !== "imported",
    resign: playing && bothMoved,
    claim_win: playing && state.claim_win_at_ms !== null && mine !== null &&
      state.turn === them && now >= state.claim_win_at_ms,
    offer_rematch: mySide !== null && over && state.mode !== "imported" &&
      !state.rematch_id && offers.rematch === null,
    accept_rematch: mySide !== null && over && offers.rematch !== null && offers.rematch === them,
    decline_rematch: mySide !== null && over && offers.rematch !== null && offers.rematch === them,
  };
  for (const button of document.querySelectorAll("#actions button")) {
    button.hidden = !show[button.dataset.action];
  }
  if (!playing) $("confirm-resign").hidden = true;
}

function action(name) {
  const message = { type: "action", action: name, version: state.version };
  if (mySide === "both" && name === "resign") message.side = state.turn;
  send(message);
}

// -- wiring ------------------------------------------------------------------------------

$("move-form").addEventListener("submit", typedMove);
$("hint").addEventListener("click", askHint);
setUpNotifyButton($("notify-button"), $("notify-line"));

for (const button of document.querySelectorAll("#actions button")) {
  button.addEventListener("click", () => {
    if (!state) return;
    if (button.dataset.action === "resign") {
      $("confirm-resign").hidden = false;
      $("resign-yes").focus();
      return;
    }
    action(button.dataset.action);
  });
}
$("resign-yes").addEventListener("click", () => {
  $("confirm-resign").hidden = true;
  action("resign");
});
$("resign-no").addEventListener("click", () => { $("confirm-resign").hidden = true; });

$("flip").addEventListener("click", () => {
  flipped = !flipped;
  flipChosen = true;
  $("flip").setAttribute("aria-pressed", String(flipped));
  board.setFlipped(flipped);
  renderBars();
});

$("copy-invite").addEventListener("click", () => {
  const input = $("invite-link");
  input.select();
  if (navigator.clipboard) {
    navigator.clipboard.writeText(input.value).then(() => say("Link copied."), () => {});
  }
});

$("new-invite").addEventListener("click", async () => {
  const token = localStorage.getItem(SEAT_KEY(gameId));
  try {
    const invite = await request("POST", `/api/games/${encodeURIComponent(gameId)}/invite`, {},
      { Authorization: `Bearer ${token}` });
    localStorage.setItem(INVITE_KEY(gameId), location.origin + invite.path);
    renderInvite();
  } catch (error) {
    say(`Could not make an invite: ${error.message}.`, true);
  }
});

$("board").addEventListener("keydown", (event) => {
  if (event.key === "Escape" && selection.length) {
    selection = [];
    board.show(state.position, boardView());
    say("");
  }
});

setInterval(() => {
  renderClocks();
  if (state && state.claim_win_at_ms) renderActions();
}, 100);

window.addEventListener("online", reconnectNow);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") reconnectNow();
});
window.addEventListener("pagehide", () => { stopped = true; });
// Tests and the curious can look at the live state.
// (`dropConnection` closes the socket as a network failure would: the tests use it.)
window.bluegray = {
  get state() { return state; },
  get side() { return mySide; },
  dropConnection() { if (socket) socket.close(); },
};

joinFromLink().finally(connect);
