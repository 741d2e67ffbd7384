"""Gemini and Azure OpenAI selected in every face: the library, the CLI's flags, the Research
API, the web-app dialect's `provider` and the web UI's settings page. Each run goes through the
provider's real SDK to a loopback server speaking its documented wire format, and writes a
cited answer from the test web."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import httpx

from sleuth.app.application import Sleuth
from sleuth.server.config import ServerConfig
from sleuth.settings import Settings
from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer, Received, Reply
from tests.server.harness import TESTWEB_DEFAULTS, serving
from tests.server.research_llm import CLAIM, prompt_of, research_llm
from tests.testweb.server import TestWeb

Q = "How long does Example Cloud keep audit logs by default?"
PASSWORD = "faces-password"


@dataclass
class Provider:
    name: str  # the api_format and the web-app dialect's provider
    server: FakeLLMServer
    model: str
    key: str
    path: str  # what every model call's URL path holds

    @property
    def endpoint(self) -> str:
        return self.server.url if self.name == "google" else self.server.root

    @property
    def flags(self) -> list[str]:
        return [f"--api-format={self.name}", f"--base-url={self.endpoint}",
                f"--api-key={self.key}", f"--model={self.model}"]  # fmt: skip

    @property
    def vendor_env(self) -> dict[str, str]:
        """The server environment the web-app dialect's provider reads."""
        if self.name == "google":
            return {"GEMINI_API_KEY": self.key, "GOOGLE_GEMINI_BASE_URL": self.endpoint}
        return {"AZURE_OPENAI_API_KEY": self.key, "AZURE_OPENAI_ENDPOINT": self.endpoint}

    def check_calls(self, wrote: bool = True) -> None:
        assert self.server.received, "the provider was never called"
        for received in self.server.received:
            assert self.path in received.path, received.path
            assert received.key == self.key
        writers = [r for r in self.server.received if "<sources>" in prompt_of(r)]
        assert writers or not wrote, "no call wrote the answer"


@pytest.fixture(params=["google", "azure"])
def provider(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Provider]:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "SLEUTH_BASE_URL", "SLEUTH_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    dialect = "google" if request.param == "google" else "openai"
    server = FakeLLMServer(dialect, responder=answers()).start()
    if request.param == "google":
        chosen = Provider("google", server, "gemini-2.5-flash", "gm-key-1234",
                          "/models/gemini-2.5-flash:streamGenerateContent")  # fmt: skip
    else:
        chosen = Provider("azure", server, "writer", "az-key-1234",
                          "/openai/deployments/writer/chat/completions?api-version=")  # fmt: skip
    yield chosen
    server.stop()


def answers() -> Callable[[Received], Reply]:
    """The research model; a prompt it was not scripted for (the UI's clarify step) gets an
    empty list."""
    research = research_llm(critic_rounds=0)

    def reply(received: Received) -> Reply:
        try:
            return research(received)
        except AssertionError:
            return Reply(chunks=["[]"])

    return reply


def select_by_env(provider: Provider, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "SLEUTH_API_FORMAT": provider.name,
        "SLEUTH_BASE_URL": provider.endpoint,
        "SLEUTH_API_KEY": provider.key,
        "SLEUTH_MODEL": provider.model,
    }.items():
        monkeypatch.setenv(name, value)  # fmt: skip


def check_answer(answer: str) -> None:
    assert CLAIM in answer and re.search(r"\[\d+\]", answer), answer


async def test_the_library(
    testweb_env: TestWeb, provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    select_by_env(provider, monkeypatch)
    async with Sleuth(Settings.from_env()) as app:
        result = await app.ask(Q, search="searxng", search_fallback="none")
    check_answer(result.answer)
    assert set(result.usage.by_model) == {provider.model}
    assert result.usage.by_model[provider.model].calls == len(provider.server.received)
    provider.check_calls()


def test_the_cli_flags(
    testweb_env: TestWeb, provider: Provider, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["ask", Q, "--search=searxng", "--search-fallback=none", "--json", *provider.flags]
    code, out, err = run(args, capsys)
    assert code == 0, err
    data = json.loads(out)
    check_answer(data["answer"])
    assert list(data["usage"]["llm"]["by_model"]) == [provider.model]
    assert "cost · " in err
    provider.check_calls()


def test_the_research_api(
    testweb_env: TestWeb, provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    select_by_env(provider, monkeypatch)
    with serving(defaults=TESTWEB_DEFAULTS) as served:
        headers = {"X-API-Key": served.key("acme")}
        answer = httpx.post(f"{served.api}/orgs/acme/research", json={"query": Q},
                            headers=headers, timeout=120)  # fmt: skip
    assert answer.status_code == 200, answer.text
    check_answer(answer.json()["answer"])
    provider.check_calls()


def test_the_web_app_dialects_provider(
    testweb_env: TestWeb, provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in provider.vendor_env.items():
        monkeypatch.setenv(name, value)
    config = ServerConfig(access_password=PASSWORD, allowed_providers=(provider.name,))
    body = {"query": Q, "provider": provider.name, "taskModel": provider.model,
            "searchProvider": "searxng"}  # fmt: skip
    headers = {"Authorization": f"Bearer {PASSWORD}"}
    with serving(config, defaults=TESTWEB_DEFAULTS) as served:
        reply = httpx.post(f"{served.base}/api/sse", json=body, headers=headers, timeout=300)
    assert reply.status_code == 200, reply.text
    events = [json.loads(line[6:]) for line in reply.text.splitlines() if line.startswith("data: ")]
    text = "".join(e.get("text", "") for e in events if e.get("type") == "text")
    assert CLAIM in text, reply.text[-2000:]
    assert not [e for e in events if "message" in e and e.get("type") != "text"], events[-3:]
    provider.check_calls()


def test_the_web_ui_settings_page(testweb_env: TestWeb, provider: Provider) -> None:
    config = ServerConfig(open_access=True)
    with (
        serving(config, defaults=TESTWEB_DEFAULTS) as served,
        httpx.Client(base_url=served.base, timeout=120) as client,
    ):
        page = client.get("/settings").text
        assert f'<option value="{provider.name}">' in page  # the provider list
        form = {"api_format": provider.name, "base_url": provider.endpoint,
                "api_key": provider.key, "model": provider.model, "plan_model": "",
                "search": ""}  # fmt: skip
        assert client.post("/settings", data=form).status_code == 303
        page = client.get("/settings").text
        in_use = page.split('id="in-use-h"', 1)[1].split("</section>", 1)[0]
        assert f"<code>{provider.name}</code>" in in_use
        assert f'<option value="{provider.name}" selected>' in page
        started = client.post("/runs", data={"question": Q, "depth": "quick"})
    assert started.status_code == 303, started.text
    provider.check_calls(wrote=False)  # a steered run stops at its plan, for the reader
