"""The documentation stays true: its pictures are what the library draws now, its transcripts what
the program prints now, its links resolve."""

from __future__ import annotations

import re

from bluegray.engine.levels import LEVELS
from tests.paths import REPOSITORY, run_script


def test_doc_images_are_up_to_date() -> None:
    script = run_script("make_doc_images.py")
    pictures = script["pictures"]()
    assert pictures
    for name, svg in pictures.items():
        path = REPOSITORY / "docs" / "images" / name
        assert path.read_text(encoding="utf-8") == svg, (
            f"docs/images/{name} is stale: run python scripts/make_doc_images.py"
        )


def test_doc_transcripts_are_what_the_program_prints_now() -> None:
    script = run_script("make_doc_transcripts.py")
    transcripts = script["TRANSCRIPTS"]
    assert len(transcripts) >= 2
    for transcript, make in transcripts.items():
        assert script["shown"](transcript) == make(), (
            f"docs/{transcript.page}'s transcript {transcript.name} is stale: "
            "run python scripts/make_doc_transcripts.py"
        )


def test_install_commands_work_from_a_clone() -> None:
    """bluegray is not on PyPI yet: a command to run installs from the clone (``pip install
    ".[web]"``), never ``pip install "bluegray[web]"``, which an index cannot answer."""
    pages = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"^```[a-z]*\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE):
            for line in block.splitlines():
                if "pip install" in line:
                    assert not re.search(r"pip install[^#]*\bbluegray\[", line), (page.name, line)


def test_local_links_in_docs_resolve() -> None:
    pages = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)", page.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_the_terminal_guides_table_of_levels_is_the_engines() -> None:
    text = (REPOSITORY / "docs" / "terminal.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| (\d) \| (.+?) \|$", text, flags=re.MULTILINE))
    assert table == {str(level): config.description for level, config in LEVELS.items()}
