// A tournament's page: its table updated live (/ws/tournament/{id}), join and withdraw.
// When the tournament starts or finishes the page loads itself again (once) to show it.

import { request } from "./api.js";
import { reloadOnce } from "./navigate.js";

const facts = document.getElementById("tournament-facts");
const id = facts.dataset.tournament;
const body = document.querySelector("#standings tbody");
const error = document.getElementById("tournament-error");

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
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
    tr.append(cell(line.place), player, cell(line.score), cell(line.games),
      cell(`${line.wins} ${line.draws} ${line.losses}`), cell(line.rating));
    return tr;
  });
  body.replaceChildren(...rows);
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
      await request("POST", `/api/tournaments/${id}/${button.dataset.action}`);
      if (error) error.hidden = true;
    } catch (refusal) {
      error.textContent = refusal.message;
      error.hidden = false;
    }
  });
}

listen();
