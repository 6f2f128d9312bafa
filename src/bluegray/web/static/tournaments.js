// The tournaments page: the form that creates a tournament (then opens its page).

const csrfToken = () => document.querySelector('meta[name="csrf-token"]').content;
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
  const response = await fetch("/api/tournaments", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (response.ok) {
    location.assign(answer.path);
  } else {
    error.textContent = answer.error ? answer.error.message : "The tournament was not created.";
    error.hidden = false;
  }
});
