"""Search language in a run (issue 29, item 4): the planner and critic are asked for queries in
it, every search of the run carries it to the backend, and without a model the user's question
is searched as written."""

from __future__ import annotations

from dataclasses import dataclass, field

from sleuth.engine.engine import Engine, Stages
from sleuth.events import Done
from sleuth.pipeline.write.extractive import ExtractiveWriter
from sleuth.ports import SearchQuery
from sleuth.think.plan import HeuristicPlanner, ModelCritic, ModelPlanner
from sleuth.types import ResearchRequest, Result, SearchResult
from tests.engine.fakes import FakeFetcher
from tests.fakes import FakeChatModel

Q = "When did the Elbphilharmonie in Hamburg open?"
EN = "http://en.example.org/elbphilharmonie"
DE = "http://de.example.org/elbphilharmonie"
PAGES = {
    EN: ("Elbphilharmonie", "The Elbphilharmonie in Hamburg opened in January 2017."),
    DE: ("Elbphilharmonie", "Die Elbphilharmonie in Hamburg wurde im Januar 2017 eröffnet."),
}


async def research(engine: Engine, request: ResearchRequest) -> Result:
    events = [e async for e in engine.run(request)]
    assert isinstance(events[-1], Done), events[-1]
    return events[-1].result


@dataclass
class RecordingSearch:
    """A web backend that records every query it is sent, language included."""

    name: str = "recording"
    asked: list[SearchQuery] = field(default_factory=list)

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        self.asked.append(query)
        return [SearchResult(EN, "Elbphilharmonie", "", self.name, 1),
                SearchResult(DE, "Elbphilharmonie", "", self.name, 2)]  # fmt: skip


async def test_the_planner_and_critic_are_asked_for_queries_in_the_language() -> None:
    model = FakeChatModel()
    model.enqueue('["Elbphilharmonie Eröffnung"]')
    model.enqueue('{"complete": true, "missing": [], "queries": []}')
    await ModelPlanner(model).plan(Q, language="de")
    await ModelCritic(model).review(Q, "Draft [1].", [], [], language="de")
    plan, critic = (call[0].content for call in model.calls)
    for prompt in (plan, critic):
        assert "BCP 47 code de," in prompt and "question's names" in prompt
    model.enqueue('["Elbphilharmonie opening"]')
    await ModelPlanner(model).plan(Q)
    assert "BCP 47" not in model.calls[-1][0].content


async def test_a_deep_run_sends_the_language_with_every_search_and_plans_in_it() -> None:
    search, planner = RecordingSearch(), FakeChatModel("p")
    planner.enqueue('["Elbphilharmonie Hamburg Eröffnung", "Elbphilharmonie Baukosten"]')
    engine = Engine(search, FakeFetcher(PAGES), ExtractiveWriter(),
                    stages=Stages(planner=ModelPlanner(planner)))  # fmt: skip
    request = ResearchRequest(Q, depth="deep", deep_rounds=0, search_lang="de")
    result = await research(engine, request)
    assert "BCP 47 code de," in planner.calls[0][0].content
    assert [q.text for q in search.asked] == [
        Q, "Elbphilharmonie Hamburg Eröffnung", "Elbphilharmonie Baukosten"
    ]  # fmt: skip
    assert {q.language for q in search.asked} == {"de"}
    assert EN in {c.url for c in result.citations}  # an English page is still cited


async def test_without_a_model_the_question_is_searched_as_written() -> None:
    search = RecordingSearch()
    engine = Engine(search, FakeFetcher(PAGES), ExtractiveWriter())
    request = ResearchRequest(Q, search_lang="de")
    await research(engine, request)
    assert [(q.text, q.language) for q in search.asked] == [(Q, "de")]
    assert await HeuristicPlanner().plan(Q, language="de") == await HeuristicPlanner().plan(Q)
