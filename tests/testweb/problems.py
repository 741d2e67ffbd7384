"""Hosts and pages that misbehave, for the fetcher's defences. None of them is in the default
search index: a test that wants one found points a scripted search result at it."""

from __future__ import annotations

import base64
import random
import threading
import zlib
from collections.abc import Iterator
from functools import cache

from tests.testweb.pages import Fault, Page

SLOW_HOST = "slow.example.org"
HANG_HOST = "hang.example.org"
ERROR_HOST = "error.example.org"

HANG_URL = f"http://{HANG_HOST}/never"
ERROR_URL = f"http://{ERROR_HOST}/broken"
BINARY_URL = "http://binary.example.org/download/report"
BIG_URL = "http://big.example.org/huge-page"
UNDECODABLE_URL = "http://badutf8.example.org/article"
GZIP_BOMB_URL = "http://bomb.example.org/compressed"
DRIP_URL = "http://drip.example.org/slow-drip"
SPA_URL = "http://app.example.org/spa"
SECRET_PATH = "/secret"

BIG_BYTES = 8 * 1024 * 1024
BOMB_BYTES = 100 * 1024 * 1024
DRIP_BYTES = 600  # at 2 bytes a second: five minutes, far past any sane read deadline
DRIP_INTERVAL_S = 0.5
SPA_TEXT = "The dashboard shows 42 active research sessions rendered by JavaScript."

DEFAULT_FAULTS = {
    SLOW_HOST: Fault(delay_s=2.0),
    HANG_HOST: Fault(hang=True),
    ERROR_HOST: Fault(status=500),
}


def problem_pages() -> list[Page]:
    return [
        Page(BINARY_URL, random.Random(92).randbytes(64 * 1024), "application/octet-stream"),
        Page(BIG_URL, stream=_big_html),
        Page(UNDECODABLE_URL, _undecodable_html()),
        Page(GZIP_BOMB_URL, headers=(("Content-Encoding", "gzip"),), lazy_body=gzip_bomb_bytes),
        Page(DRIP_URL, stream=_drip, stream_length=DRIP_BYTES),
        Page(SPA_URL, _spa_html()),
        Page(SECRET_PATH, b"internal admin token: do-not-leak", "text/plain; charset=utf-8"),
    ]


def _big_html(release: threading.Event) -> Iterator[bytes]:
    para = b"<p>" + b"This oversized page repeats the same filler sentence. " * 18 + b"</p>\n"
    yield b"<!doctype html><html><head><title>Huge page</title></head><body>\n"
    sent = 0
    while sent < BIG_BYTES and not release.is_set():
        chunk = para * 64
        sent += len(chunk)
        yield chunk
    yield b"</body></html>\n"


def _drip(release: threading.Event) -> Iterator[bytes]:
    for _ in range(DRIP_BYTES):
        yield b"<"
        if release.wait(DRIP_INTERVAL_S):
            return


# Held while building, so a request during the server's warm-up waits instead of building twice.
_bomb_lock = threading.Lock()


def gzip_bomb_bytes() -> bytes:
    """About 100 KB on the wire, 100 MB once decompressed: one gzip member, so any decoder that
    honours Content-Encoding inflates all of it."""
    with _bomb_lock:
        return _build_gzip_bomb()


@cache
def _build_gzip_bomb() -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    parts = [packer.compress(b"<!doctype html><html><body><p>")]
    block = b" " * (1024 * 1024)
    parts += [packer.compress(block) for _ in range(BOMB_BYTES // len(block))]
    parts.append(packer.flush())
    return b"".join(parts)


def _undecodable_html() -> bytes:
    # Claims UTF-8, but lone continuation bytes and Latin-1 bytes are invalid UTF-8.
    return (
        b"<!doctype html><html><head><meta charset='utf-8'><title>Caf\xe9 r\xe9sum\xe9</title>"
        b"</head><body><main><p>Broken bytes \x80\x81\xfe\xff in the middle of \xc3 text about "
        b"asyncio event loops.</p></main></body></html>"
    )


def _spa_html() -> bytes:
    # The text is base64 inside the script so it is not in the HTML for a non-browser reader.
    encoded = base64.b64encode(SPA_TEXT.encode()).decode()
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Research dashboard</title>
</head><body><noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
<script>
document.addEventListener("DOMContentLoaded", function () {{
  var p = document.createElement("p");
  p.id = "hydrated";
  p.textContent = atob("{encoded}");
  document.getElementById("root").appendChild(p);
}});
</script></body></html>""".encode()
