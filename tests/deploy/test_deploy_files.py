"""deploy/ cannot drift from the code: docker is not here to run compose.yaml, so its structure
is checked instead — the services the README promises, every Sleuth command and flag parsed by
the real CLI, every SLEUTH_* variable a real setting, nginx's upstreams the replicas, SSE
unbuffered — and so are the systemd units' commands. With nginx installed, its config is
checked by nginx itself."""

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
from sleuth.settings.table import ENV_ONLY, SETTINGS

yaml = pytest.importorskip("yaml", reason="PyYAML comes with the dev extra")
DEPLOY = Path(__file__).parents[2] / "deploy"
KNOWN_ENV = {
    *(s.env_name for s in SETTINGS.values() if s.env_name),
    *ENV_ONLY,
    "SLEUTH_DATABASE_URL",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
}


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    return data


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
def test_systemd_units_run_real_commands(unit: str) -> None:
    text = (DEPLOY / "systemd" / unit).read_text(encoding="utf-8")
    start = re.search(r"^ExecStart=(.+)$", text, flags=re.M)
    assert start is not None
    argv = [part.replace("%i", "8001") for part in shlex.split(start.group(1))]
    ctx = parses(argv)
    assert ctx.info_name in ("serve", "worker")
    assert re.search(r"^KillSignal=SIGTERM$", text, flags=re.M)
    assert re.search(r"^EnvironmentFile=", text, flags=re.M)


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
