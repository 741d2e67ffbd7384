"""The smaller seed rows of issue 29: the page cache's TTL and folder, the sessions folder and
the config file's path as settings with env twins, and a max cost written `$0.50`. Each is
resolved like every other setting and honoured by what it configures; each bad value is refused
with the name of whoever gave it."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest
from mcp import Client

from sleuth.app.application import Sleuth
from sleuth.app.assemble import build_fetcher
from sleuth.errors import ConfigError, UsageError
from sleuth.fetch.cache import SqlitePageCache
from sleuth.llm.factory import LLMSettings
from sleuth.server.mcp.local import LocalRunner
from sleuth.server.mcp.tools import build
from sleuth.settings import Settings
from sleuth.settings.resolve import resolve
from sleuth.types import Page

URL = "http://127.0.0.1:9/cached-page"  # nothing listens there: a miss cannot be fetched


def env_of(home: Path, **variables: str) -> dict[str, str]:
    return {"SLEUTH_HOME": str(home), **variables}


def cached_page(folder: Path, age_s: float) -> None:
    """A page in the page cache of `folder`, stored `age_s` seconds ago."""
    cache = SqlitePageCache(folder / "cache.db", clock=lambda: time.time() - age_s)
    cache.put(Page(url=URL, title="Kept", text="kept text", fetched_at="2026-01-01T00:00:00Z"))


async def fetched_from_cache(settings: Settings) -> bool:
    fetcher = build_fetcher(settings)
    try:
        page = await fetcher.fetch(URL)
    except Exception:  # the miss went to the network, where nothing answers
        return False
    finally:
        await fetcher.aclose()
    return page.from_cache


# -- the page cache: TTL and folder ----------------------------------------------------------


def test_the_cache_ttl_and_folder_resolve_from_every_layer(
    sleuth_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(sleuth_home))
    sleuth_home.mkdir(parents=True)
    (sleuth_home / "config.toml").write_text('cache_ttl = "2h"\ncache_dir = "~/pc"\n')
    settings = Settings.from_env(env_of(sleuth_home))
    assert (settings.cache_ttl, settings.cache_dir) == (7200.0, str(sleuth_home / "pc"))
    env = env_of(sleuth_home, SLEUTH_CACHE_TTL="30min", SLEUTH_CACHE_DIR="/tmp/x")
    assert Settings.from_env(env).cache_ttl == 1800.0
    assert Settings.from_env(env, cache_ttl="45s").cache_ttl == 45.0
    assert Settings.from_env(env).cache_dir == "/tmp/x"


async def test_the_page_cache_honours_the_ttl(sleuth_home: Path) -> None:
    folder = sleuth_home.parent / "page-cache"
    cached_page(folder, age_s=2 * 3600)
    env = env_of(sleuth_home, SLEUTH_CACHE_DIR=str(folder))
    assert await fetched_from_cache(Settings.from_env({**env, "SLEUTH_CACHE_TTL": "3h"}))
    assert not await fetched_from_cache(Settings.from_env({**env, "SLEUTH_CACHE_TTL": "1h"}))


async def test_the_page_cache_lives_in_the_cache_folder_shared_or_not(sleuth_home: Path) -> None:
    folder = sleuth_home.parent / "elsewhere"
    cached_page(folder, age_s=60)
    settings = Settings.from_env(env_of(sleuth_home, SLEUTH_CACHE_DIR=str(folder)))
    async with Sleuth(settings) as app:  # the process-wide cache every run of the app shares
        shared = build_fetcher(app.settings, app.resources)
        assert (await shared.fetch(URL)).from_cache
    assert await fetched_from_cache(settings)  # a private one (no shared resources)
    assert not (sleuth_home / "cache.db").exists()
    assert not await fetched_from_cache(replace(settings, cache_dir=None))  # SLEUTH_HOME's


@pytest.mark.parametrize("bad", ["abc", "-5", "0", "-1h"])
def test_a_bad_ttl_is_refused_by_name(sleuth_home: Path, bad: str) -> None:
    with pytest.raises(UsageError, match=r"^SLEUTH_CACHE_TTL: "):
        Settings.from_env(env_of(sleuth_home, SLEUTH_CACHE_TTL=bad))
    sleuth_home.mkdir(parents=True, exist_ok=True)
    (sleuth_home / "config.toml").write_text(f'cache_ttl = "{bad}"\n')
    with pytest.raises(ConfigError, match=r"config.toml: cache_ttl: "):
        Settings.from_env(env_of(sleuth_home))


async def test_an_unusable_cache_folder_costs_no_page(
    sleuth_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = sleuth_home.parent / "a-file"
    blocker.write_text("not a folder")
    settings = Settings.from_env(env_of(sleuth_home, SLEUTH_CACHE_DIR=str(blocker / "cache")))
    assert not await fetched_from_cache(settings)  # read without the cache, no crash
    assert "page cache unavailable" in caplog.text and "a-file" in caplog.text
    assert blocker.read_text() == "not a folder"


# -- the sessions folder ----------------------------------------------------------------------


def test_sessions_are_kept_in_the_sessions_folder(sleuth_home: Path) -> None:
    folder = sleuth_home.parent / "runs"
    app = Sleuth(Settings.from_env(env_of(sleuth_home, SLEUTH_SESSIONS_DIR=str(folder))))
    assert Path(app.sessions.where) == folder / "sessions.db"
    assert (folder / "sessions.db").is_file() and not (sleuth_home / "sessions.db").exists()
    default = Sleuth(Settings.from_env(env_of(sleuth_home)))
    assert Path(default.sessions.where) == sleuth_home / "sessions.db"


# -- the config file's path -------------------------------------------------------------------


def test_the_config_path_comes_from_the_argument_then_the_variable(sleuth_home: Path) -> None:
    sleuth_home.mkdir(parents=True)
    (sleuth_home / "config.toml").write_text("max_sources = 3\n")
    one, two = sleuth_home.parent / "one.toml", sleuth_home.parent / "two.toml"
    one.write_text("max_sources = 5\n")
    two.write_text("max_sources = 7\n")
    env = env_of(sleuth_home)
    assert resolve(env).values["max_sources"] == 3
    named = resolve({**env, "SLEUTH_CONFIG": str(one)})
    assert (named.values["max_sources"], named.layers.path) == (5, one)
    assert (
        resolve({**env, "SLEUTH_CONFIG": str(one)}, None, {"config": two}).values["max_sources"]
        == 7
    )


def test_a_named_config_file_that_is_missing_is_an_error(sleuth_home: Path) -> None:
    missing = sleuth_home.parent / "typo.toml"
    with pytest.raises(ConfigError, match=r"^SLEUTH_CONFIG: no config file at .*typo.toml"):
        resolve(env_of(sleuth_home, SLEUTH_CONFIG=str(missing)))
    with pytest.raises(ConfigError, match=r"^config: no config file at") as raised:
        Settings.from_env(env_of(sleuth_home), config=str(missing))
    assert raised.value.setting == "config"
    assert not missing.exists()
    assert resolve(env_of(sleuth_home)).layers.path == sleuth_home / "config.toml"  # may be absent


def test_a_config_file_cannot_name_another(sleuth_home: Path) -> None:
    sleuth_home.mkdir(parents=True)
    (sleuth_home / "config.toml").write_text('config = "other.toml"\n')
    with pytest.raises(ConfigError, match="'config' cannot be set in a config file"):
        resolve(env_of(sleuth_home))


# -- max cost in dollars ----------------------------------------------------------------------


@pytest.mark.parametrize("text", ["$0.50", "$ 0.50", " 0.5 ", "0.50", "$.5"])
def test_a_max_cost_may_be_written_in_dollars(sleuth_home: Path, text: str) -> None:
    env = env_of(sleuth_home, SLEUTH_MAX_COST=text)
    assert Settings.from_env(env).max_cost == 0.5
    assert LLMSettings.from_env(env).max_cost == 0.5  # the model factory reads the twin too
    assert Settings.from_env(env_of(sleuth_home), max_cost=text).max_cost == 0.5
    sleuth_home.mkdir(parents=True, exist_ok=True)
    (sleuth_home / "config.toml").write_text(f'max_cost = "{text}"\n')
    assert Settings.from_env(env_of(sleuth_home)).max_cost == 0.5


@pytest.mark.parametrize("bad", ["$-1", "abc", "0.5€", "-1", "$", "1e400", "EUR 1"])
def test_a_bad_max_cost_is_refused_by_name(sleuth_home: Path, bad: str) -> None:
    with pytest.raises(UsageError, match=r"^SLEUTH_MAX_COST: .*(US dollars|at least 0)"):
        Settings.from_env(env_of(sleuth_home, SLEUTH_MAX_COST=bad))
    with pytest.raises(ConfigError, match=r"SLEUTH_MAX_COST: "):
        LLMSettings.from_env({"SLEUTH_MAX_COST": bad})
    sleuth_home.mkdir(parents=True, exist_ok=True)
    (sleuth_home / "config.toml").write_text(f'max_cost = "{bad}"\n')
    with pytest.raises(ConfigError, match=r"config.toml: max_cost: "):
        Settings.from_env(env_of(sleuth_home))


async def test_the_mcp_max_cost_argument_takes_dollars_and_names_itself(
    sleuth_home: Path,
) -> None:
    async with Sleuth(Settings()) as app:
        assert app.prepare("q", max_cost="$0.50").settings.max_cost == 0.5
        async with Client(build(LocalRunner(app, {}))) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            prop = tools["research"].input_schema["properties"]["max_cost_usd"]
            assert {"number", "string"} <= {b.get("type") for b in prop["anyOf"]}
            refused = await client.call_tool("research", {"question": "q", "max_cost_usd": "$-1"})
    text = " ".join(getattr(c, "text", "") for c in refused.content)
    assert refused.is_error and "max_cost_usd" in text and "US dollars" in text, text
