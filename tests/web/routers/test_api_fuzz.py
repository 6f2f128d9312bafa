"""The HTTP API fuzzed from its own OpenAPI schema (Schemathesis): every operation, with
generated valid and invalid input, answers without a server error, with a status code its
schema documents and a body of the documented shape. The rate limits are off, so that every
request really reaches its operation (none is refused as too many)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from tests.web.conftest import LiveServer

pytestmark = pytest.mark.slow


@pytest.fixture
def api_schema(make_server: Callable[..., LiveServer]) -> Any:
    # Failed logins to a name are limited even with the rate limits off: not here.
    server = make_server(
        rate_limits=False, max_analysis_seconds=0.05, login_failures_per_name=1_000_000
    )
    return schemathesis.openapi.from_url(f"{server.url}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_every_operation_answers_every_input_as_documented(case: Any) -> None:
    response = case.call()
    assert response.status_code != 429, "the rate limits are off: every request is answered"
    case.validate_response(
        response,
        checks=[not_a_server_error, status_code_conformance, response_schema_conformance],
    )
