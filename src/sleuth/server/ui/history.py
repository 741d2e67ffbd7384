"""The History page: past runs listed newest first with full-text search and a tag filter;
each run opened, tagged, deleted, re-run (a fresh run, then the diff) or continued (another
round of research from its sources); and the diff of any two runs.

Runs that grew from one another (a stage of a steered run, a re-run, a continuation) are shown
as one thread under its newest run, the earlier ones folded beneath it. The runs of a watched
question (`sleuth watch`) are marked, and those that found the answer changed say so. The UI
shows the runs of the organization `local` and local CLI runs, like every other UI page."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ...app.diff import Version, diff_sessions
from ...app.steer import Steering
from ...errors import SleuthError, UsageError
from ...limits import DEEP_ROUNDS
from ...store.records import SessionSummary, normalize_tags
from ..config import OPEN_ORG
from . import jobs
from .context import UiContext, ui_of
from .flow import _error, started
from .jobs import OnEvent
from .pages import render

if TYPE_CHECKING:
    from ...store.watches import WatchRun

router = APIRouter(include_in_schema=False)
MAX_SHOWN = 100  # threads on one page
MAX_QUERY = 200


@dataclass(frozen=True, slots=True)
class Run:
    """One run as History lists it; for a steered run, the stages saved on the way to it
    (clarify, plan, each round), oldest first, which are not runs of their own."""

    session: SessionSummary
    stages: tuple[SessionSummary, ...] = ()


@dataclass(frozen=True, slots=True)
class Thread:
    """A run and the earlier runs it grew from (a re-run, a continuation), newest first."""

    head: Run
    earlier: tuple[Run, ...]


@dataclass(frozen=True, slots=True)
class Family:
    """Every session by id with its children: how runs and stages hang together."""

    by_id: dict[str, SessionSummary]
    children: dict[str, list[SessionSummary]]

    @classmethod
    def of(cls, everything: Sequence[SessionSummary]) -> Family:
        by_id = {s.id: s for s in everything}
        children: dict[str, list[SessionSummary]] = {}
        for s in everything:
            if s.parent_id in by_id:
                children.setdefault(s.parent_id, []).append(s)
        return cls(by_id, children)

    def inner(self, s: SessionSummary) -> bool:
        """A stage another stage of the same steered run followed: part of a run, not one."""
        return s.stage is not None and any(c.stage for c in self.children.get(s.id, ()))

    def run_of(self, s: SessionSummary) -> SessionSummary:
        """The run an inner stage led to (its newest later stage that is not inner)."""
        seen = {s.id}
        while self.inner(s):
            s = max((c for c in self.children[s.id] if c.stage), key=lambda c: (c.created_at, c.id))
            if s.id in seen:
                break
            seen.add(s.id)
        return s

    def stages_of(self, s: SessionSummary) -> tuple[SessionSummary, ...]:
        out: list[SessionSummary] = []
        up = self.by_id.get(s.parent_id or "") if s.stage else None
        while up is not None and self.inner(up) and up not in out:
            out.append(up)
            up = self.by_id.get(up.parent_id or "")
        return tuple(reversed(out))

    def runs(self, found: Sequence[SessionSummary]) -> list[SessionSummary]:
        """The runs `found` names (a stage names its run), each once, newest first."""
        picked = {r.id: r for r in (self.run_of(s) for s in found)}
        return sorted(picked.values(), key=lambda r: (r.created_at, r.id), reverse=True)


def threads(found: Sequence[SessionSummary], everything: Sequence[SessionSummary]) -> list[Thread]:
    """The runs of `found` (newest first) grouped by the first run of their chain of parents;
    within a thread the newest first, a run before its parent when both are of the same
    second. The stages of a steered run are inside it, not runs of the thread."""
    family = Family.of(everything)
    parent = {s.id: s.parent_id for s in everything}

    def chain(session_id: str) -> list[str]:
        seen = [session_id]
        while (up := parent.get(seen[-1])) and up in parent and up not in seen:
            seen.append(up)
        return seen

    groups: dict[str, list[tuple[int, SessionSummary]]] = {}
    for run in family.runs(found):
        ancestors = chain(run.id)
        groups.setdefault(ancestors[-1], []).append((len(ancestors), run))
    out = []
    for runs in groups.values():
        ordered = [s for _, s in sorted(runs, key=lambda r: (r[1].created_at, r[0]), reverse=True)]
        listed = [Run(s, family.stages_of(s)) for s in ordered]
        out.append(Thread(listed[0], tuple(listed[1:])))
    return out


def _mine(sessions: Sequence[SessionSummary]) -> list[SessionSummary]:
    return [s for s in sessions if s.org in (None, OPEN_ORG)]


@router.get("/history", response_class=HTMLResponse)
async def history(request: Request, q: str = "", tag: str = "", done: str = "") -> HTMLResponse:
    ui = ui_of(request)
    q, tag = q.strip()[:MAX_QUERY], tag.strip()[:MAX_QUERY]
    store = ui.state.app.sessions
    try:
        everything = _mine(await asyncio.to_thread(store.list))
        found = everything
        if q or tag:
            found = _mine(await asyncio.to_thread(lambda: store.list(tag=tag or None, text=q)))
    except SleuthError as exc:
        return _error(request, exc)
    tags = Counter(t for s in everything for t in s.tags)
    shown = threads(found, everything)
    family = Family.of(everything)
    watched = await asyncio.to_thread(_watched, ui)
    return render(
        request,
        "history.html",
        threads=shown[:MAX_SHOWN],
        more=max(0, len(shown) - MAX_SHOWN),
        matched=len(family.runs(found)),
        total=len(family.runs(everything)),
        q=q,
        tag=tag,
        tags=sorted(tags.items()),
        done=done if done in DONE else "",
        watched=watched,
    )


def _watched(ui: UiContext) -> dict[str, WatchRun]:
    """The runs of watched questions by session id (marked on the page, a change apart); none
    when the watch store cannot be read — the history does not depend on it."""
    app = ui.state.app
    try:
        return app.watches.by_session()
    except SleuthError:
        return {}


DONE = ("deleted", "tagged")


def _back(request: Request, done: str) -> str:
    """Back to the list the person came from (its search kept), saying what happened."""
    form_q = request.query_params.get("q", "")
    form_tag = request.query_params.get("tag", "")
    from urllib.parse import urlencode

    query = {k: v for k, v in (("q", form_q), ("tag", form_tag), ("done", done)) if v}
    return "/history?" + urlencode(query)


@router.post("/history/{session_id}/tags", response_model=None)
async def add_tags(request: Request, session_id: str) -> Response:
    ui = ui_of(request)
    form = await request.form()
    raw = form.get("tags", "")
    try:
        tags = normalize_tags(raw[:200] if isinstance(raw, str) else "")
        if not tags:
            raise UsageError("type a tag to add", setting="tags")
        record = await ui.record(session_id)
        await ui.state.app.saved.tag(record.id, tags)
    except SleuthError as exc:
        return _error(request, exc)
    return RedirectResponse(_back(request, "tagged"), status_code=303)


@router.post("/history/{session_id}/untag", response_model=None)
async def remove_tag(request: Request, session_id: str) -> Response:
    ui = ui_of(request)
    form = await request.form()
    tag = form.get("tag", "")
    try:
        record = await ui.record(session_id)
        await ui.state.app.saved.untag(record.id, tag if isinstance(tag, str) else "")
    except SleuthError as exc:
        return _error(request, exc)
    return RedirectResponse(_back(request, "tagged"), status_code=303)


@router.post("/history/{session_id}/delete", response_model=None)
async def delete(request: Request, session_id: str) -> Response:
    ui = ui_of(request)
    try:
        record = await ui.record(session_id)
        await ui.state.app.saved.rm([record.id])
    except SleuthError as exc:
        return _error(request, exc)
    return RedirectResponse(_back(request, "deleted"), status_code=303)


@router.get("/history/diff", response_class=HTMLResponse)
async def diff(request: Request) -> HTMLResponse:
    """Two runs side by side: what changed in the metadata, the sources and the answer. The
    older one is A, whichever order they were picked in."""
    ui = ui_of(request)
    picked = list(dict.fromkeys(request.query_params.getlist("pick")))
    try:
        if len(picked) != 2:
            raise UsageError("pick exactly two runs to compare", setting="pick")
        both = [await ui.record(p) for p in picked]
        a, b = sorted(both, key=lambda r: (r.created_at, r.id))
        changes = diff_sessions(a, b, await _kept(ui, a.id), await _kept(ui, b.id))
    except SleuthError as exc:
        return _error(request, exc)
    return render(request, "diff.html", a=a, b=b, diff=changes, lines=_lines(changes.answer_diff))


async def _kept(ui: UiContext, session_id: str) -> Version | None:
    """A run's latest saved edit, the text the person kept (None: never edited)."""
    revisions = await ui.state.app.saved.revisions(session_id)
    if not revisions:
        return None
    last = revisions[-1]
    return Version(last.answer, f"revision {last.number}")


