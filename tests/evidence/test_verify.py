"""`sleuth verify` on packs a forger edited: one byte of a source text, a quote, a citation
number, an added sentence, another key's signature, a broken signature — each reported with
the file or sentence it concerns, and the pack fails (exit 4)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from sleuth.evidence.build import archive
from sleuth.evidence.sign import SigningKey, create_key
from tests.cli.helpers import run
from tests.evidence.packs import edited, files_of, pack_of, resigned, supported_record

EXPORT_SENTENCE = 'sentence "Exported entries reach your bucket within five minutes."'


@pytest.fixture
def key(sleuth_home: Path) -> SigningKey:
    return create_key(sleuth_home)


def verify(
    pack: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str]:
    path = tmp_path / "pack.zip"
    path.write_bytes(pack)
    code, out, err = run(["verify", str(path), *args], capsys)
    return code, out + err


def test_an_untouched_pack_verifies(
    key: SigningKey, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = verify(pack_of(supported_record(), key), tmp_path, capsys, "--key", key.id)
    assert code == 0, out
    assert "3 of 3 cited sentences supported" in out and "(a key you named)" in out
    assert out.rstrip().endswith("verify: verified")


def test_one_byte_of_a_source_text_changed_is_reported_with_its_file(
    key: SigningKey, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = pack_of(supported_record(), key)
    one_byte = edited(pack, "sources/1.txt", lambda b: b.replace(b"90 days", b"91 days", 1))
    code, out = verify(one_byte, tmp_path, capsys)
    assert code == 4
    assert "sources/1.txt: was changed: its SHA-256 is not the manifest's" in out
    # A forger who also re-hashes the manifest breaks the signature, which covers it.
    rehashed = edited(pack, "sources/1.txt", lambda b: b.replace(b"90", b"91", 1), rehash=True)
    code, out = verify(rehashed, tmp_path, capsys)
    assert code == 4 and "signature.json: the signature does not match manifest.json" in out
    assert "sources/1.txt: is not the text sources/1.json names" in out


def test_a_changed_quote_is_reported_at_the_sentence_it_supported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Unsigned, fully re-hashed: only the re-check can tell, and it does."""
    pack = pack_of(supported_record())
    forged = edited(
        pack, "sources/1.json", lambda b: b.replace(b"90 days", b"30 days"), rehash=True
    )
    code, out = verify(forged, tmp_path, capsys)
    assert code == 4
    assert (
        'sentence "Audit logs are retained for 90 days by default.": was supported when the '
        "pack was made, not supported by its sources now" in out
    )
    assert "✗ Audit logs are retained for 90 days by default. [1]" in out


def test_a_citation_number_changed_is_reported_at_its_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = pack_of(supported_record())
    swap = edited(
        pack, "answer.md", lambda b: b.replace(b"minutes [2]", b"minutes [1]"), rehash=True
    )
    code, out = verify(swap, tmp_path, capsys)
    assert code == 4
    assert f"{EXPORT_SENTENCE}: cites [1] where the checked answer cited [2]" in out
    assert "answer.md: differs from the answer in result.json" in out
    unhashed = edited(pack, "answer.md", lambda b: b.replace(b"minutes [2]", b"minutes [1]"))
    code, out = verify(unhashed, tmp_path, capsys)
    assert code == 4 and "answer.md: was changed" in out and EXPORT_SENTENCE in out


def test_a_sentence_added_to_the_answer_is_reported_even_uncited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = pack_of(supported_record())
    added = edited(
        pack, "answer.md", lambda b: b + b"\nAudit logs are deleted after a week.\n", rehash=True
    )
    code, out = verify(added, tmp_path, capsys)
    assert code == 4
    assert (
        'sentence "Audit logs are deleted after a week.": is not in the answer that was checked'
        in out
    )
    cited = edited(
        pack, "answer.md", lambda b: b + b"\nAudit logs are kept forever [5].\n", rehash=True
    )
    code, out = verify(cited, tmp_path, capsys)
    assert code == 4
    assert (
        'sentence "Audit logs are kept forever.": cites [5], a source the pack does not hold' in out
    )


