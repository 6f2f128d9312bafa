// The tournaments page: the form that creates a tournament (then opens its page).

import { request } from "./api.js";

const form = document.getElementById("tournament-form");
const error = document.getElementById("tournament-error");

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const kind = data.get("kind");
  const body = {
    kind,
    name: data.get("name"),
    rules: data.get("rules"),
    clock: {
      minutes: Number(data.get("clock_minutes")),
      increment_seconds: Number(data.get("increment")),
    },
    rated: data.get("rated") === "on",
    starts_in_seconds: Number(data.get("starts_in")) * 60,
  };
  if (kind === "arena") body.minutes = Number(data.get("minutes"));
  else body.rounds = Number(data.get("rounds"));
  try {
    const created = await request("POST", "/api/tournaments", body);
    location.assign(created.path);
  } catch (refusal) {
    error.textContent = refusal.message;
    error.hidden = false;
  }
});
