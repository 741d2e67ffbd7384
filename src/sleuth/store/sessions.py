"""Saved sessions in SQLite: every run, kept locally, comparable and shareable.

One file under SLEUTH_HOME in WAL mode. Each save is one transaction, so a process killed in
the middle of a save leaves the previous state intact. The schema grows by appending a function
to MIGRATIONS; `PRAGMA user_version` records how many have run.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from ..disk.sqlite import enable_wal, is_damaged, move_aside, recovering
from ..errors import NotFoundError, StoreError, UsageError
from ..recent import Recent
from ..settings import sleuth_home
from ..types import ModelUsage
from .codec import result_from_json, result_to_json
from .migrate import Step, migrate
from .records import (
    Revision,
    SessionRecord,
    SessionStats,
    SessionSummary,
    normalize_tags,
    parse_iso,
)

WHAT = "session store"


class Rows(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Conn(Protocol):
    """What the store's queries need of a connection: sqlite3's, or PostgreSQL's through
    `postgres.Dialect` (the same statements, `?` placeholders and all)."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Rows: ...

    def executemany(self, sql: str, parameters: Any, /) -> Any: ...


def sessions_db_path(home: Path | None = None) -> Path:
    return (home or sleuth_home()) / "sessions.db"


def _v1_tables(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            question TEXT NOT NULL,
            parent_id TEXT,
            models TEXT NOT NULL,        -- JSON list
            source_count INTEGER NOT NULL,
            rounds INTEGER NOT NULL,
            cost_usd REAL,
            by_model TEXT NOT NULL,      -- JSON {name: ModelUsage}, for stats without bodies
            body TEXT NOT NULL           -- JSON: options, plan, round trace, full result
        )"""
    )
    conn.execute("CREATE INDEX sessions_created ON sessions(created_at)")
    conn.execute(
        """CREATE TABLE session_tags (
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (session_id, tag)
        )"""
    )
    conn.execute("CREATE INDEX session_tags_tag ON session_tags(tag)")


def _v2_org(conn: sqlite3.Connection) -> None:
    """Runs made through the service belong to an organization; CLI runs have none."""
    conn.execute("ALTER TABLE sessions ADD COLUMN org TEXT")
    conn.execute("CREATE INDEX sessions_org ON sessions(org, created_at)")


def _v3_revisions(conn: sqlite3.Connection) -> None:
    """Edited versions of a session's answer (the web UI's editor), numbered from 1; the saved
    result itself is revision 0 and never changes."""
    conn.execute(
        """CREATE TABLE session_revisions (
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            note TEXT NOT NULL,
            answer TEXT NOT NULL,
            verification TEXT NOT NULL,  -- JSON, the citation check of this text
            PRIMARY KEY (session_id, number)
        )"""
    )


def _v4_listing(conn: sqlite3.Connection) -> None:
    """Beside the counts, so a listing shows them without reading bodies: the run's
    confidence, and for a stage of a steered run, which stage (History folds the stages of
    one run under it)."""
    conn.execute("ALTER TABLE sessions ADD COLUMN confidence TEXT")
    conn.execute("ALTER TABLE sessions ADD COLUMN stage TEXT")
    conn.execute(
        "UPDATE sessions SET confidence = json_extract(body, '$.result.confidence'),"
        " stage = json_extract(body, '$.options.steering.stage')"
    )


# Append only: a database at user_version N runs MIGRATIONS[N:] on open.
MIGRATIONS: tuple[Step, ...] = (_v1_tables, _v2_org, _v3_revisions, _v4_listing)

_SUMMARY_COLUMNS = (
    "id, created_at, question, source_count, rounds, cost_usd, parent_id, models, org,"
    " confidence, stage"
)
_INSERT = (
    "INSERT INTO sessions (id, created_at, question, parent_id, models, source_count, rounds,"
    " cost_usd, by_model, body, org, confidence, stage)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _body(record: SessionRecord) -> str:
    return json.dumps(
        {
            "options": record.options,
            "plan": list(record.plan),
            "rounds": list(record.rounds),
            "result": result_to_json(record.result, with_text=True),
        },
        ensure_ascii=False,
    )


def _stage(record: SessionRecord) -> str | None:
    """The stage a steered run's session saved (clarify, plan, explore, done), else None."""
    steering = record.options.get("steering")
    stage = steering.get("stage") if isinstance(steering, dict) else None
    return stage if isinstance(stage, str) else None


