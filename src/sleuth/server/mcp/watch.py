"""What an MCP client sees of a run while it goes: progress messages (searching, reading n/m,
writing, checking) and, should the run fail, the diagnostics of what it searched, what it did
not use and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...events import (
    Critiqued,
    Event,
    Fetched,
    FetchSkipped,
    NearDuplicate,
    Notice,
    PassagesKept,
    Planned,
    ReadStarted,
    SearchDegraded,
    Searched,
    Verified,
    WriterStarted,
)
from ...text.display import counted


@dataclass
class Watch:
    """Feed it every event: `see` returns a progress message when there is news."""

    searched: list[dict[str, Any]] = field(default_factory=list)
    search_failures: list[dict[str, str]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    duplicates: list[dict[str, str]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    pages: int = 0  # pages the current round reads
    read: int = 0  # of which done (read or not)

    def see(self, event: Event) -> str | None:
        self._record(event)
        if isinstance(event, Planned):
            queries = "; ".join(event.queries)
            return f"searching (round {event.round}): {queries}"[:300]
        if isinstance(event, ReadStarted):
            self.pages, self.read = event.pages, 0
            return f"reading 0/{event.pages} pages"
        if isinstance(event, Fetched | FetchSkipped) and self.read < self.pages:
            self.read += 1
            return f"reading {self.read}/{self.pages} pages"
        return _message(event)

    def _record(self, event: Event) -> None:
        if isinstance(event, Searched):
            self.searched.append(
                {"query": event.query, "backend": event.backend, "results": event.results}
            )
        elif isinstance(event, SearchDegraded):
            self.search_failures.append({"backend": event.backend, "error": event.error})
        elif isinstance(event, FetchSkipped):
            self.skipped.append({"url": event.url, "cause": event.cause, "reason": event.reason})
        elif isinstance(event, NearDuplicate):
            self.duplicates.append({"url": event.url, "duplicate_of": event.duplicate_of})
        elif isinstance(event, Notice):
            self.notices.append(event.message)

    def diagnostics(self) -> dict[str, Any]:
        return {
            "searched": self.searched,
            "search_failures": self.search_failures,
            "skipped": self.skipped,
            "duplicates": self.duplicates,
            "notices": self.notices,
        }

    def report(self, headline: str) -> str:
        """The diagnostics as text for the model that called the tool."""
        lines = [headline]
        if self.searched:
            lines += ["", "Searched:"]
            lines += [f'- "{s["query"]}" ({s["backend"]}): {s["results"]} results'
                      for s in self.searched]  # fmt: skip
        else:
            lines += ["", "Nothing was searched."]
        sections = (
            ("Search failures:", [f"- {f['backend']}: {f['error']}" for f in self.search_failures]),
            ("Not used:", [f"- {s['url']}: {s['reason']} ({s['cause']})" for s in self.skipped]),
            ("Near-duplicates dropped:", [f"- {d['url']}" for d in self.duplicates]),
            ("Notes:", [f"- {n}" for n in self.notices]),
        )
        for title, items in sections:
            if items:
                lines += ["", title, *items[:30]]
        return "\n".join(lines)


def _message(event: Event) -> str | None:
    if isinstance(event, PassagesKept):
        return f"kept {counted(event.passages, 'passage')} from {counted(event.sources, 'source')}"
    if isinstance(event, WriterStarted):
        return f"writing from {counted(len(event.sources), 'source')} (round {event.round})"
    if isinstance(event, Verified):
        return f"checking citations: {event.supported}/{event.checked} supported"
    if isinstance(event, Critiqued):
        if event.complete:
            return "critic: the answer is complete"
        return f"critic: missing {'; '.join(event.missing)[:200]}; searching more"
    return None
