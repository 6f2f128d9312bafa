// The best game on now, on the home page: /ws/featured says which game it is (or null: the
// panel hides), then sends that game's states as its own socket does; the small board, the
// players' names, ratings and clocks follow them. The board's text alternative (its
// aria-label) says who plays and the last move; "Read the board" (read-board.js) every piece.
import { Board, lastMoveView } from "./board.js";
import { moveWords } from "./speech.js";
import { showClocks } from "./game-bars.js";
import "./read-board.js"; // the "Read the board" button

const $ = (id) => document.getElementById(id);
const panel = $("featured");
const boardBox = $("board");
const clocks = panel ? Array.from(panel.querySelectorAll("[data-clock]")) : [];
let board = null; // drawn once a state comes (a page's every .board shows its pieces)
const SIDES = { blue: "Blue", gray: "Gray" };

let featured = null; // the featured game (the API's FeaturedGame), or null
let state = null; // its last state
let receivedAt = 0;
let retry = 500;

const playerText = (player) => `${player.name}${player.bot ? " (bot)" : ""} ${player.rating}`;

function describe() {
  if (!featured) return "";
  const players = `${featured.blue.name} (Blue, ${featured.blue.rating}) against ${featured.gray.name} (Gray, ${featured.gray.rating})`;
  if (!state) return `The best game on now: ${players}.`;
  let words = `The best game on now: ${players}, ${featured.rules}.`;
  if (state.last_move) {
    words += ` Move ${state.ply}: ${moveWords(state.last_move.text, state.last_move.side, state.position)}.`;
  } else {
    words += " No move yet.";
  }
  words += state.outcome ? ` Game over: ${state.outcome.description}.` : ` ${SIDES[state.turn]} to move.`;
  return words;
}

/** No board until the featured game's state comes (another game's is not shown meanwhile). */
function clearBoard() {
  board = null;
  boardBox.classList.remove("board");
  boardBox.replaceChildren();
  delete boardBox.dataset.position;
  delete boardBox.dataset.ply;
  $("featured-status").textContent = "";
}

function show() {
  if (!featured) {
    panel.hidden = true;
    delete panel.dataset.gameId;
    clearBoard();
    return;
  }
  panel.hidden = false;
  panel.dataset.gameId = featured.game_id;
  $("featured-blue").textContent = playerText(featured.blue);
  $("featured-gray").textContent = playerText(featured.gray);
  $("featured-link").href = `/game/${featured.game_id}`;
  $("featured-link").textContent = `Watch ${featured.blue.name} against ${featured.gray.name}`;
  if (state) {
    if (!board) {
      boardBox.classList.add("board");
      board = new Board(boardBox);
    }
    board.setRules(state.rules.settings);
    board.show(state.position, {
      lastMove: state.last_move ? lastMoveView(state.last_move.text, state.position, board.paths) : null,
      turn: state.turn,
    });
    boardBox.dataset.position = state.position;
    boardBox.dataset.ply = String(state.ply);
    showClocks(clocks, state, receivedAt, 0);
    $("featured-status").textContent = state.last_move
      ? `Move ${state.ply}: ${state.last_move.text}` : "No move yet";
  } else {
    clearBoard();
  }
  boardBox.setAttribute("aria-label", describe());
}

function tick() {
  if (state && state.clock && !state.outcome) showClocks(clocks, state, receivedAt, 0);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/featured`);
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "featured") {
      if (!message.game || !featured || message.game.game_id !== featured.game_id) state = null;
      featured = message.game;
      show();
    } else if (message.type === "state" && featured && message.game.id === featured.game_id) {
      if (state && message.version <= state.version) return;
      state = message.game;
      receivedAt = Date.now();
      show();
    }
  });
  socket.addEventListener("open", () => { retry = 500; });
  socket.addEventListener("close", () => {
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  });
}

if (panel) {
  connect();
  setInterval(tick, 200);
}
