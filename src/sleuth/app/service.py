"""The service: every use case a caller reaches through a server face, decided once here.

    service = Service(app, store, Policy(run_slots=4), defaults={"search": "searxng"})
    following = await service.submit(caller, {"query": "...", "deep": 2})
    async with following:
        await following.admitted()          # or the refusal: QuotaExceeded, RateLimited, ...
        async for event in following.events():
            ...

From the `Caller` the service decides whose sessions a run is saved under, which knowledge
bases it may search (the caller's organization's only; the operator's own for the operator),
and whom it charges. Around each run it holds admission (`admission.py`), the result cache,
one run per identical request in flight — shared by every face and, through the store, by
every replica — metering, the observer's metrics, and the run's replayable log (`runs.py`).
JSON, both SSE dialects, MCP over HTTP, the web UI's stages, the graph route and queue workers
all start their work here; each face only translates its wire format.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import DeadlineExceeded, NotAllowed
from ..events import Done, Event, Failed, Searched
from ..inflight import InFlight
from ..recent import Recent
from ..store.service import ONE_SEARCH, ServiceStore, Spent, UsageReport
from ..types import SearchResult
from .admission import Admission, Clock, Kind, Observer, Policy, Tally, Unobserved
from .budget import Budget
from .caller import Caller
from .flights import Flights
from .holding import NOTHING, QUICK, Holding, Work, observed
from .metering import CachedHits, KeyCache, with_unwritten
from .options import Prepared
from .orgmodels import Sealer, Shown, chosen_elsewhere, run_values, shown
from .runs import Following, Run

if TYPE_CHECKING:
    from .application import Sleuth

T = TypeVar("T")
log = logging.getLogger("sleuth.service")


@dataclass(frozen=True, slots=True)
class Answer:
    """A research request's answer as JSON bytes, ready to send (a cache hit's are the stored
    bytes themselves)."""

    body: bytes
    cached: bool
    cost_usd: float | None = 0.0  # what the run spent on models (None: unpriced)


@dataclass(frozen=True, slots=True)
class Found:
    """A plain search's results, and whether they came from this process's search cache."""

    results: list[SearchResult]
    cached: bool


class Service:
    def __init__(
        self,
        app: Sleuth,
        store: ServiceStore,
        policy: Policy | None = None,
        *,
        defaults: Mapping[str, Any] | None = None,
        clock: Clock = time.time,
        observer: Observer | None = None,
        secret_key: str | None = None,
    ) -> None:
        self.app, self.store = app, store
        self.sealer = Sealer(secret_key)  # opens the organizations' own model keys
        self.policy = policy or Policy()
        self.defaults = dict(defaults or {})  # the operator's run settings (backend, model...)
        self.clock = clock
        self.observer = observer or Unobserved()
        self.admission = Admission(store, self.policy, clock, self.observer)
        self.flights = Flights(store, clock)
        self.keys = KeyCache(store, clock)
        self.meter = CachedHits(store, clock)
        self._shared: dict[tuple[str, str], Run] = {}  # research in flight, by request
        self._seen = Recent[tuple[Any, ...], tuple[Prepared, str]](SEEN_KEPT)
        self._reports = Recent[tuple[str, int], tuple[UsageReport, tuple[int, int]]](
            REPORTS_KEPT, ttl_s=REPORT_REUSE_S
        )
        ttl = self.policy.result_ttl_s
        self._bodies = Recent[tuple[str, str], bytes](BODIES_KEPT, ttl_s=ttl, clock=clock)
        self._searches = Recent[tuple[str, str], tuple[SearchResult, ...]](
            SEARCHES_KEPT, ttl_s=ttl, clock=clock
        )
        self._searching = InFlight[tuple[str, str], tuple[SearchResult, ...]]()
        self.held = Holding(self.admission, self.observer)  # every run this process holds

    # -- who may use what -----------------------------------------------------------------------

    async def caller_for(self, secret: str) -> Caller | None:
        """The caller an API key stands for (None: no such active key). Lookups are cached a
        few seconds: a revoked key is refused within `KEY_CACHE_S` on every replica, at once on
        the one that revoked it."""
        return await self.keys.caller(secret)

    async def with_model(self, caller: Caller) -> Caller:
        """`caller` with its organization's own model, if it has one (a caller not made from
        a key lookup: a batch's, a ticket's)."""
        if caller.is_local:
            return caller
        return replace(caller, model=await self.store.org_model(caller.org))

    def prepare(self, caller: Caller, values: Mapping[str, Any]) -> Prepared:
        """A run for `caller`: the operator's defaults (or its organization's own model), then
        the request's values, searching only the caller's knowledge bases and saved under the
        caller's organization."""
        self._check_models(caller, values)
        merged = {**self.defaults, **values, **self._own_model(caller)}
        question = str(merged.pop("query", "") or merged.pop("question", ""))
        if kb := merged.pop("kb", None):
            merged["search"] = with_kb(str(merged.get("search") or "duckduckgo"), str(kb))
        merged["kb_owner"] = caller.org  # whatever searches a knowledge base searches these
        prepared = self.app.prepare(question, **merged)
        return replace(prepared, saving=replace(prepared.saving, org=caller.org))

    def _prepared(self, caller: Caller, values: Mapping[str, Any]) -> tuple[Prepared, str]:
        """The prepared run and its fingerprint, remembered for requests seen lately: a cache
        hit then costs a dictionary lookup, not the preparing of a run it will not start."""
        try:
            seen = (caller.org, caller.model, json.dumps(values, sort_keys=True, default=repr))
        except (TypeError, ValueError):  # values that do not print alike: prepare afresh
            prepared = self.prepare(caller, values)
            return prepared, fingerprint(prepared)
        found = self._seen.get(seen)
        if found is None:
            prepared = self.prepare(caller, values)
            found = self._seen.put(seen, (prepared, fingerprint(prepared)))
        return found

    def _own_model(self, caller: Caller) -> dict[str, Any]:
        """The model settings of the caller's organization's own model (its key opened), or
        none: it runs on the operator's."""
        return {} if caller.model is None else run_values(caller.model, self.sealer)

    def _check_models(self, caller: Caller, values: Mapping[str, Any]) -> None:
        """A request runs on the operator's model unless the operator allows more: a model
        named in `policy.models`, an endpoint in `policy.endpoints` (with the server's key for
        it). Never another of the operator's keys by naming a provider. An organization with
        its own model runs on that one only."""
        if caller.model is not None:
            name = chosen_elsewhere(caller.model, values)
            if name is not None:
                raise NotAllowed(
                    "this organization's runs use the model its operator set for it; a "
                    f"request cannot choose another ({name})",
                    setting=name,
                )
            return
        endpoint = values.get("base_url")
        own = endpoint is None or endpoint == self.defaults.get("base_url")
        if not own and endpoint not in self.policy.endpoints:
            raise NotAllowed(
                "this server does not let a request pick its model endpoint (provider); its "
                "operator can allow providers (allowed_providers)",
                setting="base_url",
            )
        for name in ("model", "plan_model", "critic_model"):
            chosen = values.get(name)
            if chosen is None or chosen == self.defaults.get(name):
                continue
            if own and chosen not in self.policy.models:
                raise NotAllowed(
                    f"this server does not let a request choose the model {chosen!r}; its "
                    "operator can allow models (allowed_models)",
                    setting=name,
                )

    def values(self, caller: Caller, values: Mapping[str, Any]) -> dict[str, Any]:
        """Setting values for a lookup (search, extract, a graph) by `caller`: the operator's
        defaults (or the organization's own model), the request's values, and the caller's
        knowledge bases only."""
        return {**self.defaults, **values, **self._own_model(caller), "kb_owner": caller.org}

    async def org_model(self, caller: Caller) -> Shown:
        """The model the caller's organization's runs use, as it may be shown (never the
        key): its own, or none (the server's)."""
        return shown(caller.org, await self.store.org_model(caller.org))

    async def count_request(self, caller: Caller) -> None:
        """A request that starts work (an upload, a batch) against the organization's
        per-minute limit; raises RateLimited when it is reached."""
        await self.admission.count_request(caller)

    async def usage(self, caller: Caller, *, days: int = 31) -> UsageReport:
        """The caller's organization's use this month and per day, with this process's answers
        from the cache not written yet (never waiting for the store's writer: a batch being
        written shows once it is). A report is reused for up to a second while nothing here was
        metered meanwhile: a dashboard polling it costs one query a second, not one a poll."""
        marks = (self.meter.total, self.admission.settled)
        seen = self._reports.get((caller.org, days))
        if seen is not None and seen[1] == marks:
            return seen[0]
        now = self.clock()
        stored = await self.store.usage(caller.org, now=now, days=days)
        report = with_unwritten(stored, self.meter.unwritten(caller.org), now)
        self._reports.put((caller.org, days), (report, marks))
        return report

    # -- research -------------------------------------------------------------------------------

    async def submit(
        self, caller: Caller, values: Mapping[str, Any], *, no_cache: bool = False,
        keep: bool = False,
    ) -> Following:  # fmt: skip
        """Follow the run of this request: the cache's answer, the identical run in flight
        (here or on another replica), or a new one. `keep`: the run goes on if this follower
        leaves (its answer lands in the cache for a retry). The refusal, if any, is raised by
        `Following.admitted()`."""
        await self.admission.count_request(caller)
        prepared, key = self._prepared(caller, _afresh(values, no_cache))
        if not no_cache and (body := await self._hit(caller, key)) is not None:
            return (await self._from_cache(caller.org, key, body)).follow()
        return self._follow(caller, prepared, key, no_cache=no_cache, keep=keep)

    async def _hit(self, caller: Caller, key: str) -> bytes | None:
        """The cached answer, if any: from this process's memory while it is fresh (an entry
        never changes until it expires, so the store is asked once per entry, not per hit)."""
        known = self._bodies.get((caller.org, key))
        if known is not None:
            return known
        found = await self.store.cached(
            caller.org, key, now=self.clock(), ttl_s=self.policy.result_ttl_s
        )
        if found is None:
            return None
        return self._bodies.put((caller.org, key), found.body, at=found.at)  # expires with it

    def _follow(
        self, caller: Caller, prepared: Prepared, key: str, *, no_cache: bool, keep: bool
    ) -> Following:
        # A request that refuses the cache shares only with others that do: it must not be
        # answered by a run that ends up reading the cache.
        flight = f"{key}:fresh" if no_cache else key
        run = self._shared.get((caller.org, flight))
        if run is None or run.abandoned:
            run = self._research(caller, prepared, key, flight)
        else:
            self.observer.hit("shared")
        return run.follow(keep=keep)

    async def answer(
        self, caller: Caller, values: Mapping[str, Any], *, no_cache: bool = False
    ) -> Answer:
        """The research request's answer as JSON (the run keeps going if the caller leaves). A
        cache hit is the stored bytes, found with no run object made."""
        await self.admission.count_request(caller)
        prepared, key = self._prepared(caller, _afresh(values, no_cache))
        if not no_cache and (body := await self._hit(caller, key)) is not None:
            self.observer.hit("cache")
            self.meter.count(caller.org)
            return Answer(body, True)
        following = self._follow(caller, prepared, key, no_cache=no_cache, keep=True)
        async with following:
            await following.admitted()
            if following.run.cached_body is not None:
                return Answer(following.run.cached_body, True)
            try:
                result = await following.result()
            except DeadlineExceeded as exc:
                exc.queries = tuple(searched(following.run.log.events))
                raise
        data = result.to_json()
        return Answer(_dumps(data), bool(data.get("cached")), result.usage.cost_usd)

    async def _from_cache(self, org: str, key: str, body: bytes) -> Run:
        run = Run(f"cache-{key[:12]}", org, "research")
        await self._answer_cached(run, body)
        return run

    async def _answer_cached(self, run: Run, body: bytes) -> None:
        """Answer `run` with a cached result: admitted at once; its one `Done` is parsed only
        when a follower reads events (a JSON answer sends the stored bytes as they are)."""
        self.observer.hit("cache")
        self.meter.count(run.org)
        run.cached_body = body
        if not run.admitted.done():
            run.admitted.set_result(None)

    def _research(self, caller: Caller, prepared: Prepared, key: str, flight: str) -> Run:
        run = Run(secrets.token_urlsafe(12), caller.org, "research")
        self._shared[(caller.org, flight)] = run
        self.held.hold(run, self._drive(run, caller, prepared, key, flight))
        return run

    async def _drive(
        self, run: Run, caller: Caller, prepared: Prepared, key: str, flight: str
    ) -> None:
        """The one run of a request: another process's, followed through the store, or ours.
        `key` is where its result is cached; `flight`, what identical requests share."""
        org, ttl = caller.org, self.policy.result_ttl_s
        try:
            while True:
                claim = await self.flights.claim(org, flight, key if flight == key else None, ttl)
                if claim.body is not None:
                    await self._answer_cached(run, claim.body)
                    return
                if claim.ours:
                    break
                if not run.admitted.done():  # shared with another process: nothing to admit
                    self.observer.hit("shared")
                    run.admitted.set_result(None)
                if await self.flights.follow(org, flight, run.log):
                    return
            try:
                await self._own(run, caller, prepared, key, flight)
            finally:
                await self.flights.end(org, flight)
        finally:
            if self._shared.get((org, flight)) is run:
                del self._shared[(org, flight)]

    async def _own(
        self, run: Run, caller: Caller, prepared: Prepared, key: str, flight: str
    ) -> None:
        """Run it here, admitted: its events go to the log and the shared log, its result to
        the cache."""
        async with self.admission.slot(caller, "run", wanted(prepared)) as tally:
            if not run.admitted.done():
                run.admitted.set_result(None)
            shipper = self.flights.shipper(caller.org, flight)
            budget = Budget.of(tally.allowance)
            async with observed(self.observer, "research", prepared.request.depth) as outcome:
                async for event in self.app.run(prepared, budget=budget):
                    tally(event)
                    if isinstance(event, Done):
                        tally.searches = event.result.usage.searches
                        tally.pages = event.result.usage.pages_read
                        await self._cache(caller.org, key, event)
                    outcome[0] = _outcome(event, outcome[0])
                    run.log.publish(event)
                    shipper.add(event)
                    await shipper.maybe_flush()
                await shipper.flush()

    async def _cache(self, org: str, key: str, done: Done) -> None:
        data = done.result.to_json()
        data["cached"] = True  # the stored body is only ever served as a cache hit
        await self.store.cache(org, key, _dumps(data), now=self.clock())

    # -- other work with a log: the web UI's stages, a graph's model calls, batch items ---------

    def start(self, caller: Caller, kind: str, work: Work[T], *, want: Spent = QUICK) -> Run:
        """Start `work` once admitted in a run slot; its events go to the run's log, which a
        page follows by the run's id (`run_of`). The work's value is `run.value` once done."""
        return self.held.start(caller, kind, work, want=want)

    async def perform(
        self, caller: Caller, kind: str, work: Work[T], *, want: Spent = NOTHING
    ) -> T:
        """Do admitted `work` and return its value, or raise its error (a graph's model calls,
        a batch item, a step of the web UI)."""
        return await self.held.perform(caller, kind, work, want=want)

    def run_of(self, caller: Caller, run_id: str) -> Run | None:
        """A run this process holds, when it is the caller's organization's."""
        return self.held.run_of(caller, run_id)

    def running(self) -> int:
        """Runs not finished (a metric: zero when idle)."""
        return self.held.running()

    def pending(self) -> int:
        """Run tasks not done yet (a metric: zero when idle)."""
        return self.held.pending()

    async def aclose(self) -> None:
        """Cancel work still going (its clients are gone: the server is stopping)."""
        await self.held.aclose()
        await self.meter.aclose()

    # -- lookups --------------------------------------------------------------------------------

    async def search(
        self,
        caller: Caller,
        query: str,
        values: Mapping[str, Any],
        *,
        limit: int,
        no_cache: bool = False,
    ) -> Found:
        """One plain search for `caller` (nothing read). The same search by the same
        organization within the result cache's time is answered from this process's memory,
        and one already asked of the backend is waited for rather than asked again: no slot
        taken, no backend called, counted as a cached answer rather than a search."""
        await self.admission.count_request(caller)
        merged = self.values(caller, values)
        key = (caller.org, json.dumps([query.strip(), limit, merged], sort_keys=True, default=repr))
        known = None if no_cache else self._searches.get(key)
        if known is not None:
            self.observer.hit("cache")
            self.meter.count(caller.org)
            return Found(list(known), cached=True)
        # The backend call is a task of its own: a caller who leaves does not fail the others.
        asked, shared = self._searching.start(
            key, lambda: self._search_now(caller, key, query, limit, merged), again=no_cache
        )
        results = await asyncio.shield(asked)
        if shared:
            self.observer.hit("shared")
            self.meter.count(caller.org)
        return Found(list(results), cached=shared)

    async def _search_now(
        self,
        caller: Caller,
        key: tuple[str, str],
        query: str,
        limit: int,
        merged: Mapping[str, Any],
    ) -> tuple[SearchResult, ...]:
        async with self.admission.slot(caller, "light", ONE_SEARCH) as tally:
            tally.searches = 1
            results = tuple(await self.app.search(query, limit=limit, **merged))
        if results:  # none found may be a backend's passing gap: ask it again next time
            self._searches.put(key, results)
        return results

    async def lookup(
        self,
        caller: Caller,
        kind: Kind,
        work: Callable[[Tally], Awaitable[T]],
        want: Spent = ONE_SEARCH,
    ) -> T:
        """A search or an extraction for `caller`: counted, admitted in the pool of its kind
        (a plain search reads no page: `light`), metered by what its tally says; `want` is the
        most it may spend of the organization's quotas."""
        await self.admission.count_request(caller)
        async with self.admission.slot(caller, kind, want) as tally:
            return await work(tally)


