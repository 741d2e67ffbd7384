"""`sleuth completion bash|zsh|fish` — print the shell completion script.

The script comes from click's own shell completion, so it completes every command, option and
choice (`--source-authority <TAB>`), and profile names after `--profile`, from the live CLI.
"""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

from ..errors import UsageError

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_SLEUTH_COMPLETE"

INSTALL = """
\b
Install:
  bash  add to ~/.bashrc:  eval "$(sleuth completion bash)"
        or save it once:   sleuth completion bash > ~/.bash_completion.d/sleuth
        (and source that file from ~/.bashrc)
  zsh   add to ~/.zshrc:   eval "$(sleuth completion zsh)"
  fish  save it once:      sleuth completion fish > ~/.config/fish/completions/sleuth.fish
Then open a new shell. bash needs version 4.4 or newer.

\b
Examples:
  sleuth completion bash
  eval "$(sleuth completion zsh)"
"""


@click.command("completion", epilog=INSTALL)
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish)."""
    click.echo(completion_script(ctx.find_root().command, shell), nl=False)


def completion_script(command: click.Command, shell: str) -> str:
    cls = get_completion_class(shell)
    if cls is None:
        raise UsageError(f"no completion for {shell!r}; use one of {', '.join(SHELLS)}")
    script: str = cls(command, {}, "sleuth", COMPLETE_VAR).source()
    return script if script.endswith("\n") else script + "\n"


COMMANDS = [completion]
