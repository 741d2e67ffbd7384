"""Sleuth's LLM layer: the transport between prompts and real models.

`build_chat_model(LLMSettings.from_env(os.environ), meter)` gives a ready `ChatModel` (OpenAI
Chat Completions or Anthropic Messages, streaming, retried, metered, reasoning stripped) or None
when no LLM is configured. The provider modules import their SDKs, so they load only when used.
"""

from __future__ import annotations

from .factory import LLMSettings, build_chat_model, make_meter
from .meter import Meter
from .parse import Verdict, parse_list, parse_verdict
from .pricing import Price, Prices, prices_from_env
from .retry import RetryPolicy
from .thinking import strip_reasoning, strip_reasoning_text

__all__ = [
    "LLMSettings",
    "Meter",
    "Price",
    "Prices",
    "RetryPolicy",
    "Verdict",
    "build_chat_model",
    "make_meter",
    "parse_list",
    "parse_verdict",
    "prices_from_env",
    "strip_reasoning",
    "strip_reasoning_text",
]
