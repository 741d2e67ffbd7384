"""config.toml, profiles and their precedence, through the real `sleuth` entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sleuth.cli.main import main
from sleuth.settings.files import BUILTIN_PROFILES
from sleuth.store import SessionRecord, SessionStore, sessions_db_path
from tests.store.factories import make_record

QUESTION = "How long does Example Cloud keep audit logs?"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args)) or 0
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def write_config(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    """Local notes, so a full run works offline with `search = "none"`."""
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(1, 6):
        (folder / f"note{n}.md").write_text(
            f"# Note {n}\n\nExample Cloud keeps audit logs for 90 days by default ({n}). "
            f"Administrators can extend audit log retention in region {n}.\n",
            encoding="utf-8",
        )
    return folder


def offline(home: Path, notes: Path, extra: str = "") -> None:
    write_config(home, f'search = "none"\ninclude = ["{notes}"]\nno_cost = true\n{extra}')


def show(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = run(capsys, *args, "config", "show", "--json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def setting(data: dict[str, Any], key: str) -> tuple[Any, str]:
    entry = data["settings"][key]
    return entry["value"], entry["source"]


def last_session(before: frozenset[str] = frozenset()) -> SessionRecord:
    """The one session saved since `before` (ids saved within one second do not sort by time)."""
    store = SessionStore(sessions_db_path())
    (new,) = {s.id for s in store.list(None, None)} - before
    return store.get(new)


def session_ids() -> frozenset[str]:
    return frozenset(s.id for s in SessionStore(sessions_db_path()).list(None, None))


# --- where the file lives and what show prints -------------------------------------------


def test_config_path_is_under_sleuth_home(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path
) -> None:
    assert run(capsys, "config", "path") == (0, f"{sleuth_home / 'config.toml'}\n", "")


def test_show_without_a_file_is_all_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    data = show(capsys)
    assert data["exists"] is False and data["profile"] is None and data["command"] == "ask"
    assert {s["source"] for s in data["settings"].values()} == {"default"}
    assert setting(data, "source_authority") == ("prefer", "default")


def test_show_text_names_each_source(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(sleuth_home, "max_sources = 8\n")
    monkeypatch.setenv("SLEUTH_SEARCH", "wikipedia")
    code, out, _ = run(capsys, "config", "show", "--profile", "strict")
    assert code == 0
    lines = out.splitlines()
    assert lines[:3] == [
        f"# config file: {sleuth_home / 'config.toml'}",
        "# profile: strict (built-in)",
        "[ask]",
    ]
    assert any(line.split() == ["max_sources", "=", "8", "#", "file"] for line in lines)
    assert any(line.split() == ["strict_cites", "=", "true", "#", "profile"] for line in lines)
    assert any(line.split() == ["search", "=", '"wikipedia"', "#", "env"] for line in lines)
    assert any(line.split() == ["concurrency", "=", "10", "#", "default"] for line in lines)


def test_show_masks_an_api_key(capsys: pytest.CaptureFixture[str], sleuth_home: Path) -> None:
    write_config(sleuth_home, 'api_key = "sk-secret-1234"\n')
    data = show(capsys)
    assert setting(data, "api_key") == ("****1234", "file")


# --- precedence: defaults < file < profile < env < flags ---------------------------------


def test_precedence_file_profile_env(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(
        sleuth_home,
        'max_sources = 8\nconcurrency = 3\nsearch = "wikipedia"\n'
        "[profiles.work]\nmax_sources = 9\nconcurrency = 4\n",
    )
    monkeypatch.setenv("SLEUTH_CONCURRENCY", "5")
    data = show(capsys, "--profile", "work")
    assert setting(data, "search") == ("wikipedia", "file")
    assert setting(data, "max_sources") == (9, "profile")
    assert setting(data, "concurrency") == (5, "env")
    assert setting(data, "pdf_max_pages") == (50, "default")


def test_a_real_run_uses_file_profile_env_and_flags(
    capsys: pytest.CaptureFixture[str],
    sleuth_home: Path,
    notes: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    offline(sleuth_home, notes, "max_sources = 2\n[profiles.work]\nsource_authority = 'off'\n")
    code, _, err = run(capsys, "ask", QUESTION, "--profile=work")
    assert code == 0, err
    options = last_session().options
    assert options | {"search": "none", "max_sources": 2, "source_authority": "off"} == options

    monkeypatch.setenv("SLEUTH_MAX_SOURCES", "3")
    before = session_ids()
    assert run(capsys, "ask", QUESTION, "--profile=work", "--source-authority=strict")[0] == 0
    options = last_session(before).options
    assert options | {"search": "none", "max_sources": 3, "source_authority": "strict"} == options


def test_max_sources_from_the_file_limits_the_sources(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path, notes: Path
) -> None:
    offline(sleuth_home, notes, "max_sources = 2\n")
    code, out, err = run(capsys, QUESTION, "--json")
    assert code == 0, err
    assert len(json.loads(out)["sources"]) == 2


# --- profiles ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--profile", "thorough", "ask", QUESTION],
        ["--profile=thorough", QUESTION],
        ["ask", QUESTION, "--profile=thorough"],
        [QUESTION, "--profile", "thorough"],
    ],
)
def test_profile_before_or_after_the_command(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path, notes: Path, args: list[str]
) -> None:
    offline(sleuth_home, notes)
    code, _, err = run(capsys, *args)
    assert code == 0, err
    options = last_session().options
    assert (options["max_sources"], options["source_authority"]) == (15, "strict")


def test_profile_from_env_and_after_the_command_wins(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(sleuth_home, "[profiles.a]\nmax_sources = 5\n[profiles.b]\nmax_sources = 7\n")
    monkeypatch.setenv("SLEUTH_PROFILE", "a")
    assert setting(show(capsys), "max_sources") == (5, "profile")
    assert setting(show(capsys, "--profile", "b"), "max_sources") == (7, "profile")
    data = show(capsys, "--profile", "a")
    assert data["profile"] == "a"


def test_after_the_command_beats_before_it(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path, notes: Path
) -> None:
    offline(sleuth_home, notes)
    code, _, err = run(capsys, "--profile", "thorough", "ask", QUESTION, "--profile", "fast")
    assert code == 0, err
    assert last_session().options["max_sources"] == 4


def test_the_file_can_name_a_default_profile(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path
) -> None:
    write_config(sleuth_home, 'profile = "cheap"\n')
    data = show(capsys)
    assert data["profile"] == "cheap"
    assert setting(data, "max_cost") == (0.05, "profile")
    assert show(capsys, "--profile", "fast")["profile"] == "fast"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("deep", {"deep": 2, "output": "report"}),
        ("thorough", {"deep": 3, "max_sources": 15, "source_authority": "strict"}),
        ("fast", {"max_sources": 4, "browser": "never", "search_fallback": "none"}),
        ("cheap", {"max_cost": 0.05, "deep": None}),
        ("strict", {"strict_cites": True, "source_authority": "strict", "cite_min_recall": 0.5}),
    ],
)
def test_builtin_profiles(
    capsys: pytest.CaptureFixture[str], name: str, expected: dict[str, Any]
) -> None:
    data = show(capsys, "--profile", name)
    assert data["profile_builtin"] is True
    changed = {k: v["value"] for k, v in data["settings"].items() if v["source"] == "profile"}
    assert changed == expected


def test_cheap_turns_deep_from_the_file_off(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path
) -> None:
    write_config(sleuth_home, "deep = 3\n")
    assert setting(show(capsys), "deep") == (3, "file")
    assert setting(show(capsys, "--profile", "cheap"), "deep") == (None, "profile")


def test_a_user_profile_replaces_the_builtin_of_the_same_name(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path
) -> None:
    write_config(sleuth_home, "[profiles.fast]\nmax_sources = 7\n")
    data = show(capsys, "--profile", "fast")
    assert data["profile_builtin"] is False
    assert setting(data, "max_sources") == (7, "profile")
    assert setting(data, "browser") == ("auto", "default")
    assert set(BUILTIN_PROFILES) == {"deep", "thorough", "fast", "cheap", "strict"}


# --- keys --------------------------------------------------------------------------------


def test_friendly_key_spellings(capsys: pytest.CaptureFixture[str], sleuth_home: Path) -> None:
    write_config(
        sleuth_home,
        'max-sources = 8\nsource_authority = "strict"\ntags = ["client-x", "audit"]\n'
        "cache = false\nverify-cites = false\ndeep = true\nsince = 2024-01-31\n"
        'max_runtime = "90s"\n',
    )
    data = show(capsys)
    assert setting(data, "max_sources") == (8, "file")
    assert setting(data, "tag") == (["client-x", "audit"], "file")
    assert setting(data, "no_cache") == (True, "file")
    assert setting(data, "no_verify_cites") == (True, "file")
    assert setting(data, "deep") == (2, "file")
    assert setting(data, "since") == ("2024-01-31", "file")
    assert setting(data, "max_runtime") == (90.0, "file")


def test_paths_expand_the_home_directory(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    write_config(sleuth_home, 'include = "~/notes"\n')
    assert setting(show(capsys), "include") == (["/home/someone/notes"], "file")


def test_keys_apply_only_to_commands_that_have_the_flag(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path
) -> None:
    write_config(sleuth_home, 'max_sources = 8\nlimit = 3\nsearch = "wikipedia"\n')
    code, out, _ = run(capsys, "config", "show", "--command=search", "--json")
    assert code == 0
    search = json.loads(out)
    assert setting(search, "limit") == (3, "file")
    assert setting(search, "search") == ("wikipedia", "file")
    assert "max_sources" not in search["settings"]
    assert "limit" not in show(capsys)["settings"]


def test_search_command_reads_the_config(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path, notes: Path
) -> None:
    write_config(sleuth_home, f'search = "local"\ninclude = ["{notes}"]\nlimit = 2\n')
    code, out, err = run(capsys, "search", "audit log retention", "--json")
    assert code == 0, err
    results = json.loads(out)
    assert len(results) == 2 and all(r["url"].startswith("file://") for r in results)


def test_config_tags_label_new_runs_but_never_filter_listings(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path, notes: Path
) -> None:
    SessionStore(sessions_db_path()).save(make_record(question="an untagged older session"))
    offline(sleuth_home, notes, 'tags = ["client-x"]\n')
    code, _, err = run(capsys, "ask", QUESTION)
    assert code == 0, err
    tagged = [s for s in SessionStore(sessions_db_path()).list(None, None) if s.tags]
    assert [(s.question, s.tags) for s in tagged] == [(QUESTION, ("client-x",))]
    code, out, _ = run(capsys, "sessions", "ls", "--json")
    listed = json.loads(out)
    assert code == 0 and len(listed) == 2
    assert {s["question"] for s in listed} == {QUESTION, "an untagged older session"}
    code, out, _ = run(capsys, "sessions", "ls", "--tag", "client-x", "--json")
    assert [s["question"] for s in json.loads(out)] == [QUESTION]


def test_a_profile_before_a_non_run_command_runs_that_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "--profile", "deep", "sessions", "ls")
    assert (code, out, err) == (0, "", "no saved sessions\n")


# --- bad config: one clear line, exit 1 --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("max_source = 3\n", "unknown key 'max_source' (did you mean 'max_sources'?)"),
        ('max_sources = "x"\n', "max_sources: must be a whole number, not 'x'"),
        ("max_sources = 99\n", "max_sources: must be between 1 and 50, not 99"),
        ("max_sources = true\n", "max_sources: expected a single text or number value"),
        (
            'source_authority = "loose"\n',
            "source_authority: must be one of prefer, strict, off, not 'loose'",
        ),
        ('strict_cites = "yes"\n', "strict_cites: expected true or false"),
        ("cache = 1\n", "cache: expected true or false"),
        ("search = [1, 2]\n", "search: expected one value, not a list"),
        ("max_sources = 3\nmax-sources = 4\n", "key 'max_sources' is given twice"),
        ("profiles = 3\n", "'profiles' must hold tables like [profiles.NAME]"),
        ("[profiles.x]\nprofile = 'y'\n", "[profiles.x]: 'profile' cannot be set inside"),
        ("[profiles.x]\ndeeep = 2\n", "[profiles.x]: unknown key 'deeep' (did you mean 'deep'?)"),
    ],
)
def test_bad_config_is_one_clear_line(
    capsys: pytest.CaptureFixture[str],
    sleuth_home: Path,
    text: str,
    problem: str,
) -> None:
    path = write_config(sleuth_home, text)
    code, out, err = run(capsys, "ask", QUESTION, "--profile=x" if "profiles.x" in text else "-v")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1, err
    assert err.startswith(f"sleuth: config error in {path}")
    assert problem in err


def test_invalid_toml_names_the_line(capsys: pytest.CaptureFixture[str], sleuth_home: Path) -> None:
    path = write_config(sleuth_home, 'search = "none"\nmax_sources = = 3\n')
    code, _, err = run(capsys, "ask", QUESTION)
    assert code == 1
    assert err.startswith(f"sleuth: config error in {path}: invalid TOML:")
    assert "line 2" in err and err.count("\n") == 1


def test_unknown_profile_lists_the_known_ones(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path
) -> None:
    path = write_config(sleuth_home, "[profiles.work]\nmax_sources = 5\n")
    code, _, err = run(capsys, "ask", QUESTION, "--profile=wrok")
    assert code == 1
    assert err == (
        "sleuth: unknown profile 'wrok' (known: cheap, deep, fast, strict, thorough, work; "
        f"define it as [profiles.wrok] in {path})\n"
    )


def test_a_bad_config_does_not_break_listing_or_finding_it(
    capsys: pytest.CaptureFixture[str], sleuth_home: Path
) -> None:
    write_config(sleuth_home, "max_source = 3\n")
    assert run(capsys, "sessions", "ls")[0] == 0
    assert run(capsys, "config", "path")[0] == 0
    assert run(capsys, "config", "show")[0] == 1
