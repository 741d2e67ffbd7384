"""`POST …/extract`: the pages named are read through the same guarded fetcher (a private
address is refused, not read), the scripted model fills the schema from them, and `trace`
names the source holding each value."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
pytest.importorskip("xdive", reason="the server tests need sleuth[server] and the dev extra")
from collections.abc import Iterator

import httpx
from xdive import XDive

from tests.llm.fake_servers import FakeLLMServer, Reply
from tests.server.harness import TESTWEB_DEFAULTS, serving
from tests.testweb.server import TestWeb

DOCS = "http://docs.examplecloud.com/security/audit-logs/retention"
PRIVATE = "http://127.0.0.1:9/admin"
SCHEMA = {
    "type": "object",
    "properties": {
        "default_retention_days": {"type": ["integer", "null"]},
        "max_retention_days": {"type": ["integer", "null"]},
        "export_formats": {"type": ["array", "null"], "items": {"type": "string"}},
    },
}


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai").start()
    yield server
    server.stop()


def with_llm(llm: FakeLLMServer) -> dict[str, str]:
    return {**TESTWEB_DEFAULTS, "base_url": llm.url, "api_key": "k", "model": "gpt-4o-mini"}


def test_extract_fills_the_schema_from_the_pages_named(
    testweb_env: TestWeb, llm: FakeLLMServer
) -> None:
    reply = '{"default_retention_days": 90, "max_retention_days": 365, "export_formats": ["csv"]}'
    llm.script(Reply(chunks=[reply]))
    with serving(defaults=with_llm(llm)) as served:
        key = served.key("acme")
        with XDive(key, base_url=served.api) as client:
            out = client.extract([DOCS, PRIVATE], prompt="Audit log retention", schema=SCHEMA)
        usage = httpx.get(f"{served.api}/orgs/acme/usage", headers={"X-API-Key": key}).json()
    assert out["data"]["default_retention_days"] == 90
    assert out["trace"] == {
        "default_retention_days": [1],
        "max_retention_days": [1],
        "export_formats[0]": [],
    }  # fmt: skip — "parquet" is in no source: the trace says so
    pages = {p["url"]: p for p in out["pages"]}
    assert pages[DOCS]["read"] is True and pages[PRIVATE]["read"] is False
    assert "private" in pages[PRIVATE]["reason"] or "loopback" in pages[PRIVATE]["reason"]
    assert [s["url"] for s in out["sources"]] == [DOCS] and out["citations"][0]["url"] == DOCS
    assert not any("127.0.0.1:9" in h for h in testweb_env.hits)
    assert usage["meters"]["pages_read"]["used"] == 1 and usage["meters"]["searches"]["used"] == 0
    assert "365 days" in str(llm.received[0].body)


def test_extract_of_nothing_readable_is_422(testweb_env: TestWeb, llm: FakeLLMServer) -> None:
    with serving(defaults=with_llm(llm)) as served:
        got = httpx.post(f"{served.api}/orgs/acme/extract", json={"urls": [PRIVATE], "prompt": "x"},
                         headers={"X-API-Key": served.key("acme")})  # fmt: skip
    assert got.status_code == 422 and got.json()["code"] == "NO_SOURCES"
    assert PRIVATE in got.json()["error"] and llm.received == []
