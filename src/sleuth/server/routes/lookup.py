"""`POST /api/orgs/{org}/search` (ranked results; `advanced` reads the top ones and attaches
their passages; `include_answer` adds a short cited answer from them) and
`POST /api/orgs/{org}/extract` (read the pages given and fill a schema from them)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from ...app.admission import Spent, Tally
from ...app.caller import Caller as Principal
from ...app.lookup import ReadHit, trace_values
from ...types import Result
from ..auth import ServerState, scoped
from ..idempotency import idempotent
from ..models import ExtractBody, ExtractResponse, SearchBody, SearchResponse
from .common import POST_ERRORS, documented
from .research import IdempotencyKey

router = APIRouter()
READ_TOP = 5  # advanced search reads this many of the top results


@router.post(
    "/api/orgs/{org}/search",
    response_model=SearchResponse,
    responses=documented(*POST_ERRORS),
    summary="Ranked web results, optionally read, with passages and a short answer",
    tags=["search"],
)
async def search(
    org: str,
    body: SearchBody,
    request: Request,
    caller: Annotated[Principal, Depends(scoped("search"))],
    state: ServerState,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    """One search (metered as one search, plus the pages an advanced search reads). The same
    plain search within the result cache's time is answered from memory (`cached: true`)."""
    service = state.service
    values = body.filter_values()
    reads = body.search_depth == "advanced" or body.include_answer

    async def work(tally: Tally) -> dict[str, Any]:
        tally.searches = 1
        merged = service.values(caller, values)
        if body.search_depth == "advanced":
            read = _within(READ_TOP, tally.allowance.pages_read)
            hits = await state.app.search_read(body.query, limit=body.limit, read=read, **merged)
        else:
            hits = [
                ReadHit(r) for r in await state.app.search(body.query, limit=body.limit, **merged)
            ]
        tally.pages = sum(1 for h in hits if h.relevance is not None)
        out = _found(body.query, hits, tally.searches, tally.pages)
        if body.include_answer and hits:
            top = [h.result for h in hits[:READ_TOP]]
            answer = await state.app.answer_from(body.query, top, **merged)
            out["answer"] = answer.answer
            out["citations"] = answer.to_json()["citations"]
        return out

    async def run() -> JSONResponse:
        if reads:
            return JSONResponse(await service.lookup(caller, "run", work, Spent(1, READ_TOP)))
        found = await service.search(
            caller, body.query, values, limit=body.limit, no_cache=body.no_cache
        )
        hits = [ReadHit(r) for r in found.results]
        out = _found(body.query, hits, 0 if found.cached else 1, 0)
        return JSONResponse({**out, "cached": found.cached})

    return await idempotent(request, state, caller.org, body, run)


def _found(query: str, hits: list[ReadHit], searches: int, pages: int) -> dict[str, Any]:
    return {
        "query": query,
        "results": [_hit(h, i) for i, h in enumerate(hits)],
        "usage": {"searches": searches, "pages_read": pages},
    }


def _within(wanted: int, allowed: int | None) -> int:
    """How many pages to read: what was asked, or less when the organization's page quota
    leaves less (its reservation says how much)."""
    return wanted if allowed is None else min(wanted, allowed)


def _hit(hit: ReadHit, index: int) -> dict[str, Any]:
    r = hit.result
    out: dict[str, Any] = {
        "title": r.title,
        "url": r.url,
        "snippet": r.snippet,
        "score": round(1.0 / (index + 1), 4),
    }
    if r.published:
        out["published"] = r.published
    if hit.relevance is not None:
        out["passages"] = [
            {"text": p.text, "score": round(p.score, 4), "start": p.start} for p in hit.passages
        ]
        out["relevance_score"] = round(hit.relevance, 4)
    elif hit.skipped:
        out["skipped"] = hit.skipped
    return out


@router.post(
    "/api/orgs/{org}/extract",
    response_model=ExtractResponse,
    responses=documented(*POST_ERRORS),
    summary="Fill a schema (or answer a prompt) from pages you name",
    tags=["extract"],
)
async def extract(
    org: str,
    body: ExtractBody,
    request: Request,
    caller: Annotated[Principal, Depends(scoped("extract"))],
    state: ServerState,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    """Reads up to 10 URLs through the same guarded fetcher as research (no private
    addresses) and has the model fill `schema` and/or answer `prompt` from them, citing them;
    `trace` names the sources containing each filled value. Needs an LLM (else 503)."""
    service = state.service

    async def work(tally: Tally) -> dict[str, Any]:
        urls = body.urls[: _within(len(body.urls), tally.allowance.pages_read)]
        result, hits = await state.app.extract(
            urls, prompt=body.prompt, schema=body.schema_, **service.values(caller, {})
        )
        tally.pages = sum(1 for h in hits if h.result.page is not None)
        tally.cost_usd = result.usage.cost_usd or 0.0
        return _extracted(result, hits, tally)

    async def run() -> JSONResponse:
        want = Spent(0, len(body.urls))
        return JSONResponse(await service.lookup(caller, "run", work, want))

    return await idempotent(request, state, caller.org, body, run)


def _extracted(result: Result, hits: list[ReadHit], tally: Tally) -> dict[str, Any]:
    data = result.to_json()
    out: dict[str, Any] = {k: data[k] for k in ("citations", "sources")}
    if result.data is not None:
        out["data"] = result.data
    else:
        out["answer"] = result.answer
    out["trace"] = trace_values(result.data, result.sources) if result.data is not None else {}
    out["pages"] = [
        {"url": h.result.url, "read": h.result.page is not None}
        | ({"reason": h.skipped} if h.skipped else {})
        for h in hits
    ]
    out["usage"] = {"searches": 0, "pages_read": tally.pages}
    return out
