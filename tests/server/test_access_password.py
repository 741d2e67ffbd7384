"""What the access password opens, as the README and docs/http-api.md say: the web UI, the
web-app SSE API and MCP take it; the Research API (`/api/orgs/{org}/...`, `/api/whoami`) wants
an API key, and the password presented there as a bearer token is refused."""

from __future__ import annotations

import httpx

from sleuth.server.config import ServerConfig
from tests.server.harness import serving
from tests.testweb.server import TestWeb

PASSWORD = "correct horse battery staple"
QUESTION = {"query": "How long does Example Cloud keep audit logs by default?"}


def test_the_password_does_not_open_the_research_api(testweb_env: TestWeb) -> None:
    with serving(ServerConfig(access_password=PASSWORD)) as served:
        key = served.key("acme")
        as_password = {"Authorization": f"Bearer {PASSWORD}"}
        for org in ("local", "acme"):
            refused = httpx.post(
                f"{served.api}/orgs/{org}/research", json=QUESTION, headers=as_password,
                timeout=60,
            )  # fmt: skip
            assert refused.status_code == 401, (org, refused.text)
            assert refused.json()["code"] == "UNAUTHORIZED"
        assert httpx.get(f"{served.api}/whoami", headers=as_password).status_code == 401
        assert testweb_env.searches == []  # refused before any run started
        # The same password opens the web-app SSE API; a key opens the Research API.
        with httpx.stream("POST", f"{served.api}/sse", json=QUESTION, headers=as_password) as r:
            assert r.status_code == 200 and next(r.iter_lines()) == "event: infor"
        who = httpx.get(f"{served.api}/whoami", headers={"X-API-Key": key})
        assert who.status_code == 200 and who.json()["orgId"] == "acme"
