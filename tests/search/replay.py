"""A loopback replay server for Sleuth's search backends, serving recorded responses.

Recorded files live in `fixtures/<backend>/` and are named `<scenario>[.<part>].<status>.<ext>`:
`success.200.json`, `ratelimited.429.json`, `success.esearch.200.json` (for a request whose last
path segment starts with `esearch`). Requests arrive at `/<backend>/...` because `env()` points
every `SLEUTH_<NAME>_ENDPOINT` there; DuckDuckGo and news answer from `SLEUTH_DDG_REPLAY`.

    with ReplayServer() as replay:
        env = replay.env()                     # endpoints, fake keys, DDG replay file
        CliRunner().invoke(cli, ["search", "rust async runtime", "--search=brave", "--json"],
                           env=env)
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

FIXTURES = Path(__file__).parent / "fixtures"
HTTP_BACKENDS = (
    "searxng",
    "brave",
    "tavily",
    "exa",
    "firecrawl",
    "crw",
    "bocha",
    "wikipedia",
    "arxiv",
    "github",
    "hackernews",
    "stackexchange",
    "pubmed",
    "semanticscholar",
    "openalex",
)
DDGS_BACKENDS = ("duckduckgo", "news")
# Search through a model (OpenAI's web search tool, Gemini's grounding): answered here too, but
# they take the model providers' own key variables, which would also configure a model for a
# run; tests add MODEL_KEYS where they use them.
MODEL_BACKENDS = ("openai", "gemini")
MODEL_KEYS = {"OPENAI_API_KEY": "replay-key", "GEMINI_API_KEY": "replay-key"}
FAKE_KEYS = (
    "SLEUTH_BRAVE_KEY",
    "SLEUTH_TAVILY_KEY",
    "SLEUTH_EXA_KEY",
    "SLEUTH_FIRECRAWL_KEY",
    "SLEUTH_BOCHA_KEY",
)
_NAME = re.compile(
    r"^(?P<scenario>[a-z]+)(?:\.(?P<part>[a-z0-9_-]+))?\.(?P<status>\d{3})\.(?P<ext>\w+)$"
)
_TYPES = {"json": "application/json", "xml": "application/atom+xml", "txt": "text/plain"}


@dataclass(frozen=True)
class Recorded:
    method: str
    backend: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    body: Any


@dataclass
class ReplayServer:
    scenario: str = "success"
    scenarios: dict[str, str] = field(default_factory=dict)  # per-backend override
    requests: list[Recorded] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def env(self, scenario: str | None = None) -> dict[str, str]:
        """Environment pointing every backend at this server (and DDG at its replay file)."""
        names = (*HTTP_BACKENDS, *MODEL_BACKENDS)
        env = {f"SLEUTH_{name.upper()}_ENDPOINT": f"{self.url}/{name}" for name in names}
        env["SLEUTH_SEARXNG_URL"] = f"{self.url}/searxng"
        ddg = FIXTURES / "duckduckgo" / f"{scenario or self.scenario}.json"
        env |= {"SLEUTH_DDG_REPLAY": str(ddg), "SLEUTH_DDG_DELAY_MS": "0"}
        return env | {key: "replay-key" for key in FAKE_KEYS}

    def fixture(self, backend: str, path: str) -> Path | None:
        scenario = self.scenarios.get(backend, self.scenario)
        part = path.rstrip("/").rsplit("/", 1)[-1].split(".")[0]
        general = None
        for file in sorted((FIXTURES / backend).glob(f"{scenario}.*")):
            match = _NAME.match(file.name)
            if match and match["scenario"] == scenario:
                if match["part"] == part:
                    return file
                general = file if match["part"] is None else general
        return general

    def __enter__(self) -> ReplayServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def _handler(replay: ReplayServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._answer(None)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self._answer(json.loads(self.rfile.read(length) or b"null"))

        def _answer(self, body: Any) -> None:
            parts = urlsplit(self.path)
            backend, _, rest = parts.path.lstrip("/").partition("/")
            replay.requests.append(
                Recorded(
                    self.command,
                    backend,
                    rest,
                    dict(parse_qsl(parts.query)),
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                )
            )
            file = replay.fixture(backend, rest)
            if file is None:
                self._send(404, b"no recorded response", "text/plain")
                return
            match = _NAME.match(file.name)
            assert match is not None
            self._send(
                int(match["status"]), file.read_bytes(), _TYPES.get(match["ext"], "text/plain")
            )

        def _send(self, status: int, data: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            if status in (429, 503):
                self.send_header("Retry-After", "30")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler
