"""`docker compose up` without Docker: the processes deploy/compose.yaml names, started here from
its own definitions — PostgreSQL (a throwaway cluster standing in for the `postgres` image, its
healthcheck run), each `sleuth serve` replica and the `sleuth worker` with the command,
environment and SLEUTH_HOME volume the file gives them (interpolated from deploy/env.example
with the two passwords set, as `deploy/.env` would be), each replica's healthcheck run as
written, and nginx with deploy/nginx.conf. Only what a container changes is changed: service
names become 127.0.0.1, each replica's port 8000 a free port, each volume a directory.

Then the instance is used as a team would use it, through nginx: the UI is behind the access
password, the API wants a key (created with the command docs/deploy.md gives), a research
request is answered from the search backend compose passes through, a queued batch is
answered by the worker and metered against the organization's usage, a file uploaded to the
knowledge base through one replica is listed through the other.
"""

from __future__ import annotations

import pytest

pytest.importorskip("yaml", reason="PyYAML comes with the dev extra")
pytest.importorskip("fastapi", reason="needs sleuth[server]")
pytest.importorskip("procrastinate", reason="needs the queue extra: pip install -e '.[queue]'")

import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from sleuth.server.access import COOKIE
from tests.deploy.compose import DEPLOY, example_env, load, sleuth_services
from tests.nginx import NGINX, stop_all
from tests.postgres import bin_dir
from tests.server.ui.browser import free_port
from tests.testweb.server import TestWeb

DOCS = DEPLOY.parent / "docs" / "deploy.md"
PASSWORDS = {"POSTGRES_PASSWORD": "pg-secret-1", "SLEUTH_ACCESS_PASSWORD": "team-secret-1"}
Q = "How long does Example Cloud keep audit logs by default?"
NOTE = "# Glorbium handbook\n\nGlorbium boils at 412 kelvin under standard pressure.\n"


@dataclass
class Instance:
    base: str  # nginx
    services: dict[str, Any]  # compose's, interpolated
    envs: dict[str, dict[str, str]]  # each sleuth service's process environment
    replicas: dict[str, str]  # serve-N -> its own base URL


def _dotenv(testweb: TestWeb) -> dict[str, str]:
    """deploy/.env as a team fills it in: env.example with the passwords set, and the search
    backend and outgoing proxy pointed at the loopback test web (no internet in tests)."""
    web = testweb.env()
    return {**example_env(), **PASSWORDS, "SLEUTH_SEARCH": "searxng",
            "SLEUTH_SEARCH_FALLBACK": "none", "SLEUTH_SEARXNG_URL": web["SLEUTH_SEARXNG_URL"],
            "HTTP_PROXY": web["HTTP_PROXY"], "NO_PROXY": web["NO_PROXY"]}  # fmt: skip


def _database(compose_url: str, postgres: Mapping[str, str], local: str) -> str:
    """The replicas' database URL names the `postgres` service's user, password and database;
    here it is the test's database on the local cluster."""
    given = urlsplit(compose_url)
    assert given.scheme == "postgresql" and (given.hostname, given.port) == ("postgres", 5432)
    assert given.username == postgres["POSTGRES_USER"]
    assert given.password == postgres["POSTGRES_PASSWORD"] == PASSWORDS["POSTGRES_PASSWORD"]
    assert given.path == "/" + postgres["POSTGRES_DB"]
    return local


def _process_env(
    service: dict[str, Any], database: str, volumes: dict[str, Path]
) -> dict[str, str]:
    """The service's environment as its container would have it, with its volume mounted."""
    env = {k: str(v) for k, v in service["environment"].items()}
    env["SLEUTH_DATABASE_URL"] = database
    mounts = {v.split(":")[1]: v.split(":")[0] for v in service["volumes"]}
    env["SLEUTH_HOME"] = str(volumes[mounts[env["SLEUTH_HOME"]]])
    # The image's PATH has `sleuth` and `python`; here they are the test's venv. The network
    # guard (tests/netguard) keeps every process off the internet.
    bin_path = str(Path(sys.executable).parent)
    return {**env, "PATH": f"{bin_path}:{os.environ['PATH']}",
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""), "LANG": "C.UTF-8"}  # fmt: skip


