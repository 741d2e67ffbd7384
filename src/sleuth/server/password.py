"""The access password as the server keeps it: a salted scrypt verifier, never the password.

`SLEUTH_ACCESS_PASSWORD` may hold the password itself or a verifier made by `encode` (the
`scrypt$...` form). Either way the server hashes a plain password once at start-up and keeps
only the verifier: a guess costs scrypt's time and 32 MB of memory, so a leaked verifier cannot
be tried at the speed of a plain hash. The salt is one per Sleuth home (`access.salt`), so the
workers of one server, and the server after a restart, derive the same verifier — and a login
session stays tied to the password it was opened with.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

PREFIX = "scrypt"
N, R, P = 2**15, 8, 1  # 32 MB per guess
MAX_MEMORY = 64 * 1024 * 1024
MAX_LENGTH = 1024  # longer candidates are wrong without being hashed
SALT_FILE = "access.salt"


@dataclass(frozen=True, slots=True)
class Verifier:
    salt: bytes
    digest: bytes
    n: int = N
    r: int = R
    p: int = P

    def encoded(self) -> str:
        b64 = base64.urlsafe_b64encode
        return "$".join(
            (PREFIX, str(self.n), str(self.r), str(self.p),
             b64(self.salt).decode(), b64(self.digest).decode())
        )  # fmt: skip

    def matches(self, candidate: str) -> bool:
        """Whether `candidate` is the password (slow on purpose: call it off the event loop)."""
        if len(candidate) > MAX_LENGTH:
            return False
        derived = _derive(candidate, self.salt, self.n, self.r, self.p)
        return hmac.compare_digest(derived, self.digest)

    @property
    def fingerprint(self) -> str:
        """Names this verifier without revealing it (login sessions remember it)."""
        return hashlib.sha256(self.digest).hexdigest()[:16]


def _derive(secret: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, n=n, r=r, p=p, maxmem=MAX_MEMORY, dklen=32)


def parse(text: str) -> Verifier | None:
    """A verifier in its encoded form, or None when `text` is not one."""
    parts = text.split("$")
    if len(parts) != 6 or parts[0] != PREFIX:
        return None
    try:
        n, r, p = (int(x) for x in parts[1:4])
        salt, digest = (base64.urlsafe_b64decode(x.encode()) for x in parts[4:6])
    except ValueError:
        return None
    if n < 2 or n & (n - 1) or not 0 < r * p <= 64 or len(digest) != 32 or len(salt) < 8:
        return None
    return Verifier(salt, digest, n, r, p)


def verifier_for(secret: str, home: Path) -> str:
    """The encoded verifier of `secret` (a password, or already a verifier), salted with the
    home's salt."""
    if parse(secret) is not None:
        return secret
    salt = _salt(home)
    return Verifier(salt, _derive(secret, salt, N, R, P)).encoded()


def encode(password: str) -> str:
    """A verifier with a fresh salt, to put in SLEUTH_ACCESS_PASSWORD instead of the password."""
    salt = secrets.token_bytes(16)
    return Verifier(salt, _derive(password, salt, N, R, P)).encoded()


def _salt(home: Path) -> bytes:
    """The home's salt, made once: written aside and linked into place, so two servers starting
    together agree on it and neither reads a half-written file."""
    path = home / SALT_FILE
    if path.exists():
        return path.read_bytes()
    home.mkdir(parents=True, exist_ok=True)
    aside = home / f"{SALT_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(secrets.token_bytes(16))
    try:
        os.link(aside, path)
    except FileExistsError:
        pass
    finally:
        aside.unlink()
    return path.read_bytes()
