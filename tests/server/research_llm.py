"""A scripted model for whole research runs through the fake OpenAI-compatible server: it
answers each request by what the prompt asks (plan, triage, critic, or writing), and its writer
thinks out loud, then cites the source that really says what it writes."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.llm.fake_servers import Received, Reply

SOURCE = re.compile(r'<source number="(\d+)"[^>]*>(.*?)</source>', re.DOTALL)
THOUGHT = "Checking which source states the retention period. "
CLAIM = "Audit logs are retained for 90 days by default"
GAP = (
    '{"complete": false, "missing": ["export formats"], '
    '"queries": ["Example Cloud audit log export format"]}'
)


def prompt_of(received: Received) -> str:
    """The prompt's text: Chat Completions `messages`, or Gemini's `systemInstruction` and
    `contents` parts."""
    body = received.body
    if "contents" in body:
        turns = [body.get("systemInstruction") or {}, *body["contents"]]
        return "\n".join(str(p.get("text", "")) for t in turns for p in t.get("parts", []))
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))


def cited_number(prompt: str, phrase: str = "90 days") -> int:
    """The number of the first source block whose text contains `phrase`."""
    for number, text in SOURCE.findall(prompt):
        if phrase in text:
            return int(number)
    raise AssertionError(f"no source in the prompt says {phrase!r}")


def research_llm(critic_rounds: int = 1) -> Callable[[Received], Reply]:
    """Plans two queries; the critic asks for one more search `critic_rounds` times, then says
    complete; the writer streams reasoning, then a cited `##` report."""
    reviews = [0]

    def reply(received: Received) -> Reply:
        prompt = prompt_of(received)
        if "You plan web searches" in prompt:
            return Reply(chunks=['["Example Cloud audit log retention", "audit log export"]'])
        if "Classify a research question" in prompt:
            return Reply(chunks=['{"type": "single"}'])
        if "You review a draft" in prompt:
            reviews[0] += 1
            if reviews[0] <= critic_rounds:
                return Reply(chunks=[GAP])
            return Reply(chunks=['{"complete": true, "missing": [], "queries": []}'])
        n = cited_number(prompt)
        return Reply(
            reasoning=[THOUGHT, f"Source {n} says so."],
            chunks=["## Retention\n\n", f"{CLAIM} [{n}].\n"],
        )

    return reply
