"""One evaluation end to end: questions in, scored rows and per-dataset summaries out.

`sleuth eval` is a thin shell over `evaluate` and `write_reports`; `make bench` uses the same
pieces with more arms.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..app.application import Sleuth
from ..errors import UsageError
from ..settings import Settings
from ..types import ResearchRequest
from .corpus_web import CorpusWeb, Doc
from .questions import Question, by_dataset
from .report import markdown_table, row_json, rows_markdown, summary_json, table
from .runner import Progress, SleuthArm, proxy_environment, run_arm
from .score import Score, Summary, summarize

ALL = "all"


@dataclass(frozen=True, slots=True)
class Evaluation:
    rows: tuple[Score, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def groups(self) -> dict[str, Summary]:
        """A summary per dataset, plus `all` when there are several."""
        datasets = by_dataset(self.rows)
        out = {name: summarize(rows) for name, rows in datasets.items()}
        if len(out) > 1:
            out[ALL] = summarize(self.rows)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "meta": dict(self.meta),
            "summary": {k: summary_json(v) for k, v in self.groups.items()},
            "questions": [row_json(r) for r in self.rows],
        }

    def table(self) -> str:
        return table(self.groups)

    def markdown(self) -> str:
        meta = "\n".join(f"- {k}: {v}" for k, v in self.meta.items())
        return (
            f"# Sleuth evaluation\n\n{meta}\n\n## Summary\n\n"
            "Rates: value [Wilson 95% interval] n=questions (citations: n=cited sentences)."
            f"\n\n{markdown_table(self.groups)}\n## Questions\n\n{rows_markdown(self.rows)}"
        )


async def evaluate(
    questions: Sequence[Question],
    settings: Settings,
    *,
    template: ResearchRequest | None = None,
    corpus: Sequence[Doc] | None = None,
    concurrency: int = 1,
    progress: Progress | None = None,
) -> Evaluation:
    """Run Sleuth on every question; with `corpus`, against that corpus served as a web."""
    template = template or ResearchRequest("?")
    meta = {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "questions": len(questions),
        "depth": template.depth,
        "concurrency": concurrency,
    }
    if corpus is None:
        async with Sleuth(settings) as app:
            arm = SleuthArm(settings, template, app)
            rows = await run_arm(arm, questions, concurrency, progress)
        return Evaluation(tuple(rows), {**meta, "search": settings.search})
    with CorpusWeb(corpus) as web, proxy_environment(web.env()):
        # Corpus pages sit at real-looking URLs: never let them into the user's page cache.
        local = replace(
            settings,
            search="searxng",
            search_fallback="none",
            no_cache=True,
            env={**settings.env, **web.env()},
        )
        async with Sleuth(local) as app:
            rows = await run_arm(SleuthArm(local, template, app), questions, concurrency, progress)
    return Evaluation(tuple(rows), {**meta, "search": f"corpus ({len(corpus)} pages)"})


def write_reports(evaluation: Evaluation, out_dir: Path) -> tuple[Path, Path]:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        json_path = out_dir / f"eval-{stamp}.json"
        md_path = out_dir / f"eval-{stamp}.md"
        json_path.write_text(
            json.dumps(evaluation.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        md_path.write_text(evaluation.markdown(), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--out: cannot write reports to {out_dir}: {exc.strerror}") from exc
    return json_path, md_path
