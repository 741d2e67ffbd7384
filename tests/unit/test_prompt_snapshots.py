"""Prompts are data: the messages the writer sends are snapshot-tested, so a prompt change is a
reviewed change. Regenerate with SLEUTH_UPDATE_SNAPSHOTS=1 after checking the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sleuth.pipeline.write.llm import build_messages
from sleuth.ports import WriteTask
from sleuth.types import Passage, PromptOverrides, Source

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
SOURCES = (
    Source(
        1,
        "https://docs.example.com/a",
        "Audit <logs>",
        3.2,
        (Passage("Audit log entries are kept for 90 days.", 3.2, 0),),
        published="2024-02-12",
    ),
    Source(
        2,
        "https://example.com/p",
        "Pricing",
        1.1,
        (Passage("Enterprise: retention up to 365 days.", 1.1, 40),),
    ),
)
CASES = {
    "answer": WriteTask("How long are audit logs kept?", SOURCES),
    "report_tldr_aspects": WriteTask(
        "How long are audit logs kept?",
        SOURCES,
        "report",
        "German",
        ("retention", "export"),
        tldr=True,
    ),
    "insist": WriteTask("How long are audit logs kept?", SOURCES, insist=True),
    "report_overridden": WriteTask("How long are audit logs kept?", SOURCES, "report"),
}
# A requester's own instructions (the SSE dialect's promptOverrides) in their slots.
OVERRIDES = {
    "report_overridden": PromptOverrides(
        system="You are an auditor's assistant.",
        citing="Do not cite anything.",
        task="Write a memo for auditors.",
        form="Use one table.",
    )
}


def render(task: WriteTask, overrides: PromptOverrides | None = None) -> str:
    messages = build_messages(task, overrides=overrides)
    return "\n\n=====\n\n".join(f"[{m.role}]\n{m.content}" for m in messages)


@pytest.mark.parametrize("name", sorted(CASES))
def test_prompt_snapshot(name: str) -> None:
    path = SNAPSHOTS / f"prompt_{name}.txt"
    text = render(CASES[name], OVERRIDES.get(name))
    if os.environ.get("SLEUTH_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing snapshot {path.name}: run with SLEUTH_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8")
