"""One service core: an identical JSON request and SSE request in flight share one run, on one
replica and across two replicas on one PostgreSQL database (the stream on the replica that does
not own the run follows the owner's event log through the database); and the web UI's runs are
admitted like any other (a run slot, metered, in `/metrics`)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import threading
from contextlib import ExitStack
from typing import Any

import httpx

from sleuth.server.config import ServerConfig
from tests.server.harness import Served, serving
from tests.server.sse import frames
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
SLOW_S = 1.5  # the run's pages take this long, so the second request finds it in flight


def _json(served: Served, key: str, out: dict[str, Any]) -> None:
    response = httpx.post(f"{served.api}/orgs/acme/research", json={"query": Q},
                          headers={"X-API-Key": key}, timeout=60)  # fmt: skip
    out["json"] = response.json()


def _stream(served: Served, key: str) -> list[Any]:
    headers = {"X-API-Key": key, "Accept": "text/event-stream"}
    with httpx.stream("POST", f"{served.api}/orgs/acme/research", json={"query": Q},
                      headers=headers, timeout=60) as r:  # fmt: skip
        return list(frames(r.iter_lines()))


def _both(first: Served, second: Served, key: str) -> tuple[dict[str, Any], list[Any]]:
    """A JSON request to `first`, then, while its run goes, an SSE request to `second`."""
    out: dict[str, Any] = {}
    thread = threading.Thread(target=_json, args=(first, key, out))
    thread.start()
    first_searched = threading.Event()
    while not first_searched.wait(0.05):
        if first.metric("sleuth_runs_in_flight") >= 1:
            first_searched.set()
    streamed = _stream(second, key)
    thread.join(timeout=60)
    return out["json"], streamed


def _slow(testweb: TestWeb) -> None:
    for host in ("docs.examplecloud.com", "blog.examplecloud.com", "www.examplecloud.com"):
        testweb.add_fault(host, delay_s=SLOW_S)


@pytest.mark.usefixtures("service_backend")
def test_a_json_and_a_stream_request_share_one_run(testweb_env: TestWeb) -> None:
    _slow(testweb_env)
    with serving() as served:
        key = served.key("acme")
        answer, streamed = _both(served, served, key)
        result = streamed[-1]
        assert result.event == "result", [f.event for f in streamed]
        assert result.json["session_id"] == answer["session_id"] and answer["cached"] is False
        assert "plan.ready" in [f.event for f in streamed]  # the stream saw the whole run
        assert served.metric("sleuth_runs_total", depth="quick", outcome="ok") == 1
        assert served.metric("sleuth_cache_hits_total", kind="shared") == 1
        assert len(testweb_env.searches) == 1


def test_two_replicas_share_one_run_between_json_and_stream(
    testweb_env: TestWeb, postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    _slow(testweb_env)
    with ExitStack() as stack:
        a, b = (stack.enter_context(serving()) for _ in range(2))
        key = a.key("acme")
        answer, streamed = _both(a, b, key)
        kinds = [f.event for f in streamed]
        assert kinds[-1] == "result" and "plan.ready" in kinds and "fetch.done" in kinds, kinds
        assert streamed[-1].json["session_id"] == answer["session_id"]
        ran = [s.metric("sleuth_runs_total", depth="quick", outcome="ok") for s in (a, b)]
        assert ran == [1, 0] and b.metric("sleuth_cache_hits_total", kind="shared") == 1
        assert len(testweb_env.searches) == 1


def test_web_ui_runs_take_a_run_slot_are_metered_and_show_in_metrics(
    testweb_env: TestWeb,
) -> None:
    config = ServerConfig(open_access=True, run_slots=1)
    with serving(config) as served, httpx.Client(base_url=served.base, timeout=60) as ui:
        page = ui.post("/runs", data={"question": Q, "depth": "quick"}, follow_redirects=True)
        run = page.url.path.rsplit("/", 1)[-1]
        _slow(testweb_env)
        started = ui.post(f"/runs/{run}/explore", data={"query": Q},
                          headers={"Accept": "application/json"}).json()  # fmt: skip
        while served.state.service.admission.busy["run"] == 0:
            threading.Event().wait(0.02)
        busy = httpx.post(f"{served.api}/orgs/local/research", json={"query": "another one"})
        assert busy.status_code == 503 and busy.json()["code"] == "SERVER_BUSY"
        assert int(busy.headers["retry-after"]) >= 1
        with ui.stream("GET", started["events"]) as events:
            last = list(frames(events.iter_lines()))[-1]
        assert last.event == "stage", last
        metrics = ui.get("/metrics").text
        assert 'sleuth_work_total{kind="steer",outcome="ok"}' in metrics
        usage = httpx.get(f"{served.api}/orgs/local/usage").json()["meters"]
        assert usage["searches"]["used"] >= 1 and usage["pages_read"]["used"] >= 1
