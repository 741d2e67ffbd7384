"""The LLM writer: numbered sources in, streamed cited markdown out.

Sources go to the model as delimited, numbered, untrusted data; the system prompt tells it to
ignore instructions inside them. The writer has no tools, so a page can change words, never what
is fetched or cited (citations are re-checked in code afterwards anyway).
"""

from __future__ import annotations

import html
from collections.abc import AsyncIterator, Sequence

from .. import prompts
from ..ports import ChatModel, Message, TokenUsage, WriteTask
from ..types import Source

CHARS_PER_TOKEN = 4


def format_sources(sources: Sequence[Source], budget_chars: int) -> str:
    """Sources as tagged blocks; when over budget, drop the lowest-ranked passages first."""
    blocks: list[list[str]] = [[p.text for p in s.passages] for s in sources]

    def render() -> str:
        out = []
        for source, passages in zip(sources, blocks, strict=True):
            attrs = (
                f'number="{source.number}" title="{html.escape(source.title)}" '
                f'url="{html.escape(source.url)}"'
            )
            if source.published:
                attrs += f' published="{html.escape(source.published)}"'
            body = "\n…\n".join(passages)
            out.append(f"<source {attrs}>\n{body}\n</source>")
        return "<sources>\n" + "\n".join(out) + "\n</sources>"

    text = render()
    while len(text) > budget_chars and any(len(b) > 1 for b in blocks):
        longest = max(range(len(blocks)), key=lambda i: (len(blocks[i]), -i))
        blocks[longest].pop()
        text = render()
    return text


def build_messages(task: WriteTask, context_tokens: int = 16000) -> list[Message]:
    template = prompts.load("report" if task.output == "report" else "answer")
    language = f"\nWrite the answer in {task.language}." if task.language else ""
    budget = max(2000, (context_tokens - 2500) * CHARS_PER_TOKEN)
    user = template.format(
        question=task.question,
        language=language + _extras(task),
        sources=format_sources(task.sources, budget),
    )
    if task.insist:
        user += prompts.load("insist")
    return [Message("system", prompts.load("system")), Message("user", user)]


def _extras(task: WriteTask) -> str:
    extra = ""
    if task.tldr:
        extra += (
            "\nStart with one cited paragraph that begins with **TL;DR:** and sums up the answer."
        )
    if task.aspects:
        extra += "\nCover these aspects, one section each: " + "; ".join(task.aspects) + "."
    return extra


class LLMWriter:
    name = "llm"
    notice: str | None = None

    def __init__(
        self, model: ChatModel, context_tokens: int = 16000, max_tokens: int = 2048
    ) -> None:
        self.model = model
        self.context_tokens = context_tokens
        self.max_tokens = max_tokens

    async def write(self, task: WriteTask) -> AsyncIterator[str]:
        messages = build_messages(task, self.context_tokens)
        async for item in self.model.stream(messages, max_tokens=self.max_tokens):
            if not isinstance(item, TokenUsage):
                yield item
