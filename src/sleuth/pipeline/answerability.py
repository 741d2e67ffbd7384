"""Confidence is answerability, measured from the evidence (DESIGN §2, issue 10).

A supported citation only says a sentence is faithful to its page, not that the page answers
the question. So confidence is judged on the answer's lead claim — its first cited sentence —
read with the sentences around it in the cited passage:

* coverage: the share of the question's key terms (`asks.py`) in the lead claim and its
  context, in any form (`terms.py`: "eruption" says "erupted", "the United States" "us");
  the missing ones are named in the reasons;
* subject: the largest share of the key terms that a kept page's title names — a page about
  the question's subject rather than one that mentions its words; a title made only of the
  question's words ("Canada", asked the largest city in Canada) is about its subject;
* answer type: when the question asks for a date, number, duration, name, proper name ("which
  city") or place, whether the lead claim holds one beyond what the question says;
* read and supported: the lead comes from a read page (not a search snippet) and passed the
  citation check, and at least 90% of all cited sentences did;
* a chained question ("the film that was shot in …", "are X and Y both …", "in which state are
  X and Y") needs two facts;
* a yes/no question ("are X and Y located in Europe?") needs an answer that says yes or no
  and a cited lead sentence that states that verdict (`verdict.says`): "Yes." over a sentence
  that states none, or states the other, is no verdict read from the sources.

The evidence score is coverage + subject (0 to 2). The rule:
  low    — the answer says the sources do not contain the answer (the extractive writer's
           opening, a model's own words), nothing is cited, the lead claim is unsupported, the
           asked-for answer type is missing, or the evidence score is below 0.9;
  high   — evidence score at least 1.1, the lead read and supported, 90% of citations held,
           the question not chained, a yes/no question answered yes or no as its cited lead
           sentence states, a question asking what is now not led by what was, and the writer
           not asking for a missing fact;
  medium — everything else.
Citation support alone never makes an answer `high`. Other pages stating the same answer are
reported but do not change the grade: on 200 NQ and 92 unanswerable dev questions agreement
did not separate right answers from wrong ones (ROC AUC 0.54, against 0.86 for the score).
On those questions (seeds 1 and 2) the thresholds gave `high` to 48% of NQ answers, 92% of them
right, and to 4 of 92 unanswerable questions; below 0.9 the extractive writer says the sources
do not contain the answer (83% of unanswerable questions, 28% of NQ ones).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..types import Confidence, Source, Verification
from .asks import (
    FRAME_STEMS,
    Asks,
    adverb,
    asks,
    coverage,
    nearest_span,
    says_what_was,
    shape_spans,
)
from .cite import Claim, claims
from .reader import reader
from .sentences import about_subject
from .support import context_of
from .terms import slight, terms_said, written_as_name
from .verdict import says_in

ANSWERS_AT = 0.9  # evidence score below this: the sources do not answer
HIGH_AT = 1.1
SUPPORTED_SHARE = 0.9
YES_OR_NO = re.compile(r"\W*(yes|no)\b[\s,.:;!-]*", re.IGNORECASE)
# The sources-do-not-answer opening, in the extractive writer's words and a model's.
NOT_FOUND = re.compile(
    r"\b(?:sources?|pages?|passages?|documents?)\b[^.]{0,80}?\b(?:do|does|did)(?:n['’]t| not)\b"
    r"[^.]{0,60}?\b(?:contain|say|state|answer|mention|name|give|include|provide|specify)"
    r"|\b(?:no|none of the)\s+(?:\w+\s+){0,2}(?:sources?|pages?|passages?)\b[^.]{0,60}?"
    r"\b(?:contains?|says?|states?|answers?|mentions?|names?|gives?)\b"
    r"|\b(?:could not|couldn['’]t|cannot|can['’]t|unable to)\s+(?:find|determine)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Assessment:
    confidence: Confidence
    reasons: tuple[str, ...]  # the first one says why the grade is what it is


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a candidate answer sentence shows about the question."""

    coverage: float
    subject: float  # best share of key terms named by a kept page's title
    typed: bool | None  # the asked-for answer type is present (None: nothing asked)

    @property
    def score(self) -> float:
        return self.coverage + self.subject

    @property
    def answers(self) -> bool:
        return self.score >= ANSWERS_AT and self.typed is not False


def subject_cover(wanted: Asks, sources: Sequence[Source]) -> float:
    """How far a kept page is about the question's subject, by its title: the largest share of
    the key terms a title names, or 1 for a page whose title the question names whole ("Canada"
    asked the largest city in Canada, "Cadbury" asked how many countries Cadbury sells in)."""
    said = {s.number: coverage(wanted, terms_said(wanted, s.title)) for s in sources}
    return about_subject(sources, wanted, said)


def says_not_found(answer: str) -> bool:
    """The answer's opening sentence says the sources do not contain the answer."""
    opening = re.split(r"(?<=[.!?])\s+", answer.strip(), maxsplit=1)[0] if answer.strip() else ""
    return bool(NOT_FOUND.search(opening))


