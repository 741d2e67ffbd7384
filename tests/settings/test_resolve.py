"""The one settings loader: its precedence, its checks, and the names it still answers to."""

from __future__ import annotations

import logging
import re
from dataclasses import fields
from datetime import date
from pathlib import Path

import pytest

from sleuth.app.application import Sleuth
from sleuth.errors import ConfigError, UsageError
from sleuth.settings import Settings, database_url
from sleuth.settings.resolve import env_layer, resolve
from sleuth.settings.table import RENAMED_ENV, RETIRED_ENV, SETTINGS


def write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")


def test_each_layer_beats_the_one_below(sleuth_home: Path) -> None:
    write_config(
        sleuth_home,
        'search = "wikipedia"\nmax_sources = 8\nconcurrency = 3\npdf_max_pages = 9\n'
        "[profiles.work]\nmax_sources = 9\nconcurrency = 4\npdf_max_pages = 10\n",
    )
    env = {"SLEUTH_HOME": str(sleuth_home), "SLEUTH_CONCURRENCY": "5", "SLEUTH_PDF_MAX_PAGES": "11"}
    resolved = resolve(env, "work", {"pdf_max_pages": 12, "since": None})
    seen = {n: (resolved.values[n], resolved.sources[n]) for n in (
        "source_authority", "search", "max_sources", "concurrency", "pdf_max_pages", "since"
    )}  # fmt: skip
    assert seen == {
        "source_authority": ("prefer", "default"),
        "search": ("wikipedia", "file"),
        "max_sources": (9, "profile"),
        "concurrency": (5, "env"),
        "pdf_max_pages": (12, "explicit"),
        "since": (None, "default"),  # None given explicitly means not given
    }


def test_the_profile_comes_from_the_argument_then_the_variable_then_the_file(
    sleuth_home: Path,
) -> None:
    write_config(
        sleuth_home,
        'profile = "a"\n[profiles.a]\nmax_sources = 5\n[profiles.b]\nmax_sources = 7\n'
        "[profiles.c]\nmax_sources = 9\n",
    )
    env = {"SLEUTH_HOME": str(sleuth_home)}
    assert resolve(env).values["max_sources"] == 5
    assert resolve({**env, "SLEUTH_PROFILE": "b"}).values["max_sources"] == 7
    assert resolve({**env, "SLEUTH_PROFILE": "b"}, "c").values["max_sources"] == 9


