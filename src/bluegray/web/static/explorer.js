// The opening explorer's panel (the replay and study pages): the moves played from the position
// shown, in the site's rated games between people or in the engine book, each with its games, a
// bar of Blue's wins, draws and Gray's wins, Blue's score and the players' average rating.
// A page calls `explorerPanel(onMove)` once and `show(position, { rules, gameMove })` whenever its
// board changes (the rule set: the panel's data-rules unless named); clicking a move calls
// `onMove(move)`, which plays it or goes to it and returns true, or returns false: then the move
// opens on the study board.
import { readJson } from "./api.js";
import { element } from "./study-analysis.js";

const percent = (part, whole) => (whole ? Math.round((100 * part) / whole) : 0);

/** A bar of Blue's wins, draws and Gray's wins, with its numbers in words for screen readers. */
function scoreBar(counts) {
  const bar = element("div", null, "explorer-bar");
  const blue = percent(counts.blue_wins, counts.games);
  const gray = percent(counts.gray_wins, counts.games);
  const draws = Math.max(0, 100 - blue - gray);
  bar.setAttribute("role", "img");
  bar.setAttribute("aria-label", `Blue won ${blue}%, drawn ${draws}%, Gray won ${gray}%`);
  bar.title = `Blue ${counts.blue_wins} · draws ${counts.draws} · Gray ${counts.gray_wins}`;
  for (const [share, name] of [[blue, "blue"], [draws, "draw"], [gray, "gray"]]) {
    const part = element("span", share >= 18 ? `${share}%` : "", `explorer-${name}`);
    part.style.width = `${share}%`;
    bar.append(part);
  }
  return bar;
}

/** Set up the panel (`#explorer-panel`); returns `show(position, { rules, gameMove })`. */
export function explorerPanel(onMove) {
  const panel = document.getElementById("explorer-panel");
  if (!panel) return () => {};
  const status = panel.querySelector(".explorer-status");
  const table = panel.querySelector("table");
  const body = table.querySelector("tbody");
  const sourceSelect = panel.querySelector("select");
  let asked = null; // {rules, position, gameMove} of the last request
  let answer = null;
  let generation = 0;

  function render() {
    body.replaceChildren();
    if (!answer) return;
    const source = sourceSelect.value;
    const total = answer[source];
    const moves = answer.moves.filter((move) => move[source]);
    moves.sort((a, b) => b[source].games - a[source].games);
    const words = source === "site" ? "rated game" : "book game";
    if (!moves.length) {
      status.textContent = `No ${words} passed through this position${source === "site" ? " (the site counts each rated game's first 30 moves)" : ""}.`;
      table.hidden = true;
      return;
    }
    status.textContent = `${total.games} ${words}${total.games === 1 ? "" : "s"} passed through this position; Blue scored ${Math.round(100 * total.blue_score)}%.`;
    table.hidden = false;
    for (const move of moves) {
      const counts = move[source];
      const row = element("tr");
      row.dataset.move = move.move;
      const cell = element("td");
      const button = element("button", move.move, "move");
      button.type = "button";
      const ours = asked.gameMove === move.move;
      button.setAttribute("aria-label", `${ours ? "Go to" : "Play"} ${move.move}: ${counts.games} games`);
      if (ours) {
        button.classList.add("current");
        button.title = "The move played in this game";
      }
      button.addEventListener("click", () => {
        if (onMove(move.move)) return;
        const query = new URLSearchParams({ rules: asked.rules, position: asked.position, moves: move.move });
        window.location.href = `/study?${query}`;
      });
      cell.append(button);
      row.append(cell);
      row.append(element("td", String(counts.games), "explorer-games"));
      const barCell = element("td");
      barCell.append(scoreBar(counts));
      row.append(barCell);
      row.append(element("td", counts.average_rating === null ? "–" : String(counts.average_rating)));
      body.append(row);
    }
  }

  async function load(rules, position, gameMove) {
    generation += 1;
    const mine = generation;
    asked = { rules, position, gameMove };
    if (!rules) {
      answer = null;
      table.hidden = true;
      status.textContent = "The explorer covers the preset rule sets only.";
      return;
    }
    status.textContent = "Loading…";
    try {
      const query = new URLSearchParams({ rules, position });
      const found = await readJson(await fetch(`/api/explorer?${query}`, { credentials: "same-origin" }));
      if (mine !== generation) return; // the board moved on meanwhile
      answer = found;
      panel.dataset.position = found.position;
      render();
    } catch (error) {
      if (mine !== generation) return;
      answer = null;
      table.hidden = true;
      status.textContent = `The explorer is not available here: ${error.message}`;
    }
  }

  sourceSelect.addEventListener("change", render);
  let waiting = null;
  // Stepping through a game quickly asks for the last position only.
  return (position, { rules = panel.dataset.rules || null, gameMove = null } = {}) => {
    clearTimeout(waiting);
    if (answer && asked.rules === rules && asked.position === position && asked.gameMove === gameMove) {
      return; // the same position drawn again (the board flipped): the answer stands
    }
    waiting = setTimeout(() => load(rules, position, gameMove), 120);
  };
}
