"""Property tests (hypothesis) for the parsers that read untrusted or hand-written input: passage
splitting, URL normalization, the SSRF guard, time spans and dates, the config file, and the
terminal sanitizer. Each states what must hold for every input, not for a few examples."""

from __future__ import annotations

import contextlib
import ipaddress
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sleuth.errors import BlockedURLError, ConfigError, UsageError
from sleuth.fetch.guard import GuardPolicy, check_literal, is_blocked_address
from sleuth.settings.files import read_config
from sleuth.settings.values import MAX_SPAN_S, SECONDS_PER, parse_age, parse_duration, parse_since
from sleuth.text.display import escape_html_tags, terminal_safe
from sleuth.text.passages import MAX_WORDS, split_passages
from sleuth.urls import normalize_url

FAST = settings(max_examples=100, deadline=None)
# Text with paragraph breaks, long runs and unicode: what extracted pages look like.
page_text = st.lists(
    st.one_of(
        st.text(min_size=0, max_size=80),
        st.just("\n"),
        st.just("\n\n"),
        st.builds(
            lambda w, n: " ".join([w] * n),
            st.sampled_from(["word", "é", "x."]),
            st.integers(1, 400),
        ),
    ),
    max_size=40,
).map("".join)


# -- passage splitting -------------------------------------------------------------------------


@FAST
@given(page_text)
def test_passages_point_back_into_the_text_in_order(text: str) -> None:
    chunks = split_passages(text)
    last_end = 0
    for chunk in chunks:
        assert text[chunk.start : chunk.start + len(chunk.text)] == chunk.text
        assert chunk.start >= last_end  # in order, never overlapping
        last_end = chunk.start + len(chunk.text)
        assert chunk.n_words == len(chunk.text.split())
        assert chunk.text == chunk.text.strip() and chunk.text


@FAST
@given(page_text)
def test_passages_keep_every_word_and_stay_bounded(text: str) -> None:
    chunks = split_passages(text)
    assert sum(c.n_words for c in chunks) == len(text.split())
    assert all(c.n_words <= MAX_WORDS * 1.5 for c in chunks)


# -- URL normalization -------------------------------------------------------------------------

hosts = st.from_regex(r"(www\.)?[a-z][a-z0-9-]{0,12}(\.[a-z]{2,6}){1,2}", fullmatch=True)
paths = st.lists(st.from_regex(r"[A-Za-z0-9_~.-]{1,10}", fullmatch=True), max_size=4).map(
    lambda parts: "/" + "/".join(parts)
)
params = st.dictionaries(
    st.sampled_from(["q", "page", "utm_source", "fbclid", "lang", "id"]),
    st.from_regex(r"[a-z0-9]{0,6}", fullmatch=True),
    max_size=4,
)


def url_of(scheme: str, host: str, path: str, query: dict[str, str], frag: str) -> str:
    qs = "&".join(f"{k}={v}" for k, v in query.items())
    return f"{scheme}://{host}{path}" + (f"?{qs}" if qs else "") + (f"#{frag}" if frag else "")


@FAST
@given(st.text(max_size=200))
@example("http://[::1")
@example("http://host:99999999/")
@example("0\x85#f")
@example("http://example.org/a/ /#x")
@example("\x00\xa00")
def test_normalize_url_never_raises_and_is_idempotent(url: str) -> None:
    once = normalize_url(url)
    assert normalize_url(once) == once


@FAST
@given(
    st.sampled_from(["http", "https", "HTTPS"]),
    hosts,
    paths,
    params,
    st.from_regex(r"[a-z]{0,5}", fullmatch=True),
)
def test_spellings_of_one_page_share_a_key(
    scheme: str, host: str, path: str, query: dict[str, str], frag: str
) -> None:
    plain = {k: v for k, v in query.items() if k not in ("utm_source", "fbclid")}
    canonical = normalize_url(url_of("http", host.removeprefix("www."), path, plain, ""))
    spelled = url_of(scheme, host.upper(), path + "/", dict(reversed(list(query.items()))), frag)
    assert normalize_url(spelled) == canonical


# -- the SSRF guard ----------------------------------------------------------------------------

PRIVATE = [
    ipaddress.ip_network(n)
    for n in ("127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
              "100.64.0.0/10", "0.0.0.0/8")
]  # fmt: skip
POLICY = GuardPolicy()


@st.composite
def private_ipv4(draw: st.DrawFn) -> ipaddress.IPv4Address:
    net = draw(st.sampled_from(PRIVATE))
    offset = draw(st.integers(0, net.num_addresses - 1))
    return net[offset]


