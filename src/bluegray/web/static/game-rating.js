// A rated game on its page: the line that says it is rated and its time control ("Rated · 5+3"),
// each player's rating by their name, and the rating preview (what a win, a draw or a loss would
// change the player's rating by), read from /api/games/{id}/rating-preview: the server computes
// it with the function that rates the game at its end.
import { daysText } from "./correspondence.js";

/** The game's time control as the lobby writes it: "5+3", "3 days" or "no clock". */
function timeControl(state) {
  if (state.clock) return `${state.clock.initial_ms / 60000}+${state.clock.increment_ms / 1000}`;
  if (state.correspondence) return daysText(state.correspondence.days_per_move);
  return "no clock";
}

/** "Rated · 5+3" above the game's other lines, shown only in a rated game. */
export function showRatedLine(line, state) {
  line.hidden = !state.rated;
  line.textContent = state.rated ? `Rated · ${timeControl(state)}` : "";
}

/** A rating as shown by a name: "1500", "1500?" while provisional. */
export function ratingText(rating) {
  return `${Math.round(rating.rating)}${rating.provisional ? "?" : ""}`;
}

/** Each side's rating text by its name: before the game (its end's `ratings` once it is rated,
 * the preview until then); `{}` in a game not rated. */
export function sideRatings(state, preview) {
  const source = state.ratings || (state.rated ? preview : null);
  if (!source) return {};
  return { blue: ratingText(source.blue), gray: ratingText(source.gray) };
}

/** A change in rating points as shown: "+12", "−8", "0". */
function signed(points) {
  const rounded = Math.round(points);
  if (rounded === 0) return "0";
  return rounded > 0 ? `+${rounded}` : `−${Math.abs(rounded)}`;
}

/** What a win, a draw or a loss would do to the player's rating (`mySide`), while the rated game
 * goes on; hidden otherwise (a spectator sees the ratings by the names). */
export function showPreview(box, state, preview, mySide, over) {
  const side = mySide === "blue" || mySide === "gray" ? mySide : null;
  const shown = Boolean(state.rated && preview && side && !over);
  box.hidden = !shown;
  if (!shown) {
    box.textContent = "";
    return;
  }
  const mine = preview[side];
  box.dataset.win = String(Math.round(mine.win));
  box.dataset.draw = String(Math.round(mine.draw));
  box.dataset.loss = String(Math.round(mine.loss));
  box.textContent = `Your rating ${ratingText(mine)}: ${changesText(mine)}`;
}

/** A side's preview in words: "win +12, draw 0, loss −8" (the lobby's seeks say it too). */
export function changesText(mine) {
  return `win ${signed(mine.win)}, draw ${signed(mine.draw)}, loss ${signed(mine.loss)}`;
}

/** A preview from `path`: a rated game's with both seats taken, or a rated seek's (null: none,
 * or not reachable now). */
export async function fetchPreview(path) {
  try {
    const response = await fetch(path, { credentials: "same-origin" });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}
