"""Frozen value types shared by every layer of Sleuth.

These are the nouns of a research run: what was asked, what search returned, what a page said,
which passages were kept, what the writer cited and how the citations held up. Adapters produce
and consume only these; JSON appears only at the edges (`to_json`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any, Literal

from .limits import DEEP_ROUNDS

Depth = Literal["quick", "deep"]
OutputKind = Literal["answer", "report"]
Authority = Literal["primary", "reputable", "unknown", "low"]
Confidence = Literal["high", "medium", "low"]
Plan = Literal["single", "multi_hop", "unavailable"]
# Closed choices of settings, named once; the settings table and the API models use these.
AuthorityMode = Literal["prefer", "strict", "off"]
BrowserMode = Literal["auto", "always", "never"]
ApiFormat = Literal["auto", "openai", "anthropic", "google", "azure"]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One hit from a search backend, before anything is read."""

    url: str
    title: str
    snippet: str
    backend: str
    rank: int  # 1-based position in the backend's own answer
    published: str | None = None  # ISO date when the service gives one
    page: Page | None = None  # already-read content (local files, saved sources): never fetched
    # The page's text as the search service itself scraped it (`firecrawl:scrape`, `crw:scrape`):
    # the URL is still fetched; this stands in only when Sleuth's own read fails for a reason
    # other than its network guard or domain lists (pipeline/gather.py).
    scraped: str | None = None


@dataclass(frozen=True, slots=True)
class PageImage:
    """An image a read page shows, with the words the page itself gives it: its alt text and
    its figure caption. Only the extraction of a read page makes these; nothing a model writes
    ever becomes one."""

    url: str  # absolute http(s) URL, resolved against the page's final URL
    alt: str = ""
    caption: str = ""

    @property
    def words(self) -> str:
        return f"{self.alt} {self.caption}".strip()


@dataclass(frozen=True, slots=True)
class FetchedImage:
    """An image download that passed every check: its media type and its bytes."""

    url: str
    type: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Figure:
    """An image of a cited source shown beside the cited sentence it illustrates: downloaded
    through the network guard, its type and size checked, its bytes kept with the session so
    no reader's browser ever asks the image's host for it."""

    number: int  # the source whose page shows it
    url: str
    alt: str
    caption: str
    sentence: str  # the cited sentence (as the citation check words it) it stands beside
    type: str  # the media type its bytes were checked to be (image/png, image/jpeg, ...)
    data: bytes = b""  # the checked bytes; in sessions and reports, never in the public JSON

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "url": self.url,
            "alt": self.alt,
            "caption": self.caption,
            "sentence": self.sentence,
            "type": self.type,
            "bytes": len(self.data),
        }


@dataclass(frozen=True, slots=True)
class Page:
    """A page that was actually read: extracted main text plus metadata."""

    url: str
    title: str
    text: str
    fetched_at: str  # ISO 8601 UTC
    content_type: str = "text/html"
    final_url: str | None = None  # after redirects, when different
    published: str | None = None
    from_cache: bool = False
    scripted: bool = False  # the HTML runs scripts: a short text may be a JavaScript app
    location: str | None = None  # where in a local document: "p. 3", "slide 2", "sheet X, rows…"
    images: tuple[PageImage, ...] = ()  # images with alt text or a caption (HTML pages)


@dataclass(frozen=True, slots=True)
class Passage:
    """A span of a source's text; `start` is its character offset in the extracted text."""

    text: str
    score: float
    start: int


@dataclass(frozen=True, slots=True)
class Source:
    """A numbered source as given to the writer."""

    number: int
    url: str
    title: str
    score: float
    passages: tuple[Passage, ...]
    fetched_at: str | None = None
    published: str | None = None
    snippet: bool = False  # True when the page was not read and only its search snippet is used
    authority: Authority = "unknown"
    text: str = ""  # the full extracted text, kept for verification and sessions
    location: str | None = None  # page/slide/sheet of a local document (knowledge base)
    images: tuple[PageImage, ...] = ()  # its page's images: candidates, not in the JSON

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "number": self.number,
            "url": self.url,
            "title": self.title,
            "score": round(self.score, 4),
            "fetched_at": self.fetched_at,
            "authority": self.authority,
            "passages": [
                {"text": p.text, "score": round(p.score, 4), "start": p.start}
                for p in self.passages
            ],
        }
        if self.snippet:
            data["snippet"] = True
        if self.published:
            data["published"] = self.published
        if self.location:
            data["location"] = self.location
        return data


