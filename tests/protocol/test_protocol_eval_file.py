"""The engine's ``EvalFile`` option: a network file played over the protocol (as a match against
another engine needs, before the network ships), ``none`` for the linear sum, and the errors
that change nothing. In process: ``EngineServer`` answers into a string."""

from __future__ import annotations

import io
import random
from pathlib import Path

from bluegray import Game
from bluegray.engine.evaluation import Evaluator, family
from bluegray.engine.limits import Limits
from bluegray.engine.network import random_network
from bluegray.engine.network_file import write_network
from bluegray.engine.search import Searcher
from bluegray.protocol import Info
from bluegray.protocol.server import EngineServer
from bluegray.rules import PRESETS

DEPTH = 3


def _session(*commands: str) -> list[str]:
    """What the engine answers to ``commands`` (the last search waited for)."""
    output = io.StringIO()
    EngineServer(output).run(commands)
    return output.getvalue().splitlines()


def _deepest_score(lines: list[str]) -> int:
    infos = [Info.parse(line) for line in lines if line.startswith("info depth")]
    assert infos and infos[-1].depth == DEPTH and infos[-1].score is not None
    return infos[-1].score.value


def _searched_score(evaluator: Evaluator) -> int:
    searcher = Searcher(evaluator.rules, evaluator=evaluator)
    result = searcher.search(Game("super-light").board(), Limits(depth=DEPTH))
    return result.score


def test_a_network_file_is_what_the_engine_evaluates_with(tmp_path: Path) -> None:
    rules = PRESETS["super-light"]
    network = random_network(random.Random("eval file"), widths=(32, 8, 8))
    path = tmp_path / "super-light.json"
    write_network(path, network, family(rules))
    search = ("position rules super-light startpos", f"go depth {DEPTH}")

    lines = _session(f"setoption name EvalFile value {path}", *search)
    assert lines[0] == (
        f"info string evaluation: network {path} for the family {family(rules)} "
        "(widths 32-8-8); positions of other families are refused"
    )
    with_network = _deepest_score(lines)
    assert with_network == _searched_score(Evaluator(rules, network=network))
    linear = _searched_score(Evaluator(rules))
    assert with_network != linear  # the file made a difference
    assert _deepest_score(_session(*search)) == linear  # super-light ships no network

    # A network evaluates positions of its own family only: elsewhere go is refused, plainly.
    lines = _session(
        f"setoption name EvalFile value {path}",
        "position rules cooper startpos",
        f"go depth {DEPTH}",
    )
    assert lines[1:] == [
        f"info string error go: EvalFile {path} was trained for the family {family(rules)}, "
        f"not cooper's ({family(PRESETS['cooper'])}); set EvalFile to 'shipped' to play it",
        "bestmove (none)",
    ]


def test_eval_file_none_plays_the_linear_sum_where_a_network_ships() -> None:
    rules = PRESETS["cooper"]
    search = ("position rules cooper startpos", f"go depth {DEPTH}")
    shipped = _deepest_score(_session(*search))
    lines = _session("setoption name EvalFile value none", *search)
    assert lines[0] == "info string evaluation: the linear evaluation in every family"
    linear = _deepest_score(lines)
    searcher = Searcher(rules, evaluator=Evaluator(rules))
    assert linear == searcher.search(Game("cooper").board(), Limits(depth=DEPTH)).score
    assert linear != shipped
    lines = _session("setoption name EvalFile value none", "setoption name EvalFile value shipped")
    assert lines[-1] == "info string evaluation: each family's shipped network, if it has one"


def test_an_eval_file_that_cannot_be_read_is_an_error_and_changes_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "something else"}')
    search = ("position rules cooper startpos", f"go depth {DEPTH}")
    shipped = _deepest_score(_session(*search))
    for value, error in (
        (str(tmp_path / "missing.json"), "cannot read the network file"),
        (str(broken), "not a network file"),
        ("", "needs 'value <file>'"),
    ):
        lines = _session(
            "setoption name EvalFile value none", f"setoption name EvalFile value {value}", *search
        )
        assert lines[1].startswith("info string error setoption:") and error in lines[1], lines[1]
        assert _deepest_score(lines) != shipped  # still 'none': the linear sum
