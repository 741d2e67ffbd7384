from __future__ import annotations

import pytest

from sleuth.llm.parse import Verdict, parse_list, parse_verdict

QUERIES = ["V8 engine developer", "Google co-founders"]


@pytest.mark.parametrize(
    "text",
    [
        '["V8 engine developer", "Google co-founders"]',
        '{"queries": ["V8 engine developer", "Google co-founders"]}',
        '{"sub_queries": [{"query": "V8 engine developer"}, {"query": "Google co-founders"}]}',
        'Here is the plan:\n```json\n["V8 engine developer", "Google co-founders"]\n```\nDone.',
        '```\n{"searches": ["V8 engine developer", "Google co-founders"]}\n```',
        'Sure! {"queries": ["V8 engine developer", "Google co-founders"]} Hope it helps.',
        "1. V8 engine developer\n2. Google co-founders",
        'Plan:\n- "V8 engine developer"\n* Google co-founders\n',
        "1) V8 engine developer\n2) Google co-founders\n2) Google co-founders",
        "<think>I should search for...\n1. wrong</think>\n"
        "1. V8 engine developer\n2. Google co-founders",
    ],
)
def test_parse_list_shapes(text: str) -> None:
    assert parse_list(text) == QUERIES


@pytest.mark.parametrize(
    "text", ["", "I cannot help with that.", "{not json", '{"answer": 42}', "[1, 2, 3]"]
)
def test_parse_list_garbage_is_empty(text: str) -> None:
    assert parse_list(text) == []


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ('{"complete": true}', Verdict(complete=True)),
        (
            '{"complete": false, "missing": ["founding year"], "queries": ["Acme founded year"]}',
            Verdict(False, ["founding year"], ["Acme founded year"]),
        ),
        (
            '```json\n{"complete": "no", "gaps": "the date", "follow_up_queries": ["q1"]}\n```',
            Verdict(False, ["the date"], ["q1"]),
        ),
        ('{"queries": ["q1", "q2"]}', Verdict(False, [], ["q1", "q2"])),
        ('{"complete": true, "queries": ["ignored"]}', Verdict(True)),
        ('["q1"]', Verdict(False, [], ["q1"])),
        ("COMPLETE", Verdict(True)),
        (
            "Missing:\n- the founding year\nQueries:\n1. Acme founding year\n2. Acme history",
            Verdict(False, ["the founding year"], ["Acme founding year", "Acme history"]),
        ),
        (
            "The answer is incomplete; search for:\n1. Acme founding year",
            Verdict(False, [], ["Acme founding year"]),
        ),
        ('<think>is it done?</think>{"complete": true}', Verdict(True)),
    ],
)
def test_parse_verdict_shapes(text: str, verdict: Verdict) -> None:
    assert parse_verdict(text) == verdict


@pytest.mark.parametrize("text", ["", "lorem ipsum", "{broken json", "<think>never ends"])
def test_garbage_verdict_is_complete_so_the_run_finishes(text: str) -> None:
    assert parse_verdict(text) == Verdict(complete=True)
