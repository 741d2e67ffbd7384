"""`--help` in sections: a command with many options (ask has ~55) lists them under headings
— the command's own options first, then Output, Search, Reading pages, ... — in the groups
`options.py` already keeps for them, instead of one long column.

Only the formatting changes: the options, their order within a group, their flags and their
env twins are the command's own. The help of `--search` ends with the backends registered at
the time (`registry.py`), so a plugin's backend is listed as soon as it is installed.
"""

from __future__ import annotations

import click

from ..settings.table import SETTINGS
from .options import CHECKS, DEPTH, LLM, MODELS, OUTPUT, READING, SEARCH, SESSION

# (heading, settings), in the order --help lists them
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Output", OUTPUT),
    ("Search", SEARCH),
    ("Reading pages", READING),
    ("Language model", LLM),
    ("Planning, critic and cost", MODELS),
    ("Depth and form of the answer", DEPTH),
    ("Saved sessions", SESSION),
    ("Limits and citation checks", CHECKS),
)
OWN = "Options"
_HEADING_OF_FLAG = {SETTINGS[name].flag: title for title, names in SECTIONS for name in names}


class SectionedCommand(click.Command):
    """A command whose `--help` lists its options under the headings of `SECTIONS`."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        for heading, rows in sections(self, ctx):
            with formatter.section(heading):
                formatter.write_dl(rows)


def sections(command: click.Command, ctx: click.Context) -> list[tuple[str, list[tuple[str, str]]]]:
    """The help rows of `command` by heading: its own options, then the table's groups."""
    grouped: dict[str, list[tuple[str, str]]] = {OWN: []}
    grouped.update((title, []) for title, _ in SECTIONS)
    for param in command.get_params(ctx):
        row = param.get_help_record(ctx)
        if row is None or isinstance(param, click.Argument):  # click lists only options
            continue
        heading = next((_HEADING_OF_FLAG[o] for o in param.opts if o in _HEADING_OF_FLAG), OWN)
        if param.name == "search" and heading != OWN:
            row = (row[0], with_backends(row[1]))
        grouped[heading].append(row)
    return [(heading, rows) for heading, rows in grouped.items() if rows]


def with_backends(text: str) -> str:
    """`--search`'s help with the registered backends' names (before click's `[env var...]`)."""
    from ..registry import registries

    try:
        names = ", ".join(entry.name for entry in registries().search)
    except Exception:  # a broken plugin must not break --help; the run itself will say why
        return text
    main, bracket, rest = text.partition("  [")
    return f"{main} Backends: {names}.{'  [' + rest if bracket else ''}"


def sectioned(command: click.Command) -> click.Command:
    """`command` with sectioned help. Commands are declared with plain `@click.command`; the
    group applies this as it loads them, so no command module needs to know about help
    layout. Only plain commands change class (a group lists subcommands, not options)."""
    if type(command) is click.Command:
        command.__class__ = SectionedCommand
    return command
