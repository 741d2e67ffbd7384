"""The SSRF guard, end to end through the real HttpFetcher.

Each hostile URL (and each redirect towards one) must be refused with BlockedURLError, and the
recording web must show that the hostile target was never requested. Public-looking hosts are
reached through HTTP_PROXY (the recording web), loopback goes direct (NO_PROXY), exactly as a
user with a proxy would run it.
"""

from __future__ import annotations

import ipaddress
import socket

import pytest

from sleuth.errors import BlockedURLError, FetchError
from sleuth.fetch import FetchSettings, GuardPolicy, HttpFetcher, check_literal
from sleuth.fetch.guard import IPAddress, Resolver, parse_ip_literal
from tests.fetch.conftest import MakeFetcher
from tests.fetch.web import RecordingWeb, Reply

ARTICLE = b"<html><body><article><p>" + b"A perfectly ordinary public article. " * 20
ARTICLE += b"</p></article></body></html>"

# {port} is the recording web's port, so a guard failure on these would land on our server.
HOSTILE_URLS = [
    "http://127.0.0.1:{port}/secret",
    "http://localhost:{port}/secret",
    "http://LOCALHOST.:{port}/secret",
    "http://api.localhost:{port}/secret",
    "http://user:pw@127.0.0.1:{port}/secret",
    "http://0.0.0.0:{port}/secret",
    "http://[::1]/",
    "http://[::1]:{port}/secret",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::ffff:127.0.0.1]:{port}/secret",
    "http://[::ffff:7f00:1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:7f00:1::]/",
    "http://[fe80::1%25eth0]/",
    "http://[fc00::1]/",
    "http://[::]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://100.100.100.200/latest/meta-data/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://127.1/",
    "http://0/",
    "http://%31%32%37.0.0.1/",
    "http://10.0.0.1/",
    "http://192.168.1.1/admin",
    "http://172.16.0.1/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://printer.local/",
    "http://db.corp.internal/",
    "file:///etc/passwd",
    "ftp://127.0.0.1/",
    "gopher://127.0.0.1:6379/_INFO",
    "javascript:alert(1)",
]

REDIRECT_TARGETS = [
    "http://127.0.0.1:{port}/secret",
    "//127.0.0.1:{port}/secret",  # scheme-relative Location
    "http://localhost:{port}/secret",
    "http://[::1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://metadata.google.internal/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://[::ffff:127.0.0.1]:{port}/secret",
    "file:///etc/passwd",
]


