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


# Never read from the environment: a stray variable must not hide sessions from a listing
# (config/env tags label new runs only) nor delete any (sessions, or a whole knowledge base).
NO_ENV_TWIN = {
    ("sleuth sessions ls", "--tag"),
    ("sleuth stats", "--tag"),
    ("sleuth sessions prune", "--older-than"),
    ("sleuth sessions prune", "--keep"),
    ("sleuth sessions prune", "--dry-run"),
    ("sleuth kb rm", "--all"),
}


def test_every_flag_has_an_env_twin_except_filters_and_deletion() -> None:
    import click

    from sleuth.cli.main import cli
    from sleuth.cli.reference import _commands

    for path, command in _commands(cli, "sleuth"):
        for param in command.params:
            if not isinstance(param, click.Option) or param.name == "help":
                continue
            exempt = (path, param.opts[0]) in NO_ENV_TWIN
            assert bool(param.envvar) != exempt, f"{path} {param.opts[0]}"
            if param.envvar:
                assert str(param.envvar).startswith("SLEUTH_"), f"{path} {param.opts[0]}"
