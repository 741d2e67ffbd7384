"""Domain allow/deny lists."""

from __future__ import annotations

import pytest

from sleuth.errors import BlockedURLError
from sleuth.fetch import DomainFilteredFetcher, DomainPolicy
from sleuth.types import Page


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://python.org/", True),
        ("https://docs.python.org/3/", True),
        ("https://PEPS.Python.ORG./x", True),
        ("https://evilpython.org/", False),
        ("https://python.org.evil.com/", False),
        ("https://example.com/", False),
    ],
)
def test_allow_list_is_exact_or_strict_subdomain(url: str, allowed: bool) -> None:
    policy = DomainPolicy(allow=("python.org",))
    if allowed:
        policy.check(url)
    else:
        with pytest.raises(BlockedURLError, match="domain not allowed"):
            policy.check(url)


def test_deny_wins_over_allow() -> None:
    policy = DomainPolicy(allow=("python.org",), deny=("wiki.python.org",))
    policy.check("https://docs.python.org/")
    with pytest.raises(BlockedURLError, match="domain denied"):
        policy.check("https://wiki.python.org/moin")


def test_deny_only_allows_everything_else() -> None:
    policy = DomainPolicy(deny=("pinterest.com",))
    policy.check("https://example.com/")
    with pytest.raises(BlockedURLError, match="domain denied"):
        policy.check("https://www.pinterest.com/pin/1")


def test_from_lists_normalizes_user_input() -> None:
    policy = DomainPolicy.from_lists(allow=["https://Docs.Python.org/3/", "*.rust-lang.org.", " "])
    assert policy.allow == ("docs.python.org", "rust-lang.org")
    assert policy.active
    assert not DomainPolicy().active


class Redirecting:
    async def fetch(self, url: str) -> Page:
        return Page(url=url, title="", text="x", fetched_at="", final_url="https://spam.example/x")

    async def aclose(self) -> None:
        return None


async def test_filtered_fetcher_checks_the_final_url() -> None:
    fetcher = DomainFilteredFetcher(Redirecting(), DomainPolicy(deny=("spam.example",)))
    with pytest.raises(BlockedURLError, match="domain denied"):
        await fetcher.fetch("https://short.example/abc")
    with pytest.raises(BlockedURLError, match="domain denied"):
        await fetcher.fetch("https://spam.example/direct")
