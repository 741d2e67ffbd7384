"""The API's request and response bodies (Pydantic at the edge only).

Request fields are the Research API seed's; the run options it adds (`max_sources`,
`source_authority`, ...) take their bounds and help from the settings table, and a test holds
every choice and bound to it. The response models describe `Result.to_json()` for the OpenAPI
document; the server sends the result's own JSON.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from ..app.options import load_schema
from ..limits import MAX_QUESTION_CHARS, deep_value
from ..settings.table import SETTINGS
from ..settings.values import coerce, parse_freshness

Depth = Literal["quick", "deep"]
Output = Literal["answer", "report"]
Authority = Literal["prefer", "strict", "off"]
MAX_QUERY = MAX_QUESTION_CHARS
# Host names in ASCII (punycode for IDNs), or URLs naming them; no spaces or controls.
Domain = Annotated[str, StringConstraints(min_length=1, max_length=253, pattern=r"^[!-~]+$")]
Domains = list[Domain]
# Something besides white space, by every regex dialect's and Python's idea of it.
Query = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_QUERY, pattern=r"[^\s\x1c-\x1f\x85]")
]
_DAY = r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
FRESHNESS = rf"^(pd|pw|pm|py|{_DAY}to{_DAY})$"


def table_field(name: str) -> Any:
    """An optional field with the setting's help and bounds from the settings table."""
    entry = SETTINGS[name]
    return Field(default=None, description=entry.help, ge=entry.low, le=entry.high)


# A language tag: two letters, an optional script, an optional region (langtag.py).
LANG_TAG = r"^[A-Za-z]{2}(?:[-_][A-Za-z]{4})?(?:[-_](?:[A-Za-z]{2}|[0-9]{3}))?$"


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def _query(value: str) -> str:
    if not value.strip():
        raise ValueError("the query is empty")
    return value.strip()


def _freshness(value: str | None) -> str | None:
    if value is not None:
        parse_freshness(value)  # a UsageError is a ValueError's cousin: re-raised as one
    return value


def _schema(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        return load_schema(value)
    except Exception as exc:
        raise ValueError(str(exc)) from None


def _domains(values: Domains) -> Domains:
    cleaned = [v.strip() for v in values]
    if any(not v or len(v) > 253 or any(c.isspace() for c in v) for v in cleaned):
        raise ValueError("each domain must be a host name like example.com")
    return cleaned


class Filters(Body):
    freshness: str | None = Field(
        None,
        description="Only pages published in the past day (pd), week (pw), month (pm) or year "
        "(py), or since the first date of YYYY-MM-DDtoYYYY-MM-DD; undated pages are kept.",
        pattern=FRESHNESS,
    )
    include_domains: Domains = Field(
        default_factory=list, max_length=50, description=SETTINGS["allow_domain"].help
    )
    exclude_domains: Domains = Field(
        default_factory=list, max_length=50, description=SETTINGS["deny_domain"].help
    )
    search_lang: str | None = Field(
        None,
        max_length=40,
        description=SETTINGS["search_lang"].help,
        examples=["de", "pt-BR"],
        # The shape, documented; the validator below checks it and the ISO 639-1 list, with a
        # message naming what is wrong (a pattern failure would only quote the pattern).
        json_schema_extra={"pattern": LANG_TAG},
    )

    @field_validator("freshness")
    @classmethod
    def _check_freshness(cls, value: str | None) -> str | None:
        try:
            return _freshness(value)
        except Exception as exc:
            raise ValueError(str(exc)) from None

    @field_validator("include_domains", "exclude_domains")
    @classmethod
    def _check_domains(cls, value: Domains) -> Domains:
        return _domains(value)

    @field_validator("search_lang")
    @classmethod
    def _check_search_lang(cls, value: str | None) -> str | None:
        try:
            return coerce("search_lang", value)  # type: ignore[no-any-return]
        except Exception as exc:
            raise ValueError(str(exc).removeprefix("search_lang ")) from None

    def filter_values(self) -> dict[str, Any]:
        """The setting values these filters stand for."""
        values: dict[str, Any] = {}
        if self.freshness:
            values["since"] = parse_freshness(self.freshness)
        if self.include_domains:
            values["allow_domain"] = tuple(self.include_domains)
        if self.exclude_domains:
            values["deny_domain"] = tuple(self.exclude_domains)
        if self.search_lang:
            values["search_lang"] = self.search_lang
        return values


class ResearchBody(Filters):
    query: Query = Field(description="The question.")
    depth: Depth = Field("quick", description="quick (seconds) or deep (planned, critic loop).")
    output: Output | None = Field(None, description=SETTINGS["output"].help)
    schema_: dict[str, Any] | None = Field(
        None,
        alias="schema",
        description="A JSON Schema (type object) to fill from the sources instead of prose.",
    )
    no_cache: bool = Field(
        False,
        description="Reuse nothing cached: no answer from the result cache, no page from the "
        "page cache (the fresh answer is then cached for the next identical request).",
    )
    max_sources: int | None = table_field("max_sources")
    source_authority: Authority | None = Field(None, description=SETTINGS["source_authority"].help)
    language: str | None = Field(None, max_length=40, description=SETTINGS["language"].help)
    tldr: bool | None = Field(None, description=SETTINGS["tldr"].help)
    images: bool | None = Field(None, description=SETTINGS["images"].help)
    cite_min_recall: float | None = table_field("cite_min_recall")
    kb: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
        description="Also search this knowledge base of the organization (uploaded with "
        "POST /api/orgs/{org}/kb/files); its documents are cited as upload/NAME with their page.",
    )

    @field_validator("query")
    @classmethod
    def _check_query(cls, value: str) -> str:
        return _query(value)

    @field_validator("schema_")
    @classmethod
    def _check_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return _schema(value)

    def values(self) -> dict[str, Any]:
        """Setting values for the application (`Sleuth.prepare`), by their table names."""
        values = self.filter_values()
        values["deep"] = deep_value(self.depth)
        for name in ("output", "max_sources", "source_authority", "language", "tldr", "images"):
            if getattr(self, name) is not None:
                values[name] = getattr(self, name)
        if self.cite_min_recall is not None:
            values["cite_min_recall"] = self.cite_min_recall
        if self.schema_ is not None:
            values["schema"] = self.schema_
        if self.kb is not None:
            values["kb"] = self.kb
        return values