def _lines(diff: Sequence[str]) -> list[tuple[str, str]]:
    """(kind, text) for each answer-diff line: added, removed, same or skipped."""
    kinds = {"+": "added", "-": "removed"}
    return [
        ("skipped", "…") if line == "…" else (kinds.get(line[:1], "same"), line[2:])
        for line in diff
    ]


@router.post("/history/{session_id}/rerun", response_model=None)
async def rerun(request: Request, session_id: str) -> Response:
    """The question again from scratch, read afresh and saved; the page watches it live."""
    ui = ui_of(request)
    try:
        record = await ui.record(session_id)
    except SleuthError as exc:
        return _error(request, exc)
    app, values = ui.state.app, _run_values(ui, record.options)

    async def work(on_event: OnEvent) -> Steering:
        result, _ = await app.rerun(record.id, on_event=on_event, **values)
        if result.session_id is None:
            raise UsageError("the re-run was not saved", setting="session")
        return Steering.from_record(app.sessions.get(result.session_id))

    return await started(request, jobs.start(ui, work))


def _run_values(ui: UiContext, options: dict[str, Any]) -> dict[str, Any]:
    """The UI's settings, and the past run's depth when it was a deep one."""
    values = ui.values()
    if options.get("depth") == "deep":
        values["deep"] = DEEP_ROUNDS
    return values


@router.post("/history/{session_id}/continue", response_model=None)
async def continue_run(request: Request, session_id: str) -> Response:
    """Research on from a past run: a steered run at the explore stage holding its sources,
    where the person adds suggestions for another round, then asks for the report."""
    ui = ui_of(request)
    try:
        record = await ui.record(session_id)
        if not record.result.sources:
            raise UsageError("this run has no sources to continue from", setting="session")
        state = Steering.from_record(record)
        state = Steering(
            question=state.question,
            stage="explore",
            questions=state.questions,
            answers=state.answers,
            plan=state.plan,
            rounds=state.rounds or ((state.question,),),
            values={**ui.values(), **state.values},
            result=record.result,
            session_id=record.id,
        )
        again = await asyncio.to_thread(ui.state.app.steer_save, state)
    except SleuthError as exc:
        return _error(request, exc)
    return RedirectResponse(f"/runs/{again.session_id}", status_code=303)
