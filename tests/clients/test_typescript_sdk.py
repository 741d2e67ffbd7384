"""The TypeScript SDK (clients/typescript), compiled with `tsc` and run under `node --test`
against a real `sleuth serve` on loopback (the offline test web, no LLM): whoami, research as
JSON and streamed (and a streamed run that fails), search, usage, extract's typed refusal, a
wrong key, and the retry rules it shares with the Python SDK (429 and 503 SERVER_BUSY after
`Retry-After`, 409 for an Idempotency-Key in progress, each also with no retries left). Then
extract against a server whose model is scripted, and the package as `npm pack` builds it,
installed into an empty project: a TypeScript program type-checks against it and the example of
docs/typescript-sdk.md runs as written.

Node and npm come from Debian and `typescript` is installed by `.ci/run` where the other Node
packages of the tests go; without node or npm the tests skip saying so."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import json
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

from tests.cli.helpers import run
from tests.llm.fake_servers import FakeLLMServer, Reply
from tests.server.test_sdk import _wait_ready, free_port, start_serve
from tests.testweb.server import TestWeb

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "clients" / "typescript"
NODE_CACHE = Path.home() / ".cache/sleuth-tests/node"  # where .ci/run installs npm packages
DOCS = ROOT / "docs" / "typescript-sdk.md"
# Queries whose only page answers slowly: a run of one holds the server's run slot meanwhile.
SLOW_TOPICS = ("tortoise", "glacier", "snail")


def typescript_version() -> str:
    package = json.loads((PACKAGE / "package.json").read_text(encoding="utf-8"))
    return str(package["devDependencies"]["typescript"])


@pytest.fixture(scope="session")
def tsc() -> Path:
    """`tsc` of the pinned TypeScript: `.ci/run` installs it; else installed here once."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js and npm are not installed (.ci/run installs them from Debian)")
    bin_dir = NODE_CACHE / "node_modules" / ".bin"
    installed = NODE_CACHE / "node_modules" / "typescript" / "package.json"
    version = typescript_version()
    if not installed.exists() or json.loads(installed.read_text())["version"] != version:
        NODE_CACHE.mkdir(parents=True, exist_ok=True)
        command = ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(NODE_CACHE),
                   f"typescript@{version}"]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True, timeout=300)
    return bin_dir / "tsc"


@pytest.fixture(scope="session")
def built(tsc: Path) -> Path:
    """clients/typescript/dist, compiled from the sources as they are now."""
    done = subprocess.run(
        [str(tsc), "-p", str(PACKAGE / "tsconfig.json")], capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return PACKAGE / "dist"


def slow_query(topic: str) -> str:
    return f"How slow is the {topic} sanctuary?"


def add_slow_pages(web: TestWeb, delay_s: float = 2.5) -> None:
    for topic in SLOW_TOPICS:
        url = f"http://{topic}.example.org/sanctuary"
        text = (
            f"The {topic} sanctuary is slow by design: its residents move about 0.3 "
            "kilometres an hour and the sanctuary opens at noon every day of the year."
        )
        page = (
            f"<html><head><title>The {topic} sanctuary</title></head><body><article>"
            f"<h1>The {topic} sanctuary</h1><p>{text}</p><p>{text}</p></article></body></html>"
        )
        web.add_page(url, page, delay_s=delay_s)
        web.script_search(
            f"{topic} sanctuary", [{"url": url, "title": f"{topic} sanctuary", "content": text}]
        )


@pytest.fixture
def sleuth_serve(testweb_env: TestWeb, capsys: pytest.CaptureFixture[str]) -> Iterator[dict]:
    """Keys for orgs acme and beta, then `sleuth serve` with one run slot and one run per org."""
    add_slow_pages(testweb_env)
    keys = {}
    for org in ("acme", "beta"):
        code, key, err = run(["keys", "create", "--org", org], capsys)
        assert code == 0, err
        keys[org] = key.strip()
    port = free_port()
    proc = start_serve(port, "--run-slots=1", "--org-runs=1")
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(base, proc)
        yield {"api": base + "/api", "keys": keys}
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)


