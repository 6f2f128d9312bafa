// The lobby: start a game, list this browser's games, import a record.
"use strict";

const SEAT_KEY = (id) => `bluegray.seat.${id}`;
const INVITE_KEY = (id) => `bluegray.invite.${id}`;

async function postJson(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = data.error ? data.error.message : `error ${response.status}`;
    throw new Error(message);
  }
  return data;
}

function selectedRules() {
  const select = document.getElementById("rules");
  if (select.value === "custom") {
    return document.getElementById("custom-rules").value.trim() || "sackson";
  }
  return select.value;
}

function showDescription() {
  const select = document.getElementById("rules");
  const option = select.options[select.selectedIndex];
  document.getElementById("rules-description").textContent = option.dataset.description || "";
  document.getElementById("custom-rules-row").hidden = select.value !== "custom";
}

async function startGame(event) {
  event.preventDefault();
  const form = event.target;
  const errorBox = document.getElementById("new-game-error");
  errorBox.textContent = "";
  const kind = form.querySelector('input[name="opponent"]:checked').value;
  const opponent = kind === "ai"
    ? { type: "ai", level: Number(document.getElementById("level").value) }
    : { type: kind };
  const body = {
    rules: selectedRules(),
    opponent,
    color: document.getElementById("color").value,
  };
  if (document.getElementById("clock").checked) {
    body.clock = {
      minutes: Number(document.getElementById("minutes").value),
      increment_seconds: Number(document.getElementById("increment").value),
    };
  }
  try {
    const created = await postJson("/api/games", body);
    const id = created.game.id;
    localStorage.setItem(SEAT_KEY(id), created.seat.token);
    if (created.invite) {
      localStorage.setItem(INVITE_KEY(id), location.origin + created.invite.path);
    }
    location.assign(`/game/${encodeURIComponent(id)}`);
  } catch (error) {
    errorBox.textContent = error.message;
  }
}

function describeGame(game) {
  const when = new Date(game.created_ms).toLocaleString();
  let state;
  if (game.outcome) state = game.outcome.description;
  else if (game.status === "aborted") state = "aborted";
  else if (game.status === "waiting") state = "waiting for your friend";
  else state = `${game.turn === "blue" ? "Blue" : "Gray"} to move, ply ${game.ply}`;
  return `${game.rules} vs ${game.opponent} (you: ${game.role}) — ${state} — ${when}`;
}

async function listGames() {
  const list = document.getElementById("games");
  try {
    const response = await fetch("/api/games?limit=50", { credentials: "same-origin" });
    const data = await response.json();
    list.replaceChildren();
    if (!data.games || data.games.length === 0) {
      const item = document.createElement("li");
      item.textContent = "No games yet.";
      list.append(item);
      return;
    }
    for (const game of data.games) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = `/game/${encodeURIComponent(game.id)}`;
      link.textContent = describeGame(game);
      item.append(link);
      list.append(item);
    }
  } catch (error) {
    list.textContent = "Could not load your games.";
  }
}

async function importRecord(event) {
  event.preventDefault();
  const errorBox = document.getElementById("import-error");
  errorBox.textContent = "";
  try {
    const game = await postJson("/api/records", { text: document.getElementById("record").value });
    location.assign(`/game/${encodeURIComponent(game.id)}`);
  } catch (error) {
    errorBox.textContent = error.message;
  }
}

document.getElementById("rules").addEventListener("change", showDescription);
document.getElementById("new-game").addEventListener("submit", startGame);
document.getElementById("import").addEventListener("submit", importRecord);
showDescription();
listGames();
