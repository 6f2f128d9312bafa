// "Read the board" on the pages whose board is only looked at (the replay, the study board):
// the button writes every piece of the position shown (`#board`'s data-position, kept by the
// page's own script) by side and point into `#board-reading`, an aria-live region.
import { boardWords } from "./speech.js";

const button = document.getElementById("read-board");
const region = document.getElementById("board-reading");
const boardBox = document.getElementById("board");

if (button && region && boardBox) {
  button.addEventListener("click", () => {
    region.hidden = false;
    region.textContent = boardBox.dataset.position
      ? boardWords(boardBox.dataset.position) : "No position on the board yet.";
  });
  // Another position shown: the reading was of the one before, gone until asked again.
  new MutationObserver(() => {
    region.textContent = "";
    region.hidden = true;
  }).observe(boardBox, { attributes: true, attributeFilter: ["data-position"] });
}
