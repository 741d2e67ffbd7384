"""Verifying an evidence pack with nothing but the pack: the manifest's hashes, the signature,
and the citation check re-run on the pack's own texts, compared sentence by sentence with the
verdicts the pack records. No network, no session store."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..types import Passage, Source
from .check import SentenceCheck, answer_sentences, check_answer, fingerprint
from .compare import (
    Finding,
    answer_agrees,
    claim_changes,
    sentence_changes,
    source_text_agrees,
    unsupported,
)
from .layout import (
    ANSWER,
    CLAIMS,
    FORMAT,
    MANIFEST,
    RESULT,
    SIGNATURE,
    SOURCE_FILE,
    UNHASHED,
    VERSION,
    sha256,
    source_text,
)
from .read import PackError, members
from .sign import check_signature

SignatureState = Literal["valid", "invalid", "unsigned"]


@dataclass(frozen=True, slots=True)
class Signature:
    state: SignatureState
    key_id: str = ""
    pinned: bool = False  # the key is one the verifier named as trusted


@dataclass(frozen=True, slots=True)
class Report:
    session: Mapping[str, Any]
    files: int
    signature: Signature
    checker: Mapping[str, Any]  # the checker the pack names
    same_checker: bool  # this Sleuth's checker is the same code
    sentences: tuple[SentenceCheck, ...]
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return not any(f.serious for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "session": dict(self.session),
            "files": self.files,
            "signature": {
                "state": self.signature.state,
                "key_id": self.signature.key_id,
                "pinned": self.signature.pinned,
            },
            "checker": {**self.checker, "same_as_verifier": self.same_checker},
            "sentences": [c.to_json() | {"missing": list(c.missing)} for c in self.sentences],
            "findings": [f.to_json() for f in self.findings],
        }


def verify_pack(
    data: bytes, *, trusted: frozenset[str] = frozenset(), strict: bool = False
) -> Report:
    """The report on a pack. `trusted`: key ids one of which must have signed it; `strict`:
    a sentence its sources do not support fails the pack (else it is a note)."""
    files = members(data)
    head = files.get(MANIFEST)
    if head is None:
        raise PackError("no manifest.json: not a Sleuth evidence pack")
    manifest = _manifest(head)
    findings = _hashes(manifest["files"], files)
    signature, noted = _signature(head, files.get(SIGNATURE), trusted)
    checker = manifest["checker"]
    same = checker.get("code_sha256") == fingerprint()
    checks, found = _recheck(files, float(checker.get("min_recall", 0.4)), strict, same)
    findings += noted + found
    if not same:
        message = (
            "the pack was checked by another version of the citation check; a verdict may "
            "differ for that reason"
        )
        findings.append(Finding(MANIFEST, message, serious=False))
    return Report(
        manifest["session"],
        len(manifest["files"]),
        signature,
        checker,
        same,
        checks,
        tuple(findings),
    )


def _recheck(
    files: Mapping[str, bytes], min_recall: float, strict: bool, same_checker: bool
) -> tuple[tuple[SentenceCheck, ...], list[Finding]]:
    """The citation check re-run on the pack's texts, and how it and the answer compare with
    what the pack records."""
    findings: list[Finding] = []
    answer = _text(files, ANSWER, findings)
    claims = _json(files, CLAIMS, findings)
    checks = check_answer(answer, _sources(files, findings), min_recall)
    now = answer_sentences(answer)
    before = [str(s) for s in claims.get("sentences", ())]
    findings += sentence_changes(before, now)
    added = set(now) - set(before)
    findings += claim_changes(claims.get("claims", ()), checks, added, same_checker)
    findings += unsupported(checks, strict)
    findings += answer_agrees(answer, _json(files, RESULT, findings))
    return checks, findings


def _manifest(head: bytes) -> dict[str, Any]:
    try:
        data = json.loads(head)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PackError(f"manifest.json is not JSON ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PackError("manifest.json does not name the sleuth-evidence-pack format")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise PackError(f"format version {data.get('version')!r}: newer than this Sleuth reads")
    listed = data.get("files")
    ok = isinstance(listed, list) and all(
        isinstance(f, dict) and isinstance(f.get("path"), str) and isinstance(f.get("sha256"), str)
        for f in listed
    )
    if not ok or not isinstance(data.get("checker"), dict):
        raise PackError("manifest.json has no valid file list or checker")
    data.setdefault("session", {})
    return data


def _hashes(listed: list[dict[str, Any]], files: Mapping[str, bytes]) -> list[Finding]:
    out: list[Finding] = []
    names = {f["path"] for f in listed}
    for entry in listed:
        path = entry["path"]
        if path not in files:
            out.append(Finding(path, "is listed in the manifest but missing"))
        elif sha256(files[path]) != entry["sha256"]:
            out.append(Finding(path, "was changed: its SHA-256 is not the manifest's"))
    for path in files:
        if path not in names and path not in UNHASHED:
            out.append(Finding(path, "is not listed in the manifest"))
    return out


def _signature(
    head: bytes, raw: bytes | None, trusted: frozenset[str]
) -> tuple[Signature, list[Finding]]:
    if raw is None:
        if trusted:
            return Signature("unsigned"), [Finding(SIGNATURE, "missing: the pack is not signed")]
        return Signature("unsigned"), []
    try:
        found = check_signature(head, json.loads(raw))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return Signature("invalid"), [Finding(SIGNATURE, "is not JSON")]
    if not found.valid:
        return Signature("invalid", found.key_id), [Finding(SIGNATURE, found.problem)]
    pinned = found.key_id in trusted
    if trusted and not pinned:
        message = f"the pack is signed by {found.key_id}, not by a key you named"
        return Signature("valid", found.key_id), [Finding(SIGNATURE, message)]
    return Signature("valid", found.key_id, pinned), []


def _text(files: Mapping[str, bytes], name: str, findings: list[Finding]) -> str:
    try:
        return files.get(name, b"").decode("utf-8")
    except UnicodeDecodeError:
        findings.append(Finding(name, "is not UTF-8 text"))
        return ""


def _json(files: Mapping[str, bytes], name: str, findings: list[Finding]) -> dict[str, Any]:
    try:
        data = json.loads(files.get(name, b"{}"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        findings.append(Finding(name, "is not JSON"))
        return {}
    if not isinstance(data, dict):
        findings.append(Finding(name, "is not a JSON object"))
        return {}
    return data


def _sources(files: Mapping[str, bytes], findings: list[Finding]) -> tuple[Source, ...]:
    out = []
    for name in files:
        match = SOURCE_FILE.match(name)
        if match is None or match.group(2) != "json":
            continue
        number = int(match.group(1))
        record = _json(files, name, findings)
        text = files.get(source_text(number), b"")
        findings += source_text_agrees(number, record, text)
        source = _source(number, record, _text(files, source_text(number), findings))
        if source is None:
            findings.append(Finding(name, "is not a source record"))
        else:
            out.append(source)
    return tuple(sorted(out, key=lambda s: s.number))


def _source(number: int, record: Mapping[str, Any], text: str) -> Source | None:
    try:
        passages = tuple(
            Passage(str(p["text"]), float(p.get("score", 0.0)), int(p.get("start", 0)))
            for p in record.get("passages", ())
        )
        return Source(
            number,
            str(record["url"]),
            str(record.get("title", "")),
            0.0,
            passages,
            text=text,
            snippet=bool(record.get("snippet")),
        )
    except (KeyError, TypeError, ValueError):
        return None
