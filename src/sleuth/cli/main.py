"""The `sleuth` command group. `ask` is the default command: `sleuth "question"` works.

Each command module exposes `COMMANDS`; this module only assembles them and maps errors to
exit codes, so no command prints a traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from ..errors import SleuthError

COMMAND_MODULES = (
    "sleuth.cli.ask",
    "sleuth.cli.search_cmd",
    "sleuth.cli.doctor",
    "sleuth.cli.eval_cmd",
    "sleuth.cli.sessions_cmd",
    "sleuth.cli.followup_cmd",
)


class DefaultToAsk(click.Group):
    """Treat an unknown first word as the question of `ask`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["ask", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultToAsk, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sleuth", prog_name="sleuth")
def cli() -> None:
    """Sleuth: ask a question, get an answer whose every claim cites a source it read.

    \b
    Examples:
      sleuth "what is the default audit log retention in Example Cloud?"
      sleuth ask "Q" --search=none --include=docs/ --json
      sleuth search "rust async runtime" --search=searxng --json
      sleuth doctor
    """


for _name in COMMAND_MODULES:
    for _command in importlib.import_module(_name).COMMANDS:
        cli.add_command(_command)


def main(argv: list[str] | None = None) -> Any:
    try:
        return cli.main(args=argv, prog_name="sleuth", standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.exceptions.Abort:
        click.echo("sleuth: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(1 if exc.exit_code == 2 else exc.exit_code)
    except SleuthError as exc:
        click.echo(f"sleuth: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("sleuth: interrupted", err=True)
        sys.exit(130)
