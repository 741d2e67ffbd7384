"""`sleuth new-backend NAME DIR` — write a working search backend plugin and its test."""

from __future__ import annotations

from pathlib import Path

import click

from .render import echo

EXAMPLES = """
\b
Examples:
  sleuth new-backend acme ./sleuth-acme
  cd sleuth-acme && pip install -e . && python -m pytest tests
  SLEUTH_ACME_URL=https://api.acme.example sleuth search "q" --search=acme
"""


@click.command("new-backend", epilog=EXAMPLES)
@click.argument("name")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
def new_backend(name: str, folder: Path) -> None:
    """Write a search backend plugin NAME into FOLDER: the module, its recorded-response test
    and a pyproject.toml that registers it (entry point sleuth.plugins). Existing files are
    never replaced."""
    from .scaffold import write

    for path in write(name, folder):
        echo(str(path))
    echo(f"sleuth: next: pip install -e {folder} && python -m pytest {folder / 'tests'}", err=True)


COMMANDS = [new_backend]
