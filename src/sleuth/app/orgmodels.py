"""Organizations' own models: the operator gives an organization its own provider, model, base
URL and API key, and every run of that organization — whichever face started it: the Research
API, both SSE dialects, MCP, the OpenAI-compatible `/v1`, a queued batch — uses them and is
metered to it, while other organizations run on the server's model.

The key is sealed before it reaches the store and opened only to build a run's model, with the
server's secret key (`secret_key`, SLEUTH_SECRET_KEY): one or more Fernet keys, comma-separated,
the first sealing and every one opening. A key that cannot be opened — no secret key, or not
the one it was sealed with — is a `SecretKeyError` (503) for that organization's runs, never a
run on another model in its place. Nothing shows the key again: `Shown` (what routes and
`sleuth keys org-model show` print) says only whether one is set.

Rotating the secret key: put a new key first and keep the old one after it
(SLEUTH_SECRET_KEY=new,old), run `sleuth keys org-model reseal`, then drop the old one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from ..errors import SecretKeyError, UsageError
from ..settings.values import check_endpoint
from ..store.service import KeyStore, OrgModel

PROVIDERS = ("openai", "anthropic", "google", "azure")  # the table's api_format less "auto"
# Every setting that picks a run's model: an organization with its own model sets them all.
LLM_SETTINGS = ("api_format", "base_url", "api_key", "model", "plan_model", "critic_model")
NO_KEY = "none"  # what an endpoint that needs no key is sent (never the server's keys)
MAX_TEXT = 2000


class Sealer:
    """Seals and opens secrets with the server's secret key (MultiFernet: the first key seals,
    any opens)."""

    def __init__(self, secret_key: str | None) -> None:
        keys = [k.strip() for k in (secret_key or "").split(",") if k.strip()]
        try:
            self._fernet = MultiFernet([Fernet(k) for k in keys]) if keys else None
        except (ValueError, TypeError):
            raise SecretKeyError(
                "secret_key (SLEUTH_SECRET_KEY) must be Fernet keys (32 url-safe base64 bytes "
                "each), comma-separated; make one with `sleuth keys org-model secret-key`",
                setting="secret_key",
            ) from None

    @property
    def ready(self) -> bool:
        return self._fernet is not None

    def _keys(self, what: str) -> MultiFernet:
        if self._fernet is None:
            raise SecretKeyError(
                f"{what} needs the server's secret_key (SLEUTH_SECRET_KEY), which is not set; "
                "make one with `sleuth keys org-model secret-key` and give every process the "
                "same",
                setting="secret_key",
            )
        return self._fernet

    def seal(self, secret: str) -> bytes:
        return self._keys("sealing a model key").encrypt(secret.encode("utf-8"))

    def open(self, sealed: bytes, org: str) -> str:
        try:
            return self._keys(f"organization {org}'s model").decrypt(sealed).decode("utf-8")
        except InvalidToken:
            raise SecretKeyError(
                f"organization {org}'s model key cannot be opened with this server's secret_key "
                "(SLEUTH_SECRET_KEY): it was sealed with another. Give the old key after the "
                "new one (new,old), or set the organization's model again",
                setting="secret_key",
            ) from None

    def reseal(self, sealed: bytes, org: str) -> bytes:
        """`sealed` sealed again with the first key (rotation)."""
        try:
            return self._keys("resealing").rotate(sealed)
        except InvalidToken:
            self.open(sealed, org)  # raises the worded error
            raise


def new_secret_key() -> str:
    return Fernet.generate_key().decode("ascii")


@dataclass(frozen=True, slots=True)
class Chosen:
    """What an operator gives an organization, before it is sealed and stored."""

    org: str
    api_format: str
    model: str
    base_url: str
    api_key: str | None = None  # None: the endpoint needs no key
    plan_model: str | None = None
    critic_model: str | None = None

    def checked(self) -> Chosen:
        """The same, checked like every provider setting: a known provider, a model, and a
        base URL that passes the endpoint check every model endpoint does."""
        if self.api_format not in PROVIDERS:
            known = ", ".join(PROVIDERS)
            raise UsageError(f"provider must be one of {known}, not {self.api_format!r}",
                             setting="api_format")  # fmt: skip
        for name in ("model", "plan_model", "critic_model", "api_key"):
            value = getattr(self, name)
            if value is not None and (not value.strip() or len(value) > MAX_TEXT):
                raise UsageError(f"{name} must be 1 to {MAX_TEXT} characters", setting=name)
        return Chosen(self.org, self.api_format, self.model.strip(),
                      check_endpoint(self.base_url), self.api_key and self.api_key.strip(),
                      self.plan_model, self.critic_model)  # fmt: skip

    def sealed(self, sealer: Sealer) -> OrgModel:
        key = None if self.api_key is None else sealer.seal(self.api_key)
        return OrgModel(self.org, self.api_format, self.model, self.base_url, key,
                        self.plan_model, self.critic_model)  # fmt: skip


def run_values(model: OrgModel, sealer: Sealer) -> dict[str, Any]:
    """The setting values a run of the organization gets: every model setting, so nothing of
    the server's (its endpoint, its keys, its plan model) mixes with the organization's."""
    key = NO_KEY if model.sealed_key is None else sealer.open(model.sealed_key, model.org)
    return {**_settings(model), "api_key": key}


def _settings(model: OrgModel) -> dict[str, Any]:
    return {
        "api_format": model.api_format,
        "base_url": model.base_url,
        "model": model.model,
        "plan_model": model.plan_model or model.model,
        "critic_model": model.critic_model or model.model,
    }


def chosen_elsewhere(model: OrgModel, values: Mapping[str, Any]) -> str | None:
    """The model setting a request sets to something other than its organization's own, if
    any: a request of such an organization cannot pick another model, endpoint or key."""
    own = _settings(model)
    for name in LLM_SETTINGS:
        given = values.get(name)
        if given is not None and given != own.get(name):
            return name
    return None


@dataclass(frozen=True, slots=True)
class Shown:
    """An organization's model as any route or command shows it: never the key itself."""

    org: str
    own: bool  # False: the organization runs on the server's model
    api_format: str | None = None
    model: str | None = None
    base_url: str | None = None
    key_set: bool = False
    plan_model: str | None = None
    critic_model: str | None = None
    updated_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "orgId": self.org, "own": self.own, "provider": self.api_format,
            "model": self.model, "base_url": self.base_url, "key_set": self.key_set,
            "plan_model": self.plan_model, "critic_model": self.critic_model,
            "updated_at": self.updated_at,
        }  # fmt: skip


