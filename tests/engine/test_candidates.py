from sleuth.pipeline.candidates import cap_per_site, fuse
from sleuth.types import Page, SearchResult
from sleuth.urls import normalize_url


def r(url: str, rank: int = 1, backend: str = "b") -> SearchResult:
    return SearchResult(url, url, "", backend, rank)


def test_pages_found_by_several_queries_rank_higher() -> None:
    first = [r("https://a.example/1"), r("https://b.example/2"), r("https://c.example/3")]
    second = [r("https://c.example/3"), r("https://d.example/4")]
    fused = [c.url for c in fuse([first, second])]
    assert fused[0] == "https://c.example/3"
    assert fused.index("https://a.example/1") < fused.index("https://d.example/4")


def test_duplicates_collapse_by_normalized_url() -> None:
    fused = fuse([[r("https://www.A.example/x/?utm_source=t#frag"), r("http://a.example/x")]])
    assert len(fused) == 1
    assert normalize_url("https://www.A.example/x/?utm_source=t&q=1#f") == "http://a.example/x?q=1"


def test_at_most_two_per_site_then_backfill_in_rank_order() -> None:
    results = [r(f"https://one.example/{i}") for i in range(4)]
    results += [r("https://two.example/x")]
    chosen = [c.url for c in cap_per_site(fuse([results]), limit=4, per_site=2)]
    assert chosen == [
        "https://one.example/0",
        "https://one.example/1",
        "https://one.example/2",
        "https://two.example/x",
    ]
    capped = [c.url for c in cap_per_site(fuse([results]), limit=3, per_site=2)]
    assert capped == ["https://one.example/0", "https://one.example/1", "https://two.example/x"]


def test_included_files_are_exempt_from_the_site_cap() -> None:
    page = Page("file:///tmp/a.md", "A", "text", "2026-01-01T00:00:00+00:00")
    local = [SearchResult(f"file:///tmp/{i}.md", "f", "", "local", i, page=page) for i in range(4)]
    chosen = cap_per_site(fuse([local]), limit=2, per_site=2)
    assert len(chosen) == 4
