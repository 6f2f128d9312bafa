// Going to another page, or loading this one again, once. A new game is announced twice, by
// the answer to the request that started it and on the account's socket (notify.js), and a
// tournament's table may change several times as it finishes: a second navigation to the same
// page would cancel the first half way. Modules load once per page, so every script that
// imports this shares the one flag.

let leavingFor = null;

/** Go to `path` unless this page is already on its way there. */
export function goTo(path) {
  if (leavingFor === path) return;
  leavingFor = path;
  location.assign(path);
}

/** Load this page again unless it is already on its way somewhere. */
export function reloadOnce() {
  if (leavingFor !== null) return;
  leavingFor = location.pathname;
  location.reload();
}

const LED_KEY = "bluegray-led-to-game";

/** Go to a tournament's new game `gameId` at `path`, once per game in this tab: a player who
 * comes back to the tournament's page while the game is still being played stays there. */
export function leadToGame(gameId, path) {
  try {
    if (sessionStorage.getItem(LED_KEY) === gameId) return;
    sessionStorage.setItem(LED_KEY, gameId);
  } catch {
    // no storage (a private mode): go all the same
  }
  goTo(path);
}

// A page restored from the back-forward cache is not on its way anywhere.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) leavingFor = null;
});
