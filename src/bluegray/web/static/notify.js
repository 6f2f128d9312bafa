// An account's news on every page (/ws/account): a challenge sent to it (accept or decline
// in the header), a game that starts for it (on the lobby page, and on its tournament's page for
// a tournament's game, it goes there at once; elsewhere a link says so), and the games waiting
// for its move. The socket's first news is what waits now (the challenges not yet answered, the
// games to move in), so a page shows them however long ago they came. By the account's name, the
// count of games waiting for its move; where the browser lets it (asked on a click of "Notify
// me"), a notification when a game joins them while the page is hidden. A rated challenge says
// what a win, a draw or a loss would change the player's rating by (the server's preview, from
// the function that rates the game at its end, as the lobby's seeks say it). Names are set as
// text, never as HTML.

import { request } from "./api.js";
import { askNotifications, notifyTurn, timeControlText } from "./correspondence.js";
import { changesText, fetchPreview, ratingText } from "./game-rating.js";
import { goTo, leadToGame } from "./navigate.js";

const box = document.getElementById("notices");
const me = box ? box.dataset.account.toLowerCase() : "";
let retry = 500;

function notice(id, kind) {
  let item = box.querySelector(`[data-notice="${CSS.escape(id)}"]`);
  if (!item) {
    item = document.createElement("div");
    item.className = `notice ${kind}`;
    item.dataset.notice = id;
    item.setAttribute("role", "status");
    box.append(item);
  }
  item.replaceChildren();
  return item;
}

function challenge(seek) {
  if (!seek.to || seek.to.toLowerCase() !== me) return; // one this account sent
  const item = notice(seek.id, "challenge");
  const clock = timeControlText(seek);
  const text = document.createElement("span");
  text.textContent = `${seek.player} (${Math.round(seek.rating)}${seek.provisional ? "?" : ""}) challenges you: `
    + `${seek.rules}, ${clock}, ${seek.rated ? "rated" : "casual"}. `;
  const yes = document.createElement("button");
  yes.type = "button";
  yes.className = "primary accept-challenge";
  yes.textContent = "Accept";
  yes.addEventListener("click", async () => {
    try {
      const game = await request("POST", `/api/challenges/${encodeURIComponent(seek.id)}/accept`);
      goTo(game.path);
    } catch (error) {
      text.textContent = error.message;
    }
  });
  const no = document.createElement("button");
  no.type = "button";
  no.className = "secondary decline-challenge";
  no.textContent = "Decline";
  no.addEventListener("click", () => request("POST", `/api/challenges/${encodeURIComponent(seek.id)}/decline`)
    .catch((error) => { text.textContent = error.message; }));
  item.append(text, yes, " ", no);
  if (seek.rated) showChallengePreview(item, seek.id);
}

// A rated challenge's preview in its notice, once the server has given it (nothing if it cannot:
// the challenge gone, the server out of reach); the notice may have been redrawn or removed since.
async function showChallengePreview(item, id) {
  const preview = await fetchPreview(`/api/seeks/${encodeURIComponent(id)}/rating-preview`);
  if (!preview || !item.isConnected || item.querySelector(".rating-preview")) return;
  const note = document.createElement("span");
  note.className = "rating-preview";
  note.dataset.win = String(Math.round(preview.you.win));
  note.dataset.draw = String(Math.round(preview.you.draw));
  note.dataset.loss = String(Math.round(preview.you.loss));
  note.textContent = `Your rating ${ratingText(preview.you)}: ${changesText(preview.you)}. `;
  item.querySelector("span").after(note);
}

const TURNS_SHOWN = 3;

function opponentText(opponent) {
  if (opponent.kind === "account") return `against ${opponent.name}${opponent.bot ? " (bot)" : ""}`;
  if (opponent.kind === "ai") return `against the AI, level ${opponent.level}`;
  if (opponent.kind === "anonymous") return "against a player without an account";
  return "in your own game";
}

const count = document.getElementById("turn-count");
const askButton = document.getElementById("turn-notify");
let waitingIds = null; // the games known to wait for a move (null until the first news)

// The count by the account's name (every game waiting, this page's own too), and "Notify me"
// while the browser has not been asked yet.
function showCount(games) {
  if (!count) return;
  count.hidden = games.length === 0;
  count.querySelector(".turn-count-number").textContent = String(games.length);
  count.title = `${games.length} game${games.length === 1 ? "" : "s"} wait${games.length === 1 ? "s" : ""} for your move`;
  if (askButton) {
    askButton.hidden = games.length === 0 || !("Notification" in window)
      || Notification.permission !== "default";
  }
}

// A notification for each game that has just joined the list (not for those the page found).
function notifyNew(games) {
  const before = waitingIds;
  waitingIds = new Set(games.map((game) => game.id));
  if (before === null) return;
  for (const game of games) {
    if (!before.has(game.id)) notifyTurn("Blue and Gray: your move", `Your move ${opponentText(game.opponent)} (${game.rules}).`, game.path);
  }
}

if (askButton) {
  askButton.addEventListener("click", async () => {
    await askNotifications();
    askButton.hidden = true;
  });
}

// The games waiting for the account's move (this page's own game aside), the most urgent
// first: a link to each of the first few, and to the account's list for the rest.
function turns(games) {
  showCount(games);
  notifyNew(games);
  const waiting = games.filter((game) => game.path !== location.pathname);
  for (const item of box.querySelectorAll(".notice.turn")) item.remove();
  for (const game of waiting.slice(0, TURNS_SHOWN)) {
    const item = notice(`turn:${game.id}`, "turn");
    const link = document.createElement("a");
    link.href = game.path;
    link.textContent = `Your move ${opponentText(game.opponent)} (${game.rules}): play`;
    item.append(link);
  }
  if (waiting.length > TURNS_SHOWN) {
    const item = notice("turn:more", "turn");
    const link = document.createElement("a");
    link.href = "/account#turn-section";
    link.textContent = `${waiting.length - TURNS_SHOWN} more games wait for your move`;
    item.append(link);
  }
}

function started(game) {
  if (document.body.classList.contains("page-lobby")) {
    goTo(game.path);
    return;
  }
  const tournament = document.getElementById("tournament-facts");
  if (game.tournament && tournament && tournament.dataset.tournament === game.tournament) {
    leadToGame(game.game_id, game.path);
    return;
  }
  if (location.pathname === game.path) return;
  const item = notice(game.game_id, "started");
  const link = document.createElement("a");
  link.href = game.path;
  const what = game.tournament ? "tournament game" : "game";
  link.textContent = `Your ${game.rated ? "rated " : ""}${what} against ${game.opponent} has started: play`;
  item.append(link);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/account`);
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "pending") {
      for (const seek of message.challenges) challenge(seek);
      turns(message.turns);
    } else if (message.type === "turns") turns(message.games);
    else if (message.type === "challenge") challenge(message.seek);
    else if (message.type === "challenge_gone") {
      const item = box.querySelector(`[data-notice="${CSS.escape(message.id)}"]`);
      if (item) item.remove();
    } else if (message.type === "game_started") started(message.game);
    else if (message.type === "welcome") box.dataset.connected = "true";
  });
  socket.addEventListener("open", () => { retry = 500; });
  socket.addEventListener("close", (event) => {
    box.dataset.connected = "false";
    if (event.code === 4401) return; // logged out
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  });
}

if (box) connect();
