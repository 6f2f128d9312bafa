// The computer review on the replay page: ask for it, follow its progress (read from the server,
// so it survives a reload), then draw the evaluation graph (click a point to go to its move),
// mark each move's verdict in the move list and say, at each move, what the engine preferred.
import { readJson, request } from "./api.js";

const SYMBOLS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const WORDS = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };
const POLL_MS = 1000;
const WIDTH = 600;
const HEIGHT = 160;
const SVG = "http://www.w3.org/2000/svg";

const side = (name) => (name === "blue" ? "Blue" : "Gray");

/** Set up the review panel; ``go(ply)`` moves the replay. Returns ``showPly(ply)``, which says
 * what the review thinks of the move that led to ``ply``. */
export function setUpReview({ gameId, plies, ended, go }) {
  const panel = document.getElementById("review-panel");
  const askButton = document.getElementById("request-review");
  const progressBox = document.getElementById("review-progress");
  const bar = document.getElementById("review-bar");
  const progressText = document.getElementById("review-progress-text");
  const graphBox = document.getElementById("review-graph-box");
  const graph = document.getElementById("review-graph");
  const summary = document.getElementById("review-summary");
  const moveNote = document.getElementById("review-move");
  const errorBox = document.getElementById("review-error");
  let review = null;
  let current = plies;
  let timer = null;

  function showProgress(data) {
    progressBox.hidden = false;
    bar.max = data.positions;
    bar.value = data.analysed;
    progressText.textContent = `Analysing: ${data.analysed} of ${data.positions} positions`;
    panel.dataset.status = data.status;
  }

  function point(ply, expected) {
    const x = plies ? (ply / plies) * WIDTH : 0;
    return [x, HEIGHT - expected * HEIGHT];
  }

  function drawGraph(data) {
    graph.replaceChildren();
    graph.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
    const middle = document.createElementNS(SVG, "line");
    middle.setAttribute("x1", "0");
    middle.setAttribute("x2", String(WIDTH));
    middle.setAttribute("y1", String(HEIGHT / 2));
    middle.setAttribute("y2", String(HEIGHT / 2));
    middle.setAttribute("class", "review-even");
    graph.append(middle);
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", data.evaluation.map((p) => point(p.ply, p.blue_expected).join(",")).join(" "));
    line.setAttribute("class", "review-line");
    graph.append(line);
    const verdicts = new Map(data.moves.map((move) => [move.ply, move.verdict]));
    for (const p of data.evaluation) {
      const [x, y] = point(p.ply, p.blue_expected);
      const dot = document.createElementNS(SVG, "circle");
      dot.setAttribute("cx", String(x));
      dot.setAttribute("cy", String(y));
      dot.setAttribute("r", verdicts.get(p.ply) ? "5" : "3");
      dot.setAttribute("class", `review-point ${verdicts.get(p.ply) ? `verdict-${verdicts.get(p.ply)}` : ""}`);
      dot.dataset.ply = String(p.ply);
      const title = document.createElementNS(SVG, "title");
      title.textContent = `Move ${p.ply}: Blue expected ${p.blue_expected.toFixed(2)}`;
      dot.append(title);
      graph.append(dot);
    }
    graphBox.hidden = false;
  }

  function markMoves(data) {
    for (const move of data.moves) {
      const button = document.querySelector(`#move-list button.move[data-ply="${move.ply}"]`);
      if (!button || !move.verdict) continue;
      button.classList.add(`verdict-${move.verdict}`);
      button.dataset.verdict = move.verdict;
      const mark = document.createElement("span");
      mark.className = "verdict-mark";
      mark.textContent = SYMBOLS[move.verdict];
      mark.setAttribute("aria-hidden", "true");
      button.append(mark);
      button.setAttribute("aria-label", `${button.getAttribute("aria-label")}, ${move.verdict}`);
    }
  }

  function showSummary(data) {
    summary.replaceChildren();
    for (const name of ["blue", "gray"]) {
      const s = data[name];
      const line = document.createElement("p");
      line.className = `review-side review-${name}`;
      const accuracy = s.accuracy === null ? "no moves" : `accuracy ${s.accuracy.toFixed(1)}%`;
      line.textContent = `${side(name)}: ${accuracy}; ${s.inaccuracies} inaccuracies, ${s.mistakes} mistakes, ${s.blunders} blunders`;
      summary.append(line);
    }
    const note = document.createElement("p");
    note.className = "hint";
    note.textContent = `Engine ${data.engines.join(", ")}, ${data.nodes.toLocaleString("en")} nodes a position. The graph is Blue's expected score: up, Blue is better.`;
    summary.append(note);
  }

  function showPly(ply) {
    current = ply;
    if (!review || review.status !== "done") return;
    const move = review.moves.find((m) => m.ply === ply);
    moveNote.replaceChildren();
    delete moveNote.dataset.verdict;
    if (!move) return;
    const text = document.createElement("p");
    if (move.verdict) {
      moveNote.dataset.verdict = move.verdict;
      text.textContent = `${side(move.side)}'s ${move.move} ${SYMBOLS[move.verdict]}: ${WORDS[move.verdict]} (lost ${move.loss.toFixed(2)} of the expected score).`;
      moveNote.append(text);
      if (move.best_move) {
        const better = document.createElement("p");
        better.className = "review-better";
        better.dataset.move = move.best_move;
        better.textContent = `Better: ${move.best_move}. Line: ${move.line.join(" ")}`;
        moveNote.append(better);
      }
    } else {
      text.textContent = `${side(move.side)}'s ${move.move}: ${move.best_move ? "a good move" : "the engine's move"} (accuracy ${move.accuracy.toFixed(0)}%).`;
      moveNote.append(text);
    }
    for (const dot of graph.querySelectorAll(".review-point")) {
      dot.classList.toggle("current", Number(dot.dataset.ply) === ply);
    }
  }

  function show(data) {
    review = data;
    askButton.hidden = true;
    panel.dataset.status = data.status;
    if (data.status === "pending") {
      showProgress(data);
      return;
    }
    progressBox.hidden = true;
    if (data.status === "failed") {
      errorBox.textContent = `The review failed: ${data.failure}. You may ask again.`;
      askButton.hidden = false;
      return;
    }
    drawGraph(data);
    markMoves(data);
    showSummary(data);
    showPly(current);
  }

  async function poll() {
    timer = null;
    try {
      const data = await readJson(await fetch(`/api/games/${gameId}/review`, { credentials: "same-origin" }));
      show(data);
      if (data.status === "pending") timer = setTimeout(poll, POLL_MS);
    } catch (error) {
      errorBox.textContent = `The review could not be read: ${error.message}`;
      timer = setTimeout(poll, POLL_MS * 3);
    }
  }

  graph.addEventListener("click", (event) => {
    const box = graph.getBoundingClientRect();
    if (!box.width || !plies) return;
    go(Math.round(((event.clientX - box.left) / box.width) * plies));
  });

  askButton.addEventListener("click", async () => {
    errorBox.textContent = "";
    askButton.disabled = true;
    try {
      show(await request("POST", `/api/games/${gameId}/review`));
      if (review.status === "pending" && !timer) timer = setTimeout(poll, POLL_MS);
    } catch (error) {
      errorBox.textContent = `No review: ${error.message}`;
    } finally {
      askButton.disabled = false;
    }
  });

  // The answer's body is always read (readJson), a 404 too: an unread body keeps the request
  // open in the browser.
  fetch(`/api/games/${gameId}/review`, { credentials: "same-origin" }).then(readJson).then((data) => {
    show(data);
    if (review.status === "pending") timer = setTimeout(poll, POLL_MS);
  }).catch((error) => {
    if (error.code === "no_review") {
      askButton.hidden = !ended || plies === 0;
      if (!ended) summary.textContent = "A game is reviewed once it has ended.";
      return;
    }
    errorBox.textContent = `The review could not be read: ${error.message}`;
  });

  return showPly;
}
