"""One key for "the same page", shared by fusion, fan-out dedupe, near-duplicates and diffs."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

TRACKING = re.compile(
    r"^(utm_.*|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|yclid|igshid|ref_src|_ga)$", re.IGNORECASE
)


_TAIL = re.compile(r"[/\s]+$")
# Whitespace off both ends, and off the front the C0 controls urlsplit drops there too:
# "\x00\xa0x" came out "\xa0x", which the next call stripped (the idempotence property test).
_EDGES = re.compile(r"^[\s\x00-\x20]+|\s+$")


def normalize_url(url: str) -> str:
    """Fold the spellings of one page together: http/https, case and `www.` of the host, default
    ports, tracking parameters, parameter order, a trailing slash and the fragment."""
    url = _EDGES.sub("", url)
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").rstrip(".").lower()
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    host = host.removeprefix("www.")
    if port and (scheme, port) not in {("http", 80), ("https", 443)}:
        host = f"{host}:{port}"
    query = sorted(
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not TRACKING.match(k)
    )
    # Trailing slashes and whitespace both: a path ending in whitespace before a fragment
    # ("a \x85#f") came out ending in whitespace, which the next call stripped (found by
    # the idempotence property test).
    path = _TAIL.sub("", parts.path)
    web = "http" if scheme in ("http", "https") else scheme
    return urlunsplit((web, host, path, urlencode(query), ""))


def site_of(url: str) -> str:
    """The host without `www.`: what "at most 2 places per site" counts."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host.lower().removeprefix("www.")


def domain_of(url: str) -> str:
    """The registrable part of the host, roughly: its last two labels, or three under a
    two-letter country code with a short second level (`bbc.co.uk`). No public suffix list:
    what "independent sites" counts, where `docs.` and `www.` of one owner are one site."""
    labels = site_of(url).split(".")
    keep = 3 if len(labels) > 2 and len(labels[-1]) == 2 and len(labels[-2]) <= 3 else 2
    return ".".join(labels[-keep:])
