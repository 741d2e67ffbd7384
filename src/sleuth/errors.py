"""Sleuth's errors, a drawn tree where each branch has one meaning.

    SleuthError                   exit 1 / HTTP 500 unless a subclass says otherwise
    ├── UsageError                bad input from a user: a flag, a file, a question (exit 1, 400)
    │   ├── ConfigError           a bad config file or environment value
    │   │   └── SecretKeyError    the server's secret_key cannot open what it sealed (HTTP 503)
    │   ├── LLMNotConfigured      the use case needs a model and none is configured (HTTP 503)
    │   ├── NotFoundError         no such session/run (for an organization: not its own) (404)
    │   ├── NotAllowed            the operator does not let a caller choose this (a model) (403)
    │   └── UnreadableFile        a local file that cannot be indexed; a batch reports and skips it
    ├── SearchError               a search backend failed; `cause` says how (unreachable, ...)
    │   ├── MissingKeyError       the backend needs a key that is not set (exit 1)
    │   └── RateLimitedError      the backend throttled us; bench it for the run
    ├── FetchError                one page could not be read; becomes a `fetch.skipped` event
    │   ├── BlockedURLError       refused by policy (private address, scheme, domain list)
    │   └── ExtractionError       parsing the document overran its sandbox (memory, time, crash)
    ├── StoreError                a local database (sessions, page cache) cannot be used
    │   └── BatchesUnavailable    batches need PostgreSQL and the queue extra (HTTP 503)
    ├── LLMError                  the model endpoint failed after retries
    ├── NoSourcesError            nothing usable was found; stop before writing (exit 3)
    │   └── NoAnswerError         require_answer and the sources do not answer (exit 3)
    ├── BudgetExceededError       --max-cost reached (exit 2, HTTP 402)
    ├── Refused                   the service will not run this now (`retry_after`: when to try)
    │   ├── QuotaExceeded         the organization's monthly quota is used up (402)
    │   ├── RateLimited           the organization's request rate or running-run limit (429)
    │   └── ServerBusy            every slot of this node for the kind of work is taken (503)
    ├── RunCancelled              the run stopped before it ended (server stopping, all left)
    ├── CitationCheckFailed       --strict-cites and a citation is unsupported (exit 4)
    └── DeadlineExceeded          --max-runtime reached (exit 5, HTTP 504)

Every user-facing error carries its exit code and HTTP status so each interface can map it
without a lookup table of its own. An error about one setting names it (`setting`, e.g.
`max_sources`) in its message; each interface words it in its own terms with `worded` (the CLI
says `--max-sources`, the API the JSON field), so no layer below the interfaces knows a flag.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

# Why a page was not used, for programs that react to it (the UI's "skipped" list, metrics).
SkipCause = Literal[
    "blocked",  # the address guard or a policy refused it (private address, scheme, ...)
    "domain",  # outside the allow list or on the deny list
    "timeout",  # the server did not answer in time
    "unreachable",  # DNS or connection failure
    "http",  # an HTTP error status
    "too-large",  # over the body or page cap
    "unsupported",  # a content type or encoding Sleuth does not read
    "no-text",  # read, but nothing usable was extracted
    "extraction",  # parsing it overran the sandbox's memory or time, or crashed the parser
    "deadline",  # not read within the round's deadline; its snippet is used
    "quota",  # the organization's page quota allowed no more reading; its snippet is used
    "stale",  # published before `since`
    "browser",  # the headless browser could not read it
    "error",  # anything else (an adapter bug costs one page, not the run)
]


class SleuthError(Exception):
    exit_code = 1
    http_status = 500
    code = "INTERNAL"
    retryable = False

    def __init__(self, message: str = "", *, setting: str | None = None) -> None:
        super().__init__(message)
        self.setting = setting

    def worded(self, name_for: Callable[[str], str]) -> str:
        """The message with the setting's name as an interface calls it."""
        return worded(str(self), self.setting, name_for)


def worded(text: str, setting: str | None, name_for: Callable[[str], str]) -> str:
    """`text` with its first whole-word mention of `setting` renamed by `name_for`. Only the
    first: a message names its setting once, up front; a later `browser` may be an extra's name
    in an install hint (`pip install '.[browser]'`) that must stay as it is."""
    if not setting:
        return text
    pattern = rf"(?<![\w\[-]){re.escape(setting)}(?![\w\]-])"
    return re.sub(pattern, name_for(setting), text, count=1)


class UsageError(SleuthError):
    http_status = 400
    code = "BAD_REQUEST"


class ConfigError(UsageError):
    code = "BAD_CONFIG"


class SecretKeyError(ConfigError):
    """Something the operator stored sealed (an organization's model API key) cannot be used:
    the server has no secret_key, or not the one it was sealed with. The operator's
    configuration, not the request, is wrong, so a server answers 503; a run never falls back
    to another model in its place."""

    http_status = 503
    code = "SECRET_KEY"


class NotAllowed(UsageError):
    """A request chose what the operator keeps for itself: a model or a model endpoint the
    server does not allow callers to pick."""

    http_status = 403
    code = "NOT_ALLOWED"


class UnreadableFile(UsageError):
    """A local document that cannot be turned into text. `reason` is short and shown as-is
    ("encrypted PDF", "empty file", "looks like a PDF, not DOCX")."""

    code = "UNREADABLE_FILE"

    def __init__(self, reason: str, path: str = "", *, lasting: bool = True) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)
        self.reason = reason
        self.path = path
        self.lasting = lasting  # False: installing something may fix it, so try again next time


