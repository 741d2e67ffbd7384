"""What the operator's organization commands share (`sleuth keys ...`, `sleuth keys
org-model ...`): an organization's name checked, and the service store opened for one call."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..app.caller import LOCAL_ORG
from ..errors import UsageError

ORG_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
T = TypeVar("T")


def with_store(call: Callable[[Any], Awaitable[T]]) -> T:
    """`call(store)` on the service store (SQLite under SLEUTH_HOME, or SLEUTH_DATABASE_URL's
    PostgreSQL), closed afterwards."""
    from ..app.application import Sleuth
    from ..settings import Settings

    async def run() -> T:
        # Where the store lives is the environment's (SLEUTH_HOME, SLEUTH_DATABASE_URL): no
        # settings are resolved, so a broken config.toml never locks the keys away.
        async with Sleuth(Settings()) as app:
            return await call(app.service_store)

    return asyncio.run(run())


def org_name(value: str) -> str:
    if not ORG_NAME.match(value):
        raise UsageError(
            f"--org takes a name of letters, digits, '.', '_' or '-' (up to 63), not {value!r}"
        )
    if value == LOCAL_ORG:
        raise UsageError(
            f"--org {LOCAL_ORG!r} is reserved for the operator's own runs (the command line, "
            "an open server, the web UI); name the organization something else"
        )
    return value
