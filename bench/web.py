"""Start `../shared/tools/offline_web.py` as a process of its own and wait until it answers."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

READY_TIMEOUT_S = 180.0  # indexing 17k pages takes seconds; far longer on a loaded machine


class OfflineWeb:
    """One offline web server (with optional injected latency or hanging hosts)."""

    def __init__(self, tool: Path, docs: Path, extra_args: Sequence[str] = ()) -> None:
        self._port_file = Path(tempfile.mkstemp(prefix="sleuth-bench-port-")[1])
        self._port_file.write_text("")
        command = [
            sys.executable,
            str(tool),
            str(docs),
            "--port-file",
            str(self._port_file),
            *extra_args,
        ]
        self._proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = ""
        self.label = " ".join(extra_args) or "no injected latency"

    def wait_ready(self) -> OfflineWeb:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"offline web exited with {self._proc.returncode}")
            port = self._port_file.read_text().strip()
            if port and _healthy(f"http://127.0.0.1:{port}"):
                self.base = f"http://127.0.0.1:{port}"
                return self
            time.sleep(0.2)
        raise RuntimeError("offline web did not become ready")

    def env(self) -> dict[str, str]:
        return {
            "SLEUTH_SEARXNG_URL": self.base,
            "HTTP_PROXY": self.base,
            "http_proxy": self.base,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.base}/stats", timeout=5) as r:
            data: dict[str, Any] = json.loads(r.read())
        return data

    def stop(self) -> None:
        self._proc.terminate()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._port_file.unlink(missing_ok=True)


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False
