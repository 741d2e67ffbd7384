"""Fan-out (`multi:a,b,c`), `auto`, and spec parsing, with scripted fake backends registered
exactly like real plugins."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from sleuth.errors import MissingKeyError, RateLimitedError, SearchError, UsageError
from sleuth.events import Event, SearchDegraded
from sleuth.ports import SearchBackend, SearchQuery
from sleuth.registry import BackendSettings, Registries, SearchFactory
from sleuth.search import auto, multi, none
from sleuth.search.spec import build_search, parse_spec
from sleuth.types import SearchResult


@dataclass
class Scripted:
    """A backend that answers with fixed URLs or raises, and counts its calls."""

    name: str
    urls: tuple[str, ...] = ()
    error: Exception | None = None
    calls: int = 0
    option: str = ""

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        self.calls += 1
        if self.error:
            raise self.error
        return [
            SearchResult(u, f"{self.name} {i}", "s", self.name, i)
            for i, u in enumerate(self.urls, 1)
        ]


@dataclass
class Fakes:
    backends: dict[str, Scripted] = field(default_factory=dict)

    def registries(self) -> Registries:
        regs = Registries()
        for module in (multi, auto, none):
            module.register(regs)
        for name, backend in self.backends.items():
            regs.search.register(name, self._factory(backend))
        return regs

    @staticmethod
    def _factory(backend: Scripted) -> SearchFactory:
        def build(settings: BackendSettings, regs: Registries) -> SearchBackend:
            backend.option = settings.option
            return backend

        return build


def run_multi(fakes: Fakes, spec: str) -> SearchBackend:
    return build_search(spec, BackendSettings(), fakes.registries())


def query(events: list[Event]) -> SearchQuery:
    return SearchQuery("q", report=events.append)


async def test_interleaves_round_robin_and_dedupes() -> None:
    fakes = Fakes(
        {
            "a": Scripted("a", ("https://one.test/1", "https://one.test/2", "https://one.test/3")),
            "b": Scripted("b", ("https://www.one.test/2/", "https://two.test/1")),
            "c": Scripted("c", ("https://one.test/1?utm_source=c#top",)),
        }
    )
    results = await run_multi(fakes, "multi:a,b,c").search(SearchQuery("q"))
    assert [(r.rank, r.backend, r.url) for r in results] == [
        (1, "a", "https://one.test/1"),
        (2, "b", "https://www.one.test/2/"),
        (3, "b", "https://two.test/1"),
        (4, "a", "https://one.test/3"),
    ]


async def test_failing_backend_is_reported_and_round_continues() -> None:
    fakes = Fakes(
        {
            "a": Scripted("a", error=SearchError("a: HTTP 500: boom", "a")),
            "b": Scripted("b", ("https://b.test/",)),
        }
    )
    events: list[Event] = []
    backend = run_multi(fakes, "multi:a,b")
    results = await backend.search(query(events))
    assert [r.url for r in results] == ["https://b.test/"]
    assert events == [SearchDegraded("a", "a: HTTP 500: boom")]
    await backend.search(query(events))
    assert fakes.backends["a"].calls == 2  # an ordinary failure is retried next round


async def test_rate_limited_backend_is_benched_for_the_run() -> None:
    fakes = Fakes(
        {
            "a": Scripted("a", error=RateLimitedError("a: rate limited (HTTP 429)", "a")),
            "b": Scripted("b", ("https://b.test/",)),
        }
    )
    events: list[Event] = []
    backend = run_multi(fakes, "multi:a,b")
    await backend.search(query(events))
    await backend.search(query(events))
    assert fakes.backends["a"].calls == 1
    assert fakes.backends["b"].calls == 2
    assert events == [SearchDegraded("a", "a: rate limited (HTTP 429)")]


async def test_all_failing_names_each_cause() -> None:
    fakes = Fakes(
        {
            "a": Scripted("a", error=SearchError("a: timed out after 10 s", "a")),
            "b": Scripted("b", error=RateLimitedError("b: rate limited (HTTP 429)", "b")),
        }
    )
    backend = run_multi(fakes, "multi:a,b")
    with pytest.raises(SearchError) as caught:
        await backend.search(SearchQuery("q"))
    assert not isinstance(caught.value, RateLimitedError)
    assert "a: timed out after 10 s" in str(caught.value)
    assert "b: rate limited (HTTP 429)" in str(caught.value)


async def test_all_benched_is_a_rate_limit_naming_them() -> None:
    fakes = Fakes({"a": Scripted("a", error=RateLimitedError("a: rate limited", "a"))})
    backend = run_multi(fakes, "multi:a")
    with pytest.raises(RateLimitedError):
        await backend.search(SearchQuery("q"))
    with pytest.raises(RateLimitedError, match="a: rate limited"):
        await backend.search(SearchQuery("q"))
    assert fakes.backends["a"].calls == 1


async def test_empty_answers_are_not_failures() -> None:
    fakes = Fakes({"a": Scripted("a"), "b": Scripted("b")})
    assert await run_multi(fakes, "multi:a,b").search(SearchQuery("q")) == []


def test_sub_specs_keep_their_options() -> None:
    fakes = Fakes({"a": Scripted("a"), "b": Scripted("b")})
    run_multi(fakes, "multi:a:superuser, b")
    assert fakes.backends["a"].option == "superuser"
    assert fakes.backends["b"].option == ""


@pytest.mark.parametrize("spec", ["multi", "multi:", "multi:a,multi:a", "nosuch", ""])
def test_bad_specs_are_usage_errors(spec: str) -> None:
    with pytest.raises(UsageError):
        run_multi(Fakes({"a": Scripted("a")}), spec)


def test_parse_spec() -> None:
    assert parse_spec(" StackExchange:superuser ") == ("stackexchange", "superuser")
    assert parse_spec("multi:duckduckgo,stackexchange:superuser") == (
        "multi",
        "duckduckgo,stackexchange:superuser",
    )


def test_missing_key_inside_multi_is_raised() -> None:
    with pytest.raises(MissingKeyError, match="SLEUTH_BRAVE_KEY"):
        build_search("multi:none,brave", BackendSettings())


async def test_none_backend_finds_nothing() -> None:
    assert await build_search("none", BackendSettings()).search(SearchQuery("q")) == []


# ---------------------------------------------------------------- auto


def auto_with(ddg: Scripted, brave: Scripted | None) -> SearchBackend:
    fakes = Fakes({"duckduckgo": ddg} | ({"brave": brave} if brave else {}))
    env = {"SLEUTH_BRAVE_KEY": "k"} if brave else {}
    return build_search("auto", BackendSettings(env=env), fakes.registries())


async def test_auto_uses_ddg_when_it_answers() -> None:
    brave = Scripted("brave", ("https://brave.test/",))
    results = await auto_with(Scripted("duckduckgo", ("https://ddg.test/",)), brave).search(
        SearchQuery("q")
    )
    assert [r.url for r in results] == ["https://ddg.test/"]
    assert brave.calls == 0


async def test_auto_falls_back_to_brave_when_ddg_fails_or_is_empty() -> None:
    brave = Scripted("brave", ("https://brave.test/",))
    events: list[Event] = []
    failing = Scripted(
        "duckduckgo", error=RateLimitedError("duckduckgo: rate limited", "duckduckgo")
    )
    results = await auto_with(failing, brave).search(query(events))
    assert [r.backend for r in results] == ["brave"]
    assert events == [SearchDegraded("duckduckgo", "duckduckgo: rate limited")]
    results = await auto_with(Scripted("duckduckgo"), brave).search(SearchQuery("q"))
    assert [r.backend for r in results] == ["brave"]


async def test_auto_without_brave_key_raises_ddg_error() -> None:
    failing = Scripted(
        "duckduckgo", error=RateLimitedError("duckduckgo: rate limited", "duckduckgo")
    )
    with pytest.raises(RateLimitedError):
        await auto_with(failing, None).search(SearchQuery("q"))


async def test_auto_both_failing_names_both() -> None:
    ddg = Scripted("duckduckgo", error=SearchError("duckduckgo: timed out", "duckduckgo"))
    brave = Scripted("brave", error=SearchError("brave: HTTP 500", "brave"))
    with pytest.raises(SearchError, match="duckduckgo: timed out; brave: HTTP 500"):
        await auto_with(ddg, brave).search(SearchQuery("q"))