def page_texts(sources: Sequence[Source]) -> list[str]:
    """Each kept page's text (its read passages where the whole text was not kept): what
    `terms.slight` and `terms.written_as_name` read a word's usage from."""
    return [s.text or " ".join(p.text for p in s.passages) for s in sources]


def named(wanted: Asks, sources: Sequence[Source]) -> Asks:
    """`wanted`, with an "-ly" key term that the kept pages write as a name ("Italy",
    "Sicily", "Kelly") read as part of the question's subject, not as an adverb: a lower-case
    question does not say which it is ("what is the capital of italy")."""
    ly = {k for k in wanted.frame if k not in FRAME_STEMS and adverb(wanted.terms[k])}
    if not ly:
        return wanted
    texts = page_texts(sources)
    names = {k for k in ly if written_as_name(wanted.terms[k], texts)}
    return replace(wanted, frame=wanted.frame - names) if names else wanted


def missing_terms(
    wanted: Asks, found: frozenset[str] | set[str], sources: Sequence[Source] = ()
) -> list[str]:
    """The question's subject terms (its key terms but the frame words) not in `found`, what
    `terms.terms_said` finds a text says in any form; but not one too common to show that a
    passage is about something else, as the kept `sources` write it (`terms.slight`)."""
    absent = [word for key, word in wanted.subject.items() if key not in found]
    if not absent or not sources:
        return absent
    texts = page_texts(sources)
    return [word for word in absent if not slight(word, wanted, texts)]


def stated_gap(answer: str) -> str | None:
    """The first sentence of `answer` that says the sources lack something ("The sources do
    not state the year it opened."), wherever it stands; None when no sentence says so."""
    for line in answer.splitlines():
        for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
            if NOT_FOUND.search(sentence):
                return sentence.strip()
    return None


def absent_terms(wanted: Asks, sources: Sequence[Source]) -> list[str]:
    """The question's key terms, frame words included, that no kept page's title or passages
    mention: what a follow-up search can look for ("opened" when no page says when)."""
    seen: set[str] = set()
    for s in sources:
        seen |= terms_said(wanted, " ".join([s.title, *(p.text for p in s.passages)]))
    return [word for key, word in wanted.terms.items() if key not in seen]


def gap(wanted: Asks, sources: Sequence[Source]) -> str:
    """What the kept pages lack, in a few words: the reason a not-found answer gives. It names
    only the question's subject terms: a frame word no page says ("get" in "when do they get
    together", "originate") is a relation pages word their own way, not what is missing. With
    none missing, it names the kind of answer asked for, and says whether the kept passages
    give any at all: where they do ("£18" asked how much it costs to join) the reader judged
    that none answers, which is not the same as there being none."""
    subject = set(named(wanted, sources).subject.values())
    absent = [word for word in absent_terms(wanted, sources) if word in subject]
    return gap_of(wanted, absent, bool(absent) or _gives_shape(wanted, sources))


def _gives_shape(wanted: Asks, sources: Sequence[Source]) -> bool:
    """Some kept passage holds the asked-for answer shape (a date, a number, a name...)."""
    shape = wanted.shape
    return shape is not None and any(
        shape_spans(shape, p.text, wanted.question) for s in sources for p in s.passages
    )


def gap_of(wanted: Asks, absent: Sequence[str], shaped: bool = True) -> str:
    """`gap`, given the question's terms no kept page mentions and whether any kept passage
    holds the asked-for answer shape."""
    if absent:
        return "no kept page mentions " + _listed(absent)
    if wanted.kind and not shaped:
        return f"no kept passage gives {wanted.kind}"
    if wanted.kind:
        return f"none of the {_bare(wanted.kind)}s the kept passages give is judged to answer it"
    return "no kept passage answers it directly"


def assess(
    question: str,
    answer: str,
    sources: Sequence[Source],
    verification: Verification,
    missing: str | None = None,
) -> Assessment:
    """Grade an answer by whether its evidence answers `question` (the rule above)."""
    wanted = named(asks(question), sources)
    if says_not_found(answer):
        said = "the answer says the sources do not answer"
        return Assessment("low", (gap(wanted, sources), said))
    cited = claims(answer)
    by_number = {s.number: s for s in sources}
    lead = cited[0] if cited else None
    own = [by_number[n] for n in lead.numbers if n in by_number] if lead else []
    if lead is None or not own:
        return Assessment("low", ("no sentence cites a source",))
    found = terms_said(
        wanted,
        " ".join([lead.sentence, *(f"{s.title} {context_of(lead.sentence, s)}" for s in own)]),
    )
    evidence = _evidence(wanted, lead, found, sources)
    chance = reader().lead_chance(question, lead.sentence, lead.numbers, sources)
    checks = _Checks(lead, own, verification, missing, answer, chance)
    absent = missing_terms(wanted, found, sources)
    grade = _grade(wanted, evidence, checks, absent)
    against, for_it = _reasons(wanted, evidence, checks, absent, sources)
    return Assessment(grade, tuple(for_it + against if grade == "high" else against + for_it))


