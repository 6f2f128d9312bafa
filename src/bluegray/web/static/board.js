// Every board of the site as an inline SVG: grid, captains' paths, centre, coordinates and
// pieces; on the game page also clickable points, a keyboard cursor, highlights and move
// animations. The replay, the study board and the Learn pages draw with it too (drawBoard).
// The pieces are the library's own (bluegray.svg.piece_symbols, in every page by base.html),
// placed with <use>: one piece style on every page and in every downloaded picture.
// No inline style anywhere (the content security policy forbids it): everything is classes.

const SVG_NS = "http://www.w3.org/2000/svg";
const FILES = "abcdefghi";
const STEP = 10; // distance between two points, in SVG units
const MARGIN = 10; // from the edge of the board to the outer points

export const BLUE_PATH = "e1 d2 d3 d4 c5 b4 b5 a5 b6 a7 b7 b8 c7 d8 d7 e7 d6 e5".split(" ");
export const GRAY_PATH = "e9 f8 f7 f6 g5 h6 h5 i5 h4 i3 h3 h2 g3 f2 f3 e3 f4 e5".split(" ");
export const CENTER = "e5";

const KIND_NAMES = { c: "captain", g: "guard", p: "private" };

// The library draws its pieces for points SPACING units apart; ours are STEP apart.
const SYMBOLS = document.querySelector("svg.bluegray-piece-symbols");
const PIECE_SCALE = SYMBOLS ? STEP / Number(SYMBOLS.dataset.spacing) : 0;

/** The points of a move text ("d2-d3", "c3xc5xe5"), lower case. */
export function movePoints(text) {
  return text.toLowerCase().split(/[-x]/);
}

/** The pieces of a position text: {point: {side, kind}}. */
export function parsePosition(text) {
  const pieces = {};
  const rows = text.split(" ")[0].split("/");
  rows.forEach((row, index) => {
    const rank = 9 - index;
    let file = 0;
    for (const char of row) {
      if (/[0-9]/.test(char)) {
        file += Number(char);
      } else {
        const side = char === char.toUpperCase() ? "blue" : "gray";
        pieces[`${FILES[file]}${rank}`] = { side, kind: KIND_NAMES[char.toLowerCase()] };
        file += 1;
      }
    }
  });
  return pieces;
}

function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.append(node);
  return node;
}

