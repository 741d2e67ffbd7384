"""Planning and critique for deep runs: by a model when one is configured, else by heuristics.

A planner turns the question into 2–4 sub-queries, and a quick run's stated gap into one
follow-up query. A critic reads a draft and says whether it
is complete or which searches would fill its gaps; sentences the citation check found weak are
the first gaps it is told about. Without a model both work from the question's own terms:
sub-queries from its parts, gaps from the terms no kept passage covers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..llm.complete import complete
from ..llm.parse import Verdict, parse_list, parse_query, parse_verdict
from ..pipeline.write.defuse import defused
from ..ports import ChatModel
from ..prompts import instructions, load
from ..text import content_tokens, split_sentences, stem, words
from ..types import Source

MAX_SUBQUERIES = 4
MAX_GAP_QUERIES = 3
CONJUNCTION = re.compile(
    r"\s*(?:,|;|\band\b|\bvs\.?|\bversus\b|\bcompared (?:to|with)\b)\s*", re.IGNORECASE
)
TITLE_PHRASE = re.compile(
    r"\b(?:[A-Z][\w'’.-]*[a-z0-9][\w'’-]*)(?:\s+(?:of|de|von|the|and|&)?"
    r"\s*[A-Z][\w'’-]+)*"
)


class Planner(Protocol):
    async def plan(self, question: str, *, language: str | None = None) -> list[str]:
        """Sub-queries for `question`, written in `language` (a language tag) when given and
        the planner can translate; a planner that cannot keeps the question's own words."""
        ...

    async def gap_query(
        self, question: str, gap: str, terms: Sequence[str], *, language: str | None = None
    ) -> str | None:
        """One search for what an answer says is missing: `gap` in its words, `terms` the
        question's key terms no kept page mentions; None when there is nothing to search."""
        ...


class Critic(Protocol):
    async def review(
        self,
        question: str,
        draft: str,
        weak: Sequence[str],
        sources: Sequence[Source],
        *,
        language: str | None = None,
    ) -> Verdict:
        """Whether the draft is complete, else gap queries (in `language`, as for a plan)."""
        ...


@dataclass(frozen=True, slots=True)
class HeuristicPlanner:
    """Sub-queries from the question's parts ("A and B", "A vs B") or its key terms; without a
    model nothing is translated, so `language` leaves the user's words as they are."""

    async def plan(self, question: str, *, language: str | None = None) -> list[str]:
        return heuristic_plan(question)

    async def gap_query(
        self, question: str, gap: str, terms: Sequence[str], *, language: str | None = None
    ) -> str | None:
        return heuristic_gap_query(question, terms)


def heuristic_gap_query(question: str, terms: Sequence[str]) -> str | None:
    """The question with the key terms no kept page mentions quoted ahead of it, so a search
    engine must match them (first, so the length cap never cuts them); without such terms a
    model-free run has nothing new to search."""
    if not terms:
        return None
    return " ".join([*(f'"{t}"' for t in terms), question.strip()])


def heuristic_plan(question: str) -> list[str]:
    """Parts of a compound question ("A, and B" / "A vs B"), each made able to stand alone;
    for a simple question, its named entities and two overlapping halves of its key terms."""
    entities = [e for e in TITLE_PHRASE.findall(question) if not _is_sentence_start(e)]
    parts = [p.strip() for p in CONJUNCTION.split(question.rstrip("?. ")) if p.strip()]
    parts = [p for p in parts if content_tokens(p)]
    if len(parts) >= 2:
        queries = [
            p if _stands_alone(p) else f"{_context(p, parts, entities)} {p}".strip() for p in parts
        ]
    else:
        keywords = list(dict.fromkeys(content_tokens(question)))
        half = len(keywords) // 2
        queries = [" ".join(keywords[: half + 1]), " ".join(keywords[max(0, half - 1) :])]
        queries = queries if len(keywords) >= 4 else []
        queries += entities[:2]
    return _dedupe([q for q in queries if q.strip() and q.strip() != question.strip()])


def _stands_alone(part: str) -> bool:
    """A part with a name or three content words can be searched without the rest."""
    named = any(not _is_sentence_start(e) for e in TITLE_PHRASE.findall(part))
    return named or len(content_tokens(part)) >= 3


def _context(part: str, parts: list[str], entities: list[str]) -> str:
    """What a dependent part ("how can they be exported") leaves out: the question's names and
    the first part's last key words."""
    words_here = set(content_tokens(part))
    extra = [*entities[:2], *content_tokens(parts[0])[-2:]]
    return " ".join(w for w in dict.fromkeys(extra) if w.lower() not in words_here)


