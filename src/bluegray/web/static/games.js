// My games: older pages of the list, and importing a record (pasted or from a file).

import { readJson, request } from "./api.js";

// -- import ---------------------------------------------------------------------------------

const form = document.getElementById("import-form");
const textBox = document.getElementById("record-text");
const fileInput = document.getElementById("record-file");
const errorBox = document.getElementById("import-error");
const button = document.getElementById("import-button");

fileInput.addEventListener("change", async () => {
  errorBox.textContent = "";
  const file = fileInput.files && fileInput.files[0];
  if (!file) return;
  if (file.size > 200000) {
    errorBox.textContent = "That file is too large for a game record (200 kB at most).";
    return;
  }
  textBox.value = await file.text();
});

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  errorBox.textContent = "";
  const text = textBox.value;
  if (!text.trim()) {
    errorBox.textContent = "Paste a record or choose a file first.";
    textBox.focus();
    return;
  }
  button.disabled = true;
  try {
    const game = await request("POST", "/api/records", { text });
    const replay = `/replay/${encodeURIComponent(game.id)}`;
    if (document.getElementById("import-review").checked) {
      try {
        await request("POST", `/api/games/${encodeURIComponent(game.id)}/review`);
      } catch (error) {
        // Imported all the same: say why there is no review, and lead to the replay.
        errorBox.textContent = `Imported, but not reviewed: ${error.message}. `;
        const link = document.createElement("a");
        link.href = replay;
        link.textContent = "Open the replay";
        errorBox.append(link);
        button.disabled = false;
        return;
      }
    }
    window.location.assign(replay);
  } catch (error) {
    errorBox.textContent = `This record cannot be imported: ${error.message}`;
    button.disabled = false;
  }
});

// -- older games ----------------------------------------------------------------------------

const more = document.getElementById("more-games");
const body = document.getElementById("games-body");

function statusText(game) {
  if (game.outcome) return `${game.outcome.result} — ${game.outcome.description}`;
  if (game.status === "waiting") return "waiting for a friend";
  if (game.status === "active") return `in progress, ${game.turn === "blue" ? "Blue" : "Gray"} to move`;
  if (game.status === "finished") return "unfinished record";
  return game.status;
}

function cell(label, text, code) {
  const td = document.createElement("td");
  td.dataset.label = label;
  if (code) {
    const c = document.createElement("code");
    c.textContent = text;
    td.append(c);
  } else {
    td.textContent = text;
  }
  return td;
}

function link(href, text, id) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  const hidden = document.createElement("span");
  hidden.className = "sr-only";
  hidden.textContent = ` game ${id}`;
  a.append(hidden);
  return a;
}

function row(game) {
  const tr = document.createElement("tr");
  tr.dataset.gameId = game.id;
  const date = new Date(game.created_ms);
  const when = document.createElement("td");
  when.dataset.label = "Date";
  const time = document.createElement("time");
  time.dateTime = date.toISOString();
  time.textContent = `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  when.append(time);
  const links = document.createElement("td");
  links.className = "links";
  const live = game.status === "waiting" || game.status === "active";
  if (game.mode !== "imported") {
    links.append(link(`/game/${game.id}`, live ? "Play / watch" : "Open", game.id), " ");
  }
  links.append(link(`/replay/${game.id}`, "Replay", game.id));
  tr.append(when, cell("Rules", game.rules, true), cell("Opponent", game.opponent),
    cell("You", game.role), cell("Status", statusText(game)), cell("Moves", String(game.ply)), links);
  return tr;
}

if (more && body) {
  more.addEventListener("click", async () => {
    const error = document.getElementById("more-error");
    error.textContent = "";
    more.disabled = true;
    try {
      const older = `before_ms=${more.dataset.before}` +
        `&before_id=${encodeURIComponent(more.dataset.beforeId)}`;
      const response = await fetch(`/api/games?limit=50&${older}`, { credentials: "same-origin" });
      const data = await readJson(response);
      for (const game of data.games) body.append(row(game));
      if (data.next_before_ms === null) more.remove();
      else {
        more.dataset.before = String(data.next_before_ms);
        more.dataset.beforeId = data.next_before_id;
      }
    } catch (failure) {
      error.textContent = `Could not load older games: ${failure.message}`;
    } finally {
      more.disabled = false;
    }
  });
}
