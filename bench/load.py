"""`wrk` (Debian's package) as the service bench's load generator: a process of its own that
drives a server from outside it, so the figures are the server's and not the bench's Python
clients'. A Lua script gives each request its method, headers and body and counts the answers
by status; `done()` prints one JSON line the bench reads.

    python -m bench.load http://127.0.0.1:8000/healthz --seconds 5
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STATUSES = (200, 201, 204, 400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504)

# Each thread counts its answers by status in globals (`thread:get` reads numbers only); `done`
# adds them up and prints the figures as JSON on a line of its own.
LUA = """
local bodies = { @BODIES@ }
local n = 0
local threads = {}
local statuses = { @STATUSES@ }

function setup(thread)
  table.insert(threads, thread)
end

function request()
  n = n + 1
  local body = bodies[(n - 1) % #bodies + 1]
  return wrk.format(wrk.method, wrk.path, wrk.headers, body)
end

function response(status, headers, body)
  local name = "s" .. status
  _G[name] = (_G[name] or 0) + 1
end

function done(summary, latency, requests)
  local counts = {}
  for _, code in ipairs(statuses) do
    local total = 0
    for _, thread in ipairs(threads) do
      total = total + (thread:get("s" .. code) or 0)
    end
    if total > 0 then table.insert(counts, string.format('"%d":%d', code, total)) end
  end
  local e = summary.errors
  io.write(string.format(
    'WRK {"requests":%d,"seconds":%.3f,"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,' ..
    '"errors":%d,"statuses":{%s}}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000,
    latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    e.connect + e.read + e.write + e.timeout, table.concat(counts, ",")))
end
"""


@dataclass(frozen=True, slots=True)
class Target:
    """What one wrk process sends: a method, a URL, headers, and bodies taken in turn."""

    label: str
    url: str
    method: str = "GET"
    headers: Mapping[str, str] = field(default_factory=dict)
    bodies: Sequence[str] = ("",)


@dataclass(frozen=True, slots=True)
class Measured:
    label: str
    requests: int
    seconds: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    errors: int  # no answer: connect, read, write errors and timeouts
    statuses: dict[int, int]

    @property
    def per_s(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label, "requests": self.requests, "per_s": round(self.per_s, 1),
            "p50_ms": self.p50_ms, "p90_ms": self.p90_ms, "p99_ms": self.p99_ms,
            "errors": self.errors, "statuses": self.statuses,
        }  # fmt: skip


def available() -> bool:
    return shutil.which("wrk") is not None


def script(target: Target) -> str:
    bodies = ", ".join(_lua_string(b) for b in target.bodies) or '""'
    head = [f"wrk.method = {_lua_string(target.method)}"]
    head += [f"wrk.headers[{_lua_string(k)}] = {_lua_string(v)}" for k, v in target.headers.items()]
    statuses = ", ".join(str(s) for s in STATUSES)
    return "\n".join(head) + LUA.replace("@BODIES@", bodies).replace("@STATUSES@", statuses)


def start(target: Target, connections: int, seconds: float) -> subprocess.Popen[str]:
    """Start one wrk process (1 thread) for `seconds` with `connections` connections."""
    folder = Path(tempfile.mkdtemp(prefix="sleuth-wrk-"))
    path = folder / "load.lua"
    path.write_text(script(target), encoding="utf-8")
    command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s",
               "--latency", "--timeout", "30s", "-s", str(path), target.url]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(target: Target, proc: subprocess.Popen[str]) -> Measured:
    out, err = proc.communicate(timeout=600)
    line = next((x for x in out.splitlines() if x.startswith("WRK ")), None)
    if line is None:
        raise RuntimeError(f"wrk gave no figures for {target.label}: {err or out}")
    data = json.loads(line[4:])
    statuses = {int(k): int(v) for k, v in data["statuses"].items()}
    return Measured(target.label, int(data["requests"]), float(data["seconds"]),
                    float(data["p50_ms"]), float(data["p90_ms"]), float(data["p99_ms"]),
                    int(data["errors"]), statuses)  # fmt: skip


def measure(target: Target, connections: int, seconds: float) -> Measured:
    return finish(target, start(target, connections, seconds))


def together(loads: Sequence[tuple[Target, int]], seconds: float) -> list[Measured]:
    """Several wrk processes at once (a mix of request kinds), each measured on its own."""
    started = [(target, start(target, connections, seconds)) for target, connections in loads]
    return [finish(target, proc) for target, proc in started]


def _lua_string(text: str) -> str:
    return json.dumps(text)  # a JSON string literal is a valid Lua string literal


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__)
    ap.add_argument("url")
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args(argv)
    print(json.dumps(measure(Target("url", args.url), args.connections, args.seconds).to_json()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
