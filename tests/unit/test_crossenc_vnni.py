"""The cross-encoder's weights as int8 on a CPU with VNNI (issue 25's speed limit): the shipped
uint8 weights, their bytes flipped by a patch checked by checksum, are the same integers, so
they score every pair to the bit as the shipped ones do, about twice as fast there. A patch
that does not fit this model file is not used: the shipped weights load as before."""

from __future__ import annotations

import json
import zlib
from importlib import resources
from pathlib import Path

import pytest

from sleuth.pipeline import crossenc

ROOT = Path(str(resources.files("sleuth.pipeline")))
MODEL, PATCH, VOCAB = ROOT / crossenc.MODEL, ROOT / crossenc.VNNI_PATCH, ROOT / crossenc.VOCAB
QUESTION = "when was the eiffel tower completed"
TEXTS = [
    "Construction of the tower was completed in 1889 for the World's Fair.",
    "Paris is the capital and most populous city of France.",
    "The tower is 330 metres tall, about the same height as an 81-storey building.",
    "Gustave Eiffel's company designed and built the tower between 1887 and 1889.",
    "It was the tallest man-made structure in the world until 1930.",
    "The top level's upper platform is 276 m above the ground.",
]
TITLES = ["Eiffel Tower", "Paris", "Eiffel Tower", "Eiffel Tower", "Eiffel Tower", "Eiffel Tower"]


def test_the_patch_gives_the_int8_form_of_the_shipped_model() -> None:
    spec = json.loads(PATCH.read_text())
    shipped = MODEL.read_bytes()
    assert spec["from_crc32"] == zlib.crc32(shipped)
    signed = crossenc.signed_weights(MODEL, PATCH)
    assert signed is not None and len(signed) == len(shipped) and signed.tobytes() != shipped
    assert zlib.crc32(signed) == spec["crc32"]


@pytest.mark.skipif(not crossenc.vnni(), reason="int8 weights are exact only with VNNI")
def test_on_a_vnni_cpu_the_int8_weights_score_as_the_shipped_ones() -> None:
    with crossenc.signed_file(MODEL, PATCH) as signed:
        assert signed is not None and signed.is_file()
        fast = crossenc.CrossEncoder(signed, VOCAB, signed=True)
    assert not signed.exists()  # removed once loaded: the session keeps what it read
    shipped = crossenc.CrossEncoder(MODEL, VOCAB)
    assert fast.score(QUESTION, TEXTS, TITLES) == shipped.score(QUESTION, TEXTS, TITLES)
    right, wrong = fast.score(QUESTION, TEXTS[:2], TITLES[:2])
    assert right == pytest.approx(4.1672, abs=1e-3) and wrong == pytest.approx(-5.5119, abs=1e-3)


def test_the_shipped_encoder_takes_the_int8_form_exactly_where_the_cpu_has_vnni() -> None:
    encoder = crossenc.shipped_encoder()
    assert encoder is not None
    assert encoder.signed == crossenc.vnni()


def test_a_patch_that_does_not_fit_is_not_used(tmp_path: Path) -> None:
    spec = json.loads(PATCH.read_text())
    other = tmp_path / "other.onnx"
    other.write_bytes(MODEL.read_bytes()[:-1] + b"\0")  # another model file: its checksum differs
    assert crossenc.signed_weights(other, PATCH) is None
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({**spec, "crc32": spec["crc32"] ^ 1}))  # the result is checked
    assert crossenc.signed_weights(MODEL, wrong) is None
    for text in ("not json", "[]", json.dumps({**spec, "ranges": [["a", "b", 128]]})):
        wrong.write_text(text)
        assert crossenc.signed_weights(MODEL, wrong) is None
    assert crossenc.signed_weights(MODEL, tmp_path / "missing.json") is None


@pytest.mark.parametrize(
    ("flags", "has"),
    [
        ("fpu sse2 avx2 avx512f avx512_vnni", True),
        ("fpu sse2 avx2 avx_vnni", True),
        ("fpu sse2 avx2 avx512f avx512bw", False),  # AVX-512 without VNNI saturates as AVX2
        ("", False),
    ],
)
def test_vnni_is_read_from_the_cpu_flags(tmp_path: Path, flags: str, has: bool) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: {flags}\n\n")
    assert crossenc.vnni(cpuinfo) is has
    assert crossenc.vnni(tmp_path / "none") is False  # not Linux: the shipped weights


def test_where_no_temporary_file_can_be_written_the_shipped_weights_load(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(crossenc.tempfile, "tempdir", str(tmp_path / "missing"))
    with crossenc.signed_file(MODEL, PATCH) as signed:
        assert signed is None
