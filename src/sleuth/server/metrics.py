"""Prometheus metrics, one registry per app (two apps in one process, as in the tests, never
share counters): runs by depth and outcome, run duration, cache hits, quota refusals, runs in
flight, and responses by route and status."""

from __future__ import annotations

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
        self.in_flight = Gauge("sleuth_runs_in_flight", "Engine runs going now", registry=r)
        self.responses = Counter(
            "sleuth_http_responses",
            "Responses by route and status",
            ["route", "status"],
            registry=r,
        )

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
