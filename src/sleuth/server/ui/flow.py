"""The research flow: ask → clarifying questions → the editable plan → rounds watched live
(with suggestions for another) → the writing request → the checked report, its editor and
its exports. Each stage is a saved session (`app/steer.py`); `/runs/{id}` opens a run at the
stage it reached, and going back to a stage saves a new session from there."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ...app import revise
from ...app.runs import Run
from ...app.steer import MAX_QUERIES, STAGES, STYLE_PARTS, Steering, writing_request
from ...errors import NotFoundError, SleuthError, UsageError
from ...limits import MAX_QUESTION_CHARS
from ..config import OPEN_ORG
from ..stream import response
from . import jobs
from .answer import answer_html
from .context import UiContext, ui_of
from .jobs import OnEvent
from .pages import render

if TYPE_CHECKING:
    from ...store.records import SessionRecord

T = TypeVar("T")
router = APIRouter(include_in_schema=False)
DEPTHS = {"quick": 6, "deep": 15}  # sources kept
MAX_QUESTION = MAX_QUESTION_CHARS
EXPORTS = {"html": "text/html", "md": "text/markdown", "json": "application/json"}


def _error(request: Request, exc: SleuthError) -> HTMLResponse:
    status = 404 if isinstance(exc, NotFoundError) else exc.http_status
    return render(request, "message.html", status=status, heading="Sleuth", message=str(exc))


async def _state(ui: UiContext, session_id: str) -> Steering:
    record = await ui.record(session_id)
    state = Steering.from_record(record)
    return replace(state, values={**ui.values(), **state.values})


async def _admitted(ui: UiContext, call: Callable[[], Awaitable[T]]) -> T:
    """A step that may call a model (clarifying questions, the plan, a transform), done as
    admitted work of the UI's caller: a run slot, metered, in the metrics."""

    async def work(emit: object, tally: object) -> T:
        return await call()

    return await ui.state.service.perform(ui.caller, "steer", work)


def _field(form: Any, name: str, limit: int = 500) -> str:
    value = form.get(name, "")
    return value.strip()[:limit] if isinstance(value, str) else ""


def _many(form: Any, name: str) -> list[str]:
    return [v for v in form.getlist(name) if isinstance(v, str)][: MAX_QUERIES * 2]


@router.get("/", response_class=HTMLResponse)
async def ask_page(request: Request) -> HTMLResponse:
    ui = ui_of(request)
    picked = request.query_params.getlist("kb")
    return render(request, "ask.html", depths=list(DEPTHS), error=None,
                  bases=await _bases(ui), picked=picked, images=_images_default(ui))  # fmt: skip


def _images_default(ui: UiContext) -> bool:
    """Whether the Ask page's images box starts ticked: the operator's `images` default."""
    given = {**ui.state.app.settings.run_defaults, **ui.values()}
    return bool(given.get("images"))


async def _bases(ui: UiContext) -> list[Any]:
    """The knowledge bases a run may search (the Ask page's picker); none when unreadable."""
    try:
        return await ui.state.app.knowledge.bases(OPEN_ORG)
    except SleuthError:
        return []


@router.post("/runs", response_model=None)
async def start(request: Request) -> Response:
    ui = ui_of(request)
    form = await request.form()
    question = _field(form, "question", MAX_QUESTION + 1)
    depth = _field(form, "depth") or "quick"
    try:
        if not question:
            raise UsageError("type a question first", setting="question")
        if len(question) > MAX_QUESTION:
            raise UsageError(f"the question is over {MAX_QUESTION} characters", setting="question")
        if depth not in DEPTHS:
            raise UsageError(f"unknown depth {depth!r}", setting="depth")
        values = {**ui.values(), "max_sources": DEPTHS[depth], **_kb_search(ui, _many(form, "kb"))}
        values["images"] = form.get("images") == "1"
        state = await _admitted(ui, lambda: ui.state.app.steer(question, **values))
    except SleuthError as exc:
        return render(request, "ask.html", status=exc.http_status, depths=list(DEPTHS),
                      error=str(exc), question=question, bases=await _bases(ui),
                      picked=_many(form, "kb"), images=form.get("images") == "1")  # fmt: skip
    return RedirectResponse(f"/runs/{state.session_id}", status_code=303)


def _kb_search(ui: UiContext, names: list[str]) -> dict[str, str]:
    """Knowledge bases picked for the run are searched with the usual backend."""
    picked = [
        n.strip() for n in names if n.strip() and n.replace("-", "").replace("_", "").isalnum()
    ]
    if not picked:
        return {}
    base = str(ui.values().get("search") or "duckduckgo")
    return {"search": "multi:" + ",".join([*(f"kb:{n}" for n in picked), base])}


@router.get("/runs/{session_id}", response_class=HTMLResponse)
async def run_page(request: Request, session_id: str, rev: int | None = None) -> HTMLResponse:
    ui = ui_of(request)
    try:
        state = await _state(ui, session_id)
    except SleuthError as exc:
        return _error(request, exc)
    return render(request, "run.html", run=state, stages=_stages(state),
                  **await _answer(ui, request, state, rev))  # fmt: skip


