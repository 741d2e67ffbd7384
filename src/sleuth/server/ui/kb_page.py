"""The Knowledge base tab: drop files to add them (each one's progress and, for a file that
cannot be read, its reason shown by the page), list and remove documents, and the picker on
the Ask page that searches chosen knowledge bases in a run.

The page talks to these UI routes rather than the `/api/orgs/{org}/kb` ones: the UI acts for
the organization `local` behind its own password, which the API's key check does not know.
Both call the same application use cases (`Sleuth.knowledge`)."""

from __future__ import annotations

import re
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ...app.knowledge import MAX_UPLOAD_BYTES
from ...errors import SleuthError, UsageError
from ..config import OPEN_ORG
from .context import ui_of
from .flow import _error
from .pages import render

router = APIRouter(include_in_schema=False)
KB_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_KB = "default"


def kb_name(value: str) -> str:
    name = value.strip() or DEFAULT_KB
    if not KB_NAME.match(name):
        raise UsageError(
            "a knowledge base name is letters, digits, '.', '_' or '-' (up to 64)", setting="kb"
        )
    return name


@router.get("/kb", response_class=HTMLResponse)
async def kb_page(request: Request, kb: str = DEFAULT_KB, done: str = "") -> HTMLResponse:
    ui = ui_of(request)
    knowledge = ui.state.app.knowledge
    try:
        name = kb_name(kb)
        bases = await knowledge.bases(OPEN_ORG)
        documents = await knowledge.documents(OPEN_ORG, name)
    except SleuthError as exc:
        return _error(request, exc)
    return render(
        request,
        "kb.html",
        kb=name,
        bases=bases,
        documents=documents,
        max_mb=MAX_UPLOAD_BYTES // 1_000_000,
        done=done if done in ("removed", "added") else "",
    )


@router.post("/kb/files", response_model=None)
async def upload(
    request: Request,
    file: Annotated[UploadFile, File()],
    kb: Annotated[str, Form()] = DEFAULT_KB,
) -> Response:
    """One file. The page's script asks for JSON (its progress list shows the outcome); a
    plain form post comes back to the tab."""
    ui = ui_of(request)
    wants_json = "application/json" in request.headers.get("accept", "")
    name = (file.filename or "upload").replace("\\", "/").rsplit("/", 1)[-1] or "upload"
    try:
        base = kb_name(kb)
        data = await file.read(MAX_UPLOAD_BYTES + 1)
        added = await ui.state.app.knowledge.upload(OPEN_ORG, base, name, data)
    except SleuthError as exc:
        if wants_json:
            return JSONResponse({"file": name, "error": str(exc)}, status_code=422)
        return _error(request, exc)
    if wants_json:
        body = {"file": name, "path": added.path, "title": added.title, "kind": added.kind,
                "sections": added.sections}  # fmt: skip
        return JSONResponse(body, status_code=201)
    return RedirectResponse(f"/kb?kb={quote(base)}&done=added", status_code=303)


@router.post("/kb/remove", response_model=None)
async def remove(request: Request) -> Response:
    ui = ui_of(request)
    form = await request.form()
    path, kb = _text(form, "path"), _text(form, "kb")
    try:
        base = kb_name(kb)
        if not path.startswith("upload/"):
            raise UsageError("only uploaded documents can be removed here", setting="path")
        await ui.state.app.knowledge.remove(OPEN_ORG, base, path)
    except SleuthError as exc:
        return _error(request, exc)
    return RedirectResponse(f"/kb?kb={quote(base)}&done=removed", status_code=303)


def _text(form: Any, name: str) -> str:
    value = form.get(name, "")
    return value.strip()[:300] if isinstance(value, str) else ""
