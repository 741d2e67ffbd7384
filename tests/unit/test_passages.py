from sleuth.passages import bm25_scores, split_passages
from sleuth.text import split_sentences


def test_passages_keep_offsets_and_word_bounds() -> None:
    paragraphs = [" ".join(f"w{i}_{j}" for j in range(40)) + "." for i in range(12)]
    text = "\n\n".join(paragraphs)
    chunks = split_passages(text)
    assert all(text[c.start : c.start + len(c.text)] == c.text for c in chunks)
    assert all(c.n_words <= 200 for c in chunks)
    assert all(c.n_words >= 60 for c in chunks[:-1])


def test_long_paragraph_splits_on_sentences() -> None:
    sentence = "This is a sentence with exactly twelve words in it for testing. "
    text = sentence * 40
    chunks = split_passages(text)
    assert len(chunks) >= 2
    assert all(c.text.endswith(".") for c in chunks)
    assert all(text[c.start : c.start + len(c.text)] == c.text for c in chunks)


def test_bm25_prefers_matching_text() -> None:
    scores = bm25_scores(
        "asyncio event loop", ["The asyncio event loop runs coroutines.", "Bananas are yellow.", ""]
    )
    assert scores[0] > 0 and scores[1] == 0 and scores[2] == 0


def test_bm25_with_no_content_words_is_all_zero() -> None:
    assert bm25_scores("what is the", ["anything"]) == [0.0]


def test_sentence_split_respects_abbreviations() -> None:
    sentences = [
        s for _, s in split_sentences("Dr. Smith went home. He slept e.g. at 9 p.m. Then he woke.")
    ]
    assert sentences[0] == "Dr. Smith went home."
