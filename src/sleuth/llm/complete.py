"""One prompt in, the model's whole reply out: for the stages that need a short answer (plan,
critic, triage, bridge, structured output, narration) rather than a stream."""

from __future__ import annotations

from ..ports import ChatModel, Message


async def complete(model: ChatModel, prompt: str, max_tokens: int) -> str:
    """The reply's text; reasoning the model streams is not part of it."""
    parts: list[str] = []
    async for item in model.stream([Message("user", prompt)], max_tokens=max_tokens):
        if isinstance(item, str):
            parts.append(item)
    return "".join(parts)
