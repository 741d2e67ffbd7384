"""`--narrate`: ask the model what substantively changed between two saved answers."""

from __future__ import annotations

from ..llm.thinking import strip_reasoning_text
from ..ports import ChatModel, Message, TokenUsage
from ..prompts import load
from .diff import SessionDiff


async def narrate(model: ChatModel, diff: SessionDiff, old: str, new: str) -> str:
    prompt = load("narrate").format(old=old.strip(), new=new.strip(), sources=_sources(diff))
    parts: list[str] = []
    async for item in model.stream([Message("user", prompt)], max_tokens=600):
        if not isinstance(item, TokenUsage):
            parts.append(item)
    return strip_reasoning_text("".join(parts)).strip()


def _sources(diff: SessionDiff) -> str:
    added = "\n".join(f"+ {u}" for u in diff.sources_added) or "(none)"
    removed = "\n".join(f"- {u}" for u in diff.sources_removed) or "(none)"
    return f"Sources added:\n{added}\nSources removed:\n{removed}"
