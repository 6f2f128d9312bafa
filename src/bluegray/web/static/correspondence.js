// Correspondence games in the browser: the time left to move (days, hours, minutes) from a
// deadline in server time, a seek's time control in words, and the browser's notifications (the Web Notifications API) that say
// "your move" while the page is open in the background.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Time left, in words short enough for a player's bar: "2 d 23 h", "5 h 12 min", "3 min". */
export function leftText(ms) {
  if (ms <= 0) return "time is up";
  if (ms >= DAY) {
    const days = Math.floor(ms / DAY);
    return `${days} d ${Math.floor((ms - days * DAY) / HOUR)} h`;
  }
  if (ms >= HOUR) {
    const hours = Math.floor(ms / HOUR);
    return `${hours} h ${Math.floor((ms - hours * HOUR) / MINUTE)} min`;
  }
  return `${Math.max(1, Math.ceil(ms / MINUTE))} min`;
}

/** Days per move in words: "1 day", "3 days". */
export function daysText(days) {
  return `${days} ${days === 1 ? "day" : "days"}`;
}

/** A seek's or a challenge's time control as the lobby and the header show it: "5+3" (minutes
 * and seconds a move), "3 days" (per move) or "no clock". */
export function timeControlText(seek) {
  if (seek.clock) return `${seek.clock.minutes}+${seek.clock.increment_seconds}`;
  if (seek.correspondence) return daysText(seek.correspondence.days);
  return "no clock";
}

/** What a side's bar shows in a correspondence game at server time `now`, and whether its time
 * is running and short (less than a fifth of the allowance). */
export function sideTime(correspondence, side, now) {
  const deadline = correspondence[`${side}_deadline_ms`];
  const days = correspondence.days_per_move;
  if (deadline === null || correspondence.running !== side) {
    return { text: `${daysText(days)} per move`, running: false, low: false };
  }
  const left = deadline - now;
  return { text: leftText(left), running: true, low: left < (days * DAY) / 5, deadline };
}

/** Whether this browser may show notifications now (the permission is the user's to give). */
export function notificationsAllowed() {
  return "Notification" in window && Notification.permission === "granted";
}

/** Ask for the permission to notify (only from a click: browsers refuse it otherwise); the
 * answer: "granted", "denied" or "default". */
export async function askNotifications() {
  if (!("Notification" in window)) return "unsupported";
  return Notification.requestPermission();
}

/** Show "your move" when the page is in the background and the permission is given. */
export function notifyTurn(title, body, link) {
  if (!notificationsAllowed() || !document.hidden) return false;
  const note = new Notification(title, { body, tag: link, icon: "/static/favicon.svg" });
  note.onclick = () => {
    window.focus();
    if (link && location.pathname !== link) location.assign(link);
    note.close();
  };
  return true;
}

/** A button that asks for the permission, with a line saying where it stands. */
export function setUpNotifyButton(button, line) {
  if (!button) return;
  const show = () => {
    if (!("Notification" in window)) {
      button.hidden = true;
      line.textContent = "This browser cannot show notifications.";
      return;
    }
    const permission = Notification.permission;
    button.hidden = permission !== "default";
    line.textContent = permission === "granted"
      ? "This browser tells you when it becomes your move while this page is in the background."
      : permission === "denied"
        ? "Notifications are blocked for this site in the browser's settings."
        : "";
  };
  button.addEventListener("click", async () => {
    await askNotifications();
    show();
  });
  show();
}
