"""An organization's knowledge bases: upload files (multipart; the type is decided by the
file's content), list them, remove them, and list the knowledge bases. A research request's
`kb` field searches them; each organization sees only its own."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Path, Query, UploadFile
from pydantic import BaseModel, Field

from ...app.caller import Caller as Principal
from ...app.knowledge import MAX_UPLOAD_BYTES
from ...errors import UsageError
from ..auth import ServerState, scoped
from ..errors import ApiError
from .common import READ_ERRORS, documented

router = APIRouter(tags=["knowledge base"])
KB_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
KbName = Annotated[str, Query(pattern=KB_NAME, description="The knowledge base.")]
FileField = Annotated[
    UploadFile, File(description="PDF, DOCX, PPTX, XLSX, CSV, HTML, Markdown, text or EPUB.")
]
DocPath = Annotated[str, Path(max_length=300, description="The document, e.g. upload/notes.pdf.")]
Researcher = Annotated[Principal, Depends(scoped("research"))]


class KbDocument(BaseModel):
    path: str = Field(description="How the document is known and cited (upload/NAME).")
    title: str
    kind: str = Field(description="The type its content says it is (pdf, docx, csv, ...).")
    sections: int = Field(description="Pages, slides, row groups or headed sections.")


class KbDocuments(BaseModel):
    kb: str
    documents: list[KbDocument]


class KbInfoOut(BaseModel):
    name: str
    documents: int
    sections: int
    updated_at: str | None


@router.post(
    "/api/orgs/{org}/kb/files",
    response_model=KbDocument,
    status_code=201,
    responses=documented(400, 401, 403, 404, 413, 422, 429, 500),
    summary="Add a file to a knowledge base",
)
async def upload(
    org: str,
    caller: Researcher,
    state: ServerState,
    file: FileField,
    kb: Annotated[str, Form(pattern=KB_NAME)] = "default",
) -> dict[str, Any]:
    """Index one file (at most 20 MB); an unreadable, encrypted or mislabelled file is a 422
    UNREADABLE_FILE naming the reason. Re-uploading unchanged content does no work."""
    await state.service.count_request(caller)
    data = await file.read(MAX_UPLOAD_BYTES + 1)
    if len(data) > MAX_UPLOAD_BYTES:
        too_big = f"the file is larger than {MAX_UPLOAD_BYTES:,} bytes"
        raise ApiError(413, "PAYLOAD_TOO_LARGE", too_big)
    name = (file.filename or "upload").replace("\\", "/").rsplit("/", 1)[-1] or "upload"
    try:
        added = await state.app.knowledge.upload(caller.org, kb, name, data)
    except UsageError as exc:  # a well-formed request carrying a file that cannot be read
        raise ApiError(422, "UNREADABLE_FILE", str(exc)) from None
    return _doc(added)


@router.get(
    "/api/orgs/{org}/kb/files",
    response_model=KbDocuments,
    responses=documented(*READ_ERRORS),
    summary="The documents of a knowledge base",
)
async def documents(
    org: str, caller: Researcher, state: ServerState, kb: KbName = "default"
) -> dict[str, Any]:
    found = await state.app.knowledge.documents(caller.org, kb)
    return {"kb": kb, "documents": [_doc(d) for d in found]}


def _doc(d: Any) -> dict[str, Any]:
    return {"path": d.path, "title": d.title, "kind": d.kind, "sections": d.sections}


@router.delete(
    "/api/orgs/{org}/kb/files/{path:path}",
    status_code=204,
    responses=documented(*READ_ERRORS),
    summary="Remove a document from a knowledge base",
)
async def remove(
    org: str, caller: Researcher, state: ServerState, path: DocPath, kb: KbName = "default"
) -> None:
    if not path.startswith("upload/"):
        raise ApiError(404, "NOT_FOUND", "no such document")
    try:
        await state.app.knowledge.remove(caller.org, kb, path)
    except UsageError:
        raise ApiError(404, "NOT_FOUND", "no such document") from None


@router.get(
    "/api/orgs/{org}/kb",
    response_model=list[KbInfoOut],
    responses=documented(*READ_ERRORS),
    summary="The organization's knowledge bases",
)
async def bases(org: str, caller: Researcher, state: ServerState) -> list[dict[str, Any]]:
    keys = ("name", "documents", "sections", "updated_at")
    return [{k: getattr(b, k) for k in keys} for b in await state.app.knowledge.bases(caller.org)]
