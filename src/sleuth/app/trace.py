"""A run's round trace, read off its event stream: what each round searched, read and kept,
and what the critic said. Saved with the session so a past run can be inspected later."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..events import (
    Critiqued,
    Event,
    Fetched,
    FetchSkipped,
    NearDuplicate,
    PassagesKept,
    Planned,
    SearchDegraded,
    Searched,
)
from ..types import Result


@dataclass(slots=True)
class Trace:
    plan: tuple[str, ...] = ()  # the sub-queries planned besides the question itself
    rounds: list[dict[str, Any]] = field(default_factory=list)

    def attach(self, result: Result) -> Result:
        """`result` carrying this trace, so `--json` shows what `show --json` does."""
        return replace(result, plan=self.plan, rounds=tuple(self.rounds))

    def __call__(self, event: Event) -> None:
        if isinstance(event, Planned):
            if event.round == 1 and not self.rounds:
                self.plan = event.queries[1:]
            self.rounds.append(
                {
                    "round": event.round,
                    "queries": list(event.queries),
                    "searches": [],
                    "read": 0,
                    "skipped": 0,
                    "duplicates": 0,
                    **({"reason": event.reason} if event.reason else {}),
                }
            )
            return
        if not self.rounds:
            return
        current = self.rounds[-1]
        if isinstance(event, Searched):
            current["searches"].append(
                {"backend": event.backend, "query": event.query, "results": event.results}
            )
        elif isinstance(event, SearchDegraded):
            current["searches"].append({"backend": event.backend, "error": event.error})
        elif isinstance(event, Fetched):
            current["read"] += 1
        elif isinstance(event, FetchSkipped):
            current["skipped"] += 1
        elif isinstance(event, NearDuplicate):
            current["duplicates"] += 1
        elif isinstance(event, PassagesKept):
            current["sources"] = event.sources
        elif isinstance(event, Critiqued):
            current["critic"] = {
                "complete": event.complete,
                "missing": list(event.missing),
                "queries": list(event.queries),
            }
