// The game page's two player bars: who plays each side, the pieces it has captured, its
// captain's advancement and its clock (minutes counting down, or a correspondence game's days).
// Drawn from the state the page passes in: this module keeps nothing of its own.
import { sideTime } from "./correspondence.js";
import { other, title } from "./play-outcome.js";

/** Who plays `side`, as `mySide` ("blue", "gray", "both" or null) sees it: "you", "AI level
 * 3", "waiting for a player", "hot-seat" or the player's name and whether they are online. */
function seatLabel(state, side, mySide, rating) {
  const seat = state.seats[side];
  // The account that plays the seat, if any (set as text: a name is never HTML), and its rating
  // in a rated game ("ada 1500?").
  const name = seat.account
    ? `${seat.account.name}${seat.account.bot ? " BOT" : ""}${rating ? ` ${rating}` : ""}` : "";
  if (mySide === side) return name ? `you, ${name}` : "you";
  if (seat.player === "ai") return `AI level ${seat.level}`;
  if (seat.player === "open") return "waiting for a player";
  if (mySide === "both") return name ? `hot-seat, ${name}` : "hot-seat";
  const presence = seat.connected ? "online" : "away";
  return name ? `${name}, ${presence}` : presence;
}

/** The ms left on `side`'s clock now, for a state received at `receivedAt` (the page's time). */
function clockLeft(state, side, receivedAt) {
  const clock = state.clock;
  const elapsed = state.outcome ? 0 : Date.now() - receivedAt;
  return clock[`${side}_ms`] - (clock.running === side ? elapsed : 0);
}

/** A clock's time: "4:05", and tenths under 20 seconds ("0:09.3"). */
function formatMs(ms) {
  const tenths = Math.max(0, Math.ceil(ms / 100));
  const total = tenths / 10;
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  return total < 20
    ? `${minutes}:${seconds.toFixed(1).padStart(4, "0")}`
    : `${minutes}:${String(Math.floor(seconds)).padStart(2, "0")}`;
}

/** Fill the bar above the board and the one below it (Gray above, unless `flipped`); each gets
 * an empty clock box (`data-clock`), which `showClocks` fills. `ratings`: each side's rating
 * text by its name, in a rated game. */
export function showBars([top, bottom], state, mySide, flipped, ratings = {}) {
  const [upper, lower] = flipped ? ["blue", "gray"] : ["gray", "blue"];
  for (const [bar, side] of [[top, upper], [bottom, lower]]) {
    bar.replaceChildren();
    bar.dataset.side = side;
    bar.classList.toggle("to-move", !state.outcome && state.status === "active" && state.turn === side);
    const name = document.createElement("div");
    name.className = "who";
    const swatch = document.createElement("span");
    swatch.className = `swatch ${side}`;
    swatch.setAttribute("aria-hidden", "true");
    const label = document.createElement("span");
    label.textContent = `${title(side)} (${seatLabel(state, side, mySide, ratings[side])})`;
    if (ratings[side]) label.dataset.rating = ratings[side];
    name.append(swatch, label);

    const taken = document.createElement("div");
    taken.className = "taken";
    const count = state.captures[side];
    taken.title = `${title(side)} has captured ${count} ${count === 1 ? "piece" : "pieces"}`;
    const takenLabel = document.createElement("span");
    takenLabel.className = "sr-only";
    takenLabel.textContent = taken.title;
    taken.append(takenLabel);
    for (let i = 0; i < Math.min(count, 18); i += 1) {
      const dot = document.createElement("span");
      dot.className = `dot ${other(side)}`;
      dot.setAttribute("aria-hidden", "true");
      taken.append(dot);
    }
    const number = document.createElement("span");
    number.className = "taken-count";
    number.dataset.captures = String(count);
    number.setAttribute("aria-hidden", "true");
    number.textContent = count ? `×${count}` : "";
    taken.append(number);

    const advance = document.createElement("label");
    advance.className = "advance";
    const value = state.advancement[side];
    advance.textContent = `Captain ${value}/17 `;
    const bar17 = document.createElement("progress");
    bar17.max = 17;
    bar17.value = value;
    bar17.dataset.advancement = String(value);
    advance.append(bar17);

    const clock = document.createElement("div");
    clock.className = "clock";
    clock.dataset.clock = side;
    bar.append(name, taken, advance, clock);
  }
}

/** Set each clock box (`data-clock` names its side) to the time left now: a real-time clock
 * from the state received at `receivedAt`, a correspondence deadline in server time (ours plus
 * `serverOffset` ms); hidden in a game without a clock. */
export function showClocks(boxes, state, receivedAt, serverOffset) {
  for (const box of boxes) {
    const side = box.dataset.clock;
    if (!state.clock && !state.correspondence) {
      box.hidden = true;
      continue;
    }
    box.hidden = false;
    if (state.correspondence) {
      const time = sideTime(state.correspondence, side, Date.now() + serverOffset);
      box.textContent = time.text;
      box.classList.toggle("running", time.running && !state.outcome);
      box.classList.toggle("low", time.low);
      if (time.deadline) box.dataset.deadline = String(time.deadline);
      else delete box.dataset.deadline;
      continue;
    }
    const left = clockLeft(state, side, receivedAt);
    box.textContent = formatMs(left);
    box.classList.toggle("running", state.clock.running === side && !state.outcome);
    box.classList.toggle("low", left < 20000);
  }
}
