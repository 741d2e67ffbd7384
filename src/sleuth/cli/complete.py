"""Shell completion of values: search backend names after `--search`, saved session ids
wherever a command takes an ID. Both run on every TAB, so they stay cheap and never fail."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

import click
from click.shell_completion import CompletionItem

from ..errors import SleuthError

MAX_IDS = 50
F = TypeVar("F", bound=Callable[..., Any])


def backends(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Registered backends (aliases too), and `multi:` for a fan-out."""
    from ..registry import registries

    try:
        entries = list(registries().search)
    except Exception:  # a broken plugin must not break TAB; the command itself will say why
        return []
    names = [(e.name, e.summary) for e in entries]
    return [CompletionItem(n, help=h) for n, h in names if n.startswith(incomplete)]


def session_ids(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """`last` and the newest saved session ids that start with what was typed."""
    from ..settings import folder, sleuth_home
    from ..settings.resolve import resolve
    from ..store import SessionStore, sessions_db_path

    try:  # where runs save (sessions_dir); completion stays silent on a broken setting
        named = resolve(None, note=lambda message: None).values["sessions_dir"]
    except SleuthError:
        named = None
    path = sessions_db_path(folder(named, sleuth_home()))
    if not path.exists():
        return []
    try:
        found = SessionStore(path).list()
    except (SleuthError, OSError, sqlite3.Error):
        return []
    items = (
        [CompletionItem("last", help="the newest session")] if "last".startswith(incomplete) else []
    )
    for summary in found:
        if summary.id.startswith(incomplete) and len(items) < MAX_IDS:
            items.append(CompletionItem(summary.id, help=summary.question[:60]))
    return items


def session_argument(name: str, metavar: str = "ID", **kwargs: Any) -> Callable[[F], F]:
    """A session id argument that completes saved ids."""
    return click.argument(name, metavar=metavar, shell_complete=session_ids, **kwargs)
