"""The SSRF guard: search results and redirects must never turn Sleuth against its own network.

A URL found on the web is untrusted input. Before any request we refuse anything that could reach
the machine itself, its private network or a cloud metadata service: non-http schemes, literal
addresses in every spelling resolvers accept (decimal, octal, hex, shortened IPv4; bracketed IPv6,
IPv4-mapped and embedded forms), `localhost` names and known metadata hosts. Then, unless a proxy
will resolve the name for us, we resolve it and refuse if *any* address is not public.

The host is taken from `httpx2.URL`, the same parser the HTTP client uses, so the guard and the
client can never disagree about which host a URL names.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import unquote

import httpx2

from ..errors import BlockedURLError, FetchError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# Host name -> every address it resolves to; raises OSError when it does not resolve.
Resolver = Callable[[str], Awaitable[list[IPAddress]]]

ALLOWED_SCHEMES = frozenset({"http", "https"})
METADATA_HOSTS = frozenset(
    {"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "metadata.azure.com"}
)
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
# NAT64 (RFC 6052) embeds an IPv4 address in the low 32 bits; a NAT64 gateway would reach it.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


@dataclass(frozen=True, slots=True)
class GuardPolicy:
    allow_private: bool = False  # SLEUTH_ALLOW_PRIVATE_NETWORK=1, for intranet use
    proxied: bool = False  # a proxy is configured for this URL: do not resolve names locally


def check_literal(url: str, policy: GuardPolicy) -> None:
    """Refuse by looking at the URL alone: scheme, literal addresses, local and metadata names."""
    host = _host_of(url)
    address = _literal_or_refuse(host, url)
    if address is not None:
        _check_address(address, url, policy)
        return
    if _is_metadata_name(host):
        raise BlockedURLError("cloud metadata host", url)
    if not policy.allow_private and _is_local_name(host):
        raise BlockedURLError("local host name", url)


async def check_url(url: str, policy: GuardPolicy, *, resolver: Resolver | None = None) -> None:
    """`check_literal`, then (when no proxy resolves for us) every address the name resolves to.

    `resolver` defaults to the system resolver (`loop.getaddrinfo`).
    """
    check_literal(url, policy)
    host = _host_of(url)
    if policy.proxied or _literal_or_refuse(host, url) is not None:
        return
    try:
        addresses = await (resolver or system_resolve)(host)
    except (OSError, UnicodeError) as exc:
        raise FetchError(f"dns: {exc}", url, cause="unreachable") from exc
    if not addresses:
        raise FetchError(f"dns: no address for {host}", url, cause="unreachable")
    for address in addresses:
        _check_address(address, url, policy)


def is_blocked_address(address: IPAddress) -> bool:
    """True for every address that is not plainly on the public internet."""
    for candidate in _embedded(address):
        if candidate in METADATA_ADDRESSES or candidate.is_multicast:
            return True
        if not candidate.is_global or candidate.is_reserved or candidate.is_unspecified:
            return True
    return False


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address a host string denotes, in any spelling a resolver accepts, else None.

    Follows the WHATWG URL rule: a host whose last label is numeric is an IPv4 address, and each
    part may be decimal, octal (leading 0) or hex (0x); fewer than four parts fill the low bytes.
    A host that looks numeric but does not parse raises ValueError: refused, never guessed at.
    """
    if ":" in host:
        return _parse_ipv6(host)
    labels = host.split(".")
    if not labels or not _is_number_label(labels[-1]):
        return None
    return _parse_ipv4_parts(labels, host)


def _host_of(url: str) -> str:
    try:
        parsed = httpx2.URL(url)
    except (httpx2.InvalidURL, TypeError, ValueError) as exc:
        raise BlockedURLError(f"invalid url: {exc}", url) from exc
    if parsed.scheme not in ALLOWED_SCHEMES:
        raise BlockedURLError(f"scheme not allowed: {parsed.scheme or 'none'}", url)
    host = parsed.raw_host.decode("ascii", "replace")
    # Percent-escapes and full-width digits are undone by some proxies and resolvers; undo them
    # here too so "%31%32%37.0.0.1" cannot slip past as a name.
    host = unicodedata.normalize("NFKC", unquote(host)).lower().rstrip(".")
    if not host:
        raise BlockedURLError("url has no host", url)
    return host


def _literal_or_refuse(host: str, url: str) -> IPAddress | None:
    try:
        return parse_ip_literal(host)
    except ValueError as exc:
        raise BlockedURLError(str(exc), url) from exc


def _check_address(address: IPAddress, url: str, policy: GuardPolicy) -> None:
    if any(a in METADATA_ADDRESSES for a in _embedded(address)):
        raise BlockedURLError("cloud metadata address", url)
    if not policy.allow_private and is_blocked_address(address):
        raise BlockedURLError(f"private or local address: {address}", url)


def _embedded(address: IPAddress) -> list[IPAddress]:
    """The address itself plus any IPv4 address it carries (mapped, 6to4, Teredo, NAT64)."""
    found: list[IPAddress] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            found.append(address.ipv4_mapped)
        if address.sixtofour is not None:
            found.append(address.sixtofour)
        if address.teredo is not None:
            found.append(address.teredo[1])
        if address in _NAT64:
            found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def _parse_ipv6(host: str) -> IPAddress:
    bare = host.strip("[]").split("%", 1)[0]  # drop a zone id such as fe80::1%eth0
    try:
        return ipaddress.IPv6Address(bare)
    except ValueError as exc:
        raise ValueError(f"invalid IPv6 host: {host}") from exc


def _is_number_label(label: str) -> bool:
    if label.startswith(("0x", "0X")):
        return all(c in "0123456789abcdefABCDEF" for c in label[2:])
    return label.isascii() and label.isdigit()


def _parse_ipv4_parts(labels: list[str], host: str) -> ipaddress.IPv4Address:
    try:
        numbers = [_ipv4_number(label) for label in labels]
    except ValueError as exc:
        raise ValueError(f"invalid IPv4 host: {host}") from exc
    *head, last = numbers
    if len(numbers) > 4 or any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        raise ValueError(f"invalid IPv4 host: {host}")
    value = last
    for index, number in enumerate(head):
        value += number << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def _ipv4_number(label: str) -> int:
    if label[:2].lower() == "0x":
        return int(label[2:] or "0", 16)
    if len(label) > 1 and label.startswith("0"):
        return int(label, 8)
    return int(label, 10)


def _is_local_name(host: str) -> bool:
    return host == "localhost" or host.endswith((".localhost", ".local", ".internal"))


def _is_metadata_name(host: str) -> bool:
    return host in METADATA_HOSTS or host.endswith(".metadata.google.internal")


async def system_resolve(host: str) -> list[IPAddress]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
