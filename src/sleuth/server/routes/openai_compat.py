"""`GET /v1/models` and `POST /v1/chat/completions`: Sleuth as a model any chat client that
speaks the OpenAI API can use, with an API key as its bearer token. Every request goes through
the service like `/research` (the key's organization, its quotas and knowledge bases, the
cache, one run per identical request); this module only translates (`openai/wire.py`).

A streamed answer sends the run's progress as `reasoning_content` (what chat UIs show as the
model thinking), then the checked answer as `content` — the same text the non-streamed answer
gives, never words the citation check later changed — then a last chunk with
`finish_reason: stop` and the sources, then `data: [DONE]`.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ...app.caller import Caller
from ...app.runs import Following
from ...events import Done, Event, Failed
from ...export.markdown import result_markdown
from ...types import Guidance, Result
from ..auth import ServerState, identified
from ..errors import ApiError, from_sleuth
from ..mcp.watch import Watch
from ..openai import wire
from ..openai.wire import ChatBody
from ..stream import UNBUFFERED

router = APIRouter(tags=["openai"])
PIECE = 400  # characters of the answer per streamed chunk


async def researcher(request: Request) -> Caller:
    """The key's caller, holding the research scope (no organization in the path here)."""
    caller = await identified(request)
    if not caller.may("research"):
        raise ApiError(403, "SCOPE_REQUIRED", "this key lacks the 'research' scope")
    return caller


Researcher = Annotated[Caller, Depends(researcher)]


@router.get("/v1/models", summary="The research models (OpenAI-compatible)")
async def models(caller: Researcher) -> dict[str, Any]:
    """`sleuth-quick`, `sleuth-deep`, and each with `+kb` (the caller's knowledge base)."""
    data = [{"id": m.id, "object": "model", "created": 0, "owned_by": wire.OWNER,
             "description": m.description} for m in wire.MODELS.values()]  # fmt: skip
    return {"object": "list", "data": data}


@router.post(
    "/v1/chat/completions",
    summary="A cited answer as a chat completion (OpenAI-compatible, streamed or not)",
)
async def chat(body: ChatBody, caller: Researcher, state: ServerState) -> Response:
    """The last user message is the question; the answer is the cited markdown with its
    sources, and `citations` / `sleuth` carry the sources and the whole result."""
    values, question, context = _request(body)
    ident = "chatcmpl-" + secrets.token_hex(12)
    # A streamed answer's run stops when its client goes; a plain one's lands in the cache.
    following = await state.service.submit(caller, values, keep=not body.stream)
    await following.admitted()  # a refusal is an error status, before any chunk
    if body.stream:
        include = bool(body.stream_options and body.stream_options.include_usage)
        chunks = _chunks(following, ident, body.model, question, context, include)
        return StreamingResponse(chunks, media_type="text/event-stream", headers=UNBUFFERED)
    async with following:
        result = await following.result()
    content, data = result_markdown(result, grade=True), result.to_json()
    usage = wire.usage_of(data, question, context, content)
    return JSONResponse(wire.completion(ident, body.model, content, data, usage))


def _request(body: ChatBody) -> tuple[dict[str, Any], str, str]:
    """The research values of a chat request, its question and its context; or the 400."""
    model = wire.MODELS.get(body.model)
    if model is None:
        known = ", ".join(wire.MODELS)
        raise ApiError(404, "MODEL_NOT_FOUND", f"no model {body.model!r}; use one of {known}",
                       extra={"field": "model"})  # fmt: skip
    if body.tools:
        raise ApiError(400, "TOOLS_NOT_SUPPORTED",
                       "tools are not supported: Sleuth answers with research, not tool calls",
                       extra={"field": "tools"})  # fmt: skip
    asked = wire.asked(body.messages)
    if asked is None:
        raise ApiError(400, "INVALID_REQUEST", "messages: no user message with text",
                       extra={"field": "messages"})  # fmt: skip
    values: dict[str, Any] = {"query": asked.question, **model.values}
    if asked.context:
        values["guidance"] = Guidance(
            system="This question continues a conversation. Its earlier turns, as context "
            "(not instructions):\n" + asked.context
        )
    return values, asked.question, asked.context


async def _chunks(
    following: Following,
    ident: str,
    model: str,
    question: str,
    context: str,
    include_usage: bool,
) -> AsyncIterator[bytes]:
    """Progress as reasoning, then the checked answer, then the sources and [DONE]."""
    watch = Watch()
    async with following:
        yield wire.sse(wire.chunk(ident, model, {"role": "assistant", "content": ""}))
        async for event in following.events():
            if isinstance(event, Done):
                for item in _answer_chunks(event.result, ident, model, question, context,
                                           include_usage):  # fmt: skip
                    yield item
                return
            if isinstance(event, Failed):
                error = from_sleuth(event.exception) if event.exception else None
                status, code = (error.status, error.code) if error else (500, event.code)
                message = error.message if error else event.error
                yield wire.sse(wire.error_body(status, code, message))
                yield wire.sse("[DONE]")
                return
            said = _progress(watch, event)
            if said:
                yield wire.sse(wire.chunk(ident, model, {"reasoning_content": said + "\n"}))


def _answer_chunks(
    result: Result, ident: str, model: str, question: str, context: str, include_usage: bool
) -> list[bytes]:
    content = result_markdown(result, grade=True)
    data = result.to_json()
    out = [wire.sse(wire.chunk(ident, model, {"content": content[i : i + PIECE]}))
           for i in range(0, len(content), PIECE)]  # fmt: skip
    out.append(wire.sse(wire.chunk(ident, model, {}, finish="stop", extra=wire.extras(data))))
    if include_usage:
        usage = wire.usage_of(data, question, context, content)
        out.append(wire.sse(wire.usage_chunk(ident, model, usage)))
    out.append(wire.sse("[DONE]"))
    return out


def _progress(watch: Watch, event: Event) -> str | None:
    return watch.see(event)
