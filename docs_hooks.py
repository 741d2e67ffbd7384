"""MkDocs hooks for the documentation site (mkdocs.yml names this file).

Every page of docs/ is on the site: a page that `nav` does not list is added under "More
pages" (with a note in the build log), so a new docs/<topic>.md written by anyone is reachable
before someone files it under the right section, and `--strict` never fails for it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.hooks.sleuth")
MORE = "More pages"


def listed(nav: Any) -> set[str]:
    """Every page path the nav names, at any depth."""
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, dict):
        return set().union(*(listed(v) for v in nav.values()))
    if isinstance(nav, list):
        return set().union(*(listed(v) for v in nav)) if nav else set()
    return set()


def unlisted_pages(docs_dir: Path, nav: Any) -> list[str]:
    named = listed(nav)
    pages = sorted(p.relative_to(docs_dir).as_posix() for p in docs_dir.rglob("*.md"))
    return [p for p in pages if p not in named]


def on_config(config: Any) -> Any:
    nav = config["nav"]
    if nav is None:  # no nav at all: MkDocs lists every page itself
        return config
    extra = unlisted_pages(Path(config["docs_dir"]), nav)
    if extra:
        log.info("not in mkdocs.yml's nav, so under %r: %s", MORE, ", ".join(extra))
        nav.append({MORE: extra})
    return config
