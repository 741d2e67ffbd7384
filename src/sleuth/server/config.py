"""How one `sleuth serve` node behaves: limits, time windows and the operator's run defaults.

Built from the resolved settings (`server_config`): the `server` rows of the settings table
(address, run slots, organization limits, result-cache TTL, access password), with a test
holding the defaults here to the table's."""

from __future__ import annotations

import ipaddress
import os
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..app.admission import Policy
from ..app.caller import LOCAL_ORG

Clock = Callable[[], float]  # epoch seconds; tests inject one they can move


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8000
    open_access: bool = False  # no keys needed: every request is the org OPEN_ORG
    # SLEUTH_ACCESS_PASSWORD: the SSE API and MCP accept it as a bearer token (org OPEN_ORG)
    # besides API keys, and need one of them even when keys do not exist.
    access_password: str | None = field(default=None, repr=False)
    run_slots: int = 4  # research runs at once on this node; more → 503 SERVER_BUSY
    org_runs: int | None = 2  # runs at once per organization; more → 429
    org_rate: int | None = None  # requests per minute per organization; more → 429
    result_cache_ttl_s: float = 600.0  # identical requests within this: from the result cache
    idempotency_ttl_s: float = 86400.0
    max_body_bytes: int = 1_000_000
    retry_after_s: float = 1.0
    # The HTTP edge (`edge.py`, `guards.py`, `protocol.py`): names the Host header may carry
    # besides loopback, the proxies whose X-Forwarded-* headers are believed, the token that
    # reads /metrics, the key that signs SSE tickets (shared by the workers of one server), and
    # how many connections one (non-loopback, non-proxy) client address may hold open.
    allowed_hosts: tuple[str, ...] = ()
    trusted_proxies: tuple[str, ...] = ()
    allowed_models: tuple[str, ...] = ()  # models a request may name besides the server's
    allowed_providers: tuple[str, ...] = ()  # web-app providers a request may pick
    metrics_token: str | None = field(default=None, repr=False)
    # Seals and opens the organizations' own model keys (`app/orgmodels.py`).
    secret_key: str | None = field(default=None, repr=False)
    ticket_secret: str = field(default_factory=lambda: secrets.token_hex(32), repr=False)
    client_connections: int = 256
    # Setting values every run gets (the operator's: search backend, model endpoint...);
    # requests can set only the run options the API exposes, never these.
    defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def policy(self) -> Policy:
        """What the service admits on this node (see `app/admission.py`)."""
        return Policy(
            run_slots=self.run_slots,
            org_runs=self.org_runs,
            org_rate=self.org_rate,
            result_ttl_s=self.result_cache_ttl_s,
            models=self.allowed_models,
            endpoints=provider_endpoints(self.allowed_providers),
            retry_after_s=self.retry_after_s,
        )


def server_config(
    values: Mapping[str, Any], *, open_access: bool, defaults: Mapping[str, Any]
) -> ServerConfig:
    """The node's configuration from resolved setting values (`Resolved.values`); `defaults`
    are the operator's run values every request starts from."""
    return ServerConfig(
        host=values["host"],
        port=values["port"],
        open_access=open_access,
        access_password=values["access_password"] or None,
        run_slots=values["run_slots"],
        org_runs=values["org_runs"] or None,  # 0: no limit
        org_rate=values["org_rate"] or None,
        result_cache_ttl_s=values["result_cache_ttl"],
        allowed_hosts=tuple(values["allowed_hosts"]),
        trusted_proxies=tuple(values["trusted_proxies"]),
        metrics_token=values["metrics_token"] or None,
        secret_key=values["secret_key"] or None,
        allowed_models=tuple(values["allowed_models"]),
        allowed_providers=tuple(values["allowed_providers"]),
        defaults=MappingProxyType(dict(defaults)),
    )


OPEN_ORG = LOCAL_ORG


def is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def wall_clock() -> float:
    return time.time()


def provider_endpoints(
    providers: tuple[str, ...], env: Mapping[str, str] = os.environ
) -> tuple[str, ...]:
    """The model endpoints of the web-app dialect's providers the operator allows (Azure's is
    the server's AZURE_OPENAI_ENDPOINT)."""
    from .webapp.request import PROVIDERS

    endpoints = (PROVIDERS[p].endpoint(env) for p in providers if p in PROVIDERS)
    return tuple(e for e in endpoints if e)
