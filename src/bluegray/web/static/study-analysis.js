// Shared by the replay and the study board: showing an analysis (and the elements it is made of).

export function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function signed(score) {
  return score > 0 ? `+${score}` : String(score);
}

// A finished game's score in words: who won, or a draw, with the result ("Blue won, 1-0").
function finalScore(outcome) {
  if (outcome.winner === null) return `a draw, ${outcome.result}`;
  return `${outcome.winner === "blue" ? "Blue" : "Gray"} won, ${outcome.result}`;
}

// The headline: the game's end, a forced win, or the engine's own words.
function verdict(result) {
  if (result.outcome) return result.outcome.description;
  if (result.winning_side && result.plies_to_end !== null) {
    const side = result.winning_side === "blue" ? "Blue" : "Gray";
    return `${side} wins by force within ${result.plies_to_end} ${result.plies_to_end === 1 ? "move" : "moves"}`;
  }
  return result.description;
}

// Fill `box` with the analysis `result` (the API's AnalysisResult).
export function showAnalysis(box, result) {
  box.replaceChildren();
  box.append(element("p", verdict(result), "verdict"));
  const list = element("dl", null, "analysis-facts");
  const add = (term, value) => {
    list.append(element("dt", term), element("dd", value));
  };
  // A finished position has no evaluation: its score says who won, not "+1" (nothing searched).
  add("Score", result.outcome ? finalScore(result.outcome)
    : `${signed(result.score)} (Blue's advantage; negative favours Gray)`);
  add("Blue's expected score", `${result.blue_expected.toFixed(2)} (${Math.round(result.blue_expected * 100)}%)`);
  if (result.outcome) {
    add("Result", `${result.outcome.result}: ${result.outcome.description}`);
    box.append(list);
    box.dataset.bestMove = "";
    return;
  }
  add("Best move", result.best_move || "none");
  add("Best line", result.pv.length ? result.pv.join(" ") : "—");
  if (result.plies_to_end !== null) add("Moves to the end", String(result.plies_to_end));
  add("Search", `depth ${result.depth}, ${result.nodes.toLocaleString("en")} nodes, ${result.seconds.toFixed(2)} s`);
  box.append(list);
  box.dataset.bestMove = result.best_move || "";
}
