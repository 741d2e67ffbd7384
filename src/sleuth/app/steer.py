"""Steered research: a person guides a run stage by stage (the web UI and `ask --interactive`).

    clarify  → up to three clarifying questions (none without a model); answers are optional
    plan     → sub-queries the person may edit or rewrite
    explore  → a round of search and reading; more rounds with the person's suggestions
    write    → the cited report, in the tone, length and audience asked for
    done

`Steering` is the whole state, a value: each use case returns a new one, and each stage is
saved as a session (the next stage's session names the previous one as its parent), so a past
run reopens at the stage it reached, and going back to a stage keeps everything before it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from ..engine import Engine
from ..errors import UsageError
from ..events import Event
from ..settings.table import SETTINGS
from ..store.codec import result_from_json
from ..store.records import SessionRecord
from ..think.plan import HeuristicPlanner
from ..think.vet import vet
from ..types import Result, Source, Usage
from .assemble import Assembled, build_parts
from .seeds import seed_results

if TYPE_CHECKING:
    from .application import Sleuth

Stage = Literal["clarify", "plan", "explore", "write", "done"]
STAGES: tuple[Stage, ...] = ("clarify", "plan", "explore", "write", "done")
MAX_QUERIES = 12  # searches a face takes from the person for a plan or a round
STYLE_PARTS = ("tone", "length", "audience")  # what a writing request may say
OnEvent = Callable[[Event], None]


@dataclass(frozen=True, slots=True)
class Steering:
    question: str
    stage: Stage = "clarify"
    questions: tuple[str, ...] = ()  # clarifying questions asked
    answers: tuple[str, ...] = ()  # the person's answers, "" where skipped
    plan: tuple[str, ...] = ()  # the sub-queries to search first
    rounds: tuple[tuple[str, ...], ...] = ()  # what each explored round searched
    style: str = ""  # the writing request
    values: Mapping[str, Any] = field(default_factory=dict)  # the run's settings
    result: Result | None = None  # sources gathered so far; the report once written
    session_id: str | None = None  # the session this state was saved as

    @property
    def sources(self) -> tuple[Source, ...]:
        return self.result.sources if self.result is not None else ()

    @property
    def brief(self) -> str:
        """The question with the person's answers, for planning."""
        answered = [f"{q} {a}" for q, a in zip(self.questions, self.answers, strict=False) if a]
        return " ".join([self.question, *answered])

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "stage": self.stage,
            "questions": list(self.questions),
            "answers": list(self.answers),
            "plan": list(self.plan),
            "rounds": [list(r) for r in self.rounds],
            "style": self.style,
            "values": {k: v for k, v in self.values.items() if _jsonable(v) and not _secret(k)},
        }

    @classmethod
    def from_record(cls, record: SessionRecord) -> Steering:
        data = record.options.get("steering")
        if not isinstance(data, dict):
            return cls._finished(record)
        return cls(
            question=str(data.get("question", record.question)),
            stage=data.get("stage", "clarify"),
            questions=tuple(data.get("questions", ())),
            answers=tuple(data.get("answers", ())),
            plan=tuple(data.get("plan", ())),
            rounds=tuple(tuple(r) for r in data.get("rounds", ())),
            style=str(data.get("style", "")),
            values=dict(data.get("values", {})),
            result=record.result,
            session_id=record.id,
        )

    @classmethod
    def _finished(cls, record: SessionRecord) -> Steering:
        """A run that was not steered (the CLI, the API, a re-run) opens at its answer."""
        if not (record.result.answer or record.result.data is not None):
            raise UsageError(f"session {record.id} has no answer to show", setting="session")
        return cls(
            question=record.question,
            stage="done",
            plan=record.plan,
            rounds=tuple(tuple(r.get("queries", ())) for r in record.rounds),
            result=record.result,
            session_id=record.id,
        )


def writing_request(said: Mapping[str, str]) -> str:
    """The person's tone, length and audience as one request ("tone: formal; length: short")."""
    return "; ".join(f"{k}: {said[k]}" for k in STYLE_PARTS if said.get(k))


def _secret(name: str) -> bool:
    """A secret setting (an API key) is never saved with the run; the caller gives it again."""
    found = SETTINGS.get(name)
    return found is not None and found.secret


def _jsonable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool | list | tuple) or value is None


async def start(app: Sleuth, question: str, **values: Any) -> Steering:
    """Ask the clarifying questions; with none to ask, go straight to a plan."""
    started = time.monotonic()
    prepared = app.prepare(question, **values)
    built = build_parts(prepared.settings, app.resources)
    try:
        asked = await built.parts.stages.clarifier.clarify(prepared.request.question.strip())
    finally:
        await built.aclose()
    used = _model_use(built, started)
    steering = Steering(prepared.request.question.strip(), "clarify", tuple(asked), values=values)
    if not asked:
        return await make_plan(app, steering, carried=used)
    return save(app, steering, used)


async def make_plan(
    app: Sleuth, steering: Steering, answers: Sequence[str] = (), *, carried: Usage | None = None
) -> Steering:
    """A plan from the question and the answers given (the model's, vetted, or the
    deterministic one without a model). `carried`: the clarifying stage's use, when it asked
    nothing and so was not saved on its own."""
    started = time.monotonic()
    answered = replace(steering, answers=tuple(a.strip() for a in answers))
    prepared = app.prepare(answered.question, **answered.values)
    built = build_parts(prepared.settings, app.resources)
    planner = built.parts.stages.planner
    try:
        proposed = await planner.plan(answered.brief, language=prepared.request.search_lang)
    finally:
        await built.aclose()
    used = _model_use(built, started)
    plan = [v.query for q in proposed if (v := vet(q, answered.brief)).query]
    if isinstance(planner, HeuristicPlanner) or not plan:
        # Without a model the plan is what a deep run searches: the question itself, then
        # the parts of it the heuristics found (often none for a short question). A model's
        # plan is its own, unless none of it survived vetting: never an empty plan.
        plan = [answered.question, *plan]
    # A new plan starts the rounds over, as an edited one does.
    planned = replace(
        answered, stage="plan", plan=tuple(dict.fromkeys(plan)), rounds=(), result=None
    )
    return save(app, planned, carried + used if carried else used)


