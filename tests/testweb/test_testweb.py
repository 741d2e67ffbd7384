"""Tests of the test web itself: search shape and ranking, the proxy, recording, faults, resets,
and that the site's special pages really are what other tests rely on them to be."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.testweb import TestWeb, site

REPO = Path(__file__).resolve().parents[2]
RESULT_KEYS = {"url", "title", "content", "engine", "engines", "score", "category"}


@pytest.fixture
def client(testweb: TestWeb) -> Iterator[httpx2.Client]:
    # verify=False: everything here is plain http, and building TLS contexts costs 0.2 s each.
    with httpx2.Client(proxy=testweb.base, timeout=5, trust_env=False, verify=False) as c:
        yield c


def search(web: TestWeb, client: httpx2.Client, q: str, **params: Any) -> httpx2.Response:
    return client.get(f"{web.base}/search", params={"q": q, "format": "json", **params})


def urls(response: httpx2.Response) -> list[str]:
    return [r["url"] for r in response.json()["results"]]


# -- search -------------------------------------------------------------------------------------


def test_search_answers_in_searxng_json_shape(testweb: TestWeb, client: httpx2.Client) -> None:
    response = search(testweb, client, "asyncio TaskGroup")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    empty = ["answers", "corrections", "infoboxes", "suggestions", "unresponsive_engines"]
    assert body["query"] == "asyncio TaskGroup"
    assert all(body[key] == [] for key in empty)
    assert 0 < body["number_of_results"] == len(body["results"]) <= 10
    for result in body["results"]:
        assert result.keys() >= RESULT_KEYS
        assert result["url"].startswith("http://")
        assert isinstance(result["score"], float)
    dated = {r["url"]: r["publishedDate"] for r in body["results"] if "publishedDate" in r}
    assert dated[site.REALPYTHON.url] == site.REALPYTHON.published


@pytest.mark.parametrize(
    ("question", "expected_top"),
    [
        (
            "How long does Example Cloud keep audit logs?",
            {site.CLOUD_DOCS.url, site.CLOUD_FORUM.url},
        ),
        ("asyncio TaskGroup Python 3.11", {site.DOCS_TASKS.url}),
        ("Who co-founded the company that develops the V8 JavaScript engine?", {site.V8_ABOUT.url}),
        ("Who are the founders of Google?", {site.GOOGLE_WIKI.url}),
        ("log management retention rotation", {site.PDF_URL}),
    ],
)
def test_search_ranks_the_relevant_pages_first(
    testweb: TestWeb, client: httpx2.Client, question: str, expected_top: set[str]
) -> None:
    found = urls(search(testweb, client, question))
    assert set(found[: len(expected_top)]) == expected_top


def test_two_step_question_needs_a_second_hop(testweb: TestWeb, client: httpx2.Client) -> None:
    found = urls(search(testweb, client, "a co-founder of the company that develops V8"))
    assert site.V8_ABOUT.url in found
    assert site.GOOGLE_WIKI.url not in found


def test_problem_hosts_are_not_in_default_search(testweb: TestWeb, client: httpx2.Client) -> None:
    found = urls(search(testweb, client, "asyncio event loop guide huge page dashboard"))
    assert found
    assert not [u for u in found if ".example.org" in u]


def test_search_pages_through_results(testweb: TestWeb, client: httpx2.Client) -> None:
    first = urls(search(testweb, client, "asyncio python event loop logs", pageno=1))
    second = urls(search(testweb, client, "asyncio python event loop logs", pageno=2))
    assert len(first) == 10
    assert second
    assert not set(first) & set(second)


def test_search_accepts_a_form_post(testweb: TestWeb, client: httpx2.Client) -> None:
    form = {"q": "Example Cloud audit log retention", "format": "json"}
    response = client.post(f"{testweb.base}/search", data=form)
    assert urls(response)[0] == site.CLOUD_DOCS.url


@pytest.mark.parametrize("fmt", ["html", "csv", None])
def test_search_refuses_formats_other_than_json(
    testweb: TestWeb, client: httpx2.Client, fmt: str | None
) -> None:
    params = {"q": "asyncio"} | ({"format": fmt} if fmt else {})
    assert client.get(f"{testweb.base}/search", params=params).status_code == 403


def test_scripted_search_returns_exactly_the_given_results(
    testweb: TestWeb, client: httpx2.Client
) -> None:
    hostile = [{"url": f"{testweb.base}/secret", "title": "Totally legit", "content": "x"}]
    testweb.script_search("Legit", hostile)
    response = search(testweb, client, "a totally legit question")
    assert response.json()["results"] == hostile
    assert search(testweb, client, "a totally legit question", pageno=2).json()["results"] == []
    assert site.DOCS_TASKS.url in urls(search(testweb, client, "asyncio TaskGroup"))
    assert testweb.searches == ["a totally legit question"] * 2 + ["asyncio TaskGroup"]


def test_search_faults(testweb: TestWeb, client: httpx2.Client) -> None:
    testweb.search_mode = "error500"
    assert search(testweb, client, "asyncio").status_code == 500
    testweb.search_mode = "not_json"
    response = search(testweb, client, "asyncio")
    assert response.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        response.json()
    testweb.search_mode = "hang"
    with pytest.raises(httpx2.ReadTimeout):
        client.get(f"{testweb.base}/search", params={"q": "asyncio", "format": "json"}, timeout=0.3)
    with pytest.raises(ValueError, match="unknown search mode"):
        testweb.search_mode = "slow"  # type: ignore[assignment]


# -- proxy, hits, reset -------------------------------------------------------------------------


def test_pages_are_served_at_their_real_urls_through_the_proxy_env(testweb_env: TestWeb) -> None:
    with httpx2.Client(timeout=5, verify=False) as env_client:  # trust_env: HTTP_PROXY routes it
        response = env_client.get(site.DOCS_TASKS.url)
        secret = env_client.get(f"{testweb_env.base}/secret")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert "asyncio.TaskGroup class was added in Python 3.11" in response.text
    assert secret.status_code == 200
    assert testweb_env.hits == [site.DOCS_TASKS.url, "/secret"]


def test_https_tunnels_are_refused_and_recorded(testweb: TestWeb, client: httpx2.Client) -> None:
    with pytest.raises(httpx2.ProxyError):
        client.get("https://docs.python.org/3/")
    assert testweb.hits_for("docs.python.org") == ["https://docs.python.org/"]


def test_unknown_urls_get_a_404_page(testweb: TestWeb, client: httpx2.Client) -> None:
    response = client.get("http://docs.python.org/3/library/nonexistent.html")
    assert response.status_code == 404
    assert "Not Found" in response.text
    assert client.get(f"{testweb.base}/admin").status_code == 404


def test_hits_record_every_request(testweb: TestWeb, client: httpx2.Client) -> None:
    client.get("http://V8.dev:80/about")
    client.get("http://v8.dev/missing?x=1")
    client.get(f"{testweb.base}/secret")
    client.head(site.GOOGLE_WIKI.url)
    assert testweb.hits == [
        "http://v8.dev/about",
        "http://v8.dev/missing?x=1",
        "/secret",
        site.GOOGLE_WIKI.url,
    ]
    assert testweb.hits_for("v8.dev") == ["http://v8.dev/about", "http://v8.dev/missing?x=1"]
    assert testweb.hits_for("evil.example") == []
    assert [r.method for r in testweb.requests] == ["GET", "GET", "GET", "HEAD"]


def test_added_pages_redirects_and_reset(testweb: TestWeb, client: httpx2.Client) -> None:
    testweb.add_page("http://new.example/a", "<p>hello</p>", headers={"X-Test": "1"})
    testweb.add_page(site.V8_ABOUT.url, b"override", content_type="text/plain", status=203)
    testweb.add_redirect("http://new.example/old", "http://new.example/a", status=301)
    moved = client.get("http://new.example/old")
    assert (moved.status_code, moved.headers["location"]) == (301, "http://new.example/a")
    final = client.get("http://new.example/old", follow_redirects=True)
    assert (final.text, final.headers["x-test"]) == ("<p>hello</p>", "1")
    assert client.get(site.V8_ABOUT.url).status_code == 203
    testweb.reset()
    assert testweb.hits == []
    assert client.get("http://new.example/a").status_code == 404
    assert "V8 is Google's" in client.get(site.V8_ABOUT.url).text


@pytest.mark.parametrize("order", ["first", "second"])
def test_each_test_starts_from_a_clean_web(
    testweb: TestWeb, client: httpx2.Client, order: str
) -> None:
    # Whichever of the pair runs second would see the other's page and hits if reset failed.
    assert testweb.hits == []
    assert client.get("http://leak.example/").status_code == 404
    testweb.add_page("http://leak.example/", "left behind")
    testweb.add_fault("v8.dev", status=500)
    testweb.search_mode = "error500"
    assert client.get(site.V8_ABOUT.url).status_code == 500


# -- faults -------------------------------------------------------------------------------------


def test_default_error_and_slow_hosts(testweb: TestWeb, client: httpx2.Client) -> None:
    assert client.get(site.ERROR_URL).status_code == 500
    with pytest.raises(httpx2.ReadTimeout):
        client.get(site.SLOW_URL, timeout=0.3)
    testweb.add_fault("slow.example.org", delay_s=0.2)  # the page is there behind the delay
    assert "event loop" in client.get(site.SLOW_URL, timeout=10).text


def test_host_and_page_delays(testweb: TestWeb, client: httpx2.Client) -> None:
    testweb.add_fault("v8.dev", delay_s=0.5)
    testweb.add_page("http://late.example/", "late", delay_s=0.5)
    for url in (site.V8_ABOUT.url, "http://late.example/"):
        with pytest.raises(httpx2.ReadTimeout):
            client.get(url, timeout=0.1)
        assert client.get(url, timeout=10).status_code == 200
    testweb.clear_fault("v8.dev")
    assert client.get(site.V8_ABOUT.url, timeout=0.5).status_code == 200


def test_hanging_host_times_out_and_is_released_by_reset(
    testweb: TestWeb, client: httpx2.Client
) -> None:
    with pytest.raises(httpx2.ReadTimeout):
        client.get(site.HANG_URL, timeout=0.3)
    testweb.add_fault("docs.python.org", hang=True)
    outcome: list[BaseException] = []
    waiter = threading.Thread(target=_get_into, args=(testweb, site.DOCS_TASKS.url, outcome))
    waiter.start()
    _wait_for(lambda: site.DOCS_TASKS.url in testweb.hits)
    testweb.reset()
    waiter.join(timeout=10)
    assert not waiter.is_alive()
    assert isinstance(outcome[0], httpx2.RemoteProtocolError)  # closed without an answer


def test_stop_does_not_wait_for_hanging_requests() -> None:
    web = TestWeb().start()
    outcome: list[BaseException] = []
    waiter = threading.Thread(target=_get_into, args=(web, site.HANG_URL, outcome))
    waiter.start()
    _wait_for(lambda: site.HANG_URL in web.hits)
    web.stop()
    waiter.join(timeout=10)
    assert not waiter.is_alive()
    assert outcome


def _get_into(web: TestWeb, url: str, outcome: list[BaseException]) -> None:
    try:
        httpx2.get(url, proxy=web.base, timeout=60, trust_env=False, verify=False)
    except httpx2.HTTPError as exc:
        outcome.append(exc)


def _wait_for(condition: Any) -> None:
    for _ in range(200):
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError("condition never became true")


# -- the standalone server ----------------------------------------------------------------------


def test_runs_standalone_with_a_port_file(tmp_path: Path) -> None:
    port_file = tmp_path / "port"
    command = [sys.executable, "-m", "tests.testweb", "--port-file", str(port_file)]
    proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        base = proc.stdout.readline().decode().strip() if proc.stdout else ""
        assert base == f"http://127.0.0.1:{port_file.read_text()}"
        response = httpx2.get(
            site.V8_ABOUT.url, proxy=base, timeout=5, trust_env=False, verify=False
        )
        assert "V8 is Google's" in response.text
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
