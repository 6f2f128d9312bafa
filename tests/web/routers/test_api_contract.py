"""The API's published contract: the OpenAPI schema of the HTTP API and the JSON Schema of the
WebSocket messages, compared with the copies saved in ``tests/web/routers/data/``.

Moving code about (the web app's packages by domain) must not change what clients see. When the
API changes on purpose, update the copies deliberately, in the same commit as the change::

    python -m tests.web.routers.test_api_contract

and read the diff: every changed line is a change a client may notice (say so in the changelog).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from fastapi.testclient import TestClient

from bluegray.web.app import create_app
from bluegray.web.platform.settings import Settings

DATA: Final = Path(__file__).parent / "data"
OPENAPI: Final = DATA / "openapi.json"
WS_SCHEMA: Final = DATA / "ws_schema.json"


def _settings(database: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{database}",
        ai_processes=False,
        ai_workers=1,
        allowed_hosts=["testserver"],
    )


def _openapi(database: Path) -> dict[str, Any]:
    """The app's OpenAPI schema, without the package's version (a release changes it, not the
    API)."""
    schema: dict[str, Any] = create_app(_settings(database)).openapi()
    return {**schema, "info": {**schema["info"], "version": "(any)"}}


def _ws_schema(database: Path) -> dict[str, Any]:
    with TestClient(create_app(_settings(database))) as client:
        response = client.get("/api/ws/schema")
        assert response.status_code == 200
        schema: dict[str, Any] = response.json()
        return schema


def _text(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=1, sort_keys=True) + "\n"


def test_openapi_schema_is_the_saved_one(tmp_path: Path) -> None:
    """The HTTP API's schema is the saved copy, byte for byte (update it on purpose: see the
    module's docstring)."""
    assert _text(_openapi(tmp_path / "games.sqlite3")) == OPENAPI.read_text()


def test_websocket_schema_is_the_saved_one(tmp_path: Path) -> None:
    """``/api/ws/schema`` is the saved copy, byte for byte (update it on purpose: see the module's
    docstring)."""
    assert _text(_ws_schema(tmp_path / "games.sqlite3")) == WS_SCHEMA.read_text()


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        OPENAPI.write_text(_text(_openapi(Path(directory) / "a.sqlite3")))
        WS_SCHEMA.write_text(_text(_ws_schema(Path(directory) / "b.sqlite3")))
