"""Ed25519 signing of evidence packs: the key under SLEUTH_HOME, a manifest's signature, and
checking one.

The signature covers the exact bytes of `manifest.json`, which lists the SHA-256 of every other
file, so it covers the whole pack. `signature.json` carries the public key too: a valid
signature proves the pack is as that key's holder made it; that the key is one you trust is
what `sleuth verify --key` pins (by the key, its PEM file, or its id).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..errors import StoreError, UsageError

ALGORITHM = "ed25519"
KEY_FILE = Path("signing") / "ed25519.pem"


def key_id(public: bytes) -> str:
    """A short, stable name for a public key: `ed25519:` and 16 hex digits of its SHA-256."""
    return f"{ALGORITHM}:{hashlib.sha256(public).hexdigest()[:16]}"


@dataclass(frozen=True, slots=True)
class SigningKey:
    private: Ed25519PrivateKey

    @property
    def public(self) -> bytes:
        return self.private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    @property
    def id(self) -> str:
        return key_id(self.public)

    def public_pem(self) -> str:
        return (
            self.private.public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode()
        )

    def signature(self, manifest: bytes) -> dict[str, Any]:
        """The content of `signature.json` for these manifest bytes."""
        return {
            "algorithm": ALGORITHM,
            "key_id": self.id,
            "public_key": base64.b64encode(self.public).decode(),
            "signature": base64.b64encode(self.private.sign(manifest)).decode(),
        }


def key_path(home: Path) -> Path:
    return home / KEY_FILE


def create_key(home: Path, *, replace: bool = False) -> SigningKey:
    """A new key saved (owner-only) under `home`; an existing key is kept unless `replace`."""
    path = key_path(home)
    if path.exists() and not replace:
        raise UsageError(
            f"a signing key already exists at {path}; packs signed with it verify only "
            "against it (replace it with --replace)"
        )
    key = SigningKey(Ed25519PrivateKey.generate())
    pem = key.private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = path.with_suffix(".tmp")
        temporary.unlink(missing_ok=True)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(pem)
        temporary.replace(path)
    except OSError as exc:
        raise StoreError(f"cannot save the signing key at {path}: {exc}") from exc
    return key


def load_key(home: Path) -> SigningKey | None:
    """The key under `home`, or None when there is none."""
    path = key_path(home)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot read the signing key at {path}: {exc}") from exc
    try:
        private = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise StoreError(f"{path} is not an unencrypted PEM private key: {exc}") from exc
    if not isinstance(private, Ed25519PrivateKey):
        raise StoreError(f"{path} is not an Ed25519 key")
    return SigningKey(private)


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    valid: bool
    key_id: str  # the id of the key the signature names ("" when unreadable)
    problem: str = ""


def check_signature(manifest: bytes, signature: Any) -> SignatureCheck:
    """Whether `signature` (signature.json's content) is a valid signature of `manifest` by
    the public key it carries."""
    if not isinstance(signature, dict) or signature.get("algorithm") != ALGORITHM:
        return SignatureCheck(False, "", f"signature.json is not an {ALGORITHM} signature")
    try:
        public = base64.b64decode(str(signature.get("public_key", "")), validate=True)
        raw = base64.b64decode(str(signature.get("signature", "")), validate=True)
        key = Ed25519PublicKey.from_public_bytes(public)
    except (binascii.Error, ValueError):
        return SignatureCheck(False, "", "signature.json holds no readable key or signature")
    name = key_id(public)
    if signature.get("key_id") not in (None, name):
        return SignatureCheck(False, name, "its key_id does not name its public key")
    try:
        key.verify(raw, manifest)
    except InvalidSignature:
        return SignatureCheck(False, name, "the signature does not match manifest.json")
    return SignatureCheck(True, name)


def trusted_ids(given: str) -> frozenset[str]:
    """The key ids `--key` names: a key id, a public key (PEM, or base64 of its 32 bytes), or
    a file holding a PEM public key."""
    text = given.strip()
    if text.startswith(f"{ALGORITHM}:"):
        return frozenset({text})
    candidate = Path(text)
    if "\n" not in text and len(text) < 4096 and candidate.is_file():
        text = candidate.read_text(encoding="utf-8", errors="replace")
    return frozenset({key_id(_public_bytes(text, given))})


def _public_bytes(text: str, given: str) -> bytes:
    if "BEGIN PUBLIC KEY" in text:
        try:
            key = serialization.load_pem_public_key(text.encode())
        except ValueError as exc:
            raise UsageError(f"--key: not a readable PEM public key ({exc})") from exc
        if not isinstance(key, Ed25519PublicKey):
            raise UsageError("--key: not an Ed25519 public key")
        return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    try:
        raw = base64.b64decode(text, validate=True)
    except binascii.Error:
        raw = b""
    if len(raw) != 32:
        raise UsageError(
            f"--key takes a key id (ed25519:…), a public key or its PEM file, not {given!r}"
        )
    return raw
