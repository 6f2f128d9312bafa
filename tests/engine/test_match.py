"""The match runner: the opening book, playing games, running a match in worker processes, the
records it writes and the ``bluegray match`` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bluegray import Game, RuleSet, read_records
from bluegray.cli.main import main
from bluegray.cli.match import describe_limits, pace
from bluegray.engine.limits import Limits
from bluegray.engine.match import (
    MAX_PLIES_REASON,
    InvalidMatchError,
    MatchGame,
    MatchSettings,
    MatchSummary,
    play_game,
    run_match,
)
from bluegray.engine.openings import DEFAULT_MARGIN, opening_book
from bluegray.engine.players import player_from_spec
from bluegray.engine.stats import MatchStats
from bluegray.pieces import Side

COOPER = RuleSet.parse("cooper")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


# -- the opening book -----------------------------------------------------------------------------


def test_openings_are_distinct_legal_unfinished_and_balanced() -> None:
    book = opening_book(COOPER, 12, seed=3, plies=(4, 8))
    assert len(book) == 12
    placements = set()
    for opening in book:
        assert 4 <= len(opening.moves) <= 8
        game = opening.game(COOPER)  # replaying checks every move is legal
        assert game.outcome() is None
        assert abs(opening.score) <= DEFAULT_MARGIN
        placements.add(str(game.position).rsplit(" ", 2)[0])
    assert len(placements) == 12


def test_openings_are_reproducible() -> None:
    book = opening_book("sackson", 6, seed=7)
    assert book == opening_book("sackson", 6, seed=7)
    assert book[:3] == opening_book("sackson", 3, seed=7)
    assert book != opening_book("sackson", 6, seed=8)


def test_short_books_repeat_and_no_plies_means_the_start() -> None:
    start = opening_book(COOPER, 3, plies=(0, 0))
    assert [opening.moves for opening in start] == [(), (), ()]
    one_ply = opening_book(COOPER, 30, plies=(1, 1))
    distinct = {opening.moves for opening in one_ply}
    assert len(distinct) <= len(Game(COOPER).legal_moves) < 30
    assert one_ply[: len(distinct)] == one_ply[len(distinct) : 2 * len(distinct)]


# -- one game -------------------------------------------------------------------------------------


def test_play_game_from_an_opening() -> None:
    opening = ["d2-d3", "f8-f7"]
    result = play_game(
        player_from_spec("greedy", seed=1), player_from_spec("random", seed=2), COOPER, opening
    )
    assert [str(move) for move in result.opening] == opening
    assert [str(move) for move in result.moves[:2]] == opening
    game = result.game()
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.winner == result.winner and outcome.termination.value == result.reason
    assert result.blue == "greedy" and result.gray == "random"


def test_the_length_cap_adjudicates_a_draw() -> None:
    result = play_game(
        player_from_spec("random", seed=1),
        player_from_spec("random", seed=2),
        "sackson",
        max_plies=12,
    )
    assert result.plies == 12
    assert result.reason == MAX_PLIES_REASON and result.adjudicated
    assert result.winner is None and result.result == "1/2-1/2"
    record = result.record(Round="1")
    back = next(read_records(str(record)))
    assert back.tags["Result"] == "1/2-1/2"
    assert "no result after 12 plies" in back.tags["Adjudication"]
    assert back.game.moves == list(result.moves)


# -- a match --------------------------------------------------------------------------------------


def settings(**changes: Any) -> MatchSettings:
    values: dict[str, Any] = {
        "player_a": "greedy",
        "player_b": "random",
        "rules": COOPER,
        "games": 6,
        "concurrency": 2,
        "seed": 5,
    }
    values.update(changes)
    return MatchSettings(**values)


def fingerprint(summary: MatchSummary) -> list[tuple[Any, ...]]:
    return [
        (game.number, game.a_blue, game.result.moves, game.result.winner, game.result.reason)
        for game in summary.games
    ]


def test_colours_alternate_and_pairs_share_an_opening() -> None:
    summary = run_match(settings())
    games = summary.games
    assert [game.number for game in games] == [1, 2, 3, 4, 5, 6]
    assert [game.a_blue for game in games] == [True, False] * 3
    for game in games:
        blue, gray = ("greedy", "random") if game.a_blue else ("random", "greedy")
        assert (game.result.blue, game.result.gray) == (blue, gray)
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert first.result.opening == second.result.opening
    assert len({game.result.opening for game in games}) == 3
    assert summary.stats.games == 6 and not summary.interrupted and not summary.stopped_early


@pytest.mark.slow
def test_same_seed_and_nodes_play_the_same_games() -> None:
    nodes = settings(player_a="level:6", player_b="level:2", games=4, limits=Limits(nodes=300))
    first = run_match(nodes)
    assert fingerprint(first) == fingerprint(run_match(nodes))
    assert fingerprint(first) == fingerprint(
        run_match(settings(**{**vars(nodes), "concurrency": 1}))
    )
    other_seed = run_match(settings(**{**vars(nodes), "seed": 6}))
    assert fingerprint(first) != fingerprint(other_seed)


def test_progress_is_reported_and_ctrl_c_keeps_the_finished_games() -> None:
    for concurrency in (1, 2):
        seen: list[int] = []

        def progress(game: MatchGame, stats: MatchStats, seen: list[int] = seen) -> None:
            seen.append(game.number)
            assert stats.games == len(seen)
            if len(seen) == 3:
                raise KeyboardInterrupt

        summary = run_match(settings(games=8, concurrency=concurrency), progress)
        assert summary.interrupted
        assert len(summary.games) == 3
        assert sorted(game.number for game in summary.games) == sorted(seen)


def test_a_match_in_the_background_writes_a_line_a_game_when_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["match", "random", "random", "--rules", "cooper", "--games", "2", "--max-plies", "20"]
    code, _, err = run([*args, "--sprt", "0,50"], capsys)
    assert code == 0 and "games:" not in err  # not asked: standard error is no terminal
    monkeypatch.setenv("BLUEGRAY_PROGRESS", "1")
    code, stdout, err = run([*args, "--sprt", "0,50", "--json"], capsys)
    assert code == 0 and json.loads(stdout)["games"] == 2
    lines = [line for line in err.splitlines() if " games: " in line]
    assert [line.split(" games: ")[0] for line in lines] == ["1 of 2", "2 of 2"]
    assert all(line.split(" games: ")[1].startswith("random: ") for line in lines)
    assert "SPRT LLR" in lines[-1]
    assert "so far, about " in lines[0] and lines[0].endswith(
        "at most (the SPRT may stop it sooner)"
    )
    assert lines[-1].endswith(", about 0:00:00 to go at most (the SPRT may stop it sooner)")


def test_a_matchs_pace_counts_only_the_games_of_this_run() -> None:
    # 12 of 200 games done, 2 of them read from a journal: 10 games in 10 minutes here, so the
    # 188 to come take some 188 minutes.
    assert pace(settings(games=200), 12, 10, 600.0) == "0:10:00 so far, about 3:08:00 to go"
    assert pace(settings(games=200), 2, 0, 5.4) == "0:00:05 so far"
    assert pace(settings(games=200, sprt=(0.0, 50.0)), 200, 200, 7200.0).endswith(
        "about 0:00:00 to go at most (the SPRT may stop it sooner)"
    )


def test_sprt_stops_a_lopsided_match_early() -> None:
    summary = run_match(settings(games=40, sprt=(-400.0, 0.0)))
    assert summary.stopped_early
    assert summary.stats.sprt is not None and summary.stats.sprt.decided
    assert len(summary.games) < 40 and len(summary.games) % 2 == 0
    assert [game.number for game in summary.games] == list(range(1, len(summary.games) + 1))


# -- the command ----------------------------------------------------------------------------------


def test_match_json_and_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.pgn"
    args = ["match", "level:1", "greedy", "--rules", "cooper", "--games", "6", "-j", "2"]
    code, stdout, _ = run([*args, "--json", "--out", str(out), "--sprt", "0,50"], capsys)
    assert code == 0
    data = json.loads(stdout)
    games = data["games"]
    assert games == 6 and data["players"] == {"a": "level:1", "b": "greedy"}
    a, b = data["a"], data["b"]
    assert a["wins"] + a["draws"] + a["losses"] == games
    assert (a["wins"], a["draws"], a["losses"]) == (b["losses"], b["draws"], b["wins"])
    for key in ("wins", "draws", "losses"):
        assert data["a_as_blue"][key] + data["a_as_gray"][key] == a[key]
    assert data["points"]["a"] == a["wins"] + a["draws"] / 2
    assert data["points"]["a"] + data["points"]["b"] == games
    assert data["score"] == pytest.approx(data["points"]["a"] / games)
    assert sum(data["reasons"].values()) == games
    assert data["sprt"]["verdict"] in ("H1 accepted", "H0 accepted", "inconclusive")
    assert data["settings"]["concurrency"] == 2 and data["rules"] == "cooper"

    records = list(read_records(out.read_text(encoding="utf-8")))
    assert len(records) == games
    assert [record.tags["Round"] for record in records] == [str(n) for n in range(1, 7)]
    a_wins = draws = 0
    plies = 0
    for number, record in enumerate(records, start=1):
        a_blue = number % 2 == 1
        assert record.tags["Event"] == "bluegray match"
        assert record.tags["Blue" if a_blue else "Gray"] == "level:1"
        opening = record.tags["Opening"].split()
        assert 4 <= len(opening) <= 8
        assert [str(move) for move in record.game.moves[: len(opening)]] == opening
        outcome = record.game.outcome()
        assert outcome is not None
        a_wins += outcome.winner is (Side.BLUE if a_blue else Side.GRAY)
        draws += outcome.winner is None
        plies += record.game.ply
    assert (a_wins, draws) == (a["wins"], a["draws"])
    assert data["average_plies"] == pytest.approx(plies / games)


def test_match_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["match", "greedy", "random", "-r", "cooper", "-n", "4", "-j", "1"], capsys)
    assert code == 0
    assert "greedy vs random, rules cooper: 4 games" in out
    assert "Elo difference (greedy over random):" in out
    assert "Endings:" in out


def test_the_report_names_the_players_that_do_not_follow_the_match_limits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--time 0.1`` is not what a weaker level's moves get: they search a fixed depth."""
    args = ["match", "level:2", "level:6", "-n", "2", "-j", "1", "--max-plies", "4"]
    code, out, _ = run([*args, "--time", "0.01"], capsys)
    assert code == 0
    assert "0.01 s a move, except level:2 (its level's fixed depth, 2 plies)," in out
    assert describe_limits(settings(player_a="random", limits=Limits(nodes=50))) == (
        "50 nodes a move, except random (no search)"
    )
    assert describe_limits(
        settings(player_a="level:7", player_b="mcts", limits=Limits(nodes=50))
    ) == ("50 nodes a move")
    assert describe_limits(settings(limits=None)) == "each player's own limits"


