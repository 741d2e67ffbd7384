"""Every registered backend answers from the replay server / replay file, as the CLI test will
use them (`sleuth search "rust async runtime" --search=NAME --json`), with nothing configured but
the replay environment."""

from __future__ import annotations

import pytest

from sleuth.ports import SearchQuery
from sleuth.registry import BackendSettings, registries
from sleuth.search.spec import build_search

from .replay import DDGS_BACKENDS, HTTP_BACKENDS, MODEL_BACKENDS, MODEL_KEYS, ReplayServer

# None: not a web backend (local files, the knowledge base; tested in tests/kb).
SPECS = {"multi": "multi:duckduckgo,wikipedia,hackernews", "local": None, "kb": None}


def names() -> list[str]:
    return [entry.name for entry in registries().search if SPECS.get(entry.name, "") is not None]


def test_replay_covers_every_web_backend() -> None:
    web = set(names()) - {"none", "auto", "multi"}
    assert web == set(HTTP_BACKENDS) | set(DDGS_BACKENDS) | set(MODEL_BACKENDS)


@pytest.mark.parametrize("name", names())
async def test_backend_answers_from_replay(replay: ReplayServer, name: str) -> None:
    env = replay.env() | MODEL_KEYS
    backend = build_search(SPECS.get(name) or name, BackendSettings(env=env))
    results = await backend.search(SearchQuery("rust async runtime"))
    if name == "none":
        assert results == []
        return
    assert results
    assert [r.rank for r in results] == list(range(1, len(results) + 1))
    for r in results:
        assert r.url.startswith(("http://", "https://"))
        assert r.title
        assert r.published is None or len(r.published) == 10


async def test_multi_over_replay_interleaves(replay: ReplayServer) -> None:
    spec = "multi:duckduckgo,wikipedia,hackernews"
    results = await build_search(spec, BackendSettings(env=replay.env())).search(SearchQuery("q"))
    assert [r.backend for r in results[:3]] == ["duckduckgo", "wikipedia", "hackernews"]
    assert len({r.url for r in results}) == len(results)