def _model_use(built: Assembled, started: float) -> Usage:
    """A stage outside the engine (clarifying, planning): its model calls and time."""
    meter = built.meter
    took = int((time.monotonic() - started) * 1000)
    return Usage(rounds=0, duration_ms=took, model_ms=meter.model_ms, by_model=meter.by_model())


def edit_plan(app: Sleuth, steering: Steering, plan: Sequence[str]) -> Steering:
    """The person's own plan replaces the proposed one (their words are not vetted)."""
    queries = tuple(dict.fromkeys(" ".join(q.split())[:200] for q in plan if q.strip()))
    if not queries:
        raise UsageError("the plan needs at least one search", setting="plan")
    return save(app, replace(steering, stage="plan", plan=queries, rounds=(), result=None))


async def explore(
    app: Sleuth,
    steering: Steering,
    suggestions: Sequence[str] = (),
    on_event: OnEvent | None = None,
) -> Steering:
    """One round of search and reading: the plan first, then the person's suggestions."""
    if steering.stage not in ("plan", "explore"):
        raise UsageError("explore comes after the plan", setting="stage")
    # A first round searches the plan; a plan saved empty (before plans always held the
    # question) searches the question.
    queries = list(steering.plan or (steering.question,)) if not steering.rounds else []
    queries += [" ".join(s.split())[:200] for s in suggestions if s.strip()]
    if not queries:
        raise UsageError("another round needs a suggestion to search", setting="suggestions")
    earlier = [q for r in steering.rounds for q in r]
    prepared = app.prepare(steering.question, **{**steering.values, "deep": 1})
    request = replace(prepared.request, seeds=seed_results(steering.sources))
    built = build_parts(prepared.settings, app.resources)
    from .runs import finish

    try:
        events = Engine.of(built.parts).explore(request, queries, earlier)
        result = await finish(events, on_event)
    finally:
        await built.aclose()
    rounds = (*steering.rounds, tuple(queries))
    return save(app, replace(steering, stage="explore", rounds=rounds, result=result))


async def write(
    app: Sleuth, steering: Steering, style: str = "", on_event: OnEvent | None = None
) -> Steering:
    """The cited report from everything gathered, written as asked."""
    if not steering.sources:
        raise UsageError("write needs at least one explored round", setting="stage")
    prepared = app.prepare(steering.question, **{**steering.values, "output": "report"})
    request = replace(
        prepared.request,
        seeds=seed_results(steering.sources),
        style=style.strip()[:500],
        max_sources=max(len(steering.sources), 1),
    )
    built = build_parts(prepared.settings, app.resources)
    from .runs import finish

    try:
        result = await finish(Engine.of(built.parts).rewrite(request), on_event)
    finally:
        await built.aclose()
    return save(app, replace(steering, stage="done", style=style.strip(), result=result))


def back(app: Sleuth, steering: Steering, stage: Stage) -> Steering:
    """Return to `stage`, keeping everything decided before it (regenerate from there)."""
    if STAGES.index(stage) > STAGES.index(steering.stage):
        raise UsageError(f"the run has not reached {stage} yet", setting="stage")
    if stage == "clarify":
        steering = replace(steering, answers=(), plan=(), rounds=(), result=None)
    elif stage == "plan":
        steering = replace(steering, rounds=(), result=None)
    elif stage in ("explore", "write"):
        steering = replace(steering, style="")
    return replace(steering, stage="explore" if stage == "write" else stage)


def spent(app: Sleuth, steering: Steering) -> Usage:
    """The whole steered run's work so far. Each stage is saved with only its own use (so
    session totals count it once) and a report's own usage covers only the writing; this adds
    up the saved stages back to the start, rounds and reports gone back over included: their
    searches and model calls were spent."""
    total = Usage(rounds=0)
    seen: set[str] = set()
    ref = steering.session_id
    while ref is not None and ref not in seen:
        seen.add(ref)
        record = app.sessions.get(ref)
        if not isinstance(record.options.get("steering"), dict):
            return record.result.usage + total  # a finished run opened here: all of its work
        total = replace(record.result.usage, rounds=0) + total
        ref = record.parent_id
    return replace(total, rounds=len(steering.rounds))


def load(app: Sleuth, session_id: str) -> Steering:
    return Steering.from_record(app.sessions.get(session_id))


def save(app: Sleuth, steering: Steering, used: Usage | None = None) -> Steering:
    """Save this stage as a session whose parent is the previous stage's; a stage without a
    result of its own (clarifying, planning) keeps what it `used`."""
    result = steering.result or _empty(steering.question, used)
    record = SessionRecord.new(
        steering.question,
        result,
        options={"depth": "steered", "steering": steering.to_json()},
        plan=steering.plan,
        parent_id=steering.session_id,
    )
    app.sessions.save(record)
    return replace(steering, result=record.result if steering.result else None,
                   session_id=record.id)  # fmt: skip


def _empty(question: str, used: Usage | None = None) -> Result:
    empty = result_from_json({"query": question, "answer": "", "confidence": "low"})
    return replace(empty, usage=used) if used is not None else empty
