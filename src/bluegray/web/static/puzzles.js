// The puzzle page: a puzzle near the player's puzzle rating (or the one the address names, or
// the daily one), solved by clicking on the board, by the keyboard or from the list of moves.
// Each move of the solver goes to the server, which says whether the try goes on (and with
// which reply: played here after a moment), is solved or failed; then the rating and its
// change are shown. The board and its positions come from the study board's API.
import { Board, lastMoveView, movePoints } from "./board.js";
import { request } from "./api.js";
import { moveWords, setUpSpeech, speechOn } from "./speech.js";

(() => {
  const $ = (id) => document.getElementById(id);
  const main = document.getElementById("main");
  const boardBox = $("board");
  const board = new Board(boardBox, { onPoint: pointChosen });
  const THEME_WORDS = {
    "capture-chain": "capture chain", race: "race to the centre", "captains-run": "captain's run",
    lead: "the lead rule", impasse: "forced impasse",
  };

  let puzzle = null; // the puzzle as the API gives it
  let mine = []; // the solver's moves of this try
  let played = []; // every move played from the puzzle's position
  let shown = null; // the study API's answer for the position now
  let over = false;
  let selection = [];
  let flipped = false;

  setUpSpeech(board, () => (shown ? shown.position : ""));

  function say(text) {
    if (speechOn()) $("speech").textContent = text;
  }

  function sideWord(side) {
    return side === "blue" ? "Blue" : "Gray";
  }

  function canMove() {
    return Boolean(shown) && !over && !shown.outcome && shown.turn === puzzle.side;
  }

  function candidates() {
    if (!canMove()) return [];
    return shown.legal_moves.map((text) => ({ text, points: movePoints(text) }))
      .filter((move) => selection.every((point, i) => move.points[i] === point));
  }

  function view() {
    const moves = selection.length ? candidates() : [];
    const targets = [...new Set(moves.filter((m) => m.points.length > selection.length)
      .map((m) => m.points[selection.length]))];
    return {
      selected: selection,
      targets,
      capturing: moves.some((m) => m.text.includes("x")),
      lastMove: shown.last_move ? lastMoveView(shown.last_move, shown.position, board.paths) : null,
    };
  }

  function draw() {
    board.flipped = flipped;
    board.show(shown.position, view());
    boardBox.dataset.position = shown.position;
    boardBox.dataset.turn = shown.turn;
  }

  function pointChosen(point) {
    if (!canMove()) return;
    const moves = candidates();
    if (selection.length === 0) {
      if (moves.some((m) => m.points[0] === point)) selection = [point];
    } else if (view().targets.includes(point)) {
      selection = [...selection, point];
      const left = candidates();
      const done = left.find((m) => m.points.length === selection.length);
      if (done && left.length === 1) {
        selection = [];
        play(done.text);
        return;
      }
    } else {
      selection = shown.legal_moves.some((m) => movePoints(m)[0] === point) ? [point] : [];
    }
    say(selection.length ? `${selection.join(", ")} selected: it can go to ${view().targets.join(", ")}.` : "");
    draw();
  }

  function renderMoves() {
    const list = $("legal-moves");
    list.replaceChildren();
    if (!canMove()) return;
    for (const move of shown.legal_moves) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "move";
      button.textContent = move;
      button.dataset.move = move;
      button.addEventListener("click", () => play(move));
      item.append(button);
      list.append(item);
    }
  }

  function renderStatus() {
    const found = mine.length;
    let text;
    if (over) text = $("puzzle-result").textContent;
    else if (canMove()) {
      text = `${sideWord(puzzle.side)} to move: find the winning move`;
      if (puzzle.moves > 1) text += ` (move ${found + 1} of ${puzzle.moves})`;
      text += ".";
    } else text = `${sideWord(shown.turn)} replies…`;
    $("puzzle-status").textContent = text;
  }

  async function showPosition() {
    shown = await request("POST", "/api/study/position", {
      rules: puzzle.rules, position: puzzle.position, moves: played,
    });
    board.setRules(shown.rules.settings);
    draw();
    renderMoves();
    renderStatus();
  }

  function showRating(rating, change) {
    $("puzzle-rating").textContent = String(rating.rating) + (rating.provisional ? "?" : "");
    $("rating-facts").textContent = `${rating.attempts} puzzle${rating.attempts === 1 ? "" : "s"} rated; deviation ${rating.deviation}.`;
    if (change === null || change === undefined) return;
    const rounded = Math.round(change);
    $("rating-change").textContent = `${rounded >= 0 ? "+" : "−"}${Math.abs(rounded)}`;
    $("rating-change").className = rounded >= 0 ? "rating-up" : "rating-down";
  }

  async function play(text) {
    if (!canMove()) return;
    $("puzzle-error").textContent = "";
    mine = [...mine, text];
    let answer;
    try {
      answer = await request("POST", `/api/puzzles/${puzzle.id}/attempt`, { moves: mine });
    } catch (error) {
      mine = mine.slice(0, -1);
      $("puzzle-error").textContent = error.message;
      return;
    }
    played = [...played, text];
    if (answer.result === "continue") {
      await showPosition();
      say(`${moveWords(text, puzzle.side, shown.position)}. Right.`);
      await new Promise((resolve) => { setTimeout(resolve, 400); });
      played = [...played, answer.reply];
      await showPosition();
      say(`Right. ${sideWord(shown.turn === "blue" ? "gray" : "blue")} replies ${answer.reply}. Find the next move.`);
      return;
    }
    over = true;
    const solved = answer.result === "solved";
    let words = solved ? "Solved!" : `Not this one: ${text} is not the winning move.`;
    if (answer.rated) words += ` Rating ${answer.change >= 0 ? "+" : "−"}${Math.abs(Math.round(answer.change))}.`;
    else words += " (Not rated: you tried this puzzle before.)";
    $("puzzle-result").textContent = words;
    $("puzzle-result").dataset.result = answer.result;
    $("puzzle-solution").hidden = false;
    $("puzzle-solution").textContent = `The solution: ${answer.solution.join(" ")}.`;
    $("retry").hidden = false;
    showRating(answer.rating, answer.rated ? answer.change : null);
    await showPosition();
    say(words);
  }

  async function loadRating() {
    showRating(await request("GET", "/api/puzzles/rating"), null);
  }

  async function start(path) {
    $("puzzle-error").textContent = "";
    try {
      puzzle = await request("GET", path);
    } catch (error) {
      $("puzzle-error").textContent = error.message;
      return;
    }
    mine = [];
    played = [];
    over = false;
    selection = [];
    flipped = puzzle.side === "gray";
    $("flip").setAttribute("aria-pressed", String(flipped));
    $("puzzle-result").textContent = puzzle.tried ? "You have tried this one: this try is not rated." : "";
    delete $("puzzle-result").dataset.result;
    $("puzzle-solution").hidden = true;
    $("retry").hidden = true;
    $("rating-change").textContent = "";
    $("puzzle-link").href = `/puzzles/${puzzle.id}`;
    const themes = puzzle.themes.map((theme) => THEME_WORDS[theme] || theme).join(", ");
    $("puzzle-facts").textContent = `${puzzle.rules}, rated ${puzzle.rating}${themes ? `; ${themes}` : ""}${puzzle.date ? `; the puzzle of ${puzzle.date}` : ""}.`;
    main.dataset.puzzleId = String(puzzle.id);
    await showPosition();
    say($("puzzle-status").textContent);
  }

  function nextPath() {
    const query = new URLSearchParams();
    if ($("theme").value) query.set("theme", $("theme").value);
    if ($("puzzle-rules").value) query.set("rules", $("puzzle-rules").value);
    const text = query.toString();
    return `/api/puzzles/next${text ? `?${text}` : ""}`;
  }

  $("next-puzzle").addEventListener("click", () => {
    history.replaceState(null, "", "/puzzles");
    start(nextPath());
  });
  $("retry").addEventListener("click", () => start(`/api/puzzles/${puzzle.id}`));
  $("flip").addEventListener("click", () => {
    flipped = !flipped;
    $("flip").setAttribute("aria-pressed", String(flipped));
    if (shown) draw();
  });

  loadRating();
  const named = main.dataset.puzzle;
  start(named === "daily" ? "/api/puzzles/daily" : named ? `/api/puzzles/${named}` : nextPath());
})();
