"""Rendering a page: the Jinja2 environment (autoescaped) and what every page is given —
`t(key)` in the reader's language, the theme, the navigation, and the page's own values.

Other parts of the UI add their entries to `NAV` (a page not yet built has no entry)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from . import i18n

THEMES = ("auto", "light", "dark")
# Content Security Policy of every page: this server only; no inline script at all, so even
# markup that slipped into a page could not run.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'; manifest-src 'self'; worker-src 'self'"
)


@dataclass(frozen=True, slots=True)
class NavItem:
    href: str
    key: str  # i18n key of its label


NAV: list[NavItem] = [
    NavItem("/", "nav.research"),
    NavItem("/history", "nav.history"),
    NavItem("/kb", "nav.kb"),
    NavItem("/settings", "nav.settings"),
]


@cache
def environment() -> Environment:
    return Environment(
        loader=PackageLoader("sleuth.server.ui", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )


def language(request: Request) -> str:
    return i18n.pick(request.cookies.get("lang"), request.headers.get("accept-language", ""))


def theme(request: Request) -> str:
    chosen = request.cookies.get("theme", "auto")
    return chosen if chosen in THEMES else "auto"


def render(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
    lang = language(request)
    t = i18n.translator(lang)
    context: dict[str, Any] = {
        "request": request,
        "t": t,
        "lang": lang,
        "languages": i18n.LANGUAGES,
        "theme": theme(request),
        "themes": THEMES,
        "nav": NAV,
        "path": request.url.path,
        "strings": json.dumps(client_strings(t), ensure_ascii=False),
        # Behind the password every page is a signed-in one: offer to sign out.
        "signed_in": getattr(request.app.state, "access", None) is not None
        and request.app.state.access.verifier is not None,
        "when": lambda iso: i18n.moment(str(iso or ""), t),
        "note": lambda text: i18n.note(str(text or ""), t),
        **values,
    }
    html = environment().get_template(template).render(context)
    return HTMLResponse(html, status_code=status, headers=security_headers())


def security_headers() -> Mapping[str, str]:
    return {
        "Content-Security-Policy": CSP,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",  # "no-referrer" would make a post's Origin "null"
        "Cache-Control": "no-store",
    }


CLIENT_KEYS = (
    "live.search", "live.results", "live.read", "live.skipped", "live.duplicate", "live.round",
    "live.plan", "live.writing", "live.kept", "live.failed", "live.cancelled", "live.done",
    "live.notice", "live.critic", "plan.remove", "plan.query", "edit.transformed", "edit.passed",
    "edit.failed",
)  # fmt: skip


def client_strings(t: i18n.Translate) -> dict[str, str]:
    """The few strings the page's script shows, translated (sent as JSON data, not code)."""
    return {key: t(key) for key in CLIENT_KEYS}
