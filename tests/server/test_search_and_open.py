"""Search filters applied like a run's (domain lists, freshness), and a server with open
access (no keys created, loopback): every request is the organization `local`."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
from urllib.parse import urlsplit

import httpx

from sleuth.server.config import ServerConfig
from tests.server.harness import serving
from tests.testweb.server import TestWeb

Q = "Example Cloud audit log retention"


def test_search_applies_domain_lists_and_freshness(testweb_env: TestWeb) -> None:
    with serving() as served:
        headers = {"X-API-Key": served.key("acme")}
        url = f"{served.api}/orgs/acme/search"
        everything = httpx.post(url, json={"query": Q}, headers=headers).json()["results"]
        hosts = {urlsplit(r["url"]).hostname for r in everything}
        assert any(h and h.endswith("examplecloud.com") for h in hosts)
        body = {"query": Q, "exclude_domains": ["examplecloud.com"]}
        kept = httpx.post(url, json=body, headers=headers).json()["results"]
        assert kept and all(not urlsplit(r["url"]).hostname.endswith("examplecloud.com")
                            for r in kept)  # fmt: skip
        only = {"query": Q, "include_domains": ["docs.examplecloud.com"]}
        docs = httpx.post(url, json=only, headers=headers).json()["results"]
        assert docs and {urlsplit(r["url"]).hostname for r in docs} == {"docs.examplecloud.com"}
        recent = {"query": Q, "freshness": "2030-01-01to2030-12-31"}
        fresh = httpx.post(url, json=recent, headers=headers).json()["results"]
        dated = [r for r in everything if "published" in r]
        assert dated and fresh  # the dated pages (all older) go; undated ones stay
        assert not any("published" in r for r in fresh)
        scores = [r["score"] for r in everything]
        assert scores == sorted(scores, reverse=True) and scores[0] == 1.0


def test_relevance_scores_say_how_much_of_the_query_a_page_says_at_any_limit(
    testweb_env: TestWeb,
) -> None:
    """Issue 27: at `limit: 3` every relevance_score was 0.0 (BM25 over three on-topic pages
    gives each shared word no weight). Now a page's score is its own, whatever else was read."""
    with serving() as served:
        headers = {"X-API-Key": served.key("acme")}
        url = f"{served.api}/orgs/acme/search"
        by_limit = {}
        for limit in (3, 5):
            body = {"query": Q, "limit": limit, "search_depth": "advanced"}
            found = httpx.post(url, json=body, headers=headers, timeout=60).json()["results"]
            by_limit[limit] = {r["url"]: r["relevance_score"] for r in found if "passages" in r}
        assert len(by_limit[3]) == 3
        assert all(0.5 <= score <= 1.0 for score in by_limit[3].values()), by_limit[3]
        assert by_limit[3] == {u: by_limit[5][u] for u in by_limit[3]}


def test_relevance_is_the_share_of_the_query_a_passage_says() -> None:
    from sleuth.app.lookup import relevance
    from sleuth.types import Passage

    def score(title: str, *texts: str) -> float:
        return relevance("audit log retention period", title, [Passage(t, 0.0, 0) for t in texts])

    assert score("", "Audit logs are retained; the retention period is 90 days.") == 1.0
    assert score("", "Nothing here.", "The audit log is kept.") == 0.5  # the best passage
    assert score("Audit log retention", "The period is 90 days.") == 0.25 + 0.75 / 2
    assert (
        score("", "Pricing for storage.") == 0.0
        and score(
            "",
        )
        == 0.0
    )


def test_open_access_serves_the_local_org_without_a_key(testweb_env: TestWeb) -> None:
    with serving(ServerConfig(open_access=True)) as served:
        me = httpx.get(f"{served.api}/whoami").json()
        assert me == {"orgId": "local", "scopes": ["research", "search", "extract"], "plan": "open"}
        url = f"{served.api}/orgs/local/research"
        answer = httpx.post(url, json={"query": "How long does Example Cloud keep audit logs?"})
        assert answer.status_code == 200 and answer.json()["citations"]
        assert httpx.get(f"{served.api}/orgs/other/usage").status_code == 404
        assert len(served.store.sessions.list(org="local")) == 1
