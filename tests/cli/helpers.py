"""Running the real `sleuth` entry point in-process, as the CLI tests do."""

from __future__ import annotations

import pytest

from sleuth.cli.main import main
from tests.testweb.server import TestWeb


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `sleuth ARGS`."""
    try:
        main(args)
        code: object = 0
    except SystemExit as done:
        code = done.code
    out, err = capsys.readouterr()
    return (code if isinstance(code, int) else 1), out, err


Pages = dict[str, tuple[str, ...]]  # url -> (title, paragraph, ...)


def page(title: str, *paragraphs: str) -> str:
    """An article page: `title` as its title and heading, then `paragraphs`."""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{body}"
        "</article></body></html>"
    )


def ask_pages(
    web: TestWeb,
    capsys: pytest.CaptureFixture[str],
    pages: Pages,
    question: str,
    topic: str,
    *,
    only_topic: bool = False,
) -> tuple[str, str]:
    """Serve `pages` on the loopback web, have a search for `topic` find them (each with its
    first paragraph as the snippet; with `only_topic`, only those naming `topic` in their
    address or title), and ask `question`: the answer's lead (after the "# question"
    heading) and what `sleuth` wrote to stderr (its confidence line among it)."""
    for url, (title, *paragraphs) in pages.items():
        web.add_page(url, page(title, *paragraphs))
    hits = [
        {"url": url, "title": title, "content": paragraphs[0][:100]}
        for url, (title, *paragraphs) in pages.items()
        if not only_topic or topic in url or topic in title.lower()
    ]
    web.script_search(topic, hits)
    code, out, err = run(["ask", question, "--search=searxng", "--no-sessions"], capsys)
    assert code == 0, err
    return out.split("\n\n", 2)[1], err
