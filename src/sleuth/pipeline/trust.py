"""Source authority: a deterministic tier for every URL, decided by its host alone.

The tiers answer "is this source itself trustworthy?", a question separate from "does the answer
match its source?" (citation verification). The rules lead with high-precision boosts
(official documentation, standards bodies, government and academic hosts), treat anything
unrecognized as `unknown` — a niche but legitimate site is never penalized — and keep the `low`
tier a short list of well-known content farms: precision over recall.

Subdomains inherit their parent's tier (`en.wikipedia.org` is `wikipedia.org`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Literal, TypeVar
from urllib.parse import urlsplit

from ..errors import UsageError
from ..types import Authority, Source, SourceTrust

T = TypeVar("T")
AuthorityMode = Literal["prefer", "strict", "off"]
AUTHORITY_MODES: tuple[AuthorityMode, ...] = ("prefer", "strict", "off")
TIER_ORDER: tuple[Authority, ...] = ("primary", "reputable", "unknown", "low")
_RANK = {tier: i for i, tier in enumerate(TIER_ORDER)}


def _domains(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Official documentation, standards bodies, intergovernmental and public bodies.
PRIMARY_DOMAINS = _domains(
    """
    w3.org ietf.org rfc-editor.org iso.org whatwg.org iana.org ecma-international.org
    unicode.org tc39.es khronos.org
    python.org docs.rs rust-lang.org go.dev golang.org nodejs.org kubernetes.io postgresql.org
    sqlite.org kernel.org gnu.org man7.org readthedocs.io readthedocs.org learn.microsoft.com
    cloud.google.com developer.mozilla.org openjdk.org php.net ruby-lang.org
    europa.eu un.org oecd.org imf.org worldbank.org nhs.uk
    """
)

REPUTABLE_DOMAINS = _domains(
    """
    wikipedia.org britannica.com arxiv.org nature.com science.org sciencedirect.com
    springer.com wiley.com cell.com thelancet.com bmj.com nejm.org plos.org jstor.org acm.org
    ieee.org semanticscholar.org openreview.net aclanthology.org biorxiv.org
    stackoverflow.com stackexchange.com superuser.com serverfault.com askubuntu.com github.com
    gitlab.com pypi.org npmjs.com crates.io realpython.com lwn.net owasp.org mozilla.org
    martinfowler.com
    reuters.com apnews.com afp.com bbc.co.uk bbc.com nytimes.com washingtonpost.com
    theguardian.com wsj.com ft.com economist.com bloomberg.com npr.org pbs.org lemonde.fr
    spiegel.de arstechnica.com
    """
)

# Observed content farms only. A wrong entry here hides good pages, so the list stays short.
LOW_DOMAINS = _domains(
    """
    ehow.com answers.com ask.com reference.com ezinearticles.com hubpages.com articlesbase.com
    techwalla.com wisegeek.com infobarrel.com bukisa.com
    """
)

# Top-level domains reserved for public or academic institutions.
_PRIMARY_TLDS = frozenset({"gov", "edu", "mil", "int"})
# Second-level labels used for the same under country codes: gov.uk, ac.uk, gouv.fr, go.jp...
_PRIMARY_SLDS = frozenset({"gov", "govt", "gouv", "gob", "go", "edu", "ac", "mil"})
# A project's documentation portal is the primary source for that project.
_PRIMARY_HOST_PREFIXES = ("docs.", "developer.", "developers.", "devdocs.")


def host_of(url: str) -> str:
    """The lower-cased host of `url` without `www.`, port or trailing dot; '' when none."""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    host = host.rstrip(".")
    return host[4:] if host.startswith("www.") else host


def _in(host: str, domains: frozenset[str]) -> bool:
    labels = host.split(".")
    return any(".".join(labels[i:]) in domains for i in range(len(labels)))


def _institutional(host: str) -> bool:
    labels = host.split(".")
    if labels[-1] in _PRIMARY_TLDS:
        return True
    # `gov.uk` style: a reserved second-level label under a two-letter country code.
    return len(labels) >= 2 and len(labels[-1]) == 2 and labels[-2] in _PRIMARY_SLDS


def authority(url: str) -> Authority:
    """The authority tier of `url`, decided by its host alone (no network, no model)."""
    host = host_of(url)
    if not host or "." not in host:
        return "unknown"
    if _in(host, LOW_DOMAINS):
        return "low"
    if _in(host, PRIMARY_DOMAINS) or _institutional(host):
        return "primary"
    if host.startswith(_PRIMARY_HOST_PREFIXES):
        return "primary"
    if _in(host, REPUTABLE_DOMAINS):
        return "reputable"
    return "unknown"


def check_mode(mode: str) -> AuthorityMode:
    """`mode` as an AuthorityMode, or a UsageError naming the choices."""
    for known in AUTHORITY_MODES:
        if mode == known:
            return known
    raise UsageError(
        f"source_authority must be one of prefer, strict, off (got {mode!r})",
        setting="source_authority",
    )


def order_by_authority(
    items: Sequence[T], key_url: Callable[[T], str], mode: AuthorityMode = "prefer"
) -> list[T]:
    """Candidates ordered for the fetch slots.

    `prefer` stable-sorts primary > reputable > unknown > low, so search order survives inside a
    tier; `strict` also drops `low` unless every candidate is low (a topic that only surfaces
    farms still gets sources); `off` returns the items unchanged.
    """
    if mode == "off":
        return list(items)
    tiers = [authority(key_url(item)) for item in items]
    ranked = sorted(zip(tiers, items, strict=True), key=lambda pair: _RANK[pair[0]])
    if mode == "strict" and any(tier != "low" for tier in tiers):
        ranked = [pair for pair in ranked if pair[0] != "low"]
    return [item for _, item in ranked]


def rate_sources(sources: Iterable[Source]) -> tuple[Source, ...]:
    """Sources with their `authority` field set from their URL."""
    return tuple(replace(s, authority=authority(s.url)) for s in sources)


def source_trust(sources: Iterable[Source]) -> SourceTrust:
    """The aggregate trust of the sources kept for a run, from each source's `authority` field.

    Rule: `high` when no source is low and at least half are primary or reputable; `low` when at
    least half are low, or when some are low and none is primary or reputable; `mixed`
    otherwise (including all-unknown and no sources: unknown is never held against a run).
    """
    counts: dict[str, int] = {tier: 0 for tier in TIER_ORDER}
    for source in sources:
        counts[source.authority] += 1
    total = sum(counts.values())
    counts_out = {**counts, "total": total}
    trusted = counts["primary"] + counts["reputable"]
    low = counts["low"]
    if total and low == 0 and 2 * trusted >= total:
        return SourceTrust("high", counts_out)
    if total and (2 * low >= total or (low and not trusted)):
        return SourceTrust("low", counts_out)
    return SourceTrust("mixed", counts_out)
