"""Model SDK clients shared by every run of a process: one connection pool per endpoint.

Each run gets its own chat models (its own cost meter and key use), but building an SDK client
costs a TLS context and a connection pool; the application keeps one per endpoint here and
closes them when it closes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")


class ClientPool:
    def __init__(self) -> None:
        self._clients: dict[Hashable, Any] = {}

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        if key not in self._clients:
            self._clients[key] = make()
        client: T = self._clients[key]
        return client

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            close = getattr(client, "close", None)
            if close is not None:
                await close()
