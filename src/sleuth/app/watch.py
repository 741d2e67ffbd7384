"""Watched questions: a question re-asked every so often, each run a re-run of the last one
(pages read afresh, saved as its child, so the runs form a session chain), compared with
`diff`'s semantics — sources added and dropped, claims added and dropped — and, when something
changed, a signed webhook call (`fetch/webhook.py`).

A runner takes a due watch with `WatchStore.claim` before running it, so any number of runners
(`sleuth watch run --loop` processes, queue workers) run each due watch once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..errors import NotFoundError, SleuthError, UsageError
from ..evidence.check import checked_text
from ..fetch.guard import GuardPolicy, check_literal
from ..fetch.webhook import Webhooks
from ..pipeline import cite
from ..settings.values import parse_age
from ..store.records import SessionRecord, iso_utc
from ..store.watches import Watch, WatchRun, WatchStore
from .diff import diff_sessions

if TYPE_CHECKING:
    from .application import Sleuth

log = logging.getLogger("sleuth.watch")
MIN_EVERY_S = 60
LEASE_S = 900.0  # a run holds its watch this long at most (a deep run stops at 150 s)
EVENT = "watch.changed"


@dataclass(frozen=True, slots=True)
class Changes:
    """What a run found different from the one before, by `diff` (sources matched by URL) and
    by the answer's cited sentences (compared as text, whatever their numbers)."""

    sources_added: tuple[str, ...] = ()
    sources_removed: tuple[str, ...] = ()
    claims_added: tuple[str, ...] = ()
    claims_removed: tuple[str, ...] = ()
    confidence: tuple[str, str] | None = None  # (before, after) when it changed

    @property
    def changed(self) -> bool:
        return bool(
            self.sources_added
            or self.sources_removed
            or self.claims_added
            or self.claims_removed
            or self.confidence
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "sources_added": list(self.sources_added),
            "sources_removed": list(self.sources_removed),
            "claims_added": list(self.claims_added),
            "claims_removed": list(self.claims_removed),
        }
        if self.confidence:
            data["confidence"] = {"before": self.confidence[0], "after": self.confidence[1]}
        return data


def changes_between(a: SessionRecord, b: SessionRecord) -> Changes:
    diff = diff_sessions(a, b)
    before, after = _claims(a), _claims(b)
    confidence = (a.result.confidence, b.result.confidence)
    return Changes(
        sources_added=diff.sources_added,
        sources_removed=diff.sources_removed,
        claims_added=tuple(s for key, s in after.items() if key not in before),
        claims_removed=tuple(s for key, s in before.items() if key not in after),
        confidence=confidence if confidence[0] != confidence[1] else None,
    )


def _claims(record: SessionRecord) -> dict[str, str]:
    text = checked_text(record.result.answer or "")
    return {" ".join(re.findall(r"\w+", c.sentence.lower())): c.sentence for c in cite.claims(text)}


def new_watch(
    question: str,
    every: str,
    *,
    deep: bool = False,
    webhook: str | None = None,
    allow_private: bool = False,
    now: float | None = None,
) -> Watch:
    """A watch due at once (its first run asks the question; later runs re-run it)."""
    question = " ".join(question.split())
    if not question:
        raise UsageError("the question is empty", setting="question")
    every_s = int(parse_age(every, setting="every").total_seconds())
    if every_s < MIN_EVERY_S:
        raise UsageError(f"every must be at least {MIN_EVERY_S // 60} minute", setting="every")
    if webhook:
        check_literal(webhook, GuardPolicy(allow_private=allow_private))
    moment = time.time() if now is None else now
    return Watch(
        id=secrets.token_hex(4),
        question=question,
        every_s=every_s,
        options={"deep": 2} if deep else {},
        webhook=webhook or None,
        secret=secrets.token_hex(32),
        created_at=iso_utc(datetime.fromtimestamp(moment, UTC)),
        next_at=moment,
    )


