"""The domains' refusals and their one mapping to HTTP (``platform/errors.py``): every kind has
its status, a refusal that says when to try again carries ``Retry-After``, and a domain module
raises kinds, never status codes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from bluegray.errors import GameOverError, IllegalMoveError
from bluegray.web.platform import refusals
from bluegray.web.platform.errors import HTTP_STATUS, headers_of, status_of
from bluegray.web.platform.refusals import (
    Conflict,
    Invalid,
    NotFound,
    Refusal,
    TooMany,
    Unavailable,
    from_library,
    rate_limited,
    refused_while_down,
)

WEB = Path(refusals.__file__).resolve().parent.parent


def test_every_kind_of_refusal_has_its_http_status() -> None:
    kinds = {value for value in vars(refusals).values() if isinstance(value, type)}
    kinds = {kind for kind in kinds if issubclass(kind, Refusal) and kind is not Refusal}
    assert kinds == set(HTTP_STATUS)
    assert sorted(HTTP_STATUS.values()) == [401, 403, 404, 409, 422, 429, 503]
    assert status_of(NotFound("not_found", "game x not found")) == 404


def test_a_refusal_of_a_kind_derived_from_another_answers_its_status() -> None:
    class SeekGone(Conflict):
        pass

    assert status_of(SeekGone("seek_gone", "someone took it")) == 409


def test_a_rate_limit_says_when_to_try_again_in_its_body_and_its_header() -> None:
    refusal = rate_limited(2.2, "too many seeks")
    assert isinstance(refusal, TooMany) and status_of(refusal) == 429
    assert refusal.body()["error"]["details"] == {"retry_after": 3}
    assert headers_of(refusal) == {"Retry-After": "3"}
    assert headers_of(Invalid("invalid_move", "no")) is None


def test_the_librarys_errors_become_refusals_of_their_kind() -> None:
    assert isinstance(from_library(GameOverError("the game is over")), Conflict)
    illegal = from_library(IllegalMoveError("a1-b2 is not legal"))
    assert isinstance(illegal, Invalid) and illegal.code == "illegal_move"


def test_an_outage_met_inside_is_refused_as_unavailable_and_anything_else_passes() -> None:
    with pytest.raises(Unavailable) as caught, refused_while_down():
        raise OperationalError("SELECT 1", {}, Exception("connection refused"))
    assert caught.value.code == "store_unavailable" and caught.value.retry_after == 1
    with pytest.raises(KeyError), refused_while_down():
        raise KeyError("not an outage")


def test_no_domain_module_names_an_http_status_when_it_refuses() -> None:
    # A refusal's kind is its class; only platform/errors.py (and the routes' own answers)
    # speak HTTP. A domain raising ``Conflict(409, ...)`` or an HTTPException would slip by.
    domains = ["games", "lobby", "ratings", "accounts", "tournaments", "ai", "timers", "learn"]
    found = []
    for domain in domains:
        for path in sorted((WEB / domain).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                first = node.args[0]
                if name in {k.__name__ for k in HTTP_STATUS} | {"Refusal", "HTTPException"} and (
                    isinstance(first, ast.Constant) and isinstance(first.value, int)
                ):
                    found.append(f"{path.relative_to(WEB)}:{node.lineno}")
    assert found == []
