"""Sleuth's errors, a drawn tree where each branch has one meaning.

    SleuthError                   exit 1 / HTTP 500 unless a subclass says otherwise
    ├── UsageError                bad input from a user: a flag, a file, a question (exit 1, 400)
    │   └── ConfigError           a bad config file or environment value
    ├── SearchError               a search backend failed
    │   ├── MissingKeyError       the backend needs a key that is not set (exit 1)
    │   └── RateLimitedError      the backend throttled us; bench it for the run
    ├── FetchError                one page could not be read; becomes a `fetch.skipped` event
    │   ├── BlockedURLError       refused by policy (private address, scheme, domain list)
    │   ├── TooLargeError         the body or document is over a size cap
    │   └── ExtractionError       parsing the document overran its sandbox (memory, time, crash)
    ├── LLMError                  the model endpoint failed after retries
    ├── NoSourcesError            nothing usable was found; stop before writing (exit 3)
    ├── BudgetExceededError       --max-cost reached (exit 2, HTTP 402)
    ├── CitationCheckFailed       --strict-cites and a citation is unsupported (exit 4)
    └── DeadlineExceeded          --max-runtime reached (exit 5, HTTP 504)

Every user-facing error carries its exit code and HTTP status so each interface can map it
without a lookup table of its own.
"""

from __future__ import annotations


class SleuthError(Exception):
    exit_code = 1
    http_status = 500
    code = "INTERNAL"
    retryable = False


class UsageError(SleuthError):
    http_status = 400
    code = "BAD_REQUEST"


class ConfigError(UsageError):
    code = "BAD_CONFIG"


class SearchError(SleuthError):
    http_status = 502
    code = "SEARCH_FAILED"
    retryable = True

    def __init__(self, message: str, backend: str = "") -> None:
        super().__init__(message)
        self.backend = backend


class MissingKeyError(SearchError):
    http_status = 400
    code = "MISSING_KEY"
    retryable = False


class RateLimitedError(SearchError):
    http_status = 429
    code = "RATE_LIMITED"


class FetchError(SleuthError):
    """A page that could not be read. `reason` is short and shown to users as-is."""

    code = "FETCH_FAILED"

    def __init__(self, reason: str, url: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.url = url

    def __reduce__(self) -> tuple[type[FetchError], tuple[str, str]]:
        # Raised inside extraction workers and pickled back: keep the URL, not only the reason.
        return type(self), (self.reason, self.url)


class BlockedURLError(FetchError):
    code = "BLOCKED_URL"


class TooLargeError(FetchError):
    code = "TOO_LARGE"


class ExtractionError(FetchError):
    code = "EXTRACTION_FAILED"


class LLMError(SleuthError):
    http_status = 502
    code = "LLM_FAILED"
    retryable = True


class NoSourcesError(SleuthError):
    exit_code = 3
    http_status = 422
    code = "NO_SOURCES"


class BudgetExceededError(SleuthError):
    exit_code = 2
    http_status = 402
    code = "QUOTA_EXCEEDED"


class CitationCheckFailed(SleuthError):
    exit_code = 4
    http_status = 422
    code = "CITATIONS_UNSUPPORTED"


class DeadlineExceeded(SleuthError):
    exit_code = 5
    http_status = 504
    code = "DEADLINE_EXCEEDED"
    retryable = True
