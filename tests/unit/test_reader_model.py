"""The reader's shipped weights (issue 25): they load offline, are the ones the model card
describes (checksum), score known inputs as recorded, and the lexical head takes over, said by
`sleuth doctor`, when the cross-encoder's runtime is missing."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import pytest

from sleuth.app import doctor
from sleuth.pipeline import crossenc, reader
from sleuth.pipeline.asks import asks
from sleuth.pipeline.sentences import score, sentences
from sleuth.types import Passage, Source

SHIPPED = json.loads(resources.files("sleuth.pipeline").joinpath("reader.json").read_text())


def test_the_shipped_model_is_the_one_reader_json_was_trained_with() -> None:
    model = resources.files("sleuth.pipeline").joinpath(crossenc.MODEL).read_bytes()
    digest = hashlib.sha256(model).hexdigest()[:16]
    assert digest == SHIPPED["trained_on"]["cross_encoder_sha256"]
    assert list(SHIPPED["features"]) == list(reader.FEATURES)


def test_the_cross_encoder_scores_a_known_pair_as_recorded() -> None:
    encoder = crossenc.shipped_encoder()
    assert encoder is not None  # the reader extra is part of dev: the tests run the model
    right, wrong = encoder.score(
        "when was the eiffel tower completed",
        [
            "Construction of the tower was completed in 1889 for the World's Fair.",
            "Paris is the capital and most populous city of France.",
        ],
        ["Eiffel Tower", "Paris"],
    )
    assert right == pytest.approx(GOLDEN_RIGHT, abs=1e-3)
    assert wrong == pytest.approx(GOLDEN_WRONG, abs=1e-3)
    assert right > wrong


def test_the_wordpiece_tokenizer_splits_like_bert() -> None:
    tokens = crossenc.shipped_encoder()
    assert tokens is not None
    ids = tokens.tokens.encode("Café Müller's unbelievable 1889!")
    vocab = {i: w for w, i in tokens.tokens.ids.items()}
    assert [vocab[i] for i in ids] == BERT_PIECES


def test_without_the_runtime_the_lexical_head_reads_and_doctor_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(crossenc, "installed", lambda extra: False)
    crossenc.shipped_encoder.cache_clear()
    reader._load_shipped.cache_clear()
    try:
        active = reader.reader()
        assert active.name == "lexical" and active.encoder is None
        check, _ = doctor.reader()
        assert check.name == "lexical" and "reader extra" in check.detail
        text = "Construction of the tower was completed in 1889."
        passages = (Passage(text, 1.0, 0),)
        source = Source(1, "https://example.org/tower", "Eiffel Tower", 1.0, passages)
        wanted = asks("When was the Eiffel Tower completed?")
        ranked = score(sentences([source]), wanted)
        ((chance, _),) = active.read(ranked, wanted, [source])
        assert 0.0 < chance < 1.0
    finally:
        monkeypatch.undo()
        crossenc.shipped_encoder.cache_clear()
        reader._load_shipped.cache_clear()
    assert reader.reader().name == "cross-encoder"
    assert doctor.reader()[0].status == "ok"


def _sources() -> list[Source]:
    pages = [
        ("https://example.org/tower", "Eiffel Tower", TOWER_TEXT),
        ("https://example.org/paris", "Paris", PARIS_TEXT),
    ]
    return [
        Source(i, url, title, 1.0, (Passage(text, 1.0, 0),))
        for i, (url, title, text) in enumerate(pages, 1)
    ]


TOWER_TEXT = (
    "The Eiffel Tower is a lattice tower on the Champ de Mars. Construction of the tower was "
    "completed in 1889 for the World's Fair. It is named after Gustave Eiffel."
)
PARIS_TEXT = "Paris is the capital of France. The tower, finished in 1889, draws many visitors."


def test_a_quoted_lead_is_graded_with_the_probability_the_writer_read() -> None:
    """The grade reads a quoted lead among the sentences the writer read (the same batch),
    not alone: int8 scores depend on the batch, and `high` must not pass a lead the writer
    itself found below the answering threshold."""
    question = "When was the Eiffel Tower completed?"
    sources = _sources()
    wanted = asks(question)
    ranked = sorted(score(sentences(sources), wanted), key=lambda s: -s.value)
    active = reader.reader()
    for chance, item in active.read(ranked, wanted, sources):
        number = [item.cand.number]
        assert active.lead_chance(question, item.cand.text, number, sources) == chance


GOLDEN_RIGHT = 4.1672
GOLDEN_WRONG = -5.5119
BERT_PIECES = ["cafe", "muller", "'", "s", "unbelievable", "1889", "!"]