def test_sleuth_from_env_resolves_like_every_face(
    sleuth_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(sleuth_home, 'model = "from-file"\ntags = ["filed"]\n')
    monkeypatch.setenv("SLEUTH_SEARCH", "wikipedia")
    monkeypatch.setenv("SLEUTH_MAX_SOURCES", "3")
    monkeypatch.setenv("SLEUTH_SINCE", "2024-01-31")
    app = Sleuth.from_env("fast", max_sources=5)
    prepared = app.prepare("q")
    assert (prepared.settings.search, prepared.settings.model) == ("wikipedia", "from-file")
    assert prepared.settings.browser == "never"  # the built-in profile `fast`
    assert prepared.request.max_sources == 5  # explicit beats the variable
    assert prepared.request.since == date(2024, 1, 31)
    assert prepared.saving.tags == ("filed",)
    assert app.prepare("q", max_sources=7).request.max_sources == 7  # a call's value wins


def test_a_bare_settings_object_reads_nothing() -> None:
    """`Settings()` is the built-in defaults: resolving is `from_env`'s job, so a test or a
    script that builds settings by hand is not changed by the shell it runs in."""
    assert Settings().run_defaults == {}
    assert Settings().search == "duckduckgo"


def test_an_api_depth_quick_beats_a_deep_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLEUTH_DEEP", "3")
    app = Sleuth.from_env()
    assert app.prepare("q").request.depth == "deep"
    assert app.prepare("q", deep=False).request.depth == "quick"
    assert app.prepare("q", deep=None).request.depth == "deep"  # None: not given


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SLEUTH_MAX_SOURCES": "many"}, "SLEUTH_MAX_SOURCES: must be a whole number, not 'many'"),
        ({"SLEUTH_PORT": "70000"}, "SLEUTH_PORT: must be between 0 and 65535, not 70000"),
        ({"SLEUTH_BROWSER": "sometimes"}, "SLEUTH_BROWSER: must be one of auto, always, never"),
        ({"SLEUTH_NO_CACHE": "perhaps"}, "SLEUTH_NO_CACHE: must be true or false"),
        ({"SLEUTH_SINCE": "yesterday"}, "SLEUTH_SINCE: takes a date"),
        ({"SLEUTH_RESULT_CACHE_TTL": "-5"}, "SLEUTH_RESULT_CACHE_TTL: "),
    ],
)
def test_a_bad_variable_is_one_error_naming_it(env: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        env_layer(env)
    assert str(caught.value).startswith(message), str(caught.value)


def test_an_empty_variable_is_unset_and_lists_split_like_click() -> None:
    values = env_layer({"SLEUTH_MAX_SOURCES": "", "SLEUTH_INCLUDE": "a b,c", "SLEUTH_TAG": "x"})
    assert values == {"include": ("a", "b", "c"), "tag": ("x",)}


def test_explicit_values_are_checked_and_unknown_names_refused() -> None:
    with pytest.raises(UsageError, match="max_sources must be between 1 and 50"):
        resolve({}, explicit={"max_sources": 99})
    with pytest.raises(UsageError, match="unknown setting 'max_source'"):
        Sleuth.from_env(max_source=3)


def test_a_renamed_variable_still_works_and_says_so() -> None:
    notes: list[str] = []
    values = env_layer({"SLEUTH_TAGS": "a,b"}, notes.append)
    assert values["tag"] == ("a", "b")
    assert notes == ["SLEUTH_TAGS is now SLEUTH_TAG: rename it (read as SLEUTH_TAG for now)"]
    notes.clear()
    values = env_layer({"SLEUTH_TAGS": "old", "SLEUTH_TAG": "new"}, notes.append)
    assert values["tag"] == ("new",)
    assert notes == [
        "SLEUTH_TAGS is now SLEUTH_TAG; both are set and SLEUTH_TAG wins: remove SLEUTH_TAGS"
    ]


def test_a_retired_variable_is_reported_not_ignored_in_silence(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="sleuth.settings"):
        resolve({"SLEUTH_OUT": "answer.md"})
    assert [r.getMessage() for r in caplog.records] == [
        "SLEUTH_OUT is no longer read: give --out on the command line"
    ]


def test_every_old_name_points_at_a_name_no_setting_uses() -> None:
    twins = {s.env_name for s in SETTINGS.values() if s.env_name}
    assert set(RENAMED_ENV.values()) <= twins
    assert not (set(RENAMED_ENV) | set(RETIRED_ENV)) & twins


def test_a_bad_config_value_names_the_file_and_key(sleuth_home: Path) -> None:
    write_config(sleuth_home, "run_slots = 0\n")
    with pytest.raises(ConfigError, match=r"config.toml: run_slots: must be between 1 and 1024"):
        resolve({"SLEUTH_HOME": str(sleuth_home)})


def test_the_server_rows_agree_with_server_config() -> None:
    from sleuth.server.config import ServerConfig

    config = {f.name: f.default for f in fields(ServerConfig)}
    server = {s.name: s for s in SETTINGS.values() if s.target == "server"}
    renamed = {"result_cache_ttl": "result_cache_ttl_s"}
    for name, entry in server.items():
        if name == "workers":  # processes: how many copies run, not a field of one
            continue
        field = renamed.get(name, name)
        no_limit = name in ("org_runs", "org_rate")  # 0 in the table is None (no limit) here
        assert config[field] == ((entry.default or None) if no_limit else entry.default), name
    assert SETTINGS["access_password"].secret and not SETTINGS["access_password"].cli


def test_the_database_url_is_parsed_in_one_place() -> None:
    """Every reader of SLEUTH_DATABASE_URL goes through settings.database_url (the application
    hands the parsed URL to its stores, the queue and the server's batches)."""
    with pytest.raises(UsageError, match="must be a postgresql://"):
        database_url({"SLEUTH_DATABASE_URL": "mysql://x/db"})
    src = Path(__file__).parents[2] / "src" / "sleuth"
    readers = sorted(
        str(p.relative_to(src))
        for p in src.rglob("*.py")
        if re.search(r"""(get\(|\[)["']SLEUTH_DATABASE_URL["']""", p.read_text(encoding="utf-8"))
    )
    assert readers == ["settings/__init__.py"]
