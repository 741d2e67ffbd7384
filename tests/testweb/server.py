"""TestWeb: the loopback web every Sleuth test reads from, programmable per test.

web = TestWeb().start()
web.add_page("http://example.org/a", "<html>...</html>")
web.script_search("evil", [{"url": "http://127.0.0.1:1/secret", "title": "x", ...}])
web.add_fault("example.org", delay_s=1.0)
httpx2.get("http://example.org/a", proxy=web.base)
assert web.hits_for("example.org") == ["http://example.org/a"]
web.reset(); web.stop()
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, get_args
from urllib.parse import parse_qs, urlsplit

from tests.testweb import pdfs, problems
from tests.testweb.handler import Server
from tests.testweb.pages import HTML, Fault, Page, normalize_url
from tests.testweb.searx import SearchIndex
from tests.testweb.site import Site, default_site

SearchMode = Literal["ok", "error500", "not_json", "hang"]


@dataclass(frozen=True, slots=True)
class Request:
    """One request the server received. `target` is the absolute URL of a proxied request, or
    "/path?query" for a request to the server itself."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...]


class TestWeb:
    """A forward proxy serving the site at its real URLs, plus SearXNG JSON search."""

    __test__ = False  # not a test class, despite the name

    def __init__(self, site: Site | None = None, *, port: int = 0) -> None:
        self.site = site or default_site()
        self._index = SearchIndex(self.site.docs)
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._pages: dict[str, Page] = {}
        self._faults: dict[str, Fault] = dict(self.site.faults)
        self._scripts: list[tuple[str, list[dict[str, Any]]]] = []
        self._requests: list[Request] = []
        self._search_mode: SearchMode = "ok"
        self._server = Server(("127.0.0.1", port), self)
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> TestWeb:
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="testweb",
            daemon=True,
        )
        self._thread.start()
        # Costly bodies are built in the background so no test waits for them in a request.
        threading.Thread(target=_warm_up, name="testweb-warm-up", daemon=True).start()
        return self

    def stop(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> TestWeb:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def reset(self) -> None:
        """Back to the default site: drop overrides, scripts, faults and hits; end any hang."""
        with self._lock:
            self._pages.clear()
            self._faults = dict(self.site.faults)
            self._scripts.clear()
            self._requests.clear()
            self._search_mode = "ok"
            released, self._release = self._release, threading.Event()
        released.set()

    # -- where it is -----------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        """Environment that points Sleuth's search at this server and its HTTP through it."""
        no_proxy = "127.0.0.1,localhost"
        return {
            "SLEUTH_SEARXNG_URL": self.base,
            "HTTP_PROXY": self.base,
            "http_proxy": self.base,
            "NO_PROXY": no_proxy,
            "no_proxy": no_proxy,
        }

    # -- programming it ----------------------------------------------------------------------

    def add_page(
        self,
        url: str,
        body: str | bytes,
        *,
        content_type: str = HTML,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        delay_s: float = 0.0,
    ) -> None:
        """Serve `body` at `url` (absolute, or "/path" on the server itself) until reset."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        page = Page(url, data, content_type, status, tuple((headers or {}).items()), delay_s)
        with self._lock:
            self._pages[self._key(url)] = page

    def add_redirect(self, url: str, location: str, status: int = 302) -> None:
        body = f'<html><body><a href="{location}">Moved</a></body></html>'
        self.add_page(url, body, status=status, headers={"Location": location})

    def script_search(self, query_substring: str, results: list[dict[str, Any]]) -> None:
        """Answer any search whose query contains `query_substring` (case-insensitive) with
        exactly these SearXNG result dicts. The latest matching script wins."""
        with self._lock:
            self._scripts.append((query_substring.lower(), [dict(r) for r in results]))

    def add_fault(
        self, host: str, *, hang: bool = False, delay_s: float = 0.0, status: int | None = None
    ) -> None:
        """Make every request to `host` hang, wait `delay_s` first, or fail with `status`."""
        with self._lock:
            self._faults[host.lower()] = Fault(hang, delay_s, status)

    def clear_fault(self, host: str) -> None:
        with self._lock:
            self._faults.pop(host.lower(), None)

    @property
    def search_mode(self) -> SearchMode:
        return self._search_mode

    @search_mode.setter
    def search_mode(self, mode: SearchMode) -> None:
        if mode not in get_args(SearchMode):
            raise ValueError(f"unknown search mode {mode!r}; one of {get_args(SearchMode)}")
        self._search_mode = mode

    # -- what happened ----------------------------------------------------------------------

    @property
    def requests(self) -> list[Request]:
        with self._lock:
            return list(self._requests)

    @property
    def hits(self) -> list[str]:
        """Every request target in order: absolute URLs when proxied, "/path?query" if direct."""
        return [r.target for r in self.requests]

    def hits_for(self, host: str) -> list[str]:
        host = host.lower()
        return [h for h in self.hits if not h.startswith("/") and urlsplit(h).hostname == host]

    @property
    def searches(self) -> list[str]:
        """The `q` of every search request, in order."""
        queries = []
        for hit in self.hits:
            parts = urlsplit(hit)
            if hit.startswith("/search"):
                queries.append(parse_qs(parts.query).get("q", [""])[0])
        return queries

    # -- used by the handler ----------------------------------------------------------------

    @property
    def release_event(self) -> threading.Event:
        """Set when the current test ends or the server stops: hangs and delays end then."""
        with self._lock:
            return self._release

    def record(self, method: str, target: str, headers: Iterable[tuple[str, str]]) -> None:
        request = Request(method, target, tuple(headers))
        with self._lock:
            self._requests.append(request)

    def is_self(self, url: str) -> bool:
        parts = urlsplit(url)
        return parts.hostname in {"127.0.0.1", "localhost"} and parts.port == self.port

    def lookup(self, target: str) -> Page | None:
        """The page for a URL or own path; a query string the site does not know is ignored,
        as real sites ignore tracking parameters."""
        key = self._key(target)
        with self._lock:
            page = self._pages.get(key) or self.site.pages.get(key)
            if page is None and "?" in key:
                bare = key.split("?", 1)[0]
                page = self._pages.get(bare) or self.site.pages.get(bare)
        return page

    def fault_for(self, host: str) -> Fault:
        with self._lock:
            return self._faults.get(host.lower(), _NO_FAULT)

    def search_results(self, query: str, pageno: int) -> list[dict[str, Any]]:
        with self._lock:
            scripts = list(self._scripts)
        for substring, results in reversed(scripts):
            if substring in query.lower():
                return [dict(r) for r in results] if pageno == 1 else []
        return self._index.search(query, pageno)

    def _key(self, url: str) -> str:
        if url.startswith("/"):
            return url
        if self.is_self(url):  # the server's own paths may be named by absolute URL too
            parts = urlsplit(url)
            return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return normalize_url(url)


_NO_FAULT = Fault()


def _warm_up() -> None:
    pdfs.warm_up()
    problems.gzip_bomb_bytes()
