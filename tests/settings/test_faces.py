"""One environment, one set of values, whichever face runs: for every setting with a SLEUTH_*
twin, the CLI, `Sleuth.from_env()`, the server's app (its API and web UI), the MCP server over
stdio, `sleuth worker` and a local `sleuth batch` run with the value the variable says; and the
config file reaches every command.

Each face runs for real up to its boundary with the outside — the application's use case for
the CLI, uvicorn for `serve`, the stdio transport for MCP, the task queue for the worker — where
the test takes what the face would run with and prepares a run from it exactly as the face does
(`Sleuth.prepare`).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import sleuth.app.batch
import sleuth.app.queue
import sleuth.evaluate.evaluation
import sleuth.server.main
import sleuth.server.mcp.local
from sleuth.app.application import Sleuth
from sleuth.app.options import given_values
from sleuth.cli.main import main
from sleuth.server.config import ServerConfig
from sleuth.settings.table import SETTINGS, Setting
from sleuth.settings.values import coerce

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
TEXT = {
    "search": "wikipedia", "search_fallback": "none", "kb": "notes",
    "base_url": "http://127.0.0.1:9/v1", "api_key": "sk-test-1234", "model": "m",
    "plan_model": "pm", "critic_model": "cm", "browser_cdp_endpoint": "http://127.0.0.1:9222",
    "language": "French", "search_lang": "de-AT", "host": "127.0.0.2",
    "access_password": "s3cret",
    "include": "notes.md,more.md", "allow_domain": "example.org example.com",
    "deny_domain": "bad.example", "tag": "one,two", "max_runtime": "90s",
    "result_cache_ttl": "5min", "since": "2024-01-31", "deep": "3",
    "browser_executable": "/usr/bin/chromium", "allowed_hosts": "sleuth.example.org",
    "trusted_proxies": "10.0.0.1", "metrics_token": "scrape-token",
    "allowed_models": "gpt-x,claude-y", "allowed_providers": "openai,ollama",
    "azure_api_version": "2025-04-01-preview", "azure_ad_token": "entra-token-1234",
    "cache_ttl": "30min", "cache_dir": "page-cache", "sessions_dir": "saved-runs",
    "max_cost": "$0.25", "secret_key": "x" * 43 + "=",
}  # fmt: skip
RUN_TARGETS = ("engine", "run", "session")


def sample(entry: Setting, schema: Path) -> str:
    """A value other than the default, as a variable would hold it."""
    if entry.name == "schema":
        return str(schema)
    if entry.name == "config":  # a config file that is named must exist
        named = schema.parent / "other-config.toml"
        named.write_text("", encoding="utf-8")
        return str(named)
    if entry.name in TEXT:
        return TEXT[entry.name]
    if entry.kind == "flag":
        return "1"
    if entry.kind == "choice":
        return [c for c in entry.choices if c != entry.default][-1]
    if entry.kind == "int":
        low = int(entry.low or 0)
        return str(entry.default + 1 if entry.default is not None else low + 3)
    if entry.kind == "float":
        low, high = entry.low or 0.0, entry.high if entry.high is not None else 1.0
        return str(round((low + high) / 2, 3))
    raise AssertionError(f"no sample for {entry.name} ({entry.kind})")


def expected(entry: Setting, text: str) -> Any:
    """What the face must end up with: the table's coercion of the variable's text."""
    return coerce(entry.name, text.split() if entry.kind == "list" else text)


@dataclass
class Env:
    values: dict[str, str]  # variable -> text
    expected: dict[str, Any]  # setting -> value

    def of(self, *targets: str) -> dict[str, Any]:
        return {n: v for n, v in self.expected.items() if SETTINGS[n].target in targets}

    def node(self) -> dict[str, Any]:
        """The server settings one app holds (`workers` is how many apps run)."""
        return {n: v for n, v in self.of("server").items() if n != "workers"}


@pytest.fixture
def every_twin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    twins = [s for s in SETTINGS.values() if s.env_name]
    env = Env({}, {})
    for entry in twins:
        assert entry.env_name is not None
        text = sample(entry, schema)
        env.values[entry.env_name] = text
        env.expected[entry.name] = expected(entry, text)
        assert env.expected[entry.name] != entry.default, entry.name  # a sample that shows
        monkeypatch.setenv(entry.env_name, text)
    monkeypatch.chdir(tmp_path)
    return env


def seen(app: Sleuth, values: Mapping[str, Any]) -> dict[str, Any]:
    """The engine, run and session values a run prepared by this app from these values uses."""
    prepared = app.prepare("q", **values)
    given = given_values(app.settings, values)
    out: dict[str, Any] = {}
    for name, entry in SETTINGS.items():
        if entry.target == "engine":
            out[name] = getattr(prepared.settings, name)
        elif entry.target in ("run", "session") and entry.env_name:
            out[name] = coerce(name, given.get(name))
    assert prepared.request.depth == ("deep" if out.get("deep") else "quick")
    return out


def server_seen(config: ServerConfig) -> dict[str, Any]:
    return {
        "host": config.host,
        "port": config.port,
        "run_slots": config.run_slots,
        "org_runs": config.org_runs,
        "org_rate": config.org_rate,
        "result_cache_ttl": config.result_cache_ttl_s,
        "access_password": _password(config.access_password),
        "allowed_hosts": config.allowed_hosts,
        "trusted_proxies": config.trusted_proxies,
        "metrics_token": config.metrics_token,
        "secret_key": config.secret_key,
        "allowed_models": config.allowed_models,
        "allowed_providers": config.allowed_providers,
    }


def _password(verifier: str | None) -> str | None:
    """The password the app's verifier accepts (the app keeps only a verifier): the sample's,
    or nothing."""
    from sleuth.server.password import parse

    found = parse(verifier or "")
    return TEXT["access_password"] if found and found.matches(TEXT["access_password"]) else None


class Reached(Exception):
    def __init__(self, *found: Any) -> None:
        super().__init__("reached the boundary")
        self.found = found


def stop_at(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> None:
    """Replace `owner.name` (a face's way out) with a stop that carries its arguments (less a
    use case's progress callback and a search's result count)."""

    def stop(*args: Any, **kwargs: Any) -> Any:
        raise Reached(*args, {k: v for k, v in kwargs.items() if k not in ("on_event", "limit")})

    async def async_stop(*args: Any, **kwargs: Any) -> Any:
        stop(*args, **kwargs)

    original = getattr(owner, name)
    monkeypatch.setattr(owner, name, async_stop if inspect.iscoroutinefunction(original) else stop)


def reach(args: list[str]) -> tuple[Any, ...]:
    with pytest.raises(Reached) as reached:
        main(args)
    return reached.value.found


# -- the faces -------------------------------------------------------------------------------


def library(env: Env, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    return seen(Sleuth.from_env(), {})


def cli_ask(env: Env, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    stop_at(monkeypatch, Sleuth, "ask")
    app, _question, values = reach(["ask", "a question"])
    return seen(app, values)


def server_app(env: Env, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    from sleuth.server.app import create_app

    state = create_app().state.sleuth
    assert server_seen(state.config) == env.node()
    return seen(state.app, state.config.defaults)


def web_ui(env: Env, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    from sleuth.server.app import create_app

    api = create_app()
    return seen(api.state.sleuth.app, api.state.ui.values())


def mcp_stdio(env: Env, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    runners: list[Any] = []

    class Transport:
        async def run_stdio_async(self) -> None:
            return None

    def build(runner: Any) -> Transport:
        runners.append(runner)
        return Transport()

    monkeypatch.setattr(sleuth.server.mcp.local, "build", build)
    assert main(["mcp"]) is None
    (runner,) = runners
    return seen(runner.app, runner.defaults)


def local_batch(env: Env, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    Path("q.jsonl").write_text('{"question": "q"}\n', encoding="utf-8")
    stop_at(monkeypatch, sleuth.app.batch, "run_local")
    app, _todo, values, _sink, _options = reach(["batch", "q.jsonl"])
    return seen(app, values)


FACES: dict[str, Callable[[Env, pytest.MonkeyPatch], dict[str, Any]]] = {
    "library": library,
    "cli": cli_ask,
    "server": server_app,
    "web-ui": web_ui,
    "mcp-stdio": mcp_stdio,
    "batch": local_batch,
}


@pytest.mark.parametrize("face", list(FACES))
def test_one_environment_gives_every_face_the_same_values(
    face: str, every_twin: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = FACES[face](every_twin, monkeypatch)
    want = every_twin.of(*RUN_TARGETS)
    wrong = {n: (got.get(n), v) for n, v in want.items() if got.get(n) != v}
    assert not wrong, f"{face}: (got, variable says) {wrong}"


def test_the_worker_gets_the_same_values(
    every_twin: Env, postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    stop_at(monkeypatch, sleuth.app.queue, "run_worker")
    app, options = reach(["worker", "--until-empty"])
    got = seen(app, options["values"])
    want = every_twin.of(*RUN_TARGETS)
    assert {n: got.get(n) for n in want} == want


def test_serve_gets_the_server_settings_from_the_environment(
    every_twin: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers: the parent hands its configuration to each worker process, whose app
    must hold the same values."""
    monkeypatch.setenv(sleuth.server.main.CONFIG_ENV, "")  # restored after the test
    stop_at(monkeypatch, sleuth.server.main.uvicorn, "run")
    target, options = reach(["serve"])
    assert target == "sleuth.server.main:worker_app"
    assert (options["host"], options["port"], options["workers"]) == ("127.0.0.2", 8001, 2)
    state = sleuth.server.main.worker_app().state.sleuth
    assert server_seen(state.config) == every_twin.node()
    assert seen(state.app, state.config.defaults) == seen(Sleuth.from_env(), {})


