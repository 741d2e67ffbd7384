"""The citation check catches swapped facts, not only swapped figures (issue 25, item 3): a
swapped place, a swapped person and a claim whose only matched words are its subject are each
unsupported, in a run's answer (`sleuth ask`, a scripted model on the loopback test web) and in
the UI's live edit check (`POST /runs/{id}/preview`) on that run; the right sentences stay
supported. Before, each wrong sentence passed on the words it shared with its source."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.server.research_llm import cited_number, prompt_of
from tests.testweb.pages import Article, render_article
from tests.testweb.server import TestWeb

Q = (
    "Where is Glacier Ridge Provincial Park, who wrote The Lantern Keeper, "
    "and what are Zephyr widgets?"
)
PAGES = (
    Article(
        url="http://parks.example.org/glacier-ridge",
        title="Glacier Ridge Provincial Park",
        site="Parks Guide",
        paragraphs=(
            "Glacier Ridge Provincial Park is a wilderness park in British Columbia, Canada. The "
            "park was established in 1961 and protects alpine meadows and two glacial lakes.",
        ),
    ),
    Article(
        url="http://books.example.org/lantern-keeper",
        title="The Lantern Keeper",
        site="Book Notes",
        paragraphs=(
            "The Lantern Keeper is a 1952 novel by the Welsh author Margaret Holloway. It follows "
            "a lighthouse keeper through one winter on a rocky stretch of coast.",
        ),
    ),
    Article(
        url="http://plumbing.example.org/zephyr-widgets",
        title="Zephyr widgets",
        site="Plumbing Parts",
        paragraphs=(
            "Zephyr widgets are brass fittings used in marine plumbing. Each one is cast in a "
            "small foundry and polished by hand before it is pressure tested.",
        ),
    ),
)
# (phrase that finds the cited source in the prompt, right sentence, wrong sentence)
CLAIMS = (
    (
        "British Columbia",
        "Glacier Ridge Provincial Park is a wilderness park in British Columbia, Canada",
        "Glacier Ridge Provincial Park is a wilderness park in Tasmania, Australia",
    ),
    (
        "Margaret Holloway",
        "The Lantern Keeper is a 1952 novel by the Welsh author Margaret Holloway",
        "The Lantern Keeper is a 1952 novel by the Welsh author Gwen Pritchard",
    ),
    ("brass fittings", "Zephyr widgets are brass fittings", "Zephyr widgets are radioactive"),
)
RIGHT = {right + "." for _, right, _ in CLAIMS}
WRONG = {wrong + "." for _, _, wrong in CLAIMS}


def writer(received: Received) -> Reply:
    prompt = prompt_of(received)
    if "Classify a research question" in prompt:
        return Reply(chunks=['{"type": "single"}'])
    lines = []
    for phrase, right, wrong in CLAIMS:
        n = cited_number(prompt, phrase)
        lines += [f"{right} [{n}].", f"{wrong} [{n}]."]
    return Reply(chunks=["\n\n".join(lines) + "\n"])


@pytest.fixture
def llm() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer("openai", writer).start()
    yield server
    server.stop()


def researched(web: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    for page in PAGES:
        web.add_page(page.url, render_article(page))
    hits = [{"url": p.url, "title": p.title, "content": p.paragraphs[0][:120]} for p in PAGES]
    web.script_search("glacier ridge", hits)
    args = ["ask", Q, "--search=searxng", "--search-fallback=none", "--no-cache", "--json"]
    code, out, err = run([*args, f"--base-url={llm.url}", "--api-key=k", "--model=m"], capsys)
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_swapped_names_and_subject_only_claims_are_unsupported_in_a_run(
    testweb_env: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    result = researched(testweb_env, llm, capsys)
    check = result["verification"]
    assert {u["sentence"] for u in check["unsupported"]} == WRONG
    assert check["checked"] == 6 and check["supported"] == 3


def test_the_ui_edit_check_holds_an_edit_to_the_same_rule(
    testweb_env: TestWeb, llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")
    import httpx

    from sleuth.server.config import ServerConfig
    from tests.server.harness import serving

    result = researched(testweb_env, llm, capsys)
    right_only = "\n\n".join(
        line for line in result["answer"].split("\n\n") if line.split(" [")[0] + "." in RIGHT
    )
    edits = {"right": right_only}
    for _, right, wrong in CLAIMS:
        edits[wrong] = right_only.replace(right, wrong)
    with serving(ServerConfig(open_access=True)) as served:
        url = f"{served.base}/runs/{result['session_id']}/preview"
        seen = {name: httpx.post(url, data={"text": text}).json() for name, text in edits.items()}
    assert seen["right"]["supported"] == seen["right"]["checked"] == 3, seen["right"]
    for _, _, wrong in CLAIMS:
        assert (seen[wrong]["supported"], seen[wrong]["unsupported"]) == (2, 1), (
            wrong,
            seen[wrong],
        )
        assert re.search(
            r'<mark class="unsupported"[^>]*>[^<]*' + wrong.split()[-1], seen[wrong]["html"]
        )
