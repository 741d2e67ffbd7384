"""The verdict a yes/no question's evidence states: yes, no, or that it is not settled (issue 25).

A quoted sentence never says "yes" or "no" itself; it states a finding, and the finding's
polarity is the verdict. It is read from one sentence, and only from a sentence that states a
finding about the question, never guessed (a "yes" because yes is common):

* it stands on a page about the question: one naming at least half of the question's key
  terms and nearly as many as the page naming most; its own clause names one of the terms
  that say what the question is about (not only a frame word such as "located");
* the question asks one thing: "are X and Y both ..." needs two facts, which one sentence
  rarely holds, so it gets no verdict;
* it states a finding, not what a study set out to do or how ("to determine whether", "were
  compared", "we examined");
* no: a negation scoped over a clause that names a question term — "was not associated with",
  "no significant difference in", "did not improve", "failed to". A negation in another clause
  ("..., although it did not change sleep") is about another predicate and says nothing;
* not settled: that clause hedges — "may", "unclear", "remains controversial", "further
  studies are needed";
* yes: that clause affirms a finding — a comparison, a change, an association, a significant
  result — or the sentence names every term of the question's subject and affirms them;
* a question that is itself negated ("X does not affect Y?") turns a "no" into a "yes" and back,
  and one asking sameness ("as effective as", "an alternative to") is affirmed by a difference
  found absent.

Of the sentences that state one, the verdict is the one the reader (`reader.py`) rates likeliest
to answer the question; the answer opens with it and cites the sentence it is read from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..types import Source
from .asks import Asks, coverage
from .sentences import Scored, stems

Said = Literal["yes", "no", "unsettled"]

STANDING = 0.5  # a page about the question names half its key terms...
CLOSE = 0.15  # ...and nearly as many as the page naming most
CLAUSE = re.compile(
    r"\s*;\s*|\s*:\s+|,?\s+\b(?:but|whereas|while|although|though|however|except|yet)\b,?\s+",
    re.I,
)
NEGATION = re.compile(
    r"\b(?:not|never|neither|nor|none|cannot|failed to|fails? to|unable to|no longer)\b|n['’]t\b"
    r"|\bno\s+(?:\w+\s+){0,3}?(?:difference|effect|association|correlation|relationship|change|"
    r"improvement|benefit|increase|decrease|reduction|impact|influence|evidence|advantage|role|"
    r"link|relation|risk|impairment|alteration|sign|signs|case|cases|patient|patients|value|"
    r"predictor|factor|difference|concern|problem|complication|gain|superiority)s?\b"
    r"|\bno\s+(?:\w+\s+){0,4}?(?:was|were) (?:found|identified|observed|detected|seen|noted)\b"
    r"|\b(?:non-?significant|insignificant|unaffected|unchanged|unrelated|independent of|"
    r"did not differ|similar (?:in|between|among|to)|comparable)\b"
    r"|\bp\s*(?:>|=|≥)\s*0?\.(?:0[5-9]|[1-9])",  # not significant at the usual 5% level
    re.I,
)
# A difference found absent: what a question asking for sameness affirms.
NO_DIFFERENCE = re.compile(
    r"\bno\s+(?:\w+\s+){0,3}?differences?\b|\bdid not differ|\bnot (?:significantly )?"
    r"differ|\b(?:similar|comparable|equivalent)\b",
    re.I,
)
# A difference found: what a question asking for sameness is denied by.
DIFFERENCE = re.compile(r"\b(?:differ(?:s|ed)?|differences?|different)\b", re.I)
# A question asking whether two things are alike ("as effective as", "an alternative to").
SAMENESS = re.compile(
    r"\bas \w+ as\b|\b(?:same|similar|equivalent|comparable|alternative|substitute|replace|"
    r"equally)\b",
    re.I,
)
# An epistemic hedge on the finding itself. Words that also name things ("mixed episodes",
# "uncertain LOC", "increased only marginally") are hedges only in a hedging phrase.
HEDGE = re.compile(
    r"\b(?:may|might|unclear|inconclusive|controvers(?:y|ial)|remains? to be|"
    r"further (?:studies|research|investigation|trials?)|not (?:clear|conclusive|known)|"
    r"(?:is|are|was|were|remains?) (?:still )?uncertain|"
    r"trend(?:ed)? (?:toward|towards)|tended to|(?:borderline|marginal(?:ly)?) signific\w*|"
    r"conflicting)\b",
    re.I,
)
FINDING = re.compile(
    r"\b(?:significant(?:ly)?|associated|correlated?|correlation|related|predict(?:s|ed|ive|or)?|"
    r"increas\w*|decreas\w*|reduc\w*|improv\w*|higher|lower|greater|fewer|more|less|better|"
    r"worse|longer|shorter|superior|inferior|effective|efficacious|beneficial|caused?|"
    r"resulted in|led to|showed|demonstrated|confirmed)\b|\bp\s*[<=≤]\s*0?\.\d",
    re.I,
)
# What a study set out to do or how, not what it found.
UNSTATED = re.compile(
    r"\b(?:whether|to (?:determine|assess|evaluate|investigate|examine|compare|test|study|"
    r"explore|identify|analy[sz]e|describe|establish|clarify|measure)|we (?:aimed|sought|"
    r"hypothesi[sz]ed|examined|studied|investigated|compared|analy[sz]ed|reviewed|evaluated|"
    r"assessed|measured)|(?:aim|objective|purpose|goal|hypothesis) (?:of|was|is)|"
    r"(?:was|were) (?:compared|assessed|measured|recorded|analy[sz]ed|evaluated|reviewed|"
    r"collected|obtained|randomi[sz]ed|divided|enrolled|included))\b|\?",
    re.I,
)
# A background claim is what others held, not what this evidence found.
UNSTATED_BACKGROUND = re.compile(
    r"\b(?:ha(?:s|ve) been (?:\w+ )?(?:shown|recommended|reported|suggested|proposed|"
    r"advocated|described|considered|associated|used)|(?:is|are) (?:generally|widely|commonly|"
    r"often|usually) (?:believed|thought|accepted|assumed|considered)|(?:is|are|remains?) "
    r"(?:not |poorly |well )?(?:established|known|understood))\b",
    re.I,
)
# A heading that opens a section of a page ("RESULTS:", "## Conclusions"): what the sentences
# under it are. Under a background, aim or methods heading a sentence states no finding.
HEADING = re.compile(r"^(?:#{1,6}\s*)?(?P<label>[A-Za-z][A-Za-z ]{2,40}?)(?::\s|\s*$)", re.M)
NOT_FINDINGS = re.compile(
    r"\b(?:background|introduction|context|rationale|objectives?|aims?|purpose|goals?|"
    r"hypothes[ie]s|methods?|methodology|design|setting|participants|patients|subjects|"
    r"materials|measures|measurements|interventions?|procedures?)\b",
    re.I,
)
# A concessive opening clause: what the sentence grants before it states its finding.
CONCESSIVE = re.compile(
    r"^\s*(?:although|though|while|whereas|despite|in spite of)\b[^,;]*,\s*", re.I
)
# A clause whose subject is the finding the clause before it stated ("..., but this
# relationship was not significant"), not another thing ("..., although it did not change
# sleep").
ANAPHOR = re.compile(
    r"\s*(?:(?:this|these|that|those|such|the|which) (?:relation\w*|associations?|differences?|"
    r"effects?|correlations?|findings?|trends?|increases?|decreases?|reductions?|"
    r"improvements?|benefits?|advantages?)\b"
    r"|(?:this|it|which) (?:was|were|is) not (?:statistically )?significant)",
    re.I,
)
# A harm (complications, side effects, recurrence, deaths): found absent, it affirms that a
# treatment is safe, feasible or works, unless the question asks about that harm itself.
HARM = re.compile(
    r"\b(?:complications?|adverse|side[- ]effects?|toxicit(?:y|ies)|recurrences?|relapses?|"
    r"deaths?|mortality|morbidity|injur(?:y|ies)|infections?|failures?|bleeding|harm\w*|risks?)\b",
    re.I,
)
HARM_ABSENT = re.compile(
    r"\b(?:no|without|neither|nor|none of the)\s+(?:\w+\s+){0,3}?(?:"
    + HARM.pattern.removeprefix(r"\b(?:").removesuffix(r")\b")
    + r")\b",
    re.I,
)
# A statement that the groups compared were alike at the start: a method, not a finding.
BASELINE = re.compile(
    r"\b(?:similar|comparable|did not differ|no (?:significant )?differences?)\b[^.;]{0,40}?"
    r"\b(?:with regard to|in terms of|regarding|for|in)\s+(?:\w+\s+){0,2}?(?:age|sex|gender|"
    r"baseline|demographic)|\bbaseline (?:characteristics|data|variables)\b[^.;]{0,30}"
    r"\b(?:similar|comparable|did not differ)",
    re.I,
)
RELATIVE = frozenset("who whom whose which that".split())
NEGATED_QUESTION = re.compile(r"\b(?:not|never|no longer)\b|n['’]t\b", re.I)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the evidence says, and the sentence it says it in."""

    said: Said
    sentence: Scored


