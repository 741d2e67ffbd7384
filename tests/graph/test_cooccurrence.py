"""The knowledge graph without a model: entities named together in cited sentences."""

from __future__ import annotations

from sleuth.graph.cooccur import cooccurrence_graph
from sleuth.graph.entities import find_mentions
from sleuth.graph.model import mentions
from tests.graph.results import CLOUD, RIVAL, UNCITED, result, source


def labels(sentence: str) -> list[tuple[str, str]]:
    return [(m.label, m.kind) for m in find_mentions(sentence)]


def test_the_entity_rule_finds_names_dates_and_quantities() -> None:
    assert labels("However, the Bank of England raised rates by 0.5% to $5 million in 2023.") == [
        ("Bank of England", "name"),
        ("0.5%", "quantity"),
        ("$5 million", "quantity"),
        ("2023", "date"),
    ]
    assert labels("In Paris, NASA and eBay tested GPT-4 on 2024-03-05.") == [
        ("Paris", "name"),
        ("NASA", "name"),
        ("eBay", "name"),
        ("GPT-4", "name"),
        ("2024-03-05", "date"),
    ]
    # Bare numbers and numbers before a stop-word are no entities; "3.5 GB" is.
    assert labels("Since Example Cloud launched, 3 of the staff used 3.5 GB.") == [
        ("Example Cloud", "name"),
        ("3.5 GB", "quantity"),
    ]


def test_a_capitalized_word_only_at_a_sentence_start_is_not_an_entity() -> None:
    graph = cooccurrence_graph(result(source(1, "Audit logs mention Example Cloud and 90 days.")))
    names = {e.label for e in graph.entities}
    assert "Audit" not in names and {"Example Cloud", "90 days"} <= names


def test_edges_join_entities_of_one_cited_sentence_with_their_evidence() -> None:
    res = result(source(1, CLOUD), source(2, RIVAL), source(3, UNCITED), cited=(1, 2))
    graph = cooccurrence_graph(res)
    assert graph.method == "cooccurrence" and not graph.empty
    by_id = {e.id: e.label for e in graph.entities}
    pairs = {frozenset((by_id[e.source], by_id[e.target])): e for e in graph.edges}
    keeps = pairs[frozenset(("Example Cloud", "90 days"))]
    assert keeps.relation == "keeps audit logs for"
    assert keeps.citations == (1,) and keeps.evidence[0].url == "https://site1.example/page"
    both = pairs[frozenset(("Example Cloud", "Rival Cloud"))]
    assert both.citations == (2,) and "Frankfurt" in both.evidence[0].sentence
    for edge in graph.edges:  # every edge: its citations and a sentence naming both ends
        assert edge.evidence and set(edge.citations) <= {1, 2}
        for ev in edge.evidence:
            assert mentions(by_id[edge.source], ev.sentence)
            assert mentions(by_id[edge.target], ev.sentence)
    # Only cited passages are used: source 3 was given to the writer but never cited.
    assert not {"Secret Vendor", "Hidden Product", "Atlantis"} & set(by_id.values())


def test_the_same_result_always_gives_the_same_graph() -> None:
    res = result(source(1, CLOUD), source(2, RIVAL))
    assert cooccurrence_graph(res) == cooccurrence_graph(res)


def test_a_result_without_citations_gives_an_empty_graph() -> None:
    graph = cooccurrence_graph(result(source(1, CLOUD), cited=()))
    assert graph.empty and graph.entities == () and graph.to_json()["edges"] == []


def test_a_long_list_sentence_joins_at_most_the_first_entities() -> None:
    names = ", ".join(f"Company{chr(65 + i)} Group" for i in range(20))
    graph = cooccurrence_graph(result(source(1, f"Partners include {names}.")))
    assert 0 < len(graph.edges) <= 8 * 7 // 2