def test_a_wrong_signature_is_reported(
    key: SigningKey, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = pack_of(supported_record(), key)
    stranger = create_key(tmp_path / "other-home")
    code, out = verify(resigned(pack, stranger), tmp_path, capsys, "--key", key.id)
    assert code == 4
    assert f"signature.json: the pack is signed by {stranger.id}, not by a key you named" in out

    def garble(raw: bytes) -> bytes:
        data = json.loads(raw)
        data["signature"] = (
            data["signature"][:10]
            + ("A" if data["signature"][10] != "A" else "B")
            + data["signature"][11:]
        )
        return json.dumps(data).encode()

    code, out = verify(edited(pack, "signature.json", garble), tmp_path, capsys)
    assert code == 4 and "signature.json: the signature does not match manifest.json" in out
    code, out = verify(pack_of(supported_record()), tmp_path, capsys, "--key", key.id)
    assert code == 4 and "signature.json: missing: the pack is not signed" in out


def test_the_key_can_be_pinned_by_its_public_pem_file(
    key: SigningKey, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, pem, _ = run(["keys", "signing", "show", "--pem"], capsys)
    assert code == 0 and pem.startswith("-----BEGIN PUBLIC KEY-----")
    public = tmp_path / "signer.pub"
    public.write_text(pem)
    code, out = verify(pack_of(supported_record(), key), tmp_path, capsys, f"--key={public}")
    assert code == 0 and "(a key you named)" in out


def test_an_unsupported_sentence_is_a_note_unless_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = supported_record()
    answer = (
        record.result.answer + "Every entry is encrypted with quantum keys held offshore [2].\n"
    )
    from dataclasses import replace

    pack = pack_of(replace(record, result=replace(record.result, answer=answer)))
    code, out = verify(pack, tmp_path, capsys)
    assert code == 0 and "notes" in out and "is not supported by [2]" in out
    code, out = verify(pack, tmp_path, capsys, "--strict")
    assert code == 4


def test_what_is_not_a_pack_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = verify(b"not a zip", tmp_path, capsys)
    assert code == 1 and "not a zip archive" in out
    files = files_of(pack_of(supported_record()))
    twice = tmp_path / "twice.zip"
    with zipfile.ZipFile(twice, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        with pytest.warns(UserWarning, match="Duplicate name"):
            z.writestr("answer.md", b"Something else entirely [1].\n")
    code, out = verify(twice.read_bytes(), tmp_path, capsys)
    assert code == 1 and "answer.md appears twice in the archive" in out
    code, out = verify(archive({"answer.md": b"x"}), tmp_path, capsys)
    assert code == 1 and "no manifest.json" in out


def test_a_verdict_that_differs_under_another_checker_is_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pack made by another version of the check (its code fingerprint differs) whose
    verdict this version does not share: said, but not a failure — the check changed, not
    the pack. The same difference under the same checker fails (test above)."""

    def older(raw: bytes) -> bytes:
        manifest = json.loads(raw)
        manifest["checker"]["code_sha256"] = "0" * 64
        return (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()

    def stricter_then(raw: bytes) -> bytes:
        claims = json.loads(raw)
        claims["claims"][0]["supported"] = False
        return (json.dumps(claims, indent=2, sort_keys=True) + "\n").encode()

    pack = edited(pack_of(supported_record()), "claims.json", stricter_then, rehash=True)
    code, out = verify(edited(pack, "manifest.json", older), tmp_path, capsys)
    assert code == 0, out
    assert "another version of the citation check" in out
    assert "was unsupported when the pack was made, supported by its sources now (by this" in out
    code, out = verify(pack, tmp_path, capsys)
    assert code == 4 and "was unsupported when the pack was made, supported" in out
