"""`sleuth keys create|ls|revoke`: API keys for `sleuth serve`. A key is printed once, when it
is created, and stored only as a hash; an organization is created with its first key."""

from __future__ import annotations

import json
import time

import click

from ..errors import UsageError
from .options import table_option
from .org_model_cmd import org_model
from .orgs import org_name as _org
from .orgs import with_store as _with_store
from .signing_cmd import signing


@click.group("keys")
def keys() -> None:
    """API keys for `sleuth serve`: one organization per key, stored hashed.

    \b
    Examples:
      sleuth keys create --org acme
      sleuth keys create --org acme --scopes research --quota-searches 1000
      sleuth keys ls --org acme
      sleuth keys revoke 3f9a01bc
    """


@keys.command("create")
@click.option("--org", "org", required=True, help="The organization the key acts for.")
@click.option(
    "--scopes",
    default="research,search,extract",
    show_default=True,
    help="Comma-separated: research, search, extract.",
)
@click.option("--quota-searches", type=click.IntRange(min=0), help="Searches a month (the org).")
@click.option("--quota-pages", type=click.IntRange(min=0), help="Pages read a month (the org).")
@table_option("json", dest="as_json")
def create_cmd(
    org: str, scopes: str, quota_searches: int | None, quota_pages: int | None, as_json: bool
) -> None:
    """Create a key for ORG (and the org, if new); the key is printed once: store it now.

    \b
    Examples:
      sleuth keys create --org acme
      export XDIVE_API_KEY=$(sleuth keys create --org acme --scopes research,search)
    """
    wanted = tuple(s.strip() for s in scopes.split(",") if s.strip())
    quotas = {"searches": quota_searches, "pages": quota_pages}
    name = _org(org)
    key, secret = _with_store(
        lambda store: store.create_key(name, wanted, now=time.time(), quotas=quotas)
    )
    if as_json:
        click.echo(json.dumps({"id": key.id, "org": key.org, "scopes": list(key.scopes),
                               "key": secret}))  # fmt: skip
        return
    click.echo(secret)
    click.echo(
        f"key {key.id} for org {key.org} ({', '.join(key.scopes)}); shown once, stored hashed",
        err=True,
    )


@keys.command("ls")
@click.option("--org", help="Only this organization's keys.")
@table_option("json", dest="as_json")
def ls_cmd(org: str | None, as_json: bool) -> None:
    """List keys (ids, organizations, scopes; never the keys themselves).

    \b
    Examples:
      sleuth keys ls
      sleuth keys ls --org acme --json
    """
    found = _with_store(lambda store: store.keys(org))
    if as_json:
        rows = [{"id": k.id, "org": k.org, "scopes": list(k.scopes), "created_at": k.created_at,
                 "revoked_at": k.revoked_at} for k in found]  # fmt: skip
        click.echo(json.dumps(rows, indent=2))
        return
    if not found:
        click.echo("no keys" + (f" for org {org}" if org else ""), err=True)
    for k in found:
        state = f"revoked {k.revoked_at}" if k.revoked_at else "active"
        click.echo(f"{k.id}  {k.org}  {','.join(k.scopes)}  created {k.created_at}  {state}")


@keys.command("revoke")
@click.argument("key_id", metavar="KEY_ID")
def revoke_cmd(key_id: str) -> None:
    """Revoke a key by its id (from `keys ls`); it stops working at once.

    \b
    Examples:
      sleuth keys revoke 3f9a01bc
    """
    found = _with_store(lambda store: store.revoke_key(key_id.strip(), now=time.time()))
    if found is None:
        raise UsageError(f"no key {key_id!r} (see `sleuth keys ls`)")
    click.echo(f"revoked {found.id} ({found.org})")


keys.add_command(signing)  # the evidence packs' signing key: `sleuth keys signing create|show`
keys.add_command(org_model)  # organizations' own models: `sleuth keys org-model set|show|...`
COMMANDS = [keys]
