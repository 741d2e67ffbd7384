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
from .calibration import calibrate, calibration_json, calibration_table
from .corpus_web import CorpusWeb, Doc
from .questions import Question, by_dataset
from .report import markdown_table, row_json, rows_markdown, summary_json, table
from .runner import Progress, SleuthArm, proxy_environment, run_arm
from .score import Score, Summary, summarize
from .unanswerable import hide_gold

ALL = "all"


@dataclass(frozen=True, slots=True)
class Evaluation:
    rows: tuple[Score, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)
    hidden: tuple[Score, ...] = ()  # the unanswerable arm: same questions, gold pages hidden

    def calibration(self) -> str:
        """Per confidence level, answers given it and how often right, side by side."""
        if not self.hidden:
            return ""
        cal = calibrate(self.rows, self.hidden)
        return (
            f"\nCalibration ({len(self.hidden)} questions made unanswerable):\n\n"
            + calibration_table(cal)
        )

    @property
    def groups(self) -> dict[str, Summary]:
        """A summary per dataset, plus `all` when there are several."""
        datasets = by_dataset(self.rows)
        out = {name: summarize(rows) for name, rows in datasets.items()}
        if len(out) > 1:
            out[ALL] = summarize(self.rows)
        return out

    def to_json(self) -> dict[str, Any]:
        out = {
            "meta": dict(self.meta),
            "summary": {k: summary_json(v) for k, v in self.groups.items()},
            "questions": [row_json(r) for r in self.rows],
        }
        if self.hidden:
            out["unanswerable"] = {
                "calibration": calibration_json(calibrate(self.rows, self.hidden)),
                "questions": [row_json(r) for r in self.hidden],
            }
        return out

    def table(self) -> str:
        return table(self.groups) + self.calibration()

    def markdown(self) -> str:
        meta = "\n".join(f"- {k}: {v}" for k, v in self.meta.items())
        return (
            f"# Sleuth evaluation\n\n{meta}\n\n## Summary\n\n"
            "Rates: value [Wilson 95% interval] n=questions (citations: n=cited sentences)."
            f"\n\n{markdown_table(self.groups)}{self.calibration()}"
            f"\n## Questions\n\n{rows_markdown(self.rows)}"
            + (
                f"\n## Unanswerable questions\n\n{rows_markdown(self.hidden)}"
                if self.hidden
                else ""
            )
        )


async def evaluate(
    questions: Sequence[Question],
    settings: Settings,
    *,
    template: ResearchRequest | None = None,
    corpus: Sequence[Doc] | None = None,
    concurrency: int = 1,
    progress: Progress | None = None,
    unanswerable: bool = False,
) -> Evaluation:
    """Run Sleuth on every question; with `corpus`, against that corpus served as a web, and
    with `unanswerable` once more on the corpus without the questions' gold pages."""
    template = template or ResearchRequest("?")
    meta = {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "questions": len(questions),
        "depth": template.depth,
        **({"deep_rounds": template.deep_rounds} if template.depth == "deep" else {}),
        "concurrency": concurrency,
    }
    if corpus is None:
        async with Sleuth(settings) as app:
            arm = SleuthArm(settings, template, app)
            rows = await run_arm(arm, questions, concurrency, progress)
        return Evaluation(tuple(rows), {**meta, "search": settings.search})
    rows = await _on_corpus(questions, corpus, settings, template, concurrency, progress)
    meta = {**meta, "search": f"corpus ({len(corpus)} pages)"}
    if not unanswerable:
        return Evaluation(tuple(rows), meta)
    hidden = hide_gold(questions, corpus)
    unanswered = await _on_corpus(
        hidden.questions, hidden.visible(corpus), settings, template, concurrency, progress
    )
    return Evaluation(tuple(rows), {**meta, "unanswerable": len(unanswered)}, tuple(unanswered))


async def _on_corpus(
    questions: Sequence[Question],
    corpus: Sequence[Doc],
    settings: Settings,
    template: ResearchRequest,
    concurrency: int,
    progress: Progress | None,
) -> list[Score]:
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
            arm = SleuthArm(local, template, app)
            return await run_arm(arm, questions, concurrency, progress)


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