@pytest.mark.parametrize("template", HOSTILE_URLS)
async def test_hostile_url_is_refused_and_never_requested(
    template: str, proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    url = template.format(port=proxied.port)
    proxied.add(f"{proxied.origin}/secret", Reply(ARTICLE))
    with pytest.raises(BlockedURLError):
        await make_fetcher().fetch(url)
    assert proxied.hits == []


@pytest.mark.parametrize("template", REDIRECT_TARGETS)
async def test_redirect_to_hostile_url_is_refused_and_never_requested(
    template: str, proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    proxied.add(f"{proxied.origin}/secret", Reply(ARTICLE))
    start = proxied.redirect("http://news.example.com/story", template.format(port=proxied.port))
    with pytest.raises(BlockedURLError):
        await make_fetcher().fetch(start)
    assert proxied.hits == [start]


async def test_every_hop_of_a_chain_is_checked(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    proxied.add(f"{proxied.origin}/secret", Reply(ARTICLE))
    first = proxied.redirect("http://news.example.com/a", "http://blog.example.net/b", 301)
    second = proxied.redirect("http://blog.example.net/b", "/c", 307)
    third = proxied.redirect("http://blog.example.net/c", f"{proxied.origin}/secret", 308)
    with pytest.raises(BlockedURLError):
        await make_fetcher().fetch(first)
    assert proxied.hits == [first, second, third]


async def test_redirect_loop_stops_after_max_redirects(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    for n in range(10):
        proxied.redirect(f"http://loop.example.com/{n}", f"/{n + 1}")
    with pytest.raises(FetchError, match="too many redirects"):
        await make_fetcher(max_redirects=5).fetch("http://loop.example.com/0")
    assert len(proxied.hits) == 6  # the first request plus five followed redirects


async def test_public_redirect_is_followed(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    start = proxied.redirect("http://news.example.com/old", "http://news.example.com/new")
    proxied.add("http://news.example.com/new", Reply(ARTICLE))
    page = await make_fetcher().fetch(start)
    assert page.url == start
    assert page.final_url == "http://news.example.com/new"
    assert "ordinary public article" in page.text


def fake_dns(table: dict[str, list[str]]) -> Resolver:
    """DNS at the boundary: a name maps to the addresses a (possibly hostile) zone returns."""

    async def resolve(host: str) -> list[IPAddress]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [ipaddress.ip_address(a) for a in table[host]]

    return resolve


@pytest.mark.parametrize(
    "addresses",
    [["127.0.0.1"], ["10.0.0.5"], ["93.184.215.14", "192.168.0.10"], ["::1"], ["169.254.169.254"]],
)
async def test_without_proxy_a_name_resolving_to_a_private_address_is_refused(
    addresses: list[str], web: RecordingWeb
) -> None:
    # The name looks public; only the DNS check can catch it. ANY private address refuses.
    dns = fake_dns({"intranet.example.com": addresses})
    fetcher = HttpFetcher(FetchSettings(), resolver=dns)
    try:
        with pytest.raises(BlockedURLError, match="address"):
            await fetcher.fetch(f"http://intranet.example.com:{web.port}/secret")
    finally:
        await fetcher.aclose()
    assert web.hits == []


async def test_without_proxy_a_name_resolving_to_loopback_is_read_when_private_allowed(
    web: RecordingWeb,
) -> None:
    web.add(f"http://intranet.example.com:{web.port}/wiki", Reply(ARTICLE))
    dns = fake_dns({"intranet.example.com": ["127.0.0.1"]})
    fetcher = HttpFetcher(FetchSettings(allow_private=True), resolver=dns)
    try:
        # The guard passes; the client then resolves the name itself and the test network guard
        # refuses it, so this proves only that the guard let it through.
        with pytest.raises(FetchError) as info:
            await fetcher.fetch(f"http://intranet.example.com:{web.port}/wiki")
    finally:
        await fetcher.aclose()
    assert not isinstance(info.value, BlockedURLError)


async def test_without_proxy_a_failed_lookup_is_a_dns_error(
    web: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    with pytest.raises(FetchError, match=r"^dns: ") as info:
        await make_fetcher().fetch("http://news.example.com/story")
    assert not isinstance(info.value, BlockedURLError)
    assert web.hits == []


async def test_allow_private_reads_the_intranet_but_never_metadata(
    web: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    web.add(f"{web.origin}/wiki", Reply(ARTICLE))
    page = await make_fetcher(allow_private=True).fetch(f"{web.origin}/wiki")
    assert "ordinary public article" in page.text
    with pytest.raises(BlockedURLError, match="metadata"):
        await make_fetcher(allow_private=True).fetch("http://169.254.169.254/latest/meta-data/")
    assert web.hits == [f"{web.origin}/wiki"]


async def test_proxied_is_decided_per_url_like_the_client(
    proxied: RecordingWeb, make_fetcher: MakeFetcher
) -> None:
    fetcher = make_fetcher()
    assert fetcher.guard_policy("http://news.example.com/").proxied
    assert not fetcher.guard_policy(f"{proxied.origin}/x").proxied


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1.258", "10.1.1.2"),
        ("::ffff:127.0.0.1", "::ffff:7f00:1"),
        ("example.com", None),
        ("1.2.3.4a", None),
    ],
)
def test_ip_literal_spellings(host: str, address: str | None) -> None:
    parsed = parse_ip_literal(host)
    assert (str(parsed) if parsed else None) == address


@pytest.mark.parametrize("host", ["256.1.1.1", "1.2.3.4.5", "08.0.0.1", "0x1g.1"])
def test_malformed_numeric_hosts_are_refused(host: str) -> None:
    with pytest.raises(BlockedURLError):
        check_literal(f"http://{host}/", GuardPolicy())


def test_public_literal_passes() -> None:
    check_literal("http://93.184.215.14/", GuardPolicy())
    check_literal("https://[2606:4700::1111]/", GuardPolicy())


async def test_dns_rebinding_answer_from_a_private_address_is_never_read(
    web: RecordingWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The guard's lookup says public; the connection's own lookup (a moment later) says
    # loopback, as a rebinding DNS server would. The body must not be used.
    web.add(f"http://rebind.example.com:{web.port}/secret", Reply(ARTICLE))
    real = socket.getaddrinfo

    def rebinding_dns(host: object, *args: object, **kwargs: object) -> object:
        if host in ("rebind.example.com", b"rebind.example.com"):
            return real("127.0.0.1", *args, **kwargs)  # type: ignore[arg-type]
        return real(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding_dns)
    fetcher = HttpFetcher(
        FetchSettings(), resolver=fake_dns({"rebind.example.com": ["93.184.215.14"]})
    )
    try:
        with pytest.raises(BlockedURLError, match="rebinding"):
            await fetcher.fetch(f"http://rebind.example.com:{web.port}/secret")
    finally:
        await fetcher.aclose()
