"""Running the real `sleuth` entry point in-process, as the CLI tests do."""

from __future__ import annotations

import pytest

from sleuth.cli.main import main


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `sleuth ARGS`."""
    try:
        main(args)
        code: object = 0
    except SystemExit as done:
        code = done.code
    out, err = capsys.readouterr()
    return (code if isinstance(code, int) else 1), out, err
