"""Every PostgreSQL schema this Sleuth knows, by component: what `sleuth db migrate` runs,
what `sleuth db check` and a replica's readiness compare the database against."""

from __future__ import annotations

from collections.abc import Mapping

from ..fetch import cache_pg
from ..kb import pg_store as kb_pg
from . import service_pg, sessions_pg, ui_pg

KNOWN: Mapping[str, tuple[str, ...]] = {
    sessions_pg.COMPONENT: sessions_pg.STEPS,
    service_pg.COMPONENT: service_pg.STEPS,
    cache_pg.COMPONENT: cache_pg.STEPS,
    kb_pg.COMPONENT: kb_pg.STEPS,
    ui_pg.COMPONENT: ui_pg.STEPS,
}