def _evidence(wanted: Asks, lead: Claim, found: set[str], sources: Sequence[Source]) -> Evidence:
    typed = None
    if wanted.shape is not None:
        typed = bool(shape_spans(wanted.shape, lead.sentence, wanted.question))
    return Evidence(coverage(wanted, found), subject_cover(wanted, sources), typed)


@dataclass(frozen=True, slots=True)
class _Checks:
    lead: Claim
    own: Sequence[Source]  # the sources the lead claim cites
    verification: Verification
    missing: str | None
    answer: str
    chance: float  # the reader's probability that the lead claim answers the question

    @property
    def lead_supported(self) -> bool:
        return self.lead.sentence not in {u.sentence for u in self.verification.unsupported}

    @property
    def share(self) -> float:
        v = self.verification
        if not v.enabled:
            return 1.0
        return v.supported / v.checked if v.checked else 0.0

    def says_yes_no(self, wanted: Asks) -> bool:
        """The answer opens with yes or no ("No. X is not in Europe [1]."), or its lead does,
        and the lead sentence, read without that word, states the same verdict."""
        opened = YES_OR_NO.match(self.answer) or YES_OR_NO.match(self.lead.sentence)
        if opened is None:
            return False
        sentence = YES_OR_NO.sub("", self.lead.sentence, count=1)
        return says_in(sentence, wanted, self.own) == opened.group(1).lower()

    def says_what_was(self, wanted: Asks) -> bool:
        """The question asks what is now and the lead says what was before (`asks.says_what_was`:
        "Melbourne was the initial capital" for "what is the capital of australia")."""
        return says_what_was(wanted, self.lead.sentence)

    @property
    def read(self) -> bool:
        return all(not s.snippet for s in self.own)


def _grade(wanted: Asks, evidence: Evidence, checks: _Checks, absent: list[str]) -> Confidence:
    if not evidence.answers or not checks.lead_supported:
        return "low"
    if (
        evidence.score >= HIGH_AT
        and checks.chance >= reader().answers_at
        and checks.read
        and checks.share >= SUPPORTED_SHARE
        and not wanted.chained
        and (not wanted.yes_no or checks.says_yes_no(wanted))
        and not checks.says_what_was(wanted)
        and not checks.missing
        and not absent
    ):
        return "high"
    return "medium"


def _reasons(
    wanted: Asks, evidence: Evidence, checks: _Checks, absent: list[str], sources: Sequence[Source]
) -> tuple[list[str], list[str]]:
    """Every finding: those against the answer, and those for it."""
    against: list[str] = []
    for_it: list[str] = []
    if evidence.typed is False:
        against.append(f"the lead claim gives no {_bare(wanted.kind)}; the question asks for one")
    elif evidence.typed:
        named = nearest_span(wanted, checks.lead.sentence) or _spans(wanted, checks)[0]
        for_it.append(f"the lead claim gives {wanted.kind}: {named}")
    if absent:
        against.insert(0, "the cited passage does not mention " + _listed(absent))
    else:
        for_it.append("the cited passage covers the question's key terms")
    against += _check_reasons(wanted, checks)
    if evidence.subject < 0.5:
        against.append("no kept page is about the question's subject (by its title)")
    for_it.append(_agreement(checks, sources, wanted))
    return against, for_it


def _check_reasons(wanted: Asks, checks: _Checks) -> list[str]:
    out = []
    if not checks.lead_supported:
        out.append("the lead claim is not supported by its source")
    if checks.share < SUPPORTED_SHARE:
        v = checks.verification
        out.append(f"only {v.supported} of {v.checked} cited sentences are supported")
    if not checks.read:
        out.append("the lead claim rests on a search snippet, not a read page")
    if wanted.chained:
        out.append("the question chains two facts; one cited passage rarely holds both")
    if wanted.yes_no and not checks.says_yes_no(wanted):
        out.append("the question asks yes or no; the lead claim states no verdict the answer gives")
    if checks.says_what_was(wanted):
        out.append("the lead claim says what was before; the question asks what is now")
    if checks.missing:
        out.append(f"the writer says a fact is missing: {checks.missing}")
    return out


def _agreement(checks: _Checks, sources: Sequence[Source], wanted: Asks) -> str:
    """Other kept pages (different URLs) stating the lead's answer-shaped words."""
    spans = [s.lower() for s in _spans(wanted, checks)]
    cited = {s.url for s in checks.own}
    agree = sum(
        1
        for s in sources
        if spans
        and s.url not in cited
        and any(span in p.text.lower() for p in s.passages for span in spans)
    )
    if agree == 0:
        return "no other kept page states the same answer"
    return f"{agree} other kept page{'s' if agree > 1 else ''} state{'' if agree > 1 else 's'} it"


def _spans(wanted: Asks, checks: _Checks) -> list[str]:
    if wanted.shape is None:
        return []
    return shape_spans(wanted.shape, checks.lead.sentence, wanted.question)


def _listed(words: Sequence[str]) -> str:
    shown = [f"'{w}'" for w in words[:4]]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _bare(kind: str | None) -> str:
    return (kind or "answer").removeprefix("a ").removeprefix("an ")
