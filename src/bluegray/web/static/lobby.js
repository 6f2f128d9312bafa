// The lobby: start a game (rule set, opponent, colour, clock), list this browser's games,
// import a record to replay. Seat tokens go to localStorage, never into a URL (docs/web.md).
// Requests carry the page's CSRF token (api.js): a logged-in player's new game is their account's.

import { idempotencyKey, request } from "./api.js";

const SEAT_KEY = (id) => `bluegray.seat.${id}`;
const INVITE_KEY = (id) => `bluegray.invite.${id}`;
const $ = (id) => document.getElementById(id);

let nextBefore = null;
let customChecked = null; // the custom text last checked, and whether it was valid
let creating = null; // the game being asked for, and its Idempotency-Key

const checked = (name) => document.querySelector(`input[name="${name}"]:checked`).value;

function showChoices() {
  const select = $("rules");
  const option = select.options[select.selectedIndex];
  $("rules-description").textContent = option.dataset.description || "";
  $("custom-rules-row").hidden = select.value !== "custom";
  $("level-row").hidden = checked("opponent") !== "ai";
  $("color-set").hidden = checked("opponent") === "hotseat";
  $("clock-row").hidden = checked("clock") !== "on";
  $("days-row").hidden = checked("clock") !== "days";
  const rated = $("rated-row");
  if (rated) rated.hidden = checked("opponent") !== "friend" || select.value === "custom";
}

async function checkCustom() {
  const text = $("custom-rules").value.trim();
  const box = $("custom-rules-result");
  box.classList.remove("error", "ok");
  if (!text) {
    customChecked = { text, ok: false };
    box.textContent = "Type the settings, e.g. cooper impasse-plies=50.";
    return false;
  }
  try {
    const rules = await request("POST", "/api/rules/parse", { text });
    customChecked = { text, ok: true };
    // The description names the settings once ("Custom rule set: captain=standard ...").
    box.textContent = `✓ ${rules.description}`;
    box.classList.add("ok");
    return true;
  } catch (error) {
    customChecked = { text, ok: false };
    box.textContent = `✗ ${error.message}`;
    box.classList.add("error");
    return false;
  }
}

async function startGame(event) {
  event.preventDefault();
  const errorBox = $("new-game-error");
  errorBox.textContent = "";
  let rules = $("rules").value;
  if (rules === "custom") {
    rules = $("custom-rules").value.trim();
    const valid = customChecked && customChecked.text === rules ? customChecked.ok : await checkCustom();
    if (!valid) {
      errorBox.textContent = "Fix the custom settings first.";
      $("custom-rules").focus();
      return;
    }
  }
  const kind = checked("opponent");
  const body = {
    rules,
    opponent: kind === "ai" ? { type: "ai", level: Number($("level").value) } : { type: kind },
    color: kind === "hotseat" ? "blue" : checked("color"),
  };
  const rated = $("rated");
  if (rated && !$("rated-row").hidden && rated.checked) body.rated = true;
  if (checked("clock") === "on") {
    const minutes = Number($("minutes").value);
    const increment = Number($("increment").value);
    if (!(minutes > 0) || !(increment >= 0)) {
      errorBox.textContent = "The clock needs a number of minutes and an increment (0 or more).";
      return;
    }
    body.clock = { minutes, increment_seconds: increment };
  } else if (checked("clock") === "days") {
    body.correspondence = { days: Number($("days").value) };
  }
  $("start").disabled = true;
  // The same game asked for again (its answer was lost) keeps its key: never two games.
  const asked = JSON.stringify(body);
  if (!creating || creating.asked !== asked) creating = { asked, key: idempotencyKey() };
  try {
    const created = await request("POST", "/api/games", body, { "Idempotency-Key": creating.key });
    creating = null;
    const id = created.game.id;
    localStorage.setItem(SEAT_KEY(id), created.seat.token);
    if (created.invite) localStorage.setItem(INVITE_KEY(id), location.origin + created.invite.path);
    location.assign(`/game/${encodeURIComponent(id)}`);
  } catch (error) {
    errorBox.textContent = error.message;
    $("start").disabled = false;
  }
}

function describeGame(game) {
  let state;
  if (game.outcome) state = game.outcome.description;
  else if (game.status === "aborted") state = "aborted";
  else if (game.status === "waiting") state = "waiting for your friend";
  else state = `${game.turn === "blue" ? "Blue" : "Gray"} to move`;
  const role = { blue: "you: Blue", gray: "you: Gray", both: "hot-seat", viewer: "replay" }[game.role] || game.role;
  return { title: `${game.rules} · vs ${game.opponent} · ${role}`, state, ply: game.ply };
}

async function listGames(more = false) {
  const list = $("games");
  const older = more && nextBefore
    ? `&before_ms=${nextBefore.ms}&before_id=${encodeURIComponent(nextBefore.id)}` : "";
  const url = `/api/games?limit=20${older}`;
  try {
    const response = await fetch(url, { credentials: "same-origin" });
    const data = await response.json();
    if (!more) list.replaceChildren();
    if (!more && (!data.games || data.games.length === 0)) {
      const item = document.createElement("li");
      item.className = "hint";
      item.textContent = "No games yet: start one!";
      list.append(item);
    }
    for (const game of data.games || []) {
      const words = describeGame(game);
      const item = document.createElement("li");
      const link = document.createElement("a");
      // An imported record is only replayed: it has no live game to open.
      const page = game.mode === "imported" ? "replay" : "game";
      link.href = `/${page}/${encodeURIComponent(game.id)}`;
      link.textContent = words.title;
      const detail = document.createElement("span");
      detail.className = "hint";
      detail.textContent = `${words.state} · ${words.ply} ${words.ply === 1 ? "move" : "moves"} · ` +
        new Date(game.created_ms).toLocaleString();
      item.append(link, detail);
      list.append(item);
    }
    nextBefore = data.next_before_ms === null ? null
      : { ms: data.next_before_ms, id: data.next_before_id };
    $("more-games").hidden = !nextBefore;
  } catch {
    list.textContent = "Could not load your games.";
  }
}

async function importRecord(event) {
  event.preventDefault();
  const errorBox = $("import-error");
  errorBox.textContent = "";
  try {
    const game = await request("POST", "/api/records", { text: $("record").value });
    location.assign(`/replay/${encodeURIComponent(game.id)}`);
  } catch (error) {
    errorBox.textContent = error.message;
  }
}

$("new-game").addEventListener("change", showChoices);
$("new-game").addEventListener("submit", startGame);
$("check-rules").addEventListener("click", checkCustom);
$("custom-rules").addEventListener("input", () => {
  customChecked = null;
  $("custom-rules-result").classList.remove("error", "ok");
});
$("custom-rules").addEventListener("keydown", (event) => {
  if (event.key === "Enter") {
    event.preventDefault();
    checkCustom();
  }
});
$("import").addEventListener("submit", importRecord);
$("more-games").addEventListener("click", () => listGames(true));
showChoices();
listGames();
