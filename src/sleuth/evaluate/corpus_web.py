"""Serve a DOCS.jsonl corpus as an offline web, so anyone can evaluate Sleuth without internet.

One loopback HTTP server, run in a background thread of the calling process:

* `GET /search?q=...&format=json` answers in SearXNG's JSON shape (point `SLEUTH_SEARXNG_URL`
  at it); ranking is SQLite FTS5 BM25 over title and text, with the title weighted double;
* requests for absolute `http://host/path` URLs are answered as a forward proxy would, with the
  corpus page at that URL rendered as an ordinary article page (point `HTTP_PROXY` at it);
* `GET /healthz` and `GET /stats` (counts of searches, page reads, misses, hung requests).

Latency and failures can be injected per page (`WebFaults`) to measure how a run copes.
Stdlib only: the evaluator must run wherever Sleuth runs.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import sqlite3
import sys
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from ..errors import UsageError

QUERY_WORD = re.compile(r"\w+", re.UNICODE)
# Words too common to help a page match (the query side of the index).
_STOP_WORDS = (
    "a an and are as at be by for from has have how i in is it its of on or that the this to "
    "was were what when where which who whom whose why will with did do does can could would "
    "should may might than then there these those their they he she his her him we you your "
    "our not no"
)
QUERY_STOP = frozenset(_STOP_WORDS.split())


@dataclass(frozen=True, slots=True)
class Doc:
    id: str
    url: str
    title: str
    text: str
    published: str | None = None


@dataclass(frozen=True, slots=True)
class HostFault:
    delay_s: float = 0.0
    status: int | None = None  # answer with this HTTP status instead of the page
    hang: bool = False  # never answer (until the server stops)


@dataclass(frozen=True, slots=True)
class WebFaults:
    latency_s: float = 0.0  # added to every page (not to search)
    hang_fraction: float = 0.0  # this share of page URLs (chosen by URL hash) never answer
    hosts: Mapping[str, HostFault] = field(default_factory=dict)  # by host suffix


def load_docs(path: Path) -> list[Doc]:
    """Read DOCS.jsonl (`id`, `url`, `title`, `text`, optional `published`), line-checked."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the corpus {path}: {exc}") from exc
    docs = [_doc(line, f"{path}:{n}") for n, line in enumerate(lines, 1) if line.strip()]
    if not docs:
        raise UsageError(f"the corpus {path} holds no pages")
    return docs


