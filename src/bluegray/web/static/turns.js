// The account page's "Your turn" list (the games waiting for the account's move, the nearest
// deadline first), kept fresh while the page is open, with the browser's notification when a
// game joins it in the background; and the account's email notices.

import { request } from "./api.js";
import { leftText, notifyTurn, setUpNotifyButton } from "./correspondence.js";

const $ = (id) => document.getElementById(id);
const REFRESH_MS = 20_000;

const section = $("turn-section");
let serverOffset = section ? Number(section.dataset.serverTime) - Date.now() : 0;
let known = new Set();

function opponentText(opponent) {
  if (opponent.kind === "account") return `against ${opponent.name}${opponent.bot ? " (bot)" : ""}`;
  if (opponent.kind === "ai") return `against the AI, level ${opponent.level}`;
  if (opponent.kind === "anonymous") return "against a player without an account";
  return "a game of your own";
}

function showLeft() {
  const now = Date.now() + serverOffset;
  for (const item of document.querySelectorAll("#turn-list li")) {
    const left = item.querySelector(".turn-left");
    const deadline = Number(item.dataset.deadline || 0);
    left.textContent = deadline ? ` — ${leftText(deadline - now)} left` : "";
    item.classList.toggle("low", deadline > 0 && deadline - now < 6 * 3_600_000);
  }
}

function item(game) {
  const li = document.createElement("li");
  li.dataset.gameId = game.id;
  if (game.deadline_ms) li.dataset.deadline = String(game.deadline_ms);
  const link = document.createElement("a");
  link.href = game.path;
  link.textContent = opponentText(game.opponent);
  const facts = document.createElement("span");
  facts.className = "hint";
  const side = game.side[0].toUpperCase() + game.side.slice(1);
  const days = game.days_per_move;
  facts.textContent = ` ${game.rules} · ${side}` + (days ? ` · ${days} day${days === 1 ? "" : "s"} a move` : "");
  const left = document.createElement("span");
  left.className = "turn-left";
  li.append(link, facts, left);
  return li;
}

async function refresh() {
  let listed;
  try {
    const response = await fetch("/api/account/turn", { credentials: "same-origin" });
    if (!response.ok) return;
    listed = await response.json();
  } catch {
    return; // offline for a moment: the next refresh will tell
  }
  serverOffset = listed.server_time_ms - Date.now();
  $("turn-list").replaceChildren(...listed.games.map(item));
  $("turn-empty").hidden = listed.games.length > 0;
  const fresh = listed.games.filter((game) => !known.has(game.id));
  if (fresh.length) {
    notifyTurn("Blue and Gray: your move", `Your move ${opponentText(fresh[0].opponent)}.`, fresh[0].path);
  }
  known = new Set(listed.games.map((game) => game.id));
  showLeft();
}

if (section) {
  known = new Set([...document.querySelectorAll("#turn-list li")].map((li) => li.dataset.gameId));
  showLeft();
  setInterval(refresh, REFRESH_MS);
  setInterval(showLeft, 30_000);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) refresh();
  });
  setUpNotifyButton($("browser-notify-button"), $("browser-notify-line"));
}

const form = $("notify-form");
if (form) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    $("notify-error").textContent = "";
    $("notify-done").textContent = "";
    const email = $("notify-email").value.trim();
    const body = { email: email || null, turn: $("notify-turn").checked, time: $("notify-time").checked };
    if (!email && (body.turn || body.time)) {
      $("notify-error").textContent = "Email notices need an email address.";
      $("notify-email").focus();
      return;
    }
    $("notify-button").disabled = true;
    try {
      await request("PUT", "/api/account/notifications", body);
      $("notify-done").textContent = "Saved.";
    } catch (error) {
      $("notify-error").textContent = error.message;
    } finally {
      $("notify-button").disabled = false;
    }
  });
}
