"""Saved-session commands: `sessions ls|tag|untag|rm|prune`, `show`, `diff`, `stats`, `export`,
`open`. Each one parses, calls the session store, and renders; nothing here runs research."""

from __future__ import annotations

import contextlib
import json
import tempfile
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..export import FORMATS, choose_format, render, render_html, render_json, render_markdown
from ..settings.values import parse_age
from ..text.display import counted
from .complete import session_argument
from .options import note, table_option
from .render import confidence_line, echo
from .runner import write_bytes, write_out

if TYPE_CHECKING:
    from ..store import SessionStats, SessionStore, SessionSummary


def _store() -> SessionStore:
    from ..app.application import Sleuth
    from .configmap import store_settings

    return Sleuth(store_settings()).sessions


def _cost(value: float | None) -> str:
    """A run's model cost; `no model cost` for runs that paid nothing (the extractive writer,
    a local model) rather than a row of zeros."""
    if value is None:
        return "cost unknown"
    return "no model cost" if value == 0 else f"${value:.4f}"


def _summary_line(s: SessionSummary) -> str:
    tags = "".join(f"  #{t}" for t in s.tags) + (f"  @{s.org}" if s.org else "")
    question = s.question if len(s.question) <= 70 else s.question[:69] + "…"
    confidence = f" · confidence {s.confidence}" if s.confidence else ""
    # a steered run saves each stage; its earlier stages are not answers of their own
    stage = f" · steered, {s.stage} stage" if s.stage and s.stage != "done" else ""
    sources = counted(s.sources, "source")
    return f"{s.id}  {question}{tags}  · {sources}{confidence}{stage} · {_cost(s.cost_usd)}"


@click.group("sessions")
def sessions() -> None:
    """List, label and clean up saved research sessions.

    \b
    Examples:
      sleuth sessions ls
      sleuth sessions ls sqlite --tag=client-x
      sleuth sessions tag 2026-05-07_1345 client-x,audit
      sleuth sessions prune --older-than=30d --dry-run
    """


@sessions.command("ls")
@click.argument("filter_text", metavar="[FILTER]", required=False)
@click.option("--tag", help="Only sessions with this tag.")
@click.option("--org", help="Only runs made through the API with this organization's keys.")
@table_option("json", dest="as_json")
def ls_cmd(filter_text: str | None, tag: str | None, org: str | None, as_json: bool) -> None:
    """List saved sessions, newest first; FILTER matches the question.

    \b
    Examples:
      sleuth sessions ls
      sleuth sessions ls "rate limit" --tag=client-x --json
      sleuth sessions ls --org=acme
    """
    found = _store().list(filter_text, tag, org=org)
    if as_json:
        echo(json.dumps([s.to_json() for s in found], ensure_ascii=False, indent=2))
        return
    if not found:
        echo("no saved sessions" + (" match" if filter_text or tag or org else ""), err=True)
    for summary in found:
        echo(_summary_line(summary))


@sessions.command("tag")
@session_argument("session_id")
@click.argument("tags")
def tag_cmd(session_id: str, tags: str) -> None:
    """Add comma-separated TAGS to a session.

    \b
    Examples:
      sleuth sessions tag 2026-05-07_134509 client-x,audit
    """
    store = _store()
    full_id = store.resolve(session_id)
    now = store.tag(full_id, tags)
    echo(f"{full_id}  {' '.join('#' + t for t in now) or '(no tags)'}")


@sessions.command("untag")
@session_argument("session_id")
@click.argument("tags")
def untag_cmd(session_id: str, tags: str) -> None:
    """Remove comma-separated TAGS from a session.

    \b
    Examples:
      sleuth sessions untag 2026-05-07_134509 audit
    """
    store = _store()
    full_id = store.resolve(session_id)
    now = store.untag(full_id, tags)
    echo(f"{full_id}  {' '.join('#' + t for t in now) or '(no tags)'}")


@sessions.command("rm")
@session_argument("session_ids", "ID...", nargs=-1, required=True)
def rm_cmd(session_ids: tuple[str, ...]) -> None:
    """Delete sessions (by id or unique prefix). Nothing is deleted if any ID is unknown.

    \b
    Examples:
      sleuth sessions rm 2026-05-07_134509 2026-05-08_0912
    """
    for removed in _store().rm(session_ids):
        echo(f"removed {removed}")


def _pruned_line(session_id: str, summary: SessionSummary | None) -> str:
    """`ID  2026-05-07  question…`: enough to see what a prune takes before it takes it."""
    if summary is None:
        return session_id
    question = summary.question if len(summary.question) <= 70 else summary.question[:69] + "…"
    return f"{session_id}  {summary.created_at[:10]}  {question}"


