"""The engine protocol's client and ``EnginePlayer``: real engine processes, and small fake engines
that die, cheat, hang or say numbers the client cannot use, each a clear error."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest

from bluegray import Game, Move, RuleSet
from bluegray.engine.limits import Limits
from bluegray.engine.match import MatchSettings, play_game, run_match
from bluegray.engine.players import InvalidPlayerError, RandomPlayer, player_from_spec
from bluegray.protocol import Go, Info, PositionCommand
from bluegray.protocol.client import (
    Engine,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
)
from bluegray.protocol.player import EnginePlayer
from tests.protocol.engine_session import ENGINE, ENGINE_SPEC

# -- the client ---------------------------------------------------------------------------------


def test_engine_client_reports_rejected_commands() -> None:
    with Engine(ENGINE) as client:
        assert client.name.startswith("bluegray") and client.protocol == 1
        assert client.option("level") is not None
        client.position(Game("cooper"))
        with pytest.raises(EngineError, match="illegal move 'd2-d5'"):
            client.position(PositionCommand(RuleSet.parse("cooper"), None, (Move.parse("d2-d5"),)))
        with pytest.raises(EngineError, match="Level must be 1 to 8"):
            client.set_option("Level", 0)
        with pytest.raises(EngineError, match="has no option 'Colour'"):
            client.set_option("Colour", "blue")
        client.position(Game("cooper"))
        result = client.go(Go(infinite=True), stop_after=0.2)
        assert result.move in Game("cooper").legal_moves and result.last is not None
        assert client.close() == 0


def test_engine_player_plays_legal_moves() -> None:
    player = player_from_spec(ENGINE_SPEC + ";level=5;timeout=20", seed=3)
    assert isinstance(player, EnginePlayer)
    assert player.spec == ENGINE_SPEC + ";level=5;timeout=20"
    opponent = RandomPlayer(1)
    try:
        game = Game("super")
        player.new_game(game.rules)
        for ply in range(8):
            mover = player if ply % 2 == 0 else opponent
            move = mover.choose(game, Limits(depth=2))
            assert move in game.legal_moves
            game.push(move)
        assert player.last_result is not None and player.last_result.last is not None
        assert player.last_result.last.depth == 5  # level 5 searches five plies, whatever asked
    finally:
        player.close()
    assert player.engine.returncode == 0


@pytest.mark.compiled_kernel  # level 4's depth-4 searches: many seconds in the plain kernel
def test_a_match_between_two_engine_processes() -> None:
    spec_a = ENGINE_SPEC + ";level=8"
    spec_b = ENGINE_SPEC + ";level=4"
    settings = MatchSettings(
        player_a=spec_a,
        player_b=spec_b,
        rules=RuleSet.parse("cooper"),
        games=2,
        limits=Limits(nodes=300),
        max_plies=60,
    )
    summary = run_match(settings)
    assert summary.stats.games == 2
    first, second = (match_game.result for match_game in summary.games)
    assert (first.blue, first.gray) == (spec_a, spec_b)
    assert (second.blue, second.gray) == (spec_b, spec_a)
    for result in (first, second):
        assert result.plies > len(result.opening)
        result.game()  # replays every move: all legal


def test_play_game_with_engine_players_from_a_position_with_history() -> None:
    blue = EnginePlayer(ENGINE, options={"Level": 6})
    gray = EnginePlayer(ENGINE, options={"Level": 3})
    try:
        result = play_game(blue, gray, "classic-light", ["e2-e3"], Limits(depth=1), max_plies=12)
    finally:
        blue.close()
        gray.close()
    assert result.opening == (Move.parse("e2-e3"),)
    assert (result.blue, result.gray) == ("engine:" + shlex.join(ENGINE),) * 2
    assert 1 < result.plies <= 12
    assert result.game().moves == list(result.moves)  # every move replays: all legal


FAKE_HANDSHAKE = "id name fake\noption name Threads type spin default 1 min 1 max 4"

FAKE_ENGINE = """
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "bgi":
        print({handshake!r}, "bgiok", sep="\\n", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        {on_go}
"""


def fake_engine(tmp_path: Path, on_go: str, handshake: str = FAKE_HANDSHAKE) -> list[str]:
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE.format(on_go=on_go, handshake=handshake), encoding="utf-8")
    return [sys.executable, str(script)]


def test_an_engine_that_dies_mid_game_is_a_clear_error(tmp_path: Path) -> None:
    command = fake_engine(tmp_path, 'print("out of cheese", file=sys.stderr); sys.exit(7)')
    player = EnginePlayer(command, options={"threads": 2})  # another engine's option, any case
    try:
        with pytest.raises(EngineTerminatedError, match=r"exited with code 7.*out of cheese"):
            player.choose(Game(), Limits(depth=1))
    finally:
        player.close()


def test_an_engine_that_plays_an_illegal_move_is_caught(tmp_path: Path) -> None:
    player = EnginePlayer(fake_engine(tmp_path, 'print("bestmove e1-e5", flush=True)'))
    try:
        with pytest.raises(EngineError, match="illegal move 'e1-e5'"):
            player.choose(Game(), None)
    finally:
        player.close()


def test_an_engine_that_does_not_answer_times_out(tmp_path: Path) -> None:
    player = EnginePlayer(fake_engine(tmp_path, "pass"), timeout=0.3)
    try:
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError, match="did not answer 'go depth 1' in time"):
            player.choose(Game(), Limits(depth=1))
        assert time.monotonic() - started < 2.0
    finally:
        player.close()
    with pytest.raises(EngineTimeoutError, match="did not answer 'bgi'"):
        # the engine that never answers 'bgi' (the fault)
        Engine([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.3)


@pytest.mark.parametrize("protocol", ["\u00b2", "9" * 5000], ids=["superscript", "5000 digits"])
def test_the_client_reads_numbers_it_cannot_use_as_no_number(tmp_path: Path, protocol: str) -> None:
    """A protocol version of a superscript digit or of 5,000 digits is no version, and an info
    line with a number too long to convert is skipped: the game goes on."""
    replies = f"info nodes {'9' * 5000}\ninfo depth 1 string x\nbestmove d2-d3"
    command = fake_engine(
        tmp_path, f"print({replies!r}, flush=True)", f"id name odd\nid protocol {protocol}"
    )
    with Engine(command) as client:
        assert client.name == "odd" and client.protocol is None
        result = client.go(Go(depth=1))
        assert result.move == Move.parse("d2-d3")
        assert result.infos == (Info(depth=1, string="x"),)


def test_the_client_waits_out_a_move_time_of_any_length() -> None:
    """A ``movetime`` of 2**63 - 1 ms is longer than one wait of the platform's clock may be."""
    with Engine(ENGINE) as client:
        client.position(Game("cooper"))
        result = client.go(Go(depth=1, movetime=2**63 - 1))
        assert result.move in Game("cooper").legal_moves


def test_an_engine_that_cannot_start_is_a_clear_error() -> None:
    with pytest.raises(EngineError, match="cannot start engine 'no-such-engine-here'"):
        player_from_spec("engine:no-such-engine-here")
    with pytest.raises(EngineTerminatedError, match="exited with code 3"):
        Engine([sys.executable, "-c", "import sys; sys.exit(3)"])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("engine:", "no engine command"),
        ("engine:  ;level=3", "no engine command"),
        (ENGINE_SPEC + ";level", "expected NAME=VALUE"),
        (ENGINE_SPEC + ";timeout=soon", "timeout must be a positive number"),
        ("engine:'unclosed", "No closing quotation"),
    ],
)
def test_bad_engine_specs(spec: str, message: str) -> None:
    with pytest.raises(InvalidPlayerError, match=message):
        player_from_spec(spec)


def test_an_engine_spec_with_an_option_the_engine_rejects() -> None:
    with pytest.raises(EngineError, match="Level must be 1 to 8, not 9"):
        player_from_spec(ENGINE_SPEC + ";level=9")