def _doc(line: str, where: str) -> Doc:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{where}: expected a JSON object")
    for key in ("id", "url", "text"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise UsageError(f"{where}: '{key}' must be a non-empty string")
    if not data["url"].startswith("http://"):
        raise UsageError(f"{where}: page URLs must start with http:// (a plain proxy serves them)")
    published = data.get("published")
    return Doc(
        data["id"],
        data["url"],
        str(data.get("title") or ""),
        data["text"],
        str(published) if published else None,
    )


def page_key(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return (parts.hostname or "").lower(), unquote(parts.path or "/") + (
        f"?{parts.query}" if parts.query else ""
    )


class CorpusIndex:
    """The pages by URL plus a full-text index over them (shared by the server's threads)."""

    def __init__(self, docs: Sequence[Doc]) -> None:
        self.pages = {page_key(d.url): d for d in docs}
        self._docs = list(self.pages.values())
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(
            "create virtual table d using fts5(title, body, tokenize='porter unicode61')"
        )
        self._db.executemany(
            "insert into d(rowid, title, body) values (?, ?, ?)",
            ((i, d.title, d.text) for i, d in enumerate(self._docs)),
        )
        self._db.commit()

    def search(self, query: str, limit: int, page: int = 1) -> list[dict[str, Any]]:
        words = [w for w in QUERY_WORD.findall(query.lower()) if len(w) > 1 and w not in QUERY_STOP]
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words[:32])
        sql = (
            "select rowid, snippet(d, 1, '', '', ' … ', 24), bm25(d, 2.0, 1.0) from d "
            "where d match ? order by bm25(d, 2.0, 1.0) limit ? offset ?"
        )
        with self._lock:
            rows = self._db.execute(sql, (match, limit, (page - 1) * limit)).fetchall()
        return [_hit(self._docs[rowid], snippet, score) for rowid, snippet, score in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _hit(doc: Doc, snippet: str, score: float) -> dict[str, Any]:
    hit: dict[str, Any] = {
        "url": doc.url,
        "title": doc.title,
        "content": snippet,
        "engine": "corpus",
        "engines": ["corpus"],
        "score": round(-score, 4),
        "category": "general",
    }
    if doc.published:
        hit["publishedDate"] = doc.published
    return hit


def render_page(doc: Doc) -> str:
    """An article page with the usual chrome around it, so extraction is exercised honestly."""
    title = html.escape(doc.title)
    paras = "\n".join(
        f"<p>{html.escape(p.strip())}</p>" for p in doc.text.splitlines() if p.strip()
    )
    head = f'<meta charset="utf-8"><title>{title}</title>'
    if doc.published:
        ld = {
            "@context": "https://schema.org",
            "@type": "Article",
            "headline": doc.title,
            "datePublished": doc.published,
        }
        head += (
            f'<meta property="article:published_time" content="{html.escape(doc.published)}">'
            f'<script type="application/ld+json">{json.dumps(ld)}</script>'
        )
    return (
        f'<!doctype html><html lang="en"><head>{head}</head><body>'
        '<header><nav><a href="/">Home</a> | <a href="/about">About</a></nav></header>'
        f"<main><article><h1>{title}</h1>\n{paras}\n</article></main>"
        '<aside><h3>Related</h3><ul><li><a href="/r1">Popular today</a></li></ul></aside>'
        "<footer><p>Copyright. All rights reserved. Privacy policy.</p></footer>"
        "</body></html>"
    )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog of 5 drops connections when a run opens ten at once, and
    # the client's SYN retry then adds a second to the page: a cost the real web does not have.
    request_queue_size = 128
    index: CorpusIndex
    faults: WebFaults
    stats: Counter[str]
    stats_lock: threading.Lock
    stopping: threading.Event

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A reader that gave up on a page (its deadline passed) closes the socket mid-answer;
        # that is the behaviour being measured, not a server error worth a traceback.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def count(self, key: str) -> None:
        with self.stats_lock:
            self.stats[key] += 1


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the evaluator's output is its report, not an access log."""

    def do_GET(self) -> None:
        if self.path.startswith(("http://", "https://")):
            self._page(self.path)
            return
        parts = urlsplit(self.path)
        if parts.path == "/search":
            self._search(parse_qs(parts.query))
        elif parts.path == "/healthz":
            self._send(200, "ok", "text/plain")
        elif parts.path == "/stats":
            with self.server.stats_lock:
                self._send(200, json.dumps(dict(self.server.stats)), "application/json")
        else:
            self.server.count("direct")
            self._send(404, "not found", "text/plain")

    def _send(self, status: int, body: str, content_type: str) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _search(self, params: dict[str, list[str]]) -> None:
        self.server.count("search")
        query = (params.get("q") or [""])[0]
        try:
            limit = max(1, min(100, int((params.get("limit") or ["10"])[0])))
            page = max(1, int((params.get("pageno") or ["1"])[0]))
        except ValueError:
            self._send(400, "limit and pageno must be integers", "text/plain")
            return
        results = self.server.index.search(query, limit, page)
        body = {
            "query": query,
            "number_of_results": len(results),
            "results": results,
            "answers": [],
            "corrections": [],
            "infoboxes": [],
            "suggestions": [],
            "unresponsive_engines": [],
        }
        self._send(200, json.dumps(body), "application/json")

    def _page(self, url: str) -> None:
        faults = self.server.faults
        host, _ = page_key(url)
        fault = _host_fault(faults, host)
        if fault.hang or _hangs(url, faults.hang_fraction):
            self.server.count("hung")
            self.server.stopping.wait()  # hold the connection open until the server stops
            return
        delay = faults.latency_s + fault.delay_s
        if delay:
            time.sleep(delay)
        if fault.status is not None:
            self._send(fault.status, "error", "text/plain")
            return
        doc = self.server.index.pages.get(page_key(url))
        self.server.count("page" if doc else "miss")
        if doc is None:
            self._send(404, "<html><body>Not found</body></html>", "text/html; charset=utf-8")
        else:
            self._send(200, render_page(doc), "text/html; charset=utf-8")


def _host_fault(faults: WebFaults, host: str) -> HostFault:
    for suffix, fault in faults.hosts.items():
        if host == suffix or host.endswith("." + suffix):
            return fault
    return HostFault()


def _hangs(url: str, fraction: float) -> bool:
    # Deterministic by URL, so the same pages hang on every run and arms stay comparable.
    return (
        fraction > 0 and int(hashlib.sha1(url.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < fraction
    )


class CorpusWeb:
    """The offline web in a background thread: `with CorpusWeb(docs) as web: web.url`."""

    def __init__(self, docs: Sequence[Doc], faults: WebFaults | None = None) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.index = CorpusIndex(docs)
        self._server.faults = faults or WebFaults()
        self._server.stats = Counter()
        self._server.stats_lock = threading.Lock()
        self._server.stopping = threading.Event()
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="sleuth-corpus-web", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def stats(self) -> dict[str, int]:
        with self._server.stats_lock:
            return dict(self._server.stats)

    def env(self) -> dict[str, str]:
        """The variables that point Sleuth's searxng backend and fetcher at this web."""
        return {
            "SLEUTH_SEARXNG_URL": self.url,
            "HTTP_PROXY": self.url,
            "http_proxy": self.url,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }

    def start(self) -> CorpusWeb:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        self._server.index.close()

    def __enter__(self) -> CorpusWeb:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m sleuth.evaluate.corpus_web DOCS.jsonl [--port-file F] [--latency S] ...`:
    the same offline web as a process of its own, so the server does not share the measured
    process's interpreter lock."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m sleuth.evaluate.corpus_web")
    parser.add_argument("docs", type=Path)
    parser.add_argument("--port-file", type=Path, help="write the chosen port here when ready")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every page")
    parser.add_argument(
        "--hang-fraction", type=float, default=0.0, help="share of page URLs that never answer"
    )
    parser.add_argument(
        "--faults",
        default="{}",
        help='per host suffix: {"host": {"delay_s": 1, "status": 500, "hang": true}}',
    )
    args = parser.parse_args(argv)
    hosts = {h: HostFault(**f) for h, f in json.loads(args.faults).items()}
    web = CorpusWeb(load_docs(args.docs), WebFaults(args.latency, args.hang_fraction, hosts))
    web.start()
    if args.port_file:
        args.port_file.write_text(web.url.rsplit(":", 1)[1], encoding="utf-8")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        web.stop()


if __name__ == "__main__":
    main()