@dataclass(frozen=True, slots=True)
class Citation:
    number: int
    url: str
    title: str
    quote: str  # at most 300 characters of the source's most relevant passage
    location: str | None = None  # "p. 3", "slide 2"...: only for local documents

    def to_json(self) -> dict[str, Any]:
        """DESIGN §1's citation; `location` appears only when the source has one."""
        data: dict[str, Any] = asdict(self)
        if not self.location:
            del data["location"]
        return data


@dataclass(frozen=True, slots=True)
class UnsupportedSentence:
    sentence: str
    numbers: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Verification:
    checked: int
    supported: int
    unsupported: tuple[UnsupportedSentence, ...] = ()
    enabled: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "supported": self.supported,
            "unsupported": [
                {"sentence": u.sentence, "numbers": list(u.numbers)} for u in self.unsupported
            ],
        }


@dataclass(frozen=True, slots=True)
class ModelUsage:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None  # None when the model has no known price

    def __add__(self, other: ModelUsage) -> ModelUsage:
        unpriced = self.cost_usd is None and other.cost_usd is None
        return ModelUsage(
            self.calls + other.calls,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            None if unpriced else (self.cost_usd or 0.0) + (other.cost_usd or 0.0),
        )


@dataclass(frozen=True, slots=True)
class Usage:
    searches: int = 0
    pages_read: int = 0
    rounds: int = 1
    plan: Plan = "single"
    hops: int = 0
    duration_ms: int = 0
    search_ms: int = 0
    read_ms: int = 0
    model_ms: int = 0
    by_model: dict[str, ModelUsage] = field(default_factory=dict)

    def __add__(self, later: Usage) -> Usage:
        """Two runs' work as one (a steered run's stages): counts and times add up; the plan
        is the later run's."""
        by_model = dict(self.by_model)
        for name, used in later.by_model.items():
            by_model[name] = by_model.get(name, ModelUsage()) + used
        return Usage(
            self.searches + later.searches,
            self.pages_read + later.pages_read,
            self.rounds + later.rounds,
            later.plan,
            self.hops + later.hops,
            self.duration_ms + later.duration_ms,
            self.search_ms + later.search_ms,
            self.read_ms + later.read_ms,
            self.model_ms + later.model_ms,
            by_model,
        )

    @property
    def llm_calls(self) -> int:
        return sum(m.calls for m in self.by_model.values())

    @property
    def cost_usd(self) -> float | None:
        priced = [m.cost_usd for m in self.by_model.values() if m.cost_usd is not None]
        return round(sum(priced), 6) if priced else (0.0 if not self.by_model else None)

    def to_json(self) -> dict[str, Any]:
        return {
            "searches": self.searches,
            "pages_read": self.pages_read,
            "rounds": self.rounds,
            "plan": self.plan,
            "hops": self.hops,
            "duration_ms": self.duration_ms,
            "search_ms": self.search_ms,
            "read_ms": self.read_ms,
            "model_ms": self.model_ms,
            "llm": {
                "calls": self.llm_calls,
                "input_tokens": sum(m.input_tokens for m in self.by_model.values()),
                "output_tokens": sum(m.output_tokens for m in self.by_model.values()),
                "by_model": {name: asdict(m) for name, m in self.by_model.items()},
            },
            "cost_usd": self.cost_usd,
        }


@dataclass(frozen=True, slots=True)
class SourceTrust:
    label: Literal["high", "mixed", "low"]
    counts: dict[str, int]


