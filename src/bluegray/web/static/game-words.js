// What the game page says: its status line, whose seat this is, why a click starts no move, the
// news, the moves in notation (played and legal), the hint, the end and its rating changes. Each
// function takes the state (and the elements) it shows: this module keeps nothing of its own.
import { movePoints, parsePosition } from "./board.js";
import { outcomeText, title } from "./play-outcome.js";

/** What holds up the AI's move: "Gray (AI) is thinking…", or that it is busy or not running. */
export function aiWaiting(game) {
  const who = title(game.turn);
  if (game.ai_status === "unavailable") {
    return `The AI is not available right now (no AI worker is running): ${who} moves when one starts.`;
  }
  if (game.ai_status === "busy") {
    return `The AI is busy with many games: ${who} moves in a moment.`;
  }
  return `${who} (AI) is thinking…`;
}

/** Whose seat this browser has: "You play Blue.", "You play both sides." or "You are watching." */
export function seatText(mySide) {
  if (mySide === null) return "You are watching.";
  return mySide === "both" ? "You play both sides." : `You play ${title(mySide)}.`;
}

/** The status line for `mySide` ("blue", "gray", "both" or null): "Your move.", "Gray to
 * move.", "Game over."… (`over`: the game has ended or was aborted). */
export function statusText(state, mySide, over) {
  if (over) return "Game over.";
  if (state.status === "waiting") return "Waiting for the second player to join.";
  if (state.ai_thinking) return aiWaiting(state);
  if (mySide === state.turn) return "Your move."; // hot-seat ("both") names the side to move
  return `${title(state.turn)} to move.`;
}

/** A server message without the position text it quotes (players see the board), starting
 * with a capital: "Illegal move 'e8-e6': that piece cannot move there". */
export function cleanMessage(text) {
  const clean = text.replace(/ in [1-9a-zA-Z/]+ [bg] \d+ \d+:/, ":");
  return clean.charAt(0).toUpperCase() + clean.slice(1);
}

/** Why a click on `point` starts no move: an empty point, an enemy piece, or a piece of the
 * side to move that cannot move now (the library's words, and what to do instead). */
export function whyNotThis(state, point, mySide) {
  const piece = parsePosition(state.position)[point];
  const turn = title(state.turn);
  const captures = state.legal_moves.filter((m) => m.includes("x"));
  const capturers = [...new Set(captures.map((m) => movePoints(m)[0]))];
  const compulsory = captures.length
    ? ` A capture is compulsory: ${capturers.join(", ")} can capture.` : "";
  if (!piece) {
    return `No piece on ${point}: click one of ${turn}'s pieces, then where it goes.${compulsory}`;
  }
  if (piece.side !== state.turn) {
    const who = mySide === "both" ? `it is ${turn}'s move` : `you play ${turn}`;
    return `That is a ${title(piece.side)} piece, and ${who}: click one of ${turn}'s pieces.${compulsory}`;
  }
  if (captures.length) return `The ${piece.kind} on ${point} cannot capture.${compulsory}`;
  return `The ${piece.kind} on ${point} cannot move now: its way is blocked.`;
}

/** What the piece of a refused move text could do, among `legalMoves`: its moves, or the
 * compulsory captures. */
export function suggestion(legalMoves, text) {
  const captures = legalMoves.filter((m) => m.includes("x"));
  if (captures.length) return `Legal captures: ${captures.join(", ")}`;
  const from = movePoints(text)[0];
  const own = legalMoves.filter((m) => movePoints(m)[0] === from);
  return own.length ? `From ${from}: ${own.join(", ")}` : "";
}

/** The news of a state's event: "Gray joined the game.", "Blue offers a draw."… or "". */
export function describeEvent(event) {
  const who = event.side ? title(event.side) : "";
  const words = {
    joined: `${who} joined the game.`,
    draw_offered: `${who} offers a draw.`,
    draw_declined: `${who} declined the draw.`,
    takeback_requested: `${who} asks to take back a move.`,
    takeback_declined: `${who} refused the takeback.`,
    takeback: "A move was taken back.",
    rematch_offered: `${who} offers a rematch.`,
    rematch_declined: `${who} declined the rematch.`,
    rematch: "The rematch is ready.",
    invite: "A new invite link was made.",
  };
  return words[event.kind] || "";
}

