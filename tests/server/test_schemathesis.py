"""Schemathesis against the live OpenAPI document: generated valid and invalid requests for
every operation, with a real key. No 5xx, and every response matches the documented schema
(status, content type, headers, body)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
pytest.importorskip("schemathesis", reason="the server tests need sleuth[server] and the dev extra")
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import Case
from schemathesis.checks import not_a_server_error, positive_data_acceptance

from tests.server.harness import serving
from tests.testweb.server import TestWeb

EXAMPLES = 15  # per operation: enough to reach every field and error path, bounded in time
# A valid question may find nothing to read: 422 NO_SOURCES answers valid data. 5xx are judged
# by `no_server_error` below. Every other check runs as shipped.
CONFIG = """
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "401", "403", "404", "409", "422", "429", "5xx"]
"""


def no_server_error(ctx: Any, response: Any, case: Case) -> None:
    """No 5xx, but one: this server has no model on purpose, so a `schema` (structured
    output needs an LLM) is the documented 503 LLM_NOT_CONFIGURED, not a failure. With a
    model configured it is served (test_sdk's schema test)."""
    if response.status_code < 500:
        return
    body = response.json() if response.headers.get("content-type", [""]) else {}
    if response.status_code == 503 and body.get("code") == "LLM_NOT_CONFIGURED":
        return
    # Likewise batches: this server has no database on purpose (test_batch_api has one).
    if response.status_code == 503 and body.get("code") == "BATCHES_UNAVAILABLE":
        return
    raise AssertionError(f"server error {response.status_code}: {response.text[:300]}")


def valid_data_accepted(ctx: Any, response: Any, case: Case) -> None:
    """Schemathesis's own positive-data check, but for fields OpenAPI does not describe whole:
    `schema` must itself be a valid JSON Schema, so a generated object that is not one gets a
    400 naming the `schema` field; `search_lang`'s pattern gives a tag's shape, and its first
    two letters must also be an ISO 639-1 code ("xq-AB" has the shape, and is refused)."""
    field = response.json().get("field") if response.status_code == 400 else None
    if field in ("schema", "search_lang") or str(field).startswith("questions["):  # batch line
        return
    positive_data_acceptance(ctx, response, case)


def test_the_api_conforms_to_its_openapi_document(testweb_env: TestWeb) -> None:
    with serving() as served:
        key = served.key("fuzz")
        config = schemathesis.config.SchemathesisConfig.from_str(CONFIG)
        schema = schemathesis.openapi.from_url(f"{served.api}/openapi.json", config=config)
        found = [result.ok() for result in schema.get_all_operations()]
        # The SSE streams (/api/sse, /api/sse/live) run a deep research per request and
        # answer as a stream; their real client checks them (test_webapp_sse.py). So does the
        # OpenAI-compatible chat route (the openai SDK and LangChain: test_openai_compat.py).
        streams = ("/api/sse", "/api/sse/live", "/v1/chat/completions")
        operations = [op for op in found if op.path not in streams]
        assert len(found) - len(operations) == 3
        # whoami, usage, the org's model, runs, run, a run's graph, a run's evidence pack,
        # research, search, extract, the four knowledge-base ones, the three of batches, the
        # live stream's ticket, and the OpenAI-compatible model list
        assert len(operations) == 19
        for operation in operations:

            @given(case=operation.as_strategy())
            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                database=None,
                derandomize=True,
                suppress_health_check=list(HealthCheck),
            )
            def conforms(case: Case) -> None:
                if "org" in (case.path_parameters or {}):
                    case.path_parameters["org"] = "fuzz"
                case.call_and_validate(
                    base_url=served.base,
                    headers={"X-API-Key": key},
                    excluded_checks=[not_a_server_error, positive_data_acceptance],
                    additional_checks=[no_server_error, valid_data_accepted],
                )

            conforms()
