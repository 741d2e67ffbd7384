from __future__ import annotations

from sleuth.engine.engine import Engine
from sleuth.evaluate.runner import observe_engine
from sleuth.pipeline.write.extractive import ExtractiveWriter
from sleuth.types import ResearchRequest
from tests.engine.fakes import FakeFetcher, FakeSearch

TEXT = "Ada Lovelace wrote the first published program for the Analytical Engine in 1843."


async def test_observation_names_pages_cut_off_by_the_settle_wait() -> None:
    urls = [f"http://site{i}.example/ada" for i in range(4)]
    search = FakeSearch({"*": [(u, "Ada Lovelace", "Ada Lovelace, programmer") for u in urls]})
    fetcher = FakeFetcher({u: ("Ada Lovelace", TEXT) for u in urls}, delays={urls[3]: 30.0})
    request = ResearchRequest("Who wrote the first program?", settle_after=3, settle_wait_s=0.05)
    obs = await observe_engine(Engine(search, fetcher, ExtractiveWriter()), request)
    assert obs.result is not None and obs.error is None
    assert set(obs.read) == set(urls[:3])
    assert obs.cut == (urls[3],)


async def test_no_page_is_cut_when_every_page_arrives() -> None:
    urls = [f"http://site{i}.example/ada" for i in range(2)]
    search = FakeSearch({"*": [(u, "Ada Lovelace", "Ada") for u in urls]})
    fetcher = FakeFetcher({urls[0]: ("Ada Lovelace", TEXT)})  # the other one is a 404
    obs = await observe_engine(
        Engine(search, fetcher, ExtractiveWriter()), ResearchRequest("Who wrote it?")
    )
    assert obs.read == (urls[0],) and obs.cut == ()
    assert set(obs.candidates) == set(urls)
