from __future__ import annotations

from dataclasses import dataclass

import pytest

from sleuth.errors import UsageError
from sleuth.pipeline.trust import (
    authority,
    check_mode,
    host_of,
    order_by_authority,
    rate_sources,
    source_trust,
)
from sleuth.types import Source


@pytest.mark.parametrize(
    ("url", "tier"),
    [
        ("https://docs.python.org/3/library/sqlite3.html", "primary"),
        ("https://developer.mozilla.org/en-US/docs/Web/HTTP", "primary"),
        ("https://requests.readthedocs.io/en/latest/", "primary"),
        ("https://www.w3.org/TR/html52/", "primary"),
        ("https://datatracker.ietf.org/doc/html/rfc9110", "primary"),
        ("https://www.iso.org/standard/1.html", "primary"),
        ("https://html.spec.whatwg.org/", "primary"),
        ("https://www.nih.gov/health", "primary"),
        ("https://pubmed.ncbi.nlm.nih.gov/123/", "primary"),
        ("https://cs.stanford.edu/people", "primary"),
        ("https://www.who.int/news", "primary"),
        ("https://www.army.mil/", "primary"),
        ("https://www.gov.uk/guidance/x", "primary"),
        ("https://www.ox.ac.uk/research", "primary"),
        ("https://www.service-public.gouv.fr/", "primary"),
        ("https://docs.example-cloud.com/audit-logs", "primary"),
        ("https://developers.google.com/search", "primary"),
        ("https://en.wikipedia.org/wiki/SQLite", "reputable"),
        ("https://arxiv.org/abs/2401.00001", "reputable"),
        ("https://www.nature.com/articles/x", "reputable"),
        ("https://stackoverflow.com/questions/1", "reputable"),
        ("https://github.com/encode/httpx", "reputable"),
        ("https://www.reuters.com/world/", "reputable"),
        ("https://dl.acm.org/doi/10.1145/1", "reputable"),
        ("https://realpython.com/python-sqlite/", "reputable"),
        ("https://www.ehow.com/how_123_do-thing.html", "low"),
        ("http://m.ehow.com/x", "low"),
        ("https://www.answers.com/Q/what", "low"),
        ("https://someones-blog.net/post", "unknown"),
        ("https://gov.example.com/", "unknown"),  # `gov` as a subdomain is no signal
        ("https://notehow.com/", "unknown"),  # suffix match is by label, not by string
        ("https://wikipedia.org.evil.com/wiki/x", "unknown"),
        ("file:///home/me/notes.md", "unknown"),
        ("not a url", "unknown"),
        ("", "unknown"),
    ],
)
def test_authority_by_domain(url: str, tier: str) -> None:
    assert authority(url) == tier


def test_host_normalization() -> None:
    assert host_of("HTTPS://WWW.Example.COM.:8443/x") == "example.com"
    assert host_of("http://[::1]:80/") == "::1"


@dataclass(frozen=True)
class Cand:
    url: str


CANDS = [
    Cand("https://www.ehow.com/a"),
    Cand("https://blog.example.net/b"),
    Cand("https://en.wikipedia.org/wiki/c"),
    Cand("https://answers.com/d"),
    Cand("https://docs.python.org/e"),
    Cand("https://other.example.org/f"),
]


def _urls(items: list[Cand]) -> list[str]:
    return [c.url.split("/")[-1] for c in items]


def test_prefer_is_a_stable_sort_by_tier() -> None:
    ordered = order_by_authority(CANDS, lambda c: c.url, "prefer")
    assert _urls(ordered) == ["e", "c", "b", "f", "a", "d"]


def test_strict_drops_low_unless_everything_is_low() -> None:
    assert _urls(order_by_authority(CANDS, lambda c: c.url, "strict")) == ["e", "c", "b", "f"]
    farms = [CANDS[3], CANDS[0]]
    assert order_by_authority(farms, lambda c: c.url, "strict") == farms


def test_off_keeps_search_order() -> None:
    assert order_by_authority(CANDS, lambda c: c.url, "off") == CANDS
    assert order_by_authority([], lambda c: c.url, "strict") == []


def test_check_mode() -> None:
    assert check_mode("strict") == "strict"
    with pytest.raises(UsageError, match="prefer, strict, off"):
        check_mode("loose")


def _src(n: int, url: str) -> Source:
    return Source(number=n, url=url, title=f"t{n}", score=1.0, passages=())


def _trust(*urls: str) -> tuple[str, dict[str, int]]:
    result = source_trust(rate_sources(_src(i, u) for i, u in enumerate(urls, 1)))
    return result.label, result.counts


def test_rate_sources_sets_each_tier() -> None:
    rated = rate_sources([_src(1, "https://docs.python.org/"), _src(2, "https://ehow.com/")])
    assert [s.authority for s in rated] == ["primary", "low"]


def test_source_trust_labels() -> None:
    label, counts = _trust("https://docs.python.org/", "https://x.example/", "https://arxiv.org/")
    assert label == "high"
    assert counts == {"primary": 1, "reputable": 1, "unknown": 1, "low": 0, "total": 3}
    # half trusted and no farm is still high
    assert _trust("https://docs.python.org/", "https://x.example/")[0] == "high"
    # one farm among trusted sources: mixed
    assert (
        _trust("https://docs.python.org/", "https://arxiv.org/", "https://ehow.com/")[0] == "mixed"
    )
    # unknown is neutral
    assert _trust("https://x.example/", "https://y.example/")[0] == "mixed"
    # farms with nothing trusted, or half farms: low
    assert _trust("https://x.example/", "https://y.example/", "https://ehow.com/")[0] == "low"
    assert _trust("https://arxiv.org/", "https://ehow.com/")[0] == "low"
    assert _trust()[0] == "mixed"
