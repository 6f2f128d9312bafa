// The replay: step through a stored game (buttons, keys, move list), flip, analyse, download.
// The board is drawn by board.js from the positions in the page (each move's button carries
// the position after it); the positions API adds the advancement and captures to the status.
import { Board, lastMoveView } from "./board.js";
import { readJson } from "./api.js";
import { showAnalysis } from "./study-analysis.js";
import { setUpReview } from "./review.js";
import { explorerPanel } from "./explorer.js";
import "./read-board.js"; // the "Read the board" button

const main = document.getElementById("main");
const gameId = main.dataset.gameId;
const plies = Number(main.dataset.plies);
const outcomeText = main.dataset.outcome || "";
const boardBox = document.getElementById("board");
const status = document.getElementById("ply-status");
const analysisBox = document.getElementById("analysis");
const analysisError = document.getElementById("analysis-error");
const analyseButton = document.getElementById("analyse");
const flipButton = document.getElementById("flip");
const moveList = document.getElementById("move-list");
const buttons = {
  first: document.getElementById("first"),
  previous: document.getElementById("previous"),
  next: document.getElementById("next"),
  last: document.getElementById("last"),
};
const moveButtons = Array.from(document.querySelectorAll("#move-list button.move"));
const positions = [boardBox.dataset.start];
const moves = [null];
for (const button of moveButtons) {
  const ply = Number(button.dataset.ply);
  positions[ply] = button.dataset.position;
  if (ply) moves[ply] = button.textContent.trim();
}
const board = new Board(boardBox);
board.setRules({ start: boardBox.dataset.pow === "true" ? "pow" : "home" });
const analyses = new Map();
let details = null; // the positions API's answer: advancement and captures by ply
let flipped = false;
let ply = plies;

const hashPly = /^#ply=(\d+)$/.exec(window.location.hash);
if (hashPly) ply = Math.min(plies, Number(hashPly[1]));

const side = (name) => (name === "blue" ? "Blue" : "Gray");
const turnOf = (position) => (position.split(" ")[1] === "b" ? "blue" : "gray");

function svgUrl(size) {
  return `/api/games/${gameId}/board.svg?ply=${ply}&flipped=${flipped}${size ? `&size=${size}` : ""}`;
}

/** The status line: the move shown, who is to move (or how the game ended), and the counts. */
function describe() {
  const position = positions[ply];
  const turn = turnOf(position);
  let text = ply === 0 ? "Start position." : `Move ${ply} of ${plies}: ${side(turn === "blue" ? "gray" : "blue")} played ${moves[ply]}.`;
  if (ply === plies && outcomeText) text += ` Game over: ${outcomeText}.`;
  else text += ` ${side(turn)} to move.`;
  const info = details ? details[ply] : null;
  if (info) {
    text += ` Advancement Blue ${info.advancement.blue}, Gray ${info.advancement.gray}; captured by Blue ${info.captures.blue}, by Gray ${info.captures.gray}.`;
  }
  return text;
}

/** Scroll the move list (and only the list, never the page) to show the current move. */
function showInList(button) {
  if (!moveList) return;
  const box = moveList.getBoundingClientRect();
  const item = button.getBoundingClientRect();
  if (item.top < box.top) moveList.scrollTop -= box.top - item.top;
  else if (item.bottom > box.bottom) moveList.scrollTop += item.bottom - box.bottom;
}

function render() {
  const position = positions[ply];
  board.flipped = flipped;
  board.show(position, { lastMove: ply ? lastMoveView(moves[ply], position, board.paths) : null });
  boardBox.dataset.ply = String(ply);
  boardBox.dataset.position = position;
  boardBox.dataset.flipped = String(flipped);
  boardBox.setAttribute("aria-label", `The board at move ${ply}${flipped ? ", seen from Gray's side" : ""}: ${position}`);
  status.textContent = describe();
  buttons.first.disabled = buttons.previous.disabled = ply === 0;
  buttons.next.disabled = buttons.last.disabled = ply === plies;
  for (const button of moveButtons) {
    const current = Number(button.dataset.ply) === ply;
    button.classList.toggle("current", current);
    if (current) {
      button.setAttribute("aria-current", "step");
      showInList(button);
    } else {
      button.removeAttribute("aria-current");
    }
  }
  const svgLink = document.getElementById("download-svg");
  svgLink.href = svgUrl(720);
  svgLink.download = `bluegray-${gameId}-${ply}${flipped ? "-flipped" : ""}.svg`;
  history.replaceState(null, "", `#ply=${ply}`);
  analysisError.textContent = "";
  const known = analyses.get(ply);
  if (known) showAnalysis(analysisBox, known);
  else analysisBox.replaceChildren();
  showReview(ply);
  showExplorer(position, { gameMove: moves[ply + 1] ?? null });
}

let showReview = () => {};
// The explorer: a move of this game goes to it; another opens on the study board.
const showExplorer = explorerPanel((move) => moves[ply + 1] === move && (go(ply + 1), true));

function go(target) {
  const next = Math.max(0, Math.min(plies, target));
  if (next !== ply) {
    ply = next;
    showReview = setUpReview({ gameId, plies, ended: main.dataset.ended === "true", go });
render();
  }
}

buttons.first.addEventListener("click", () => go(0));
buttons.previous.addEventListener("click", () => go(ply - 1));
buttons.next.addEventListener("click", () => go(ply + 1));
buttons.last.addEventListener("click", () => go(plies));
for (const button of moveButtons) {
  button.addEventListener("click", () => go(Number(button.dataset.ply)));
}

function flip() {
  flipped = !flipped;
  flipButton.setAttribute("aria-pressed", String(flipped));
  showReview = setUpReview({ gameId, plies, ended: main.dataset.ended === "true", go });
render();
}
flipButton.addEventListener("click", flip);

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const tag = event.target instanceof Element ? event.target.tagName : "";
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  const actions = {
    ArrowLeft: () => go(ply - 1),
    ArrowRight: () => go(ply + 1),
    Home: () => go(0),
    End: () => go(plies),
    f: flip,
  };
  const action = actions[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
});

analyseButton.addEventListener("click", async () => {
  const asked = ply;
  const seconds = document.getElementById("analysis-seconds").value;
  analysisError.textContent = "";
  analyseButton.disabled = true;
  analyseButton.textContent = "Analysing…";
  try {
    const response = await fetch(`/api/games/${gameId}/analysis?ply=${asked}&seconds=${seconds}`,
      { credentials: "same-origin" });
    const result = await readJson(response);
    analyses.set(asked, result);
    if (asked === ply) showAnalysis(analysisBox, result);
  } catch (error) {
    analysisError.textContent = `Analysis failed: ${error.message}`;
  } finally {
    analyseButton.disabled = false;
    analyseButton.textContent = "Analyse this position";
  }
});

fetch(`/api/games/${gameId}/positions`, { credentials: "same-origin" })
  .then(readJson)
  .then((data) => {
    details = data.positions;
    status.textContent = describe();
  })
  .catch((error) => {
    status.textContent = `${describe()} (details unavailable: ${error.message})`;
  });

showReview = setUpReview({ gameId, plies, ended: main.dataset.ended === "true", go });
render();
