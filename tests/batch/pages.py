"""Questions for batch tests, each answered by its own page on the test web; the pages can be
made slow (as the real web is) so a batch is still running when a test kills its process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.testweb.server import TestWeb

SLOW_HOST = "batch.example.org"
HANG_HOST = "stuck.example.org"
BATCH_DEFAULTS = ["--search=searxng", "--search-fallback=none", "--browser=never", "--no-cache"]


def _article(title: str, text: str) -> str:
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
        f"<p>{text}</p><p>{text}</p></article></body></html>"
    )


def add_questions(web: TestWeb, count: int, delay_s: float = 0.0) -> list[dict[str, Any]]:
    """`count` questions ("When was the zorbel-3 lighthouse built?"), each with one page."""
    lines = []
    for i in range(count):
        name = f"zorbel{i} lighthouse"
        url = f"http://{SLOW_HOST}/zorbel{i}"
        text = (
            f"The {name} was built in {1800 + i} on the northern cape. The {name} is "
            f"{20 + i} metres tall and its lamp was electrified a century after it was built."
        )
        web.add_page(url, _article(f"The {name}", text), delay_s=delay_s)
        web.script_search(f"zorbel{i} ", [{"url": url, "title": f"The {name}", "content": text}])
        lines.append({"id": f"q{i}", "question": f"When was the zorbel{i} lighthouse built?"})
    return lines


def add_hanging_question(web: TestWeb) -> dict[str, Any]:
    """A question whose only page never answers: the run ends at its time limit."""
    url = f"http://{HANG_HOST}/page"
    web.add_fault(HANG_HOST, hang=True)
    web.script_search("quagmire", [{"url": url, "title": "Quagmire", "content": "Quagmire"}])
    return {"id": "stuck", "question": "Where is the quagmire museum?", "max_runtime": "2s"}


def write_lines(path: Path, lines: list[Any]) -> Path:
    """One line per entry: objects as JSON, text as it is (to write bad lines)."""
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    path.write_text(text, encoding="utf-8")
    return path


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
