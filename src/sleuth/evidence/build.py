"""A saved session as an evidence pack (see `layout.py` for the files).

The pack holds every cited source: its extracted text as the run saved it, and the passages
the citation check read (the check reads passages, with the page title, never the whole page).
The answer is re-checked here with the run's threshold and the result listed per sentence, so
a verifier compares its own verdict with this one.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from ..pipeline.cite import cited_numbers
from ..store.records import SessionRecord, iso_utc
from ..types import ResearchRequest, Result, Source
from .check import (
    SentenceCheck,
    answer_sentences,
    check_answer,
    checked_text,
    current_checker,
)
from .layout import (
    ANSWER,
    CLAIMS,
    MANIFEST,
    RESULT,
    SIGNATURE,
    encode,
    manifest,
    sha256,
    source_json,
    source_text,
)
from .sign import SigningKey

ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed: the same session makes the same archive bytes
DEFAULT_RECALL = ResearchRequest(question="").cite_min_recall


def build_pack(
    record: SessionRecord, key: SigningKey | None = None, now: datetime | None = None
) -> bytes:
    """The pack's bytes (a zip archive), signed when `key` is given."""
    result = record.result
    answer = checked_text(result.answer or "") if result.data is None else ""
    cited = cited_sources(result, answer)
    recall, recorded = run_threshold(record)
    files: dict[str, bytes] = {
        ANSWER: answer.encode(),
        RESULT: encode(result.to_json()),
        CLAIMS: encode(claims_json(check_answer(answer, cited, recall), answer_sentences(answer))),
    }
    for source in cited:
        text = source.text.encode()
        files[source_text(source.number)] = text
        files[source_json(source.number)] = encode(source_record(source, sha256(text)))
    checker = {
        **current_checker(recall).to_json(),
        "min_recall_recorded": recorded,
        "run_checked": result.verification.enabled,
    }
    session = {"id": record.id, "created_at": record.created_at, "question": record.question}
    created = iso_utc(now or datetime.now(UTC))
    head = manifest(files, session, checker, created)
    members = {MANIFEST: head}
    if key is not None:
        members[SIGNATURE] = encode(key.signature(head))
    return archive({**members, **files})


def cited_sources(result: Result, answer: str) -> tuple[Source, ...]:
    """The sources the answer cites (with structured output: those the result lists)."""
    numbers = {c.number for c in result.citations} | set(cited_numbers(answer))
    return tuple(s for s in result.sources if s.number in numbers)


def run_threshold(record: SessionRecord) -> tuple[float, bool]:
    """The run's `cite_min_recall`, and whether the session recorded it (sessions saved before
    it was recorded get the default, and the pack says so)."""
    value = record.options.get("cite_min_recall")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value), True
    return DEFAULT_RECALL, False


def claims_json(checks: Iterable[SentenceCheck], sentences: Iterable[str]) -> dict[str, Any]:
    """`claims.json`: the cited sentences with their verdicts, and every sentence of the
    answer (so a verifier finds an added sentence that cites nothing)."""
    listed = [c.to_json() for c in checks]
    supported = sum(1 for c in listed if c["supported"])
    return {
        "checked": len(listed),
        "supported": supported,
        "claims": listed,
        "sentences": list(sentences),
    }


def source_record(source: Source, text_sha256: str) -> dict[str, Any]:
    return {
        "number": source.number,
        "url": source.url,
        "title": source.title,
        "fetched_at": source.fetched_at,
        "published": source.published,
        "authority": source.authority,
        "snippet": source.snippet,
        "location": source.location,
        "text_file": source_text(source.number),
        "text_sha256": text_sha256,
        "passages": [{"text": p.text, "start": p.start, "score": p.score} for p in source.passages],
    }


def archive(members: Mapping[str, bytes]) -> bytes:
    """A zip of `members` in the given order, with fixed times and permissions."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            out.writestr(info, data)
    return buffer.getvalue()
