// The moderators' page of reported chat messages: each report with its message (set as text,
// never markup), and the buttons that dismiss it, mute its author everywhere (or end that mute)
// or close the author's account.
import { request } from "./api.js";

const $ = (id) => document.getElementById(id);

function button(text, label, work) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = "secondary";
  element.textContent = text;
  element.setAttribute("aria-label", label);
  element.addEventListener("click", async () => {
    $("reports-error").textContent = "";
    try {
      await work();
      $("reports-done").textContent = "Done.";
      await load();
    } catch (error) {
      $("reports-error").textContent = error.message;
    }
  });
  return element;
}

function reportItem(report) {
  const item = document.createElement("li");
  item.className = "panel report";
  item.dataset.id = String(report.id);
  const line = report.message;
  const author = line.author || (line.side ? `${line.side} (no account)` : "no account");
  const head = document.createElement("p");
  const game = document.createElement("a");
  game.href = `/game/${encodeURIComponent(report.game_id)}`;
  game.textContent = `game ${report.game_id}`;
  head.append(`${author} in the ${line.room}' room of `, game, `, reported by ${report.reporter}`,
    ` (${report.state}${report.author_muted ? "; author muted" : ""}${report.author_closed ? "; account closed" : ""})`);
  const text = document.createElement("blockquote");
  text.className = "report-text";
  text.textContent = line.text;
  const actions = document.createElement("div");
  actions.className = "row";
  const decide = (action) => () => request("POST", `/api/moderation/chat-reports/${report.id}`, { action });
  if (report.state === "open") {
    actions.append(button("Dismiss", `Dismiss the report of ${author}'s message`, decide("dismiss")));
  }
  if (line.author) {
    const name = encodeURIComponent(line.author);
    if (report.author_muted) {
      actions.append(button("Unmute", `End the mute of ${author}`, () => request("POST", `/api/players/${name}/unmute`)));
    } else if (report.state === "open") {
      actions.append(button("Mute", `Mute ${author} everywhere`, decide("mute")));
    }
    if (!report.author_closed && report.state === "open") {
      actions.append(button("Close account", `Close ${author}'s account`, decide("close")));
    }
  }
  item.append(head, text, actions);
  return item;
}

async function load() {
  const state = encodeURIComponent($("report-state").value);
  try {
    const answer = await request("GET", `/api/moderation/chat-reports?state=${state}`);
    const list = $("reports");
    list.replaceChildren(...answer.reports.map(reportItem));
    $("reports-none").hidden = answer.reports.length > 0;
  } catch (error) {
    $("reports-error").textContent = error.message;
  }
}

$("report-state").addEventListener("change", load);
load();
