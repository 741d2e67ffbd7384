"""Concurrent loopback clients for a running `sleuth serve`: each loops until the burst ends,
picking at random (seeded) among cached and fresh research (JSON), search, research streams
it leaves midway, and bad requests (bad JSON, wrong fields, huge bodies, bad auth, another
organization's path). Every answer is one `Hit`: what was asked, the status, how long it took,
and for a completed research run the session id its result names.

Clients wait a little between requests, and after a 429/503 up to the Retry-After they were
given, as a polite client would; the load is still far past what the node's run slots take.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

RESEARCH = "/api/orgs/{org}/research"
SEARCH = "/api/orgs/{org}/search"
RUNS = "/api/orgs/{org}/runs"
SSE = "/api/sse"
QUESTIONS = (  # the cached ones: a few, asked again and again
    "How long does Example Cloud keep audit logs by default?",
    "audit log retention export",
    "Example Cloud audit log retention enterprise plan",
)
HUGE = 1_500_000  # bytes of a body past the 1 MB limit
REQUEST_TIMEOUT_S = 150.0  # past a quick run's 45 s limit: only a hang reaches it


@dataclass(frozen=True, slots=True)
class Hit:
    kind: str
    method: str
    route: str  # the OpenAPI path template
    status: int  # 0: no response (the connection failed)
    ms: float
    org: str
    session_id: str | None = None  # the saved session a completed research result names
    note: str | None = None  # a client-side error, or a stream's error event


@dataclass
class Clients:
    """What the clients need: the server, a key per organization, a key without the
    research scope, and where the hits go."""

    base: str
    keys: dict[str, str]
    weak_key: str
    seed: int = 12
    hits: list[Hit] = field(default_factory=list)
    _count: int = 0

    async def burst(self, clients: int, seconds: float, stop: asyncio.Event | None = None) -> None:
        """`clients` clients for `seconds` (or until `stop` is set); each finishes the
        request it is in."""
        deadline = time.monotonic() + seconds
        stop = stop or asyncio.Event()
        await asyncio.gather(*(self._client(n, deadline, stop) for n in range(clients)))

    async def each_once(self) -> None:
        """Every kind of request once, one after the other (a warm-up)."""
        rng = random.Random(self.seed)
        async with self._http() as http:
            for kind, action in ACTIONS.items():
                if kind != "bad":
                    self.hits.append(await action(self, http, rng))
            for bad in BAD:
                self.hits.append(await self._call(bad, http, rng))
            self.hits.append(await self.leave(http, rng))

    async def leave(self, http: httpx.AsyncClient, rng: random.Random) -> Hit:
        """A fresh research stream left after its first event: with the slots free, the path a
        burst exercises only by chance on a loaded machine is exercised every time."""
        org, key = self._org(rng)
        body = {"query": rng.choice(QUESTIONS), "no_cache": True}
        headers = {"X-API-Key": key, "Accept": "text/event-stream"}
        url = RESEARCH.format(org=org)
        return await _timed("stream", "post", RESEARCH, org, _events(http, url, body, headers, 1))

    def _http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base, timeout=REQUEST_TIMEOUT_S)

    async def _client(self, n: int, deadline: float, stop: asyncio.Event) -> None:
        rng = random.Random(self.seed * 1000 + n)
        await asyncio.sleep(rng.uniform(0, 0.5))  # not all at the same instant
        kinds, weights = list(ACTIONS), [WEIGHTS[k] for k in ACTIONS]
        async with self._http() as http:
            while time.monotonic() < deadline and not stop.is_set():
                hit = await ACTIONS[rng.choices(kinds, weights)[0]](self, http, rng)
                self.hits.append(hit)
                if hit.status in (429, 503):
                    await asyncio.sleep(rng.uniform(0.2, 1.0))
                else:
                    await asyncio.sleep(rng.uniform(0.0, 0.05))

    def _org(self, rng: random.Random) -> tuple[str, str]:
        org = rng.choice(sorted(self.keys))
        return org, self.keys[org]

    def _unique(self) -> int:
        self._count += 1
        return self._count

    async def _call(self, bad: BadRequest, http: httpx.AsyncClient, rng: random.Random) -> Hit:
        org, key = self._org(rng)
        return await _timed(
            f"bad:{bad.name}", bad.method, bad.route, org, bad.send(http, org, key, self)
        )


# -- what a client asks ----------------------------------------------------------------------


async def cached(load: Clients, http: httpx.AsyncClient, rng: random.Random) -> Hit:
    """One of a few questions; half the time with the Idempotency-Key a retrying client
    would send (the same for each organization's question)."""
    org, key = load._org(rng)
    n = rng.randrange(len(QUESTIONS))
    headers = {"X-API-Key": key}
    if rng.random() < 0.5:
        headers["Idempotency-Key"] = f"{org}-{n}"
    post = http.post(RESEARCH.format(org=org), json={"query": QUESTIONS[n]}, headers=headers)
    return await _timed("cached", "post", RESEARCH, org, _answer(post, research=True))


async def fresh(load: Clients, http: httpx.AsyncClient, rng: random.Random) -> Hit:
    """A run of its own: the cache bypassed, or a question not asked before."""
    org, key = load._org(rng)
    if rng.random() < 0.5:
        body: dict[str, Any] = {"query": rng.choice(QUESTIONS), "no_cache": True}
    else:
        body = {"query": f"{rng.choice(QUESTIONS)} (case {load._unique()})"}
    return await _research("fresh", http, org, key, body)


async def search(load: Clients, http: httpx.AsyncClient, rng: random.Random) -> Hit:
    org, key = load._org(rng)
    body = {"query": rng.choice(QUESTIONS), "limit": 5}
    post = http.post(SEARCH.format(org=org), json=body, headers={"X-API-Key": key})
    return await _timed("search", "post", SEARCH, org, _answer(post))


async def stream(load: Clients, http: httpx.AsyncClient, rng: random.Random) -> Hit:
    """A research stream the client leaves after a few events (or reads to its end, when the
    cache answers at once)."""
    org, key = load._org(rng)
    body: dict[str, Any] = {"query": rng.choice(QUESTIONS)}
    if rng.random() < 0.5:
        body["no_cache"] = True
    keep = rng.randint(1, 6)
    headers = {"X-API-Key": key, "Accept": "text/event-stream"}
    return await _timed(
        "stream",
        "post",
        RESEARCH,
        org,
        _events(http, RESEARCH.format(org=org), body, headers, keep),
    )


async def bad(load: Clients, http: httpx.AsyncClient, rng: random.Random) -> Hit:
    return await load._call(rng.choice(BAD), http, rng)


async def read_runs(load: Clients, http: httpx.AsyncClient, rng: random.Random) -> Hit:
    org, key = load._org(rng)
    get = http.get(RUNS.format(org=org), params={"limit": 20}, headers={"X-API-Key": key})
    return await _timed("runs", "get", RUNS, org, _answer(get))


Action = Callable[[Clients, httpx.AsyncClient, random.Random], Awaitable[Hit]]
ACTIONS: dict[str, Action] = {
    "cached": cached,
    "fresh": fresh,
    "search": search,
    "stream": stream,
    "bad": bad,
    "runs": read_runs,
}
WEIGHTS = {"cached": 30, "fresh": 12, "search": 12, "stream": 16, "bad": 25, "runs": 5}


# -- bad requests ----------------------------------------------------------------------------

Outcome = tuple[int, str | None, str | None]  # status, session id, note
Sender = Callable[[httpx.AsyncClient, str, str, Clients], Awaitable[Outcome]]


@dataclass(frozen=True, slots=True)
class BadRequest:
    name: str
    method: str
    route: str
    send: Sender


def _post_raw(content: bytes | None, *, media: str = "application/json",
              route: str = RESEARCH) -> Sender:  # fmt: skip
    """`content` as the body (None: a chunked body past the limit)."""

    async def send(http: httpx.AsyncClient, org: str, secret: str, load: Clients) -> Outcome:
        headers = {"Content-Type": media, "X-API-Key": secret}
        body = content if content is not None else _chunks()
        return await _answer(http.post(route.format(org=org), content=body, headers=headers))

    return send


def _post_json(body: Any, *, key: str | None = None, org: str | None = None,
               route: str = RESEARCH) -> Sender:  # fmt: skip
    async def send(http: httpx.AsyncClient, own: str, secret: str, load: Clients) -> Outcome:
        use = {"own": secret, "weak": load.weak_key, "wrong": "slk_" + "0" * 40}.get(key or "own")
        headers = {"X-API-Key": use} if use else {}
        target = route.format(org=org or own)
        return await _answer(http.post(target, json=body, headers=headers))

    return send


def _no_key() -> Sender:
    async def send(http: httpx.AsyncClient, org: str, secret: str, load: Clients) -> Outcome:
        return await _answer(http.post(RESEARCH.format(org=org), json={"query": QUESTIONS[0]}))

    return send


def _get(route: str, params: dict[str, str]) -> Sender:
    async def send(http: httpx.AsyncClient, org: str, secret: str, load: Clients) -> Outcome:
        get = http.get(route.format(org=org), params=params, headers={"X-API-Key": secret})
        return await _answer(get)

    return send


async def _chunks() -> AsyncIterator[bytes]:
    """A body past the limit with no Content-Length (chunked): found too large while read."""
    yield b'{"query": "'
    for _ in range(HUGE // 65536 + 1):
        yield b"a" * 65536
    yield b'"}'


Q = QUESTIONS[0]
BAD = (
    BadRequest("json", "post", RESEARCH, _post_raw(b'{"query": "audit')),
    BadRequest("not-object", "post", RESEARCH, _post_raw(b'["audit logs"]')),
    BadRequest("form", "post", RESEARCH, _post_raw(b"query=audit", media="text/plain")),
    BadRequest("field-name", "post", RESEARCH, _post_json({"qeury": Q})),
    BadRequest("field-type", "post", RESEARCH, _post_json({"query": 12})),
    BadRequest("depth", "post", RESEARCH, _post_json({"query": Q, "depth": "abyss"})),
    BadRequest("sources", "post", RESEARCH, _post_json({"query": Q, "max_sources": -1})),
    BadRequest("empty-query", "post", RESEARCH, _post_json({"query": "   "})),
    BadRequest(
        "search-limit", "post", SEARCH, _post_json({"query": Q, "limit": 10**9}, route=SEARCH)
    ),
    BadRequest("huge", "post", RESEARCH, _post_raw(b'{"query": "' + b"a" * HUGE + b'"}')),
    BadRequest("huge-chunked", "post", RESEARCH, _post_raw(None)),
    BadRequest("no-key", "post", RESEARCH, _no_key()),
    BadRequest("wrong-key", "post", RESEARCH, _post_json({"query": Q}, key="wrong")),
    BadRequest("scope", "post", RESEARCH, _post_json({"query": Q}, key="weak")),
    BadRequest("other-org", "post", RESEARCH, _post_json({"query": Q}, org="someone-else")),
    BadRequest("runs-limit", "get", RUNS, _get(RUNS, {"limit": "many"})),
    BadRequest("run-id", "get", RUNS + "/{run_id}", _get(RUNS + "/no-such-run", {})),
    BadRequest("sse-json", "post", SSE, _post_raw(b'{"query": ', route=SSE)),
)


# -- doing and timing one request ------------------------------------------------------------


async def _research(kind: str, http: httpx.AsyncClient, org: str, key: str,
                    body: dict[str, Any]) -> Hit:  # fmt: skip
    post = http.post(RESEARCH.format(org=org), json=body, headers={"X-API-Key": key})
    return await _timed(kind, "post", RESEARCH, org, _answer(post, research=True))


async def _answer(request: Awaitable[httpx.Response], *, research: bool = False) -> Outcome:
    """The status; for a research result, its session id ("" when it names none)."""
    response = await request
    await response.aread()
    if research and response.status_code == 200:
        return 200, response.json().get("session_id") or "", None
    return response.status_code, None, _retry_note(response)


def _retry_note(response: httpx.Response) -> str | None:
    """A refusal that asks the client to come back must say when (429, 503)."""
    if response.status_code in (429, 503) and not response.headers.get("retry-after"):
        return "no Retry-After"
    return None


async def _events(http: httpx.AsyncClient, url: str, body: dict[str, Any],
                  headers: dict[str, str], keep: int) -> Outcome:  # fmt: skip
    """Read up to `keep` events, then leave (closing the connection mid-stream)."""
    async with http.stream("POST", url, json=body, headers=headers) as response:
        if response.status_code != 200:
            await response.aread()
            return response.status_code, None, _retry_note(response)
        seen, event = 0, ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
            elif line.startswith("data:") and event:
                seen += 1
                data = json.loads(line.removeprefix("data:"))
                if event == "result":
                    return 200, data.get("session_id") or "", "result"
                if event == "error":
                    return 200, None, f"error event {data.get('status')} {data.get('code')}"
                if seen >= keep:
                    return 200, None, "left"
        return 200, None, "ended"


async def _timed(kind: str, method: str, route: str, org: str,
                 outcome: Awaitable[Outcome]) -> Hit:  # fmt: skip
    started = time.monotonic()
    try:
        status, session, note = await outcome
    except httpx.HTTPError as exc:
        status, session, note = 0, None, f"{type(exc).__name__}: {exc}"
    ms = (time.monotonic() - started) * 1000
    return Hit(kind, method, route, status, ms, org, session, note)
