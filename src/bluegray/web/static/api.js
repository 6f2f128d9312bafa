// Asking the site's API from a page, the same way on every page: answers read as JSON, a refusal
// thrown as an Error with the server's message (and its code), and changes sent with the page's
// CSRF token (X-CSRF-Token), so that a logged-in player's request counts as their account's; what
// may be sent again is, when the server was out for a moment (503 with Retry-After).

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

/** A new random Idempotency-Key: a request sent with one may be sent again (its answer was lost,
 * or the server was out for a moment) and does what it does once. */
export function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16)); // randomUUID needs HTTPS
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const RESENDS = 10; // the most times a request refused with 503 is sent again

function retryDelay(response) {
  const seconds = Number(response.headers.get("Retry-After"));
  const wait = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 30) : 1;
  return wait * 1000 * (1 + Math.random() * 0.25); // spread: not every page at once
}

/** `method` `url` with `body` as JSON (none when undefined) and the page's CSRF token, and any
 * further `headers`: the answer's JSON (`readJson`). A request that is safe to send again (a GET,
 * or one with an Idempotency-Key) and was refused with 503 (the server's database or Redis was out
 * for a moment: nothing was done) is sent again after its Retry-After, a few times. */
export async function request(method, url, body, headers = {}) {
  const options = { method, headers: { ...headers, "X-CSRF-Token": csrfToken() }, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const resendable = method === "GET" || "Idempotency-Key" in headers;
  for (let tries = 0; ; tries += 1) {
    const response = await fetch(url, options);
    if (response.status !== 503 || !resendable || tries >= RESENDS) return readJson(response);
    await new Promise((resolve) => setTimeout(resolve, retryDelay(response)));
  }
}
