"""The service's state behind one port: keys, organizations, quotas and usage, idempotency
records, the result cache, in-flight run claims, and the organization's saved sessions.

`ServiceStore` is what the server is written against; `SqliteServiceStore` (one file under
SLEUTH_HOME) implements it for one machine, and a PostgreSQL implementation can be dropped in
for many replicas without touching a route. Every decision that two replicas could race on is
one call here, so each backend can make it atomic its own way (SQLite: one `BEGIN IMMEDIATE`
transaction; PostgreSQL: a row lock or a conditional `UPDATE`): admitting a run against a quota
and a concurrency limit, claiming an idempotency key, claiming an identical request in flight.

Times are epoch seconds passed in by the caller, so a test can move the clock.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal, Protocol

from ..errors import UsageError
from .sessions import SessionStore

SCOPES = ("research", "search", "extract")
KEY_PREFIX = "slk_"


@dataclass(frozen=True, slots=True)
class Cached:
    """A cached result: its stored JSON and when it was cached (a copy kept in memory expires
    with it, not a full `ttl_s` after it was read)."""

    body: bytes
    at: float


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored key: its public id and organization, never the secret (only its hash is kept)."""

    id: str
    org: str
    scopes: tuple[str, ...]
    created_at: str
    revoked_at: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


@dataclass(frozen=True, slots=True)
class Org:
    name: str
    plan: str = "self-hosted"
    quota_searches: int | None = None  # per calendar month (UTC); None: unlimited
    quota_pages: int | None = None


@dataclass(frozen=True, slots=True)
class OrgModel:
    """An organization's own model settings, as the operator set them and the store keeps
    them: the API key only sealed (encrypted with the server's secret key by the application;
    the store never sees it in the clear). Its runs use this model instead of the server's."""

    org: str
    api_format: str  # openai, anthropic, google or azure
    model: str
    base_url: str
    sealed_key: bytes | None = field(default=None, repr=False)  # None: the endpoint needs none
    plan_model: str | None = None  # None: `model`
    critic_model: str | None = None  # None: `model`
    updated_at: str = ""

    @property
    def key_set(self) -> bool:
        return self.sealed_key is not None


@dataclass(frozen=True, slots=True)
class Allowance:
    """What admitted work may spend of each metered quota (None: no quota on that meter)."""

    searches: int | None = None
    pages_read: int | None = None


@dataclass(frozen=True, slots=True)
class Admitted:
    """Work may start; `reservation` is settled (or released) when it ends. The reservation
    holds `allowance` of the organization's quotas while the work runs, so concurrent work can
    never together spend more than the quota."""

    reservation: str
    allowance: Allowance = Allowance()


@dataclass(frozen=True, slots=True)
class Refused:
    """Why work may not start: a quota is used up (`quota`), what is left of it is held by the
    organization's work in progress (`held`: retry when it ends), or the organization already
    has its allowed number of runs going (`busy`; `retry_after` seconds is a fair wait)."""

    reason: Literal["quota", "held", "busy"]
    meter: str = ""
    retry_after: float = 1.0


Admission = Admitted | Refused


@dataclass(frozen=True, slots=True)
class Idempotency:
    """What a POST with an `Idempotency-Key` should do: `new` (run it, then record the
    response), `running` (the first attempt is still going), `done` (answer with the stored
    response) or `reused` (the key came with a different request)."""

    state: Literal["new", "running", "done", "reused"]
    status: int = 0
    body: bytes = b""


@dataclass(frozen=True, slots=True)
class UsageDay:
    day: str  # YYYY-MM-DD (UTC)
    searches: int = 0
    pages_read: int = 0
    runs: int = 0
    cached: int = 0
    cost_usd: float = 0.0  # what its runs spent on models (priced models only)


@dataclass(frozen=True, slots=True)
class UsageReport:
    org: str
    period: str  # YYYY-MM: the quotas' month
    searches: int
    pages_read: int
    quota_searches: int | None
    quota_pages: int | None
    days: tuple[UsageDay, ...] = field(default_factory=tuple)
    cost_usd: float = 0.0  # the month's model spending


@dataclass(frozen=True, slots=True)
class Spent:
    """What a finished run cost, metered against its organization's quotas (and its model
    spending, metered but under no quota)."""

    searches: int = 0
    pages_read: int = 0
    cost_usd: float = 0.0


ONE_SEARCH = Spent(1, 0)  # what a plain lookup wants of the quotas


def usage_day(now: float) -> str:
    """The day (UTC, YYYY-MM-DD) a use at `now` is metered on."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")


class KeyStore(Protocol):
    """Organizations and their API keys."""

    async def create_key(
        self, org: str, scopes: tuple[str, ...], *, now: float, quotas: Mapping[str, int | None]
    ) -> tuple[ApiKey, str]:
        """A new key for `org` (created if new; `quotas` given are set): the record and the
        secret, which is returned this once and stored only as a hash."""

    async def key_for(self, secret: str) -> ApiKey | None:
        """The active key whose secret this is, or None."""

    async def keys(self, org: str | None = None) -> list[ApiKey]: ...

    async def revoke_key(self, key_id: str, *, now: float) -> ApiKey | None: ...

    async def has_keys(self) -> bool: ...

    async def org(self, name: str) -> Org | None: ...

    async def set_org_model(self, model: OrgModel, *, now: float) -> None:
        """Give `model.org` (created if new) its own model settings, replacing any it had."""

    async def org_model(self, org: str) -> OrgModel | None:
        """The organization's own model settings, or None: it runs on the server's."""

    async def org_models(self) -> list[OrgModel]:
        """Every organization's own model settings, by organization."""

    async def clear_org_model(self, org: str) -> bool:
        """Drop the organization's own model (back to the server's); False: it had none."""


