"""The small interfaces the engine is built against. Adapters implement these; the engine
receives ready instances and never looks anything up by name (the edges do that)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal, Protocol, TypeAlias, runtime_checkable

from .events import Event
from .types import FetchedImage, OutputKind, Page, SearchResult, Source


def _ignore(event: Event) -> None:
    return None


@dataclass(frozen=True, slots=True)
class SearchQuery:
    text: str
    limit: int = 10
    since: date | None = None
    # A language tag (`de`, `en-GB`, `zh-Hant`; canonical case, see `sleuth.langtag`) for the
    # backend's own language or region parameter; a backend without one ignores it. It steers,
    # never filters: results in other languages stay.
    language: str | None = None
    # Where a backend may report side events (e.g. a fan-out's degraded sub-backend).
    report: Callable[[Event], None] = field(default=_ignore, compare=False)


@runtime_checkable
class SearchBackend(Protocol):
    """A search service. A backend that never leaves the machine (local files, the knowledge
    base, none) sets `private = True`; model-proposed queries to any other are vetted so no
    private text goes out in them."""

    name: str

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        """Results in the backend's order; raises SearchError (or a subclass) on failure."""
        ...


class Fetcher(Protocol):
    async def fetch(self, url: str) -> Page:
        """Read one URL found by search; raises FetchError with a short reason."""
        ...

    async def aclose(self) -> None: ...


class ImageFetcher(Protocol):
    async def fetch_image(self, url: str) -> FetchedImage:
        """Download an image a read page shows, through the fetcher's network guard; raises
        FetchError when it is refused, unreachable, too large or not an image type shown."""
        ...


class PageCache(Protocol):
    def get(self, url: str) -> Page | None: ...

    def put(self, page: Page) -> None: ...


@dataclass(frozen=True, slots=True)
class Message:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Reported once at the end of a model stream, from the API's own usage numbers."""

    model: str
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True)
class Reasoning:
    """A piece of a thinking model's reasoning (`reasoning_content`, a thinking block, a
    `<think>` tag): for people watching a run, never part of an answer."""

    text: str


ModelItem: TypeAlias = str | Reasoning | TokenUsage


class ChatModel(Protocol):
    """A chat model at the provider boundary. Streams answer text deltas (`str`), reasoning
    deltas (`Reasoning`) when the model thinks out loud, then one TokenUsage."""

    name: str

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int = 2048
    ) -> AsyncIterator[ModelItem]: ...


@dataclass(frozen=True, slots=True)
class WriteTask:
    question: str
    sources: tuple[Source, ...]
    output: OutputKind = "answer"
    language: str | None = None
    aspects: tuple[str, ...] = ()  # sub-queries a report should cover, one section each
    tldr: bool = False  # start with a cited one-paragraph summary
    insist: bool = False  # the first attempt was empty: answer, or say what the sources hold
    style: str = ""  # the user's writing request (tone, length, audience); never the rules


class Writer(Protocol):
    name: str

    def write(self, task: WriteTask) -> AsyncIterator[str | Reasoning]:
        """Stream the answer as markdown with [n] markers referring to task.sources, and the
        model's reasoning (if it shows any) apart from it."""
        ...
