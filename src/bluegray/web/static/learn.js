// The Learn pages: draw every diagram and start position (the elements with data-board) with
// board.js, the drawing code of every board of the site.
import { drawBoard } from "./board.js";

for (const container of document.querySelectorAll("[data-board]")) drawBoard(container);