def _argv(command: list[str], port: int | None) -> list[str]:
    argv = list(command)
    if port is not None:
        argv[argv.index("--port") + 1] = str(port)
    return argv


def _healthy(test: list[str], port: int, env: Mapping[str, str], proc: Any) -> None:
    """The service's compose healthcheck, run as written (its port 8000 the local one), until
    it passes as compose would wait for `service_healthy`."""
    assert test[0] == "CMD"
    argv = [part.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for part in test[1:]]
    for _ in range(300):
        if proc.poll() is not None:
            raise AssertionError(f"{argv} never passed: the service exited")
        if subprocess.run(argv, env=dict(env), capture_output=True, timeout=30).returncode == 0:
            return
        time.sleep(0.2)
    raise AssertionError(f"healthcheck {argv} never passed")


def _postgres_healthy(service: dict[str, Any], database: str) -> None:
    test = service["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL"
    url = urlsplit(database)
    found = bin_dir()
    assert found is not None
    argv = [str(found / "pg_isready"), *shlex.split(test[1])[1:], "-h", str(url.hostname),
            "-p", str(url.port)]  # fmt: skip
    assert subprocess.run(argv, capture_output=True, timeout=30).returncode == 0


@contextmanager
def _nginx(services: dict[str, Any], ports: dict[str, int], listen: int) -> Iterator[str]:
    """deploy/nginx.conf as the nginx service mounts it, the replicas' names pointed here."""
    source, target = services["nginx"]["volumes"][0].split(":")[:2]
    assert target == "/etc/nginx/nginx.conf"
    conf = (DEPLOY / source).read_text(encoding="utf-8")
    for name, port in ports.items():
        conf = conf.replace(f"server {name}:8000", f"server 127.0.0.1:{port}")
    published = services["nginx"]["ports"][0].rsplit(":", 1)[1]
    conf = conf.replace(f"listen {published};", f"listen 127.0.0.1:{listen};")
    d = Path(os.environ["SLEUTH_HOME"]).parent / "nginx"
    d.mkdir()
    conf = f"pid {d}/nginx.pid;\nerror_log {d}/error.log;\n" + conf
    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        conf = conf.replace("http {", f"http {{\n    {name}_temp_path {d}/{name};", 1)
    (d / "nginx.conf").write_text(conf, encoding="utf-8")
    assert NGINX is not None
    command = [NGINX, "-c", str(d / "nginx.conf"), "-p", f"{d}/"]
    started = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert started.returncode == 0, started.stderr
    try:
        yield f"http://127.0.0.1:{listen}"
    finally:
        subprocess.run([*command, "-s", "stop"], capture_output=True, timeout=60)


@dataclass
class Plan:
    """The compose definitions turned into what this machine runs."""

    services: dict[str, Any]
    envs: dict[str, dict[str, str]]  # each sleuth service's process environment
    database: str


@pytest.fixture
def plan(postgres_db: str, testweb_env: TestWeb, tmp_path: Path) -> Plan:
    data = load(_dotenv(testweb_env))
    services = data["services"]
    volumes = {name: tmp_path / "volumes" / name for name in data["volumes"]}
    for path in volumes.values():
        path.mkdir(parents=True)
    database = _database(
        services["serve-1"]["environment"]["SLEUTH_DATABASE_URL"],
        services["postgres"]["environment"], postgres_db,
    )  # fmt: skip
    envs = {n: _process_env(services[n], database, volumes) for n in sleuth_services(services)}
    return Plan(services, envs, database)


def _start(stack: ExitStack, argv: list[str], env: dict[str, str], log: Path) -> Any:
    out = stack.enter_context(log.open("wb"))
    proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
    stack.callback(stop_all, [proc])
    return proc


@pytest.fixture
def instance(plan: Plan, tmp_path: Path) -> Iterator[Instance]:
    if NGINX is None:
        pytest.skip("needs nginx (Debian package: apt-get install nginx)")
    services = plan.services
    _postgres_healthy(services["postgres"], plan.database)
    replicas = [n for n in plan.envs if n.startswith("serve-")]
    ports = {n: free_port() for n in replicas}
    with ExitStack() as stack:
        commands = {n: _argv(services[n]["command"], ports[n]) for n in replicas}
        procs = [  # started together, as compose starts them
            _start(stack, commands[n], plan.envs[n], tmp_path / f"{n}.log") for n in replicas
        ]
        for name, proc in zip(replicas, procs, strict=True):
            _healthy(services[name]["healthcheck"]["test"], ports[name], plan.envs[name], proc)
        worker = _argv(services["worker"]["command"], None)
        _start(stack, worker, plan.envs["worker"], tmp_path / "worker.log")
        base = stack.enter_context(_nginx(services, ports, free_port()))
        urls = {n: f"http://127.0.0.1:{p}" for n, p in ports.items()}
        yield Instance(base, services, plan.envs, urls)


def _documented(command: str, service: str) -> list[str]:
    """The `docker compose exec SERVICE sleuth ...` line of docs/deploy.md that starts so."""
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith(f"docker compose exec {service} {command}"):
            return shlex.split(line)[4:]
    raise AssertionError(f"docs/deploy.md has no `docker compose exec {service} {command}`")


def _create_key(instance: Instance) -> dict[str, str]:
    argv = _documented("sleuth keys create", "serve-1")
    done = subprocess.run(
        argv, env=instance.envs["serve-1"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    org = argv[argv.index("--org") + 1]
    return {"org": org, "X-API-Key": done.stdout.strip()}


def test_compose_up_gives_a_working_protected_team_instance(instance: Instance) -> None:
    base = instance.base
    page = httpx.get(base + "/", headers={"Accept": "text/html"})
    assert page.status_code == 303 and page.headers["location"].startswith("/login")
    assert httpx.post(base + "/api/orgs/acme/research", json={"query": Q}).status_code == 401
    login = httpx.post(base + "/login", data={"password": PASSWORDS["SLEUTH_ACCESS_PASSWORD"]})
    assert login.status_code == 303 and COOKIE in login.cookies
    ask = httpx.get(base + "/", cookies=login.cookies)
    assert ask.status_code == 200 and 'id="question"' in ask.text  # the UI, not a refusal

    key = _create_key(instance)
    org, headers = key["org"], {"X-API-Key": key["X-API-Key"]}
    api = f"{base}/api/orgs/{org}"
    answer = httpx.post(api + "/research", json={"query": Q}, headers=headers, timeout=120)
    assert answer.status_code == 200, answer.text
    assert answer.json()["citations"] and "90 days" in answer.json()["answer"]

    batch = httpx.post(api + "/batches", json={"questions": [{"query": Q + " (batch)"}]},
                       headers=headers, timeout=60)  # fmt: skip
    assert batch.status_code == 202, batch.text
    status = base + batch.json()["status_url"]
    for _ in range(600):  # the worker process answers it
        progress = httpx.get(status, headers=headers).json()
        if progress["finished"]:
            break
        time.sleep(0.2)
    assert progress["done"] == 1, progress
    records = httpx.get(base + batch.json()["results_url"], headers=headers).text
    assert "90 days" in records
    usage = httpx.get(api + "/usage", headers=headers).json()
    searched = answer.json()["usage"]["searches"]
    assert usage["meters"]["searches"]["used"] > searched  # the worker's searches metered too

    one, two = instance.replicas.values()
    uploaded = httpx.post(one + f"/api/orgs/{org}/kb/files", headers=headers,
                          files={"file": ("handbook.md", NOTE.encode())}, timeout=60)  # fmt: skip
    assert uploaded.status_code == 201, uploaded.text
    listed = httpx.get(two + f"/api/orgs/{org}/kb/files", headers=headers).json()
    assert [d["path"] for d in listed["documents"]] == ["upload/handbook.md"]


def test_a_replica_without_the_password_or_a_key_refuses_to_start(plan: Plan) -> None:
    """What compose's required SLEUTH_ACCESS_PASSWORD prevents: a replica on 0.0.0.0 with
    neither a key nor a password refuses to start rather than serve openly."""
    env = {k: v for k, v in plan.envs["serve-1"].items() if k != "SLEUTH_ACCESS_PASSWORD"}
    argv = _argv(plan.services["serve-1"]["command"], free_port())
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "not loopback" in done.stderr
    assert re.search(r"sleuth keys create", done.stderr)
