"""Docs that cannot drift: the site's command and settings references are the CLI's own help
and the settings table; every command, setting, event and route is on a page of the site; the
README stays a newcomer's page with its two commands first."""

import re
import typing
from pathlib import Path

import pytest

from sleuth.cli.reference import END, SETTINGS_END, SETTINGS_START, START, reference

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def site_text() -> str:
    """Every page of the site, as written (mkdocs.yml's nav holds them all: see docs_hooks)."""
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(DOCS.rglob("*.md")))


def test_the_cli_page_command_reference_matches_the_cli() -> None:
    block = page("cli.md").split(START, 1)[1].split(END, 1)[0]
    assert block.strip() == reference().strip(), "run `make docs` to regenerate it"


def test_the_settings_page_reference_matches_the_table() -> None:
    from sleuth.cli.reference import settings_reference

    block = page("settings.md").split(SETTINGS_START, 1)[1].split(SETTINGS_END, 1)[0]
    assert block.strip() == settings_reference().strip(), "run `make docs` to regenerate it"


def test_every_command_has_its_own_section_on_the_cli_page() -> None:
    from sleuth.cli.main import cli
    from sleuth.cli.reference import _commands

    text = page("cli.md")
    paths = [path for path, _ in _commands(cli, "sleuth")]
    assert len(paths) > 30
    missing = [p for p in paths if f"\n### `{p}`\n" not in text]
    assert not missing, f"not on docs/cli.md: {missing}"


def test_every_setting_and_environment_variable_is_on_the_settings_page() -> None:
    from sleuth.settings.table import ENV_ONLY, SETTINGS

    text = page("settings.md")
    rows = {line.split("|")[1].strip(" `"): line for line in text.splitlines() if "| `" in line}
    for s in SETTINGS.values():
        assert s.name in rows, f"setting {s.name} is not on docs/settings.md"
        assert not s.cli or f"`{s.flag}`" in rows[s.name]
        assert s.env_name is None or f"`{s.env_name}`" in rows[s.name]
    for name in ENV_ONLY:
        assert f"- `{name}`: " in text, f"{name} is not on docs/settings.md"


def test_every_run_event_and_skip_cause_is_on_the_streaming_page() -> None:
    from sleuth import events
    from sleuth.errors import SkipCause

    text = page("streaming.md")
    kinds = [cls.kind for cls in typing.get_args(events.AnyEvent)]
    assert "run.done" in kinds and "fetch.skipped" in kinds
    assert not [k for k in kinds if f"| `{k}` |" not in text], "an event is not documented"
    causes = text.split("| `fetch.skipped` |", 1)[1].split("\n", 1)[0]
    assert not [c for c in typing.get_args(SkipCause) if c not in causes]


def test_every_http_route_is_on_a_page_of_the_site() -> None:
    pytest.importorskip("fastapi")
    from sleuth.server.app import create_app
    from sleuth.server.config import ServerConfig

    paths = create_app(ServerConfig(open_access=True)).openapi()["paths"]
    text = site_text()
    assert len(paths) > 10
    missing = [p for p in paths if p.removeprefix("/api") not in text]
    assert not missing, f"routes no page of docs/ names: {missing}"


def test_every_page_is_in_the_sites_nav(tmp_path: Path) -> None:
    """A page not listed in mkdocs.yml's nav is added under "More pages" by the hook."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs_hooks.py")
    assert spec and spec.loader
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    nav_text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    named = set(re.findall(r"([\w/-]+\.md)\s*$", nav_text, re.M))
    assert {"index.md", "cli.md", "settings.md", "http-api.md", "reliability.md"} <= named
    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "new.md").write_text("# New\n")
    config = {"nav": [{"Home": "a.md"}], "docs_dir": str(tmp_path)}
    assert hooks.on_config(config)["nav"] == [{"Home": "a.md"}, {"More pages": ["new.md"]}]


def test_the_readme_is_a_newcomers_page_with_its_two_commands_first() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 320, "the reference belongs on the site (docs/)"
    first_block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    assert text.index("<!-- quickstart -->") < text.index("```sh")
    assert [line.split()[:2] for line in first_block.splitlines()] == [
        ["make", "demo"],
        ["make", "test"],
    ]
    for link in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / link).exists(), f"the README links to {link}, which does not exist"


def test_the_readmes_curl_example_is_the_one_the_http_api_page_runs() -> None:
    """tests/server/test_sdk.py::test_readme_curl_example runs docs/http-api.md's example
    against a real `sleuth serve`; the README shows the same command."""
    block = page("http-api.md").split("```sh\n# ask a question\n", 1)[1].split("```", 1)[0]
    assert block.strip() in README.read_text(encoding="utf-8")


def test_the_readme_says_the_password_does_not_open_the_research_api() -> None:
    """The claim itself is tested in tests/server/test_access_password.py."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert "The Research API (`/api/orgs/{org}/...`) wants an API key" in text
    assert "not the Research API" in text


