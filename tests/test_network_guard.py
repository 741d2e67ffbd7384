import socket

import pytest
from sitecustomize import NetworkBlocked


def test_non_loopback_connect_is_refused() -> None:
    with socket.socket() as s, pytest.raises(NetworkBlocked):
        s.connect(("93.184.216.34", 80))


def test_non_loopback_name_lookup_is_refused() -> None:
    with pytest.raises(socket.gaierror):
        socket.getaddrinfo("example.com", 80)


def test_loopback_lookup_still_works() -> None:
    assert socket.getaddrinfo("127.0.0.1", 80)


def test_subprocesses_get_the_same_guard() -> None:
    import subprocess
    import sys

    code = "import socket; socket.create_connection(('93.184.216.34', 80), timeout=1)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "blocked in tests" in proc.stderr
