"""The README's command reference, generated from the click commands so it cannot drift.

`python -m sleuth.cli.reference` prints it; `make docs` writes it between the README's
`<!-- commands:start -->` and `<!-- commands:end -->` markers; a test checks they match.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from .main import cli

START, END = "<!-- commands:start -->", "<!-- commands:end -->"


def _commands(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    for name in sorted(group.commands):
        command = group.commands[name]
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
    lines = [f"#### `{path}`", "", summary, "", f"    {path} {usage}".rstrip(), ""]
    lines += [line for p in command.params if (line := _option_line(p))]
    return "\n".join(lines).rstrip() + "\n"


def reference() -> str:
    blocks = [_command_block(path, command) for path, command in _commands(cli, "sleuth")]
    return "\n".join(blocks)


def splice(readme: str, generated: str) -> str:
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.DOTALL)
    return pattern.sub(lambda _: f"{START}\n{generated}{END}", readme)


def main() -> None:
    if len(sys.argv) > 1:
        path = Path(sys.argv[1])
        path.write_text(splice(path.read_text(encoding="utf-8"), reference()), encoding="utf-8")
    else:
        sys.stdout.write(reference())


if __name__ == "__main__":
    main()
