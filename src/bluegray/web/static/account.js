// The accounts' pages: making an account, logging in, and the account's own page (claiming this
// browser's games, the password, API tokens, becoming a bot, logging out). Every change is
// posted as JSON with the page's CSRF token (X-CSRF-Token); names are set as text, never HTML.

import { request, setCsrfToken } from "./api.js";

const $ = (id) => document.getElementById(id);
const NAME = /^[A-Za-z0-9_-]{3,20}$/;

/** Where to go once logged in: the page's ?next= (a path of this site), else `fallback`. */
function nextPage(form, fallback) {
  const next = form.dataset.next || "";
  return next.startsWith("/") && !next.startsWith("//") ? next : fallback;
}

function busy(button, on) {
  button.disabled = on;
  button.setAttribute("aria-busy", on ? "true" : "false");
}

function fail(box, message, field) {
  box.textContent = message;
  if (field) field.focus();
}

// -- making an account --------------------------------------------------------------------------

const signup = $("signup-form");
if (signup) {
  signup.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = $("form-error");
    error.textContent = "";
    const name = $("name").value.trim();
    const password = $("password").value;
    if (!NAME.test(name)) {
      fail(error, "A name is 3 to 20 letters (A to Z), digits, - and _.", $("name"));
      return;
    }
    if (password.length < 8) {
      fail(error, "The password needs at least 8 characters.", $("password"));
      return;
    }
    if (password !== $("password-again").value) {
      fail(error, "The two passwords differ: type the same one twice.", $("password-again"));
      return;
    }
    const claim = $("claim");
    busy($("signup-button"), true);
    try {
      const state = await request("POST", "/api/account/signup", {
        name, password, claim_games: Boolean(claim && claim.checked),
      });
      window.location.assign(nextPage(signup, state.account.profile));
    } catch (failure) {
      fail(error, `The account was not made: ${failure.message}.`, $("name"));
      busy($("signup-button"), false);
    }
  });
}

// -- logging in ---------------------------------------------------------------------------------

const login = $("login-form");
if (login) {
  login.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = $("form-error");
    error.textContent = "";
    const name = $("name").value.trim();
    const password = $("password").value;
    if (!name || !password) {
      fail(error, "Type your name and your password.", name ? $("password") : $("name"));
      return;
    }
    const claim = $("claim");
    busy($("login-button"), true);
    try {
      await request("POST", "/api/account/login", {
        name, password, claim_games: Boolean(claim && claim.checked),
      });
      window.location.assign(nextPage(login, "/"));
    } catch (failure) {
      $("password").value = "";
      fail(error, `Not logged in: ${failure.message}.`, $("password"));
      busy($("login-button"), false);
    }
  });
}

// -- the account's page -------------------------------------------------------------------------

const claimButton = $("claim-button");
if (claimButton) {
  claimButton.addEventListener("click", async () => {
    busy(claimButton, true);
    try {
      const result = await request("POST", "/api/account/claim", {});
      $("claim-result").textContent = `${result.claimed} game${result.claimed === 1 ? "" : "s"} added to your account.`;
      claimButton.hidden = true;
    } catch (failure) {
      $("claim-result").textContent = `The games were not added: ${failure.message}.`;
      busy(claimButton, false);
    }
  });
}

const passwordForm = $("password-form");
if (passwordForm) {
  passwordForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = $("password-error");
    error.textContent = "";
    $("password-done").textContent = "";
    const current = $("current-password");
    const fresh = $("new-password");
    if (fresh.value.length < 8) {
      fail(error, "The new password needs at least 8 characters.", fresh);
      return;
    }
    busy($("password-button"), true);
    try {
      const state = await request("POST", "/api/account/password", {
        current_password: current.value, new_password: fresh.value,
      });
      // The session is new: so is its CSRF token.
      setCsrfToken(state.csrf_token);
      current.value = "";
      fresh.value = "";
      $("password-done").textContent = "The password is changed; other browsers are logged out.";
    } catch (failure) {
      fail(error, `The password was not changed: ${failure.message}.`, current);
    } finally {
      busy($("password-button"), false);
    }
  });
}

function tokenItem(info) {
  const item = document.createElement("li");
  item.dataset.tokenId = String(info.id);
  const description = document.createElement("span");
  description.className = "token-description";
  description.textContent = info.description;
  const revoke = document.createElement("button");
  revoke.type = "button";
  revoke.className = "secondary revoke";
  revoke.dataset.tokenId = String(info.id);
  revoke.textContent = "Revoke";
  const hidden = document.createElement("span");
  hidden.className = "sr-only";
  hidden.textContent = ` ${info.description}`;
  revoke.append(hidden);
  item.append(description, " ", revoke);
  return item;
}

const tokenForm = $("token-form");
if (tokenForm) {
  tokenForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = $("token-error");
    error.textContent = "";
    const description = $("token-description");
    if (!description.value.trim()) {
      fail(error, "Say what the token is for.", description);
      return;
    }
    busy($("token-button"), true);
    try {
      const made = await request("POST", "/api/account/tokens", { description: description.value.trim() });
      $("token-list").append(tokenItem(made.info));
      $("new-token-value").textContent = made.token;
      $("new-token").hidden = false;
      description.value = "";
    } catch (failure) {
      fail(error, `No token was made: ${failure.message}.`, description);
    } finally {
      busy($("token-button"), false);
    }
  });
  $("token-list").addEventListener("click", async (event) => {
    const button = event.target.closest("button.revoke");
    if (!button) return;
    busy(button, true);
    try {
      await request("DELETE", `/api/account/tokens/${encodeURIComponent(button.dataset.tokenId)}`);
      button.closest("li").remove();
    } catch (failure) {
      $("token-error").textContent = `The token was not revoked: ${failure.message}.`;
      busy(button, false);
    }
  });
}

const botButton = $("bot-button");
if (botButton) {
  botButton.addEventListener("click", async () => {
    if (!window.confirm(botButton.dataset.confirm)) return;
    busy(botButton, true);
    try {
      await request("POST", "/api/account/bot");
      window.location.reload();
    } catch (failure) {
      $("bot-error").textContent = `Not changed: ${failure.message}.`;
      busy(botButton, false);
    }
  });
}

const logout = $("logout-button");
if (logout) {
  logout.addEventListener("click", async () => {
    busy(logout, true);
    try {
      await request("POST", "/api/account/logout");
      window.location.assign("/");
    } catch (failure) {
      $("logout-error").textContent = `Not logged out: ${failure.message}.`;
      busy(logout, false);
    }
  });
}