def _stages(state: Steering) -> tuple[str, ...]:
    """The stages to show: Clarify only for a run that asked clarifying questions (without a
    model none are asked, and the step would only promise one)."""
    if state.questions or state.stage == "clarify":
        return STAGES
    return tuple(s for s in STAGES if s != "clarify")


async def _answer(
    ui: UiContext, request: Request, state: Steering, rev: int | None
) -> dict[str, Any]:
    if state.stage != "done" or state.result is None or state.session_id is None:
        return {"answer": None, "revisions": []}
    from .i18n import translator
    from .pages import language

    result = state.result
    revisions = await ui.state.app.saved.revisions(state.session_id)
    shown = next(
        (r for r in revisions if r.number == rev),
        revisions[-1] if revisions and rev is None else None,
    )
    text = shown.answer if shown else (result.answer or "")
    unsupported = (
        [u["sentence"] for u in shown.verification.get("unsupported", [])]
        if shown
        else [u.sentence for u in result.verification.unsupported]
    )
    label = translator(language(request))("answer.unsupported")
    numbers = {s.number for s in result.sources}
    quotes = {c.number: c.quote for c in result.citations}
    return {
        "answer": answer_html(text, numbers, unsupported, label, result.images),
        "revision": shown,
        "revisions": revisions,
        "quotes": quotes,
        "unsupported_count": len(unsupported),
        "spent": ui.state.app.steer_spent(state),
    }


@router.post("/runs/{session_id}/plan", response_model=None)
async def plan(request: Request, session_id: str) -> Response:
    ui = ui_of(request)
    form = await request.form()
    try:
        state = await _state(ui, session_id)
        answers = [a[:500] for a in _many(form, "answer")][: len(state.questions)]
        planned = await _admitted(ui, lambda: ui.state.app.steer_plan(state, answers))
    except SleuthError as exc:
        return _error(request, exc)
    return RedirectResponse(f"/runs/{planned.session_id}", status_code=303)


@router.post("/runs/{session_id}/back", response_model=None)
async def back(request: Request, session_id: str) -> Response:
    ui = ui_of(request)
    form = await request.form()
    stage = _field(form, "stage")
    try:
        if stage not in STAGES:
            raise UsageError(f"unknown stage {stage!r}", setting="stage")
        state = await _state(ui, session_id)
        again = ui.state.app.steer_save(ui.state.app.steer_back(state, stage))
    except SleuthError as exc:
        return _error(request, exc)
    return RedirectResponse(f"/runs/{again.session_id}", status_code=303)


@router.post("/runs/{session_id}/explore", response_model=None)
async def explore(request: Request, session_id: str) -> Response:
    """Search and read a round: the (edited) plan first, then the person's suggestions."""
    ui = ui_of(request)
    form = await request.form()
    try:
        state = await _state(ui, session_id)
        queries = [q for q in _many(form, "query") if q.strip()][:MAX_QUERIES]
        if state.stage == "plan" and queries and tuple(queries) != state.plan:
            state = ui.state.app.steer_edit(state, queries)
        suggestions = [s for s in _field(form, "suggestions", 2000).splitlines() if s.strip()]
        suggestions = suggestions[:MAX_QUERIES]
        if state.stage == "explore" and not suggestions:
            raise UsageError("another round needs a suggestion to search", setting="suggestions")
    except SleuthError as exc:
        return _error(request, exc)
    app = ui.state.app

    async def work(on_event: OnEvent) -> Steering:
        return await app.steer_explore(state, suggestions, on_event)

    return await started(request, jobs.start(ui, work))


@router.post("/runs/{session_id}/write", response_model=None)
async def write(request: Request, session_id: str) -> Response:
    """The report, written as asked (tone, length, audience)."""
    ui = ui_of(request)
    form = await request.form()
    style = writing_request({k: _field(form, k, 150) for k in STYLE_PARTS})
    try:
        state = await _state(ui, session_id)
        if not state.sources:
            raise UsageError("write needs at least one explored round", setting="stage")
    except SleuthError as exc:
        return _error(request, exc)
    app = ui.state.app

    async def work(on_event: OnEvent) -> Steering:
        return await app.steer_write(state, style, on_event)

    return await started(request, jobs.start(ui, work))


async def started(request: Request, run: Run) -> Response:
    """The run to watch (a script asked), or, for a plain form post, its outcome."""
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"job": run.id, "events": f"/jobs/{run.id}/events",
                             "cancel": f"/jobs/{run.id}/cancel"})  # fmt: skip
    if run.task is not None:
        await asyncio.gather(asyncio.shield(run.task), return_exceptions=True)
    end = jobs.outcome(run)
    if end["type"] == "stage":
        return RedirectResponse(str(end["url"]), status_code=303)
    message = str(end.get("error") or "the run was cancelled")
    return render(request, "message.html", status=400, heading="Sleuth", message=message)


