"""The documentation site's references, generated so they cannot drift: the commands (from
the click commands) and the settings (from the settings table).

`python -m sleuth.cli.reference` prints the commands; `python -m sleuth.cli.reference docs/`
(what `make docs` runs before building the site) writes them into `docs/cli.md` between its
`<!-- commands:start/end -->` markers and the settings into `docs/settings.md` between its
`<!-- settings:start/end -->` markers; `tests/test_docs.py` checks both match.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from ..settings.table import ENV_ONLY, SETTINGS
from .main import cli

START, END = "<!-- commands:start -->", "<!-- commands:end -->"
SETTINGS_START, SETTINGS_END = "<!-- settings:start -->", "<!-- settings:end -->"


def _commands(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            out.extend(_commands(command, f"{prefix} {name}"))
        else:
            out.append((f"{prefix} {name}", command))
    return out


def _option_line(param: click.Parameter) -> str | None:
    if not isinstance(param, click.Option) or param.hidden or param.name == "help":
        return None
    flags = ", ".join(f"`{f}`" for f in (*param.opts, *param.secondary_opts))
    env = f" (`{param.envvar}`)" if isinstance(param.envvar, str) else ""
    text = " ".join((param.help or "").split())
    return f"- {flags}{env}: {text}"


def _command_block(path: str, command: click.Command) -> str:
    with click.Context(command, info_name=path) as ctx:
        usage = " ".join(command.collect_usage_pieces(ctx))
    summary = (command.help or "").strip().split("\n\n")[0]
    summary = " ".join(summary.split())
    lines = [f"### `{path}`", "", summary, "", f"    {path} {usage}".rstrip(), ""]
    lines += [line for p in command.params if (line := _option_line(p))]
    return "\n".join(lines).rstrip() + "\n"


def reference() -> str:
    blocks = [_command_block(path, command) for path, command in _commands(cli, "sleuth")]
    return "\n".join(blocks)


def settings_reference() -> str:
    """Every setting: its config key, flag, environment variable, default and meaning."""
    rows = [
        "| config key | flag | environment | default | meaning |",
        "|---|---|---|---|---|",
    ]
    for s in SETTINGS.values():
        env = f"`{s.env_name}`" if s.env_name else "—"
        flag = f"`{s.flag_text}`" if s.flag_text else "—"
        default = (
            "—"
            if s.default is None or s.default is False or s.default == ()
            else (f"`{s.default:g}s`" if s.kind == "duration" else f"`{s.default}`")
        )
        kind = f" ({', '.join(s.choices)})" if s.choices else ""
        help_text = " ".join(s.help.split()).replace("|", "\\|")
        rows.append(f"| `{s.name}` | {flag} | {env} | {default} | {help_text}{kind} |")
    rows += ["", "Read from the environment only:", ""]
    rows += [f"- `{name}`: {text}" for name, text in ENV_ONLY.items()]
    return "\n".join(rows) + "\n"


def splice(readme: str, generated: str, start: str = START, end: str = END) -> str:
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    return pattern.sub(lambda _: f"{start}\n{generated}{end}", readme)


# Each generated block: the page of docs/ it lives in, its markers, and what fills them.
PAGES = (
    ("cli.md", START, END, reference),
    ("settings.md", SETTINGS_START, SETTINGS_END, settings_reference),
)


def write_pages(docs: Path) -> list[Path]:
    """Regenerate every block in `docs`; a page that lost its markers is an error, not a skip."""
    written = []
    for name, start, end, generate in PAGES:
        path = docs / name
        text = path.read_text(encoding="utf-8")
        if start not in text or end not in text:
            raise SystemExit(f"{path}: the {start} and {end} markers are missing")
        path.write_text(splice(text, generate(), start, end), encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    if len(sys.argv) > 1:
        for path in write_pages(Path(sys.argv[1])):
            sys.stdout.write(f"wrote {path}\n")
    else:
        sys.stdout.write(reference())


if __name__ == "__main__":
    main()
