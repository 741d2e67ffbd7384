"""`sleuth ask "QUESTION"` — the default command: research a question, print a cited answer."""

from __future__ import annotations

from typing import Any

import click

from .configmap import load, own
from .options import (
    CHECKS,
    DEPTH,
    LLM,
    MODELS,
    OUTPUT,
    READING,
    SEARCH,
    SESSION,
    option,
    table_options,
)
from .runner import Output, research

EXAMPLES = """
\b
Examples:
  sleuth "how long does Example Cloud keep audit logs?"
  sleuth ask "what changed in Python 3.13?" --json --out=answer.json
  sleuth ask -i "which vector database suits a small team?"
  sleuth ask "what does our policy say about refunds?" --search=none --include=docs/
  sleuth ask "latest CPython release" --since=30d --search=multi:duckduckgo,news
  SLEUTH_SEARXNG_URL=http://127.0.0.1:8888 sleuth ask "Q" --search=searxng --verbose
"""

RUN_SETTINGS = (*OUTPUT, *SEARCH, *READING, *LLM, *MODELS, *DEPTH, *SESSION, *CHECKS)


@click.command(epilog=EXAMPLES)
@click.argument("question", nargs=-1, required=True)
@table_options(*RUN_SETTINGS)
@option(
    "--interactive",
    "-i",
    is_flag=True,
    help="Steer the run: answer clarifying questions, edit the plan, add rounds, ask for a "
    "tone, length and audience (prompts on stderr; each stage saved).",
)
def ask(question: tuple[str, ...], interactive: bool, **flags: Any) -> None:
    """Research QUESTION and print an answer in which every claim cites a source it read.

    Progress goes to stderr; the answer (or --json) to stdout. Exit codes: 0 ok, 1 error,
    2 budget cap hit, 3 no sources, 4 --strict-cites failure, 5 --max-runtime reached.
    """
    ctx = click.get_current_context()
    resolved = load(ctx)
    text, values = " ".join(question), resolved.given("engine", "run", "session")
    output = Output.of(resolved.values, text)
    if own(ctx, resolved, "interactive"):
        from .interactive import steer_in_terminal

        steer_in_terminal(text, values, output, resolved.settings())
        return
    research(
        lambda app, on_event: app.ask(text, on_event=on_event, **values),
        output,
        settings=resolved.settings(),
    )


COMMANDS = [ask]
