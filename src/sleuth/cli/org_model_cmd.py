"""`sleuth keys org-model set|show|clear|reseal|secret-key`: an organization's own model
provider, model, base URL and API key for `sleuth serve`. The key is read from the terminal
(hidden) or from stdin, never from a flag (ps and shell history show flags), sealed with the
server's secret_key, and never printed again."""

from __future__ import annotations

import json
import sys
import time

import click

from ..app.orgmodels import PROVIDERS, Chosen, Sealer, Shown, give, new_secret_key, reseal, show
from ..errors import UsageError
from .options import table_option
from .orgs import org_name, with_store


def _sealer() -> Sealer:
    """The secret key as the server resolves it: config file < profile < SLEUTH_SECRET_KEY."""
    from ..settings.resolve import resolve

    return Sealer(resolve().values["secret_key"])


def _read_key(org: str) -> str:
    if sys.stdin.isatty():
        return str(click.prompt(f"API key for {org}'s endpoint", hide_input=True))
    line = sys.stdin.readline().strip()
    if not line:
        raise UsageError("no API key on stdin (give --no-api-key if the endpoint needs none)")
    return line


def _echo(found: list[Shown], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps([s.to_json() for s in found], indent=2))
        return
    for s in found:
        if not s.own:
            click.echo(f"{s.org}  the server's model")
            continue
        staged = "".join(f"  {n} {v}" for n, v in (("plan", s.plan_model),
                                                   ("critic", s.critic_model)) if v)  # fmt: skip
        key = "key set: yes" if s.key_set else "key set: no"
        click.echo(f"{s.org}  {s.api_format}  {s.model}  {s.base_url}  {key}{staged}")


@click.group("org-model")
def org_model() -> None:
    """An organization's own model for `sleuth serve`: its runs (every face) use it.

    The API key is sealed with the server's secret_key (SLEUTH_SECRET_KEY) and never shown.

    \b
    Examples:
      export SLEUTH_SECRET_KEY=$(sleuth keys org-model secret-key)
      sleuth keys org-model set --org acme --provider openai --model gpt-4o-mini \\
          --base-url https://api.openai.com/v1 < acme-openai.key
      sleuth keys org-model show --org acme
      sleuth keys org-model clear --org acme
    """


@org_model.command("set")
@click.option("--org", "org", required=True, help="The organization.")
@click.option("--provider", type=click.Choice(PROVIDERS), required=True,
              help="The wire format and SDK (openai: any OpenAI-compatible server).")  # fmt: skip
@click.option("--model", required=True, help="The model that writes (Azure: a deployment).")
@click.option("--base-url", required=True, help="The endpoint (http:// or https://).")
@click.option("--plan-model", help="Model for planning and triage (default: --model).")
@click.option("--critic-model", help="Model for the deep critic (default: --model).")
@click.option("--no-api-key", is_flag=True, help="The endpoint needs no key (a local server).")
def set_cmd(org: str, provider: str, model: str, base_url: str, plan_model: str | None,
            critic_model: str | None, no_api_key: bool) -> None:  # fmt: skip
    """Give ORG its own model, replacing any it had; the API key is read from the terminal
    (hidden) or the first line of stdin.

    \b
    Examples:
      sleuth keys org-model set --org acme --provider anthropic \\
          --model claude-sonnet-4-6 --base-url https://api.anthropic.com < key.txt
      sleuth keys org-model set --org lab --provider openai --model llama3.1 \\
          --base-url http://10.0.0.5:11434/v1 --no-api-key
    """
    name = org_name(org)
    sealer = _sealer()
    if not sealer.ready:  # before asking for a key that could not be kept
        sealer.seal("")
    key = None if no_api_key else _read_key(name)
    chosen = Chosen(name, provider, model, base_url, key, plan_model, critic_model)
    done = with_store(lambda store: give(store, sealer, chosen, now=time.time()))
    _echo([done], as_json=False)


@org_model.command("show")
@click.option("--org", "org", help="Only this organization (else every one with its own).")
@table_option("json", dest="as_json")
def show_cmd(org: str | None, as_json: bool) -> None:
    """Show organizations' own models: provider, model, base URL and whether a key is set
    (never the key).

    \b
    Examples:
      sleuth keys org-model show
      sleuth keys org-model show --org acme --json
    """
    found = with_store(lambda store: show(store, org))
    if not found and not as_json:
        click.echo("no organization has its own model", err=True)
    _echo(found, as_json)


@org_model.command("clear")
@click.option("--org", "org", required=True, help="The organization.")
def clear_cmd(org: str) -> None:
    """Drop ORG's own model (and its sealed key): its runs use the server's model again.

    \b
    Examples:
      sleuth keys org-model clear --org acme
    """
    if not with_store(lambda store: store.clear_org_model(org)):
        raise UsageError(f"organization {org!r} has no model of its own")
    click.echo(f"{org}  the server's model")


@org_model.command("reseal")
def reseal_cmd() -> None:
    """Seal every stored model key again with the first of the secret keys (rotation: set
    SLEUTH_SECRET_KEY=new,old, run this, then drop old).

    \b
    Examples:
      SLEUTH_SECRET_KEY=$NEW,$OLD sleuth keys org-model reseal
    """
    sealer = _sealer()
    count = with_store(lambda store: reseal(store, sealer, now=time.time()))
    click.echo(f"resealed {count} model key(s) with the first secret key")


@org_model.command("secret-key")
def secret_key_cmd() -> None:
    """Print a new secret key (for SLEUTH_SECRET_KEY); nothing is stored.

    \b
    Examples:
      export SLEUTH_SECRET_KEY=$(sleuth keys org-model secret-key)
    """
    click.echo(new_secret_key())