def _dedupe(queries: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for q in queries:
        key = " ".join(sorted(set(content_tokens(q))))
        if key and key not in seen:
            seen.add(key)
            out.append(q)
    return out[:MAX_SUBQUERIES]


@dataclass(frozen=True, slots=True)
class HeuristicCritic:
    """Complete when every question term is covered and no citation is weak; else search gaps."""

    async def review(
        self,
        question: str,
        draft: str,
        weak: Sequence[str],
        sources: Sequence[Source],
        *,
        language: str | None = None,
    ) -> Verdict:
        missing = uncovered_terms(question, sources)
        if not missing and not weak:
            return Verdict(complete=True)
        queries: list[str] = []
        anchor = bridge_entity(question, sources)
        if missing:
            queries.append(" ".join([*([anchor] if anchor else []), *missing]))
        for sentence in weak[:2]:
            queries.append(" ".join(content_tokens(sentence)[:8]))
        gaps = [f"no kept passage mentions: {', '.join(missing)}"] if missing else []
        gaps += [f"weakly supported: {s}" for s in weak[:2]]
        return Verdict(False, gaps, _dedupe([q for q in queries if q])[:MAX_GAP_QUERIES])


def uncovered_terms(question: str, sources: Sequence[Source]) -> list[str]:
    seen = {stem(w) for s in sources for p in s.passages for w in words(p.text)}
    seen |= {stem(w) for s in sources for w in words(s.title)}
    return [t for t in dict.fromkeys(content_tokens(question)) if stem(t) not in seen]


def bridge_entity(
    question: str, sources: Sequence[Source], description: str = "", top: int = 4
) -> str | None:
    """The intermediate thing of a two-step question, taken only from read text.

    Candidates are title-case phrases the question does not contain; each scores the overlap
    between the description ("the state where the Atwater church is located") and the sentence
    it appears in, so the name found *next to* the description wins over a merely frequent one.
    """
    asked = question.lower()
    wanted = {stem(t) for t in content_tokens(description or question)}
    scores: Counter[str] = Counter()
    for source in [s for s in sources if not s.snippet][:top]:
        for passage in source.passages[:2]:
            for _, sentence in split_sentences(passage.text):
                overlap = len(wanted & {stem(w) for w in words(sentence)})
                for phrase in TITLE_PHRASE.findall(sentence) if overlap else ():
                    phrase = phrase.strip()
                    if _usable_entity(phrase, asked):
                        scores[phrase] += overlap
    best = scores.most_common(1)
    return best[0][0] if best and best[0][1] >= 2 else None


def _usable_entity(phrase: str, asked: str) -> bool:
    if len(phrase) < 3 or phrase.lower() in asked or _is_sentence_start(phrase):
        return False
    return phrase.split()[0].lower() not in CALENDAR


CALENDAR = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)


def _is_sentence_start(phrase: str) -> bool:
    """Single common words capitalised only because they open a sentence."""
    return " " not in phrase and phrase.lower() in COMMON_OPENERS


COMMON_OPENERS = frozenset(
    "the a an this that these those it its in on at for from with by as after before when while "
    "however although since during he she they we his her their there here some many most how "
    "what who which why when where is are was were does do did can could should name list".split()
)


class ModelPlanner:
    def __init__(self, model: ChatModel, scope: str = "", queries: str = "") -> None:
        self.model = model
        self.scope = scope  # a requester's own "what the plan covers", else Sleuth's
        self.queries = queries  # a requester's own "how queries are written", else Sleuth's

    async def plan(self, question: str, *, language: str | None = None) -> list[str]:
        prompt = load("plan").format(
            scope=instructions("plan_scope", defused(self.scope)),
            queries=instructions("plan_queries", defused(self.queries)),
            question=question,
            language=_in_language(language),
        )
        text = await complete(self.model, prompt, 400)
        queries = [q for q in parse_list(text) if q.strip()]
        return _dedupe(queries) or heuristic_plan(question)

    async def gap_query(
        self, question: str, gap: str, terms: Sequence[str], *, language: str | None = None
    ) -> str | None:
        prompt = load("gap").format(  # the draft's words: defused
            queries=instructions("gap_queries", defused(self.queries)),
            question=question,
            gap=defused(gap),
            language=_in_language(language),
        )
        return parse_query(await complete(self.model, prompt, 100)) or heuristic_gap_query(
            question, terms
        )


class ModelCritic:
    def __init__(self, model: ChatModel, task: str = "") -> None:
        self.model = model
        self.task = task  # a requester's own review instructions, else Sleuth's

    async def review(
        self,
        question: str,
        draft: str,
        weak: Sequence[str],
        sources: Sequence[Source],
        *,
        language: str | None = None,
    ) -> Verdict:
        weak_text = "\n".join(f"- {s}" for s in weak) or "(none)"
        titles = "\n".join(f"[{s.number}] {s.title}" for s in sources)
        prompt = load("critic").format(  # page words: defused
            task=instructions("critic_task", defused(self.task)),
            question=question,
            draft=defused(draft),
            weak=defused(weak_text),
            sources=defused(titles),
            language=_in_language(language),
        )
        verdict = parse_verdict(await complete(self.model, prompt, 500))
        return Verdict(verdict.complete, verdict.missing, verdict.queries[:MAX_GAP_QUERIES])


def _in_language(tag: str | None) -> str:
    """The prompt's line asking for queries in the search language (a checked tag, never
    free text, so nothing a requester types reaches the prompt this way). The question's names
    stay in each query: a model-made query must share a term with the question (`vet`)."""
    if not tag:
        return ""
    return (
        f"\nWrite every query in the language with the BCP 47 code {tag}, as a native "
        "speaker would search for it, keeping the question's names (people, places, "
        "organisations, products) in each query."
    )
