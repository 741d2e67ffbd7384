"""Structured output: the model fills a JSON Schema from the sources, validated in code.

Anything the sources do not support must be null, and null is accepted in any field (the
schema's types are for the values the sources state). The reply is validated with
`jsonschema`; one repair attempt gets the validation error back, then a clear error ends the
run.
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
from .linear_schema import check_patterns, linear_validator

MAX_SCHEMA_DEPTH = 32  # nesting of objects and arrays; real schemas stay under ten
REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")


def check_schema(schema: Any) -> dict[str, Any]:
    """A usable JSON Schema for an object, or a UsageError saying what is wrong.

    References must point inside the schema (`#/...`): a remote `$ref` made the validator fetch
    a URL past the address guard, and one that never answered held a run past its limit.
    """
    if not isinstance(schema, dict):
        raise UsageError("the schema must be a JSON object (a JSON Schema with type object)")
    if schema.get("type", "object") != "object":
        raise UsageError(f"the schema must describe an object, not {schema.get('type')!r}")
    _check_shape(schema)
    import jsonschema  # only runs with a schema pay for it

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise UsageError(f"the schema is not a valid JSON Schema: {exc.message}") from None
    except RecursionError:
        raise UsageError("the schema refers to itself without end") from None
    return schema


def _check_shape(schema: dict[str, Any]) -> None:
    """Depth and references, walked without recursion (a schema may be 100,000 levels deep)."""
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            raise UsageError(f"the schema is nested more than {MAX_SCHEMA_DEPTH} levels deep")
        if isinstance(node, dict):
            check_patterns(node)
            for key in REF_KEYS:
                ref = node.get(key)
                if ref is not None and not (isinstance(ref, str) and ref.startswith("#")):
                    raise UsageError(
                        f"the schema's {key} {str(ref)[:80]!r} points outside it; only "
                        "references within the schema (#/...) are allowed"
                    )
            stack.extend((value, depth + 1) for value in node.values())
        elif isinstance(node, list):
            stack.extend((value, depth + 1) for value in node)


def _no_remote(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


def validator(schema: dict[str, Any]) -> Any:
    """A validator that resolves references only within `schema`, never by fetching, and
    matches the schema's regular expressions on RE2 (`linear_schema`), never backtracking."""
    import jsonschema
    from referencing import Registry

    registry: Registry[Any] = Registry(retrieve=_no_remote)  # type: ignore[call-arg]
    cls = linear_validator(jsonschema.validators.validator_for(schema))
    return cls(schema, registry=registry)


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
    from referencing.exceptions import Unresolvable

    try:
        found = validator(schema).iter_errors(data)
        errors = sorted((e for e in found if not _unstated(e)), key=lambda e: list(e.path))
    except RecursionError:
        return data, "the schema refers to itself without end"
    except Unresolvable as exc:
        return data, f"the schema has a reference that cannot be resolved: {exc}"
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(root)"
        return data, f"{where}: {errors[0].message}"
    return data, None


def _unstated(error: Any) -> bool:
    """An error about a null value: the prompt asks for null where the sources say nothing,
    so null is accepted for any field, whatever type the schema gives it (the Research API
    seed's own example schema has no nullable field). A missing key is still an error."""
    return error.instance is None and bool(error.path)
