"""Load and validate an evaluation questions file (JSONL, one question object a line).

The format is that of `../shared/bench/questions.jsonl`: `question` and `answers` are required;
`id`, `dataset`, `type`, `gold_doc_ids` and `gold_urls` are optional. A bad line is refused with
its line number, because a silently skipped question changes every rate in the report.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..errors import UsageError


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    answers: tuple[str, ...]
    dataset: str = "default"
    kind: str = ""  # the source's question type: nq-open, yes/no/maybe, bridge, 2hop...
    gold_doc_ids: tuple[str, ...] = ()
    gold_urls: tuple[str, ...] = ()

    @property
    def yes_no(self) -> bool:
        """PubMedQA-style: the answer is a verdict, not a span to find in text."""
        return self.kind == "yes/no/maybe" or (
            bool(self.answers) and all(a.lower() in VERDICTS for a in self.answers)
        )


VERDICTS = ("yes", "no", "maybe")


def load_questions(path: Path) -> list[Question]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read the questions file {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text: {exc.reason}") from exc
    questions = [parse_line(line, path, n) for n, line in enumerate(lines, 1) if line.strip()]
    if not questions:
        raise UsageError(f"{path} holds no questions")
    _check_unique(questions, path)
    return questions


def parse_line(line: str, path: Path | str, number: int) -> Question:
    where = f"{path}:{number}"
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{where}: expected a JSON object, got {type(data).__name__}")
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        raise UsageError(f"{where}: 'question' must be a non-empty string")
    return Question(
        id=_text(data, "id", where) or f"line-{number}",
        question=question.strip(),
        answers=_strings(data, "answers", where, required=True),
        dataset=_text(data, "dataset", where) or "default",
        kind=_text(data, "type", where),
        gold_doc_ids=_strings(data, "gold_doc_ids", where),
        gold_urls=_strings(data, "gold_urls", where),
    )


def _text(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if value is None:
        return ""
    if not isinstance(value, str | int):
        raise UsageError(f"{where}: '{key}' must be a string")
    return str(value)


def _strings(
    data: Mapping[str, Any], key: str, where: str, required: bool = False
) -> tuple[str, ...]:
    value = data.get(key)
    if value is None and not required:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where}: '{key}' must be a list of strings")
    cleaned = tuple(v.strip() for v in value if v.strip())
    if required and not cleaned:
        raise UsageError(f"{where}: '{key}' must hold at least one non-empty string")
    return cleaned


def _check_unique(questions: Sequence[Question], path: Path) -> None:
    seen: set[str] = set()
    for q in questions:
        if q.id in seen:
            raise UsageError(f"{path}: the id {q.id!r} appears more than once")
        seen.add(q.id)


def with_gold_urls(questions: Iterable[Question], url_of: Mapping[str, str]) -> list[Question]:
    """Fill `gold_urls` from `gold_doc_ids` through a corpus's id → url map."""
    out = []
    for q in questions:
        urls = [url_of[d] for d in q.gold_doc_ids if d in url_of]
        out.append(replace(q, gold_urls=tuple(dict.fromkeys([*q.gold_urls, *urls]))))
    return out


def sample(questions: Sequence[Question], n: int | None, seed: int | None) -> list[Question]:
    """The first n questions, or (with a seed) a reproducible random n of them, in file order."""
    if seed is None:
        return list(questions[:n] if n is not None else questions)
    count = len(questions) if n is None else min(n, len(questions))
    picked = set(random.Random(seed).sample(range(len(questions)), count))
    return [q for i, q in enumerate(questions) if i in picked]


class HasDataset(Protocol):
    @property
    def dataset(self) -> str: ...


D = TypeVar("D", bound=HasDataset)


def by_dataset(items: Iterable[D]) -> dict[str, list[D]]:
    """Questions (or their scores) grouped by dataset, in first-seen order."""
    groups: dict[str, list[D]] = {}
    for item in items:
        groups.setdefault(item.dataset, []).append(item)
    return groups
