"""Reading a file a user named (`--include`, `config.toml`, `--schema`) without trusting it.

A path can name anything: `/dev/zero` (endless), a FIFO (blocks the opener forever), a
directory, or a symlink out of the tree the user meant. Every local read goes through here: the
file is opened without blocking, must be a regular file, and is read up to a size cap. Errors are
`LocalFileError` usage errors whose message names the file and the reason, ready to print
as one line.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import UsageError

CHUNK = 1 << 16


class LocalFileError(UsageError):
    """A named file that cannot be read safely; `problem` reads after the path: "is a named
    pipe (FIFO), not a regular file", "is larger than 1 MB", "cannot be read: No such file"."""

    def __init__(self, what: str, path: Path, problem: str, missing: bool = False) -> None:
        super().__init__(f"{what}: {path} {problem}")
        self.path = path
        self.problem = problem
        self.missing = missing  # nothing there at all (a config file may be absent)


def read_regular(path: Path, limit: int, what: str) -> bytes:
    """The bytes of `path` if it is a regular file of at most `limit` bytes.

    Symlinks are followed (a dotfile manager links config files), but whatever they end at must
    be a regular file. `what` names the input in messages ("--include", "--schema").
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        gone = isinstance(exc, FileNotFoundError | NotADirectoryError)
        raise LocalFileError(what, path, f"cannot be read: {why(exc)}", gone) from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = describe_mode(info.st_mode)
            raise LocalFileError(what, path, f"is {kind}, not a regular file")
        if info.st_size > limit:
            raise LocalFileError(what, path, f"is larger than {_size(limit)}")
        return _read_capped(fd, path, limit, what)
    finally:
        os.close(fd)


def _read_capped(fd: int, path: Path, limit: int, what: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            piece = os.read(fd, CHUNK)
        except OSError as exc:
            raise LocalFileError(what, path, f"cannot be read: {why(exc)}") from exc
        if not piece:
            return b"".join(chunks)
        size += len(piece)
        if size > limit:  # the file grew while being read, or lies about its size
            raise LocalFileError(what, path, f"is larger than {_size(limit)}")
        chunks.append(piece)


def is_regular(path: Path) -> bool:
    """A regular file (after following links), checked without opening it."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def inside(path: Path, root: Path) -> bool:
    """`path`, with every link resolved, lies within `root` (also resolved)."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a link loop
        return False


def describe_mode(mode: int) -> str:
    """What a non-regular file is, for messages: "a directory", "a device", ..."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _size(limit: int) -> str:
    if limit >= 1_000_000:
        return f"{limit / 1_000_000:g} MB"
    return f"{limit / 1000:g} KB"
