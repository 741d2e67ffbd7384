"""An organization's own model in the service store, on SQLite and on PostgreSQL: the key is
stored only sealed (the store's bytes never hold it), opens only with the server's secret key
(a wrong or missing one is a SecretKeyError naming the fix, never a key or a fallback), is
resealed on rotation, and is never part of what is shown; the base URL is checked like every
model endpoint; a run's model spending is metered per organization and day."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sleuth.app.orgmodels import Chosen, Sealer, give, new_secret_key, reseal, run_values, show
from sleuth.errors import SecretKeyError, UsageError
from sleuth.store.service import Admitted, ServiceStore, Spent
from sleuth.store.service_sqlite import SqliteServiceStore
from tests.store.test_service_store import _stored_bytes

NOW = 1_790_000_000.0
KEY = "sk-org-acme-5f1e9c0b7d3a"
ACME = Chosen("acme", "openai", "acme-model", "https://llm.acme.example/v1", KEY)


@pytest.fixture
async def store(tmp_path: Path, backend: str | None) -> AsyncIterator[ServiceStore]:
    if backend is None:
        opened: ServiceStore = SqliteServiceStore(tmp_path / "home")
    else:
        from sleuth.store.service_pg import PgServiceStore

        opened = PgServiceStore(backend)
    yield opened
    await opened.aclose()


async def test_the_key_is_stored_sealed_and_opens_only_with_the_secret_key(
    store: ServiceStore,
) -> None:
    secret = new_secret_key()
    shown = await give(store, Sealer(secret), ACME, now=NOW)
    assert (shown.own, shown.api_format, shown.model, shown.base_url, shown.key_set) == (
        True, "openai", "acme-model", "https://llm.acme.example/v1", True
    )  # fmt: skip
    assert KEY not in repr(shown) and KEY not in str(shown.to_json())
    raw = _stored_bytes(store)
    assert b"acme-model" in raw and KEY.encode() not in raw  # the row is there, the key is not
    stored = await store.org_model("acme")
    assert stored is not None and stored.sealed_key and KEY.encode() not in stored.sealed_key
    assert KEY not in repr(stored)
    assert run_values(stored, Sealer(secret)) == {
        "api_format": "openai", "base_url": "https://llm.acme.example/v1", "api_key": KEY,
        "model": "acme-model", "plan_model": "acme-model", "critic_model": "acme-model",
    }  # fmt: skip
    with pytest.raises(SecretKeyError, match="sealed with another") as wrong:
        run_values(stored, Sealer(new_secret_key()))
    with pytest.raises(SecretKeyError, match=r"SLEUTH_SECRET_KEY.*not set") as missing:
        run_values(stored, Sealer(None))
    for error in (wrong.value, missing.value):
        assert KEY not in str(error) and error.http_status == 503
    assert await store.org_model("globex") is None
    assert [s.org for s in await show(store)] == ["acme"]
    assert (await show(store, "globex"))[0].own is False


async def test_rotation_reseals_every_key_with_the_new_secret(store: ServiceStore) -> None:
    old, new = new_secret_key(), new_secret_key()
    await give(store, Sealer(old), ACME, now=NOW)
    no_key = Chosen("lab", "openai", "llama", "http://10.0.0.5:11434/v1")
    await give(store, Sealer(old), no_key, now=NOW)
    assert await reseal(store, Sealer(f"{new},{old}"), now=NOW + 1) == 1
    stored = await store.org_model("acme")
    assert stored is not None
    assert run_values(stored, Sealer(new))["api_key"] == KEY  # the old key is no longer needed
    lab = await store.org_model("lab")
    assert lab is not None and run_values(lab, Sealer(None))["api_key"] == "none"
    with pytest.raises(SecretKeyError, match="acme"):
        await reseal(store, Sealer(new_secret_key()), now=NOW + 2)


async def test_clearing_goes_back_to_the_server_model(store: ServiceStore) -> None:
    await give(store, Sealer(new_secret_key()), ACME, now=NOW)
    assert await store.clear_org_model("acme") is True
    assert await store.org_model("acme") is None
    assert await store.clear_org_model("acme") is False


@pytest.mark.parametrize(
    ("base_url", "problem"),
    [
        ("ftp://llm.example/v1", "http:// or https://"),
        ("llm.example/v1", "http:// or https://"),
        ("https://user:pw@llm.example/v1", "credentials"),
        ("https:///v1", "names no host"),
        ("https://llm.example/v1?key=sk-1", "no \\? or #"),
        ("http://llm.example:port/v1", "is not a URL"),
    ],
)
async def test_the_base_url_is_checked_like_every_model_endpoint(
    store: ServiceStore, base_url: str, problem: str
) -> None:
    chosen = Chosen("acme", "openai", "m", base_url, KEY)
    with pytest.raises(UsageError, match=problem):
        await give(store, Sealer(new_secret_key()), chosen, now=NOW)
    assert await store.org_model("acme") is None


async def test_a_provider_and_a_secret_key_are_checked(store: ServiceStore) -> None:
    with pytest.raises(UsageError, match="provider must be one of"):
        await give(store, Sealer(new_secret_key()),
                   Chosen("acme", "auto", "m", "https://x.example", KEY), now=NOW)  # fmt: skip
    with pytest.raises(SecretKeyError, match="not set"):
        await give(store, Sealer(None), ACME, now=NOW)
    with pytest.raises(SecretKeyError, match="Fernet keys"):
        Sealer("not-a-fernet-key")
    assert await store.org_model("acme") is None


async def test_model_spending_is_metered_per_organization(store: ServiceStore) -> None:
    await store.create_key("acme", ("research",), now=NOW, quotas={})
    for cost in (0.25, 0.5):
        admitted = await store.admit("acme", now=NOW, lease_s=60, max_running=None)
        assert isinstance(admitted, Admitted)
        await store.settle("acme", admitted.reservation, Spent(1, 2, cost), now=NOW)
    report = await store.usage("acme", now=NOW)
    assert report.cost_usd == pytest.approx(0.75) and report.searches == 2
    assert report.days[-1].cost_usd == pytest.approx(0.75)
    assert (await store.usage("globex", now=NOW)).cost_usd == 0.0