class SearchBody(Filters):
    query: Query = Field(description="What to search for.")
    limit: int = Field(10, ge=1, le=20, description="How many results.")
    search_depth: Literal["basic", "advanced"] = Field(
        "basic",
        description="advanced also reads the top results and attaches each one's "
        "query-relevant passages and a relevance_score (results keep the engine's order).",
    )
    include_answer: bool = Field(
        False, description="Add a short cited answer written from the top results only."
    )
    no_cache: bool = Field(
        False,
        description="Ask the search backend afresh: a plain search repeated within the "
        "result cache's time (10 minutes) is otherwise answered from memory, `cached: true`.",
    )

    @field_validator("query")
    @classmethod
    def _check_query(cls, value: str) -> str:
        return _query(value)


Url = Annotated[
    str, StringConstraints(max_length=2048, pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://[!-~]+$")
]


class ExtractBody(Body):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        json_schema_extra={
            "anyOf": [
                {"required": ["prompt"], "properties": {"prompt": {"type": "string"}}},
                {"required": ["schema"], "properties": {"schema": {"type": "object"}}},
            ]
        },
    )

    urls: list[Url] = Field(min_length=1, max_length=10, description="Pages to read (1-10).")
    prompt: Query | None = Field(None, description="What to extract, in words.")
    schema_: dict[str, Any] | None = Field(
        None, alias="schema", description="A JSON Schema (type object) to fill."
    )

    @field_validator("schema_")
    @classmethod
    def _check_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return _schema(value)

    @model_validator(mode="after")
    def _prompt_or_schema(self) -> ExtractBody:
        if self.prompt is None and self.schema_ is None:
            raise ValueError("extract needs a prompt, a schema, or both")
        return self


# -- responses ----------------------------------------------------------------------------------


class ErrorBody(BaseModel):
    success: Literal[False] = False
    error: str
    code: str
    retryable: bool
    field: str | None = Field(None, description="The request field a 400 is about.")
    queries: list[str] | None = Field(None, description="What a timed-out run had searched.")


class WhoAmI(BaseModel):
    orgId: str
    scopes: list[str]
    plan: str