def _by_model_json(record: SessionRecord) -> str:
    by_model = record.result.usage.by_model
    return json.dumps({name: _model_dict(m) for name, m in by_model.items()})


def _model_dict(m: ModelUsage) -> dict[str, Any]:
    return {
        "calls": m.calls,
        "input_tokens": m.input_tokens,
        "output_tokens": m.output_tokens,
        "cost_usd": m.cost_usd,
    }


SAVES_KEPT = 256  # the summaries of this process's last saves, to bring a listing up to date


class SessionStore:
    """The saved sessions in one SQLite file. Each call opens its own connection, so a store is
    safe to share between threads and never holds the file open between commands."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or sessions_db_path()
        self._count_changes()
        recovering(self.path, WHAT, self._prepare)

    def _count_changes(self) -> None:
        self.changes = 0  # writes this process committed: a listing read before one may be old
        self._saves: Recent[int, SessionSummary] = Recent(SAVES_KEPT)  # by change: what it saved
        self._counting = threading.Lock()

    def _committed(self, saved: SessionSummary | None) -> None:
        with self._counting:
            self.changes += 1
            if saved is not None:
                self._saves.put(self.changes, saved)

    def saved_since(self, change: int) -> tuple[int, tuple[SessionSummary, ...]] | None:
        """The sessions this process saved after its write number `change`, oldest first, and
        the number of the last write; None if a write since was something else (a tag, a
        removal) or is no longer remembered, so a listing read before it must be read again."""
        with self._counting:
            if self.changes - change > SAVES_KEPT:
                return None  # more writes than are remembered: no need to walk them
            saved = [self._saves.get(n) for n in range(change + 1, self.changes + 1)]
            upto = self.changes
        if any(s is None for s in saved):
            return None
        return upto, tuple(s for s in saved if s is not None)

    def _prepare(self) -> None:
        with closing(self._open()) as conn:
            enable_wal(conn)
            migrate(conn, MIGRATIONS, "sessions")

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=FULL")
        return conn

    @property
    def where(self) -> str:
        """Where the sessions are kept, for messages."""
        return str(self.path)

    @contextmanager
    def _tx(self, saved: SessionSummary | None = None) -> Iterator[Conn]:
        """One write transaction: all of it commits or none of it does; `saved` is the summary
        of the session it saves, if that is what it does."""
        with self._guard(), closing(self._open()) as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            self._committed(saved)

    @contextmanager
    def _read(self) -> Iterator[Conn]:
        with self._guard(), closing(self._open()) as conn:
            yield conn

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """SQLite and OS failures as one-line StoreErrors; a file found damaged is moved aside
        (the next open starts a new one)."""
        try:
            yield
        except sqlite3.Error as exc:
            if is_damaged(exc):
                moved = move_aside(self.path, WHAT, str(exc))
                raise StoreError(f"{WHAT} {self.path} was damaged; moved it to {moved}") from exc
            raise StoreError(f"{WHAT}: {self.path}: {exc}") from exc
        except OSError as exc:
            raise StoreError(f"{WHAT}: {self.path}: {exc.strerror or exc}") from exc

    # -- writing -----------------------------------------------------------------------------

    def save(self, record: SessionRecord) -> str:
        """Store `record` in one transaction; returns its id. Whatever goes wrong is a
        SleuthError (a StoreError for the disk or for text SQLite cannot hold), so a caller
        that keeps the answer when a save fails never meets a bare ValueError."""
        usage = record.result.usage
        try:
            row = (
                record.id, record.created_at, record.question, record.parent_id,
                json.dumps(list(record.models)), len(record.result.sources), usage.rounds,
                usage.cost_usd, _by_model_json(record), _body(record), record.org,
                record.result.confidence, _stage(record),
            )  # fmt: skip
            with self._tx(saved=summary_of(record)) as conn:
                if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (record.id,)).fetchone():
                    raise UsageError(f"session {record.id} already exists")
                conn.execute(_INSERT, row)
                conn.executemany(
                    "INSERT INTO session_tags VALUES (?, ?)",
                    [(record.id, tag) for tag in normalize_tags(record.tags)],
                )
        except (ValueError, TypeError, RecursionError) as exc:  # unencodable text, odd data
            raise StoreError(f"{WHAT}: cannot store this session: {exc}") from exc
        return record.id

    def tag(self, ref: str, tags: str | Iterable[str]) -> tuple[str, ...]:
        """Add tags to a session; returns its tags afterwards."""
        with self._tx() as conn:
            session_id = _resolve(conn, ref)
            conn.executemany(
                "INSERT OR IGNORE INTO session_tags VALUES (?, ?)",
                [(session_id, tag) for tag in normalize_tags(tags)],
            )
            return _tags_of(conn, session_id)

    def untag(self, ref: str, tags: str | Iterable[str]) -> tuple[str, ...]:
        """Remove tags from a session; returns its tags afterwards."""
        with self._tx() as conn:
            session_id = _resolve(conn, ref)
            conn.executemany(
                "DELETE FROM session_tags WHERE session_id = ? AND tag = ?",
                [(session_id, tag) for tag in normalize_tags(tags)],
            )
            return _tags_of(conn, session_id)

    def rm(self, refs: Iterable[str]) -> tuple[str, ...]:
        """Delete sessions by id or unique prefix; nothing is deleted if any ref is unknown."""
        with self._tx() as conn:
            ids = tuple(dict.fromkeys(_resolve(conn, ref) for ref in refs))
            conn.executemany("DELETE FROM sessions WHERE id = ?", [(i,) for i in ids])
        return ids

    def add_revision(self, ref: str, answer: str, verification: dict[str, Any], note: str) -> int:
        """Save an edited answer as the session's next revision; returns its number."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        try:
            with self._tx() as conn:
                session_id = _resolve(conn, ref)
                row = conn.execute(
                    "SELECT COALESCE(MAX(number), 0) FROM session_revisions WHERE session_id = ?",
                    (session_id,),
                ).fetchone()
                number = int(row[0]) + 1
                conn.execute(
                    "INSERT INTO session_revisions VALUES (?, ?, ?, ?, ?, ?)",
                    (session_id, number, now, note, answer, json.dumps(verification)),
                )
        except (ValueError, TypeError) as exc:
            raise StoreError(f"{WHAT}: cannot store this revision: {exc}") from exc
        return number

    def revisions(self, ref: str) -> list[Revision]:
        """The session's revisions, oldest first."""
        with self._read() as conn:
            session_id = _resolve(conn, ref)
            rows = conn.execute(
                "SELECT number, created_at, note, answer, verification FROM session_revisions"
                " WHERE session_id = ? ORDER BY number",
                (session_id,),
            ).fetchall()
        return [Revision(n, at, note, answer, json.loads(v)) for n, at, note, answer, v in rows]

    def prune(
        self,
        older_than: timedelta | None = None,
        keep: int | None = None,
        dry_run: bool = False,
        now: datetime | None = None,
    ) -> tuple[str, ...]:
        """Delete old sessions; returns the ids removed (or that would be, with `dry_run`).

        `keep` always retains the newest N; with both, a session goes only when it is outside
        the newest N *and* older than the cutoff. With neither, refuses: history is never wiped
        by default.
        """
        if older_than is None and keep is None:
            raise UsageError("prune needs --older-than and/or --keep (it never deletes everything)")
        if keep is not None and keep < 0:
            raise UsageError("--keep must be 0 or more")
        cutoff = (now or datetime.now(UTC)) - older_than if older_than is not None else None
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT id, created_at FROM sessions ORDER BY created_at DESC, id DESC"
            )
            doomed = tuple(
                sid
                for index, (sid, created) in enumerate(rows.fetchall())
                if (keep is None or index >= keep)
                and (cutoff is None or parse_iso(created) < cutoff)
            )
            if not dry_run:
                conn.executemany("DELETE FROM sessions WHERE id = ?", [(i,) for i in doomed])
        return doomed

    # -- reading -----------------------------------------------------------------------------

    def get(self, ref: str, *, org: str | None = None) -> SessionRecord:
        """The session whose id is `ref` or starts with it (a unique prefix). With `org`, only
        that organization's session whose id is exactly `ref`: another org's id is unknown."""
        with self._read() as conn:
            session_id = _resolve(conn, ref) if org is None else _owned(conn, ref, org)
            row = conn.execute(
                "SELECT id, created_at, question, parent_id, models, body, org FROM sessions"
                " WHERE id = ?",
                (session_id,),
            ).fetchone()
            tags = _tags_of(conn, session_id)
        body = json.loads(row[5])
        return SessionRecord(
            id=row[0],
            created_at=row[1],
            question=row[2],
            result=result_from_json(body["result"]),
            options=body.get("options", {}),
            plan=tuple(body.get("plan", ())),
            rounds=tuple(body.get("rounds", ())),
            tags=tags,
            parent_id=row[3],
            models=tuple(json.loads(row[4])),
            org=row[6],
        )

    def resolve(self, ref: str) -> str:
        with self._read() as conn:
            return _resolve(conn, ref)

    def list(
        self,
        filter_text: str | None = None,
        tag: str | None = None,
        *,
        org: str | None = None,
        limit: int | None = None,
        text: str | None = None,
    ) -> tuple[SessionSummary, ...]:
        """Sessions newest first; `filter_text` matches the question (case-insensitive); `org`
        keeps one organization's runs (those made through the service with its keys); `text`
        is a full-text search: every word of it in the question, the answer, or the title or
        text of a source the run read."""
        sql, args = _where(filter_text, tag, org, text)
        order = " ORDER BY created_at DESC, id DESC"
        if limit is not None and not text:
            order += f" LIMIT {int(limit)}"
        columns = _SUMMARY_COLUMNS + (", body" if text else "")
        with self._read() as conn:
            rows = conn.execute(f"SELECT {columns} FROM sessions{sql}{order}", args).fetchall()
            tags = _all_tags(conn)
        if text:  # SQL found every body holding the words; keep those where they are content
            rows = [row[:-1] for row in rows if _mentions(row[-1], text)][:limit]
        return tuple(_summary(row, tags.get(row[0], ())) for row in rows)

    def stats(self, tag: str | None = None) -> SessionStats:
        """Totals over all sessions, or those with `tag`: cost, sources, rounds, per model."""
        sql, args = _where(None, tag)
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT created_at, source_count, rounds, cost_usd, by_model FROM sessions{sql}",
                args,
            ).fetchall()
        by_model: dict[str, ModelUsage] = {}
        for row in rows:
            for name, m in json.loads(row[4]).items():
                by_model[name] = by_model.get(name, ModelUsage()) + ModelUsage(**m)
        dates = sorted(r[0] for r in rows)
        return SessionStats(
            sessions=len(rows),
            cost_usd=sum(r[3] or 0.0 for r in rows),
            sources=sum(r[1] for r in rows),
            rounds=sum(r[2] for r in rows),
            first=dates[0] if dates else None,
            last=dates[-1] if dates else None,
            by_model=by_model,
        )


