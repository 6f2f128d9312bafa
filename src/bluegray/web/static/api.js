// Asking the site's API from a page, the same way on every page: answers read as JSON, a refusal
// thrown as an Error with the server's message (and its code), and changes sent with the page's
// CSRF token (X-CSRF-Token), so that a logged-in player's request counts as their account's.

/** The page's CSRF token (base.html's meta tag). */
export function csrfToken() {
  return document.querySelector('meta[name="csrf-token"]').content;
}

/** Keep the token of a new session (a changed password starts one). */
export function setCsrfToken(token) {
  document.querySelector('meta[name="csrf-token"]').content = token;
}

/** An answer's JSON ({} when it has none); a refusal throws an Error with the server's message
 * and `code` ("http_error" when the answer names none). */
export async function readJson(response) {
  const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(data.error ? data.error.message : `the server answered ${response.status}`);
    error.code = data.error ? data.error.code : "http_error";
    throw error;
  }
  return data;
}

/** `method` `url` with `body` as JSON (none when undefined) and the page's CSRF token, and any
 * further `headers`: the answer's JSON (`readJson`). */
export async function request(method, url, body, headers = {}) {
  const options = { method, headers: { ...headers, "X-CSRF-Token": csrfToken() }, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  return readJson(await fetch(url, options));
}
