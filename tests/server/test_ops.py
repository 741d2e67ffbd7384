"""What an operator and a browser see: the docs page served from the package with no external
asset, health and readiness, Prometheus metrics, and JSON access logs that never hold a key."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import json
import logging
import re

import httpx

from sleuth.server.config import ServerConfig
from sleuth.server.models import ExtractBody, ResearchBody, SearchBody
from sleuth.settings.table import SETTINGS
from tests.server.harness import serving
from tests.testweb.server import TestWeb

# The service's state on both backends: SQLite, then PostgreSQL (when there is one).
pytestmark = pytest.mark.usefixtures("service_backend")

Q = "How long does Example Cloud keep audit logs by default?"


def test_docs_are_served_from_the_package_with_no_external_asset(testweb_env: TestWeb) -> None:
    with serving() as served:
        page = httpx.get(f"{served.api}/docs")
        assert page.status_code == 200 and "swagger-ui" in page.text
        assets = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page.text)
        assert assets and all(a.startswith("/api/docs/static/") for a in assets), assets
        assert not re.search(r"https?://", page.text.replace(served.base, ""))
        assert '"validatorUrl": null' in page.text  # no badge fetched from a validator service
        for asset in assets:
            got = httpx.get(served.base + asset)
            assert got.status_code == 200 and len(got.content) > 1000
        spec = httpx.get(f"{served.api}/openapi.json").json()
        assert spec["paths"]["/api/orgs/{org}/research"]["post"]["responses"]["402"]


SCRAPE = "a-prometheus-scrape-token"


def test_health_readiness_and_metrics(testweb_env: TestWeb) -> None:
    """Probes are public; /metrics on a keyed server needs the metrics token (an org's key is
    not enough: the counters are every organization's)."""
    with serving(ServerConfig(metrics_token=SCRAPE)) as served:
        assert httpx.get(f"{served.base}/healthz").json() == {"ok": True}
        ready = httpx.get(f"{served.base}/readyz")
        assert ready.status_code == 200 and ready.json()["search"] == "searxng"
        key = served.key("acme")
        httpx.post(
            f"{served.api}/orgs/acme/research", json={"query": Q}, headers={"X-API-Key": key}
        )
        httpx.post(
            f"{served.api}/orgs/acme/research", json={"query": Q}, headers={"X-API-Key": key}
        )
        assert httpx.get(f"{served.base}/metrics").status_code == 401
        assert httpx.get(f"{served.base}/metrics", headers={"X-API-Key": key}).status_code == 401
        wrong = {"Authorization": "Bearer not-the-token"}
        assert httpx.get(f"{served.base}/metrics", headers=wrong).status_code == 401
        scrape = {"Authorization": f"Bearer {SCRAPE}"}
        text = httpx.get(f"{served.base}/metrics", headers=scrape).text
        for line in (
            'sleuth_runs_total{depth="quick",outcome="ok"} 1.0',
            'sleuth_cache_hits_total{kind="cache"} 1.0',
            "sleuth_quota_refusals_total 0.0",
            "sleuth_runs_in_flight 0.0",
            'sleuth_run_seconds_count{depth="quick"} 1.0',
            "sleuth_live_runs 0.0",  # what a burst must leave at zero (tests/faults/test_served)
            "sleuth_run_tasks 0.0",
        ):
            assert line in text, line
        tasks = re.search(r"^sleuth_event_loop_tasks (\d+)\.0$", text, re.MULTILINE)
        assert tasks and int(tasks.group(1)) >= 1  # the scrape's own task at least
    with serving(defaults={"search": "none"}) as served:
        not_ready = httpx.get(f"{served.base}/readyz")
        assert not_ready.status_code == 503 and not_ready.json()["code"] == "NOT_READY"


def test_access_log_lines_are_json_without_keys(
    testweb_env: TestWeb, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sleuth.server.access")
    with serving() as served:
        key = served.key("acme")
        httpx.post(f"{served.api}/orgs/acme/research", json={"query": Q},
                   headers={"Authorization": f"Bearer {key}", "X-Request-ID": "req-1"})  # fmt: skip
        httpx.get(f"{served.api}/whoami", headers={"X-API-Key": key + "wrong"})
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name.endswith("access")]
    research = next(line for line in lines if line["request_id"] == "req-1")
    assert research["route"] == "/api/orgs/{org}/research" and research["status"] == 200
    assert research["org"] == "acme" and research["cost_usd"] == 0.0
    assert research["duration_ms"] >= 0 and research["cached"] is False
    assert any(line["status"] == 401 and line["org"] is None for line in lines)
    secret = key.split("_")[-1]
    assert all(secret[:16] not in r.getMessage() for r in caplog.records)


def test_request_models_agree_with_the_settings_table() -> None:
    """The run options the API exposes take their choices, bounds and help from the table."""
    props = ResearchBody.model_json_schema(by_alias=True)["properties"]
    for name in ("max_sources", "cite_min_recall"):
        entry, field = SETTINGS[name], props[name]["anyOf"][0]
        assert (field.get("minimum"), field.get("maximum")) == (entry.low, entry.high), name
        assert props[name]["description"] == entry.help
    authority = props["source_authority"]["anyOf"][0]["enum"]
    assert tuple(authority) == SETTINGS["source_authority"].choices
    assert tuple(props["output"]["anyOf"][0]["enum"]) == SETTINGS["output"].choices
    for name in ("language", "tldr"):
        assert props[name]["description"] == SETTINGS[name].help
    assert props["include_domains"]["description"] == SETTINGS["allow_domain"].help
    assert set(SearchBody.model_fields) >= {"query", "freshness", "include_domains"}
    assert set(ExtractBody.model_json_schema(by_alias=True)["properties"]) == {
        "urls", "prompt", "schema"
    }  # fmt: skip
