"""Unanswerable questions: the same questions with their gold pages hidden from the web.

Hiding a question's gold pages does not make it unanswerable when another page states the
answer too, so a question is kept only when no remaining page contains any of its gold answers
(matched as the scorer matches them) — nor, for a multi-word name, its last word ("Röntgen" for
"Wilhelm Conrad Röntgen"), which is how other pages usually refer to a person. Yes/no questions
are left out: no page "contains" a verdict, so nothing can show they became unanswerable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .corpus_web import Doc
from .questions import Question
from .score import normalize

SURNAME = re.compile(r"^[A-Z][\w'’-]{3,}$")


@dataclass(frozen=True, slots=True)
class Unanswerable:
    questions: tuple[Question, ...]  # questions no remaining page answers
    hidden_ids: frozenset[str]  # doc ids to leave out of the web (offline_web.py --hide-ids)

    def visible(self, docs: Iterable[Doc]) -> list[Doc]:
        return [d for d in docs if d.id not in self.hidden_ids]


def answer_forms(answer: str) -> set[str]:
    """The normalized answer, plus the last word of a multi-word capitalised name."""
    forms = {normalize(answer)}
    last = answer.split()[-1] if len(answer.split()) > 1 else ""
    if SURNAME.match(last):
        forms.add(normalize(last))
    return {f for f in forms if f}


def hide_gold(questions: Sequence[Question], docs: Sequence[Doc]) -> Unanswerable:
    """Hide every gold page of `questions`; keep the questions nothing left can answer."""
    by_url = {d.url: d.id for d in docs}
    hidden = frozenset(
        i
        for q in questions
        for i in (*q.gold_doc_ids, *(by_url[u] for u in q.gold_urls if u in by_url))
    )
    texts = [f" {normalize(d.title + ' ' + d.text)} " for d in docs if d.id not in hidden]
    kept = []
    for q in questions:
        if q.yes_no or not (q.gold_doc_ids or q.gold_urls):
            continue
        forms = {f" {f} " for a in q.answers for f in answer_forms(a)}
        if not any(f in text for text in texts for f in forms):
            kept.append(q)
    return Unanswerable(tuple(kept), hidden)
