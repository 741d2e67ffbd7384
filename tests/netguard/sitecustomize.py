"""Loaded by Python at start-up when this directory is on PYTHONPATH: subprocesses started by
tests (the real `sleuth` entry point) get the same no-internet guard as the test session.

With TESTS_IMPORT_LOG naming a directory (tests/buckets.py sets it for the session), each such
process also leaves there, at exit, the list of Sleuth's modules it imported, so the check that
`make test` imports every module counts what its subprocesses imported too."""

from __future__ import annotations

import atexit
import contextlib
import ipaddress
import os
import socket
import sys
from pathlib import Path
from typing import Any

IMPORT_LOG = "TESTS_IMPORT_LOG"

_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if not isinstance(host, str):
        return False
    if host.lower() in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


class NetworkBlocked(OSError):
    pass


def _check(sock: socket.socket, address: Any) -> None:
    if sock.family == socket.AF_UNIX:
        return
    host = address[0] if isinstance(address, tuple) else address
    if not is_loopback(host):
        raise NetworkBlocked(f"tests may not connect to non-loopback address {address!r}")


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _check(self, address)
    _connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _check(self, address)
    return _connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if host is not None and not is_loopback(host):
        raise socket.gaierror(socket.EAI_NONAME, f"name lookups are blocked in tests: {host!r}")
    return _getaddrinfo(host, *args, **kwargs)


def sleuth_modules() -> list[str]:
    names = set(sys.modules)
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None:  # `python -m sleuth.cli` runs sleuth.cli.__main__ as `__main__`
        names.add(spec.name)
    return sorted(n for n in names if n == "sleuth" or n.startswith("sleuth."))


def _log_imports(directory: str) -> None:
    # OSError: the session already removed the directory, so there is no one to report to.
    with contextlib.suppress(OSError):
        Path(directory, f"{os.getpid()}.txt").write_text("\n".join(sleuth_modules()))


def install() -> None:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = _guarded_getaddrinfo


install()
if os.environ.get(IMPORT_LOG):
    atexit.register(_log_imports, os.environ[IMPORT_LOG])