function starPoints(x, y, outer, inner) {
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const radius = i % 2 === 0 ? outer : inner;
    const angle = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(x + radius * Math.cos(angle)).toFixed(2)},${(y + radius * Math.sin(angle)).toFixed(2)}`);
  }
  return points.join(" ");
}

/** The points a capture jumped over: the point between each landing and the next. */
export function capturedPoints(points) {
  const result = [];
  for (let i = 1; i < points.length; i += 1) {
    const [a, b] = [points[i - 1], points[i]];
    const file = (FILES.indexOf(a[0]) + FILES.indexOf(b[0])) / 2;
    const rank = (Number(a.slice(1)) + Number(b.slice(1))) / 2;
    result.push(`${FILES[file]}${rank}`);
  }
  return result;
}

/**
 * A board in `container`. With `onPoint`, the board is played on: `onPoint(point)` is called
 * when a point is clicked, tapped, or chosen with the keyboard (Enter or Space on the cursor).
 * Without it the board is a picture (the replay, the study board, Learn's diagrams).
 */
export class Board {
  constructor(container, { onPoint = null } = {}) {
    this.container = container;
    this.onPoint = onPoint;
    this.flipped = false;
    this.paths = { blue: BLUE_PATH, gray: GRAY_PATH };
    this.pieces = {};
    this.view = { selected: [], targets: [], lastMove: null, hint: null, turn: null };
    this.cursor = CENTER;
    this.keyboard = true; // whether the cursor shows (not after a click or tap)
    this.svg = el("svg", {
      viewBox: "0 0 100 100",
      class: "board-svg",
      role: "img",
      "aria-hidden": "true",
      focusable: "false",
    });
    container.replaceChildren(this.svg);
    if (!onPoint) return;
    container.addEventListener("click", (event) => {
      const hit = event.target.closest("[data-point]");
      if (hit) {
        this.cursor = hit.dataset.point;
        this.onPoint(hit.dataset.point);
      }
    });
    container.addEventListener("keydown", (event) => this.keydown(event));
    container.addEventListener("pointerdown", () => { this.keyboard = false; });
    container.addEventListener("focus", () => this.drawCursor());
    container.addEventListener("blur", () => this.drawCursor());
  }

  xy(point) {
    const file = FILES.indexOf(point[0]);
    const rank = Number(point.slice(1));
    const column = this.flipped ? 8 - file : file;
    const row = this.flipped ? rank - 1 : 9 - rank;
    return [MARGIN + column * STEP, MARGIN + row * STEP];
  }

  /** The captains' paths: Blue's captain walks Gray's road in the prisoners-of-war rules
   * (`settings` as the API gives them, e.g. {start: "pow", ...}). */
  setRules(settings) {
    const pow = settings && settings.start === "pow";
    this.paths = pow ? { blue: GRAY_PATH, gray: BLUE_PATH } : { blue: BLUE_PATH, gray: GRAY_PATH };
  }

  setFlipped(flipped) {
    this.flipped = flipped;
    this.draw();
  }

  /**
   * Show a position. `view`: {selected: [points clicked so far], targets: [points that may come
   * next], lastMove: {points, captured, side} or null, hint: {move, points, path} or null (a
   * suggested move: its points and the way its piece would go), turn}. `animate` is the list of
   * points a piece has just travelled through (ending where it stands now), or null.
   */
  show(position, view, animate = null) {
    this.pieces = parsePosition(position);
    this.view = { selected: [], targets: [], lastMove: null, hint: null, ...view };
    this.draw();
    if (animate) this.animate(animate);
  }

  draw() {
    const svg = this.svg;
    svg.replaceChildren();
    el("rect", { x: 0, y: 0, width: 100, height: 100, rx: 2, class: "bg" }, svg);
    this.drawGrid(svg);
    this.drawPaths(svg);
    this.drawCenter(svg);
    this.drawCoordinates(svg);
    this.drawLastMove(svg); // over the paths, which a captain's move would hide
    this.drawHint(svg);
    this.drawSelection(svg);
    this.drawPieces(svg);
    this.drawTargets(svg);
    if (!this.onPoint) return;
    this.cursorLayer = el("g", { class: "cursor-layer" }, svg);
    this.drawHits(svg);
    this.drawCursor();
    this.container.setAttribute("aria-label", this.describe());
  }

  drawGrid(svg) {
    const grid = el("g", { class: "grid" }, svg);
    for (let i = 0; i < 9; i += 1) {
      const at = MARGIN + i * STEP;
      el("line", { x1: MARGIN, y1: at, x2: MARGIN + 8 * STEP, y2: at }, grid);
      el("line", { x1: at, y1: MARGIN, x2: at, y2: MARGIN + 8 * STEP }, grid);
    }
  }

  drawPaths(svg) {
    for (const side of ["gray", "blue"]) {
      const points = this.paths[side].map((point) => this.xy(point).join(",")).join(" ");
      el("polyline", { points, class: `path path-${side}` }, svg);
    }
  }

  drawCenter(svg) {
    const [x, y] = this.xy(CENTER);
    el("circle", { cx: x, cy: y, r: 2.7, class: "center-ring" }, svg);
    el("circle", { cx: x, cy: y, r: 1.6, class: "center" }, svg);
  }

  drawCoordinates(svg) {
    const group = el("g", { class: "coords" }, svg);
    for (let i = 0; i < 9; i += 1) {
      const file = FILES[i];
      const [x] = this.xy(`${file}1`);
      el("text", { x, y: 98 }, group).textContent = file;
      const [, y] = this.xy(`a${i + 1}`);
      el("text", { x: 2.6, y: y + 1.1 }, group).textContent = String(i + 1);
    }
  }

  drawLastMove(svg) {
    const last = this.view.lastMove;
    if (!last) return;
    const group = el("g", { class: "last-move" }, svg);
    const points = last.points;
    const line = (last.path || points).map((point) => this.xy(point).join(",")).join(" ");
    for (const [index, point] of points.entries()) {
      const [x, y] = this.xy(point);
      el("rect", {
        x: x - 4.6, y: y - 4.6, width: 9.2, height: 9.2, rx: 1.5,
        class: index === 0 ? "last-from" : "last-to", "data-last": point,
      }, group);
    }
    el("polyline", { points: line, class: "last-line" }, group);
    for (const point of last.captured || []) {
      const [x, y] = this.xy(point);
      el("path", {
        d: `M${x - 2} ${y - 2}L${x + 2} ${y + 2}M${x + 2} ${y - 2}L${x - 2} ${y + 2}`,
        class: "last-captured", "data-captured": point,
      }, group);
    }
  }

  /** A suggested move: its start and landing points, and the way its piece would go. */
  drawHint(svg) {
    const hint = this.view.hint;
    if (!hint) return;
    const group = el("g", { class: "hint-move", "data-hint-move": hint.move }, svg);
    for (const [index, point] of hint.points.entries()) {
      const [x, y] = this.xy(point);
      const role = index === 0 ? "from" : "to";
      el("rect", {
        x: x - 4.4, y: y - 4.4, width: 8.8, height: 8.8, rx: 1.5,
        class: `hint-${role}`, "data-hint": point, "data-hint-role": role,
      }, group);
    }
    const line = hint.path.map((point) => this.xy(point).join(",")).join(" ");
    el("polyline", { points: line, class: "hint-line", "data-hint-path": hint.path.join(" ") }, group);
  }

  drawSelection(svg) {
    const selected = this.view.selected;
    if (!selected.length) return;
    const group = el("g", { class: "selection" }, svg);
    if (selected.length > 1) {
      const line = selected.map((point) => this.xy(point).join(",")).join(" ");
      el("polyline", { points: line, class: "selection-line" }, group);
    }
    const [x, y] = this.xy(selected[selected.length - 1]);
    el("circle", { cx: x, cy: y, r: 4.7, class: "selected-ring" }, group);
  }

  drawPieces(svg) {
    const group = el("g", { class: "pieces" }, svg);
    for (const [point, piece] of Object.entries(this.pieces)) {
      const [x, y] = this.xy(point);
      const g = el("g", {
        class: `piece ${piece.side} ${piece.kind}`,
        "data-piece": point,
        "data-side": piece.side,
        "data-kind": piece.kind,
      }, group);
      el("use", {
        href: `#bluegray-piece-${piece.side}-${piece.kind}`,
        transform: `translate(${x} ${y}) scale(${PIECE_SCALE})`,
      }, g);
    }
  }

  drawTargets(svg) {
    const group = el("g", { class: "targets" }, svg);
    for (const point of this.view.targets) {
      const [x, y] = this.xy(point);
      const capture = this.view.capturing;
      el("circle", {
        cx: x, cy: y, r: capture ? 3.2 : 1.9,
        class: capture ? "target capture" : "target", "data-target": point,
      }, group);
    }
  }

  drawHits(svg) {
    const group = el("g", { class: "hits" }, svg);
    for (const file of FILES) {
      for (let rank = 1; rank <= 9; rank += 1) {
        const point = `${file}${rank}`;
        const [x, y] = this.xy(point);
        el("rect", {
          x: x - STEP / 2, y: y - STEP / 2, width: STEP, height: STEP,
          class: "hit", "data-point": point,
        }, group);
      }
    }
  }

  drawCursor() {
    if (!this.cursorLayer) return;
    this.cursorLayer.replaceChildren();
    if (document.activeElement !== this.container || !this.keyboard) return;
    const [x, y] = this.xy(this.cursor);
    el("rect", { x: x - 4.9, y: y - 4.9, width: 9.8, height: 9.8, rx: 1, class: "cursor" },
      this.cursorLayer);
  }

  keydown(event) {
    this.keyboard = true;
    const moves = {
      ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0],
    };
    if (event.key in moves) {
      let [df, dr] = moves[event.key];
      if (this.flipped) [df, dr] = [-df, -dr];
      const file = Math.min(8, Math.max(0, FILES.indexOf(this.cursor[0]) + df));
      const rank = Math.min(9, Math.max(1, Number(this.cursor.slice(1)) + dr));
      this.cursor = `${FILES[file]}${rank}`;
      this.drawCursor();
      this.container.setAttribute("aria-label", `${this.describePoint(this.cursor)}. ${this.describe()}`);
      event.preventDefault();
    } else if (event.key === "Enter" || event.key === " ") {
      this.onPoint(this.cursor);
      event.preventDefault();
    }
  }

  describePoint(point) {
    const piece = this.pieces[point];
    let text = piece ? `${point}: ${piece.side === "blue" ? "Blue" : "Gray"} ${piece.kind}` : `${point}: empty`;
    if (this.view.targets.includes(point)) text += ", a destination";
    if (this.view.hint && this.view.hint.points.includes(point)) text += ", on the hinted move";
    return text;
  }

  describe() {
    const selected = this.view.selected;
    let base = "The board. Arrow keys move the cursor, Enter selects.";
    if (this.view.hint) base += ` Hint: ${this.view.hint.move}.`;
    if (!selected.length) return base;
    return `${base} Selected ${selected.join(", ")}; possible: ${this.view.targets.join(", ") || "none"}.`;
  }

  /** Slide the piece now on the last of `points` through the earlier ones. */
  animate(points) {
    if (points.length < 2 || !this.svg.animate) return;
    if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    const end = points[points.length - 1];
    const piece = this.svg.querySelector(`[data-piece="${end}"]`);
    if (!piece) return;
    const [ex, ey] = this.xy(end);
    const frames = points.map((point) => {
      const [x, y] = this.xy(point);
      return { transform: `translate(${x - ex}px, ${y - ey}px)` };
    });
    const duration = Math.min(900, 110 * (points.length - 1) + 120);
    piece.classList.add("moving");
    const animation = piece.animate(frames, { duration, easing: "ease-in-out" });
    animation.onfinish = () => piece.classList.remove("moving");
  }
}

