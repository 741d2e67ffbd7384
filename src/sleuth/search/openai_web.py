"""`openai`: OpenAI's own web search, through the Responses API's `web_search` tool, with the key
already set for OpenAI models (`OPENAI_API_KEY`; `--search=openai:MODEL` picks the model).

The model searches and answers; only the pages it cites (`url_citation` annotations, in the
order it first cites them) and then the other pages its search consulted become results. Its
answer is never used: a result's snippet stays empty, so a page Sleuth cannot read is dropped,
never quoted from the model, and every cited page is fetched, read and checked through Sleuth's
network guard like any other backend's. OpenAI appends `utm_source=openai` to cited links;
that is taken off. A search language with a region goes out as the tool's approximate
`user_location` country; the language and `--since` are asked for in the instructions.
The call's tokens and OpenAI's per-search fee are billed to the key, outside Sleuth's meter.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..langtag import parse_tag
from ..ports import SearchBackend, SearchQuery
from ..registry import BackendSettings, Registries
from ..types import SearchResult
from .common import Http, endpoint, model_preferences, require, results_of, strip_html

NAME = "openai"
KEY = "OPENAI_API_KEY"
DEFAULT_ENDPOINT = "https://api.openai.com/v1/responses"
DEFAULT_MODEL = "gpt-4.1-mini"
TIMEOUT_S = 60.0  # a model that searches, reads and answers takes tens of seconds
INSTRUCTIONS = (
    "Search the web for the user's query and answer it briefly, citing the web pages that "
    "support each statement. Prefer primary and authoritative sources."
)


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class OpenAIWebSearch:
    http: Http
    url: str
    key: str
    model: str
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        headers = {"Authorization": f"Bearer {self.key}"}
        data = await self.http.post_json(self.url, self.body(query), headers=headers)
        with self.http.reading():
            links = _drop_repeats(list(cited(data["output"])))
            return results_of(links, _result)[: query.limit]

    def body(self, query: SearchQuery) -> dict[str, Any]:
        tool: dict[str, Any] = {"type": "web_search", "search_context_size": "low"}
        country = parse_tag(query.language).country if query.language else None
        if country:
            tool["user_location"] = {"type": "approximate", "country": country}
        return {
            "model": self.model,
            "instructions": INSTRUCTIONS + model_preferences(query.language, query.since),
            "input": query.text,
            "tools": [tool],
            "tool_choice": "required",  # a search backend that does not search is no use
            "include": ["web_search_call.action.sources"],
            "store": False,
        }


def cited(output: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(url, title) of each cited page in citation order, then each other consulted page."""
    for item in output:
        if item.get("type") != "message":
            continue
        for part in item["content"]:
            for note in part.get("annotations") or []:
                if note.get("type") == "url_citation":
                    yield clean(note["url"]), note.get("title") or ""
    for item in output:
        if item.get("type") == "web_search_call":
            for source in (item.get("action") or {}).get("sources") or []:
                if source.get("url"):
                    yield clean(source["url"]), ""


def clean(url: str) -> str:
    """`url` without the `utm_source=openai` OpenAI adds to the links it cites."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [pair for pair in pairs if pair != ("utm_source", "openai")]
    return url if kept == pairs else urlunsplit(parts._replace(query=urlencode(kept)))


def _result(link: tuple[str, str], rank: int) -> SearchResult:
    url, title = link
    # No snippet: the model's sentence is not the page's text (see the module docstring).
    title = strip_html(title or url)
    return SearchResult(url=url, title=title, snippet="", backend=NAME, rank=rank)


def _drop_repeats(links: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each URL once, at its first place, with the first title any mention gave it."""
    seen: dict[str, tuple[str, str]] = {}
    for url, title in links:
        if url not in seen or (title and not seen[url][1]):
            seen[url] = (url, title)
    return list(seen.values())


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    key = require(settings, KEY, NAME).split(",")[0].strip()
    http = Http(NAME, max(settings.timeout_s, TIMEOUT_S), settings.extra.get("transport"))
    url = endpoint(settings, NAME, DEFAULT_ENDPOINT)
    return OpenAIWebSearch(http, url, key, settings.option or DEFAULT_MODEL)


def register(regs: Registries) -> None:
    regs.search.register(
        NAME, factory, summary="OpenAI web search (the pages the model cites)", needs=KEY
    )
