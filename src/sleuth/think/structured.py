"""Structured output: the model fills a JSON Schema from the sources, validated in code.

Anything the sources do not support must be null. The reply is validated with `jsonschema`;
one repair attempt gets the validation error back, then a clear error ends the run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..errors import LLMError, UsageError
from ..llm.complete import complete
from ..llm.parse import parse_object
from ..pipeline.write.llm import format_sources
from ..ports import ChatModel
from ..prompts import load
from ..types import Source


def check_schema(schema: Any) -> dict[str, Any]:
    """A usable JSON Schema for an object, or a UsageError saying what is wrong."""
    if not isinstance(schema, dict):
        raise UsageError("the schema must be a JSON object (a JSON Schema with type object)")
    if schema.get("type", "object") != "object":
        raise UsageError(f"the schema must describe an object, not {schema.get('type')!r}")
    import jsonschema  # only runs with a schema pay for it

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise UsageError(f"the schema is not a valid JSON Schema: {exc.message}") from None
    return schema


class Structurer:
    def __init__(self, model: ChatModel, context_tokens: int = 16000) -> None:
        self.model = model
        self.context_tokens = context_tokens

    async def fill(
        self, question: str, schema: dict[str, Any], sources: Sequence[Source]
    ) -> dict[str, Any]:
        budget = max(2000, (self.context_tokens - 3000) * 4)
        prompt = load("structured").format(
            question=question,
            schema=json.dumps(schema, indent=1),
            sources=format_sources(sources, budget),
        )
        reply = await complete(self.model, prompt, 1500)
        data, error = _validated(reply, schema)
        if error is None:
            return data
        repair = load("structured_repair").format(error=error, reply=reply[:4000])
        data, error = _validated(await complete(self.model, prompt + "\n\n" + repair, 1500), schema)
        if error is None:
            return data
        raise LLMError(f"the model's structured output does not match the schema: {error}")


def _validated(reply: str, schema: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    data = parse_object(reply)
    if data is None:
        return {}, "the reply contains no JSON object"
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(root)"
        return data, f"{where}: {errors[0].message}"
    return data, None
