"""Draw the board pictures of the documentation (docs/images/*.svg) with the library itself.

    python scripts/make_doc_images.py

The pictures are committed; tests/test_docs.py checks that they are what this script draws now.
"""

from __future__ import annotations

from pathlib import Path

from bluegray import Game, Move
from bluegray.svg import board_svg

IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"


def pictures() -> dict[str, str]:
    """Each picture's file name and its SVG text."""
    result = {}
    for name in ("sackson", "pow-super", "super-light"):
        result[f"start-{name}.svg"] = board_svg(Game(name).position)
    capture = Game("sackson", "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1")
    circle = Move.parse("a1xa3xc3xc1xa1")
    result["capture-circle.svg"] = board_svg(capture.position, highlights=circle.points)
    capture.push(circle)
    result["capture-circle-after.svg"] = board_svg(capture.position, last_move=circle)
    turbo = Game("classic-light-turbo")
    turbo.push_all(["d2-d3", "f8-f7", "d3-c3", "f7-f6", "e1-b7"])
    result["turbo-slide.svg"] = board_svg(turbo.position, last_move=turbo.last_move)
    return result


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    for name, svg in pictures().items():
        (IMAGES / name).write_text(svg, encoding="utf-8")
        print(f"wrote {IMAGES / name}")


if __name__ == "__main__":
    main()
