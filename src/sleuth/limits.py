"""Fixed limits every face shares, named once: how long a question may be, what "deep" means
when no number of rounds is given, and how long a run may take when nothing says otherwise.

At the bottom of the layers (beside `types`), so the engine, the application, the settings
table, the API models, the MCP tools, the web UI and batch lines all import the same numbers.
"""

from __future__ import annotations

from typing import Literal

MAX_QUESTION_CHARS = 2000  # a question (the API's `query`, a batch line's, the UI's) at most
MAX_PROMPT_OVERRIDE_CHARS = 8000  # one promptOverrides text (a stage's instructions) at most
MAX_PROMPT_OVERRIDES = 32  # promptOverrides keys in one request at most (the seed defines 13)
DEEP_ROUNDS = 2  # critic rounds after the first of a bare `--deep` / `depth: deep`: three in all
QUICK_LIMIT_S = 45.0  # a quick run stops here unless max_runtime says otherwise (the seed's)
DEEP_LIMIT_S = 150.0  # a deep one here
# `deep` given as False: a quick run, whatever a default, profile or variable says; None would
# mean "not given" and let those apply.
QUICK = False


def deep_value(depth: Literal["quick", "deep"] | str) -> int | bool:
    """The `deep` setting an API's `depth` field means: DEEP_ROUNDS, or explicitly quick."""
    return DEEP_ROUNDS if depth == "deep" else QUICK


def run_limit_s(depth: Literal["quick", "deep"] | str) -> float:
    """How long a run of this depth may take when max_runtime is not set."""
    return DEEP_LIMIT_S if depth == "deep" else QUICK_LIMIT_S
