"""Every UI string exists in every language: the catalogs have the same keys, and every key a
template or the page script asks for (literal or built from a known list) is in them."""

from __future__ import annotations

import re
from importlib import resources

import pytest

pytest.importorskip("jinja2", reason="the web UI needs sleuth[server]")

from sleuth.app.revise import TRANSFORMS
from sleuth.app.steer import STAGES
from sleuth.server.ui import i18n, pages
from sleuth.server.ui.flow import DEPTHS
from sleuth.server.ui.saved import FIELDS

UI = resources.files("sleuth.server.ui")
LITERAL = re.compile(r"""\bt\(\s*["']([a-zA-Z_][\w.]*)["']\s*\)""")
# Keys built from a value in templates: `t("stage." + s)` and the like.
BUILT = {
    "stage": STAGES,
    "theme": pages.THEMES,
    "depth": tuple(DEPTHS),
    "transform": tuple(TRANSFORMS),
    "level": ("high", "medium", "low", "mixed"),
    "authority": ("primary", "reputable", "unknown", "low"),
    "tone": ("neutral", "formal", "friendly"),
    "length": ("short", "medium", "long"),
    "settings": FIELDS,
    "history.done": ("deleted", "tagged"),
    "kb.done": ("added", "removed"),
    "diff": ("added", "removed", "same", "skipped"),
    "graph.method": ("llm", "cooccurrence"),
}


def used_keys() -> set[str]:
    keys: set[str] = set(pages.CLIENT_KEYS) | {item.key for item in pages.NAV}
    for folder, pattern in (("templates", ".html"), ("static", ".js")):
        for entry in UI.joinpath(folder).iterdir():
            if entry.name.endswith(pattern):
                keys |= set(LITERAL.findall(entry.read_text("utf-8")))
    for prefix, names in BUILT.items():
        keys |= {f"{prefix}.{n}" for n in names}
    keys |= {f"settings.{n}.hint" for n in FIELDS if n not in ("api_key",)}
    return keys


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_every_language_has_every_key(lang: str) -> None:
    english = set(i18n.catalog("en"))
    own = i18n.catalog(lang)
    assert set(own) == english, f"{lang}: missing {english - set(own)}, extra {set(own) - english}"
    assert all(v.strip() for v in own.values()), f"{lang} has an empty message"


def test_every_key_used_is_in_the_catalog() -> None:
    missing = used_keys() - set(i18n.catalog("en"))
    assert not missing, f"keys used but not translated: {sorted(missing)}"


def test_translations_are_translated() -> None:
    en, zh, es = (i18n.catalog(c) for c in ("en", "zh-Hans", "es"))
    same_zh = [k for k in en if en[k] == zh[k] and k not in ("edit.markdown",)]
    assert len(same_zh) <= 2, same_zh
    assert sum(en[k] == es[k] for k in en) < len(en) // 8


def test_a_missing_key_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above fails on a catalog that lacks a key (the test can fail)."""
    english = dict(i18n.catalog("en"))
    english.pop("nav.research")
    assert used_keys() - set(english) == {"nav.research"}


def test_language_is_picked_from_cookie_then_browser() -> None:
    assert i18n.pick("es", "zh-CN,zh;q=0.9") == "es"
    assert i18n.pick(None, "zh-CN,zh;q=0.9") == "zh-Hans"
    assert i18n.pick("xx", "es-MX,es;q=0.8") == "es"
    assert i18n.pick(None, "fr-FR") == "en"
