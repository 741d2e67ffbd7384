"""A real nginx in front of `sleuth serve` replicas on loopback, and stopping child processes,
for the replica tests and the scaling bench (which uses it as it uses `tests/postgres.py`).

nginx runs from a temp dir holding its configuration, pid, logs and temp paths, and is stopped
with `-s stop`. `NGINX` is None without the binary (Debian package `nginx`).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)

CONF = """
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 1024; }}
http {{
  access_log {access};
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/f;
  uwsgi_temp_path {d}/u; scgi_temp_path {d}/s;
  upstream sleuth {{ {balance}{servers} }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://sleuth; proxy_http_version 1.1; proxy_buffering off;
      proxy_set_header Host $host;
      proxy_read_timeout 200s; proxy_next_upstream off;
    }}
  }}
}}
"""


@contextmanager
def front(
    replicas: Sequence[int], port: int, *, least_conn: bool = False, access_log: bool = True
) -> Iterator[str]:
    """nginx on `port` spreading requests over the replicas' ports (round robin, or to the
    replica with the fewest open requests); yields its base URL."""
    if NGINX is None:
        raise RuntimeError("nginx is not installed (Debian package: nginx)")
    d = Path(tempfile.mkdtemp(prefix="sleuth-nginx-"))
    conf = d / "nginx.conf"
    conf.write_text(
        CONF.format(
            d=d,
            access=f"{d}/access.log" if access_log else "off",
            balance="least_conn; " if least_conn else "",
            servers=" ".join(f"server 127.0.0.1:{p};" for p in replicas),
            port=port,
        )
    )
    command = [NGINX, "-c", str(conf), "-p", f"{d}/"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        shutil.rmtree(d, ignore_errors=True)
        raise RuntimeError(f"nginx did not start: {done.stderr}")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        subprocess.run([*command, "-s", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(d, ignore_errors=True)


def stop_all(procs: Sequence[subprocess.Popen[Any]], timeout_s: float = 60) -> None:
    """SIGTERM to every process still running, then wait for each; kill one that lingers."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
