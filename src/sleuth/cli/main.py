"""The `sleuth` command group. `ask` is the default command: `sleuth "question"` works.

Each command module exposes `COMMANDS`; this module only assembles them (importing a module
when one of its commands is used, so `sleuth ask` never loads the server, eval or knowledge-base
commands) and maps errors to exit codes, so no command prints a traceback.
"""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Any

import click

from ..errors import SleuthError
from ..settings.table import flag_name
from .configmap import CONFIGURABLE, config_option, profile_option
from .helpformat import sectioned
from .hints import hint_for
from .render import echo

# command name -> the module (under sleuth.cli) whose COMMANDS holds it
COMMAND_MODULES = {
    "ask": "ask",
    "batch": "batch_cmd",
    "worker": "worker_cmd",
    "search": "search_cmd",
    "doctor": "doctor",
    "eval": "eval_cmd",
    **dict.fromkeys(("sessions", "show", "stats", "export", "open"), "sessions_cmd"),
    "kb": "kb_cmd",
    **dict.fromkeys(("resume", "continue", "rerun", "diff"), "followup_cmd"),
    "graph": "graph_cmd",
    "config": "config_cmd",
    "completion": "completion_cmd",
    "keys": "keys_cmd",
    "db": "db_cmd",
    **dict.fromkeys(("serve", "ui"), "serve_cmd"),
    "mcp": "mcp_cmd",
    "verify": "verify_cmd",
    "watch": "watch_cmd",
    "new-backend": "new_backend_cmd",
}
# Group options that take a value: `sleuth --profile X "Q"`, `sleuth --config FILE "Q"`.
GROUP_VALUE_OPTIONS = ("--profile", "--config")


class DefaultToAsk(click.Group):
    """Treat an unknown first word as the question of `ask`; load commands on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMAND_MODULES})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            self._load(COMMAND_MODULES[cmd_name])
        return self.commands.get(cmd_name)

    def _load(self, module: str) -> None:
        for command in importlib.import_module(f"sleuth.cli.{module}").COMMANDS:
            if command.name in CONFIGURABLE:  # --profile and --config also after the command
                command.params.append(profile_option())
                command.params.append(config_option())
            self.add_command(sectioned(command))

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        at = _first_word(args)
        known = (*self.list_commands(ctx), "--help", "-h", "--version")
        if at < len(args) and args[at] not in known:
            args = [*args[:at], "ask", *args[at:]]
        return super().parse_args(ctx, args)


def _first_word(args: list[str]) -> int:
    """Index of the first argument after the group's own options (`--profile NAME`)."""
    at = 0
    while at < len(args):
        if args[at] in GROUP_VALUE_OPTIONS:
            at += 2
        elif args[at].split("=", 1)[0] in GROUP_VALUE_OPTIONS:
            at += 1
        else:
            break
    return at


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
      sleuth --profile deep "how do SQLite and Postgres differ on locking?"
    """


# --profile works before the command and after it (an option of each command that resolves
# settings); both only note the name, and the command's own wins (`configmap.chosen_profile`).
cli.params.append(profile_option())
cli.params.append(config_option())


class _Stderr(logging.Handler):
    """Library warnings (a damaged database moved aside, the page cache off) as one
    `sleuth: ...` line on stderr, written through click so test capture sees it."""

    def emit(self, record: logging.LogRecord) -> None:
        echo(f"sleuth: {record.getMessage()}", err=True)


def _warnings_to_stderr() -> None:
    logger = logging.getLogger("sleuth")
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        logger.addHandler(_Stderr(logging.WARNING))
        logger.propagate = False


def _valid_text(args: list[str]) -> list[str]:
    """Arguments with undecodable bytes (held as surrogates by Python) made U+FFFD: they would
    otherwise fail much later, when a question or id is saved, searched or printed."""
    return [arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for arg in args]


def main(argv: list[str] | None = None) -> Any:
    _warnings_to_stderr()
    args = _valid_text(sys.argv[1:] if argv is None else argv)
    try:
        return cli.main(args=args, prog_name="sleuth", standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.exceptions.Abort:
        echo("sleuth: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(1 if exc.exit_code == 2 else exc.exit_code)
    except SleuthError as exc:
        echo(f"sleuth: {exc.worded(flag_name)}", err=True)
        hint = hint_for(exc)
        if hint:
            echo(f"sleuth: hint: {hint}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        echo("sleuth: interrupted", err=True)
        sys.exit(130)


def entry() -> None:
    """The `sleuth` console script: `main`, then leave without tearing the interpreter down
    (~0.1 s of module and object cleanup a finished command does not need). Everything was
    flushed and closed by then; tests call `main` itself."""
    import os

    code = 0
    try:
        main()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if isinstance(done.code, str):
            print(done.code, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # a closed pipe (`sleuth ... | head`): nothing more to say
            code = code or 1
    os._exit(code)
