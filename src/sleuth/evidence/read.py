"""Reading a pack's archive without trusting it: sizes are capped while decompressing (a
declared size can lie), member names may appear once only (a zip can hold two `answer.md`,
and readers disagree on which one counts), and nothing is written to disk."""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path

from ..errors import UsageError

MAX_PACK_BYTES = 256 * 1024 * 1024
MAX_MEMBER_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_MEMBERS = 5000
CHUNK = 1024 * 1024


class PackError(UsageError):
    """A file that is not a readable evidence pack (not a zip, too large, malformed)."""

    code = "BAD_PACK"


def read_file(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_PACK_BYTES:
            raise PackError(f"{path}: over {MAX_PACK_BYTES // (1024 * 1024)} MB, not a pack")
        return path.read_bytes()
    except OSError as exc:
        raise PackError(f"{path}: {exc.strerror or exc}") from exc


def members(data: bytes) -> dict[str, bytes]:
    """Every member of the archive by name, in archive order."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise PackError(f"not a zip archive ({exc})") from exc
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise PackError(f"{len(infos)} files: more than a pack holds")
        out: dict[str, bytes] = {}
        total = 0
        for info in infos:
            if info.is_dir():
                continue
            if info.filename in out:
                raise PackError(f"{info.filename} appears twice in the archive")
            out[info.filename] = _read(archive, info)
            total += len(out[info.filename])
            if total > MAX_TOTAL_BYTES:
                raise PackError("its files add up to more than a pack holds")
    return out


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    chunks: list[bytes] = []
    size = 0
    try:
        with archive.open(info) as member:
            while chunk := member.read(CHUNK):
                size += len(chunk)
                if size > MAX_MEMBER_BYTES:
                    raise PackError(f"{info.filename}: larger than a pack's file may be")
                chunks.append(chunk)
    except (zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError, OSError) as exc:
        # RuntimeError: an encrypted member; NotImplementedError: an unknown compression.
        raise PackError(f"{info.filename}: cannot be read ({exc})") from exc
    return b"".join(chunks)
