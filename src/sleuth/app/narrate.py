"""`--narrate`: ask the model what substantively changed between two saved answers."""

from __future__ import annotations

from ..llm.complete import complete
from ..llm.thinking import strip_reasoning_text
from ..ports import ChatModel
from ..prompts import load
from .diff import SessionDiff


async def narrate(model: ChatModel, diff: SessionDiff, old: str, new: str) -> str:
    prompt = load("narrate").format(old=old.strip(), new=new.strip(), sources=_sources(diff))
    return strip_reasoning_text(await complete(model, prompt, 600)).strip()


def _sources(diff: SessionDiff) -> str:
    added = "\n".join(f"+ {u}" for u in diff.sources_added) or "(none)"
    removed = "\n".join(f"- {u}" for u in diff.sources_removed) or "(none)"
    return f"Sources added:\n{added}\nSources removed:\n{removed}"