@sessions.command("prune")
@click.option("--older-than", "older_than", metavar="AGE", help="Remove sessions older than AGE.")
@click.option("--keep", type=click.IntRange(min=0), help="Always keep the newest N sessions.")
@click.option("--dry-run", is_flag=True, help="Show what would be removed; remove nothing.")
def prune_cmd(older_than: str | None, keep: int | None, dry_run: bool) -> None:
    """Remove old sessions. Needs --older-than and/or --keep; with both, a session goes only
    when it is outside the newest N and older than AGE. AGE: 30d, 12h, 90min, 2w.

    \b
    Examples:
      sleuth sessions prune --older-than=30d --dry-run
      sleuth sessions prune --keep=100
      sleuth sessions prune --older-than=90d --keep=20
    """
    age = parse_age(older_than, "--older-than", note) if older_than is not None else None
    store = _store()
    known = {s.id: s for s in store.list()}  # read before: what went is then gone
    doomed = store.prune(older_than=age, keep=keep, dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    for session_id in doomed:
        echo(f"{verb} {_pruned_line(session_id, known.get(session_id))}")
    echo(f"{verb} {len(doomed)} session(s)" if doomed else "nothing to prune", err=True)


@click.command("show")
@session_argument("session_id")
@table_option("json", dest="as_json")
def show(session_id: str, as_json: bool) -> None:
    """Print a saved session's cited answer and its sources.

    \b
    Examples:
      sleuth show 2026-05-07_134509
      sleuth show last
      sleuth show 2026-05-07_1345 --json
    """
    record = _store().get(session_id)
    echo(render_json(record) if as_json else render_markdown(record), nl=False)
    if not as_json:
        echo(confidence_line(record.result), err=True)


def _stats_text(stats: SessionStats) -> str:
    span = f" · {stats.first[:10]} → {stats.last[:10]}" if stats.first and stats.last else ""
    lines = [
        f"sessions  {stats.sessions}{span}",
        f"cost      ${stats.cost_usd:.4f}",
        f"sources   {stats.sources}",
        f"rounds    {stats.rounds}",
    ]
    if stats.by_model:
        lines.append("models")
    for name, m in sorted(stats.by_model.items()):
        lines.append(
            f"  {name}  {m.calls} calls · {m.input_tokens:,} in · {m.output_tokens:,} out"
            f" · {_cost(m.cost_usd)}"
        )
    return "\n".join(lines)


@click.command("stats")
@click.option("--tag", help="Only sessions with this tag.")
@table_option("json", dest="as_json")
def stats(tag: str | None, as_json: bool) -> None:
    """Totals over saved sessions: cost, sources, rounds, per model, date span.

    \b
    Examples:
      sleuth stats
      sleuth stats --tag=client-x --json
    """
    totals = _store().stats(tag)
    echo(json.dumps(totals.to_json(), indent=2) if as_json else _stats_text(totals))


@click.command("export")
@session_argument("session_id")
@click.option(
    "--format",
    "fmt",
    type=click.Choice((*FORMATS, "pack")),
    help="Default: from --out's suffix (.html, .md or .txt, .json), else html. pack: an "
    "evidence pack anyone can check offline with `sleuth verify`.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file.",
)
@click.option(
    "--unsigned",
    is_flag=True,
    help="pack: do not sign it, even when a signing key exists (`sleuth keys signing`).",
)
def export(session_id: str, fmt: str | None, out: Path | None, unsigned: bool) -> None:
    """Render a saved session as a self-contained HTML report, cited markdown, JSON, or an
    evidence pack (a zip of the answer, the cited sources' texts and their hashes).

    \b
    Examples:
      sleuth export 2026-05-07_134509 --out=report.html
      sleuth export 2026-05-07 --format=md > report.md
      sleuth export 2026-05-07 --format=json
      sleuth export 2026-05-07 --format=pack --out=evidence.zip
    """
    if fmt == "pack":
        _export_pack(session_id, out, sign=not unsigned)
        return
    text = render(_store().get(session_id), choose_format(fmt, out))
    if out is None:
        echo(text, nl=False)
        return
    write_out(out, text)
    echo(str(out))


def _export_pack(session_id: str, out: Path | None, *, sign: bool) -> None:
    from ..app.evidence import session_pack
    from ..settings import sleuth_home

    pack = session_pack(_store(), sleuth_home(), session_id, sign=sign)
    path = out or Path(pack.filename)
    write_bytes(path, pack.data)
    signed = f"signed by {pack.signed_by}" if pack.signed_by else "unsigned"
    note(f"evidence pack of {pack.session_id} ({signed}); check it with `sleuth verify {path}`")
    echo(str(path))


@click.command("open")
@session_argument("session_id")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the HTML here.",
)
@click.option(
    "--no-browser",
    is_flag=True,
    help="Only write the file and print its path.",
)
def open_cmd(session_id: str, out: Path | None, no_browser: bool) -> None:
    """Write a session's HTML report (to a temp file unless --out) and open it in a browser.
    The path is always printed, so this works on a machine without a display.

    \b
    Examples:
      sleuth open 2026-05-07_134509
      sleuth open 2026-05-07 --out=report.html --no-browser
    """
    record = _store().get(session_id)
    path = out or Path(tempfile.gettempdir()) / f"sleuth-{record.id}.html"
    write_out(path, render_html(record))
    echo(str(path.resolve()))
    if not no_browser:
        # No browser is fine: the printed path is the result.
        with contextlib.suppress(webbrowser.Error):
            webbrowser.open(path.resolve().as_uri())


COMMANDS: list[click.Command] = [sessions, show, stats, export, open_cmd]
