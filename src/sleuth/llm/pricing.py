"""What model calls cost: a built-in table of list prices in US$ per million tokens.

Names are matched by longest prefix (lower case, an OpenRouter-style `vendor/` prefix dropped,
and also tried with dots as dashes), so `gpt-4o-mini-2024-07-18` and `openai/gpt-4o-mini` both
find `gpt-4o-mini`, `anthropic/claude-sonnet-4.5` finds `claude-sonnet-4-5`, and `gpt-4o-mini`
never falls back to `gpt-4o`. Keys keep their dots so `gpt-5-2025-08-07` cannot match `gpt-5.2`.
An unknown model is unpriced (None), which the meter reports instead of guessing. Azure OpenAI
deployments are priced as the OpenAI model the reply names (Azure's global standard prices
are OpenAI's list prices).
`SLEUTH_PRICE_INPUT_PER_MTOK` / `SLEUTH_PRICE_OUTPUT_PER_MTOK` override the table for every model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import ConfigError


@dataclass(frozen=True, slots=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1e6


# List prices as published by the vendors (standard tier, no caching or batch discounts).
BUILTIN_PRICES: Mapping[str, Price] = {
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-5": Price(1.25, 10.00),
    "gpt-5-mini": Price(0.25, 2.00),
    "gpt-5-nano": Price(0.05, 0.40),
    "gpt-5-pro": Price(15.00, 120.00),
    "gpt-5.4": Price(2.50, 15.00),
    "gpt-5.4-mini": Price(0.75, 4.50),
    "gpt-5.4-nano": Price(0.20, 1.25),
    "gpt-5.4-pro": Price(30.00, 180.00),
    "gpt-5.5": Price(5.00, 30.00),
    "gpt-5.5-pro": Price(30.00, 180.00),
    "o1": Price(15.00, 60.00),
    "o1-mini": Price(1.10, 4.40),
    "o3": Price(2.00, 8.00),
    "o3-mini": Price(1.10, 4.40),
    "o3-pro": Price(20.00, 80.00),
    "o4-mini": Price(1.10, 4.40),
    "claude-opus-4": Price(15.00, 75.00),
    "claude-opus-4-5": Price(5.00, 25.00),
    "claude-opus-4-6": Price(5.00, 25.00),
    "claude-opus-4-7": Price(5.00, 25.00),
    "claude-opus-4-8": Price(5.00, 25.00),
    "claude-opus-5": Price(5.00, 25.00),
    "claude-opus-5-5": Price(4.00, 20.00),
    "claude-sonnet-5": Price(2.00, 10.00),
    "claude-sonnet-4": Price(3.00, 15.00),
    "claude-haiku-4": Price(1.00, 5.00),
    "claude-3-7-sonnet": Price(3.00, 15.00),
    "claude-3-5-sonnet": Price(3.00, 15.00),
    "claude-3-5-haiku": Price(0.80, 4.00),
    "claude-3-opus": Price(15.00, 75.00),
    "claude-3-haiku": Price(0.25, 1.25),
    # Gemini: paid tier, prompts up to 200k tokens; thinking tokens are billed as output.
    "gemini-3-pro": Price(2.00, 12.00),
    "gemini-3-flash": Price(0.50, 3.00),
    "gemini-2.5-pro": Price(1.25, 10.00),
    "gemini-2.5-flash": Price(0.30, 2.50),
    "gemini-2.5-flash-lite": Price(0.10, 0.40),
    "gemini-2.0-flash": Price(0.10, 0.40),
    "gemini-2.0-flash-lite": Price(0.075, 0.30),
    "gemini-1.5-pro": Price(1.25, 5.00),
    "gemini-1.5-flash": Price(0.075, 0.30),
    "local": Price(0.0, 0.0),
}


def _spellings(model: str) -> tuple[str, str]:
    name = model.lower().rsplit("/", 1)[-1]
    return name, name.replace(".", "-")


@dataclass(frozen=True, slots=True)
class Prices:
    table: Mapping[str, Price]
    override: Price | None = None  # from the environment; applies to every model
    free: frozenset[str] = frozenset()  # models served locally (loopback endpoint)

    def lookup(self, model: str) -> Price | None:
        if self.override is not None:
            return self.override
        if model in self.free:
            return Price(0.0, 0.0)
        names = _spellings(model)
        matches = [k for k in self.table if any(n.startswith(k) for n in names)]
        return self.table[max(matches, key=len)] if matches else None

    def with_free(self, *models: str) -> Prices:
        return Prices(self.table, self.override, self.free | frozenset(models))


DEFAULT_PRICES = Prices(BUILTIN_PRICES)


def prices_from_env(env: Mapping[str, str]) -> Prices:
    """The built-in table, overridden by SLEUTH_PRICE_*_PER_MTOK when either is set."""
    raw_in = env.get("SLEUTH_PRICE_INPUT_PER_MTOK")
    raw_out = env.get("SLEUTH_PRICE_OUTPUT_PER_MTOK")
    if raw_in is None and raw_out is None:
        return DEFAULT_PRICES
    override = Price(
        _price("SLEUTH_PRICE_INPUT_PER_MTOK", raw_in),
        _price("SLEUTH_PRICE_OUTPUT_PER_MTOK", raw_out),
    )
    return Prices(BUILTIN_PRICES, override)


def _price(name: str, raw: str | None) -> float:
    if raw is None or not raw.strip():
        return 0.0
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(
            f"{name} must be a number of US$ per million tokens, got {raw!r}"
        ) from None
    if value < 0:
        raise ConfigError(f"{name} must not be negative, got {raw!r}")
    return value