/** The moves in notation, Blue's and Gray's in one numbered item, the last one marked, and
 * their count. */
export function showMoves(list, count, state) {
  count.textContent = `(${state.ply})`;
  list.replaceChildren();
  for (let i = 0; i < state.moves.length; i += 2) {
    const item = document.createElement("li");
    for (const [offset, side] of [[0, "blue"], [1, "gray"]]) {
      const text = state.moves[i + offset];
      if (text === undefined) break;
      const span = document.createElement("span");
      span.className = `mv ${side}`;
      span.dataset.ply = String(i + offset + 1);
      if (i + offset + 1 === state.ply) span.classList.add("current");
      span.textContent = text;
      item.append(span);
    }
    list.append(item);
  }
  list.scrollTop = list.scrollHeight;
}

/** The box for a typed move, shown with its suggestions and the list of `legalMoves` when the
 * player may move (null when not). */
export function showMoveForm({ form, datalist, legal }, legalMoves) {
  form.hidden = !legalMoves;
  datalist.replaceChildren();
  for (const move of legalMoves || []) {
    const option = document.createElement("option");
    option.value = move;
    datalist.append(option);
  }
  legal.textContent = legalMoves ? `Legal: ${legalMoves.join(" ")}` : "";
}

/** The engine's suggestion in words: "Hint: d2-d3 — Blue is better". */
export function hintWords(result) {
  const words = result.description.split(":")[0];
  return `Hint: ${result.best_move} — ${words.charAt(0).toUpperCase() + words.slice(1)}`;
}

/** The hint's box (shown when a hint is `allowed`), its button (busy while `pending`) and the
 * `shown` hint's words. */
export function showHint({ box, button, text }, shown, pending, allowed) {
  box.hidden = !allowed;
  // aria-disabled rather than disabled: a disabled button would lose the keyboard focus.
  button.setAttribute("aria-disabled", String(pending));
  button.setAttribute("aria-busy", String(pending));
  button.textContent = pending ? "Thinking…" : "Hint";
  text.textContent = shown ? shown.words : "";
  if (shown) text.dataset.move = shown.move;
  else delete text.dataset.move;
}

/** The banner at the end (`over`): who won and why, what it means for `mySide`, and the rating
 * changes of a rated game; hidden while the game goes on. */
export function showEnd(banner, state, mySide, over) {
  banner.hidden = !over;
  if (!over) return;
  banner.replaceChildren();
  const head = document.createElement("strong");
  head.textContent = outcomeText(state);
  banner.append(head);
  if (state.outcome && mySide && mySide !== "both") {
    const you = document.createElement("span");
    you.textContent = state.outcome.winner === null ? " You drew."
      : state.outcome.winner === mySide ? " You win!" : " You lose.";
    banner.append(you);
  }
  if (state.ratings) banner.append(ratingChanges(state));
}

/** Each side's rating before a rated game and what its end changed it by ("ada 1500? +173"). */
function ratingChanges(state) {
  const list = document.createElement("ul");
  list.className = "rating-changes";
  list.id = "rating-changes";
  for (const side of ["blue", "gray"]) {
    const change = state.ratings[side];
    const item = document.createElement("li");
    item.dataset.side = side;
    item.dataset.change = String(Math.round(change.change));
    const account = state.seats[side].account;
    const who = account ? account.name : title(side);
    const sign = change.change >= 0 ? "+" : "−";
    item.textContent = `${who} ${Math.round(change.rating)}${change.provisional ? "?" : ""} `
      + `${sign}${Math.abs(Math.round(change.change))}`;
    list.append(item);
  }
  return list;
}
