"""deploy/ cannot drift from the code: docker is not here to run compose.yaml, so its structure
is checked instead — the services the docs promise, every Sleuth command and flag parsed by
the real CLI, every SLEUTH_* variable a real setting, the passwords required, every search
backend configurable, SLEUTH_HOME a volume, nginx published on loopback unless told otherwise,
nginx's upstreams the replicas, SSE unbuffered — and so are the systemd units' commands and the
venv docs/deploy.md creates for them. With nginx installed, its config is checked by nginx
itself. `test_compose_local.py` runs the same processes."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import click
import pytest

from sleuth.cli.main import cli
from sleuth.registry import registries
from sleuth.settings.table import ENV_ONLY, SETTINGS

pytest.importorskip("yaml", reason="PyYAML comes with the dev extra")
from tests.deploy.compose import (
    DEPLOY,
    Missing,
    example_env,
    load,
    sleuth_services,
    variables,
)

PASSWORDS = {"POSTGRES_PASSWORD": "pg-secret", "SLEUTH_ACCESS_PASSWORD": "ui-secret"}
SEARCH_NEEDS = {e.needs for e in registries().search if e.needs}
PROXIES = {"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"}
KNOWN_ENV = {
    *(s.env_name for s in SETTINGS.values() if s.env_name),
    *ENV_ONLY,
    *SEARCH_NEEDS,
    *PROXIES,
    "SLEUTH_DATABASE_URL",
    "SLEUTH_ACCESS_PASSWORD",  # sleuth serve's (server/main.py PASSWORD_ENV)
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
}
DOCS = DEPLOY.parent / "docs" / "deploy.md"


def compose(env: dict[str, str] | None = None) -> dict[str, Any]:
    """The file as compose would run it with the two passwords set and nothing else."""
    return load(PASSWORDS if env is None else env)


def parses(argv: list[str]) -> click.Context:
    """`argv` (starting with `sleuth`) parsed by the real CLI: an unknown command, flag or bad
    value raises, as it would on the server."""
    assert argv[0].endswith("sleuth"), argv
    name, args = argv[1], argv[2:]
    command = cli.get_command(click.Context(cli), name)
    assert command is not None, f"no command sleuth {name}"
    return command.make_context(name, list(args), resilient_parsing=False)


def test_compose_has_postgres_two_replicas_a_worker_and_nginx() -> None:
    services = compose()["services"]
    assert set(services) == {"postgres", "serve-1", "serve-2", "worker", "nginx"}
    assert services["postgres"]["image"].startswith("postgres:")
    assert "healthcheck" in services["postgres"]
    for name in ("serve-1", "serve-2", "worker"):
        env = services[name]["environment"]
        assert env["SLEUTH_DATABASE_URL"].startswith("postgresql://")
        assert "@postgres:5432/" in env["SLEUTH_DATABASE_URL"]
        assert services[name]["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert (DEPLOY / services[name]["build"]["dockerfile"].removeprefix("deploy/")).exists()
    for name in ("postgres", "serve-1", "serve-2"):
        assert services[name]["healthcheck"]["test"], f"{name} has no healthcheck"
    nginx = services["nginx"]
    assert nginx["image"].startswith("nginx:")
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in nginx["volumes"]
    assert set(nginx["depends_on"]) == {"serve-1", "serve-2"}


def test_every_sleuth_command_and_variable_in_compose_is_real() -> None:
    services = compose()["services"]
    serve = parses(services["serve-1"]["command"])
    assert serve.params["host"] == "0.0.0.0" and serve.params["port"] == 8000
    worker = parses(services["worker"]["command"])
    assert worker.info_name == "worker"
    for name in ("serve-1", "serve-2", "worker"):
        for variable in services[name]["environment"]:
            assert variable in KNOWN_ENV, f"{name}: {variable} is not a Sleuth setting"
    check = " ".join(services["serve-1"]["healthcheck"]["test"])
    assert "http://127.0.0.1:8000/readyz" in check


def test_compose_refuses_to_start_without_the_two_passwords() -> None:
    """Without SLEUTH_ACCESS_PASSWORD the UI of a server with API keys is always refused;
    compose now stops before starting anything, naming the variable and where to set it."""
    assert variables(required_only=True) == set(PASSWORDS)
    for name in PASSWORDS:
        others = {k: v for k, v in PASSWORDS.items() if k != name}
        for env in (others, {**others, name: ""}):
            with pytest.raises(Missing, match=rf"{name}: set {name} in deploy/.env"):
                load(env)
    for name in sleuth_services(compose()["services"]):
        env = compose()["services"][name]["environment"]
        assert env["SLEUTH_ACCESS_PASSWORD"] == "ui-secret"
        assert ":pg-secret@" in env["SLEUTH_DATABASE_URL"]
    assert compose()["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"] == "pg-secret"


def test_env_example_lists_every_variable_and_sets_no_password() -> None:
    example = example_env()
    assert set(example) == variables(), "deploy/env.example and compose.yaml differ"
    assert all(example[name] == "" for name in PASSWORDS)  # each team chooses its own
    services = load({**example, **PASSWORDS})["services"]
    assert services["serve-1"]["environment"]["SLEUTH_SEARCH"] == example["SLEUTH_SEARCH"]


def test_every_search_backend_can_be_configured_through_compose() -> None:
    """SLEUTH_SEARCH=searxng without SLEUTH_SEARXNG_URL could not work: every variable a search
    backend needs, the fallback and an outgoing proxy are passed through to every service
    that researches."""
    services = compose()["services"]
    default = services["serve-1"]["environment"]["SLEUTH_SEARCH"]
    assert default in registries().search
    given = {"SLEUTH_SEARCH": "searxng", "SLEUTH_SEARXNG_URL": "http://searx.internal:8080"}
    for name in sleuth_services(services):
        env = services[name]["environment"]
        assert SEARCH_NEEDS | PROXIES | {"SLEUTH_SEARCH_FALLBACK"} <= set(env), name
        passed = load({**PASSWORDS, **given})["services"][name]["environment"]
        assert {k: passed[k] for k in given} == given


def test_sleuth_home_is_a_volume_of_the_image_users_home() -> None:
    data = compose()
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    for name in sleuth_services(data["services"]):
        service = data["services"][name]
        home = service["environment"]["SLEUTH_HOME"]
        mounts = {v.split(":")[1]: v.split(":")[0] for v in service["volumes"]}
        assert home in mounts and mounts[home] in data["volumes"], f"{name}: {home} not a volume"
        assert f"ENV SLEUTH_HOME={home}" in dockerfile
        assert f"--home-dir {home} sleuth" in dockerfile  # made, and owned by the user


def test_nginx_is_published_on_loopback_unless_told_otherwise() -> None:
    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    listen = re.search(r"^\s*listen (\d+);", conf, flags=re.M)
    assert listen is not None
    assert compose()["services"]["nginx"]["ports"] == [f"127.0.0.1:8080:{listen.group(1)}"]
    exposed = compose({**PASSWORDS, "PUBLISH_ADDRESS": "0.0.0.0", "PUBLISH_PORT": "80"})
    assert exposed["services"]["nginx"]["ports"] == [f"0.0.0.0:80:{listen.group(1)}"]
    for name, service in compose()["services"].items():
        assert name == "nginx" or "ports" not in service, f"{name} is published"


def test_nginx_sends_to_every_replica_and_does_not_buffer_streams() -> None:
    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    upstreams = re.findall(r"^\s*server\s+([\w.-]+:\d+)", conf, flags=re.M)
    services = compose()["services"]
    replicas = {f"{name}:8000" for name in services if name.startswith("serve-")}
    assert set(upstreams) == replicas
    assert re.search(r"^\s*proxy_buffering off;", conf, flags=re.M)
    timeout = re.search(r"proxy_read_timeout (\d+)s;", conf)
    assert timeout and int(timeout.group(1)) > 150  # longer than a deep run's limit
    assert "non_idempotent" not in conf  # a POST already sent is never sent to another replica


def test_nginx_closes_idle_upstream_connections_before_the_replicas_do() -> None:
    # Otherwise nginx can send a POST down a connection a replica has just closed: a reset,
    # which it does not retry for a non-idempotent request (a 502 to the client).
    from sleuth.server.main import KEEP_ALIVE_S

    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    upstream = re.search(r"upstream sleuth \{(.*?)\n    \}", conf, flags=re.S)
    assert upstream and re.search(r"^\s*keepalive \d+;", upstream.group(1), flags=re.M)
    idle = re.search(r"^\s*keepalive_timeout (\d+)s;", upstream.group(1), flags=re.M)
    assert idle and int(idle.group(1)) < KEEP_ALIVE_S


@pytest.mark.parametrize("unit", ["sleuth-serve@.service", "sleuth-worker@.service"])
def test_systemd_units_run_real_commands_from_the_venv_the_docs_create(unit: str) -> None:
    text = (DEPLOY / "systemd" / unit).read_text(encoding="utf-8")
    start = re.search(r"^ExecStart=(.+)$", text, flags=re.M)
    assert start is not None
    argv = [part.replace("%i", "8001") for part in shlex.split(start.group(1))]
    ctx = parses(argv)
    assert ctx.info_name in ("serve", "worker")
    assert re.search(r"^KillSignal=SIGTERM$", text, flags=re.M)
    env_file = re.search(r"^EnvironmentFile=(\S+)$", text, flags=re.M)
    assert env_file is not None
    user = re.search(r"^User=(\S+)$", text, flags=re.M)
    assert user is not None
    # docs/deploy.md makes what the unit assumes: the venv, the user, the environment file.
    docs = DOCS.read_text(encoding="utf-8")
    venv = str(Path(argv[0]).parent.parent)
    assert f"python3 -m venv {venv}" in docs and f"{venv}/bin/pip install" in docs
    assert "useradd --system" in docs and f" {user.group(1)}\n" in docs
    assert env_file.group(1) in docs


def test_the_dockerfile_installs_the_extras_the_services_need() -> None:
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert "'.[server,queue]'" in text
    for copied in re.findall(r"^COPY (.+) \S+$", text, flags=re.M):
        for name in copied.split():
            assert (DEPLOY.parent / name).exists(), name


@pytest.mark.skipif(shutil.which("nginx") is None, reason="needs nginx (apt-get install nginx)")
def test_nginx_accepts_the_config(tmp_path: Path) -> None:
    """nginx -t on the file as shipped, with the replicas' names pointed at loopback."""
    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    conf = re.sub(r"server (serve-\d+):8000", r"server 127.0.0.1:8000", conf)
    conf = conf.replace("listen 80;", "listen 127.0.0.1:18080;")
    conf = f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n" + conf
    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        conf = conf.replace("http {", f"http {{\n    {name}_temp_path {tmp_path}/{name};", 1)
    path = tmp_path / "nginx.conf"
    path.write_text(conf, encoding="utf-8")
    done = subprocess.run(
        ["nginx", "-t", "-c", str(path), "-p", str(tmp_path)],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
