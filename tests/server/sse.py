"""Reading server-sent events in tests: frames parsed as the SSE spec says (fields until a blank
line; `:` lines are comments), from a live httpx stream."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Frame:
    event: str
    data: str
    id: str | None = None

    @property
    def json(self) -> Any:
        return json.loads(self.data)


def frames(lines: Iterable[str]) -> Iterator[Frame]:
    fields: dict[str, list[str]] = {}
    for raw in lines:
        line = raw.rstrip("\r")
        if not line:
            if fields:
                yield Frame(
                    "".join(fields.get("event", ["message"])),
                    "\n".join(fields.get("data", [])),
                    "".join(fields["id"]) if "id" in fields else None,
                )
            fields = {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        fields.setdefault(name, []).append(value.removeprefix(" "))
