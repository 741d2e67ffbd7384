"""What a question asks for: its key terms and the shape of an answer to it.

The extractive writer uses this to pick the sentence that answers, and the answerability check
to judge whether the cited passages answer at all: "when" wants a date, "how many" a number,
"how long" a duration, "who" a person's name, "where" a place, "which city" (river, team,
language…) a name. A sentence holding the expected
shape (beyond what the question itself already says) is far likelier to answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import STOPWORDS, content_tokens, stem

UNITS = r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centuries)"
LENGTH_UNITS = r"km|kilometres?|kilometers?|miles?|mi|metres?|meters?|m|feet|ft|foot|inches|cm"
# "How long is the bridge": a length answers too.
LENGTHS = rf"(?:{LENGTH_UNITS}|in)"
# "How tall is the tower": a height, distance, depth or weight answers with its unit, not a
# count ("over 300 steps"). Not a bare "in": "finished in 1907 in Orlen" gives no height.
MEASURES = (
    rf"(?:{LENGTH_UNITS}|storeys|stories|floors|light[- ]years?|kg|kilograms?|tonnes?|tons?"
    r"|pounds?|lbs?)"
)
# "What is the population of …": a quantity a number answers.
QUANTITIES = (
    r"(?:population|height|length|area(?! code)|depth|width|weight|distance|size|cost|price|"
    r"elevation|altitude)"
)
MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December)"
)
NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|sixty|seventy|eighty|ninety|a hundred|several"
)
# "when" asks for a date where it opens the question or a clause of it ("who founded it and
# when"), before an auxiliary ("when did it air") or at the end ("first developed when?"); not
# as a conjunction ("who was the leader when the wall was built", "a type I error when
# retaining H0").
ASKED_WHEN = (
    r"(?:^\s*|[:;,.]\s*|\band\s+)when\b"
    r"|\bwhen\s+(?:is|are|was|were|do|does|did|will|would|has|have|had|can|could|should)\b"
    r"|\bwhen\s*\??\s*$"
)
# A place is not a month or a day ("in November 1989", "on Monday"), and what comes "from" a
# name said with a possessive is that person's work, not a place ("from Don Tracy's novel").
NOT_A_DAY = rf"(?!{MONTHS}\b|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b)"
NOT_WHOSE = r"(?!(?:\s+[A-Z][a-z]+)*['’]s\b)"
# "What is the capital of …", "which river runs through …": a question asking which place,
# body or group answers with its name, a capitalised word the question does not say (the
# kinds are those named in capitals; "the largest organ" is the skin, so organs are not one).
NAMED_KINDS = (
    r"capital|city|cities|town|village|country|countries|nation|state|province|county|region|"
    r"continent|river|mountain|lake|island|sea|ocean|desert|volcano|building|bridge|airport|"
    r"stadium|university|college|team|club|company|band|language|religion|party|empire"
)
ASKED_NAMED = rf"^\s*(?:what|which)\b(?:\s+[\w'-]+){{0,4}}?\s+(?:{NAMED_KINDS})\b"
# A name: capitalised words, the first not a function word capitalised to open a sentence.
CAPITALISED_STOPWORDS = sorted(w.capitalize() for w in STOPWORDS)
NAMED = re.compile(
    r"\b(?!(?:" + "|".join(CAPITALISED_STOPWORDS) + r")\b)"
    r"[A-Z][a-z][\w'’-]*(?:\s+[A-Z][a-z][\w'’-]*)*"
)
# A place's capitalised words before its last one, on one line.
_PLACE_WORDS = r"(?:[A-Z][a-z]+[^\S\n]+)"
# What happened, not where: "in the Napoleonic Wars", "at the Olympics", "in the World Series".
EVENTS = (
    "War Wars Revolution Battle Battles Games Olympics Championship Championships Cup Festival "
    "Awards Election Elections Crisis Era Period Dynasty Movement Campaign Season Series Tour "
    "Trial Treaty"
).split()
NOT_AN_EVENT = rf"(?!{_PLACE_WORDS}*(?:{'|'.join(EVENTS)})(?![a-z]|[^\S\n]+[A-Z][a-z]))"
# Function words a title capitalises and a place name does not, after its first word: "the Task
# Force on Traffic Capacity Across the Chesapeake Bay" gives no place in "on Traffic Capacity
# Across"; "in The Hague" is one.
TITLE_CASED = [
    w for w in CAPITALISED_STOPWORDS if len(w) > 1
] + "Across Among Amid Beyond Toward Towards Upon Via Within".split()
NOT_A_TITLE = rf"(?!{_PLACE_WORDS}+(?:{'|'.join(TITLE_CASED)})(?![a-z]))"
# A place: a preposition, then capitalised words on one line, neither an event nor a title.
PLACE = rf"(?:the )?{NOT_A_DAY}{NOT_AN_EVENT}{NOT_A_TITLE}[A-Z][a-z]+"
# (what the question looks like, what an answer holds, how the reasons name it)
ANSWER_TYPES: tuple[tuple[re.Pattern[str], re.Pattern[str], str], ...] = (
    (
        re.compile(r"\bhow (?:long|old)\b", re.I),
        re.compile(
            rf"\b\d[\d,.]*\s*(?:-\s*)?(?:{UNITS}|{LENGTHS})\b|\b(?:{NUMBER_WORDS})\s+{UNITS}\b",
            re.I,
        ),
        "a duration",
    ),
    (
        re.compile(rf"\b(?:what (?:year|date|time)|which year|since when)\b|{ASKED_WHEN}", re.I),
        re.compile(rf"\b(?:1[0-9]{{3}}|20[0-9]{{2}})\b|\b{MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"),
        "a date",
    ),
    (
        re.compile(r"(?:^\s*|[:;,.]\s*)how (?:tall|high|far|deep|wide|heavy)\b", re.I),
        re.compile(
            rf"\b\d(?:[\d,.]*\d)?(?:\s+(?:thousand|million|billion))?\s*(?:-\s*)?{MEASURES}\b"
            rf"|\b(?:{NUMBER_WORDS})\s+{MEASURES}\b",
            re.I,
        ),
        "a number",
    ),
    (
        re.compile(
            r"\bhow (?:many|much|far|big|often|tall|large)\b|\bwhat (?:percentage|number)"
            rf"|\bwhat (?:is|was|are|were) the (?:\w+ )?{QUANTITIES}\b",
            re.I,
        ),
        re.compile(
            r"\d(?:[\d,.]*\d)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
            r"twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion)\b",
            re.I,
        ),
        "a number",
    ),
    (
        re.compile(r"^\s*where\b|\bwhere (?:is|are|was|were|did|does|do)\b", re.I),
        re.compile(
            rf"\b(?:in|at|near|on) {PLACE}(?:[^\S\n]+[A-Z][a-z]+)*"
            rf"|\bfrom {PLACE}\b{NOT_WHOSE}(?:[^\S\n]+[A-Z][a-z]+)*"
        ),
        "a place",
    ),
    (
        re.compile(r"^\s*who\b|\bwho (?:is|was|were|founded|wrote|invented|created)\b", re.I),
        re.compile(r"\b[A-Z][a-z]+(?:\s+(?:[A-Z]\.\s*)?[A-Z][a-z]+)+\b"),
        "a name",
    ),
    (re.compile(ASKED_NAMED, re.I), NAMED, "a proper name"),
)
# A question that chains two things — "the film that was shot in Leland", "a man born in what
# year", "are X and Y both ..." — needs two facts; one sentence rarely holds both.
CHAINED = re.compile(
    r"\b(?:the|a|an|this|that|these|those)\s+"
    r"(?:(?!(?:of|in|on|at|the|a|an)\b)[\w'-]+\s+){0,2}[\w'-]+\s+"
    r"(?:(?:that|which|who|whose|where)\s|(?:born|based|located|named|founded|created|"
    r"directed|produced|written|owned|released|formed|shot|played|recorded|published)\s+"
    r"(?:in|by|on|at|from|for)\b)"
    r"|\b(?:both|either|neither|the same)\b"
    r"|\b(?:first|earlier|later|older|younger|longer|larger|bigger|more|less)\b.*\bor\b",
    re.IGNORECASE,
)
# Two named things asked about at once: "are Brainerd Lakes Regional Airport and Sawyer
# International Airport ...": a name of two or more capitalised words right after "and".
# Case-sensitive, so "rip it up and start again" is one title, and neither "Pride and
# Prejudice" nor "Harry Potter and the Philosopher's Stone" counts as two things.
TWO_NAMES = re.compile(r"\b[A-Z][\w.'’-]*,?\s+and\s+[A-Z][\w.'’-]*\s+[A-Z]")
# A yes/no question (not "does Archie end up with Betty or Veronica"): a quoted sentence never
# says "yes" or "no" itself. Its last clause asks it: "Body dysmorphic disorder: does it have a
# psychotic subtype?", "Multidisciplinary breast cancer clinics. Do they work?".
YES_NO = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|shall|must|"
    r"may|might)\b(?!.*\bor\b)",
    re.I,
)
WH_WORD = re.compile(r"\b(?:what|which|who|whom|whose|when|where|why|how|or)\b", re.I)
# A question word that asks (fronted, or after a preposition: "died in what year"), not one that
# opens a relative clause ("patients who develop ...", "the reasons why ...").
WH_ASKED = re.compile(
    r"(?:^\s*|[:;,.]\s+|--\s*|\b(?:in|of|on|at|by|for|from|to|with|during|since|until)\s+)"
    r"(?:what|which|who|whom|whose|when|where|why|how)\b",
    re.I,
)
# A question's clauses: after a title's colon, a full stop or a dash.
LAST_CLAUSE = re.compile(r"(?:[:;.]\s+|\s[-–—]+\s+|--\s*)(?=\S)")
# A verb that makes a statement of a question asked with a question mark ("X does not affect
# Y?"): without one, "best laptops 2024?" is a search, not a yes/no question.
FINITE = re.compile(r"\b(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would)\b", re.I)
WORD = re.compile(r"\w+")
# A word written as a name: a capital, then lower case ("Cher", "McCartney", "O'Brien"). All
# capitals ("IAM", "API") are as often a product's terms as an answer's name.
CAPITALISED = re.compile(r"\b[A-Z][a-z][\w'’-]*")
# A question word run together with "is" where the question opens ("what's", "whats",
# "who’s"): read as the two words, so the contraction is no key term and the question asks
# what *is* ("what's the capital of…" asks what is now, as "what is the capital of…" does).
ASKING_CONTRACTION = re.compile(r"^(\W*)(what|who|where|when|how|why)['’]?s\b", re.IGNORECASE)
# Words that say what kind of answer is wanted rather than what it is about.
ASKING_WORDS = frozenset(
    "year date time many much long old far big often tall large number percentage kind type "
    "first last".split()
)

# Words that say how the question relates its subject to the answer — "who *wrote* the book",
# "when did it *come out*", "what *part* of the brain", "the *new* season" — rather than what it
# is about. A page answers in other words ("its author", "was released", "the region"), so a
# passage not saying one is no sign it is about something else: the answerability check names
# only the other key terms, the question's subject, as missing. So are a song's "lyrics" and
# "tune" (the song), and a title before a name ("mr. willoughby" is "John Willoughby").
FRAME_WORDS = frozenset(
    """come came go went get got make made take took give gave play plays played sing sang sung
    write wrote written star starred perform performed win won lead led start started begin
    began end ended happen happened die died live lived born locate located build built invent
    invented discover discovered release released air aired premiere premiered become became
    decide decides mean means call use used say said run ran hold held work worked move moved
    cost costs stand represent belong originate produce produced direct directed create created
    own owned open opened close closed shut set appear appeared voice voiced portray portrayed kill
    killed marry married sign signed introduce introduced establish established pass passed
    according include includes involve affect affected happen occur occurred mark marked
    finish finished complete completed construct constructed keep keeps kept retain store stored
    last lasts need needs require requires required allow allows allowed show shows shown
    change changed reach reached leave left bring brought send sent pay paid buy bought sell sold
    movie film song show series book novel album season episode part form type kind purpose
    meaning role character term word version new current originally actually really usually
    play go lyrics lyric tune mr mrs ms dr""".split()
)
FRAME_STEMS = frozenset(stem(word) for word in FRAME_WORDS)
OBJECT = r"(?:(?:me|us|you|him|her|it|them)\s+)?"  # a pronoun between a verb and its particle
# The adverb a verb takes to make another ("come along", "get together", "go back"): after a
# frame word, with at most a pronoun between ("set me back"), it relates as its verb does.
PARTICLE = re.compile(
    rf"\b([a-z]+)\s+{OBJECT}"
    r"(along|around|round|away|back|ahead|together|apart|aside|forward|across)\b",
    re.IGNORECASE,
)
# A verb made another by its particle, which closes its clause ("turn up on a sunday", "be
# picked up", "sort it out"): the verb says how, like a frame word ("turn up" is "arrive",
# "pick up" is "collect"), so a page saying "arrive" or "collect" does not lack it.
PHRASAL = re.compile(
    rf"\b([a-z]{{3,}})\s+{OBJECT}(?:up|out|off|down|over|back)"
    r"(?=\s*(?:$|[,.?!;]|(?:on|at|in|for|to|with|by|from|after|before|until|when|if|and|or)\b))",
    re.IGNORECASE,
)
WHO_VERB = re.compile(r"^\s*who\s+([a-z]+)", re.I)  # "who wrote ...": the relation, not the subject
AUXILIARIES = frozenset("is was are were has have had did does do will would can could".split())


@dataclass(frozen=True, slots=True)
class Asks:
    question: str
    terms: dict[str, str]  # stemmed key term -> the question's own word, for reasons
    shape: re.Pattern[str] | None  # what an answer holds, when the question says
    kind: str | None  # "a date", "a number"...: how reasons name the shape
    chained: bool = False  # two facts needed (a relative clause, a comparison, two names)
    yes_no: bool = False  # "is/are/did ...?": the answer must say yes or no
    frame: frozenset[str] = frozenset()  # key terms that relate rather than name (FRAME_WORDS)

    @property
    def subject(self) -> dict[str, str]:
        """The key terms that name what the question is about: all but its frame words."""
        return {k: w for k, w in self.terms.items() if k not in self.frame}


def asks(question: str) -> Asks:
    question = ASKING_CONTRACTION.sub(r"\1\2 is", question)
    terms: dict[str, str] = {}
    for word in content_tokens(question):
        if word not in ASKING_WORDS:
            terms.setdefault(stem(word), word)
    chained = bool(CHAINED.search(question) or TWO_NAMES.search(question))
    yes_no = is_yes_no(question)
    frame = _frame(question, terms)
    for asked, shape, kind in ANSWER_TYPES:
        if asked.search(question):
            return Asks(question, terms, shape, kind, chained, yes_no, frame)
    return Asks(question, terms, None, None, chained, yes_no, frame)


def is_yes_no(question: str) -> bool:
    """A question answered yes or no: asking nothing with a question word, its last clause opens
    with an auxiliary ("does it have a psychotic subtype?"); or, with no question word nor "or"
    at all, it ends with a question mark after a title ("Storage of vaccines: weak link in the
    cold chain?") or as a statement ("Bypass temperature does not affect the syndrome?")."""
    clauses = LAST_CLAUSE.split(question.strip())
    last = clauses[-1]
    if WH_ASKED.search(question):
        return False
    if YES_NO.search(last):
        return True
    if not question.rstrip().endswith("?") or WH_WORD.search(question):
        return False
    return len(clauses) > 1 or bool(FINITE.search(last))


def _frame(question: str, terms: dict[str, str]) -> frozenset[str]:
    """The key terms that relate: a frame word in any form ("coming out" as "come out",
    "starring" as "star"), the particle of its phrasal verb ("come along"), a verb its particle
    makes another ("turn up"), an adverb, and the verb right after "who"."""
    frame = {key for key, word in terms.items() if key in FRAME_STEMS or adverb(word, question)}
    phrasal = {stem(verb.lower()) for verb in PHRASAL.findall(question)} | {
        stem(particle.lower())
        for verb, particle in PARTICLE.findall(question)
        if stem(verb.lower()) in FRAME_STEMS
    }
    if terms.keys() - frame - phrasal:  # not when it leaves no subject: a title ("come together")
        frame |= phrasal
    verb = _who_verb(question)
    if verb is not None:
        frame.add(verb)
    return frozenset(frame) & terms.keys()


def adverb(word: str, question: str = "") -> bool:
    """Whether a key term reads as an adverb ("quickly", "originally"): it ends in "-ly" and
    the question does not write it as a name, capitalised after its first word ("Italy",
    "Kelly"). A lower-case question cannot say, so `answerability.named` asks the pages."""
    if not word.endswith("ly"):
        return False
    return not re.search(rf"(?<=\S )\b{re.escape(word.capitalize())}\b", question)


def _who_verb(question: str) -> str | None:
    """The stem of the verb right after "who" ("produc" in "who produced …"); None without
    one, or for "who is", "who was"…, which ask who someone is."""
    verb = WHO_VERB.match(question)
    if verb is None or verb.group(1).lower() in AUXILIARIES:
        return None
    return stem(verb.group(1).lower())


def coverage(wanted: Asks, found: frozenset[str] | set[str]) -> float:
    """The share of the question's key terms (stems) among `found`."""
    terms = wanted.subject or wanted.terms
    if not terms:
        return 1.0
    return sum(1 for key in terms if key in found) / len(terms)


def answer_shape(question: str) -> re.Pattern[str] | None:
    return asks(question).shape


def shape_spans(shape: re.Pattern[str], sentence: str, question: str) -> list[str]:
    """The expected answer shapes in `sentence`, not counting text the question contains."""
    return [m.group(0) for m in _shape_matches(shape, sentence, question)]


def _shape_matches(shape: re.Pattern[str], sentence: str, question: str) -> list[re.Match[str]]:
    lowered = question.lower()
    return [m for m in shape.finditer(sentence) if m.group(0).lower() not in lowered]


# Where a sentence joins two statements: "Its capital is Ottawa, and its largest
# metropolitan areas are Toronto, …".
CLAUSE_BREAK = re.compile(r";|,\s+(?:and|but|while|whereas)\b")


def nearest_span(wanted: Asks, sentence: str) -> str | None:
    """Of the sentence's spans of the asked-for shape, the one nearest the question's subject
    in it: in "The screenplay by James Poe is based on ... Herman Melville's Moby-Dick", asked
    who wrote Moby-Dick, "Herman Melville". A span in the statement that says the subject
    comes before one in another statement of the sentence: "Its capital is Ottawa, and its
    largest metropolitan areas are Toronto…", asked the largest city, "Toronto". A span
    naming a question term itself is no answer to it. None when the sentence holds no such
    span."""
    if wanted.shape is None:
        return None
    terms = set(wanted.terms)
    found = [
        m
        for m in _shape_matches(wanted.shape, sentence, wanted.question)
        if not terms & {stem(w) for w in content_tokens(m.group(0))}
    ] or _shape_matches(wanted.shape, sentence, wanted.question)
    subject = set(wanted.subject or wanted.terms)
    at = [w.start() for w in WORD.finditer(sentence) if stem(w.group(0).lower()) in subject]
    if not found or not at:
        return found[0].group(0) if found else None

    breaks = [b.start() for b in CLAUSE_BREAK.finditer(sentence)]

    def clause(position: int) -> int:
        return sum(b < position for b in breaks)

    def distance(m: re.Match[str]) -> tuple[int, int]:
        return min(
            (clause(m.start()) != clause(a), min(abs(m.start() - a), abs(m.end() - a))) for a in at
        )

    return min(found, key=distance).group(0)


def relation(wanted: Asks) -> str | None:
    """The relation a "who" question asks about, as a key term: the stem of the verb right
    after "who" ("produc" in "who produced A Change Is Gonna Come"). None for any other
    question, and for "who is", "who was"…, which ask who someone is."""
    key = _who_verb(wanted.question)
    return key if key in wanted.terms else None


def names_someone(wanted: Asks, sentence: str) -> bool:
    """Whether `sentence` names a person, an organisation or a place the question does not:
    a capitalised word that is not one of the question's own words. The sentence's first word
    counts only when the next one is capitalised too ("Larry Page founded"): alone it is
    capitalised by position ("Audit logs are kept"). Unlike the name shape, one word counts
    ("by Varnholt", "at Google"), so a sentence can answer "who" without a two-word name."""
    asked = {stem(w) for w in content_tokens(wanted.question)}
    for m in CAPITALISED.finditer(sentence):
        word = m.group(0)
        if word.lower() in STOPWORDS or stem(word.lower()) in asked:
            continue
        if sentence[: m.start()].strip(" \"'“‘([") == "" and not _next_capitalised(
            sentence, m.end()
        ):
            continue
        return True
    return False


# The relations a work's "by" phrase says: "a novel by Jane Austen" says who wrote it, "a
# painting by Leonardo" who painted it. Not who produced, played or won: "a song by Sam
# Cooke" names its singer, not its producer.
AUTHORED = frozenset(
    stem(w)
    for w in """write wrote written paint painted compose composed create created design designed
    direct directed draw drew drawn sculpt sculpted illustrate illustrated author authored
    sing sang sung""".split()
)
# "by" and a name after a noun ("a novel by", "music by"). After a participle ("covered by",
# "written by") the name is that verb's agent, and the verb says the relation or not; after a
# function word or an adverb ("and by", "also by") it goes back to an earlier one.
BY_NAME = re.compile(
    r"\b(\w+)\s+by\s+(?:the\s+)?([A-Z][a-z][\w'’-]*(?:\s+(?:[A-Z]\.\s*)?[A-Z][\w'’-]*)*)"
)
PARTICIPLES = frozenset(
    """written sung drawn made done given taken shown known held led won run sold told built
    sent kept brought bought caught found""".split()
)


def _after_a_noun(word: str) -> bool:
    word = word.lower()
    return not (
        word in STOPWORDS or word in PARTICIPLES or word.endswith(("ed", "ly")) or word.isdigit()
    )


def says_relation(wanted: Asks, sentence: str, said: set[str]) -> bool:
    """Whether `sentence` says the relation a "who" question asks about (`relation`): in any
    form `said` holds (`terms.terms_said` of the sentence), or, for a relation a work's maker
    has, as "by" and a name the question does not say ("a romantic novel by Jane Austen", asked
    who wrote Pride and Prejudice)."""
    key = relation(wanted)
    if key is None or key in said:
        return True
    if key not in AUTHORED:
        return False
    asked = {stem(w) for w in content_tokens(wanted.question)}
    return any(
        _after_a_noun(m.group(1)) and {stem(w) for w in content_tokens(m.group(2))} - asked
        for m in BY_NAME.finditer(sentence)
    )


EARLIER = r"(?:initial|first|original|former|previous|earlier|old|temporary|interim|provisional)"
ASKS_NOW = re.compile(r"\b(?:is|are|has|have)\b|\bcurrent(?:ly)?\b|\bnow\b|\btoday\b", re.I)
ASKS_BEFORE = re.compile(
    rf"\b(?:was|were|did|had|used|{EARLIER}|originally|formerly|previously|founding|then)\b", re.I
)
WAS_EARLIER = re.compile(
    rf"\b(?:was|were|had been|served as)\s+(?:the\s+|its\s+|their\s+|an?\s+)?{EARLIER}"
    r"\s+(?:[\w'-]+\s+)?([\w'-]+)",
    re.I,
)


def says_what_was(wanted: Asks, sentence: str) -> bool:
    """Whether `sentence` says what one of the question's things *was* before ("Melbourne was
    the initial capital") when the question asks what it *is* ("what is the capital of
    Australia"): such a sentence states that it is no longer the answer. A question that asks
    about the past or the first of something ("who was the first…", "the original singer")
    is not asking what is now, and a sentence that only says a name was first used ("originally
    known as") does not say the thing itself changed."""
    if not ASKS_NOW.search(wanted.question) or ASKS_BEFORE.search(wanted.question):
        return False
    return any(
        stem(word.lower()) in wanted.terms
        for m in WAS_EARLIER.finditer(sentence)
        for word in (m.group(1), *m.group(0).split()[-2:-1])
    )


def _next_capitalised(sentence: str, end: int) -> bool:
    return bool(re.match(r"\s+[A-Z]", sentence[end:]))


def has_shape(shape: re.Pattern[str], sentence: str, question: str) -> bool:
    return bool(shape_spans(shape, sentence, question))
