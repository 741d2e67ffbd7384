"""The files of an evidence pack (format 1) and how each is encoded.

    manifest.json     format, version, session, checker, and every other file's SHA-256
    signature.json    optional: an Ed25519 signature of manifest.json's exact bytes
    answer.md         the answer as the citation check read it
    result.json       the run's result in Sleuth's public shape (DESIGN §1)
    claims.json       each cited sentence, its citation numbers, and whether it was supported
    sources/N.json    cited source N: URL, title, fetch time, the passages checked, text hash
    sources/N.txt     cited source N's extracted text, UTF-8, exactly as saved by the run

JSON files are UTF-8, keys sorted, two-space indented, one trailing newline; hashes are over
the bytes in the archive, so a verifier never re-encodes anything.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

FORMAT = "sleuth-evidence-pack"
VERSION = 1
MANIFEST = "manifest.json"
SIGNATURE = "signature.json"
ANSWER = "answer.md"
RESULT = "result.json"
CLAIMS = "claims.json"
SOURCE_FILE = re.compile(r"^sources/([1-9][0-9]{0,5})\.(json|txt)$")
UNHASHED = frozenset({MANIFEST, SIGNATURE})  # the manifest lists every other file


def source_json(number: int) -> str:
    return f"sources/{number}.json"


def source_text(number: int) -> str:
    return f"sources/{number}.txt"


def known_name(name: str) -> bool:
    return name in (MANIFEST, SIGNATURE, ANSWER, RESULT, CLAIMS) or bool(SOURCE_FILE.match(name))


def encode(data: Any) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Listed:
    """A file as the manifest lists it."""

    path: str
    sha256: str
    bytes: int


def manifest(
    files: dict[str, bytes], session: dict[str, Any], checker: dict[str, Any], created_at: str
) -> bytes:
    listed = [
        {"path": path, "sha256": sha256(data), "bytes": len(data)}
        for path, data in sorted(files.items())
    ]
    return encode(
        {
            "format": FORMAT,
            "version": VERSION,
            "created_at": created_at,
            "session": session,
            "checker": checker,
            "files": listed,
        }
    )