@router.get("/jobs/{job_id}/events", response_model=None)
async def job_events(request: Request, job_id: str) -> Response:
    ui = ui_of(request)
    run = ui.state.service.run_of(ui.caller, job_id)
    if run is None:
        return JSONResponse({"error": "no such job"}, status_code=404)
    start = request.headers.get("last-event-id", "")
    first = int(start) + 1 if start.isdigit() else 0
    return response(jobs.framed(run, first))


@router.post("/jobs/{job_id}/cancel", response_model=None)
async def cancel(request: Request, job_id: str) -> Response:
    ui = ui_of(request)
    run = ui.state.service.run_of(ui.caller, job_id)
    cancelled = run is not None and not run.done and run.task is not None
    if cancelled and run is not None and run.task is not None:
        run.task.cancel()
    return JSONResponse({"cancelled": cancelled}, status_code=200 if cancelled else 409)


@router.get("/runs/{session_id}/export.{fmt}", response_model=None)
async def export(request: Request, session_id: str, fmt: str) -> Response:
    ui = ui_of(request)
    if fmt not in EXPORTS:
        return JSONResponse({"error": f"unknown format {fmt!r}"}, status_code=404)
    try:
        record = await ui.record(session_id)
        body = ui.state.app.export(record.id, fmt)
    except SleuthError as exc:
        return _error(request, exc)
    name = f"sleuth-{record.id}.{fmt}"
    return Response(body, media_type=f"{EXPORTS[fmt]}; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})  # fmt: skip


# -- editing ---------------------------------------------------------------------------------


@router.get("/runs/{session_id}/edit", response_class=HTMLResponse)
async def edit_page(request: Request, session_id: str) -> HTMLResponse:
    ui = ui_of(request)
    try:
        state = await _state(ui, session_id)
        if state.stage != "done" or state.result is None:
            raise UsageError("only a finished report can be edited", setting="stage")
        revisions = await ui.state.app.saved.revisions(state.session_id or "")
    except SleuthError as exc:
        return _error(request, exc)
    text = revisions[-1].answer if revisions else (state.result.answer or "")
    return render(request, "edit.html", run=state, text=text, revisions=revisions,
                  transforms=list(revise.TRANSFORMS))  # fmt: skip


@router.post("/runs/{session_id}/preview", response_model=None)
async def preview(request: Request, session_id: str) -> Response:
    """The editor's live preview: the text rendered and checked against the run's sources."""
    ui = ui_of(request)
    form = await request.form()
    try:
        record = await ui.record(session_id)
        checked = ui.state.app.check_edit(
            record.id, _field(form, "text", revise.MAX_TEXT + 1),
            _field(form, "basis", revise.MAX_TEXT + 1),
        )  # fmt: skip
    except SleuthError as exc:
        return JSONResponse({"error": str(exc)}, status_code=exc.http_status)
    return JSONResponse(_checked_json(record, checked, request))


def _checked_json(
    record: SessionRecord, checked: revise.Checked, request: Request
) -> dict[str, Any]:
    from .i18n import translator
    from .pages import language

    unsupported = [u.sentence for u in checked.verification.unsupported]
    label = translator(language(request))("answer.unsupported")
    numbers = {s.number for s in record.result.sources}
    html = answer_html(checked.text, numbers, unsupported, label, record.result.images)
    v = checked.verification
    return {"text": checked.text, "html": html, "checked": v.checked, "supported": v.supported,
            "unsupported": len(unsupported)}  # fmt: skip


@router.post("/runs/{session_id}/revisions", response_model=None)
async def save_revision(request: Request, session_id: str) -> Response:
    ui = ui_of(request)
    form = await request.form()
    note = _field(form, "note", 200) or "edited"
    try:
        record = await ui.record(session_id)
        number = ui.state.app.save_revision(
            record.id, _field(form, "text", revise.MAX_TEXT + 1), note,
            _field(form, "basis", revise.MAX_TEXT + 1),
        )  # fmt: skip
    except SleuthError as exc:
        return _error(request, exc)
    return RedirectResponse(f"/runs/{record.id}?rev={number}", status_code=303)


@router.post("/runs/{session_id}/transform", response_model=None)
async def transform(request: Request, session_id: str) -> Response:
    ui = ui_of(request)
    form = await request.form()
    try:
        record = await ui.record(session_id)
        text, kind = _field(form, "text", revise.MAX_TEXT + 1), _field(form, "kind", 20)
        language, values = _field(form, "language", 40), ui.values()
        checked = await _admitted(ui, lambda: ui.state.app.transform_edit(
            record.id, text, kind, language, **values))  # fmt: skip
    except SleuthError as exc:
        return JSONResponse({"error": str(exc)}, status_code=exc.http_status)
    return JSONResponse(_checked_json(record, checked, request))
