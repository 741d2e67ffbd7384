"""The research request with `Accept: text/event-stream`, over real HTTP: Sleuth's events with
an id each, a `result` equal to the JSON call's; a client that disconnects cancels its run,
unless another client shares it, which keeps receiving events to the end."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

import sleuth.server.stream as stream_module
from tests.server.harness import Served, serving
from tests.server.pages import HANG_Q, add_hanging_page
from tests.server.sse import Frame, frames
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"


def stream(served: Served, key: str, query: str) -> Iterator[Frame]:
    """The frames of one streamed research request; closing the iterator disconnects."""
    headers = {"X-API-Key": key, "Accept": "text/event-stream"}
    url = f"{served.api}/orgs/acme/research"
    with httpx.stream("POST", url, json={"query": query}, headers=headers, timeout=60) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        yield from frames(r.iter_lines())


def wait_for(check: Callable[[], bool], what: str) -> None:
    for _ in range(1000):
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"never happened: {what}")


def test_events_stream_with_ids_and_end_with_the_json_result(testweb_env: TestWeb) -> None:
    with serving() as served:
        key = served.key("acme")
        got = list(stream(served, key, Q))
        kinds = [f.event for f in got]
        assert kinds[0] == "plan.ready" and kinds[-1] == "result"
        assert {"search.done", "read.start", "fetch.done", "writer.start", "writer.delta",
                "verify.done"} <= set(kinds)  # fmt: skip
        assert [int(f.id or 0) for f in got] == sorted(int(f.id or 0) for f in got)
        assert all(f.json["seq"] == int(f.id or 0) for f in got[:-1])
        assert len({f.json["run_id"] for f in got[:-1]}) == 1
        streamed = got[-1].json
        assert streamed["cached"] is False and "[1]" in streamed["answer"]
        assert "".join(f.json["text"] for f in got if f.event == "writer.delta").strip()

        plain = httpx.post(f"{served.api}/orgs/acme/research", json={"query": Q},
                           headers={"X-API-Key": key}, timeout=60).json()  # fmt: skip
        assert plain["cached"] is True  # the streamed run's result landed in the cache
        assert {**plain, "cached": False} == streamed

        again = list(stream(served, key, Q))  # a cached answer streams as its result alone
        assert [f.event for f in again] == ["result"] and again[0].json == plain


def test_a_client_that_disconnects_cancels_its_run(testweb_env: TestWeb) -> None:
    add_hanging_page(testweb_env)  # the run waits on this page until its read deadline
    with serving() as served:
        key = served.key("acme")
        seen = []
        for frame in stream(served, key, HANG_Q):
            seen.append(frame.event)
            if frame.event == "read.start":
                break  # closes the connection mid-run
        wait_for(lambda: served.metric("sleuth_runs_total", depth="quick", outcome="cancelled")
                 == 1, "the run was cancelled")  # fmt: skip
        wait_for(
            lambda: served.state.service.admission.busy["run"] == 0, "its run slot was released"
        )
        assert served.metric("sleuth_runs_in_flight") == 0
        assert served.metric("sleuth_runs_total", depth="quick", outcome="ok") == 0
        assert not served.store.sessions.list(org="acme")  # it never finished
        assert "result" not in seen


def test_a_shared_run_goes_on_for_the_client_that_stays(testweb_env: TestWeb) -> None:
    add_hanging_page(testweb_env)
    with serving() as served:
        key = served.key("acme")
        leaver = stream(served, key, HANG_Q)
        assert next(leaver).event == "plan.ready"
        stayed: list[Frame] = []
        joined = threading.Event()

        def stay() -> None:
            for frame in stream(served, key, HANG_Q):
                stayed.append(frame)
                joined.set()

        thread = threading.Thread(target=stay, daemon=True)
        thread.start()
        assert joined.wait(30)
        wait_for(lambda: served.metric("sleuth_cache_hits_total", kind="shared") == 1,
                 "the second request joined the run")  # fmt: skip
        leaver.close()  # the first client goes away mid-run
        thread.join(60)
        assert stayed[-1].event == "result" and stayed[-1].json["query"] == HANG_Q
        assert [int(f.id or 0) for f in stayed[:3]] == [1, 2, 3]  # replayed from the start
        assert served.metric("sleuth_runs_total", depth="quick", outcome="ok") == 1
        assert served.metric("sleuth_runs_total", depth="quick", outcome="cancelled") == 0


def test_a_quiet_run_gets_keep_alive_comments(
    testweb_env: TestWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream_module, "KEEPALIVE_S", 0.05)  # 15 s in service
    add_hanging_page(testweb_env)  # nothing happens while the run waits on this page
    with serving() as served:
        headers = {"X-API-Key": served.key("acme"), "Accept": "text/event-stream"}
        url = f"{served.api}/orgs/acme/research"
        with httpx.stream("POST", url, json={"query": HANG_Q}, headers=headers, timeout=60) as r:
            comment = next(line for line in r.iter_lines() if line.startswith(":"))
    assert comment.startswith(": ping")
