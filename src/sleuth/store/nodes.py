"""Which serving processes sharing a SLEUTH_HOME are alive.

A process that makes claims in the service store (a run's reservation, the one run of
identical requests, an Idempotency-Key being answered) first takes an exclusive `flock` on its
own file, `SLEUTH_HOME/nodes/<node>.lock`, and holds it while it lives. The kernel drops the
lock when the process ends, however it ends (`kill -9`, out of memory, a power-cycled
container), so a node file whose lock can be taken belongs to a dead process, and its claims
are void at once instead of when their lease runs out. A claim whose owner has no node file
(written before nodes existed, or by a test naming an owner) keeps its lease.

`flock` works between processes on one machine, which is what SQLite itself needs too.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
from pathlib import Path

NODE = re.compile(r"^[0-9a-f]{16}$")
SUFFIX = ".lock"


class NodeLock:
    """This process's node: its id, and the lock that says it is alive until `close()`."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.id = secrets.token_hex(8)
        self.path = folder / f"{self.id}{SUFFIX}"
        # Locked under a temporary name, then renamed: nobody can find the file unlocked.
        making = folder / f".{self.id}.making"
        self._fd = os.open(making, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.replace(making, self.path)
        except BaseException:
            os.close(self._fd)
            raise

    def close(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                self.path.unlink()
            os.close(self._fd)
            self._fd = -1


def is_dead(folder: Path, node: str) -> bool:
    """True when `node` has a node file and no process holds its lock."""
    if not NODE.match(node):
        return False
    try:
        fd = os.open(folder / f"{node}{SUFFIX}", os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held: alive
    finally:
        os.close(fd)
    return True


def dead_nodes(folder: Path) -> list[str]:
    """Every node file in `folder` whose process is gone."""
    if not folder.is_dir():
        return []
    found = (p.name.removesuffix(SUFFIX) for p in folder.glob(f"*{SUFFIX}"))
    return [node for node in found if is_dead(folder, node)]


def forget(folder: Path, nodes: list[str]) -> None:
    """Remove dead nodes' files (once their claims are gone)."""
    for node in nodes:
        if NODE.match(node):
            with contextlib.suppress(OSError):
                (folder / f"{node}{SUFFIX}").unlink()
