"""The PostgreSQL test fixtures give a working server and a fresh database per test."""

from __future__ import annotations

import pytest


def test_each_test_gets_its_own_empty_database(postgres_db: str, postgres_url: str) -> None:
    import psycopg

    assert postgres_db.startswith("postgresql://")
    assert postgres_db != postgres_url
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
        assert tables == (0,)
        conn.execute("CREATE TABLE t (x int)")
        conn.execute("INSERT INTO t VALUES (1)")
        assert conn.execute("SELECT sum(x) FROM t").fetchone() == (1,)


def test_a_second_test_does_not_see_the_first_ones_tables(postgres_db: str) -> None:
    import psycopg

    with (
        psycopg.connect(postgres_db, autocommit=True) as conn,
        pytest.raises(psycopg.errors.UndefinedTable),
    ):
        conn.execute("SELECT * FROM t")