def test_every_command_has_an_example_in_its_help() -> None:
    from sleuth.cli.main import cli
    from sleuth.cli.reference import _commands

    for path, command in _commands(cli, "sleuth"):
        text = f"{command.help or ''}\n{command.epilog or ''}"
        assert "Example" in text, f"{path} --help has no example"
        assert "sleuth " in text.split("Example", 1)[1], f"{path} --help example is not a command"


def test_env_twins_come_from_the_settings_table_and_mean_one_thing() -> None:
    """Every variable a flag reads is its table setting's twin, so one variable means one thing
    in every command; options only one command has (eval's --limit, export's --format, the
    listing filters, prune) and output paths are never read from the environment."""
    import click

    from sleuth.cli.main import cli
    from sleuth.cli.reference import _commands
    from sleuth.settings.table import SETTINGS

    by_env = {s.env_name: s for s in SETTINGS.values() if s.env_name}
    seen: dict[str, set[str]] = {}
    for path, command in _commands(cli, "sleuth"):
        for param in command.params:
            if not isinstance(param, click.Option) or not param.envvar:
                continue
            env = str(param.envvar)
            if env == "SLEUTH_PROFILE":
                continue
            assert env in by_env, f"{path} {param.opts[0]} reads {env}, not a table setting"
            assert by_env[env].flag in param.opts, f"{path} {param.opts[0]} reads {env}"
            seen.setdefault(env, set()).add(param.opts[0])
    assert all(len(flags) == 1 for flags in seen.values()), seen
    assert SETTINGS["out"].env_name is None
    assert "SLEUTH_OUT" not in seen and "SLEUTH_LIMIT" not in seen and "SLEUTH_FORMAT" not in seen
    assert SETTINGS["tag"].env_name == "SLEUTH_TAG"


def test_the_dataclasses_agree_with_the_settings_table() -> None:
    """Engine settings and run options are declared in the table once; the dataclasses that
    carry them have the same names and defaults."""
    from dataclasses import fields

    from sleuth.settings import Settings
    from sleuth.settings.table import SETTINGS
    from sleuth.types import ResearchRequest

    engine = {f.name: f.default for f in fields(Settings)}
    request = {f.name: f.default for f in fields(ResearchRequest)}
    renamed = {"allow_domain": "allow_domains", "deny_domain": "deny_domains"}
    derived = {"since", "deep", "no_dedupe", "no_verify_cites", "schema", "max_runtime"}
    for s in SETTINGS.values():
        if s.target == "engine":
            assert s.name in engine and engine[s.name] == s.default, s.name
        elif s.target == "run" and s.name not in derived:
            name = renamed.get(s.name, s.name)
            assert name in request, s.name
            if name not in renamed.values():
                assert request[name] == s.default, s.name


def test_every_test_named_in_the_reliability_table_exists() -> None:
    """docs/reliability.md promises each row is proved by a test: every `tests/...::name` it
    cites must be a test function in that file, and every row must cite one."""
    import ast

    text = page("reliability.md")
    cited = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text)
    assert len(cited) > 40
    for path, name in cited:
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        names = {
            n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        assert name in names, f"docs/reliability.md cites {path}::{name}, which does not exist"
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    body = [r for r in rows if not r.startswith(("| fault", "| input", "| attack", "| property"))]
    assert all("`tests/" in row for row in body), [r for r in body if "`tests/" not in r]


@pytest.mark.extra("docs")
def test_the_site_builds_strict_and_documents_every_command_and_setting(tmp_path: Path) -> None:
    """`mkdocs build --strict` (what `make docs` runs): no warning, and the built pages hold
    every command's section and every setting's environment variable."""
    import subprocess
    import sys

    from sleuth.cli.main import cli
    from sleuth.cli.reference import _commands
    from sleuth.settings.table import ENV_ONLY, SETTINGS

    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "WARNING" not in done.stderr, done.stderr[-3000:]
    cli_html = (site / "cli" / "index.html").read_text(encoding="utf-8")
    settings_html = (site / "settings" / "index.html").read_text(encoding="utf-8")
    for path, _ in _commands(cli, "sleuth"):
        assert f"<code>{path}</code>" in cli_html, path
    for name in [*(s.env_name for s in SETTINGS.values() if s.env_name), *ENV_ONLY]:
        assert f"<code>{name}</code>" in settings_html, name
    assert (site / "screenshots" / "06-report.png").exists()