class Watcher:
    """Runs watches through one application: claims, runs, compares, calls webhooks, records.
    `values` are this runner's own settings (search backend, model); a watch's go on top."""

    def __init__(
        self,
        app: Sleuth,
        store: WatchStore,
        values: Mapping[str, Any] | None = None,
        webhooks: Webhooks | None = None,
    ) -> None:
        self.app, self.store, self.values = app, store, dict(values or {})
        self.webhooks = webhooks or Webhooks(allow_private=app.settings.allow_private_network)

    async def aclose(self) -> None:
        await self.webhooks.aclose()

    async def run_due(self, now: float | None = None) -> list[WatchRun]:
        """Every watch due now that this runner wins, one after another."""
        moment = time.time() if now is None else now
        done = []
        for watch_id in await asyncio.to_thread(self.store.due, moment):
            run = await self.run_one(watch_id, now=moment)
            if run is not None:
                done.append(run)
        return done

    async def run_one(
        self, watch_id: str, *, now: float | None = None, force: bool = False
    ) -> WatchRun | None:
        """Run the watch if this runner can claim it (due, or `force`: whenever it is free);
        None when another runner holds it or it is not due."""
        moment = time.time() if now is None else now
        watch = await asyncio.to_thread(self.store.claim, watch_id, moment, LEASE_S, force=force)
        if watch is None:
            return None
        try:
            run = await self._run(watch)
        except BaseException:
            await asyncio.to_thread(self.store.release, watch.id)
            raise
        await asyncio.to_thread(self.store.finish, run, moment + watch.every_s)
        return run

    async def _run(self, watch: Watch) -> WatchRun:
        values = {**self.values, **watch.options}
        ran_at = iso_utc(datetime.now(UTC))
        try:
            if watch.last_session is not None:
                return await self._rerun(watch, values, ran_at)
        except NotFoundError:
            log.warning(
                "watch %s: its last run %s is gone; starting a new chain",
                watch.id,
                watch.last_session,
            )
        try:
            result = await self.app.ask(watch.question, **values)
        except SleuthError as exc:
            return WatchRun(watch.id, None, None, ran_at, "failed", {"error": str(exc)})
        return WatchRun(watch.id, result.session_id, None, ran_at, "first")

    async def _rerun(self, watch: Watch, values: dict[str, Any], ran_at: str) -> WatchRun:
        assert watch.last_session is not None
        before = await asyncio.to_thread(self.app.sessions.get, watch.last_session)
        try:
            result, _ = await self.app.rerun(before.id, **values)
        except NotFoundError:
            raise
        except SleuthError as exc:
            return WatchRun(watch.id, None, before.id, ran_at, "failed", {"error": str(exc)})
        if result.session_id is None:
            return WatchRun(
                watch.id, None, before.id, ran_at, "failed", {"error": "the run was not saved"}
            )
        after = await asyncio.to_thread(self.app.sessions.get, result.session_id)
        changes = changes_between(before, after)
        status = "changed" if changes.changed else "unchanged"
        delivery = None
        if changes.changed and watch.webhook:
            body = payload(watch, before, after, changes, ran_at)
            delivery = str(await self.webhooks.post(watch.webhook, body, watch.secret, EVENT))
        return WatchRun(watch.id, after.id, before.id, ran_at, status, changes.to_json(), delivery)


def payload(
    watch: Watch, before: SessionRecord, after: SessionRecord, changes: Changes, ran_at: str
) -> bytes:
    """The webhook's JSON body (docs/watch.md)."""
    result = after.result
    data = {
        "event": EVENT,
        "watch": {"id": watch.id, "question": watch.question, "every_s": watch.every_s},
        "run": {"session_id": after.id, "previous_session_id": before.id, "ran_at": ran_at},
        "changes": changes.to_json(),
        "answer": result.answer or "",
        "confidence": result.confidence,
        "citations": [
            {"number": c.number, "url": c.url, "title": c.title} for c in result.citations
        ],
    }
    return json.dumps(data, ensure_ascii=False).encode()