def shown(org: str, model: OrgModel | None) -> Shown:
    if model is None:
        return Shown(org, False)
    return Shown(org, True, model.api_format, model.model, model.base_url, model.key_set,
                 model.plan_model, model.critic_model, model.updated_at or None)  # fmt: skip


# -- the operator's use cases (`sleuth keys org-model`) ------------------------------------------


async def give(store: KeyStore, sealer: Sealer, chosen: Chosen, *, now: float) -> Shown:
    """Give an organization (created if new) its own model; its key is sealed first."""
    checked = chosen.checked()
    await store.set_org_model(checked.sealed(sealer), now=now)
    return shown(checked.org, await store.org_model(checked.org))


async def show(store: KeyStore, org: str | None = None) -> list[Shown]:
    """One organization's model as shown (its own or the server's), or every organization
    that has its own."""
    if org is not None:
        return [shown(org, await store.org_model(org))]
    return [shown(m.org, m) for m in await store.org_models()]


async def reseal(store: KeyStore, sealer: Sealer, *, now: float) -> int:
    """Seal every stored model key again with the secret key's first key (after a rotation);
    how many were. A key that opens with none of the keys stops the whole reseal, naming its
    organization."""
    count = 0
    for model in await store.org_models():
        if model.sealed_key is None:
            continue
        again = replace(model, sealed_key=sealer.reseal(model.sealed_key, model.org))
        await store.set_org_model(again, now=now)
        count += 1
    return count