def test_the_output_settings_reach_the_command_line(every_twin: Env) -> None:
    """json, verbose, no_cost, strict_cites, require_answer: only the CLI shows runs."""
    import io
    from contextlib import redirect_stdout

    out = io.StringIO()
    with redirect_stdout(out):
        main(["config", "show", "--json"])
    shown = json.loads(out.getvalue())["settings"]
    for name, value in every_twin.of("output").items():
        assert shown[name] == {"value": value, "source": "env"}, name


# -- config.toml reaches every command --------------------------------------------------------


@pytest.fixture
def config_file(sleuth_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    sleuth_home.mkdir(parents=True, exist_ok=True)
    path = sleuth_home / "config.toml"
    path.write_text(
        'search = "wikipedia"\nmodel = "from-file"\nmax_sources = 3\nrun_slots = 3\norg_rate = 7\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    Path("q.jsonl").write_text('{"question": "q", "answers": ["a"]}\n', encoding="utf-8")
    return path


def _engine(app: Sleuth, values: Mapping[str, Any]) -> tuple[str, str | None]:
    prepared = app.prepare("q", **values)
    return prepared.settings.search, prepared.settings.model


def _run(app: Sleuth, values: Mapping[str, Any]) -> tuple[str, str | None, int | None]:
    prepared = app.prepare("q", **values)
    return prepared.settings.search, prepared.settings.model, prepared.request.max_sources


RUN = ("wikipedia", "from-file", 3)


@pytest.mark.parametrize(
    ("args", "owner", "name"),
    [
        (["ask", "q"], Sleuth, "ask"),
        (["continue", "2026-01-01"], Sleuth, "continue_"),
        (["resume", "2026-01-01"], Sleuth, "resume"),
        (["rerun", "2026-01-01"], Sleuth, "rerun"),
    ],
)
def test_the_config_file_reaches_the_run_commands(
    config_file: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], owner: Any, name: str
) -> None:
    stop_at(monkeypatch, owner, name)
    found = reach(args)
    app, values = found[0], found[-1]
    assert _run(app, values) == RUN


@pytest.mark.parametrize(("args", "name"), [(["search", "q"], "search"), (["doctor"], "doctor")])
def test_the_config_file_reaches_search_and_doctor(
    config_file: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], name: str
) -> None:
    stop_at(monkeypatch, Sleuth, name)
    found = reach(args)
    assert _engine(found[0], found[-1]) == RUN[:2]


def test_the_config_file_reaches_serve_and_ui(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop_at(monkeypatch, sleuth.server.main.uvicorn, "run")
    for args in (["serve"], ["ui", "--no-open", "--port", "1"]):
        api, _options = reach(args)
        state = api.state.sleuth
        assert (state.config.run_slots, state.config.org_rate) == (3, 7), args
        assert _run(state.app, state.config.defaults) == RUN, args


def test_the_config_file_reaches_mcp_batch_and_eval(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert mcp_stdio(Env({}, {}), monkeypatch)["max_sources"] == 3
    stop_at(monkeypatch, sleuth.app.batch, "run_local")
    app, _todo, values, _sink, _options = reach(["batch", "q.jsonl"])
    assert _run(app, values) == RUN
    stop_at(monkeypatch, sleuth.evaluate.evaluation, "evaluate")
    _questions, settings, _options = reach(["eval", "q.jsonl"])
    assert (settings.search, settings.model) == RUN[:2]  # eval's runs follow its --depth


def test_the_config_file_reaches_the_worker(
    config_file: Path, postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", postgres_db)
    stop_at(monkeypatch, sleuth.app.queue, "run_worker")
    app, options = reach(["worker", "--until-empty"])
    assert _run(app, options["values"]) == RUN
