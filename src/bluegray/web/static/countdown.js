// Countdowns to a moment the server named (a tournament's start, an arena's end), counted on the
// server's clock (the page's data-server-time), every second: each `.countdown[data-at]` shows
// the time left ("4:32", "1:02:03", "2 days 3 h"), each `time.moment` the moment in the reader's
// own time. Used by the tournaments' pages.

const DAY = 86_400_000;

/** The time left, `ms`, as a countdown writes it. */
export function untilText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (ms >= DAY) {
    const days = Math.floor(ms / DAY);
    const hours = Math.floor((ms % DAY) / 3_600_000);
    return `${days} day${days === 1 ? "" : "s"} ${hours} h`;
  }
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** Keep the countdowns under `root` going, the server's clock being `serverTime` now. */
export function startCountdowns(root, serverTime) {
  const offset = Number.isFinite(serverTime) && serverTime > 0 ? serverTime - Date.now() : 0;
  for (const moment of root.querySelectorAll("time.moment[datetime]")) {
    const at = new Date(moment.getAttribute("datetime"));
    if (!Number.isNaN(at.getTime())) {
      moment.textContent = at.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
    }
  }
  const tick = () => {
    const now = Date.now() + offset;
    for (const countdown of root.querySelectorAll(".countdown[data-at]")) {
      countdown.textContent = untilText(Number(countdown.dataset.at) - now);
    }
  };
  tick();
  return setInterval(tick, 1000);
}
