"""`sleuth verify PACK`: check an evidence pack with nothing but the pack — its hashes, its
signature, and every cited sentence re-checked against the pack's own source texts. It reads
no session store and opens no connection. Exit 0 when it verifies, 4 when it does not."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..errors import CitationCheckFailed
from ..evidence.compare import marks
from ..evidence.read import read_file
from ..evidence.sign import trusted_ids
from ..evidence.verify import Report, verify_pack
from .options import table_option
from .render import echo


@click.command("verify")
@click.argument("pack", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--key",
    "keys",
    multiple=True,
    help="Require a signature by this key: its id (ed25519:…), the public key, or a file "
    "holding it (`sleuth keys signing show`). Repeat to accept several.",
)
@click.option("--strict", is_flag=True, help="Fail when a sentence's sources do not support it.")
@table_option("json", dest="as_json")
def verify(pack: Path, keys: tuple[str, ...], strict: bool, as_json: bool) -> None:
    """Check an evidence pack offline: hashes, signature, and each sentence's support.

    \b
    Examples:
      sleuth verify sleuth-pack-2026-05-07_134509_ab12cd34.zip
      sleuth verify evidence.zip --key ed25519:3f9a01bc5e7d2a44
      sleuth verify evidence.zip --strict --json
    """
    trusted = frozenset(i for k in keys for i in trusted_ids(k))
    report = verify_pack(read_file(pack), trusted=trusted, strict=strict)
    if as_json:
        echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        echo(render(report, pack))
    if not report.ok:
        problems = sum(1 for f in report.findings if f.serious)
        raise CitationCheckFailed(f"{pack} does not verify ({problems} problems)")


def render(report: Report, pack: Path) -> str:
    session = report.session
    checker = report.checker
    supported = sum(1 for c in report.sentences if c.supported)
    lines = [
        f"pack       {pack}",
        f"session    {session.get('id', '?')}  {session.get('question', '')}",
        f"files      {report.files} listed in the manifest",
        f"signature  {_signature(report)}",
        f"checker    {checker.get('name', '?')} (sleuth {checker.get('sleuth_version', '?')}), "
        f"min_recall {checker.get('min_recall', '?')}"
        + ("" if report.same_checker else "; this Sleuth's check differs"),
        f"sentences  {supported} of {len(report.sentences)} cited sentences supported",
        *(
            f"  {'✓' if c.supported else '✗'} {c.sentence} {marks(c.numbers)}"
            for c in report.sentences
        ),
    ]
    problems = [f for f in report.findings if f.serious]
    notes = [f for f in report.findings if not f.serious]
    lines += (
        ["", "problems", *(f"  - {f.where}: {f.message}" for f in problems)] if problems else []
    )
    lines += ["", "notes", *(f"  - {f.where}: {f.message}" for f in notes)] if notes else []
    verdict = "verified" if report.ok else f"NOT verified ({len(problems)} problems)"
    return "\n".join([*lines, "", f"verify: {verdict}"]) + "\n"


def _signature(report: Report) -> str:
    sig = report.signature
    if sig.state == "unsigned":
        return "none (anyone could have made this pack; its hashes show only that it is whole)"
    if sig.state == "invalid":
        return "INVALID"
    return f"valid, {sig.key_id}" + (" (a key you named)" if sig.pinned else " (not pinned: --key)")


COMMANDS = [verify]
