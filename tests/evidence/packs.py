"""A saved session whose answer its sources support, packed; and the edits a forger would
make to a pack: change a file, and (for an unsigned pack) re-hash the manifest to match."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable

from sleuth.evidence.build import archive, build_pack
from sleuth.evidence.layout import MANIFEST, SIGNATURE, sha256
from sleuth.evidence.sign import SigningKey
from sleuth.store import SessionRecord
from sleuth.types import Passage
from tests.store.factories import make_record, make_result, make_source

RETENTION = (
    "Audit logs are retained for 90 days by default on every plan. Enterprise customers can "
    "extend audit log retention to 365 days from the Security settings page."
)
EXPORT = "Exported log entries are written to your storage bucket within five minutes."
ANSWER = (
    "Audit logs are retained for 90 days by default [1]. Enterprise customers can extend "
    "retention to 365 days [1].\n\nExported entries reach your bucket within five minutes [2].\n"
)


def supported_record() -> SessionRecord:
    sources = (
        make_source(
            1,
            "http://docs.example.com/retention",
            RETENTION,
            title="Audit log retention",
            passages=(Passage(RETENTION, 3.2, 0),),
        ),
        make_source(
            2,
            "http://docs.example.com/export",
            EXPORT,
            title="Exporting audit logs",
            passages=(Passage(EXPORT, 2.1, 0),),
        ),
    )
    result = make_result(answer=ANSWER, sources=sources)
    return make_record(result=result, options={"depth": "quick", "cite_min_recall": 0.4})


def files_of(pack: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(pack)) as z:
        return {name: z.read(name) for name in z.namelist()}


def edited(
    pack: bytes,
    name: str,
    change: Callable[[bytes], bytes],
    *,
    rehash: bool = False,
) -> bytes:
    """`pack` with member `name` changed; with `rehash`, the manifest's hash of it updated to
    match (what a forger of an unsigned pack would do), the signature left as it was."""
    files = files_of(pack)
    files[name] = change(files[name])
    if rehash:
        manifest = json.loads(files[MANIFEST])
        for entry in manifest["files"]:
            if entry["path"] == name:
                entry["sha256"], entry["bytes"] = sha256(files[name]), len(files[name])
        files[MANIFEST] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    return archive(files)


def resigned(pack: bytes, key: SigningKey) -> bytes:
    """`pack` with its signature replaced by `key`'s (a valid signature by another key)."""
    files = files_of(pack)
    files[SIGNATURE] = (json.dumps(key.signature(files[MANIFEST])) + "\n").encode()
    return archive(files)


def pack_of(record: SessionRecord, key: SigningKey | None = None) -> bytes:
    return build_pack(record, key)
