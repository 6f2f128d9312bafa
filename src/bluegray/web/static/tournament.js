// A tournament's page: its table updated live (/ws/tournament/{id}), join and withdraw (the one
// that applies), the countdown to its start (or an arena's end). A player is led to each new
// game of theirs: by the account's socket (notify.js) as it starts, or at once when the page
// opens on a game of theirs being played (once per game: coming back here from it stays here).
// When the tournament starts or finishes the page loads itself again (once) to show it.

import { request } from "./api.js";
import { startCountdowns } from "./countdown.js";
import { leadToGame, reloadOnce } from "./navigate.js";

const facts = document.getElementById("tournament-facts");
const id = facts.dataset.tournament;
const kind = facts.dataset.kind;
const body = document.querySelector("#standings tbody");
const error = document.getElementById("tournament-error");
const entry = document.getElementById("entry");
const viewer = entry ? entry.dataset.viewer : null;

function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

/** A number as the table writes it: 2, 1.5 (never 2.0). */
function number(value) {
  return String(Number(value ?? 0));
}

/** Show Join or Withdraw, whichever applies to the viewer now. */
function showEntry(standings) {
  if (!entry) return;
  const status = standings.tournament.status;
  const mine = standings.standings.find((line) => line.name === viewer);
  const joined = Boolean(mine && !mine.withdrawn);
  const closed = kind === "swiss" && status !== "created";
  document.getElementById("join").hidden = joined || closed || status === "finished";
  document.getElementById("withdraw").hidden = !joined || status === "finished";
  document.getElementById("entry-closed").hidden = joined || !closed || status === "finished";
}

function showTable(standings) {
  const rows = standings.standings.map((line) => {
    const tr = document.createElement("tr");
    tr.dataset.player = line.name;
    const player = document.createElement("td");
    const link = document.createElement("a");
    link.href = `/player/${encodeURIComponent(line.name)}`;
    link.textContent = line.name;
    player.append(link);
    if (line.on_fire) player.append(" 🔥");
    if (line.withdrawn) player.append(" (withdrawn)");
    const breaks = kind === "arena"
      ? [cell(line.performance ?? "", "performance")]
      : [cell(number(line.buchholz), "buchholz"), cell(number(line.sonneborn_berger), "sonneborn-berger")];
    tr.append(cell(line.place), player, cell(number(line.score)), ...breaks, cell(line.games, "wide"),
      cell(`${line.wins} ${line.draws} ${line.losses}`), cell(line.rating, "wide"));
    return tr;
  });
  body.replaceChildren(...rows);
  showEntry(standings);
  const status = standings.tournament.status;
  document.getElementById("tournament-status").textContent = status;
  if (status !== facts.dataset.status) reloadOnce(); // started or finished: new games
}

function listen() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/tournament/${id}`);
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "tournament") showTable(message.standings);
  });
  socket.addEventListener("close", (event) => {
    if (event.code !== 4404) setTimeout(listen, 3000);
  });
}

for (const button of document.querySelectorAll("button[data-action]")) {
  button.addEventListener("click", async () => {
    try {
      showTable(await request("POST", `/api/tournaments/${id}/${button.dataset.action}`));
      if (error) error.hidden = true;
    } catch (refusal) {
      error.textContent = refusal.message;
      error.hidden = false;
    }
  });
}

if (facts.dataset.myGame) leadToGame(facts.dataset.myGame, facts.dataset.myGamePath);
const when = document.getElementById("tournament-when");
startCountdowns(when, Number(when.dataset.serverTime));
listen();
