"""Docs that cannot drift: the README's command reference is the CLI's own help."""

from pathlib import Path

from sleuth.cli.reference import END, START, reference

README = Path(__file__).parents[1] / "README.md"


def test_readme_command_reference_matches_the_cli() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split(START, 1)[1].split(END, 1)[0]
    assert block.strip() == reference().strip(), "run `make docs` to regenerate it"


def test_readme_settings_reference_matches_the_table() -> None:
    from sleuth.cli.reference import SETTINGS_END, SETTINGS_START, settings_reference

    text = README.read_text(encoding="utf-8")
    block = text.split(SETTINGS_START, 1)[1].split(SETTINGS_END, 1)[0]
    assert block.strip() == settings_reference().strip(), "run `make docs` to regenerate it"


def test_every_command_has_an_example_in_its_help() -> None:
    from sleuth.cli.main import cli
    from sleuth.cli.reference import _commands

    for path, command in _commands(cli, "sleuth"):
        text = f"{command.help or ''}\n{command.epilog or ''}"
        assert "Example" in text, f"{path} --help has no example"
        assert "sleuth " in text.split("Example", 1)[1], f"{path} --help example is not a command"


def test_env_twins_come_from_the_settings_table_and_mean_one_thing() -> None:
    """Every variable a flag reads is its table setting's twin, so one variable means one thing
    in every command; options only one command has (eval's --limit, export's --format, the
    listing filters, prune) and output paths are never read from the environment."""
    import click

    from sleuth.cli.main import cli
    from sleuth.cli.reference import _commands
    from sleuth.settings.table import SETTINGS

    by_env = {s.env_name: s for s in SETTINGS.values() if s.env_name}
    seen: dict[str, set[str]] = {}
    for path, command in _commands(cli, "sleuth"):
        for param in command.params:
            if not isinstance(param, click.Option) or not param.envvar:
                continue
            env = str(param.envvar)
            if env == "SLEUTH_PROFILE":
                continue
            assert env in by_env, f"{path} {param.opts[0]} reads {env}, not a table setting"
            assert by_env[env].flag in param.opts, f"{path} {param.opts[0]} reads {env}"
            seen.setdefault(env, set()).add(param.opts[0])
    assert all(len(flags) == 1 for flags in seen.values()), seen
    assert SETTINGS["out"].env_name is None
    assert "SLEUTH_OUT" not in seen and "SLEUTH_LIMIT" not in seen and "SLEUTH_FORMAT" not in seen
    assert SETTINGS["tag"].env_name == "SLEUTH_TAG"


def test_the_dataclasses_agree_with_the_settings_table() -> None:
    """Engine settings and run options are declared in the table once; the dataclasses that
    carry them have the same names and defaults."""
    from dataclasses import fields

    from sleuth.settings import Settings
    from sleuth.settings.table import SETTINGS
    from sleuth.types import ResearchRequest

    engine = {f.name: f.default for f in fields(Settings)}
    request = {f.name: f.default for f in fields(ResearchRequest)}
    renamed = {"allow_domain": "allow_domains", "deny_domain": "deny_domains"}
    derived = {"since", "deep", "no_dedupe", "no_verify_cites", "schema", "max_runtime"}
    for s in SETTINGS.values():
        if s.target == "engine":
            assert s.name in engine and engine[s.name] == s.default, s.name
        elif s.target == "run" and s.name not in derived:
            name = renamed.get(s.name, s.name)
            assert name in request, s.name
            if name not in renamed.values():
                assert request[name] == s.default, s.name
