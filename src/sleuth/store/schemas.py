"""Every PostgreSQL schema this Sleuth knows, by component: what `sleuth db migrate` runs,
what `sleuth db check` and a replica's readiness compare the database against."""

from __future__ import annotations

from collections.abc import Mapping

from . import kb_pg_schema, page_cache_pg, service_pg_schema, sessions_pg, ui_pg

KNOWN: Mapping[str, tuple[str, ...]] = {
    sessions_pg.COMPONENT: sessions_pg.STEPS,
    service_pg_schema.COMPONENT: service_pg_schema.STEPS,
    page_cache_pg.COMPONENT: page_cache_pg.STEPS,
    kb_pg_schema.COMPONENT: kb_pg_schema.STEPS,
    ui_pg.COMPONENT: ui_pg.STEPS,
}
