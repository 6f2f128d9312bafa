// The account page's chat section: the chat turned off or on (PUT /api/account/chat), and the
// players this account muted for itself, each with its button to unmute.
import { request } from "./api.js";

const $ = (id) => document.getElementById(id);

function show(settings) {
  $("chat-off").checked = settings.chat_off;
  const list = $("chat-muted");
  list.replaceChildren();
  $("chat-muted-none").hidden = settings.muted.length > 0;
  for (const name of settings.muted) {
    const item = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = name;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary";
    button.textContent = "Unmute";
    button.setAttribute("aria-label", `Unmute ${name}`);
    button.addEventListener("click", async () => {
      try {
        show(await request("DELETE", `/api/account/chat/muted/${encodeURIComponent(name)}`));
      } catch (error) {
        $("chat-settings-error").textContent = error.message;
      }
    });
    item.append(label, " ", button);
    list.append(item);
  }
}

$("chat-settings-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("chat-settings-error").textContent = "";
  $("chat-settings-done").textContent = "";
  try {
    show(await request("PUT", "/api/account/chat", { chat_off: $("chat-off").checked }));
    $("chat-settings-done").textContent = "Saved.";
  } catch (error) {
    $("chat-settings-error").textContent = error.message;
  }
});

request("GET", "/api/account/chat").then(show, (error) => {
  $("chat-settings-error").textContent = error.message;
});