def verdict(
    read: Sequence[tuple[float, Scored]], wanted: Asks, sources: Sequence[Source]
) -> Verdict | None:
    """The verdict of the reader's likeliest sentence (`read` is in its order) that states one
    on a page about the question, or None when no sentence states one."""
    if not wanted.yes_no or wanted.chained:  # "are X and Y both ...": one sentence holds one
        return None
    about = pages_about(wanted, sources)
    stating = []
    for rank, (_, item) in enumerate(read):
        page = about.get(item.cand.number)
        if page is None or not states_finding(item.cand.text, under_heading(page, item)):
            continue
        said = says(item.cand.text, wanted)
        if said is not None:
            stating.append((-len(item.cand.tokens & wanted.terms.keys()), rank, said, item))
    if not stating:
        return None
    _, _, said, item = min(stating, key=lambda s: s[:2])
    return Verdict(said, item)


def says(sentence: str, wanted: Asks) -> Said | None:
    """What one sentence says to the yes/no question (the rules above), None when it says
    nothing: a verdict any writer's cited sentence can be checked against."""
    said = _polarity(sentence, wanted)
    if said is None or not NEGATED_QUESTION.search(wanted.question):
        return said
    return {"yes": "no", "no": "yes"}.get(said, said)  # type: ignore[return-value]


