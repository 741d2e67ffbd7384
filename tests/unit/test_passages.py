from sleuth.text import split_sentences
from sleuth.text.passages import bm25_scores, split_passages


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


def test_an_abbreviation_in_brackets_or_a_reference_does_not_end_a_sentence() -> None:
    # Each of these used to be cut in two, and the fragment "...Generation (U.S." quoted as a
    # sentence of the extractive answer.
    text = (
        "So You Think You Can Dance: The Next Generation (U.S. TV series) is a dance show. "
        "Henry VIII (r. 1509–1547) was king. It is covered in Vol. 2 of the history. "
        "The ship sank on 15 Apr. 1912 near Newfoundland."
    )
    assert [s for _, s in split_sentences(text)] == [
        "So You Think You Can Dance: The Next Generation (U.S. TV series) is a dance show.",
        "Henry VIII (r. 1509–1547) was king.",
        "It is covered in Vol. 2 of the history.",
        "The ship sank on 15 Apr. 1912 near Newfoundland.",
    ]


def test_prompt_drops_lowest_scored_passages_whole_to_fit() -> None:
    from sleuth.pipeline.write.llm import format_sources
    from sleuth.types import Passage, Source

    def src(n: int, scores: list[float]) -> Source:
        passages = tuple(
            Passage(f"Passage {n}-{i} " + "word " * 40, s, 0) for i, s in enumerate(scores)
        )
        return Source(n, f"https://s{n}.example/", f"S{n}", scores[0], passages)

    sources = [src(1, [9.0, 1.0, 0.5]), src(2, [8.0, 7.0])]
    full = format_sources(sources, 100_000)
    assert "Passage 1-2" in full and "Passage 1-1" in full
    tight = format_sources(sources, len(full) - 100)
    assert "Passage 1-2" not in tight and "Passage 1-1" in tight and "Passage 2-1" in tight
    tiny = format_sources(sources, 10)
    assert "Passage 1-0" in tiny and "Passage 2-0" in tiny  # each source keeps its best
    assert all(p.count("word") % 40 == 0 for p in tiny.split("<source")[1:])  # never mid-passage


def test_only_the_first_lines_of_a_page_are_split() -> None:
    """A page of 550,000 one-word paragraphs: splitting stops at MAX_LINES, so its cost is
    bounded, and offsets of what is kept still point into the text."""
    from sleuth.text.passages import MAX_LINES

    text = "\n".join(f"w{i}" for i in range(MAX_LINES * 3))
    chunks = split_passages(text)
    last_line_kept = text.index(f"\nw{MAX_LINES}\n")
    assert chunks and all(c.start < last_line_kept for c in chunks)
    assert all(text[c.start : c.start + len(c.text)] == c.text for c in chunks)
    assert sum(c.n_words for c in chunks) == MAX_LINES


def test_word_counts_of_merged_passages_are_exact() -> None:
    text = "\n\n".join(f"short paragraph number {i} here" for i in range(100))
    for chunk in split_passages(text):
        assert chunk.n_words == len(chunk.text.split())
