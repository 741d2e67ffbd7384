"""The SearXNG side of the test web: a lexical index over the site and the documented JSON shape.

Ranking is SQLite FTS5 bm25 (porter stemming) over title and text, the title weighted double,
any query word matching; that is enough for research questions to find their pages first.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from typing import Any

from tests.testweb.pages import Doc

PAGE_SIZE = 10
ENGINE = "testweb"

_WORD = re.compile(r"\w+")
_STOP = frozenset(
    _WORD.findall(
        """a an and are as at be by for from has have how i in is it its of on or that the this to
        was were what when where which who whom whose why will with did do does can could would
        should may might than then there these those their they he she his her him we you your
        our not no"""
    )
)


class SearchIndex:
    """FTS5 index of the site's docs; safe to query from the server's handler threads."""

    def __init__(self, docs: tuple[Doc, ...]) -> None:
        self._docs = {d.url: d for d in docs}
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(
            "CREATE VIRTUAL TABLE d USING fts5(url UNINDEXED, title, text, "
            "tokenize='porter unicode61')"
        )
        self._db.executemany(
            "INSERT INTO d VALUES (?, ?, ?)", [(d.url, d.title, d.text) for d in docs]
        )
        self._db.commit()

    def search(self, query: str, pageno: int = 1) -> list[dict[str, Any]]:
        match = fts_query(query)
        if not match:
            return []
        sql = (
            "SELECT url, title, snippet(d, 2, '', '', ' … ', 32), bm25(d, 0, 2.0, 1.0) AS rank "
            "FROM d WHERE d MATCH ? ORDER BY rank LIMIT ? OFFSET ?"
        )
        with self._lock:
            rows = self._db.execute(sql, (match, PAGE_SIZE, (pageno - 1) * PAGE_SIZE)).fetchall()
        return [self._result(url, title, snip, rank) for url, title, snip, rank in rows]

    def _result(self, url: str, title: str, snippet: str, rank: float) -> dict[str, Any]:
        result: dict[str, Any] = {
            "url": url,
            "title": title,
            "content": snippet,
            "engine": ENGINE,
            "engines": [ENGINE],
            "score": round(-rank, 4),
            "category": "general",
        }
        published = self._docs[url].published
        if published:
            result["publishedDate"] = published
        return result


def fts_query(query: str) -> str:
    """An FTS5 OR-query of the question's content words, each quoted so no word is syntax."""
    words = [w for w in _WORD.findall(query.lower()) if len(w) > 1 and w not in _STOP]
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words[:32]))


def searx_response(query: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON body SearXNG returns for `format=json`."""
    return {
        "query": query,
        "number_of_results": len(results),
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": [],
    }
