"""Sleuth's run events in the web-app dialect: `progress` steps, `message`, `reasoning`, `error`.

The dialect's steps map onto what Sleuth does, in order: `report-plan` is the plan (it ends
when the first round's queries are ready), each round's queries are a `serp-query` step, its
searching and reading a `task-list` holding one `search-task` per query (named by the query,
ending with its result count), and each written draft a `final-report` step. The report's
markdown streams as `message` text while it is written; a deep run's later drafts follow a
`---` rule, and the checked, cited final report (with its source list) closes the text. With
references off, neither the streamed text nor the final report carries `[n]` markers, a source
list or the citation-health section (`unreferenced.py`). Every step that starts ends before
the stream does, unless the run fails, which is one `error` event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...events import (
    Critiqued,
    Done,
    Event,
    Failed,
    Fetched,
    FetchSkipped,
    PassagesKept,
    Planned,
    Searched,
    WriterDelta,
    WriterReasoning,
    WriterStarted,
)
from ...export.markdown import result_markdown
from .unreferenced import StreamUnmarker, report_without_references

Out = tuple[str, dict[str, Any]]  # (event name, data)
RULE = "\n\n---\n\n"  # between a draft and the next text


class WebAppSteps:
    """Translate one run's events; `opening()` first, then `translate` each event."""

    def __init__(self, references: bool = True, warnings: Sequence[str] = ()) -> None:
        self.references = references
        self.warnings = list(warnings)  # the request's parts not applied, in the final summary
        self.unmarker = None if references else StreamUnmarker()
        self.open: dict[tuple[str, str | None], None] = {}  # started, not ended, in order
        self.read = self.skipped = 0  # this round's pages
        self.written = False  # some report text has been sent
        self.round = 0
        self.review: dict[str, Any] = {}

    def opening(self) -> list[Out]:
        return [self._start("report-plan")]

    def translate(self, event: Event) -> list[Out]:
        if isinstance(event, Planned):
            return self._planned(event)
        if isinstance(event, Searched):
            return self._searched(event)
        if isinstance(event, Fetched | FetchSkipped):
            self.read += isinstance(event, Fetched)
            self.skipped += isinstance(event, FetchSkipped)
            return []
        if isinstance(event, PassagesKept):
            return self._tasks_done(event)
        if isinstance(event, WriterStarted):
            return self._writing(event)
        if isinstance(event, WriterDelta):
            self.written = True
            text = event.text if self.unmarker is None else self.unmarker.feed(event.text)
            return [_text("message", text)] if text else []
        if isinstance(event, WriterReasoning):
            return [_text("reasoning", event.text)]
        if isinstance(event, Critiqued):
            self.review = {"complete": event.complete, "missing": list(event.missing)}
            return []
        if isinstance(event, Done):
            return self._done(event)
        if isinstance(event, Failed):
            return [("error", {"message": event.error})]
        return []

    def _planned(self, event: Planned) -> list[Out]:
        out = self._end_if("report-plan", data={"queries": list(event.queries)})
        out += self._end_draft()
        out += self._tasks_done()
        self.round, self.read, self.skipped = event.round, 0, 0
        queries = list(event.queries)
        out += [self._start("serp-query"), self._end("serp-query", None, {"queries": queries})]
        out.append(self._start("task-list"))
        out += [self._start("search-task", q) for q in dict.fromkeys(queries)]
        return out

    def _searched(self, event: Searched) -> list[Out]:
        data = {"results_count": event.results, "backend": event.backend}
        out = [] if ("search-task", event.query) in self.open else [
            self._start("search-task", event.query)
        ]  # fmt: skip
        return [*out, self._end("search-task", event.query, data)]

    def _tasks_done(self, kept: PassagesKept | None = None) -> list[Out]:
        """End the round's search tasks (a query no backend answered found 0) and task list."""
        out = [
            self._end("search-task", name, {"results_count": 0})
            for step, name in list(self.open)
            if step == "search-task"
        ]
        data: dict[str, Any] = {"pages_read": self.read, "skipped": self.skipped}
        if kept is not None:
            data.update(sources=kept.sources, passages=kept.passages)
        return out + self._end_if("task-list", data=data)

    def _writing(self, event: WriterStarted) -> list[Out]:
        out = self._held() + self._tasks_done() + self._end_draft()
        if self.written:
            out.append(_text("message", RULE))
        return [*out, self._start("final-report")]

    def _held(self) -> list[Out]:
        """The end of a draft that was held back as a possible marker (references off)."""
        text = self.unmarker.flush() if self.unmarker is not None else ""
        return [_text("message", text)] if text else []

    def _end_draft(self) -> list[Out]:
        data = {"round": self.round, "draft": True, **self.review}
        self.review = {}
        return self._end_if("final-report", data=data)

    def _done(self, event: Done) -> list[Out]:
        result = event.result
        out = self._held() + self._tasks_done() + self._end_if("report-plan")
        if ("final-report", None) not in self.open:
            out.append(self._start("final-report"))
        if self.written:
            out.append(_text("message", RULE))
        report = result_markdown(result, self.references)
        if not self.references and result.answer:
            report = report_without_references(report)
        out.append(_text("message", report))
        summary: dict[str, Any] = {
            "confidence": result.confidence,
            "sources": len(result.sources),
            "citations": len(result.citations),
            "verification": result.verification.to_json(),
            "session_id": result.session_id,
        }
        if self.warnings:
            summary["warnings"] = self.warnings
        out += self._end_if("final-report", data=summary)
        return out + [self._end(step, name, None) for step, name in reversed(list(self.open))]

    def _start(self, step: str, name: str | None = None) -> Out:
        self.open[(step, name)] = None
        return ("progress", _progress(step, "start", name))

    def _end(self, step: str, name: str | None, data: Any) -> Out:
        self.open.pop((step, name), None)
        return ("progress", _progress(step, "end", name, data))

    def _end_if(self, step: str, data: Any = None) -> list[Out]:
        return [self._end(step, None, data)] if (step, None) in self.open else []


def _progress(step: str, status: str, name: str | None, data: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"step": step, "status": status}
    if name is not None:
        out["name"] = name
    if data is not None:
        out["data"] = data
    return out


def _text(event: str, text: str) -> Out:
    return (event, {"type": "text", "text": text})
