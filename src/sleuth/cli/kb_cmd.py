"""`sleuth kb add|ls|rm|search|stats|watch`: manage local knowledge bases.

Each command parses, calls `sleuth.kb.KnowledgeBase`, and renders. Knowledge bases live in
`$SLEUTH_HOME/kb.db`, or in the database of SLEUTH_DATABASE_URL when one is set; `--kb NAME`
picks one (default "default"). Research one with
`sleuth ask "Q" --search=kb[:NAME]`.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from typing import Any

import click

from ..errors import UsageError
from .options import option, table_option
from .render import echo

KB_OPTION = table_option("kb", "name")
JSON_OPTION = table_option("json", "as_json")


class _Seconds(click.ParamType):  # type: ignore[type-arg]
    """`5s`, `500ms`, `1min`: the durations every other flag takes."""

    name = "duration"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        from ..settings.values import parse_duration

        try:
            return (
                float(value)
                if isinstance(value, float)
                else parse_duration(str(value), "interval", lambda m: None)
            )
        except UsageError as exc:
            self.fail(str(exc), param, ctx)


def _examples(*lines: str) -> str:
    return "\b\nExamples:\n" + "".join(f"  {line}\n" for line in lines)


def _open(name: str, hybrid: bool = False) -> Any:
    from ..kb import KnowledgeBase, open_store

    embedder = None
    if hybrid:
        from ..kb.embed import E5Embedder

        embedder = E5Embedder()
    return KnowledgeBase(open_store(), name, embedder=embedder)


@click.group("kb")
def kb() -> None:
    """Your own documents as a cited, private source (PDF, DOCX, PPTX, XLSX, CSV, HTML,
    Markdown, text, EPUB).

    \b
    Examples:
      sleuth kb add ~/reports --recursive
      sleuth kb add notes/ --kb work --glob '*.md'
      sleuth kb search "refund window" --json
      sleuth ask "what is our refund window?" --search=kb
      sleuth ask "..." --search=multi:kb,duckduckgo
    """


@kb.command(
    "add",
    epilog=_examples(
        "sleuth kb add ~/reports --recursive", "sleuth kb add notes/ --kb work --glob '*.md'"
    ),
)
@click.argument("paths", nargs=-1, required=True)
@KB_OPTION
@option("--recursive", "-r", is_flag=True, help="Descend into sub-folders.")
@option("--glob", default=None, metavar="PATTERN", help="Only files whose name matches.")
@option("--embed", is_flag=True, help="Also store local embeddings (needs sleuth[embed]).")
@JSON_OPTION
def add(
    paths: tuple[str, ...], name: str, recursive: bool, glob: str | None, embed: bool, as_json: bool
) -> None:
    """Index files and folders. Unchanged files are not read again; unreadable ones are
    reported and skipped. Interrupt any time: the next run resumes."""
    from ..kb import Walk

    knowledge = _open(name, embed)
    bar = _Progress() if sys.stderr.isatty() and not as_json else None
    report = knowledge.add(paths, Walk(recursive, glob), bar)
    if bar is not None:
        bar.end()
    for path, reason in report.skipped:
        echo(f"skipped {path}: {reason}", err=True)
    counts = {k: len(getattr(report, k)) for k in ("added", "updated", "unchanged", "skipped")}
    if as_json:
        echo(json.dumps({"kb": name, **counts, "skipped_files": [
            {"path": p, "reason": r} for p, r in report.skipped]}, indent=2))  # fmt: skip
    else:
        echo(f"kb {name}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if report.skipped and not (report.added or report.updated or report.unchanged):
        raise UsageError("nothing was indexed")


class _Progress:
    """One self-rewriting line on stderr: `[####......] 120/10000 name.pdf`."""

    def __call__(self, step: Any) -> None:
        filled = int(20 * step.done / max(step.total, 1))
        name = step.path.rsplit("/", 1)[-1][:40]
        bar = "#" * filled + "." * (20 - filled)
        echo(f"\r\x1b[2K[{bar}] {step.done}/{step.total} {name}", err=True, nl=False)

    def end(self) -> None:
        echo("\r\x1b[2K", err=True, nl=False)


@kb.command("ls", epilog=_examples("sleuth kb ls", "sleuth kb ls --kb work --json"))
@table_option("kb", "name", default=None, show_default=False, help="List this one's files.")
@JSON_OPTION
def ls(name: str | None, as_json: bool) -> None:
    """List knowledge bases, or with --kb the documents of one."""
    from ..kb import knowledge_bases, open_store

    if name is None:
        infos = knowledge_bases(open_store())
        if as_json:
            echo(json.dumps([asdict(i) for i in infos], indent=2))
        for i in [] if as_json else infos:
            echo(f"{i.name}  · {i.documents} documents · {i.sections} sections")
        if not infos and not as_json:
            echo("no knowledge bases yet (sleuth kb add PATH)", err=True)
        return
    docs = _open(name).documents()
    if as_json:
        echo(json.dumps([asdict(d) for d in docs], indent=2))
        return
    for d in docs:
        echo(f"{d.path}  · {d.kind} · {d.sections} sections · {d.title}")


@kb.command(
    "rm",
    epilog=_examples(
        "sleuth kb rm ~/reports/old.pdf",
        "sleuth kb rm ~/reports/2023/",
        "sleuth kb rm --all --kb scratch",
    ),
)
@click.argument("paths", nargs=-1)
@KB_OPTION
@option("--all", "everything", is_flag=True, help="Remove the whole knowledge base.")
def rm(paths: tuple[str, ...], name: str, everything: bool) -> None:
    """Remove documents (a file, or every file under a folder) or, with --all, everything.
    Nothing is removed if any PATH is not in the knowledge base."""
    knowledge = _open(name)
    if everything == bool(paths):
        raise UsageError("give PATHS to remove, or --all (not both)")
    if everything:
        echo(f"removed {knowledge.store.drop(knowledge.scope)} documents from {name}")
        return
    removed = knowledge.remove(paths)
    echo(f"removed {len(removed)} documents from {name}")


@kb.command(
    "search",
    epilog=_examples(
        'sleuth kb search "refund window"', 'sleuth kb search "Q3 revenue" --kb work --json'
    ),
)
@click.argument("query", nargs=-1, required=True)
@KB_OPTION
@option("--limit", type=click.IntRange(1, 100), default=10, show_default=True, help="Hits.")
@table_option("kb_hybrid", "hybrid")
@JSON_OPTION
def search(query: tuple[str, ...], name: str, limit: int, hybrid: bool, as_json: bool) -> None:
    """Show the sections of your documents that best match QUERY."""
    text = " ".join(query).strip()
    if not text:
        raise UsageError("the query is empty")
    hits = _open(name, hybrid).search(text, limit)
    if as_json:
        keep = ("url", "title", "location", "score", "path")
        rows = [{k: getattr(h, k) for k in keep} | {"snippet": _snippet(h.text)} for h in hits]
        echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not hits:
        echo("no results", err=True)
    for rank, h in enumerate(hits, start=1):
        where = f" ({h.location})" if h.location else ""
        echo(f"{rank:>2}. {h.title}{where}\n    {h.url}\n    {_snippet(h.text)}")


def _snippet(text: str) -> str:
    return " ".join(text[:400].split())[:200]


@kb.command("stats", epilog=_examples("sleuth kb stats", "sleuth kb stats --kb work --json"))
@KB_OPTION
@JSON_OPTION
def stats(name: str, as_json: bool) -> None:
    """Documents, sections, passages, characters and embeddings in a knowledge base."""
    info = _open(name).stats()
    if as_json:
        echo(json.dumps(asdict(info), indent=2))
        return
    echo(
        f"{info.name}: {info.documents} documents, {info.sections} sections, {info.chunks} "
        f"passages, {info.chars:,} characters, {info.vectors} embedded; "
        f"last added {info.updated_at or 'never'}"
    )


@kb.command("watch", epilog=_examples("sleuth kb watch ~/notes --recursive --interval 5s"))
@click.argument("paths", nargs=-1, required=True)
@KB_OPTION
@option("--recursive", "-r", is_flag=True, help="Descend into sub-folders.")
@option("--glob", default=None, metavar="PATTERN", help="Only files whose name matches.")
@option("--interval", type=_Seconds(), default="2s", show_default=True, help="Between scans.")
@option("--scans", type=click.IntRange(1), default=None, hidden=True)
def watch(
    paths: tuple[str, ...],
    name: str,
    recursive: bool,
    glob: str | None,
    interval: float,
    scans: int | None,
) -> None:
    """Keep a knowledge base in step with folders: re-index changed files, forget deleted
    ones, until interrupted. Each scan only stats unchanged files, so it is cheap."""
    from ..kb import Walk

    knowledge = _open(name)
    done = 0
    while scans is None or done < scans:
        report, gone = knowledge.sync(paths, Walk(recursive, glob))
        for path in [*report.added, *report.updated]:
            echo(f"indexed {path}")
        for path, reason in report.skipped:
            echo(f"skipped {path}: {reason}", err=True)
        for path in gone:
            echo(f"removed {path}")
        done += 1
        if scans is None or done < scans:
            time.sleep(interval)


COMMANDS = [kb]
