"""`Sleuth.graph` and `sleuth graph`: a saved run's knowledge graph from every face, with and
without a model (a loopback fake of the OpenAI wire format), and the clear errors."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from sleuth.app.application import Sleuth
from sleuth.errors import LLMNotConfigured, NotFoundError, UsageError
from sleuth.settings import Settings
from sleuth.store import SessionStore, sessions_db_path
from sleuth.store.records import SessionRecord
from tests.cli.helpers import run
from tests.graph.results import CLOUD, RIVAL, result, source
from tests.llm.fake_servers import FakeLLMServer, Reply
from tests.testweb.server import TestWeb

RELATIONS = json.dumps(
    {"relations": [{"source": "Example Cloud", "relation": "keeps audit logs for",
                    "target": "90 days", "citations": [1]}]}
)  # fmt: skip


def saved(org: str | None = None) -> str:
    record = SessionRecord.new(
        "How long are Example Cloud audit logs kept?",
        result(source(1, CLOUD), source(2, RIVAL)),
        org=org,
    )
    return SessionStore(sessions_db_path()).save(record)


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai").start()
    yield server
    server.stop()


def model(server: FakeLLMServer) -> dict[str, str]:
    return {"base_url": server.url, "api_key": "k", "model": "m"}


async def test_without_a_model_auto_draws_the_cooccurrence_graph() -> None:
    session_id = saved()
    async with Sleuth(Settings.from_env()) as app:
        graph = await app.graph(session_id[:19])
    assert graph.method == "cooccurrence" and graph.session_id == session_id
    assert graph.question == "How long are Example Cloud audit logs kept?"


async def test_with_a_model_auto_uses_it_once_per_run(llm: FakeLLMServer) -> None:
    session_id = saved()
    llm.script(Reply(chunks=[RELATIONS]))
    async with Sleuth(Settings.from_env()) as app:
        first = await app.graph(session_id, **model(llm))
        again = await app.graph(session_id, **model(llm))
    assert first.method == "llm" and len(first.edges) == 1 and again == first
    assert len(llm.received) == 1  # the page shown again costs no second call
    assert "Example Cloud keeps audit logs" in json.dumps(llm.received[0].body)


async def test_a_failing_model_falls_back_with_a_note_and_is_asked_again(
    llm: FakeLLMServer,
) -> None:
    session_id = saved()
    llm.script(Reply(status=400, error="bad request"), Reply(chunks=["no JSON at all"]))
    async with Sleuth(Settings.from_env()) as app:
        failed = await app.graph(session_id, **model(llm))
        empty = await app.graph(session_id, **model(llm))
        with pytest.raises(LLMNotConfigured, match="needs an LLM"):
            await app.graph(session_id, method="llm")
    assert failed.method == "cooccurrence" and failed.edges
    assert "the model could not draw the graph" in failed.notes[-1]
    assert empty.method == "cooccurrence" and "no relation" in empty.notes[-1]
    assert len(llm.received) == 2


async def test_unknown_ids_methods_and_other_orgs_are_clear_errors() -> None:
    session_id = saved(org="acme")
    async with Sleuth(Settings.from_env()) as app:
        with pytest.raises(UsageError, match="no session matches 'nope'"):
            await app.graph("nope")
        with pytest.raises(UsageError, match="auto, llm or cooccurrence"):
            await app.graph(session_id, method="magic")
        with pytest.raises(NotFoundError):
            await app.graph(session_id, org="other")
        assert (await app.graph(session_id, org="acme")).edges


def test_the_cli_draws_a_real_run_as_svg_json_and_mermaid(
    testweb_env: TestWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "How long does Example Cloud keep audit logs by default?"
    code, out, err = run(["ask", question, "--search=searxng", "--json"], capsys)
    assert code == 0, err
    cited = {c["number"] for c in json.loads(out)["citations"]}
    code, svg, err = run(["graph", "last"], capsys)
    assert code == 0, err
    root = ET.fromstring(svg)
    hrefs = [a.get("href", "") for a in root.iter("{http://www.w3.org/2000/svg}a")]
    assert hrefs and all(h.startswith("http://") for h in hrefs)  # standalone: to the source
    code, out, err = run(["graph", "last", "--format=json"], capsys)
    data = json.loads(out)
    assert data["method"] == "cooccurrence" and data["edges"]
    assert all(set(e["citations"]) <= cited for e in data["edges"])
    target = tmp_path / "graph.mmd"
    code, out, err = run(["graph", "last", f"--out={target}"], capsys)
    assert code == 0 and out.strip() == str(target)
    assert target.read_text().startswith("flowchart LR\n")


def test_the_cli_names_an_unknown_session_and_prints_nothing_else(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(["graph", "2020-01-01"], capsys)
    assert code == 1 and out == ""
    assert "no session matches '2020-01-01'" in err and "Traceback" not in err
    code, out, err = run(["graph", saved(), "--method=llm"], capsys)
    assert code == 1 and "--method llm needs an LLM" in err
