"""The MCP tools, the same over every transport: `research` and `search`.

Each returns text for the model (the answer with its numbered source list, or the results) and
the full result as structured content under a declared output schema, so agents get both. A run
reports progress as it goes. A run that fails, or a request refused (bad argument, quota, full
server), comes back as tool output with `isError: true` and what the run searched and did not
use, never as a protocol error. Where runs happen is the `Runner`'s business: the application
itself for stdio, the server's admitted, metered, shared live runs for HTTP.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from importlib.metadata import version
from typing import Annotated, Any, Literal, Protocol

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from ...errors import SleuthError
from ...events import Done, Event, Failed
from ...export.markdown import result_markdown
from ...limits import DEEP_LIMIT_S, QUICK_LIMIT_S, deep_value
from ...settings.table import SETTINGS
from ...types import Figure, SearchResult
from ..models import ResearchResult
from .watch import Watch

# How the tools name the settings an error may mention.
ARGUMENTS = {
    "question": "question",
    "allow_domain": "include_domains",
    "deny_domain": "exclude_domains",
    "max_cost": "max_cost_usd",
    "max_runtime": "max_runtime_s",
    "deep": "depth",
    "query": "query",
}
RESEARCH = f"""Research a question on the web and get an answer you can cite: Sleuth searches,
reads the best pages, writes an answer in which every claim cites a numbered source it actually
read, and checks every citation in code. Use it for factual questions whose answer should be
sourced (specifics, recent facts, comparisons, "what does X say about Y"). depth="quick" takes
seconds (at most {QUICK_LIMIT_S:.0f} s); depth="deep" plans sub-queries and runs critic rounds
for a sectioned report (one to three minutes, at most {DEEP_LIMIT_S:.0f} s). Returns the answer
with its source list as text, and the full result (citations with quotes, sources, confidence,
verification) as structured content. If you only need links, `search` is faster."""
SEARCH = """Search the web and return ranked results (title, URL, snippet) without reading the
pages or writing an answer. Fast (about a second); use it to find pages or see what exists.
For an answer with checked citations, use `research`."""

BACKEND = (
    "Search backend (duckduckgo, searxng, wikipedia, arxiv, multi:a,b, ...); default: the server's."
)
IMAGES = SETTINGS["images"].help + " They also come as image content of the reply."
AUTHORITY = "prefer: read authoritative sites first; strict: also drop content farms."


class Runner(Protocol):
    def research(
        self, ctx: Context, question: str, values: dict[str, Any]
    ) -> AsyncIterator[Event]: ...

    async def search(
        self, ctx: Context, query: str, limit: int, values: dict[str, Any]
    ) -> list[SearchResult]: ...


class Hit(BaseModel):
    title: str
    url: str
    snippet: str
    published: str | None = None


class SearchOutput(BaseModel):
    query: str
    results: list[Hit]


Domains = Annotated[
    list[str] | None,
    Field(description="Only read pages from these domains (and their subdomains)."),
]


SearchLang = Annotated[
    str | None,
    Field(
        max_length=40,
        description="Search in this language (de, en-GB, zh-Hant): queries and the search "
        "service's language/region parameter; pages in other languages are still cited.",
    ),
]


def build(runner: Runner) -> MCPServer:
    server = MCPServer(
        "sleuth",
        version=version("sleuth"),
        log_level="WARNING",  # the SDK's handler is the process's: no per-request INFO lines
        instructions="Web research with checked citations. `research` answers a question "
        "from pages it reads (slow, cited); `search` lists results (fast, unread).",
    )

    @server.tool(
        description=RESEARCH,
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True),
    )
    async def research(
        question: Annotated[str, Field(description="The question, in plain words.")],
        ctx: Context,
        depth: Annotated[
            Literal["quick", "deep"],
            Field(description="quick: seconds; deep: a planned, multi-round report (minutes)."),
        ] = "quick",
        search: Annotated[
            str | None,
            Field(description=BACKEND),
        ] = None,
        include_domains: Domains = None,
        exclude_domains: Annotated[
            list[str] | None, Field(description="Never read pages from these domains.")
        ] = None,
        since: Annotated[
            str | None,
            Field(description="Drop pages published before this: 2024-01-31, 2024, 30d, 6mo."),
        ] = None,
        max_sources: Annotated[int | None, Field(ge=1, le=50)] = None,
        max_cost_usd: Annotated[
            float | str | None,
            Field(description='Stop model calls at this spend, in US dollars: 0.5 or "$0.50".'),
        ] = None,
        max_runtime_s: Annotated[
            float | None, Field(gt=0, le=600, description="Stop the run after this long.")
        ] = None,
        source_authority: Annotated[
            Literal["prefer", "strict", "off"] | None,
            Field(description=AUTHORITY),
        ] = None,
        search_lang: SearchLang = None,
        images: Annotated[bool | None, Field(description=IMAGES)] = None,
    ) -> Annotated[CallToolResult, ResearchResult]:
        values = {
            "deep": deep_value(depth),
            "search": search,
            "allow_domain": include_domains or None,
            "deny_domain": exclude_domains or None,
            "since": since,
            "max_sources": max_sources,
            "max_cost": max_cost_usd,
            "max_runtime": max_runtime_s,
            "source_authority": source_authority,
            "search_lang": search_lang,
            "images": images,
        }
        values = {k: v for k, v in values.items() if v is not None}
        return await _research(runner, ctx, question, values)

    @server.tool(
        description=SEARCH,
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True),
    )
    async def search(
        query: Annotated[str, Field(description="What to search for.")],
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=20, description="How many results.")] = 10,
        include_domains: Domains = None,
        search_lang: SearchLang = None,
    ) -> Annotated[CallToolResult, SearchOutput]:
        given = {"allow_domain": include_domains, "search_lang": search_lang}
        values = {k: v for k, v in given.items() if v}
        try:
            found = await runner.search(ctx, query, limit, values)
        except SleuthError as exc:  # a bad argument, or the service's refusal (quota, busy)
            return _error(exc.worded(_argument), exc.code, exc.retryable, Watch())
        return _search_result(query, found)

    return server


async def _research(
    runner: Runner, ctx: Context, question: str, values: dict[str, Any]
) -> CallToolResult:
    watch, step = Watch(), 0
    try:
        async for event in runner.research(ctx, question, values):
            if isinstance(event, Done):
                result = event.result
                text = TextContent(type="text", text=result_markdown(result, grade=True))
                shown = [_image(f) for f in result.images if f.data]
                return CallToolResult(content=[text, *shown], structured_content=result.to_json())
            if isinstance(event, Failed):
                worded = event.exception.worded(_argument) if event.exception else event.error
                return _error(worded, event.code, event.retryable, watch)
            message = watch.see(event)
            if message is not None:
                step += 1
                await ctx.report_progress(step, None, message)
    except SleuthError as exc:  # a bad argument, or the service's refusal (quota, busy)
        return _error(exc.worded(_argument), exc.code, exc.retryable, watch)
    return _error("the run ended without a result", "CANCELLED", True, watch)


def _image(figure: Figure) -> ImageContent:
    """A report image as the tool's own content: the bytes checked when the run downloaded
    them, so the client shows it without asking the image's host."""
    data = base64.b64encode(figure.data).decode("ascii")
    return ImageContent(type="image", data=data, mime_type=figure.type)


def _error(message: str, code: str, retryable: bool, watch: Watch) -> CallToolResult:
    headline = f"Research failed: {message} ({code}{', retryable' if retryable else ''})"
    data = {"error": message, "code": code, "retryable": retryable, **watch.diagnostics()}
    text = TextContent(type="text", text=watch.report(headline))
    return CallToolResult(content=[text], structured_content=data, is_error=True)


def _search_result(query: str, found: list[SearchResult]) -> CallToolResult:
    hits = [
        {"title": r.title, "url": r.url, "snippet": r.snippet, "published": r.published}
        for r in found
    ]
    lines = [f"{i}. {h['title']} — {h['url']}\n   {h['snippet']}" for i, h in enumerate(hits, 1)]
    text = "\n".join(lines) if lines else f"No results for {query!r}."
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content={"query": query, "results": hits},
    )


def _argument(setting: str) -> str:
    return ARGUMENTS.get(setting, setting)
