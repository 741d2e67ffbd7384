"""`Recent`: the one bounded, expiring memory behind the service's caches (prepared runs,
cached answers, searches, listings, key lookups, graphs, sign-in failures)."""

from __future__ import annotations

from sleuth.recent import Recent


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_past_its_size_the_least_recently_used_entry_is_forgotten() -> None:
    recent = Recent[str, int](2)
    recent.put("a", 1)
    recent.put("b", 2)
    assert recent.get("a") == 1  # "a" is now the most recent
    recent.put("c", 3)
    assert (recent.get("a"), recent.get("b"), recent.get("c")) == (1, None, 3)
    assert len(recent) == 2


def test_an_entry_expires_ttl_after_it_was_put_and_a_get_does_not_renew_it() -> None:
    clock = Clock()
    recent = Recent[str, str](10, ttl_s=5.0, clock=clock)
    recent.put("k", "v")
    clock.now += 4.9
    assert recent.get("k") == "v"
    clock.now += 0.1
    assert recent.get("k") is None
    assert len(recent) == 0  # an expired entry found is dropped


def test_an_entry_may_be_older_than_the_moment_it_is_remembered() -> None:
    clock = Clock()
    recent = Recent[str, bytes](10, ttl_s=600.0, clock=clock)
    recent.put("answer", b"{}", at=clock.now - 599.0)  # written to the store 599 s ago
    assert recent.get("answer") == b"{}"
    clock.now += 1.0
    assert recent.get("answer") is None


def test_pop_and_clear_forget() -> None:
    recent = Recent[str, int](10)
    recent.put("a", 1)
    recent.put("b", 2)
    assert recent.pop("a") == 1 and recent.pop("a") is None
    recent.clear()
    assert recent.get("b") is None and len(recent) == 0