/** The points a piece passed through in a move: a captain's slide follows its path. */
export function travelled(points, kind, path) {
  if (kind !== "captain" || points.length !== 2) return points;
  const from = path.indexOf(points[0]);
  const to = path.indexOf(points[1]);
  if (from < 0 || to <= from) return points;
  return path.slice(from, to + 1);
}

/**
 * The last move of a position, for Board.show: `move` is its text ("d2-d3", "c3xc5xe5") and
 * `position` the position after it (for the way a captain slid along its path).
 */
export function lastMoveView(move, position, paths) {
  const points = movePoints(move);
  const piece = parsePosition(position)[points[points.length - 1]];
  const path = piece ? travelled(points, piece.kind, paths[piece.side]) : points;
  return { points, path, captured: move.includes("x") ? capturedPoints(points) : [] };
}

/**
 * Draw a board that is only looked at, from the data-* attributes of `container`:
 * data-position (the position in notation), data-pow ("true" in the prisoners-of-war rules),
 * data-last-move, data-targets (points to mark, separated by spaces) and data-flipped.
 */
export function drawBoard(container) {
  const board = new Board(container);
  const data = container.dataset;
  board.setRules({ start: data.pow === "true" ? "pow" : "home" });
  board.flipped = data.flipped === "true";
  board.show(data.position, {
    targets: data.targets ? data.targets.split(" ") : [],
    lastMove: data.lastMove ? lastMoveView(data.lastMove, data.position, board.paths) : null,
  });
  return board;
}
