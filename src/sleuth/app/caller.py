"""Who is asking: the `Caller` every use case of the service is given.

A face finds out who is calling (an API key, the access password, an open loopback server, the
person at the command line) and hands the application a `Caller`; from it the application
decides, once, whose sessions a run is saved under, which knowledge bases it may search, which
models it may use and whom it charges. No face patches an organization into a request itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ..store.service import OrgModel

LOCAL_ORG = "local"  # the organization of the person at the command line, an open server, the UI
ALL_SCOPES = ("research", "search", "extract")

How = Literal["local", "key", "password", "open"]


@dataclass(frozen=True, slots=True)
class Caller:
    org: str
    scopes: tuple[str, ...] = ALL_SCOPES
    plan: str = "self-hosted"
    key_id: str | None = None  # the API key's public id; None without a key
    how: How = "local"
    # The organization's own model (its key sealed), looked up with the key: its runs use it.
    model: OrgModel | None = field(default=None, repr=False, compare=False)

    @property
    def is_local(self) -> bool:
        """The operator's own side: the command line, an open loopback server, the access
        password. Only such a caller may search the operator's `local` knowledge bases."""
        return self.key_id is None and self.org == LOCAL_ORG

    def may(self, scope: str) -> bool:
        return scope in self.scopes


LOCAL = Caller(LOCAL_ORG)
