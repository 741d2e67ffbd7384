from __future__ import annotations

import pytest

from sleuth.errors import BudgetExceededError, ConfigError
from sleuth.llm.meter import Meter
from sleuth.llm.pricing import DEFAULT_PRICES, Price, prices_from_env
from sleuth.ports import TokenUsage
from sleuth.types import ModelUsage, Usage


@pytest.mark.parametrize(
    ("model", "price"),
    [
        ("gpt-4o", Price(2.50, 10.00)),
        ("gpt-4o-2024-08-06", Price(2.50, 10.00)),
        ("gpt-4o-mini", Price(0.15, 0.60)),
        ("gpt-4o-mini-2024-07-18", Price(0.15, 0.60)),
        ("openai/gpt-4.1-mini", Price(0.40, 1.60)),
        ("gpt-5-2025-08-07", Price(1.25, 10.00)),
        ("gpt-5.4-mini", Price(0.75, 4.50)),
        ("o3-mini", Price(1.10, 4.40)),
        ("o4-mini-2025-04-16", Price(1.10, 4.40)),
        ("claude-sonnet-4-6", Price(3.00, 15.00)),
        ("anthropic/claude-sonnet-4.5", Price(3.00, 15.00)),
        ("claude-opus-4-1-20250805", Price(15.00, 75.00)),
        ("claude-opus-4-6", Price(5.00, 25.00)),
        ("claude-haiku-4-5-20251001", Price(1.00, 5.00)),
        ("claude-3-5-haiku-latest", Price(0.80, 4.00)),
        ("local", Price(0.0, 0.0)),
    ],
)
def test_longest_prefix_price(model: str, price: Price) -> None:
    assert DEFAULT_PRICES.lookup(model) == price


@pytest.mark.parametrize("model", ["llama3.1:8b", "qwen2.5", "mystery-model", "gpt-6"])
def test_unknown_models_are_unpriced(model: str) -> None:
    assert DEFAULT_PRICES.lookup(model) is None


def test_env_override_prices_every_model() -> None:
    prices = prices_from_env(
        {"SLEUTH_PRICE_INPUT_PER_MTOK": "1.5", "SLEUTH_PRICE_OUTPUT_PER_MTOK": "3"}
    )
    assert prices.lookup("llama3.1:8b") == Price(1.5, 3.0)
    assert prices.lookup("gpt-4o") == Price(1.5, 3.0)
    assert prices_from_env({}).lookup("llama3.1:8b") is None


@pytest.mark.parametrize("value", ["cheap", "-1"])
def test_bad_price_override_is_a_config_error(value: str) -> None:
    with pytest.raises(ConfigError, match="SLEUTH_PRICE_INPUT_PER_MTOK"):
        prices_from_env({"SLEUTH_PRICE_INPUT_PER_MTOK": value})


def test_free_models_cost_nothing() -> None:
    assert DEFAULT_PRICES.with_free("llama3.1:8b").lookup("llama3.1:8b") == Price(0.0, 0.0)


def test_meter_totals_per_model_and_fits_usage() -> None:
    meter = Meter()
    meter.record(TokenUsage("gpt-4o-mini", 3_000, 500))
    meter.record(TokenUsage("gpt-4o-mini", 2_210, 312))
    meter.record(TokenUsage("llama3.1:8b", 100, 10))
    meter.add_ms(1200)
    by_model = meter.by_model()
    assert by_model["gpt-4o-mini"] == ModelUsage(2, 5_210, 812, 0.001269)
    assert by_model["llama3.1:8b"] == ModelUsage(1, 100, 10, None)
    assert meter.model_ms == 1200
    assert Usage(by_model=by_model).to_json()["llm"]["calls"] == 3


def test_summary_line_single_model() -> None:
    meter = Meter()
    assert meter.summary_line() == ""
    for usage in [(3_000, 500), (2_000, 200), (210, 112)]:
        meter.record(TokenUsage("gpt-4o-mini", *usage))
    assert meter.summary_line() == "cost · $0.0013 · gpt-4o-mini 3 calls 5,210→812 tok"


def test_summary_line_several_models_and_unpriced() -> None:
    meter = Meter()
    meter.record(TokenUsage("gpt-4o", 10_000, 1_000))
    meter.record(TokenUsage("llama3.1:8b", 50, 5))
    assert meter.summary_line() == (
        "cost · $0.0350 · gpt-4o 1 call 10,000→1,000 tok $0.0350"
        " · llama3.1:8b 1 call 50→5 tok unpriced"
    )
    only_unpriced = Meter()
    only_unpriced.record(TokenUsage("llama3.1:8b", 50, 5))
    assert only_unpriced.summary_line() == "cost · unpriced · llama3.1:8b 1 call 50→5 tok unpriced"


def test_budget_is_checked_against_the_cap() -> None:
    meter = Meter(max_cost_usd=0.01)
    meter.check_budget()
    meter.record(TokenUsage("gpt-4o", 2_000, 400))  # $0.009
    meter.check_budget()
    meter.record(TokenUsage("gpt-4o", 200, 100))  # now $0.0105
    with pytest.raises(BudgetExceededError) as info:
        meter.check_budget()
    assert str(info.value) == "cost cap reached: spent $0.0105 of $0.0100"
    assert info.value.exit_code == 2


def test_budget_error_names_unpriced_models() -> None:
    meter = Meter(max_cost_usd=0.001)
    meter.record(TokenUsage("gpt-4o", 1_000, 0))
    meter.record(TokenUsage("llama3.1:8b", 9_999, 9_999))
    with pytest.raises(BudgetExceededError, match=r"not counting unpriced models: llama3.1:8b"):
        meter.check_budget()


def test_no_cap_never_stops() -> None:
    meter = Meter()
    meter.record(TokenUsage("gpt-4o", 10**9, 10**9))
    meter.check_budget()
