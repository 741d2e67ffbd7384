"""Prometheus metrics, one registry per app (two apps in one process, as in the tests, never
share counters): runs by depth and outcome, run duration, cache hits, quota refusals, runs in
flight, responses by route and status, and what is still alive (live runs, run tasks, event-loop
tasks): after a burst these come back to their idle values, or something leaked."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Literal

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE = CONTENT_TYPE_LATEST
RUN_BUCKETS = (0.25, 0.5, 1, 2, 4, 8, 15, 30, 45, 60, 90, 150, float("inf"))


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.runs = Counter(
            "sleuth_runs", "Engine runs started by the API", ["depth", "outcome"], registry=r
        )
        self.run_seconds = Histogram(
            "sleuth_run_seconds", "Engine run duration", ["depth"], buckets=RUN_BUCKETS, registry=r
        )
        self.cache_hits = Counter(
            "sleuth_cache_hits",
            "Research answered without a run of its own: from the cache, or shared in flight",
            ["kind"],
            registry=r,
        )
        self.quota_refusals = Counter(
            "sleuth_quota_refusals", "Requests refused with 402 (quota used up)", registry=r
        )
        self.in_flight = Gauge(
            "sleuth_runs_in_flight",
            "Admitted work going now (runs, stages, model calls)",
            registry=r,
        )
        self.responses = Counter(
            "sleuth_http_responses",
            "Responses by route and status",
            ["route", "status"],
            registry=r,
        )
        self.live_runs = Gauge(
            "sleuth_live_runs", "Runs followed by streams (SSE, MCP) and not finished", registry=r
        )
        self.run_tasks = Gauge(
            "sleuth_run_tasks",
            "Background tasks of runs (shared research, live runs) not done",
            registry=r,
        )
        self.work = Counter(
            "sleuth_work",
            "Admitted work by kind (research, steer: the web UI's stages, graph, ...) and outcome",
            ["kind", "outcome"],
            registry=r,
        )
        self.refusals = Counter(
            "sleuth_refusals", "Work refused by admission, by code", ["code"], registry=r
        )
        self.loop_tasks = Gauge(
            "sleuth_event_loop_tasks",
            "asyncio tasks alive in the event loop serving this scrape, the scrape's own included",
            registry=r,
        )

    # -- the service's observer (app/admission.py `Observer`) ------------------------------------

    def started(self, kind: str) -> None:
        self.in_flight.inc()

    def finished(self, kind: str, depth: str, outcome: str, seconds: float) -> None:
        self.in_flight.dec()
        self.work.labels(kind, outcome).inc()
        if kind == "research":
            self.run_seconds.labels(depth).observe(seconds)
            self.runs.labels(depth, outcome).inc()

    def hit(self, how: Literal["cache", "shared"]) -> None:
        self.cache_hits.labels(how).inc()

    def refused(self, code: str) -> None:
        self.refusals.labels(code).inc()
        if code == "QUOTA_EXCEEDED":
            self.quota_refusals.inc()

    def watch(self, live_runs: Callable[[], int], run_tasks: Callable[[], int]) -> None:
        """Read the live-run and run-task counts at each scrape."""
        self.live_runs.set_function(live_runs)
        self.run_tasks.set_function(run_tasks)

    def exposition(self) -> bytes:
        """The text format, with the event loop's task count taken now (when called on it)."""
        with contextlib.suppress(RuntimeError):  # no running loop here: keep the last count
            self.loop_tasks.set(len(asyncio.all_tasks()))
        return generate_latest(self.registry)
