"""A tiny questions file and corpus, written by the tests (never ../shared/bench)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

DOCS = [
    {
        "id": "d-lark",
        "url": "http://birds.example/wiki/Skylark",
        "title": "Skylark",
        "text": "The skylark is a small passerine bird. The skylark sings while hovering high "
        "above open farmland.\nIts song can last more than twenty minutes without a break.",
    },
    {
        "id": "d-otter",
        "url": "http://animals.example/otters",
        "title": "Sea otter",
        "text": "The sea otter uses stones as tools to crack open shellfish.\nSea otters have the "
        "densest fur of any animal, about one million hairs per square inch.",
    },
    {
        "id": "d-tea",
        "url": "http://food.example/tea",
        "title": "Green tea",
        "text": "Green tea is made from unoxidized leaves of Camellia sinensis.",
        "published": "2021-04-01",
    },
]
QUESTIONS = [
    {
        "id": "q1",
        "question": "how long can a skylark song last",
        "answers": ["twenty minutes"],
        "gold_doc_ids": ["d-lark"],
        "dataset": "birds",
    },
    {
        "id": "q2",
        "question": "what do sea otters use stones for",
        "answers": ["crack open shellfish", "to open shellfish"],
        "gold_doc_ids": ["d-otter"],
        "dataset": "animals",
    },
]


def write_jsonl(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
