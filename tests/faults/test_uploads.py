"""The upload matrix (issue 24): hostile files posted to a real `sleuth serve` (a child
process) through `POST /api/orgs/{org}/kb/files`. Nothing of an upload is inflated or parsed in
the server process: for each case the server's peak resident size, read back from the kernel
(VmHWM in /proc/<pid>/status), stays within PEAK_BOUND_MB of its peak after an ordinary
warm-up upload, the answer is a 201 or a 422 naming the reason (never a 500), and the server
keeps answering. Before, type sniffing read a zip's whole `mimetype` member in process (a 1 MB
upload took the server to 2.2 GB) and a 20 MB CSV was read in process (1.36 GB, 68-91 s).

Names that are no file name (`.`, `..`, control and bidi characters) are refused; a path is cut
to its last part. The zip bombs and names run in `make test`; the cases that use up a worker's
time or memory limit (XLSX, PPTX, EPUB, PDF, 19 MB CSV/TSV) in `make soak`.
"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the server tests need sleuth[server] and the dev extra")
import os
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.faults.matrix import child_env
from tests.faults.report import write_section
from tests.faults.served import Served, make_keys, serve
from tests.faults.uploads import Upload, fast_cases, heavy_cases

# An upload is at most 20 MB; the server holds it, its multipart spool and the copy it sends
# to the sandbox worker, and nothing else of it.
PEAK_BOUND_MB = 150.0
ORG = "acme"
ROWS: list[str] = []


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str, float]]:
    """One server for the module: its key and its peak after an ordinary upload."""
    home = tmp_path_factory.mktemp("uploads") / "home"
    key = make_keys(home, [ORG], ("research",))[ORG]
    served = serve(home, child_env(), home.parent / "serve.log")
    try:
        ordinary = b"# Boiling\n\nWater boils at 100 degrees Celsius at sea level.\n" * 50
        assert post(served, key, "notes.md", ordinary).status_code == 201
        assert post(served, key, "table.csv", b"a,b\n1,2\n" * 200).status_code == 201
        yield served, key, peak_mb(served)
    finally:
        served.stop()
    target = os.environ.get("SLEUTH_SOAK_REPORT")
    if target and ROWS:
        head = ["## Hostile uploads (server peak resident size, VmHWM)", ""]
        write_section(
            Path(target), [*head, "| case | status | peak over warm |", "|---|---|---|", *ROWS]
        )


def post(served: Served, key: str, filename: str, data: bytes) -> httpx.Response:
    return httpx.post(
        f"{served.base}/api/orgs/{ORG}/kb/files",
        files={"file": (filename, data)},
        headers={"X-API-Key": key},
        timeout=120,
    )


def peak_mb(served: Served) -> float:
    for line in Path(f"/proc/{served.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc status")


def check(server: tuple[Served, str, float], upload: Upload) -> httpx.Response:
    served, key, warm = server
    got = post(served, key, upload.filename, upload.data)
    grown = peak_mb(served) - warm
    ROWS.append(f"| {upload.name} | {got.status_code} | {grown:.0f} MB |")
    assert got.status_code in (201, 422), (upload.name, got.status_code, got.text)
    assert grown <= PEAK_BOUND_MB, f"{upload.name}: the server's peak grew {grown:.0f} MB"
    assert httpx.get(f"{served.base}/healthz", timeout=30).status_code == 200
    assert not served.errors_logged(), served.errors_logged()
    return got


@pytest.mark.parametrize("upload", fast_cases(), ids=lambda u: u.name)
def test_archive_bombs_are_never_inflated_in_the_server(
    server: tuple[Served, str, float], upload: Upload
) -> None:
    got = check(server, upload)
    assert got.status_code == 422 and got.json()["code"] == "UNREADABLE_FILE"


@pytest.mark.soak
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("upload", heavy_cases(), ids=lambda u: u.name)
def test_heavy_uploads_cost_a_worker_not_the_server(
    server: tuple[Served, str, float], upload: Upload
) -> None:
    check(server, upload)


# Control characters cannot be sent: clients percent-encode them in the multipart header
# (tests/kb/test_upload_names.py checks them where the name is decided).
@pytest.mark.parametrize("name", [".", "..", "evil\u202etxt.md"])
def test_names_that_are_no_file_name_are_refused(
    server: tuple[Served, str, float], name: str
) -> None:
    got = check(server, Upload(f"name {name!r}", name, b"Water boils at 100 degrees.\n"))
    assert got.status_code == 422 and "not a usable file name" in got.json()["error"]


def test_a_path_is_cut_to_its_last_part(server: tuple[Served, str, float]) -> None:
    got = check(server, Upload("path", "../../etc/passwd.md", b"Water boils at 100 degrees.\n"))
    assert got.status_code == 201 and got.json()["path"] == "upload/passwd.md"
