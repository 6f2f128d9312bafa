// The tournaments page: the countdown to each one's start, and the form that creates a
// tournament (showing the fields of the kind chosen; then it opens the new tournament's page).

import { request } from "./api.js";
import { startCountdowns } from "./countdown.js";

const list = document.getElementById("tournaments");
if (list) startCountdowns(list, Number(list.dataset.serverTime));

const form = document.getElementById("tournament-form");
const error = document.getElementById("tournament-error");

/** Show the fields of the kind chosen (an arena's minutes, a Swiss's rounds) and no other; a
 * name still the suggested one follows the kind. */
function showKind() {
  const kind = form.elements.kind.value;
  for (const field of form.querySelectorAll("[data-kind]")) field.hidden = field.dataset.kind !== kind;
  const name = form.elements.namedItem("name");
  if (name.value === name.dataset.defaultArena || name.value === name.dataset.defaultSwiss) {
    name.value = kind === "arena" ? name.dataset.defaultArena : name.dataset.defaultSwiss;
  }
}

if (form) {
  form.elements.kind.addEventListener("change", showKind);
  showKind();
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
}
