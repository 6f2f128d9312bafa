// The replay: step through a stored game (buttons, keys, move list), flip, analyse, download.
"use strict";

(() => {
  const { readJson, showAnalysis } = window.BlueGrayStudy;
  const main = document.getElementById("main");
  const gameId = main.dataset.gameId;
  const plies = Number(main.dataset.plies);
  const board = document.getElementById("board");
  const status = document.getElementById("ply-status");
  const analysisBox = document.getElementById("analysis");
  const analysisError = document.getElementById("analysis-error");
  const analyseButton = document.getElementById("analyse");
  const flipButton = document.getElementById("flip");
  const buttons = {
    first: document.getElementById("first"),
    previous: document.getElementById("previous"),
    next: document.getElementById("next"),
    last: document.getElementById("last"),
  };
  const moveButtons = Array.from(document.querySelectorAll("#move-list button.move"));
  const analyses = new Map();
  let positions = null;
  let outcomeText = "";
  let flipped = false;
  let ply = plies;

  const hashPly = /^#ply=(\d+)$/.exec(window.location.hash);
  if (hashPly) ply = Math.min(plies, Number(hashPly[1]));

  function boardUrl(size) {
    return `/api/games/${gameId}/board.svg?ply=${ply}&flipped=${flipped}${size ? `&size=${size}` : ""}`;
  }

  function describe() {
    const info = positions ? positions[ply] : null;
    const side = (name) => (name === "blue" ? "Blue" : "Gray");
    let text = ply === 0 ? "Start position" : `Move ${ply} of ${plies}`;
    if (info) {
      if (info.move) text += `: ${side(info.turn === "blue" ? "gray" : "blue")} played ${info.move}`;
      text += `. ${side(info.turn)} to move. Advancement Blue ${info.advancement.blue}, Gray ${info.advancement.gray}; captured by Blue ${info.captures.blue}, by Gray ${info.captures.gray}.`;
      board.alt = `The board at move ${ply}${flipped ? ", seen from Gray's side" : ""}: ${info.position}`;
    } else {
      board.alt = `The board at move ${ply}${flipped ? ", seen from Gray's side" : ""}`;
    }
    if (ply === plies && outcomeText) text += ` ${outcomeText}`;
    return text;
  }

  function render() {
    board.src = boardUrl(0);
    board.dataset.ply = String(ply);
    status.textContent = describe();
    buttons.first.disabled = buttons.previous.disabled = ply === 0;
    buttons.next.disabled = buttons.last.disabled = ply === plies;
    for (const button of moveButtons) {
      const current = Number(button.dataset.ply) === ply;
      button.classList.toggle("current", current);
      if (current) {
        button.setAttribute("aria-current", "step");
        button.scrollIntoView({ block: "nearest", inline: "nearest" });
      } else {
        button.removeAttribute("aria-current");
      }
    }
    const svgLink = document.getElementById("download-svg");
    svgLink.href = boardUrl(720);
    svgLink.download = `bluegray-${gameId}-${ply}${flipped ? "-flipped" : ""}.svg`;
    history.replaceState(null, "", `#ply=${ply}`);
    analysisError.textContent = "";
    const known = analyses.get(ply);
    if (known) showAnalysis(analysisBox, known);
    else analysisBox.replaceChildren();
  }

  function go(target) {
    const next = Math.max(0, Math.min(plies, target));
    if (next !== ply) {
      ply = next;
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
      positions = data.positions;
      outcomeText = data.outcome ? `${data.outcome.result}: ${data.outcome.description}.` : "";
      status.textContent = describe();
    })
    .catch((error) => {
      status.textContent = `${describe()} (details unavailable: ${error.message})`;
    });

  render();
})();
