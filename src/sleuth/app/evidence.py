"""Evidence packs of saved sessions, for every face: the CLI's `export --format=pack` and the
API's `GET …/runs/{id}/pack` both call `session_pack`. A pack is signed when this Sleuth home
has a signing key (`sleuth keys signing create`) unless the caller asks for none."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..evidence.build import build_pack
from ..evidence.sign import load_key
from ..store import SessionStore


@dataclass(frozen=True, slots=True)
class Pack:
    session_id: str
    data: bytes
    signed_by: str | None  # the signing key's id, None when unsigned

    @property
    def filename(self) -> str:
        return f"sleuth-pack-{self.session_id}.zip"


def session_pack(
    sessions: SessionStore,
    home: Path,
    ref: str,
    *,
    org: str | None = None,
    sign: bool = True,
) -> Pack:
    """The pack of session `ref` (an id or a unique prefix; with `org`, only that org's)."""
    record = sessions.get(ref, org=org)
    key = load_key(home) if sign else None
    return Pack(record.id, build_pack(record, key), key.id if key else None)