@dataclass(frozen=True, slots=True)
class Result:
    """The one result shape (DESIGN §1) shared by the CLI, API, MCP and saved sessions."""

    query: str
    answer: str | None
    citations: tuple[Citation, ...]
    sources: tuple[Source, ...]
    queries: tuple[str, ...]
    confidence: Confidence
    verification: Verification
    source_trust: SourceTrust
    usage: Usage
    data: Any = None  # structured output, when a schema was given
    cached: bool = False
    session_id: str | None = None
    writer: str = "extractive"  # "llm", or "extractive" when none is configured or it failed
    confidence_reasons: tuple[str, ...] = ()  # why `confidence` is what it is
    plan: tuple[str, ...] = ()  # the sub-queries planned besides the question (deep runs)
    rounds: tuple[dict[str, Any], ...] = ()  # the round trace: queries, reads, critic verdicts
    images: tuple[Figure, ...] = ()  # images of cited sources beside their sentences

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"query": self.query}
        if self.data is not None:
            out["data"] = self.data
        else:
            out["answer"] = self.answer or ""
        out["citations"] = [c.to_json() for c in self.citations]
        out["sources"] = [s.to_json() for s in self.sources]
        out["queries"] = list(self.queries)
        out["confidence"] = self.confidence
        out["confidence_reasons"] = list(self.confidence_reasons)
        out["verification"] = self.verification.to_json()
        out["source_trust"] = {"label": self.source_trust.label, "counts": self.source_trust.counts}
        out["usage"] = self.usage.to_json()
        out["writer"] = self.writer
        out["plan"] = list(self.plan)
        out["rounds"] = list(self.rounds)
        out["images"] = [f.to_json() for f in self.images]
        out["cached"] = self.cached
        out["session_id"] = self.session_id
        return out


@dataclass(frozen=True, slots=True)
class Guidance:
    """Context a face adds to the writer's system prompt below Sleuth's rules, marked as the
    requester's (an OpenAI-style chat's earlier turns): the citation rules and the rule that
    page text is untrusted data always win."""

    system: str = ""


@dataclass(frozen=True, slots=True)
class PromptOverrides:
    """A requester's own instructions in place of Sleuth's, per stage (the web-app SSE
    dialect's `promptOverrides`); empty: Sleuth's own. Each replaces only the instructions of
    its stage: the reply format a stage's output is parsed with, the framing of sources as
    untrusted data, the citation format rules and the code-side citation check stay."""

    system: str = ""  # the writer's role (prompts/system_role.md)
    citing: str = ""  # the writer's citation guidance (prompts/cite_style.md)
    task: str = ""  # what the writer writes (prompts/report_task.md, answer_task.md)
    form: str = ""  # the writing's form (prompts/report_form.md, answer_form.md)
    plan: str = ""  # what the deep plan covers (prompts/plan_scope.md)
    queries: str = ""  # how the planner writes queries (prompts/plan_queries.md)
    critic: str = ""  # the deep critic's review (prompts/critic_task.md)
    clarify: str = ""  # clarifying questions before a steered run (prompts/clarify_task.md)


@dataclass(frozen=True, slots=True)
class ResearchRequest:
    """Everything the engine needs to know about one run. Defaults are DESIGN §2's quick mode."""

    question: str
    depth: Depth = "quick"
    deep_rounds: int = DEEP_ROUNDS  # critic rounds after the first (deep only)
    output: OutputKind | None = None  # None: "answer" for quick, "report" for deep
    max_results: int = 10
    max_sources: int | None = None  # None: 6 for quick, 15 for deep
    passages_per_source: int = 4
    per_site: int = 2
    read_deadline_s: float = 6.0
    settle_after: int = 3
    settle_wait_s: float = 0.7
    concurrency: int = 10
    cite_min_recall: float = 0.4
    verify_cites: bool = True
    allow_domains: tuple[str, ...] = ()
    deny_domains: tuple[str, ...] = ()
    language: str | None = None
    search_lang: str | None = None  # a language tag (de, en-GB): queries and backends steered
    max_runtime_s: float | None = None
    since: date | None = None  # drop pages published before this day (undated pages are kept)
    source_authority: AuthorityMode = "prefer"
    dedupe_threshold: float | None = 0.9  # None: keep near-duplicates
    seeds: tuple[SearchResult, ...] = ()  # pre-read sources to start from (continue a session)
    schema: dict[str, Any] | None = None  # structured output: fill this JSON Schema
    tldr: bool = False
    style: str = ""  # the reader's writing request (tone, length, audience), steered runs
    hops: bool = True  # triage two-step questions in quick mode
    require_llm: bool = False  # a failed model ends the run instead of the extractive fallback
    images: bool = False  # show images of the cited pages beside the sentences they illustrate

    @property
    def source_cap(self) -> int:
        if self.max_sources is not None:
            return self.max_sources
        return 15 if self.depth == "deep" else 6

    @property
    def output_kind(self) -> OutputKind:
        if self.output is not None:
            return self.output
        return "report" if self.depth == "deep" else "answer"