class LLMNotConfigured(UsageError):
    """A model is needed (structured output, extraction) and none is configured: a server
    answers 503, since it is the operator's configuration, not the request, that lacks it."""

    http_status = 503
    code = "LLM_NOT_CONFIGURED"


class NotFoundError(UsageError):
    """A session or run id that does not exist, or that belongs to another organization: the
    two are indistinguishable on purpose."""

    http_status = 404
    code = "NOT_FOUND"


# Why a search failed, so a run that found nothing can say "no network" rather than "no results".
SearchCause = Literal[
    "unreachable",  # DNS or connection failure: usually no network
    "timeout",  # the service did not answer in time
    "rate_limited",  # the service throttled us
    "refused",  # an HTTP error status, a missing or refused key
    "error",  # anything else (a malformed answer, ...)
]


class SearchError(SleuthError):
    """A search backend failed. `cause` says how, for people (`no network: ...`) and programs."""

    http_status = 502
    code = "SEARCH_FAILED"
    retryable = True
    default_cause: SearchCause = "error"

    def __init__(self, message: str, backend: str = "", *, cause: SearchCause | None = None):
        super().__init__(message)
        self.backend = backend
        self.cause: SearchCause = cause or self.default_cause
        self.parts: tuple[SearchError, ...] = ()  # a fan-out's failures, one per backend

    def leaves(self) -> tuple[SearchError, ...]:
        """The single-backend failures this one stands for."""
        return tuple(leaf for part in self.parts for leaf in part.leaves()) or (self,)


class MissingKeyError(SearchError):
    http_status = 400
    code = "MISSING_KEY"
    retryable = False
    default_cause: SearchCause = "refused"


class RateLimitedError(SearchError):
    http_status = 429
    code = "RATE_LIMITED"
    default_cause: SearchCause = "rate_limited"


class FetchError(SleuthError):
    """A page that could not be read. `reason` is short and shown to users as-is."""

    code = "FETCH_FAILED"
    default_cause: SkipCause = "error"

    def __init__(self, reason: str, url: str = "", *, cause: SkipCause | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.url = url
        self.cause: SkipCause = cause or self.default_cause

    def __reduce__(self) -> tuple[type[FetchError], tuple[str, str], dict[str, SkipCause]]:
        # Raised inside extraction workers and pickled back: keep the URL and the cause.
        return type(self), (self.reason, self.url), {"cause": self.cause}


class BlockedURLError(FetchError):
    code = "BLOCKED_URL"
    default_cause: SkipCause = "blocked"


class ExtractionError(FetchError):
    code = "EXTRACTION_FAILED"
    default_cause: SkipCause = "extraction"


class StoreError(SleuthError):
    """A local database cannot be used: not a regular file, an unwritable SLEUTH_HOME, a disk
    error. Costs what needed the store (a save, a cache), never an answer already made."""

    http_status = 503
    code = "STORE_UNAVAILABLE"


class BatchesUnavailable(StoreError):
    """Batches run on the PostgreSQL task queue; this process has no database URL or no queue
    extra (the message says which)."""

    code = "BATCHES_UNAVAILABLE"


class LLMError(SleuthError):
    http_status = 502
    code = "LLM_FAILED"
    retryable = True


# Why a run ended with no sources: each interface can suggest what works instead.
NoSourcesCause = Literal["unreachable", "rate_limited", "search_failed", "no_results", "unread"]


class NoSourcesError(SleuthError):
    """Nothing usable was found. `cause`: the search could not reach its services
    (`unreachable`), was throttled, failed otherwise, found no results, or found pages that
    could not be used (`unread`)."""

    exit_code = 3
    http_status = 422
    code = "NO_SOURCES"

    def __init__(
        self, message: str, *, cause: NoSourcesCause = "unread", setting: str | None = None
    ) -> None:
        super().__init__(message, setting=setting)
        self.cause: NoSourcesCause = cause


class NoAnswerError(NoSourcesError):
    """The answer was given (it says what the sources do say) but they do not answer the
    question — its confidence is low — and the caller asked for an answer or nothing."""

    code = "NO_ANSWER"


class BudgetExceededError(SleuthError):
    exit_code = 2
    http_status = 402
    code = "QUOTA_EXCEEDED"


class Refused(SleuthError):
    """The service will not do this work now. `retry_after` (seconds) is when the same request
    may succeed, or None when waiting will not help (a used-up quota). Raised by the service,
    worded by each face: the API as a status with `Retry-After`, MCP as a tool error."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.retryable = retry_after is not None


class QuotaExceeded(Refused):
    exit_code = 2
    http_status = 402
    code = "QUOTA_EXCEEDED"

    def __init__(self, message: str, *, meter: str = "") -> None:
        super().__init__(message)
        self.meter = meter


class RateLimited(Refused):
    http_status = 429
    code = "RATE_LIMITED"


class ServerBusy(Refused):
    http_status = 503
    code = "SERVER_BUSY"


class RunCancelled(SleuthError):
    """The run was cancelled before it ended: every follower left, or the server is stopping.
    The same request may succeed (it starts afresh)."""

    http_status = 503
    code = "RUN_CANCELLED"
    retryable = True


class CitationCheckFailed(SleuthError):
    exit_code = 4
    http_status = 422
    code = "CITATIONS_UNSUPPORTED"


class DeadlineExceeded(SleuthError):
    exit_code = 5
    http_status = 504
    code = "DEADLINE_EXCEEDED"
    retryable = True
    queries: tuple[str, ...] = ()  # what the run had searched when it was stopped
