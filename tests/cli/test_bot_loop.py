"""``bluegray bot``'s loop (``cli/bot_games.py``): when it looks for another game in the lobby.
The bot against a real server is ``tests/web/processes/test_bot.py``."""

from __future__ import annotations

import threading

from bluegray.cli import bot_games


def test_a_bot_whose_last_game_just_ended_looks_for_no_other() -> None:
    # The race CI met: the loop read "one game finished of one" before the game's thread noted
    # its end, then found no game alive, and the bot posted a seek on its way out.
    lock = threading.Lock()
    finished: list[str] = []
    game = threading.Thread(target=finished.append, args=("g1",))
    game.start()
    game.join()
    playing = {"g1": game}
    assert not bot_games.wants_another_game(playing, finished, 1, lock)
    assert bot_games.wants_another_game(playing, finished, 2, lock)
    assert bot_games.wants_another_game(playing, finished, None, lock)
    going_on = threading.Event()
    alive = threading.Thread(target=going_on.wait, args=(10,))
    alive.start()
    try:
        assert not bot_games.wants_another_game({"g2": alive}, [], None, lock)
    finally:
        going_on.set()
        alive.join()
