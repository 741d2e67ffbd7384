"""`sleuth keys signing create|show`: the Ed25519 key that signs evidence packs, kept in
SLEUTH_HOME (owner-only). Its public key (or id) is what others pass to `sleuth verify --key`."""

from __future__ import annotations

import json

import click

from ..errors import UsageError
from ..evidence.sign import SigningKey, create_key, key_path, load_key
from ..settings import sleuth_home
from .options import table_option
from .render import echo


@click.group("signing")
def signing() -> None:
    """The key that signs evidence packs (`sleuth export --format=pack`).

    \b
    Examples:
      sleuth keys signing create
      sleuth keys signing show --pem > sleuth-signing.pub
    """


@signing.command("create")
@click.option(
    "--replace",
    is_flag=True,
    help="Replace an existing key (old packs still verify "
    "against the old public key, not the new one).",
)
@table_option("json", dest="as_json")
def create_cmd(replace: bool, as_json: bool) -> None:
    """Create the signing key; packs exported from now on are signed with it.

    \b
    Examples:
      sleuth keys signing create
    """
    key = create_key(sleuth_home(), replace=replace)
    _show(key, pem=False, as_json=as_json)
    echo(f"sleuth: signing key saved at {key_path(sleuth_home())}", err=True)


@signing.command("show")
@click.option("--pem", is_flag=True, help="Print the public key as PEM only (to give others).")
@table_option("json", dest="as_json")
def show_cmd(pem: bool, as_json: bool) -> None:
    """Print the signing key's id and public key (never the private key).

    \b
    Examples:
      sleuth keys signing show
      sleuth keys signing show --pem > sleuth-signing.pub
    """
    key = load_key(sleuth_home())
    if key is None:
        raise UsageError("no signing key yet: create one with `sleuth keys signing create`")
    _show(key, pem=pem, as_json=as_json)


def _show(key: SigningKey, *, pem: bool, as_json: bool) -> None:
    if pem:
        echo(key.public_pem(), nl=False)
    elif as_json:
        echo(json.dumps({"key_id": key.id, "public_key_pem": key.public_pem()}))
    else:
        echo(f"{key.id}\n{key.public_pem()}", nl=False)
