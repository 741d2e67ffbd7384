"""pytest plugin: a real PostgreSQL for the tests, a throwaway cluster on loopback.

`postgres_url` (session) is a `postgresql://` URL to a server: the one named by
`SLEUTH_TEST_POSTGRES_URL` when set, else a fresh cluster this plugin creates in a temp dir
(`initdb` + `pg_ctl start` on a free loopback port, trust auth) and stops at the session's end.
`postgres_db` (per test) is the URL of a fresh, empty database on that server.

Without the server binaries (`/usr/lib/postgresql/*/bin/initdb`) or without psycopg (the
`postgres` extra) the fixtures skip, saying what is missing, so `make test` passes anyway.
`initdb` refuses to run as root: as root (CI) the cluster belongs to the `postgres` user and the
commands run through `runuser`; otherwise they run as the current user.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

URL_VARIABLE = "SLEUTH_TEST_POSTGRES_URL"
SUPERUSER = "sleuth"
# Read at import: the per-test environment scrub (conftest's `sleuth_home`) removes SLEUTH_*.
GIVEN_URL = os.environ.get(URL_VARIABLE)


def bin_dir() -> Path | None:
    """The newest installed server's bin directory, or None when no server is installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version_key)
    return Path(found[-1]).parent if found else None


def _version_key(path: str) -> tuple[int, ...]:
    part = Path(path).parent.parent.name
    return tuple(int(p) for p in part.split(".") if p.isdigit())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_owner(argv: list[str], owner: str | None) -> list[str]:
    """`argv` run as the cluster's owner: through runuser when we are root, else directly."""
    return ["runuser", "-u", owner, "--", *argv] if owner else argv


def _skip_without_psycopg() -> None:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip(
            "needs the postgres extra (psycopg not installed): pip install -e '.[postgres]'"
        )


class Cluster:
    """A throwaway cluster: initdb into a temp dir, start on a free loopback port, stop.

    Tests run it without durability (fsync, synchronous commit and full-page writes off);
    `durable=True` keeps the server's defaults, as the bench measures it (`bench/scaling.py`)."""

    def __init__(self, bin_dir: Path, *, durable: bool = False) -> None:
        self.bin_dir = bin_dir
        self.durable = durable
        self.root = Path(tempfile.mkdtemp(prefix="sleuth-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.owner = "postgres" if os.geteuid() == 0 else None

    @property
    def url(self) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres"

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(
            _as_owner(argv, self.owner), capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            log = self.root / "log.txt"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(
                f"{argv[0]} failed ({done.returncode}): {done.stdout}{done.stderr}{tail}"
            )

    def start(self) -> Cluster:
        if self.owner:
            shutil.chown(self.root, self.owner, self.owner)
        self._run(
            [
                str(self.bin_dir / "initdb"),
                "-D",
                str(self.data),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        )
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        options += " -c max_connections=300"
        self._run(
            [
                str(self.bin_dir / "pg_ctl"),
                "-D",
                str(self.data),
                "-o",
                options,
                "-l",
                str(self.root / "log.txt"),
                "-w",
                "start",
            ]
        )
        return self

    def stop(self) -> None:
        try:
            pg_ctl = str(self.bin_dir / "pg_ctl")
            self._run([pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def with_database(url: str, name: str) -> str:
    """`url` with its database part replaced by `name`."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A `postgresql://` URL to a running server (SLEUTH_TEST_POSTGRES_URL, or our own cluster)."""
    _skip_without_psycopg()
    if GIVEN_URL:
        yield GIVEN_URL
        return
    found = bin_dir()
    if found is None:
        pytest.skip(
            "needs PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb missing): "
            f"apt-get install postgresql, or set {URL_VARIABLE}"
        )
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        pytest.skip("running as root needs runuser to start PostgreSQL as the postgres user")
    cluster = Cluster(found).start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


@pytest.fixture
def postgres_db(postgres_url: str) -> Iterator[str]:
    """The URL of a fresh, empty database on the session's server, dropped after the test."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield with_database(postgres_url, name)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str | None:
    """Run a test on both storage backends: None for SQLite (files under the test's
    SLEUTH_HOME), or a fresh PostgreSQL database's URL (skipped when there is none)."""
    if request.param == "sqlite":
        return None
    url: str = request.getfixturevalue("postgres_db")
    return url
