"""Knowledge graphs of finished runs: the key entities of the cited passages and how they
relate, each relation tied to the citation and sentence that support it.

Two ways to build one, one shape out (`KnowledgeGraph`):
* `llm_graph`: a model reads the cited passages; its relations are checked in code (extract.py);
* `cooccurrence_graph`: no model; entities named together in a cited sentence (cooccur.py).
Three renderings: JSON, Mermaid, SVG (with its own small deterministic layout).

A stage of the pipeline's layer: it reads a `Result`, may call a `ChatModel` through the LLM
port, and knows nothing about sessions, the application or any interface. This file only
names the choices, so the CLI can list them without loading the rest.
"""

from __future__ import annotations

from typing import Literal

GraphFormat = Literal["svg", "json", "mermaid"]
FORMATS: tuple[GraphFormat, ...] = ("svg", "json", "mermaid")
GraphMethod = Literal["auto", "llm", "cooccurrence"]
METHODS: tuple[GraphMethod, ...] = ("auto", "llm", "cooccurrence")