def node(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", *args], cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip


def test_the_sdk_under_node_test_against_sleuth_serve(built: Path, sleuth_serve: dict) -> None:
    env = {
        "SLEUTH_TEST_API": sleuth_serve["api"],
        "SLEUTH_TEST_KEY": sleuth_serve["keys"]["acme"],
        "SLEUTH_TEST_KEY_BETA": sleuth_serve["keys"]["beta"],
        "SLEUTH_TEST_SLOW": json.dumps([slow_query(t) for t in SLOW_TOPICS]),
    }
    done = node(["--test", "--test-concurrency=1", "test/api.test.mjs", "test/sse.test.mjs"],
                PACKAGE, env)  # fmt: skip
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    assert "# skipped 0" in done.stdout and "# fail 0" in done.stdout, report


@pytest.fixture
def scripted_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    """A scripted OpenAI-compatible model on loopback, the model of a `sleuth serve` started
    after it (through its environment)."""
    server = FakeLLMServer("openai").start()
    monkeypatch.setenv("SLEUTH_BASE_URL", server.url)
    monkeypatch.setenv("SLEUTH_API_KEY", "test-key")
    monkeypatch.setenv("SLEUTH_MODEL", "gpt-4o-mini")
    yield server
    server.stop()


def test_extract_through_the_sdk_with_a_scripted_model(
    built: Path, scripted_model: FakeLLMServer, sleuth_serve: dict
) -> None:
    scripted_model.script(Reply(chunks=['{"default_retention_days": 90}']))
    env = {
        "SLEUTH_TEST_API": sleuth_serve["api"],
        "SLEUTH_TEST_KEY": sleuth_serve["keys"]["acme"],
        "SLEUTH_TEST_LLM": "1",
    }
    done = node(["--test", "test/extract.test.mjs"], PACKAGE, env)
    report = done.stdout + done.stderr
    assert done.returncode == 0 and "# pass 1" in done.stdout, report
    assert len(scripted_model.received) == 1 and "90 days" in str(scripted_model.received[0].body)


def docs_example() -> str:
    text = DOCS.read_text(encoding="utf-8")
    return text.split("<!-- example -->\n```js\n", 1)[1].split("```", 1)[0]


def test_the_packed_tarball_runs_the_docs_example(
    tsc: Path, sleuth_serve: dict, tmp_path: Path
) -> None:
    """`npm pack` (its prepack compiles), installed into an empty project with no registry; a
    TypeScript program type-checks against it; then the docs' example, as written, runs
    against the server."""
    path = f"{tsc.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    packed = subprocess.run(
        ["npm", "pack", "--pack-destination", str(tmp_path)], cwd=PACKAGE,
        env={**os.environ, "PATH": path}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert packed.returncode == 0, packed.stderr
    tarball = tmp_path / packed.stdout.strip().splitlines()[-1]
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "example", "type": "module"}')
    install = ["npm", "install", "--offline", "--no-audit", "--no-fund", str(tarball)]
    done = subprocess.run(install, cwd=project, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    shipped = project / "node_modules" / "sleuth-research"
    assert {"LICENSE", "README.md", "package.json", "dist"} <= {p.name for p in shipped.iterdir()}
    # The shipped declarations type a user's program (and refuse a wrong call).
    shutil.copy(PACKAGE / "test" / "consumer.ts", project / "consumer.ts")
    check = [str(tsc), "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution",
             "nodenext", "--target", "es2022", "--lib", "es2022,dom", "consumer.ts"]  # fmt: skip
    typed = subprocess.run(check, cwd=project, capture_output=True, text=True, timeout=300)
    assert typed.returncode == 0, typed.stdout + typed.stderr
    (project / "example.mjs").write_text(docs_example(), encoding="utf-8")
    env = {"SLEUTH_API_URL": sleuth_serve["api"], "SLEUTH_KEY": sleuth_serve["keys"]["acme"]}
    ran = node(["example.mjs"], project, env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "90 days" in ran.stdout and "[1]" in ran.stdout, ran.stdout
    assert "sources:" in ran.stdout, ran.stdout
