"""The verdict a yes/no question's evidence states: yes, no, or that it is not settled (issue 25).

A quoted sentence never says "yes" or "no" itself; it states a finding, and the finding's
polarity is the verdict. It is read from one sentence, and only from a sentence that states a
finding about the question, never guessed (a "yes" because yes is common):

* it stands on a page about the question: one naming at least half of the question's key
  terms and nearly as many as the page naming most; its own clause names one of the terms
  that say what the question is about (not only a frame word such as "located"). A hyphenated
  word names its parts ("breast-feeding" names "breast") and an abbreviation the page defines
  ("hyperbaric oxygen (HBO)") names the words it stands for. Under the page's results heading
  a sentence reporting a tested result ("significantly", "p < 0.05") is about the page's own
  study even when it names none of them;
* the question asks one thing: "are X and Y both ..." needs two facts, which one sentence
  rarely holds, so it gets no verdict;
* it states a finding, not what a study set out to do or how ("to determine whether", "were
  compared", "we examined"), nor that the groups compared were alike at the start ("similar
  with regard to age and sex");
* the clause read is the one naming most question terms, past a concessive opening ("Although
  A, B" states B); a later clause about the same finding that negates or hedges it qualifies
  it ("..., but this association was not significant after adjustment");
* no: a negation scoped over that clause — "was not associated with", "no significant
  difference in", "did not improve", "failed to". A negation in another clause ("..., although
  it did not change sleep") is about another predicate and says nothing. A harm found absent
  ("no complications") affirms a question asking whether something is safe, feasible or averts
  a harm;
* not settled: that clause hedges — "may", "unclear", "remains controversial", "further
  studies are needed" (a word that also names things, "mixed" or "uncertain", only in a
  hedging phrase);
* yes: that clause affirms a finding — a comparison, a change, an association, a significant
  result — or the sentence names every term of the question's subject and affirms them;
* a question that is itself negated ("X does not affect Y?") turns a "no" into a "yes" and back,
  and one asking sameness ("as effective as", "an alternative to") is affirmed by a difference
  found absent and denied by one found.

Of the sentences that state one, the verdict is the one naming most question terms (the reader,
`reader.py`, breaks ties); the answer opens with it and cites the sentence it is read from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..text import stem
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
    r"|\b(?:non-?significant|insignificant|without (?:statistical )?significance|unaffected|"
    r"unchanged|unrelated|independent of|did not differ|similar (?:in|between|among|to)|"
    r"comparable)\b"
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
    r"equal|equally)\b",
    re.I,
)
# An epistemic hedge on the finding itself. Words that also name things ("mixed episodes",
# "uncertain LOC", "increased only marginally") are hedges only in a hedging phrase.
HEDGE = re.compile(
    r"\b(?:may|might|unclear|inconclusive|controvers(?:y|ial)|remains? to be|"
    r"further (?:studies|research|investigation|trials?)|not (?:clear|conclusive|known)|"
    r"(?:is|are|was|were|remains?) (?:still )?uncertain|"
    r"trend(?:ed)? (?:toward|towards)|tended to|"
    r"(?:borderline|marginal(?:ly)?|nominal(?:ly)?) signific\w*|"
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
# treatment is safe or feasible, or averts a harm, when the question asks that (AVERTS).
HARM = re.compile(
    r"\b(?:complications?|adverse|side[- ]effects?|toxicit(?:y|ies)|recurrences?|relapses?|"
    r"deaths?|mortality|morbidity|injur(?:y|ies)|infections?|failures?|bleeding|harm\w*|risks?)\b",
    re.I,
)
HARM_ABSENT = re.compile(
    r"(?:\b(?:no|without|neither|nor|none of the)\s+(?:\w+\s+){0,3}?|\b(?:not|never)\s+"
    r"(?:\w+\s+){0,4}?)(?:" + HARM.pattern.removeprefix(r"\b(?:").removesuffix(r")\b") + r")\b",
    re.I,
)
# A question asking whether something averts a harm or is safe ("does X prevent seroma?").
AVERTS = re.compile(
    r"\b(?:prevent\w*|reduc\w*|decreas\w*|lower\w*|protect\w*|avoid\w*|minimi[sz]\w*|"
    r"limit\w*|safe\w*|feasib\w*|possible|acceptab\w*|tolera\w*|well tolerated)\b",
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
# An abbreviation, and a page defining one: "hyperbaric oxygen (HBO)".
SHORT = re.compile(r"\b[A-Za-z]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*\b")
DEFINED = re.compile(
    r"(?P<before>(?:[\w'-]+\s+){1,12})\((?P<short>[A-Za-z]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)"
    r"s?\)"
)
STATISTIC = re.compile(r"\bsignifican\w*|\bp\s*[<=>≤≥]\s*0?\.\d|\bNS\b", re.I)
RESULTS = re.compile(r"\b(?:results?|findings?)\b", re.I)
COMPLEMENT = re.compile(
    r"\b(?:show\w*|found|find\w*|reveal\w*|demonstrat\w*|indicat\w*|suggest\w*|confirm\w*|"
    r"note\w*|observ\w*|conclud\w*|report\w*) that\b",
    re.I,
)
CITE = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]")
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
    """The verdict of the sentence on a page about the question that states one and names the
    most question terms (the reader's order, `read`, breaks ties), or None when none states
    one."""
    if not wanted.yes_no or wanted.chained:  # "are X and Y both ...": one sentence holds one
        return None
    stating = sorted(_stating(read, wanted, pages_about(wanted, sources)), key=lambda s: s[:2])
    if not stating:
        return None
    _, _, said, item = stating[0]
    return Verdict(said, item)


def _stating(
    read: Sequence[tuple[float, Scored]], wanted: Asks, about: Mapping[int, Source]
) -> Iterable[tuple[int, int, Said, Scored]]:
    """Each sentence stating a verdict: minus the question terms it names, its place in the
    reader's order, the verdict, the sentence."""
    short = {number: defined(page) for number, page in about.items()}
    terms = _pieces(wanted.terms)
    for rank, (_, item) in enumerate(read):
        page = about.get(item.cand.number)
        head = under_heading(page, item) if page is not None else None
        if page is None or not states_finding(item.cand.text, head):
            continue
        in_results = bool(head and RESULTS.search(head))
        said = says(item.cand.text, wanted, short[page.number], in_results)
        if said is not None:
            named = _named(item.cand.text, short[page.number]) & terms
            yield -len(named), rank, said, item


def says(
    sentence: str,
    wanted: Asks,
    short: Mapping[str, frozenset[str]] | None = None,
    in_results: bool = False,
) -> Said | None:
    """What one sentence says to the yes/no question (the rules above), None when it says
    nothing: a verdict any writer's cited sentence can be checked against."""
    said = _polarity(sentence, wanted, short or {}, in_results)
    if said is None or not NEGATED_QUESTION.search(wanted.question):
        return said
    return {"yes": "no", "no": "yes"}.get(said, said)  # type: ignore[return-value]


def says_in(sentence: str, wanted: Asks, cited: Sequence[Source]) -> Said | None:
    """What a cited sentence says, read where it stands on a page it cites: with the
    abbreviations that page defines and under its heading, as `verdict` read it."""
    words = CITE.sub(" ", sentence).split()[:8]
    place = re.compile(r"\s+".join(map(re.escape, words))) if words else None
    for source in cited:
        found = place.search(source.text or "") if place else None
        if found is not None:
            heading = heading_at(source, found.start())
            in_results = bool(heading and RESULTS.search(heading))
            return says(sentence, wanted, defined(source), in_results)
    return says(sentence, wanted)


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
    return heading_at(source, item.cand.offset)


def heading_at(source: Source, offset: int) -> str | None:
    label = None
    for match in HEADING.finditer(source.text or ""):
        if match.start() > offset:
            break
        label = match.group("label")
    return label


def states_finding(sentence: str, heading: str | None = None) -> bool:
    """The sentence is no aim, method or background claim (by its words and its heading)."""
    if UNSTATED.search(sentence) or UNSTATED_BACKGROUND.search(sentence):
        return False
    if heading is None or RESULTS.search(heading):  # "METHODS AND RESULTS" holds findings
        return True
    return not NOT_FINDINGS.search(heading)


def _polarity(
    sentence: str, wanted: Asks, short: Mapping[str, frozenset[str]], in_results: bool
) -> Said | None:
    if not states_finding(sentence) or BASELINE.search(sentence):
        return None
    clauses = _clauses(sentence, wanted, short)
    if not clauses and in_results:
        first = CONCESSIVE.sub("", sentence.split(": ", 1)[-1], count=1)
        clauses = [first] if STATISTIC.search(first) else []
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


def _clauses(sentence: str, wanted: Asks, short: Mapping[str, frozenset[str]]) -> list[str]:
    """The sentence's clauses naming the most question terms (a later one may qualify the
    first). A concessive opening ("Although A, B", also after a heading) is not the finding; a
    clause whose subject is the finding before it ("..., but this relationship was not
    significant") names what that clause names."""
    terms = _pieces(wanted.terms)
    subject = _pieces(wanted.subject or wanted.terms)
    named: list[tuple[int, str]] = []
    before: frozenset[str] = frozenset()
    for part in (CONCESSIVE.sub("", p, count=1) for p in CLAUSE.split(sentence)):
        if not part.strip():
            continue
        words = _named(part, short) | (before if ANAPHOR.match(part) else frozenset())
        before = words
        if words & subject:
            named.append((len(words & terms), part))
    best = max((n for n, _ in named), default=0)
    return [p for n, p in named if n == best and best > 0]


def _named(text: str, short: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The stems a text names: a hyphenated word names its parts too ("breast-feeding" names
    "breast"), and an abbreviation its page defines names the words it stands for."""
    named = _pieces(stems(text))
    for word in SHORT.findall(text):
        named |= short.get(word, frozenset())
    return frozenset(named)


def defined(source: Source) -> dict[str, frozenset[str]]:
    """The abbreviations a page defines, "long form (LF)", each with the stems of its long
    form: the words before the parenthesis from the last one starting with the abbreviation's
    first letter, at most two words per letter (Schwartz and Hearst's rule, simplified)."""
    out: dict[str, frozenset[str]] = {}
    for match in DEFINED.finditer(source.text or ""):
        short = match.group("short")
        words = match.group("before").split()[-2 * len(short) :]
        starts = [i for i, w in enumerate(words) if w[:1].lower() == short[0].lower()]
        if starts and short not in out:
            out[short] = stems(" ".join(words[starts[0] :]))
    return out


def _pieces(keys: Iterable[str]) -> set[str]:
    out = set(keys)
    for key in keys:
        if "-" in key:
            out.update(stem(p) for p in key.split("-") if len(p) > 3)
    return out


def _denied(clause: str, wanted: Asks) -> Said:
    """What a negated clause says: no, unless what it finds absent is a harm and the question
    asks whether something is safe, feasible or averts a harm ("no complications" affirms "is
    it safe?" and "does it prevent complications?", and denies "does it cause complications?"
    and "does it delay treatment?"), or a difference a question asking sameness hopes absent."""
    if SAMENESS.search(wanted.question) and NO_DIFFERENCE.search(clause):
        return "yes"
    if HARM_ABSENT.search(clause) and AVERTS.search(wanted.question):
        return "yes"
    return "no"


def _negated(clause: str) -> bool:
    """A negation in the clause's own predicate, not in a relative clause inside it ("patients
    who did not receive ..."). A "that" after a verb of finding opens the finding itself ("this
    showed that age did not affect ...")."""
    for match in NEGATION.finditer(clause):
        before = COMPLEMENT.sub(" ", clause[: match.start()]).lower().split()[-4:]
        if not RELATIVE.intersection(before):
            return True
    return False
