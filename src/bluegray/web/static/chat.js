// A game's chat: the players' room and the spectators' (shown to the players once the game is
// over), the canned quick messages, free text from an account, and a mute and a report button
// per message. Messages are read with the page (GET /api/games/{id}/chat) and come on the game's
// socket (game.js passes them on as "bluegray:chat" events). Every message is set as text
// (textContent), never as markup: a link in one is only its letters.
import { request } from "./api.js";

const gameId = document.getElementById("main").dataset.gameId;
const $ = (id) => document.getElementById(id);
const accountLink = document.querySelector(".account-link[data-account]");
const me = accountLink ? accountLink.dataset.account : null;
const seatToken = () => localStorage.getItem(`bluegray.seat.${gameId}`);
const OVER = new Set(["finished", "aborted"]);

let log = null; // the chat as the server showed it (GET), kept up to date by the socket
let overSeen = false;
const shown = new Set(); // the ids of the messages on the page
const muted = new Set(); // names muted here since the page was read

function headers() {
  const token = seatToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

function url(path = "") {
  return `/api/games/${encodeURIComponent(gameId)}/chat${path}`;
}

function note(text) {
  $("chat-note").textContent = text;
}

function fail(error) {
  $("chat-error").textContent = `The chat: ${error.message}.`;
}

function authorName(line) {
  if (line.author) return line.author;
  if (line.side) return line.side === "blue" ? "Blue" : "Gray";
  return "A spectator";
}

function lineElement(line) {
  const item = document.createElement("li");
  item.className = "chat-line";
  item.dataset.id = String(line.id);
  if (line.author) item.dataset.author = line.author;
  const who = document.createElement("span");
  who.className = "chat-author";
  who.textContent = authorName(line);
  const text = document.createElement("span");
  text.className = "chat-text";
  text.textContent = line.text;
  item.append(who, ": ", text);
  if (me && line.author && line.author.toLowerCase() !== me.toLowerCase()) {
    const mute = document.createElement("button");
    mute.type = "button";
    mute.className = "secondary chat-mute";
    mute.textContent = "Mute";
    mute.setAttribute("aria-label", `Mute ${line.author} (for you alone)`);
    mute.addEventListener("click", () => mutePlayer(line.author));
    const report = document.createElement("button");
    report.type = "button";
    report.className = "secondary chat-report";
    report.textContent = "Report";
    report.setAttribute("aria-label", `Report this message of ${line.author}`);
    report.addEventListener("click", () => reportMessage(line.id, report));
    item.append(" ", mute, " ", report);
  }
  return item;
}

function add(line) {
  if (shown.has(line.id) || (line.author && muted.has(line.author.toLowerCase()))) return;
  if (line.room === "spectators" && log && !log.spectators_shown) return;
  shown.add(line.id);
  const list = $(line.room === "players" ? "chat-players" : "chat-spectators");
  list.append(lineElement(line));
  list.scrollTop = list.scrollHeight;
}

function render() {
  shown.clear();
  $("chat-players").replaceChildren();
  $("chat-spectators").replaceChildren();
  $("chat-error").textContent = "";
  if (log.chat_off) {
    note("The chat is off for your account (you can turn it on in your account's page).");
    $("chat-rooms").hidden = true;
    $("chat-canned").hidden = true;
    $("chat-form").hidden = true;
    return;
  }
  $("chat-rooms").hidden = false;
  $("chat-spectators-room").hidden = !log.spectators_shown;
  for (const line of log.messages) add(line);
  const canned = $("chat-canned");
  canned.replaceChildren();
  canned.hidden = log.room === null;
  for (const [key, text] of Object.entries(log.canned)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary";
    button.dataset.canned = key;
    button.textContent = text;
    button.addEventListener("click", () => send({ canned: key }));
    canned.append(button);
  }
  $("chat-form").hidden = !(me && log.room !== null);
  $("chat-label").textContent = log.room === "players"
    ? "Message to the players' room" : "Message to the spectators' room";
  if (log.room === null) note("Log in to chat.");
  else if (!me) note("Log in to write your own messages; the quick ones are for everyone.");
  else note("");
}

async function load() {
  try {
    log = await request("GET", url(), undefined, headers());
    render();
  } catch (error) {
    fail(error);
  }
}

async function send(body) {
  $("chat-error").textContent = "";
  try {
    add(await request("POST", url(), body, headers()));
    return true;
  } catch (error) {
    fail(error);
    return false;
  }
}

async function mutePlayer(name) {
  try {
    await request("PUT", `/api/account/chat/muted/${encodeURIComponent(name)}`);
    muted.add(name.toLowerCase());
    for (const item of document.querySelectorAll(".chat-line[data-author]")) {
      if (item.dataset.author.toLowerCase() === name.toLowerCase()) item.remove();
    }
    note(`You muted ${name}: you will see none of their messages (the others still do).`);
  } catch (error) {
    fail(error);
  }
}

async function reportMessage(id, button) {
  try {
    await request("POST", url(`/${id}/report`), undefined, headers());
    button.disabled = true;
    button.textContent = "Reported";
    note("Reported to the moderators.");
  } catch (error) {
    fail(error);
  }
}

$("chat-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = $("chat-text");
  const text = input.value.trim();
  if (!text) return;
  if (await send({ text })) input.value = "";
});

document.addEventListener("bluegray:chat", (event) => {
  if (log && !log.chat_off) add(event.detail);
});

// When the game ends the players are shown the spectators' room: read the chat again.
document.addEventListener("bluegray:state", (event) => {
  if (!overSeen && OVER.has(event.detail.status)) {
    overSeen = true;
    if (log && !log.spectators_shown) load();
  }
});

load();
