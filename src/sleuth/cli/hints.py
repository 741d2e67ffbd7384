"""What to try next, in the CLI's own terms, for errors whose cause has a known way out.

The engine says what happened (`NoSourcesError.cause`); only this interface knows the flags a
user could type instead, so the suggestions live here.
"""

from __future__ import annotations

from ..errors import NoSourcesError, SleuthError

OFFLINE_WAYS = (
    "without a network, answer from your own files: --search=none --include=PATH; "
    "or use a search service you can reach: --search=searxng with SLEUTH_SEARXNG_URL"
)
OFFLINE = OFFLINE_WAYS + "; `sleuth doctor` checks search, model and browser"
THROTTLED = (
    "wait a minute, or search elsewhere: --search=wikipedia or --search=multi:duckduckgo,wikipedia"
)
FAILED = "`sleuth doctor` checks the search backend; --search=NAME picks another"
NO_RESULTS = "rephrase the question, or search elsewhere: --search=wikipedia, --search=multi:A,B"

_FOR_CAUSE = {
    "unreachable": OFFLINE,
    "rate_limited": THROTTLED,
    "search_failed": FAILED,
    "no_results": NO_RESULTS,
}


def hint_for(exc: SleuthError) -> str | None:
    """A one-line suggestion for `exc`, or None when there is nothing better to say."""
    if isinstance(exc, NoSourcesError):
        return _FOR_CAUSE.get(exc.cause)
    return None
