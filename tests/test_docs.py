"""Docs that cannot drift: the README's command reference is the CLI's own help."""

from pathlib import Path

from sleuth.cli.reference import END, START, reference

README = Path(__file__).parents[1] / "README.md"


def test_readme_command_reference_matches_the_cli() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split(START, 1)[1].split(END, 1)[0]
    assert block.strip() == reference().strip(), "run `make docs` to regenerate it"


def test_every_command_has_an_example_in_its_help() -> None:
    from sleuth.cli.main import cli
    from sleuth.cli.reference import _commands

    for path, command in _commands(cli, "sleuth"):
        text = f"{command.help or ''}\n{command.epilog or ''}"
        assert "Example" in text, f"{path} --help has no example"
        assert "sleuth " in text.split("Example", 1)[1], f"{path} --help example is not a command"