def spellings(address: ipaddress.IPv4Address) -> list[str]:
    """How a browser or resolver may be told the same IPv4 address."""
    n, parts = int(address), list(address.packed)
    return [
        str(address),
        str(n),  # 2130706433
        hex(n),  # 0x7f000001
        "0" + oct(n)[2:],  # 017700000001
        ".".join(hex(p) for p in parts),  # 0x7f.0x0.0x0.0x1
        ".".join("0" + oct(p)[2:] for p in parts),  # 0177.00.00.01
        f"{parts[0]}.{(parts[1] << 16) | (parts[2] << 8) | parts[3]}",  # 127.1 style
        f"[::ffff:{address}]",
        f"[::ffff:{parts[0]:02x}{parts[1]:02x}:{parts[2]:02x}{parts[3]:02x}]",
        f"[64:ff9b::{address}]",
    ]


@FAST
@given(private_ipv4(), st.sampled_from(["http", "https"]), st.integers(0, 9))
def test_every_spelling_of_a_private_address_is_refused(
    address: ipaddress.IPv4Address, scheme: str, which: int
) -> None:
    host = spellings(address)[which]
    with pytest.raises(BlockedURLError):
        check_literal(f"{scheme}://{host}/admin", POLICY)


@FAST
@given(st.ip_addresses(v=4))
def test_a_literal_address_is_refused_exactly_when_it_is_not_public(
    address: ipaddress.IPv4Address,
) -> None:
    url = f"http://{address}/"
    if is_blocked_address(address):
        with pytest.raises(BlockedURLError):
            check_literal(url, POLICY)
    else:
        check_literal(url, POLICY)  # a public address passes the literal check
        assert address.is_global


@FAST
@given(st.text(max_size=120))
def test_the_guard_raises_only_its_own_error_for_any_url(url: str) -> None:
    with contextlib.suppress(BlockedURLError):
        check_literal(url, POLICY)


# -- time spans and dates ----------------------------------------------------------------------


@FAST
@given(st.integers(1, 10_000), st.sampled_from(["s", "min", "h", "d", "w"]))
def test_a_duration_is_its_number_times_its_unit(n: int, unit: str) -> None:
    expected = n * SECONDS_PER[unit]
    if expected > MAX_SPAN_S:
        with pytest.raises(UsageError):
            parse_duration(f"{n}{unit}")
    else:
        assert parse_duration(f" {n}{unit} ") == pytest.approx(expected)
        assert parse_age(f"{n}{unit}") == timedelta(seconds=expected)


@FAST
@given(st.text(max_size=40))
@example("99999999999y")
@example("99999999999999d")
@example("nan")
@example("1e309s")
def test_span_parsers_fail_only_with_a_usage_error(text: str) -> None:
    for parse in (parse_duration, parse_age, parse_since):
        with contextlib.suppress(UsageError):
            parse(text)


@FAST
@given(st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 12, 31)))
def test_an_iso_date_is_itself_and_an_age_counts_back(day: date) -> None:
    assert parse_since(day.isoformat()) == day
    now = date(2026, 6, 1)
    assert parse_since("30d", now=now) == now - timedelta(days=30)


# -- the config file ---------------------------------------------------------------------------

toml_values = st.recursive(
    st.one_of(
        st.integers(-(2**31), 2**31),
        st.booleans(),
        st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=20),
    ),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=8,
)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=300))
def test_any_bytes_as_config_are_read_or_refused_in_one_line(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(raw)
    problem = _config_problem(path)
    assert problem is None or str(path) in problem


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.dictionaries(st.from_regex(r"[a-z][a-z_-]{0,12}", fullmatch=True), toml_values, max_size=6)
)
def test_keys_are_normalized_whatever_their_spelling(
    tmp_path: Path, table: dict[str, object]
) -> None:
    import json

    path = tmp_path / "config.toml"
    path.write_text(
        "".join(f"{k} = {json.dumps(v, ensure_ascii=False)}\n" for k, v in table.items())
    )
    problem = _config_problem(path)
    if problem is not None:
        assert "given twice" in problem or "profile" in problem
        return
    assert all("-" not in key and key == key.lower() for key in read_config(path).settings)


def _config_problem(path: Path) -> str | None:
    """The one-line ConfigError message for the file, or None when it reads cleanly; any other
    exception fails the test."""
    try:
        read_config(path)
    except ConfigError as exc:
        return str(exc)
    return None


# -- what is shown ------------------------------------------------------------------------------

CONTROL = {chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]}


@FAST
@given(st.text(max_size=200))
@example("\x1b]52;c;ZXZpbA==\x07")
@example("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\")
@example("a\x9b31mb")
def test_nothing_that_controls_a_terminal_survives(text: str) -> None:
    shown = terminal_safe(text)
    assert not CONTROL & set(shown)
    assert terminal_safe(shown) == shown


@FAST
@given(st.text(max_size=200))
def test_no_html_tag_survives_escaping(text: str) -> None:
    import re

    assert not re.search(r"<[A-Za-z/!?]", escape_html_tags(text))
