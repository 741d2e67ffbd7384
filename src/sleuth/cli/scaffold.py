"""The files `sleuth new-backend NAME` writes: a search backend plugin that works, with its
recorded-response test, ready to be edited into the real service's adapter.

The plugin registers through the `sleuth.plugins` entry point, exactly as Sleuth's own backends
do (`sleuth.registry`), so installing it (`pip install -e DIR`) is all it takes for
`--search=NAME` to find it. Its test replays a recorded JSON response through
`httpx2.MockTransport`: no network, no key.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from string import Template

from ..errors import UsageError

NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")

PYPROJECT = Template("""\
[project]
name = "sleuth-${name}"
version = "0.1.0"
description = "A Sleuth search backend: ${name}"
requires-python = ">=3.11"
dependencies = ["sleuth"]

[project.entry-points."sleuth.plugins"]
${name} = "sleuth_${name}:register"

[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[tool.setuptools]
py-modules = ["sleuth_${name}"]
""")

MODULE = Template('''\
"""`${name}`: a Sleuth search backend (made by `sleuth new-backend ${name}`).

It asks `GET $$SLEUTH_${upper}_URL/search?q=...&limit=...` (with `Authorization: Bearer
$$SLEUTH_${upper}_KEY` when that is set) and reads `{"results": [{"url", "title", "snippet",
"published"}]}`. Change `search` and `_result` to your service's documented request and
response, then re-record tests/recorded/search.json from a real answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sleuth.ports import SearchBackend, SearchQuery
from sleuth.registry import BackendSettings, Registries
from sleuth.search.common import Http, iso_date, require, results_of, strip_html
from sleuth.types import SearchResult

NAME = "${name}"


@dataclass(slots=True)  # not frozen: SearchBackend.name is a settable protocol member
class Backend:
    http: Http
    base_url: str
    key: str = ""
    name: str = NAME

    async def search(self, query: SearchQuery) -> list[SearchResult]:
        params: dict[str, Any] = {"q": query.text, "limit": query.limit}
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        body = await self.http.get_json(f"{self.base_url}/search", params=params, headers=headers)
        with self.http.reading():  # a reply without the documented fields is a SearchError
            return results_of(body["results"], _result)[: query.limit]


def _result(item: dict[str, Any], rank: int) -> SearchResult:
    return SearchResult(
        url=item["url"],
        title=strip_html(item.get("title") or item["url"]),
        snippet=strip_html(item.get("snippet")),
        backend=NAME,
        rank=rank,
        published=iso_date(item.get("published")),
    )


def factory(settings: BackendSettings, regs: Registries) -> SearchBackend:
    base = require(settings, "SLEUTH_${upper}_URL", NAME).rstrip("/")
    key = settings.env.get("SLEUTH_${upper}_KEY", "").strip()
    return Backend(Http.from_settings(NAME, settings), base, key)


def register(regs: Registries) -> None:
    """Called by Sleuth through the `sleuth.plugins` entry point."""
    regs.search.register(NAME, factory, summary="${name} search", needs="SLEUTH_${upper}_URL")
''')

RECORDED = Template("""\
{
  "results": [
    {
      "url": "https://docs.example.org/${name}/retention",
      "title": "Log retention &amp; export",
      "snippet": "Audit logs are kept for <b>400 days</b>.",
      "published": "2024-03-01"
    },
    {
      "url": "https://blog.example.org/${name}-audit",
      "title": "How we keep audit logs",
      "snippet": "A look at retention."
    }
  ]
}
""")

TEST = Template('''\
"""${name}: recorded responses replayed through a mock transport (no network, no key)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx2
import pytest
from sleuth.errors import MissingKeyError, RateLimitedError, SearchError
from sleuth.ports import SearchBackend, SearchQuery
from sleuth.registry import BackendSettings, Registries
from sleuth.types import SearchResult

import sleuth_${name}

RECORDED = Path(__file__).parent / "recorded"
ENV = {"SLEUTH_${upper}_URL": "https://api.example.org", "SLEUTH_${upper}_KEY": "k-123"}


def backend(handler: httpx2.MockTransport, env: dict[str, str] = ENV) -> SearchBackend:
    settings = BackendSettings(env=env, extra={"transport": handler})
    return sleuth_${name}.factory(settings, Registries())


def replay(
    status: int, body: bytes, seen: list[httpx2.Request] | None = None, retry_after: str = ""
) -> httpx2.MockTransport:
    headers = {"Retry-After": retry_after} if retry_after else {}

    def answer(request: httpx2.Request) -> httpx2.Response:
        if seen is not None:
            seen.append(request)
        return httpx2.Response(status, content=body, headers=headers)

    return httpx2.MockTransport(answer)


def search(handler: httpx2.MockTransport, text: str = "audit log retention") -> list[SearchResult]:
    return asyncio.run(backend(handler).search(SearchQuery(text, 5)))


def test_a_recorded_answer_becomes_ranked_results() -> None:
    seen: list[httpx2.Request] = []
    results = search(replay(200, (RECORDED / "search.json").read_bytes(), seen))
    assert [r.rank for r in results] == [1, 2]
    assert results[0].title == "Log retention & export"
    assert "400 days" in results[0].snippet and "<b>" not in results[0].snippet
    assert results[0].published == "2024-03-01" and results[0].backend == "${name}"
    assert seen[0].url.params["q"] == "audit log retention"
    assert seen[0].headers["Authorization"] == "Bearer k-123"


def test_a_429_is_rate_limiting() -> None:
    with pytest.raises(RateLimitedError):
        search(replay(429, b"{}", retry_after="3"))


def test_a_reply_without_results_is_a_search_error() -> None:
    with pytest.raises(SearchError):
        search(replay(200, json.dumps({"unexpected": True}).encode()))


def test_without_its_url_it_names_the_variable() -> None:
    with pytest.raises(MissingKeyError, match="SLEUTH_${upper}_URL"):
        backend(replay(200, b"{}"), env={})


def test_it_registers_like_any_plugin() -> None:
    regs = Registries()
    sleuth_${name}.register(regs)
    assert "${name}" in regs.search and regs.search.get("${name}").factory is sleuth_${name}.factory
''')

README = Template("""\
# sleuth-${name}

A Sleuth search backend made by `sleuth new-backend ${name}`.

    pip install -e .                       # registers `${name}` (entry point sleuth.plugins)
    python -m pytest tests                 # the recorded-response tests, offline
    SLEUTH_${upper}_URL=https://api.example.org sleuth search "q" --search=${name}

Edit `sleuth_${name}.py` (`search` builds the request, `_result` reads one item) and replace
`tests/recorded/search.json` with a real response of your service. See Sleuth's
docs/search-backends.md.
""")


def check_name(name: str) -> str:
    """A backend name is a lowercase Python identifier that is not a built-in's."""
    from ..registry import registries

    if not NAME.match(name) or keyword.iskeyword(name):
        raise UsageError(
            f"NAME must be lowercase letters, digits and _ (starting with a letter), not {name!r}"
        )
    if name in registries().search:
        raise UsageError(f"a search backend named {name!r} already exists; pick another name")
    return name


def files(name: str) -> dict[str, str]:
    """Each file's path (relative to the folder) and text."""
    words = {"name": name, "upper": name.upper()}
    return {
        "pyproject.toml": PYPROJECT.substitute(words),
        f"sleuth_{name}.py": MODULE.substitute(words),
        "tests/recorded/search.json": RECORDED.substitute(words),
        f"tests/test_{name}.py": TEST.substitute(words),
        "README.md": README.substitute(words),
    }


def write(name: str, folder: Path) -> list[Path]:
    """Write the plugin into `folder`, refusing to replace any file already there."""
    made = {folder / rel: text for rel, text in files(check_name(name)).items()}
    there = [str(p) for p in made if p.exists()]
    if there:
        raise UsageError(f"not replacing existing files: {', '.join(there)}")
    try:
        for path, text in made.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the backend into {folder}: {exc.strerror or exc}") from exc
    return list(made)