class QuotaStore(Protocol):
    """Quotas, running work across replicas, usage and the per-minute request rate."""

    async def admit(
        self,
        org: str,
        *,
        now: float,
        lease_s: float,
        max_running: int | None,
        want: Spent = ONE_SEARCH,
        run: bool = True,
    ) -> Admission:
        """Atomically check the org's quotas (what running work holds counts as spent) and its
        running-run limit (`run`: this is a run, counted against it), and reserve up to `want`
        of each metered quota for `lease_s` seconds (renewed while the work goes)."""

    async def renew(self, reservation: str, *, now: float, lease_s: float) -> None:
        """Extend a reservation's lease: work that stops renewing (its process died) frees
        what it held when the lease runs out."""

    async def settle(self, org: str, reservation: str, spent: Spent, *, now: float) -> None:
        """Meter a finished run's searches and pages and free its reservation."""

    async def release(self, reservation: str) -> None:
        """Free a reservation without metering (the run never searched)."""

    async def count_cached(self, org: str, *, now: float, n: int = 1) -> None:
        """Record `n` answers served from the cache (not metered against quotas)."""

    async def usage(self, org: str, *, now: float, days: int = 31) -> UsageReport: ...

    async def hit_rate(self, org: str, *, now: float, per_minute: int) -> float | None:
        """Count one request against the org's per-minute limit: None when allowed, else the
        seconds until the window turns."""


class IdempotencyStore(Protocol):
    """`Idempotency-Key` claims and the responses they replay."""

    async def claim_key(
        self, org: str, key: str, fingerprint: str, *, now: float, lease_s: float
    ) -> Idempotency: ...

    async def finish_key(
        self, org: str, key: str, status: int, body: bytes, *, now: float, ttl_s: float
    ) -> None: ...

    async def drop_key(self, org: str, key: str) -> None:
        """Forget a claim whose request ended without a response worth replaying."""


class FlightStore(Protocol):
    """The result cache, identical runs in flight, and their event logs, shared by every
    process on the store: a process that does not own a run follows it through these."""

    @property
    def node(self) -> str:
        """This process's id as the owner of the claims it makes (run reservations, flights,
        Idempotency-Keys being answered); when the process dies, its claims are void."""
        ...

    async def cached(
        self, org: str, fingerprint: str, *, now: float, ttl_s: float
    ) -> Cached | None:
        """The result cached for `fingerprint` less than `ttl_s` before `now`, with when."""

    async def cache(self, org: str, fingerprint: str, body: bytes, *, now: float) -> None: ...

    async def claim_flight(
        self, org: str, fingerprint: str, owner: str, *, now: float, lease_s: float
    ) -> bool:
        """Claim the one run of an identical request (True), unless another live owner has it;
        a claim whose lease ran out (its process died) can be taken over."""

    async def end_flight(self, org: str, fingerprint: str, owner: str) -> None: ...

    async def log_events(
        self, org: str, run: str, events: Sequence[tuple[int, str]], *, now: float
    ) -> None:
        """Append (index, event JSON) rows to a run's shared log (an index written twice keeps
        the first); logs older than a day are dropped."""

    async def logged_events(self, org: str, run: str, after: int) -> list[tuple[int, str]]:
        """A run's logged events with an index above `after`, in order."""


class ServiceStore(KeyStore, QuotaStore, IdempotencyStore, FlightStore, Protocol):
    """The service's state. Every method may be called from many requests at once."""

    @property
    def sessions(self) -> SessionStore: ...

    async def ping(self) -> None:
        """Raise when the storage cannot be reached (readiness)."""

    async def aclose(self) -> None: ...


def allowance(org: Org | None, used: Spent, held: Spent, want: Spent) -> Refused | Allowance:
    """What new work may reserve: on each meter with a quota, what is left of it after the
    month's use and what running work holds, up to `want`; a refusal when a meter the work
    wants is used up."""
    if org is None:
        return Allowance()
    left: dict[str, int | None] = {}
    for meter, limit in (("searches", org.quota_searches), ("pages_read", org.quota_pages)):
        if limit is None:
            left[meter] = None
            continue
        remaining = limit - getattr(used, meter) - getattr(held, meter)
        wanted = getattr(want, meter)
        if wanted > 0 and remaining <= 0:
            spent = getattr(used, meter) >= limit  # else running work holds what is left
            return Refused("quota" if spent else "held", meter)
        left[meter] = max(0, min(remaining, wanted))
    return Allowance(left["searches"], left["pages_read"])


def new_secret() -> tuple[str, str]:
    """(key id, full secret). The id is public (listings, logs); the secret is `slk_<id>_<32
    random bytes in hex>` so a leaked key names itself and can be revoked by id."""
    key_id = secrets.token_hex(4)
    return key_id, f"{KEY_PREFIX}{key_id}_{secrets.token_hex(32)}"


def hash_secret(secret: str) -> str:
    """SHA-256 of the secret. Keys are 256 random bits, so a fast hash is enough: nothing can
    be guessed that a slow hash would protect (passwords need one; random keys do not)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def check_scopes(scopes: tuple[str, ...]) -> tuple[str, ...]:
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown:
        raise UsageError(
            f"unknown scope(s) {', '.join(unknown)}; known: {', '.join(SCOPES)}", setting="scopes"
        )
    return tuple(dict.fromkeys(scopes))