def pages_about(wanted: Asks, sources: Sequence[Source]) -> dict[int, Source]:
    """The pages most about the question: those naming nearly as many of its key terms as the
    page naming most (and at least STANDING of them). Another page's finding is about
    something else, however many of the question's words it shares."""
    covers = {s.number: coverage(wanted, _page_stems(s)) for s in sources}
    best = max(covers.values(), default=0.0)
    floor = max(STANDING, best - CLOSE)
    return {s.number: s for s in sources if covers[s.number] >= floor}


def _page_stems(source: Source) -> frozenset[str]:
    return stems(" ".join([source.title, *(p.text for p in source.passages)]))


def under_heading(source: Source, item: Scored) -> str | None:
    """The heading of the page section the sentence stands in, if any."""
    label = None
    for match in HEADING.finditer(source.text or ""):
        if match.start() > item.cand.offset:
            break
        label = match.group("label")
    return label


def states_finding(sentence: str, heading: str | None = None) -> bool:
    """The sentence is no aim, method or background claim (by its words and its heading)."""
    if UNSTATED.search(sentence) or UNSTATED_BACKGROUND.search(sentence):
        return False
    return heading is None or not NOT_FINDINGS.search(heading)


def _polarity(sentence: str, wanted: Asks) -> Said | None:
    if not states_finding(sentence) or BASELINE.search(sentence):
        return None
    clauses = _clauses(sentence, wanted)
    if not clauses:
        return None
    # a later clause as much about the question that negates or hedges qualifies the first
    clause = next((c for c in clauses[1:] if HEDGE.search(c) or _negated(c)), clauses[0])
    if HEDGE.search(clause):
        return "unsettled"
    if _negated(clause):
        return _denied(clause, wanted)
    if SAMENESS.search(wanted.question) and DIFFERENCE.search(clause):
        return "no"
    if FINDING.search(clause) or set(wanted.subject or wanted.terms) <= stems(sentence):
        return "yes"
    return None


def _clauses(sentence: str, wanted: Asks) -> list[str]:
    """The sentence's main clauses naming the most question terms, and any later clause that
    qualifies them. A concessive opening ("Although A, B") is not the finding; a clause whose
    subject is the finding before it ("..., but this relationship was not significant") names
    what that clause names."""
    terms = set(wanted.terms)
    subject = set(wanted.subject or wanted.terms)
    named: list[tuple[int, str]] = []
    before: frozenset[str] = frozenset()
    for part in CLAUSE.split(CONCESSIVE.sub("", sentence, count=1)):
        if not part.strip():
            continue
        words = stems(part) | (before if ANAPHOR.match(part) else frozenset())
        before = words
        if words & subject:
            named.append((len(words & terms), part))
    best = max((n for n, _ in named), default=0)
    return [p for n, p in named if n == best and best > 0]


def _denied(clause: str, wanted: Asks) -> Said:
    """What a negated clause says: no, unless what it finds absent is a harm the question does
    not ask about ("no complications" affirms "is it safe?") or a difference a question asking
    sameness hopes absent."""
    if SAMENESS.search(wanted.question) and NO_DIFFERENCE.search(clause):
        return "yes"
    harm = HARM_ABSENT.search(clause)
    if harm and not HARM.search(wanted.question):
        return "yes"
    return "no"


def _negated(clause: str) -> bool:
    """A negation in the clause's own predicate, not in a relative clause inside it ("patients
    who did not receive ...")."""
    for match in NEGATION.finditer(clause):
        before = clause[: match.start()].lower().split()[-4:]
        if not RELATIVE.intersection(before):
            return True
    return False