def test_sackson_scoring_counts_impasse_wins_as_half(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Short no-progress limits make Sackson impasses (won by the captain farther advanced).
    args = ["match", "greedy", "random", "-r", "sackson impasse-plies=20", "-n", "6", "-j", "2"]
    _, plain_out, _ = run([*args, "--json"], capsys)
    _, sackson_out, _ = run([*args, "--json", "--sackson-scoring"], capsys)
    plain, sackson = json.loads(plain_out), json.loads(sackson_out)
    assert plain["a"] == sackson["a"] and plain["reasons"] == sackson["reasons"]
    wins = sackson["impasse_wins"]
    assert wins["a"] + wins["b"] > 0
    assert sackson["points"]["a"] == plain["points"]["a"] - 0.25 * wins["a"] + 0.25 * wins["b"]
    assert sackson["scoring"]["impasse_win"] == 0.75 and plain["scoring"]["impasse_win"] == 1.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nobody", "random"], "unknown player 'nobody'"),
        (["level:9", "random"], "invalid player 'level:9'"),
        (["random", "random", "--rules", "chess"], "chess"),
        (["random", "random", "--games", "0"], "--games must be at least 1"),
        (["random", "random", "--time", "-1"], "--time must be a positive number"),
        (["random", "random", "--time", "86401"], "--time must be a positive number"),
        (
            ["random", "random", "--nodes", "9223372036854775808"],
            "--nodes must be at least 1 and at most",
        ),
        (["random", "random", "--time", "1", "--nodes", "5"], "not both"),
        (["random", "random", "--sprt", "10,0"], "ELO0 must be below ELO1"),
        (["random", "random", "--sprt", "x"], "--sprt must be ELO0,ELO1"),
        (["random", "random", "--opening-plies", "8-4"], "--opening-plies"),
        (["random", "random", "--concurrency", "0"], "--concurrency must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    games = [] if "--games" in args else ["--games", "2"]
    code, out, err = run(["match", *args, *games], capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("bluegray: error: ") and message in err


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"games": 0}, "at least one game"),
        ({"concurrency": 0}, "concurrency must be at least 1"),
        ({"max_plies": 0}, "length cap"),
        ({"sprt": (5.0, 0.0)}, "elo0 must be below elo1"),
    ],
)
def test_bad_settings_raise_a_typed_error(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidMatchError, match=message):
        settings(**changes)
