"""Pages the server tests add to the test web: a slow page (to hold a run slot) and one that
hangs (to reach a run's time limit)."""

from __future__ import annotations

from tests.testweb.server import TestWeb

SLOW_Q = "How slow is the slowpoke tortoise sanctuary?"
HANG_Q = "Where is the hanging garden observatory?"
SLOW_URL = "http://slowpoke.example.org/tortoises"
HANG_URL = "http://hanging.example.org/garden"


def _article(title: str, text: str) -> str:
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
        f"<p>{text}</p><p>{text}</p></article></body></html>"
    )


def add_slow_page(web: TestWeb, delay_s: float = 1.5) -> None:
    text = (
        "The slowpoke tortoise sanctuary is slow by design: its tortoises walk about "
        "0.3 kilometres an hour and the sanctuary opens at noon every day of the year."
    )
    web.add_page(SLOW_URL, _article("Slowpoke tortoise sanctuary", text), delay_s=delay_s)
    web.script_search(
        "slowpoke",
        [{"url": SLOW_URL, "title": "Slowpoke tortoise sanctuary", "content": text[:120]}],
    )


def add_hanging_page(web: TestWeb) -> None:
    web.add_fault("hanging.example.org", hang=True)
    web.script_search(
        "hanging garden",
        [{"url": HANG_URL, "title": "Hanging garden observatory", "content": "An observatory"}],
    )
