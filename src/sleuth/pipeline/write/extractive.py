"""The built-in extractive writer: an answer made only of sentences the sources contain.

It leads with the answer: of the kept passages' sentences (`sentences.py` scores them by word
overlap), the one the reader (`reader.py`) puts first (its ranker's pick; the reader weighs
the asked-for answer shape itself), unless it says what was where the question asks what is
(`now_first`), or does not say the relation a "who" question asks about where another it
takes to answer does (`relation_first`); then the other sentences the reader takes to bear on the
question (at least a tenth of the likeliest one's probability), near-repeats dropped, in
reading order. Over the user's own files, with the `embed` extra, e5-small's nearest sentence
leads instead, and the files answer when its similarity reaches the threshold or the reader
answers with that same lead (`files.py`, `nearest_first`).
When the reader decides the sources do not answer (`Reader.answered`; a yes/no question: the
likeliest sentence is under `answers_at`), or the question asks for a date, a number or a
duration and no sentence holds one, or asks "who" and the lead names no one the question does
not (`asks.names_someone`), it says so in its first sentence, then gives at most four
sentences the sources do say that name a third of the question's key terms and that the
reader rates under half that threshold — so a "not found" opener is not followed by a
sentence the reader took for the answer. Every other sentence is copied from the source it
cites, so its citations are supported by construction: it cannot invent a claim.

A yes/no question is answered "Yes.", "No." or "Unclear: the sources hedge." when a sentence
states its verdict (`verdict.py`): the answer opens with that word, then leads with the
sentence the verdict is read from, cited. When none states one, it says what it says today.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from ...ports import WriteTask
from ...text import clip
from ...types import Source
from ..answerability import gap
from ..asks import Asks, asks, names_someone, relation, says_relation, says_what_was
from ..files import READ as READ_NEAREST
from ..files import available as files_available
from ..files import nearest, own_files
from ..reader import reader
from ..sentences import (
    Candidate,
    Scored,
    about_subject,
    jaccard,
    score,
    sentences,
    title_cover,
)
from ..terms import terms_said
from ..verdict import Said, Verdict, verdict

NOTICE = (
    "no LLM configured: extractive answer from the sources "
    "(set SLEUTH_BASE_URL, OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY for a written "
    "one)"
)
REPEAT_JACCARD = 0.6
BEARING = 0.1  # a sentence the reader rates under a tenth of the lead does not bear on it
RELATED_COVERAGE = 0.34  # a not-found answer quotes sentences naming a third of the key terms
RELATED_SENTENCES = 4
UNSURE = 0.5  # ...and only those the reader rates under half of its answering threshold
RELATION_SHARE = 0.5  # a lead saying the relation asked wins from half the likeliest's chance
SURE_KINDS = ("a date", "a number", "a duration")  # shapes a sentence cannot answer without
OPENERS: dict[Said, str] = {"yes": "Yes.", "no": "No.", "unsettled": "Unclear: the sources hedge."}


@dataclass(frozen=True, slots=True)
class Composition:
    """The sentences an answer is made of, and whether the lead answers the question."""

    answered: bool
    chosen: list[Candidate]  # the lead first, then the rest in reading order
    opening: str = ""  # the sources-do-not-contain-it sentence, when not answered
    said: Said | None = None  # a yes/no question's verdict, read from the lead sentence


def compose(sources: Sequence[Source], question: str, limit: int) -> Composition:
    wanted = asks(question)
    titles = title_cover(sources, wanted)
    ranked = sorted(score(sentences(sources), wanted), key=lambda s: -s.value)
    if not ranked:  # no whole sentence at all (snippet fragments): nothing to judge
        return Composition(False, [])
    model = reader()
    read = now_first(model.read(ranked, wanted, sources), wanted, model.answers_at)
    read = relation_first(read, wanted, model.answers_at)
    found = verdict(read, wanted, sources)
    if found is not None:
        return _stated(read, found, limit)
    answered = answers(read, wanted, about_subject(sources, wanted, titles))
    near = nearest_first(question, ranked, read, wanted, sources, answered)
    if near is not None:
        read, answered = near
    lead = read[0][1]
    if answered:
        floor = BEARING * likeliest(read)
        bearing = [s for p, s in read[1:] if p >= floor]
        picked = [lead.cand, *_distinct(bearing, limit - 1, [lead.cand])]
        rest = sorted(picked[1:], key=lambda c: (c.number, c.offset))
        return Composition(True, picked[:1] + rest)
    unsure = UNSURE * model.answers_at
    related = [s for p, s in read if s.coverage >= RELATED_COVERAGE and p < unsure]
    chosen = _distinct(related, RELATED_SENTENCES)
    return Composition(False, chosen, not_found(wanted, sources))


def now_first(
    read: list[tuple[float, Scored]], wanted: Asks, at: float
) -> list[tuple[float, Scored]]:
    """A question asking what is now is not led by a sentence saying what was before
    (`asks.says_what_was`: "Melbourne was the initial capital" for "what is the capital of
    Australia"). Another sentence the reader takes to answer (at least `at`) leads instead,
    the former one after it: the likeliest on the same page, which tells what the thing became
    ("In 1927 … moved to … Canberra"), else the likeliest of all. With none, the order
    stands."""
    if not read or not says_what_was(wanted, read[0][1].cand.text):
        return read
    page = read[0][1].cand.number
    others = [
        i
        for i, (chance, item) in enumerate(read[1:], 1)
        if chance >= at and not says_what_was(wanted, item.cand.text)
    ]
    if not others:
        return read
    i = next((i for i in others if read[i][1].cand.number == page), others[0])
    return [read[i], *read[:i], *read[i + 1 :]]


def relation_first(
    read: list[tuple[float, Scored]], wanted: Asks, at: float
) -> list[tuple[float, Scored]]:
    """A "who" question names the relation it asks about (`asks.relation`: "who produced A
    Change Is Gonna Come"). A lead that does not say it, in any form ('"A Change Is Gonna
    Come" is a song by … Sam Cooke'), gives way to the likeliest sentence that does and names
    someone ("Produced by Hugo & Luigi, …"), if the reader takes that one to answer too: at
    least `at`, and at least RELATION_SHARE of the lead's probability. The former lead
    follows it. With none, the order stands. A work's "by" phrase says who wrote, painted,
    composed, directed or sang it ("a novel by Jane Austen": `asks.says_relation`)."""

    def says(text: str) -> bool:
        return says_relation(wanted, text, terms_said(wanted, text))

    if relation(wanted) is None or not read or says(read[0][1].cand.text):
        return read
    floor = max(at, RELATION_SHARE * read[0][0])
    for i, (chance, item) in enumerate(read[1:], 1):
        text = item.cand.text
        if chance >= floor and says(text) and names_someone(wanted, text):
            return [read[i], *read[:i], *read[i + 1 :]]
    return read


def nearest_first(
    question: str,
    ranked: Sequence[Scored],
    read: list[tuple[float, Scored]],
    wanted: Asks,
    sources: Sequence[Source],
    read_answers: bool,
) -> tuple[list[tuple[float, Scored]], bool] | None:
    """Over the user's own files, with the `embed` extra (`files.py`): the sentence e5-small
    finds nearest the question, of the best by word overlap, leads. The files answer when its
    similarity reaches the threshold, or when the reader (`read_answers`) takes them to answer
    with that same sentence as its lead: two models pointing at one sentence (a one-line note
    answering in few words falls under the threshold alone). A "who" lead must still name
    someone, a date be given. None elsewhere, and for a yes/no question: the reader decides."""
    if wanted.yes_no or not own_files(sources):
        return None
    top = ranked[:READ_NEAREST]
    found = nearest(question, [s.cand.text for s in top])
    if found is None:
        return None
    i = next(i for i, (_, s) in enumerate(read) if s is top[found.index])
    ordered = [read[i], *read[:i], *read[i + 1 :]]
    agreed = read_answers and i == 0
    return ordered, (found.answers or agreed) and given(ordered, wanted)


def off_loop(sources: Sequence[Source]) -> bool:
    """Whether to compose in a worker thread: over the user's own files with e5-small, whose
    150-200 ms a run (`files.py`) would hold a server's other runs. Runs over web pages compose
    on the event loop. Decided without loading the model."""
    return own_files(sources) and files_available()


def answers(read: Sequence[tuple[float, Scored]], wanted: Asks, subject: float) -> bool:
    """Whether the sources answer. A yes/no question keeps the likeliest sentence's threshold:
    the run decision was fitted on questions asking for a fact, and on PubMedQA it declined
    questions whose verdict the threshold let through."""
    model = reader()
    if wanted.yes_no:
        return likeliest(read) >= model.answers_at
    return given(read, wanted) and model.answered(read, subject)


def likeliest(read: Sequence[tuple[float, Scored]]) -> float:
    """The probability of the likeliest sentence read: the reader's lead need not be it."""
    return max(p for p, _ in read)


def given(read: Sequence[tuple[float, Scored]], wanted: Asks) -> bool:
    """Some sentence holds the asked-for date, number or duration, and a "who" lead names
    someone. The name and place patterns miss one-word names ("Cher") and places said
    without a preposition, so a sentence may answer without matching them; but a lead that
    names no one outside the question cannot say who ("Who founded Example Cloud?" over a
    page on its audit logs)."""
    if wanted.kind == "a name":
        return names_someone(wanted, read[0][1].cand.text)
    if wanted.kind not in SURE_KINDS:
        return True
    return any(s.typed is not False for _, s in read)


def _stated(read: Sequence[tuple[float, Scored]], found: Verdict, limit: int) -> Composition:
    """A yes/no answer: the sentence stating the verdict, then the others that bear on the
    question (a tenth of the likeliest sentence's probability), in reading order."""
    lead = found.sentence.cand
    floor = BEARING * likeliest(read)
    bearing = [s for p, s in read if s.cand is not lead and p >= floor]
    rest = sorted(_distinct(bearing, limit - 1, [lead]), key=lambda c: (c.number, c.offset))
    return Composition(True, [lead, *rest], said=found.said)


def _distinct(
    ranked: Sequence[Scored], limit: int, taken: Sequence[Candidate] = ()
) -> list[Candidate]:
    picked: list[Candidate] = []
    for item in ranked:
        if len(picked) >= limit:
            break
        if not any(
            jaccard(item.cand.tokens, p.tokens) >= REPEAT_JACCARD for p in (*taken, *picked)
        ):
            picked.append(item.cand)
    return picked


def not_found(wanted: Asks, sources: Sequence[Source]) -> str:
    return f"The sources found do not contain the answer to this question: {gap(wanted, sources)}."


def cite_sentence(c: Candidate) -> str:
    text = balanced(c.text)
    match = re.search(r"([.!?][\"'”’)]*)$", text)
    if match:
        return f"{text[: match.start()]} [{c.number}]{match.group(1)}"
    return f"{text} [{c.number}]."


def balanced(text: str) -> str:
    """A sentence without the stray quote mark of a quotation that spans sentences (`"It was
    cold.` and `thirteen," he wrote.` of `"It was cold. The clocks struck thirteen," he
    wrote.`): an answer never shows half a quotation."""
    if text.count("“") > text.count("”"):
        at = text.rindex("“")
        text = text[:at] + text[at + 1 :]
    elif text.count("”") > text.count("“"):
        at = text.index("”")
        text = text[:at] + text[at + 1 :]
    if text.count('"') % 2:
        first, last = text.index('"'), text.rindex('"')
        before = text[first - 1] if first > 0 else " "
        if not (before.isspace() or before.isdigit() or before in "(["):  # 5" is inches
            text = text[:first] + text[first + 1 :]  # closes a quotation opened before
        elif last + 1 < len(text) and not text[last + 1].isspace():
            text = text[:last] + text[last + 1 :]  # opens one that ends after
    return text.strip()


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


def render(composition: Composition) -> str:
    if composition.said is not None:
        return f"{OPENERS[composition.said]} {paragraphs(composition.chosen)}"
    if composition.answered:
        return paragraphs(composition.chosen)
    body = "\n\n".join(cite_sentence(c) for c in composition.chosen)
    return composition.opening + ("\n\n" + body if body else "")


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
        threaded = off_loop(task.sources)
        if task.output == "report":
            chunks = await asyncio.to_thread(self._report, task) if threaded else self._report(task)
            for chunk in chunks:
                yield chunk
            return
        args = (task.sources, task.question, self.sentences)
        composition = await asyncio.to_thread(compose, *args) if threaded else compose(*args)
        if not composition.chosen and not composition.opening:
            yield fallback(task)  # no whole sentence: quote the best passage, graded low
            return
        if task.tldr and composition.answered:
            lead = [cite_sentence(c) for c in composition.chosen[:2]]
            if composition.said is not None:
                lead.insert(0, OPENERS[composition.said])
            yield "**TL;DR:** " + " ".join(lead) + "\n\n"
        yield render(composition)

    def _report(self, task: WriteTask) -> list[str]:
        """An overview, then one section per aspect of the question (the plan's sub-queries);
        without aspects, one section of what else the sources say that bears on the question.
        A section is never named after a page, and one with no sentence the reader takes to
        bear on its aspect is left out rather than filled with whatever the pages say."""
        overview = compose(task.sources, task.question, 3)
        parts = ["## Overview\n\n" + (render(overview) or fallback(task)) + "\n"]
        used = {c.text for c in overview.chosen}
        sections = [(a, a) for a in task.aspects] or [("More from the sources", task.question)]
        for heading, query in sections:
            found = compose(task.sources, query, 3 + len(used))
            own = [c for c in found.chosen if c.text not in used][:3] if found.answered else []
            used.update(c.text for c in own)
            if own:
                parts.append(f"\n## {heading[:1].upper()}{heading[1:]}\n\n{paragraphs(own)}\n")
        return parts
