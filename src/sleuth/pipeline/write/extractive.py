"""The built-in extractive writer: an answer made only of sentences the sources contain.

It takes the best-scored sentences of the kept passages (see `sentences.py`), drops
near-repeats, and writes them with their source number. Every sentence is copied from the source
it cites, so its citations are supported by construction — it cannot invent a claim.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence

from ...ports import WriteTask
from ...text import clip
from ...types import Source
from .sentences import Candidate, score, sentences

NOTICE = (
    "no LLM configured: extractive answer from the sources "
    "(set SLEUTH_BASE_URL, OPENAI_API_KEY or ANTHROPIC_API_KEY for a written one)"
)
REPEAT_JACCARD = 0.6
MIN_SCORE = 0.05


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def select(sources: Sequence[Source], question: str, limit: int) -> list[Candidate]:
    """Best-supported sentences, no near-repeats; the best first, the rest in reading order."""
    cands = sentences(sources)
    ranked = sorted(zip(score(cands, question), cands, strict=True), key=lambda x: -x[0])
    picked: list[Candidate] = []
    for value, cand in ranked:
        if len(picked) >= limit or value <= MIN_SCORE:
            break
        if any(_jaccard(cand.tokens, p.tokens) >= REPEAT_JACCARD for p in picked):
            continue
        picked.append(cand)
    if not picked and cands:  # nothing matched the question: still say what the sources say
        picked = [cands[0]]
    head, rest = picked[:1], sorted(picked[1:], key=lambda c: (c.number, c.offset))
    return head + rest


def cite_sentence(c: Candidate) -> str:
    match = re.search(r"([.!?][\"'”’)]*)$", c.text)
    if match:
        return f"{c.text[: match.start()]} [{c.number}]{match.group(1)}"
    return f"{c.text} [{c.number}]."


def paragraphs(chosen: Sequence[Candidate]) -> str:
    """The lead sentence alone, then one paragraph per source, so the answer reads in order."""
    if not chosen:
        return ""
    blocks = [cite_sentence(chosen[0])]
    current = -1
    for cand in chosen[1:]:
        if cand.number != current:
            blocks.append("")
            current = cand.number
        blocks[-1] = (blocks[-1] + " " + cite_sentence(cand)).strip()
    return "\n\n".join(blocks)


def fallback(task: WriteTask) -> str:
    """No whole sentence to quote (snippet fragments, tables): quote the best passage itself."""
    for source in task.sources:
        for passage in source.passages:
            text = " ".join(passage.text.split())
            if text:
                return f"{clip(text, 300)} [{source.number}]"
    return ""


class ExtractiveWriter:
    """Writer with no model: quotes the best-supported sentences, each cited."""

    name = "extractive"
    notice = NOTICE

    def __init__(self, sentences: int = 5) -> None:
        self.sentences = sentences

    async def write(self, task: WriteTask) -> AsyncIterator[str]:
        if task.tldr:
            lead = select(task.sources, task.question, 2)
            yield "**TL;DR:** " + " ".join(cite_sentence(c) for c in lead) + "\n\n"
        if task.output == "report":
            for chunk in self._report(task):
                yield chunk
            return
        yield paragraphs(select(task.sources, task.question, self.sentences)) or fallback(task)

    def _report(self, task: WriteTask) -> list[str]:
        """An overview, then one section per aspect (sub-query) or, without aspects, per source."""
        overview = select(task.sources, task.question, 3)
        parts = ["## Overview\n\n" + (paragraphs(overview) or fallback(task)) + "\n"]
        used = {c.text for c in overview}
        sections: list[tuple[str, list[Source]]] = (
            [(aspect, list(task.sources)) for aspect in task.aspects]
            if task.aspects
            else [(s.title.strip() or s.url, [s]) for s in task.sources]
        )
        for heading, sources in sections:
            query = heading if task.aspects else task.question
            own = [c for c in select(sources, query, 3) if c.text not in used]
            used.update(c.text for c in own)
            if own:
                parts.append(f"\n## {heading[:1].upper()}{heading[1:]}\n\n{paragraphs(own)}\n")
        return parts
