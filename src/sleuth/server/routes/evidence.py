"""A saved run's evidence pack over the API: the zip `sleuth verify` checks offline, signed
with the server's signing key when its SLEUTH_HOME has one (`sleuth keys signing create`).
Another organization's run id is a 404, like an unknown one."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import Response

from ...app.evidence import session_pack
from ..auth import Member, ServerState
from .common import READ_ERRORS, documented

router = APIRouter(tags=["research"])
RunId = Annotated[str, Path(max_length=64, description="A run's session id.")]
ZIP = "application/zip"


@router.get(
    "/api/orgs/{org}/runs/{run_id}/pack",
    responses={
        200: {"content": {ZIP: {}}, "description": "The evidence pack (a zip archive)."},
        **documented(*READ_ERRORS),
    },
    summary="A saved run's evidence pack",
)
async def pack(org: str, run_id: RunId, caller: Member, state: ServerState) -> Response:
    """The run's answer, every cited source's text as the citation check read it, the
    checker's version and threshold, and a manifest of SHA-256 hashes, signed when the server
    has a signing key. `sleuth verify FILE` re-checks it with no network (docs/evidence-pack.md
    specifies the format for other verifiers)."""
    made = await asyncio.to_thread(
        session_pack, state.store.sessions, state.app.home, run_id, org=caller.org
    )
    headers = {
        "Content-Disposition": f'attachment; filename="{made.filename}"',
        "X-Sleuth-Signed-By": made.signed_by or "",
    }
    return Response(made.data, media_type=ZIP, headers=headers)
