"""Who am I, usage, the organization's saved runs (`router`, behind the key guard), the load
balancers' probes (`probes`: health and readiness, public) and Prometheus metrics (`ops`,
behind the operator guard)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse, Response

from ..auth import Caller, Member, ServerState
from ..errors import error_body
from ..metrics import CONTENT_TYPE
from ..models import OrgModelOut, ResearchResult, RunList, UsageResponse, WhoAmI
from .common import READ_ERRORS, documented

router = APIRouter()
probes = APIRouter()
ops = APIRouter()
RunId = Annotated[str, Path(max_length=64, description="A run's session id.")]


@router.get("/api/whoami", response_model=WhoAmI, responses=documented(401, 500), tags=["account"])
async def whoami(caller: Caller) -> dict[str, Any]:
    """The organization, scopes and plan of the API key."""
    return {"orgId": caller.org, "scopes": list(caller.scopes), "plan": caller.plan}


@router.get(
    "/api/orgs/{org}/usage",
    response_model=UsageResponse,
    responses=documented(*READ_ERRORS),
    tags=["account"],
)
async def usage(
    org: str,
    caller: Member,
    state: ServerState,
    days: Annotated[int, Query(ge=1, le=366, description="Days of history.")] = 31,
) -> dict[str, Any]:
    """This month's use of each metered quota, and use per day (cached answers are free)."""
    report = await state.service.usage(caller, days=days)
    return {
        "orgId": caller.org,
        "period": report.period,
        "meters": {
            "searches": {"used": report.searches, "limit": report.quota_searches},
            "pages_read": {"used": report.pages_read, "limit": report.quota_pages},
        },
        "days": [
            {
                "day": d.day,
                "searches": d.searches,
                "pages_read": d.pages_read,
                "runs": d.runs,
                "cached": d.cached,
                "cost_usd": round(d.cost_usd, 6),
            }
            for d in report.days
        ],
        "cost_usd": round(report.cost_usd, 6),
    }


@router.get(
    "/api/orgs/{org}/model",
    response_model=OrgModelOut,
    responses=documented(*READ_ERRORS),
    tags=["account"],
)
async def model(org: str, caller: Member, state: ServerState) -> dict[str, Any]:
    """The model the organization's runs use: its own (provider, model, base URL, whether a
    key is set — never the key), or the server's."""
    return (await state.service.org_model(caller)).to_json()


@router.get(
    "/api/orgs/{org}/runs",
    response_model=RunList,
    responses=documented(*READ_ERRORS),
    tags=["research"],
)
async def runs(
    org: str,
    caller: Member,
    state: ServerState,
    limit: Annotated[int, Query(ge=1, le=200, description="Newest first, at most this many.")] = 50,
) -> dict[str, Any]:
    """The organization's saved research runs, newest first."""
    found = await state.app.saved.summaries(org=caller.org, limit=limit)
    return {
        "runs": [
            {
                "id": s.id,
                "created_at": s.created_at,
                "question": s.question,
                "sources": s.sources,
                "cost_usd": s.cost_usd,
            }
            for s in found
        ]
    }


@router.get(
    "/api/orgs/{org}/runs/{run_id}",
    response_model=ResearchResult,
    responses=documented(*READ_ERRORS),
    tags=["research"],
)
async def run(org: str, run_id: RunId, caller: Member, state: ServerState) -> dict[str, Any]:
    """A saved run's result (404 for an id that is not this organization's)."""
    record = await state.app.saved.get(run_id, org=caller.org)
    return record.result.to_json()


@probes.get("/healthz", include_in_schema=False)
async def healthz() -> dict[str, bool]:
    return {"ok": True}


@probes.get("/readyz", include_in_schema=False)
async def readyz(state: ServerState) -> Response:
    """Ready when the store answers and a search backend is configured."""
    search = str(state.config.defaults.get("search") or state.app.settings.search)
    try:
        await state.store.ping()
    except Exception as exc:
        body = error_body("NOT_READY", f"storage unreachable: {exc}", True)
        return JSONResponse(body, status_code=503)
    include = state.config.defaults.get("include") or state.app.settings.include
    if search.strip() in ("", "none") and not include:
        return JSONResponse(error_body("NOT_READY", "no search backend", True), status_code=503)
    return JSONResponse({"ready": True, "search": search})


@ops.get("/metrics", include_in_schema=False)
async def metrics(state: ServerState) -> Response:
    return Response(state.metrics.exposition(), media_type=CONTENT_TYPE)
