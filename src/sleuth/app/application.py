"""`Sleuth`: the application. It owns what a process shares (HTTP pool, page cache, browser,
model clients, session store) and offers every use case; the CLI, the library's `research()`,
`sleuth eval`, the bench, and the server are thin callers of it.

    async with Sleuth() as app:
        result = await app.ask("How long are Example Cloud audit logs kept?", search="searxng")
        async for event in app.stream("what is new in Python 3.13?", deep=2):
            ...

Each use case saves its session and trace itself, so a run looks and is saved the same way
whichever face started it. Options are setting names from `sleuth.settings.table`
(`max_sources=8`, `since="30d"`, `deep=2`); many runs may go at once on one `Sleuth`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import aclosing
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..engine import Engine
from ..errors import LLMNotConfigured, NoSourcesError, SleuthError, UsageError
from ..events import Done, Event, Notice
from ..limits import DEEP_LIMIT_S, QUICK_LIMIT_S
from ..ports import SearchQuery
from ..settings import Settings, database_url, folder, sleuth_home
from ..store import SessionStore
from ..store.backend import service_store, session_store
from ..store.records import SessionRecord
from ..store.service import ServiceStore
from ..types import Result, SearchResult, Usage
from .assemble import Resources, backend_settings, build_fetcher, build_parts, llm_settings
from .options import Prepared, prepare
from .runs import finish
from .trace import Trace

# What `ask` never uses (knowledge bases, steering, diffs, search/extract lookups) is imported by
# the use case that needs it, so a CLI run pays only for the engine it runs.
if TYPE_CHECKING:
    from ..graph.model import KnowledgeGraph
    from ..store.ui_text import SavedText
    from ..store.watches import WatchStore
    from .admission import Policy
    from .budget import Budget
    from .diff import SessionDiff
    from .doctor import Check
    from .graphs import GraphCache
    from .knowledge import Knowledge
    from .lookup import ReadHit
    from .revise import Checked
    from .saved import SavedRuns
    from .service import Service
    from .steer import Stage, Steering

OnEvent = Callable[[Event], None]


class Sleuth:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: SessionStore | None = None,
        service_store: ServiceStore | None = None,
    ):
        self.settings = settings or Settings()
        self.home = sleuth_home(self.settings.env)
        # Where the state lives is decided here, once: SQLite under SLEUTH_HOME, or the
        # PostgreSQL database of SLEUTH_DATABASE_URL for everything (no face opens a store).
        self.database_url = database_url(self.settings.env)
        self.resources = Resources(self.home, self.database_url)
        self._store = store
        self._service_store = service_store
        self._graphs: GraphCache | None = None

    @classmethod
    def from_env(cls, profile: str | None = None, **overrides: Any) -> Sleuth:
        """The application with the settings every face resolves from this process's
        environment: built-in defaults < $SLEUTH_HOME/config.toml < `profile` (else
        SLEUTH_PROFILE, else the file's) < SLEUTH_* variables < `overrides` (setting names)."""
        return cls(Settings.from_env(None, profile, **overrides))

    @cached_property
    def knowledge(self) -> Knowledge:
        from .knowledge import Knowledge

        return Knowledge(self.settings.env)

    async def __aenter__(self) -> Sleuth:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.resources.aclose()
        if self._service_store is not None:
            await self._service_store.aclose()

    @property
    def graph_cache(self) -> GraphCache:
        """Knowledge graphs already drawn (loaded on first use: the CLI starts faster)."""
        if self._graphs is None:
            from .graphs import GraphCache

            self._graphs = GraphCache()
        return self._graphs

    @property
    def sessions(self) -> SessionStore:
        if self._store is None:
            where = folder(self.settings.sessions_dir, self.home)
            self._store = session_store(where, self.database_url)
        return self._store

    @cached_property
    def saved(self) -> SavedRuns:
        """The saved runs for a server: each call off the event loop (`app/saved.py`)."""
        from .saved import SavedRuns

        return SavedRuns(lambda: self.sessions)

    @property
    def service_store(self) -> ServiceStore:
        """Keys, quotas, usage, idempotency, the result cache and runs in flight (opened,
        and migrated, on first use)."""
        if self._service_store is None:
            self._service_store = service_store(self.home, self.sessions, self.database_url)
        return self._service_store

    @cached_property
    def watches(self) -> WatchStore:
        """Watched questions (`sleuth watch`): the database's, or a file under the home."""
        from ..store.backend import watch_store

        return watch_store(self.home, self.database_url)

    @cached_property
    def ui_text(self) -> SavedText:
        """Where the web UI's Settings page keeps what it saves (the database's, or a file)."""
        from ..store.ui_text import saved_text

        return saved_text(self.home, self.database_url)

    def service(self, policy: Policy | None = None, **options: Any) -> Service:
        """The service use cases (admission, quotas, caching, shared runs) over this
        application and its service store; see `app/service.py`."""
        from .service import Service

        return Service(self, self.service_store, policy, **options)

    # -- research ------------------------------------------------------------------------------

    def prepare(self, question: str, **values: Any) -> Prepared:
        """Settings, request and saving for a run; `values` are setting names (see the table)."""
        prepared = prepare(question, self.settings, values)
        if prepared.request.max_runtime_s is None:
            limit = DEEP_LIMIT_S if prepared.request.depth == "deep" else QUICK_LIMIT_S
            prepared = replace(prepared, request=replace(prepared.request, max_runtime_s=limit))
        return prepared

    def stream(
        self, question: str, *, run_id: str | None = None, **values: Any
    ) -> AsyncIterator[Event]:
        """The events of one run; its `Done` carries the result with its saved session id."""
        return self.run(self.prepare(question, **values), run_id=run_id)

    async def ask(self, question: str, *, on_event: OnEvent | None = None, **values: Any) -> Result:
        """Research `question` and return the saved result; raises SleuthError on failure."""
        return await finish(self.stream(question, **values), on_event)

    async def run(
        self,
        prepared: Prepared,
        *,
        rewrite: bool = False,
        run_id: str | None = None,
        budget: Budget | None = None,
    ) -> AsyncIterator[Event]:
        """Run a prepared request (or only re-write it from its seeds) and save it; with a
        `budget`, within what the organization's quotas allow (the result says what was held
        back)."""
        built = build_parts(prepared.settings, self.resources, budget)
        if not rewrite:
            self.resources.warm_up()
        engine = Engine.of(built.parts)
        events = (engine.rewrite if rewrite else engine.run)(prepared.request, run_id)
        trace = Trace()
        try:
            async with aclosing(events):  # type: ignore[type-var]
                async for event in events:
                    trace(event)
                    if isinstance(event, Done):
                        event = replace(event, result=trace.attach(held_back(event.result, budget)))
                        for item in await self._saved(event, prepared, trace):
                            yield item
                        return
                    yield event
        finally:
            await built.aclose()

    async def _saved(self, done: Done, prepared: Prepared, trace: Trace) -> list[Event]:
        """`done` with its session id once saved; a failed save costs a notice, not the answer.
        The save runs off the event loop: a server's other requests never wait on the disk."""
        if not prepared.saving.enabled:
            return [done]
        try:
            result = await self._save(done.result, prepared, trace)
        except (SleuthError, OSError, sqlite3.Error) as exc:
            message = f"the session was not saved: {exc}"
            note = Notice(message, after=True, run_id=done.run_id, seq=done.seq)
            return [note, replace(done, seq=done.seq + 1)]
        return [replace(done, result=result)]

    async def _save(self, result: Result, prepared: Prepared, trace: Trace) -> Result:
        saving, request = prepared.saving, prepared.request
        record = SessionRecord.new(
            request.question.strip(),
            result,
            options={"depth": request.depth, **saving.options},
            plan=trace.plan,
            rounds=trace.rounds,
            tags=saving.tags,
            parent_id=saving.parent_id,
            org=saving.org,
        )
        await self.saved.save(record)
        return record.result

    async def search(self, query: str, *, limit: int = 10, **values: Any) -> list[SearchResult]:
        """One search through the configured backend, without reading any page; results a run
        with the same values would drop (domain lists, `since`) are left out."""
        from ..search.spec import build_search

        text = query.strip()
        if not text:
            raise UsageError("the query is empty", setting="query")
        prepared = prepare(text, self.settings, values)
        backend = build_search(prepared.settings.search, backend_settings(prepared.settings))
        try:
            request = prepared.request
            asked = SearchQuery(text, limit, request.since, language=request.search_lang)
            found = await backend.search(asked)
        finally:
            close = getattr(backend, "aclose", None)
            if close is not None:
                await close()
        from .lookup import filtered

        return filtered(found, prepared.request)

    async def search_read(
        self, query: str, *, limit: int = 10, read: int = 5, passages: int = 3, **values: Any
    ) -> list[ReadHit]:
        """Search, then read the top `read` results and attach each one's best passages for the
        query; results keep the search's order."""
        from .lookup import ReadHit, guarded, read_hits

        results = await self.search(query, limit=limit, **values)
        prepared = self.prepare(query, **values)
        fetcher = guarded(build_fetcher(prepared.settings, self.resources), prepared.request)
        top = await read_hits(query.strip(), results[:read], fetcher, passages=passages)
        return top + [ReadHit(r) for r in results[read:]]

    async def answer_from(
        self, question: str, results: Sequence[SearchResult], **values: Any
    ) -> Result:
        """A cited answer written from these results only (read pages, else their snippets):
        no search, nothing read again, not saved."""
        prepared = self.prepare(question, **values)
        prepared = replace(
            prepared,
            request=replace(prepared.request, seeds=tuple(results)),
            saving=replace(prepared.saving, enabled=False),
        )
        return await finish(self.run(prepared, rewrite=True))

    async def extract(
        self,
        urls: Sequence[str],
        *,
        prompt: str | None = None,
        schema: dict[str, Any] | None = None,
        **values: Any,
    ) -> tuple[Result, list[ReadHit]]:
        """Read the given pages (same fetcher, same address guard) and fill `schema` from them,
        or answer `prompt` from them with citations; needs an LLM."""
        from .lookup import MAX_EXTRACT_URLS, guarded, read_hits, url_results

        if not urls or len(urls) > MAX_EXTRACT_URLS:
            raise UsageError(f"urls takes 1 to {MAX_EXTRACT_URLS} URLs", setting="urls")
        if not (prompt and prompt.strip()) and schema is None:
            raise UsageError("extract needs a prompt, a schema, or both", setting="prompt")
        question = (prompt or "").strip() or "Extract the data the schema describes."
        prepared = self.prepare(question, **values)
        if not llm_settings(prepared.settings).configured:
            raise LLMNotConfigured(
                "extract needs an LLM: the server has no model endpoint or key configured"
            )
        fetcher = guarded(build_fetcher(prepared.settings, self.resources), prepared.request)
        hits = await read_hits(question, url_results(urls), fetcher, deadline_s=15.0)
        pages = [h.result for h in hits if h.result.page is not None]
        if not pages:
            skipped = "; ".join(f"{h.result.url}: {h.skipped}" for h in hits)
            raise NoSourcesError(f"none of the pages could be read ({skipped})")
        extra = {"schema": schema} if schema is not None else {}
        return await self.answer_from(question, pages, **values, **extra), hits

    # -- steered research (app/steer.py) -----------------------------------------------------

    async def steer(self, question: str, **values: Any) -> Steering:
        """Start a steered run: clarifying questions, or straight to a plan."""
        from . import steer as steered

        return await steered.start(self, question, **values)

    async def steer_plan(self, state: Steering, answers: Sequence[str] = ()) -> Steering:
        from . import steer as steered

        return await steered.make_plan(self, state, answers)

    def steer_edit(self, state: Steering, plan: Sequence[str]) -> Steering:
        from . import steer as steered

        return steered.edit_plan(self, state, plan)

    async def steer_explore(
        self, state: Steering, suggestions: Sequence[str] = (), on_event: OnEvent | None = None
    ) -> Steering:
        from . import steer as steered

        return await steered.explore(self, state, suggestions, on_event)

    async def steer_write(
        self, state: Steering, style: str = "", on_event: OnEvent | None = None
    ) -> Steering:
        from . import steer as steered

        return await steered.write(self, state, style, on_event)

    def steer_back(self, state: Steering, stage: Stage) -> Steering:
        from . import steer as steered

        return steered.back(self, state, stage)

    def steer_load(self, session_id: str) -> Steering:
        from . import steer as steered

        return steered.load(self, session_id)

    def steer_save(self, state: Steering) -> Steering:
        """Save a stage as a session of its own (going back to a stage starts from here)."""
        from . import steer as steered

        return steered.save(self, state)

    def steer_spent(self, state: Steering) -> Usage:
        """Every stage's searches, reading, model calls and time so far, not the last one's."""
        from . import steer as steered

        return steered.spent(self, state)

    # -- building on saved sessions ----------------------------------------------------------

    def from_session(self, session_id: str, question: str | None = None, **values: Any) -> Prepared:
        """A run seeded with a saved session's sources, saved as its child with its tags; it
        searches the parent's backend unless `search` is given."""
        from .seeds import seed_results

        record = self.sessions.get(session_id)
        saved_search = record.options.get("search")
        if "search" not in values and isinstance(saved_search, str) and saved_search:
            values = {**values, "search": saved_search}
        prepared = self.prepare((question or "").strip() or record.question, **values)
        seeds = seed_results(record.result.sources)
        saving = replace(
            prepared.saving,
            tags=(*prepared.saving.tags, *record.tags),
            parent_id=record.id,
        )
        return replace(prepared, request=replace(prepared.request, seeds=seeds), saving=saving)

    async def resume(
        self,
        session_id: str,
        question: str | None = None,
        *,
        on_event: OnEvent | None = None,
        **values: Any,
    ) -> Result:
        """Re-write a saved session's answer from its saved sources only (no search, no reading)."""
        prepared = self.from_session(session_id, question, **values)
        return await finish(self.run(prepared, rewrite=True), on_event)

    async def continue_(
        self,
        session_id: str,
        question: str | None = None,
        *,
        on_event: OnEvent | None = None,
        **values: Any,
    ) -> Result:
        """A full run seeded with a saved session's sources; known pages are not fetched again."""
        prepared = self.from_session(session_id, question, **values)
        return await finish(self.run(prepared), on_event)

    async def rerun(
        self, session_id: str, *, on_event: OnEvent | None = None, **values: Any
    ) -> tuple[Result, SessionDiff | None]:
        """The saved question again from scratch (pages read afresh), saved, and the diff."""
        record = self.sessions.get(session_id)
        prepared = self.from_session(session_id, **values)
        fresh = replace(
            prepared,
            settings=replace(prepared.settings, refresh_cache=True),
            request=replace(prepared.request, seeds=()),
        )
        result = await finish(self.run(fresh), on_event)
        if result.session_id is None:
            return result, None
        return result, self.diff(record.id, result.session_id)

    def diff(self, first: str, second: str) -> SessionDiff:
        from .diff import diff_sessions

        return diff_sessions(self.sessions.get(first), self.sessions.get(second))

    async def narrate(self, first: str, second: str, **values: Any) -> str:
        """The model's account of what changed in substance between two runs."""
        from ..llm.factory import build_chat_model, make_meter
        from .diff import diff_sessions
        from .narrate import narrate

        config = llm_settings(prepare("narrate", self.settings, values).settings)
        model = build_chat_model(config, make_meter(config), "critic", self.resources.models)
        if model is None:
            raise UsageError(
                "narrate needs an LLM: configure base_url, or set OPENAI_API_KEY, "
                "GEMINI_API_KEY or ANTHROPIC_API_KEY",
                setting="narrate",
            )
        a, b = self.sessions.get(first), self.sessions.get(second)
        return await narrate(
            model, diff_sessions(a, b), a.result.answer or "", b.result.answer or ""
        )

    async def graph(
        self, session_id: str, *, method: str = "auto", org: str | None = None, **values: Any
    ) -> KnowledgeGraph:
        """The knowledge graph of a saved run's cited passages (`auto`: the model when one is
        configured, else co-occurrence); `org` limits the lookup to that org's sessions."""
        from .graphs import session_graph

        return await session_graph(self, session_id, method, org, values)

    # -- editing a finished answer (app/revise.py) -------------------------------------------

    def check_edit(self, session_id: str, text: str, basis: str = "") -> Checked:
        """An edited answer as it would be saved, checked against the run's own sources;
        `basis`: the text a translation translates."""
        from . import revise

        return revise.check(self, session_id, text, basis)

    def save_revision(
        self, session_id: str, text: str, note: str = "edited", basis: str = ""
    ) -> int:
        """Save an edited answer (checked again) as the session's next revision: its number."""
        from . import revise

        return revise.save_revision(self, session_id, text, note, basis)

    async def transform_edit(
        self, session_id: str, text: str, kind: str, language: str = "", **values: Any
    ) -> Checked:
        """The model's rewrite of an answer (simpler, shorter, a translation...), checked."""
        from . import revise

        return await revise.transform(self, session_id, text, kind, language, **values)

    def export(self, session_id: str, fmt: str) -> str:
        from ..export import render

        return render(self.sessions.get(session_id), fmt)

    async def doctor(self, **values: Any) -> list[Check]:
        """Environment, storage, LLM endpoint, search backend and browser, checked."""
        from .doctor import run_checks

        return await run_checks(self.home, prepare("doctor", self.settings, values).settings)


def held_back(result: Result, budget: Budget | None) -> Result:
    """`result`, saying (among its confidence reasons) what the quota kept it from reading."""
    if budget is None or not budget.refused:
        return result
    reason = (
        f"the organization's quota held back {len(budget.refused)} search(es) or page(s): "
        "this answer was written from less than a full run would read"
    )
    return replace(result, confidence_reasons=(*result.confidence_reasons, reason))
