"""The knowledge graph of a saved run: drawn by the model when one is configured, else from
names found together in the cited sentences; kept per run so a page shown again costs no call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import BudgetExceededError, LLMError, LLMNotConfigured, UsageError
from ..graph import METHODS
from ..graph.cooccur import cooccurrence_graph
from ..graph.extract import llm_graph
from ..graph.model import KnowledgeGraph, cited_texts
from ..llm.factory import LLMSettings, build_chat_model, make_meter
from ..recent import Recent
from ..store.records import SessionRecord
from .assemble import llm_settings
from .options import prepare

if TYPE_CHECKING:
    from .application import Sleuth

CACHE_SIZE = 64
NO_MODEL = "cooccurrence"


class GraphCache:
    """The last graphs drawn, per (session id, model name or `cooccurrence`)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._graphs = Recent[tuple[str, str], KnowledgeGraph](size)

    def get(self, key: tuple[str, str]) -> KnowledgeGraph | None:
        return self._graphs.get(key)

    def put(self, key: tuple[str, str], graph: KnowledgeGraph) -> None:
        self._graphs.put(key, graph)


async def session_graph(
    app: Sleuth, session_id: str, method: str, org: str | None, values: Mapping[str, Any]
) -> KnowledgeGraph:
    if method not in METHODS:
        raise UsageError(
            f"unknown graph method {method!r}; choose auto, llm or cooccurrence", setting="method"
        )
    record = app.sessions.get(session_id, org=org)
    config = llm_settings(prepare("graph", app.settings, values).settings)
    if method == "llm" and not config.configured:
        raise LLMNotConfigured(
            "method llm needs an LLM: configure base_url, or set OPENAI_API_KEY, GEMINI_API_KEY or "
            "ANTHROPIC_API_KEY",
            setting="method",
        )
    use_model = method == "llm" or (method == "auto" and config.configured)
    key = (record.id, config.model_for("critic") if use_model else NO_MODEL)
    cached = app.graph_cache.get(key)
    if cached is not None:
        return cached
    if not use_model:
        graph = cooccurrence_graph(record.result, record.question)
    else:
        graph = await _by_model(app, config, record, fallback=method == "auto")
        if graph.method != "llm":
            return graph  # a fallback after a failed call: the next view tries the model again
    app.graph_cache.put(key, graph)
    return graph


async def _by_model(
    app: Sleuth, config: LLMSettings, record: SessionRecord, *, fallback: bool
) -> KnowledgeGraph:
    """The model's graph; in `auto`, a failed call or a graph with nothing left after the
    checks gives the co-occurrence graph, with a note saying why."""
    model = build_chat_model(config, make_meter(config), "critic", app.resources.models)
    assert model is not None  # configured was checked by the caller
    try:
        graph = await llm_graph(model, record.result, record.question)
    except (LLMError, BudgetExceededError) as exc:
        if not fallback:
            raise
        return _instead(record, f"the model could not draw the graph ({exc})")
    if graph.empty and fallback and cited_texts(record.result):
        return _instead(record, "the model gave no relation the cited passages support", graph)
    return graph


def _instead(
    record: SessionRecord, why: str, tried: KnowledgeGraph | None = None
) -> KnowledgeGraph:
    graph = cooccurrence_graph(record.result, record.question)
    notes = (*(tried.notes if tried else ()), f"{why}; drawn from names found together instead")
    return replace(graph, notes=notes)
