"""Editing a finished answer: save an edited text as a new revision of its session, and have
the model transform it (reading level, shorter, longer, another language) keeping its `[n]`
citations. Every text is checked again against the session's own sources before it is shown
or saved, so an edit cannot add a citation the sources do not support without it showing. A
translation is checked through the text it was made from (`pipeline/carry.py`): its words can
match no source word for word."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..errors import UsageError
from ..llm.complete import complete
from ..llm.thinking import strip_reasoning_text
from ..pipeline.carry import carried
from ..pipeline.cite import checked
from ..prompts import load
from ..types import Verification

if TYPE_CHECKING:
    from .application import Sleuth

Transform = Literal["simpler", "expert", "shorter", "longer", "translate"]
TRANSFORMS: dict[str, str] = {
    "simpler": "Rewrite it for a general reader: plain words, short sentences.",
    "expert": "Rewrite it for a specialist reader: precise terms, no basic explanations.",
    "shorter": "Make it about half as long, keeping the most important cited claims.",
    "longer": "Make it fuller: explain each cited claim more, adding nothing the text lacks.",
    "translate": "Translate it into {language}.",
}
MAX_TEXT = 200_000
MAX_TOKENS = 4000


@dataclass(frozen=True, slots=True)
class Checked:
    text: str  # citation markers normalized; numbers no source has removed
    verification: Verification


def check(app: Sleuth, session_id: str, text: str, basis: str = "") -> Checked:
    """`text` as it would be saved for this session, with its citation check; `basis`, when
    `text` is a translation, is the text it translates."""
    if not text.strip():
        raise UsageError("the report is empty", setting="text")
    if len(text) > MAX_TEXT or len(basis) > MAX_TEXT:
        raise UsageError(f"the report is over {MAX_TEXT} characters", setting="text")
    record = app.sessions.get(session_id)
    sources = record.result.sources
    recall = app.prepare(record.question).request.cite_min_recall
    # The run's own rule (`cite.checked`), so an edit is held to exactly what the answer was;
    # a translation, through the text it translates (its words match no source word for word).
    clean, verification = checked(text.replace("\r\n", "\n"), sources, recall)
    if basis.strip():
        base, said = checked(basis.replace("\r\n", "\n"), sources, recall)
        verification = carried(clean, verification, base, said)
    return Checked(clean, verification)


def save_revision(
    app: Sleuth, session_id: str, text: str, note: str = "edited", basis: str = ""
) -> int:
    checked = check(app, session_id, text, basis)
    return app.sessions.add_revision(
        session_id, checked.text, checked.verification.to_json(), note[:200]
    )


async def transform(
    app: Sleuth, session_id: str, text: str, kind: str, language: str = "", **values: object
) -> Checked:
    """The model's rewrite of `text`, checked again; needs an LLM."""
    from ..llm.factory import build_chat_model, make_meter
    from .assemble import llm_settings

    if kind not in TRANSFORMS:
        raise UsageError(f"unknown transform {kind!r}", setting="transform")
    if kind == "translate" and not language.strip():
        raise UsageError("translate needs a language", setting="language")
    config = llm_settings(app.prepare("transform", **values).settings)
    model = build_chat_model(config, make_meter(config), "synth", app.resources.models)
    if model is None:
        raise UsageError(
            "transforms need an LLM: configure base_url, or set OPENAI_API_KEY, GEMINI_API_KEY or "
            "ANTHROPIC_API_KEY",
            setting="transform",
        )
    ask = TRANSFORMS[kind].format(language=language.strip()[:40])
    prompt = load("transform").format(instruction=ask, report=text.strip()[:MAX_TEXT])
    rewritten = strip_reasoning_text(await complete(model, prompt, MAX_TOKENS)).strip()
    if kind == "translate" and rewritten:
        return check(app, session_id, rewritten, basis=text)
    return check(app, session_id, rewritten or text)