SEEN_KEPT = 1024  # requests whose prepared run and fingerprint are remembered
BODIES_KEPT = 256  # cached answers kept in memory (the store holds them all)
SEARCHES_KEPT = 512  # plain searches' results kept in memory, per process
REPORT_REUSE_S = 1.0  # a usage report is reused this long while nothing was metered here
REPORTS_KEPT = 1024  # usage reports kept for reuse, by organization and days


def _afresh(values: Mapping[str, Any], no_cache: bool) -> Mapping[str, Any]:
    """`no_cache` means one thing on every face: reuse nothing cached. Here, besides refusing
    the result cache, every page is read afresh (and the page cache refreshed with it)."""
    return {**values, "refresh_cache": True} if no_cache else values


def with_kb(search: str, kb: str) -> str:
    """The search backend `search` with the knowledge base `kb` searched beside it (once:
    a `multi:` already holding a knowledge base keeps only this one)."""
    members = search.removeprefix("multi:").split(",") if search.startswith("multi:") else [search]
    others = [m for m in members if m and m != "none" and m != "kb" and not m.startswith("kb:")]
    return f"multi:{','.join([f'kb:{kb}', *others])}" if others else f"kb:{kb}"


def searched(events: list[Event]) -> list[str]:
    """The queries a run searched, in order, each once."""
    return list(dict.fromkeys(e.query for e in events if isinstance(e, Searched)))


