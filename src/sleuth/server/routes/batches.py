"""`/api/orgs/{org}/batches`: many questions at once on the task queue. `POST` enqueues them
(each entry the shape of a `sleuth batch` line, checked the same way), `GET …/{id}` reports
progress, `GET …/{id}/results` streams the records finished so far as JSONL, in line order."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from ...app.batch import BadLine, Item, line_id, parse_object
from ...app.caller import Caller as Principal
from ...limits import DEEP_ROUNDS
from ..auth import ServerState, scoped
from ..errors import ApiError
from ..models import Body
from .common import READ_ERRORS, documented

router = APIRouter()
MAX_QUESTIONS = 10_000
BatchId = Annotated[str, Path(max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Researcher = Annotated[Principal, Depends(scoped("research"))]


class BatchBody(Body):
    questions: list[dict[str, Any]] = Field(
        min_length=1,
        max_length=MAX_QUESTIONS,
        description="Each: {question (or query), id?, depth?, and the run options of "
        "POST /research or their setting names: max_sources, since/freshness, "
        "source_authority, output, language, search_lang, tldr, images, include_domains, "
        "exclude_domains, "
        "cite_min_recall, max_runtime, schema}. A question without id is named by a hash "
        "of its entry.",
    )
    depth: Literal["quick", "deep"] = Field("quick", description="For entries without one.")


class BatchCreated(BaseModel):
    id: str
    total: int
    queued: int
    status_url: str
    results_url: str


class BatchProgress(BaseModel):
    id: str
    created_at: str
    total: int
    done: int = Field(description="Questions answered.")
    failed: int = Field(description="Questions that ended with a recorded failure.")
    queued: int = Field(description="Questions still waiting or being researched.")
    finished: bool
    results_url: str


def _entries(body: BatchBody) -> list[Item]:
    """The entries as items; the first bad one (or a repeated id) is a 400 naming it."""
    items: list[Item] = []
    seen: set[str] = set()
    for index, entry in enumerate(body.questions):
        text = json.dumps(entry, sort_keys=True, ensure_ascii=False).encode("utf-8")
        parsed = parse_object(entry, index + 1, line_id(text))
        field = f"questions[{index}]"
        if isinstance(parsed, BadLine):
            raise ApiError(400, "INVALID_REQUEST", f"{field}: {parsed.message}",
                           extra={"field": field})  # fmt: skip
        if parsed.id in seen:
            raise ApiError(400, "INVALID_REQUEST", f"{field}: the id {parsed.id!r} is repeated",
                           extra={"field": field})  # fmt: skip
        seen.add(parsed.id)
        items.append(parsed)
    return items


@router.post(
    "/api/orgs/{org}/batches",
    status_code=202,
    response_model=BatchCreated,
    responses=documented(400, 401, 403, 404, 413, 429, 500, 503),
    summary="Enqueue many questions for the workers",
    tags=["batches"],
)
async def create_batch(
    org: str, body: BatchBody, caller: Researcher, state: ServerState
) -> JSONResponse:
    """Each question becomes a job on the PostgreSQL task queue, answered by a `sleuth worker`
    (search backend and model are the workers' settings) and metered against the
    organization's quotas when it runs. Every question ends with a result or a recorded
    failure (`error`: kind and message); a worker that dies has its questions taken up by
    another. 503 BATCHES_UNAVAILABLE without a database."""
    await state.service.count_request(caller)
    state.batches.check_available()
    items = _entries(body)
    options = {"deep": DEEP_ROUNDS} if body.depth == "deep" else {}
    batch_id, queued = await state.batches.create(caller.org, items, options)
    base = f"/api/orgs/{caller.org}/batches/{batch_id}"
    created = BatchCreated(
        id=batch_id, total=len(items), queued=queued, status_url=base,
        results_url=base + "/results",
    )  # fmt: skip
    return JSONResponse(created.model_dump(), status_code=202)


@router.get(
    "/api/orgs/{org}/batches/{batch_id}",
    response_model=BatchProgress,
    responses=documented(*READ_ERRORS, 503),
    tags=["batches"],
)
async def batch_progress(
    org: str, batch_id: BatchId, caller: Researcher, state: ServerState
) -> dict[str, Any]:
    """How many questions are answered, failed and still queued."""
    progress = await state.batches.progress(caller.org, batch_id)
    base = f"/api/orgs/{caller.org}/batches/{batch_id}"
    return {**progress.to_json(), "results_url": base + "/results"}


@router.get(
    "/api/orgs/{org}/batches/{batch_id}/results",
    responses={
        200: {"content": {"application/x-ndjson": {}}, "description": "One record a line."},
        **documented(*READ_ERRORS, 503),
    },
    tags=["batches"],
)
async def batch_results(
    org: str, batch_id: BatchId, caller: Researcher, state: ServerState
) -> StreamingResponse:
    """The records of the questions finished so far, one JSON object a line in line order:
    `{"id", "line", "question", "result"}` or `{..., "error": {"kind", "message"}}`."""
    await state.batches.progress(caller.org, batch_id)  # a 404 before the stream starts

    async def lines() -> AsyncIterator[bytes]:
        async for record in state.batches.records(caller.org, batch_id):
            yield json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson")
