"""Keep the class closed (issue 24): in Debian's Chromium, a page from another origin — a second
loopback server on another port, which a browser calls the same site but another origin —
tries every state-changing route of an open local `sleuth serve` (forms posted into hidden
frames, `fetch` without CORS, a multipart upload to the knowledge base, an `<img>` on the live
SSE URL) and every attempt fails: the server's own access log shows each one refused with 403,
and nothing changed — no search, no saved setting, no document, no run.

On today's main the same page stored a file in the knowledge base and started runs."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from tests.server.test_route_inventory import INVENTORY, concrete
from tests.server.ui.browser import browsing, needs_browser, sleuth_serve
from tests.testweb.server import TestWeb

pytestmark = needs_browser

ATTACK = """<!doctype html><meta charset="utf-8"><title>not Sleuth</title><body><script>
const target = %(target)s, routes = %(routes)s, tried = [];
function framed(method, path, fields, multipart) {
  const frame = document.createElement("iframe"), form = document.createElement("form");
  frame.name = "f" + tried.length; form.target = frame.name;
  form.method = method; form.action = target + path;
  if (multipart) form.enctype = "multipart/form-data";
  for (const [k, v] of Object.entries(fields)) {
    const input = document.createElement("input"); input.name = k; input.value = v;
    form.appendChild(input);
  }
  document.body.append(frame, form); form.submit();
}
async function fetched(method, path, body) {
  try { await fetch(target + path, {method, body, mode: "no-cors", credentials: "include"}); }
  catch (e) { /* a refused preflight: the request never went */ }
}
(async () => {
  for (const [method, path] of routes) {
    tried.push(method + " " + path);
    const fields = {question: "Jane Doe salary", base_url: "http://evil.example/v1",
                    model: "evil", tags: "pwned", text: "x", kb: "default", lang: "es"};
    if (method === "POST") framed("POST", path, fields, false);
    const upload = new FormData();
    upload.append("file", new Blob(["the quarterly numbers"], {type: "text/plain"}), "memo.txt");
    await fetched(method, path, method === "POST" ? upload : undefined);
  }
  const img = new Image(); img.src = target + "/api/sse/live?query=Jane+Doe+salary";
  document.body.append(img);
  await new Promise(r => setTimeout(r, 1500));
  window.tried = tried;
})();
</script>"""


@contextmanager
def attacker(page: str) -> Iterator[str]:
    """Another origin on loopback serving one page."""
    body = page.encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def answered(log: Path) -> list[dict[str, object]]:
    """The server's access-log lines (one JSON object a request), the start-up probes aside."""
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith('{"ts"')]
    return [x for x in lines if x["route"] != "/healthz"]


def test_a_page_from_another_origin_changes_nothing(testweb_env: TestWeb, tmp_path: Path) -> None:
    flags = ("--search=searxng", "--search-fallback=none", "--browser=never")
    routes = sorted({(m, concrete(p)) for m, p, _, rule in INVENTORY if rule == "same-origin"})
    with sleuth_serve(tmp_path / "home", *flags) as server:
        log = server.home.parent / f"serve-{server.base.rsplit(':', 1)[1]}.log"
        page = ATTACK % {"target": json.dumps(server.base), "routes": json.dumps(routes)}
        with attacker(page) as evil, browsing(evil, tmp_path / "shots", "") as b:
            b.page.goto(evil)
            b.page.wait_for_function("window.tried !== undefined", timeout=120_000)
            tried = b.page.evaluate("window.tried")
        assert len(tried) == len(routes) > 30
        seen = answered(log)
        assert len(seen) >= len(routes)  # every route was reached at least once
        assert {x["status"] for x in seen} == {403}, [x for x in seen if x["status"] != 403]
        kb = httpx.get(server.base + "/api/orgs/local/kb").json()
        runs = httpx.get(server.base + "/api/orgs/local/runs").json()["runs"]
        assert kb == [] and runs == []
        assert not (server.home / "ui.json").exists()
        assert testweb_env.searches == []
        upload = {"file": ("memo.txt", b"the quarterly numbers", "text/plain")}
        mine = httpx.post(server.base + "/api/orgs/local/kb/files", files=upload)
        assert mine.status_code == 201  # the server is open: only the other site is refused
