"""JSON Schema validation whose regular expressions run in linear time (RE2).

A schema is the caller's, and the reply it is checked against is a model's, which a page can
dictate. `jsonschema` evaluates `pattern` and `patternProperties` with Python's backtracking
`re`: `"pattern": "^(a+)+$"` against forty a's and a '!' takes hours and, holding the GIL, froze
the event loop of the whole server (issue 24). Here the four keywords that evaluate a schema's
regular expressions are replaced by versions that use RE2, which never backtracks; a pattern
RE2 cannot run (look-around, back-references) is refused when the schema is checked.
`unevaluatedProperties` beside `patternProperties` is refused too: jsonschema matches those
patterns with `re` in a helper no keyword override reaches.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

import re2  # google-re2: linear-time matching, no backtracking

from ..errors import UsageError

PATTERN_CACHE = 512  # distinct patterns kept compiled; a schema rarely has more than a few
MAX_PATTERN_CHARS = 2000  # an RE2 program is bounded by memory, the pattern by this
MEMORY_BYTES = 8 * 1024 * 1024  # RE2's own budget for one compiled pattern


@functools.lru_cache(maxsize=PATTERN_CACHE)
def compiled(pattern: str) -> Any:
    """The RE2 program for `pattern`, or a UsageError saying why it cannot run."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UsageError(f"the schema's pattern is longer than {MAX_PATTERN_CHARS} characters")
    options = re2.Options()
    options.max_mem = MEMORY_BYTES
    options.log_errors = False  # the refusal says why; RE2 would also print it to stderr
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        why = (
            exc.args[0].decode(errors="replace")
            if exc.args and isinstance(exc.args[0], bytes)
            else exc
        )
        raise UsageError(
            f"the schema's pattern {pattern[:80]!r} cannot be used ({why}); patterns run on a "
            "linear-time engine without look-around or back-references"
        ) from None


def check_patterns(node: Mapping[str, Any]) -> None:
    """Refuse, at schema-check time, what validation could not run in linear time."""
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        compiled(pattern)
    properties = node.get("patternProperties")
    if isinstance(properties, Mapping):
        for key in properties:
            compiled(str(key))
        if "unevaluatedProperties" in node:
            raise UsageError(
                "the schema combines patternProperties with unevaluatedProperties; "
                "use additionalProperties instead"
            )


def linear_validator(cls: Any) -> Any:
    """`cls` (a jsonschema validator class) with every regex keyword on RE2."""
    import jsonschema

    replaced = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    }
    keep = {name: fn for name, fn in replaced.items() if name in cls.VALIDATORS}
    return jsonschema.validators.extend(cls, keep)


def _matches(pattern: str, text: str) -> bool:
    return compiled(pattern).search(text) is not None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import ValidationError

    if validator.is_type(instance, "string") and not _matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, properties: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in properties.items():
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _extras(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    named = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key
        for key in instance
        if key not in named and not any(_matches(pattern, key) for pattern in patterns)
    ]


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import ValidationError

    if not validator.is_type(instance, "object"):
        return
    extras = _extras(instance, schema)
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        listed = ", ".join(repr(key) for key in sorted(extras))
        yield ValidationError(f"Additional properties are not allowed ({listed} unexpected)")
