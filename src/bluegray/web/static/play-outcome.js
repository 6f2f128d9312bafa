// The end of a game in words, from the state's outcome (docs/web.md): every termination the
// server knows, e.g. "Gray wins: impasse (position repeated three times) — captain farther
// advanced (0-1)." or "Game aborted — no result." Also a side's name, which the game page shares.

/** A side's name in words: "Blue" or "Gray". */
export const title = (side) => (side === "blue" ? "Blue" : "Gray");
/** The other side: "gray" for "blue", "blue" for "gray". */
export const other = (side) => (side === "blue" ? "gray" : "blue");

const REASONS = {
  center: () => "captain reached the centre",
  lead: (s) => /^\d+$/.test(s.rules.settings.lead || "")
    ? `captain ${s.rules.settings.lead} steps ahead` : "captain far enough ahead",
  repetition: () => "position repeated three times",
  "no-progress": (s) => `no progress in ${s.rules.settings["impasse-plies"] || 100} moves`,
  stalemate: (s) => `${title(s.turn)} has no legal move`,
  resign: (s, o) => `${title(other(o.winner))} resigned`,
  agreement: () => "agreed",
  time: (s, o) => o.winner ? `${title(other(o.winner))}'s time ran out` : "time ran out",
  abandoned: (s, o) => `${title(other(o.winner))} left the game`,
};

/** The end of the game in words, e.g. "Gray wins: impasse (…) — captain farther advanced". */
export function outcomeText(game) {
  if (game.status === "aborted") return "Game aborted — no result.";
  const outcome = game.outcome;
  if (!outcome) return "";
  const words = REASONS[outcome.reason];
  let reason = words ? words(game, outcome) : outcome.description;
  const impasse = outcome.reason === "repetition" || outcome.reason === "no-progress" ||
    (outcome.reason === "stalemate" && game.rules.settings.stalemate === "impasse");
  if (impasse) {
    reason = `impasse (${reason})`;
    if (outcome.winner) reason += " — captain farther advanced";
  }
  const head = outcome.winner ? `${title(outcome.winner)} wins` : "Draw";
  return `${head}: ${reason} (${outcome.result}).`;
}
