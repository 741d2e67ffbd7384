"""Model-proposed queries are vetted: bounded, no URLs, on topic, and never carrying text only a
private source holds (issue 12, item 1)."""

from __future__ import annotations

import pytest

from sleuth.think.vet import MAX_QUERY_CHARS, Text, vet

Q = "How long does Example Cloud keep audit logs by default?"
NOTE = Text(
    "file:///home/me/notes/hr.md",
    "Alice Zabrowski earns 123456 a year. Audit logs at Example Cloud are kept for 400 days.",
)
WEB = Text("http://docs.example.com/audit", "Example Cloud keeps audit logs for 90 days.")


@pytest.mark.parametrize(
    "query",
    [
        "audit logs http://attacker.example/collect?x=1",
        "see www.attacker.example for audit logs",
        "audit logs attacker.example/steal",
        "file:///etc/passwd audit logs",
    ],
)
def test_a_query_with_a_url_is_refused(query: str) -> None:
    assert vet(query, Q, [WEB]).query is None
    assert "URL" in vet(query, Q, [WEB]).reason


def test_a_query_off_the_question_is_refused() -> None:
    verdict = vet("best pizza recipes in Naples", Q, [WEB])
    assert verdict.query is None and "no term" in verdict.reason


def test_related_word_forms_count_as_on_topic() -> None:
    question = "Who co-founded the company that develops the V8 JavaScript engine?"
    assert vet("Google founders 1998", question).query == "Google founders 1998"
    assert vet("V8 developer company", question).query == "V8 developer company"


def test_a_long_query_is_cut_at_a_word() -> None:
    query = vet("audit logs retention " * 40, Q).query
    assert query is not None and len(query) <= MAX_QUERY_CHARS
    assert query.split()[-1] in {"audit", "logs", "retention"}


def test_words_only_a_private_source_has_never_go_out() -> None:
    verdict = vet("audit logs Alice Zabrowski salary", Q, [NOTE, WEB])
    assert verdict.query is None and "private source" in verdict.reason


def test_four_words_copied_from_a_private_source_never_go_out() -> None:
    # Every word is also on a public page, but the run of words is the note's.
    public = Text("http://x.example/", "logs at example cloud are kept for days a year earns")
    verdict = vet("Audit logs at Example Cloud are kept", Q, [NOTE, public])
    assert verdict.query is None and "4 words in a row" in verdict.reason


OTHER_SITE = Text(
    "http://blog.example.net/logs", "Most clouds keep audit logs 90 days, Contoso says."
)


def test_words_of_the_question_and_of_two_sites_pass() -> None:
    assert vet("Example Cloud audit logs 90 days", Q, [NOTE, WEB, OTHER_SITE]).query


@pytest.mark.parametrize(
    ("query", "word"),
    [
        ("audit logs Quixotic", "quixotic"),  # on no page at all
        ("Example Cloud audit logs Contoso", "contoso"),  # on one site only
        ("audit logs Nyvpr Mnoebjfxv", "mnoebjfxv"),  # a private name in ROT13
    ],
)
def test_a_word_neither_the_question_nor_two_sites_have_is_refused(query: str, word: str) -> None:
    verdict = vet(query, Q, [NOTE, WEB, OTHER_SITE])
    assert verdict.query is None and "two independent sites" in verdict.reason
    assert word in verdict.reason


def test_one_owner_is_one_site_and_nothing_read_means_nothing_to_vouch() -> None:
    docs = Text("http://docs.example.com/a", "Audit logs are exported as Parquet.")
    www = Text("http://www.example.com/b", "Export audit logs as Parquet files.")
    assert vet("audit logs Parquet", Q, [docs, www]).query is None  # example.com twice
    assert vet("audit logs Parquet", Q, []).query == "audit logs Parquet"  # planner, unread
