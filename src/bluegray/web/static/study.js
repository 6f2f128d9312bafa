// The study board: any rule set and position, moves played from it, legal moves, analysis.
// A request the server refuses (bad rules, position or move) shows its message and changes
// nothing: the board keeps the last position the server accepted. The board is drawn by
// board.js, as on every page.
import { Board, lastMoveView } from "./board.js";
import { request } from "./api.js";
import { element, showAnalysis } from "./study-analysis.js";
import { explorerPanel } from "./explorer.js";
import "./read-board.js"; // the "Read the board" button

(() => {
  const form = document.getElementById("study-form");
  const rulesSelect = document.getElementById("rules");
  const customRow = document.getElementById("custom-row");
  const customInput = document.getElementById("custom-rules");
  const positionInput = document.getElementById("position");
  const movesInput = document.getElementById("moves");
  const errorBox = document.getElementById("study-error");
  const boardBox = document.getElementById("board");
  const board = new Board(boardBox);
  const status = document.getElementById("position-status");
  const legalList = document.getElementById("legal-moves");
  const legalCount = document.getElementById("legal-count");
  const analyseButton = document.getElementById("analyse");
  const analysisBox = document.getElementById("analysis");
  const analysisError = document.getElementById("analysis-error");
  const flipButton = document.getElementById("flip");
  const undoButton = document.getElementById("undo");

  let applied = null; // {rules, position, moves} the server accepted
  let shown = null; // the server's answer for it
  let flipped = false;
  let generation = 0;

  function rulesText() {
    return rulesSelect.value === "custom" ? customInput.value.trim() : rulesSelect.value;
  }

  function showDescription() {
    const option = rulesSelect.options[rulesSelect.selectedIndex];
    document.getElementById("rules-description").textContent = option.dataset.description || "";
    customRow.hidden = rulesSelect.value !== "custom";
  }

  function formRequest() {
    const position = positionInput.value.trim();
    return {
      rules: rulesText(),
      position: position === "" ? null : position,
      moves: movesInput.value.split(/[\s,]+/).filter((text) => text !== ""),
    };
  }

  function boardUrl(size) {
    const query = new URLSearchParams({ rules: shown.rules.text, position: shown.position });
    if (shown.last_move) query.set("last_move", shown.last_move);
    query.set("flipped", String(flipped));
    if (size) query.set("size", String(size));
    return `/api/board.svg?${query}`;
  }

  function drawBoard() {
    board.setRules(shown.rules.settings);
    board.flipped = flipped;
    const last = shown.last_move ? lastMoveView(shown.last_move, shown.position, board.paths) : null;
    board.show(shown.position, { lastMove: last });
    boardBox.setAttribute("aria-label", `The board${flipped ? " seen from Gray's side" : ""}: ${shown.position}`);
    boardBox.dataset.position = shown.position;
    boardBox.dataset.flipped = String(flipped);
  }

  function render() {
    drawBoard();
    const turn = shown.turn === "blue" ? "Blue" : "Gray";
    let text = shown.outcome ? `Game over: ${shown.outcome.result}, ${shown.outcome.description}.`
      : `${turn} to move.`;
    text += ` Rules ${shown.rules.text}; ${shown.ply} move${shown.ply === 1 ? "" : "s"} played`;
    if (shown.last_move) text += `, the last ${shown.last_move}`;
    text += `. Advancement Blue ${shown.advancement.blue}, Gray ${shown.advancement.gray}.`;
    status.textContent = text;
    legalList.replaceChildren();
    for (const move of shown.legal_moves) {
      const button = element("button", move, "move");
      button.type = "button";
      button.dataset.move = move;
      button.addEventListener("click", () => play(move));
      const item = element("li");
      item.append(button);
      legalList.append(item);
    }
    legalCount.textContent = `(${shown.legal_moves.length})`;
    if (!shown.legal_moves.length) legalList.append(element("li", "none: the game is over"));
    undoButton.disabled = applied.moves.length === 0;
    const download = document.getElementById("download-svg");
    download.href = boardUrl(720);
    const share = new URLSearchParams({ rules: applied.rules });
    if (applied.position) share.set("position", applied.position);
    if (applied.moves.length) share.set("moves", applied.moves.join(" "));
    document.getElementById("share-link").href = `/study?${share}`;
    analysisBox.replaceChildren();
    analysisError.textContent = "";
    showExplorer(shown.position, { rules: shown.rules.name || null });
  }

  function fillForm(wanted) {
    positionInput.value = wanted.position || "";
    movesInput.value = wanted.moves.join(" ");
  }

  async function apply(wanted) {
    errorBox.textContent = "";
    if (!wanted.rules) {
      errorBox.textContent = "Enter a custom rule set, e.g. cooper impasse-plies=50.";
      return false;
    }
    try {
      const answer = await request("POST", "/api/study/position", wanted);
      generation += 1;
      applied = { rules: wanted.rules, position: wanted.position, moves: answer.moves };
      shown = answer;
      fillForm(applied);
      positionInput.placeholder = answer.rules.start;
      render();
      return true;
    } catch (error) {
      errorBox.textContent = `Nothing changed: ${error.message}`;
      return false;
    }
  }

  function play(move) {
    apply({ ...applied, moves: [...applied.moves, move] });
  }
  const showExplorer = explorerPanel((move) => (play(move), true));

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    apply(formRequest());
  });
  // Another rule set starts from its own start, or from the position typed in (without the
  // moves, which belonged to the old rules); if the server refuses, the choice goes back.
  rulesSelect.addEventListener("change", async () => {
    showDescription();
    if (rulesSelect.value === "custom") {
      customInput.focus();
      return;
    }
    const wanted = formRequest();
    const ok = await apply({ ...wanted, moves: [] });
    if (!ok && applied) {
      const preset = Array.from(rulesSelect.options).some((o) => o.value === applied.rules);
      rulesSelect.value = preset ? applied.rules : "custom";
      if (!preset) customInput.value = applied.rules;
      showDescription();
    }
  });
  document.getElementById("start-position").addEventListener("click", () => {
    apply({ rules: rulesText(), position: null, moves: [] });
  });
  undoButton.addEventListener("click", () => {
    if (applied && applied.moves.length) apply({ ...applied, moves: applied.moves.slice(0, -1) });
  });
  flipButton.addEventListener("click", () => {
    flipped = !flipped;
    flipButton.setAttribute("aria-pressed", String(flipped));
    if (shown) {
      drawBoard();
      document.getElementById("download-svg").href = boardUrl(720);
    }
  });

  analyseButton.addEventListener("click", async () => {
    if (!applied) return;
    const asked = generation;
    analysisError.textContent = "";
    analyseButton.disabled = true;
    analyseButton.textContent = "Analysing…";
    try {
      const seconds = Number(document.getElementById("analysis-seconds").value);
      const result = await request("POST", "/api/analysis", { ...applied, seconds });
      if (asked === generation) showAnalysis(analysisBox, result);
    } catch (error) {
      analysisError.textContent = `Analysis failed: ${error.message}`;
    } finally {
      analyseButton.disabled = false;
      analyseButton.textContent = "Analyse";
    }
  });

  showDescription();
  apply(formRequest()).then((ok) => {
    if (!ok) {
      // The link's position is refused: show the rule set's start (the message stays).
      const message = errorBox.textContent;
      const fallback = { rules: rulesText() || "sackson", position: null, moves: [] };
      apply(fallback).then(() => { errorBox.textContent = message; });
    }
  });
})();
