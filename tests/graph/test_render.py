"""SVG, Mermaid and JSON renderings: deterministic, and hostile page text stays text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from sleuth.errors import UsageError
from sleuth.graph.cooccur import cooccurrence_graph
from sleuth.graph.extract import llm_graph
from sleuth.graph.model import Edge, Entity, Evidence, KnowledgeGraph
from sleuth.graph.render import render_graph
from tests.fakes import FakeChatModel
from tests.graph.results import CLOUD, RIVAL, result, source

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = (
    'Evil Corp "><script>alert(1)</script> acquired Example Cloud in 2024. '
    "Evil Corp <img src=x onerror=alert(2)> sells Example Cloud ]]> \x00\x1b[31m to Banks."
)


def parsed(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # raises on anything that is not well-formed XML


def assert_inert(svg: str) -> None:
    root = parsed(svg)
    for element in root.iter():
        assert element.tag.removeprefix(SVG) not in {"script", "foreignObject", "img", "iframe"}
        for name, value in element.attrib.items():
            assert not name.lower().startswith("on"), (element.tag, name)
            assert not value.strip().lower().startswith(("javascript:", "data:")), value


def test_the_svg_is_well_formed_and_every_edge_links_to_its_citation() -> None:
    graph = cooccurrence_graph(result(source(1, CLOUD), source(2, RIVAL)))
    svg = render_graph(graph, "svg")
    root = parsed(svg)
    links = root.findall(f".//{SVG}a")
    assert len(links) == len(graph.edges) > 3
    for link, edge in zip(links, graph.edges, strict=True):
        assert link.get("href") == f"#cite-{edge.citations[0]}"
        assert link.findtext(f"{SVG}title", "").endswith(edge.evidence[0].sentence)
    assert len(root.findall(f".//{SVG}circle")) == len(graph.entities)
    assert render_graph(graph, "svg") == svg  # the layout has no randomness


def test_the_svg_is_a_group_of_links_each_named_from_its_visible_label() -> None:
    """What axe-core checks in the browser: links inside role="img" are hidden from assistive
    technology (nested-interactive), and a link's name starts with the text it shows
    (label-content-name-mismatch)."""
    graph = cooccurrence_graph(result(source(1, CLOUD), source(2, RIVAL)))
    root = parsed(render_graph(graph, "svg"))
    assert root.get("role") == "group"
    for link in root.iter(f"{SVG}a"):
        shown = link.findtext(f"{SVG}text", "")
        assert shown and link.get("aria-label", "").startswith(f"{shown}: ")


def test_nodes_stay_inside_the_picture() -> None:
    graph = cooccurrence_graph(result(source(1, CLOUD), source(2, RIVAL)))
    root = parsed(render_graph(graph, "svg"))
    for circle in root.iter(f"{SVG}circle"):
        assert 0 < float(circle.get("cx", "-1")) < 960 and 0 < float(circle.get("cy", "-1")) < 640


def test_source_links_use_the_source_address_and_never_a_script_url() -> None:
    ok = Edge("e1", "e2", "r", (Evidence(1, "s", "https://a.example/x?a=1&b=2"),))
    bad = Edge("e1", "e2", "r", (Evidence(2, "s", "javascript:alert(1)"),))
    ents = (Entity("e1", "A"), Entity("e2", "B"))
    graph = KnowledgeGraph("q", "llm", ents, (ok, bad))
    svg = render_graph(graph, "svg", links="source")
    hrefs = [a.get("href") for a in parsed(svg).iter(f"{SVG}a")]
    assert hrefs == ["https://a.example/x?a=1&b=2", "#cite-2"]


def test_hostile_page_text_is_escaped_in_every_format() -> None:
    graph = cooccurrence_graph(result(source(1, HOSTILE, url="javascript:alert(3)")))
    labels = {e.label for e in graph.entities}
    assert {"Evil Corp", "Example Cloud"} <= labels
    assert any("<script>" in e.relation for e in graph.edges)  # the page's words, kept as text
    for links in ("anchor", "source"):
        svg = render_graph(graph, "svg", links=links)  # type: ignore[arg-type]
        assert_inert(svg)
        assert "<script" not in svg and "<img" not in svg and "\x1b" not in svg
        assert "&lt;script&gt;" in svg
    mermaid = render_graph(graph, "mermaid")
    assert "<" not in mermaid and ">" not in mermaid.replace("-->", "").replace("---", "")
    assert "#lt;script#gt;" in mermaid
    data = json.loads(render_graph(graph, "json"))
    assert any("<script>" in e["relation"] for e in data["edges"])  # JSON keeps the words


async def test_a_hostile_entity_name_from_the_model_is_escaped() -> None:
    name = "<img src=x onerror=alert(2)>"
    model = FakeChatModel()
    model.enqueue(json.dumps({"relations": [
        {"source": "Evil Corp", "relation": "sells", "target": name, "citations": [1]},
        {"source": "Evil Corp", "relation": '"/><script>x</script>', "target": "Example Cloud",
         "citations": [1]},
    ]}))  # fmt: skip
    graph = await llm_graph(model, result(source(1, HOSTILE)))
    assert {graph.entity(e.target).label for e in graph.edges} == {name, "Example Cloud"}
    assert_inert(render_graph(graph, "svg"))
    assert "#lt;img src=x onerror=alert(2)#gt;" in render_graph(graph, "mermaid")


def test_mermaid_labels_cannot_break_out_of_their_quotes() -> None:
    ents = (Entity("e1", 'A"] --> X["pwned'), Entity("e2", "%%{init: {'theme':'dark'}}%%"))
    edge = Edge("e1", "e2", "is | not\nnice", (Evidence(1, "s"),), directed=True)
    text = render_graph(KnowledgeGraph("q", "llm", ents, (edge,)), "mermaid")
    assert text.splitlines() == [
        "flowchart LR",
        '  e1["A#quot;] --#gt; X[#quot;pwned"]',
        "  e2[\"%%{init: {'theme':'dark'}}%%\"]",
        '  e1 -->|"is #124; not nice [1]"| e2',
    ]


def test_an_empty_graph_renders_in_every_format() -> None:
    empty = KnowledgeGraph("q?", "cooccurrence")
    svg = render_graph(empty, "svg")
    assert parsed(svg).findall(f".//{SVG}a") == [] and "No relations" in svg
    assert "No relations" in render_graph(empty, "mermaid")
    assert json.loads(render_graph(empty, "json"))["edges"] == []


def test_an_unknown_format_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="svg, json or mermaid"):
        render_graph(KnowledgeGraph("q", "llm"), "png")