def _outcome(event: Event, before: str) -> str:
    if isinstance(event, Done):
        return "ok"
    if isinstance(event, Failed):
        return "timeout" if event.code == DeadlineExceeded.code else "failed"
    return before


def _dumps(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def wanted(prepared: Prepared) -> Spent:
    """What a run may spend at most: the reservation it holds against the quotas."""
    request = prepared.request
    if request.depth != "deep":
        return QUICK
    rounds = request.deep_rounds + 1
    return Spent(6 * rounds, 24 * rounds)


def fingerprint(prepared: Prepared) -> str:
    """What makes two requests identical, whatever face they came through: the trimmed
    question, every run option with its default filled in (output from depth, sources cap...),
    the engine settings, the org."""
    request = prepared.request
    data: dict[str, Any] = {
        f.name: getattr(request, f.name) for f in fields(request) if f.name != "seeds"
    }
    data["question"] = request.question.strip()
    data["output"] = request.output_kind
    data["max_sources"] = request.source_cap
    data["settings"] = {
        f.name: getattr(prepared.settings, f.name)
        for f in fields(prepared.settings)
        # A fresh run answers the same request; secrets have no place in a fingerprint.
        if f.name not in ("env", "refresh_cache", "api_key", "azure_ad_token")
    }
    data["org"] = prepared.saving.org
    text = json.dumps(data, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
