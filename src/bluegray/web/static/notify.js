// An account's news on every page (/ws/account): a challenge sent to it (accept or decline
// in the header), and a game that starts for it (on the lobby page it goes there at once;
// elsewhere a link says so). Names are set as text, never as HTML.

import { request } from "./api.js";
import { timeControlText } from "./correspondence.js";
import { goTo } from "./navigate.js";

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
}

function started(game) {
  if (document.body.classList.contains("page-lobby")) {
    goTo(game.path);
    return;
  }
  if (location.pathname === game.path) return;
  const item = notice(game.game_id, "started");
  const link = document.createElement("a");
  link.href = game.path;
  link.textContent = `Your ${game.rated ? "rated " : ""}game against ${game.opponent} has started: play`;
  item.append(link);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/account`);
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "challenge") challenge(message.seek);
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