class Citation(BaseModel):
    number: int
    url: str
    title: str
    quote: str


class PassageOut(BaseModel):
    text: str
    score: float
    start: int


class SourceOut(BaseModel):
    number: int
    url: str
    title: str
    score: float
    fetched_at: str | None
    authority: Literal["primary", "reputable", "unknown", "low"]
    passages: list[PassageOut]
    snippet: bool | None = None
    published: str | None = None


class Unsupported(BaseModel):
    sentence: str
    numbers: list[int]


class VerificationOut(BaseModel):
    checked: int
    supported: int
    unsupported: list[Unsupported]


class TrustOut(BaseModel):
    label: Literal["high", "mixed", "low"]
    counts: dict[str, int]


class ModelUse(BaseModel):
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


class LLMUse(BaseModel):
    calls: int
    input_tokens: int
    output_tokens: int
    by_model: dict[str, ModelUse]


class UsageOut(BaseModel):
    searches: int
    pages_read: int
    rounds: int
    plan: Literal["single", "multi_hop", "unavailable"]
    hops: int
    duration_ms: int
    search_ms: int
    read_ms: int
    model_ms: int
    llm: LLMUse
    cost_usd: float | None


class FigureOut(BaseModel):
    """An image of a cited page shown beside the sentence it illustrates (`images`)."""

    number: int = Field(description="The source whose page shows it.")
    url: str
    alt: str
    caption: str
    sentence: str = Field(description="The cited sentence it illustrates.")
    type: str = Field(description="The media type its bytes were checked to be.")
    bytes: int


class ResearchResult(BaseModel):
    """The result shape of `sleuth ask --json` (docs/getting-started.md), plus `cached`."""

    query: str
    answer: str | None = Field(None, description="Markdown with [n] markers (no schema given).")
    data: Any = Field(None, description="The filled schema (when a schema was given).")
    citations: list[Citation]
    sources: list[SourceOut]
    queries: list[str]
    confidence: Literal["high", "medium", "low"]
    verification: VerificationOut
    source_trust: TrustOut
    usage: UsageOut
    images: list[FigureOut] = Field(
        default_factory=list, description="Images of cited pages (when `images` was asked)."
    )
    cached: bool
    session_id: str | None


class SearchHit(BaseModel):
    title: str
    url: str
    snippet: str
    score: float = Field(description="1/rank in the backend's order.")
    published: str | None = None
    passages: list[PassageOut] | None = None
    relevance_score: float | None = None
    skipped: str | None = Field(None, description="Why an advanced search did not read it.")


class SearchUsage(BaseModel):
    searches: int
    pages_read: int


class SearchResponse(BaseModel):
    query: str
    results: list[SearchHit]
    answer: str | None = None
    citations: list[Citation] | None = None
    usage: SearchUsage
    cached: bool = Field(
        False, description="Answered from the search cache: no backend call, not metered."
    )


class PageRead(BaseModel):
    url: str
    read: bool
    reason: str | None = None


class ExtractResponse(BaseModel):
    data: Any = None
    answer: str | None = None
    citations: list[Citation]
    sources: list[SourceOut]
    trace: dict[str, list[int]] = Field(
        description="For each filled value, the sources whose text contains it."
    )
    pages: list[PageRead]
    usage: SearchUsage


class Meter(BaseModel):
    used: int
    limit: int | None


class UsageDayOut(BaseModel):
    day: date
    searches: int
    pages_read: int
    runs: int
    cached: int
    cost_usd: float = 0.0


class UsageResponse(BaseModel):
    orgId: str
    period: str
    meters: dict[str, Meter]
    days: list[UsageDayOut]
    cost_usd: float = Field(description="What the month's runs spent on models (priced ones).")


class OrgModelOut(BaseModel):
    """The model an organization's runs use: its own (set by the operator) or the server's.
    The API key is never shown, only whether one is set."""

    orgId: str
    own: bool = Field(description="False: the organization runs on the server's model.")
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    key_set: bool = False
    plan_model: str | None = None
    critic_model: str | None = None
    updated_at: str | None = None


class RunSummary(BaseModel):
    id: str
    created_at: str
    question: str
    sources: int
    cost_usd: float | None


class RunList(BaseModel):
    runs: list[RunSummary]
