"""What changed between two saved runs: metadata, the source set, and the answer's lines.

The answer compared is the run's own unless a `Version` is given: the text of a saved edit
(the web UI compares what the person kept, not the report as first generated).

Sources are matched by normalized URL, so `www.` or a tracking parameter does not count as a
change; the answer diff is a deterministic line diff whose unchanged stretches are collapsed.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from ..store.records import SessionRecord, parse_iso
from ..types import Source
from ..urls import normalize_url

CONTEXT_LINES = 1
ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class FieldChange:
    name: str
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class SessionDiff:
    a_id: str
    b_id: str
    a_created: str
    b_created: str
    days_apart: float  # b minus a; negative when b is older
    changes: tuple[FieldChange, ...]  # only the metadata that differs
    sources_added: tuple[str, ...]
    sources_removed: tuple[str, ...]
    sources_shared: tuple[str, ...]
    lines_added: int
    lines_removed: int
    lines_unchanged: int
    answer_diff: tuple[str, ...]  # "+ ", "- ", "  " prefixed lines; ELLIPSIS for skipped runs

    def to_json(self) -> dict[str, Any]:
        return {
            "a": {"id": self.a_id, "created_at": self.a_created},
            "b": {"id": self.b_id, "created_at": self.b_created},
            "days_apart": self.days_apart,
            "changes": [
                {"name": c.name, "before": c.before, "after": c.after} for c in self.changes
            ],
            "sources": {
                "added": list(self.sources_added),
                "removed": list(self.sources_removed),
                "shared": list(self.sources_shared),
            },
            "answer": {
                "added": self.lines_added,
                "removed": self.lines_removed,
                "unchanged": self.lines_unchanged,
                "diff": list(self.answer_diff),
            },
        }


def _metadata(record: SessionRecord) -> dict[str, str]:
    result = record.result
    cost = result.usage.cost_usd
    return {
        "question": record.question,
        "model": record.model,
        "depth": record.depth,
        "writer": result.writer,
        "confidence": result.confidence,
        "source trust": result.source_trust.label,
        "cost": "unknown" if cost is None else f"${cost:.4f}",
    }


def _by_url(sources: tuple[Source, ...]) -> dict[str, str]:
    return {normalize_url(s.url): s.url for s in sorted(sources, key=lambda s: s.number)}


@dataclass(frozen=True, slots=True)
class Version:
    """The text of a run to compare: a saved edit of its answer, and how to name it."""

    text: str
    label: str  # "revision 2"


AS_GENERATED = "as generated"


def _answer_lines(record: SessionRecord, version: Version | None) -> list[str]:
    text = version.text if version is not None else record.result.answer or ""
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def _line_diff(old: list[str], new: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for line in difflib.unified_diff(old, new, n=CONTEXT_LINES, lineterm=""):
        if line.startswith(("---", "+++")):
            continue
        out.append(ELLIPSIS if line.startswith("@@") else f"{line[0]} {line[1:]}")
    return tuple(out)


def diff_sessions(
    a: SessionRecord,
    b: SessionRecord,
    a_version: Version | None = None,
    b_version: Version | None = None,
) -> SessionDiff:
    """How run `b` differs from run `a` (usually the older one); a version given for a run is
    the text compared for it."""
    meta_a, meta_b = _metadata(a), _metadata(b)
    if a_version is not None or b_version is not None:
        meta_a["report"] = a_version.label if a_version is not None else AS_GENERATED
        meta_b["report"] = b_version.label if b_version is not None else AS_GENERATED
    urls_a, urls_b = _by_url(a.result.sources), _by_url(b.result.sources)
    old, new = _answer_lines(a, a_version), _answer_lines(b, b_version)
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    unchanged = sum(block.size for block in matcher.get_matching_blocks())
    seconds = (parse_iso(b.created_at) - parse_iso(a.created_at)).total_seconds()
    return SessionDiff(
        a_id=a.id,
        b_id=b.id,
        a_created=a.created_at,
        b_created=b.created_at,
        days_apart=round(seconds / 86400, 2),
        changes=tuple(
            FieldChange(k, meta_a[k], meta_b[k]) for k in meta_a if meta_a[k] != meta_b[k]
        ),
        sources_added=tuple(url for key, url in urls_b.items() if key not in urls_a),
        sources_removed=tuple(url for key, url in urls_a.items() if key not in urls_b),
        sources_shared=tuple(url for key, url in urls_b.items() if key in urls_a),
        lines_added=len(new) - unchanged,
        lines_removed=len(old) - unchanged,
        lines_unchanged=unchanged,
        answer_diff=_line_diff(old, new),
    )


def _span(days: float) -> str:
    size = abs(days)
    if size >= 1:
        return f"{size:.0f}d apart"
    hours = size * 24
    return f"{hours:.0f}h apart" if hours >= 1 else f"{hours * 60:.0f}m apart"


def render_diff(diff: SessionDiff) -> str:
    """The diff as plain text for a terminal."""
    shared = len(diff.sources_shared)
    lines = [
        f"diff {diff.a_id} → {diff.b_id}",
        f"  {_span(diff.days_apart)} · {diff.a_created[:10]} → {diff.b_created[:10]}",
        "",
        "metadata" + ("" if diff.changes else "  (unchanged)"),
        *(f"  {c.name:<13} {c.before} → {c.after}" for c in diff.changes),
        "",
        f"sources  +{len(diff.sources_added)} / -{len(diff.sources_removed)} / {shared} shared",
        *(f"  + {url}" for url in diff.sources_added),
        *(f"  - {url}" for url in diff.sources_removed),
        "",
        f"answer  +{diff.lines_added} / -{diff.lines_removed} lines"
        f" ({diff.lines_unchanged} unchanged)",
        *(f"  {line}" for line in diff.answer_diff),
    ]
    return "\n".join(lines) + "\n"
