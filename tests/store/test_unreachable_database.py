"""A database URL that reaches no server: the knowledge-base and watch stores on PostgreSQL
refuse at once with a StoreError that names the database without its password (fast: nothing
listens on port 1 of loopback, so no PostgreSQL is needed)."""

from __future__ import annotations

import pytest

from sleuth.errors import StoreError
from sleuth.kb import open_store
from sleuth.store.watches_pg import PgWatchStore

URL = "postgresql://sleuth:hunter2@127.0.0.1:1/sleuth"


def test_the_knowledge_base_store_says_the_database_is_unreachable() -> None:
    with pytest.raises(StoreError) as refused:
        open_store({"SLEUTH_DATABASE_URL": URL})
    assert "127.0.0.1" in str(refused.value) and "hunter2" not in str(refused.value)


def test_the_watch_store_says_the_database_is_unreachable() -> None:
    with pytest.raises(StoreError) as refused:
        PgWatchStore(URL)
    assert "127.0.0.1" in str(refused.value) and "hunter2" not in str(refused.value)
