from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from sleuth.errors import UsageError
from sleuth.evaluate.corpus_web import CorpusWeb, HostFault, WebFaults, load_docs

from .corpus import DOCS, write_jsonl


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "docs.jsonl", DOCS)


def test_search_answers_in_searxng_shape(docs: Path) -> None:
    with CorpusWeb(load_docs(docs)) as web:
        body = httpx2.get(
            f"{web.url}/search", params={"q": "skylark song", "format": "json"}
        ).json()
        assert body["results"][0]["url"] == "http://birds.example/wiki/Skylark"
        assert (
            body["results"][0]["title"] == "Skylark" and "skylark" in body["results"][0]["content"]
        )
        tea = httpx2.get(f"{web.url}/search", params={"q": "green tea", "format": "json"}).json()
        assert tea["results"][0]["publishedDate"] == "2021-04-01"
        none = httpx2.get(f"{web.url}/search", params={"q": "the of", "format": "json"}).json()
        assert none["results"] == []
        assert web.stats["search"] == 3


def test_pages_are_served_through_the_proxy(docs: Path) -> None:
    with CorpusWeb(load_docs(docs)) as web, httpx2.Client(proxy=web.url) as client:
        page = client.get("http://animals.example/otters")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert "<h1>Sea otter</h1>" in page.text and "densest fur" in page.text
        assert client.get("http://animals.example/nowhere").status_code == 404
        assert web.stats == {"page": 1, "miss": 1}


def test_injected_faults(docs: Path) -> None:
    faults = WebFaults(hosts={"food.example": HostFault(status=503)}, hang_fraction=0.0)
    with CorpusWeb(load_docs(docs), faults) as web, httpx2.Client(proxy=web.url) as client:
        assert client.get("http://food.example/tea").status_code == 503
        assert client.get("http://birds.example/wiki/Skylark").status_code == 200
    hanging = WebFaults(hang_fraction=1.0)
    with CorpusWeb(load_docs(docs), hanging) as web, httpx2.Client(proxy=web.url) as client:
        with pytest.raises(httpx2.ReadTimeout):
            client.get("http://food.example/tea", timeout=0.3)
        assert web.stats["hung"] == 1


def test_bad_corpus_lines_name_their_line(tmp_path: Path) -> None:
    bad = dict(DOCS[0], url="https://birds.example/x")
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps(DOCS[1]) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(UsageError, match=r"docs.jsonl:2: page URLs must start with http://"):
        load_docs(path)