def summary_of(record: SessionRecord) -> SessionSummary:
    """The listing's row for `record`, as a listing read after its save gives it."""
    usage = record.result.usage
    return SessionSummary(
        record.id,
        record.created_at,
        record.question,
        tuple(sorted(normalize_tags(record.tags))),
        len(record.result.sources),
        usage.rounds,
        None if usage.cost_usd is None else float(usage.cost_usd),
        record.parent_id,
        tuple(record.models),
        record.org,
        record.result.confidence,
        _stage(record),
    )


def _summary(row: tuple[Any, ...], tags: tuple[str, ...]) -> SessionSummary:
    sid, created_at, question, sources, rounds, cost, parent_id, models, org, confidence, stage = (
        row
    )
    return SessionSummary(
        sid,
        created_at,
        question,
        tags,
        sources,
        rounds,
        cost,
        parent_id,
        tuple(json.loads(models)),
        org,
        confidence,
        stage,
    )


MAX_SEARCH_WORDS = 8


def _like(text: str) -> str:
    """A LIKE pattern matching `text` anywhere, its wildcards taken literally."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _words(text: str | None) -> list[str]:
    return (text or "").split()[:MAX_SEARCH_WORDS]


def _mentions(body: str, text: str) -> bool:
    """Every word of `text` (case ignored) in the run's question, answer, or a source's title,
    text or passages: not in JSON keys or ids, which every body has."""
    data = json.loads(body)["result"]
    parts = [data.get("query") or "", data.get("answer") or ""]
    for source in data.get("sources") or ():
        parts += [source.get("title") or "", source.get("text") or ""]
        parts += [p.get("text") or "" for p in source.get("passages") or ()]
    haystack = "\n".join(parts).casefold()
    return all(word.casefold() in haystack for word in _words(text))


def _where(
    filter_text: str | None, tag: str | None, org: str | None = None, text: str | None = None
) -> tuple[str, list[str]]:
    clauses: list[str] = []
    args: list[str] = []
    if org is not None:
        clauses.append("org = ?")
        args.append(org)
    if filter_text:
        clauses.append("question LIKE ? ESCAPE '\\'")
        args.append(_like(filter_text))
    # A first cut in SQL; `_mentions` decides. LIKE ignores only ASCII case, so a word with
    # other letters ("Überblick") is left to `_mentions` alone.
    for word in (w for w in _words(text) if w.isascii()):
        # The body is JSON: a word with a quote or backslash is stored escaped.
        clauses.append("(question LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\')")
        args += [_like(word), _like(json.dumps(word, ensure_ascii=False)[1:-1])]
    if tag:
        clauses.append("id IN (SELECT session_id FROM session_tags WHERE tag = ?)")
        args.append(normalize_tags(tag)[0] if normalize_tags(tag) else tag)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), args


LAST = "last"  # names the newest session wherever an id is taken (ids start with a year)


def _resolve(conn: Conn, ref: str) -> str:
    """The full id that `ref` (an id, a unique prefix, or `last`) names, or a UsageError saying
    why it names none or several."""
    ref = ref.strip()
    if not ref:
        raise UsageError("a session id (or a unique prefix of one, or `last`) is required")
    if ref == LAST:
        newest = conn.execute(
            "SELECT id FROM sessions ORDER BY created_at DESC, id DESC LIMIT 1"
        ).fetchone()
        if newest is None:
            raise UsageError("there is no saved session yet, so `last` names none")
        return str(newest[0])
    rows = conn.execute(
        "SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 4",
        (ref, ref + "\uffff"),
    ).fetchall()
    ids = [r[0] for r in rows]
    if ref in ids:
        return ref
    if not ids:
        raise UsageError(f"no session matches {ref!r} (see `sleuth sessions ls`)")
    if len(ids) > 1:
        shown = ", ".join(ids[:3]) + (", …" if len(ids) > 3 else "")
        raise UsageError(f"{ref!r} matches several sessions ({shown}); give more of the id")
    return str(ids[0])


def _owned(conn: Conn, session_id: str, org: str) -> str:
    """`session_id` when `org` owns it; otherwise the same error as for an unknown id."""
    row = conn.execute(
        "SELECT id FROM sessions WHERE id = ? AND org = ?", (session_id.strip(), org)
    ).fetchone()
    if row is None:
        raise NotFoundError(f"no run {session_id!r} in this organization")
    return str(row[0])


def _tags_of(conn: Conn, session_id: str) -> tuple[str, ...]:
    rows = conn.execute(
        "SELECT tag FROM session_tags WHERE session_id = ? ORDER BY tag", (session_id,)
    )
    return tuple(r[0] for r in rows)


def _all_tags(conn: Conn) -> dict[str, tuple[str, ...]]:
    tags: dict[str, list[str]] = {}
    for session_id, tag in conn.execute("SELECT session_id, tag FROM session_tags ORDER BY tag"):
        tags.setdefault(session_id, []).append(tag)
    return {k: tuple(v) for k, v in tags.items()}
