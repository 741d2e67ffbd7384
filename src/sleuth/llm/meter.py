"""Token, time and cost accounting for one run, and the `--max-cost` guard.

Chat models record each call's TokenUsage and the milliseconds it took, and call `check_budget()`
before every call, so a run stops before the call that would go over the cap rather than after.
Unpriced models (not in the table, no override) count tokens but no dollars; the budget error and
the summary say so, because then the cap cannot see everything that was spent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import BudgetExceededError
from ..ports import TokenUsage
from ..types import ModelUsage
from .pricing import DEFAULT_PRICES, Prices


@dataclass(slots=True)
class _Tally:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


class Meter:
    def __init__(self, max_cost_usd: float | None = None, prices: Prices = DEFAULT_PRICES) -> None:
        self.max_cost_usd = max_cost_usd
        self.prices = prices
        self.model_ms = 0
        self._tallies: dict[str, _Tally] = {}

    def record(self, usage: TokenUsage) -> None:
        tally = self._tallies.setdefault(usage.model, _Tally())
        tally.calls += 1
        tally.input_tokens += usage.input_tokens
        tally.output_tokens += usage.output_tokens

    def add_ms(self, ms: int) -> None:
        """Time spent waiting on model calls, failed ones included."""
        self.model_ms += ms

    def by_model(self) -> dict[str, ModelUsage]:
        return {name: self._usage(name, t) for name, t in self._tallies.items()}

    @property
    def spent_usd(self) -> float:
        return sum(u.cost_usd or 0.0 for u in self.by_model().values())

    @property
    def unpriced(self) -> tuple[str, ...]:
        return tuple(n for n, u in self.by_model().items() if u.cost_usd is None)

    def check_budget(self) -> None:
        """Raise BudgetExceededError once the priced spend has reached the cap."""
        cap = self.max_cost_usd
        if cap is None or self.spent_usd < cap:
            return
        message = f"cost cap reached: spent ${self.spent_usd:.4f} of ${cap:.4f}"
        if self.unpriced:
            message += f" (not counting unpriced models: {', '.join(self.unpriced)})"
        raise BudgetExceededError(message)

    def summary_line(self) -> str:
        """e.g. `cost · $0.0132 · gpt-4o-mini 3 calls 5,210→812 tok`; empty before any call."""
        return summary_of(self.by_model())

    def _usage(self, name: str, t: _Tally) -> ModelUsage:
        price = self.prices.lookup(name)
        cost = None if price is None else round(price.cost(t.input_tokens, t.output_tokens), 6)
        return ModelUsage(t.calls, t.input_tokens, t.output_tokens, cost)


def _cost_label(cost: float | None) -> str:
    return "unpriced" if cost is None else f"${cost:.4f}"


def summary_of(usages: Mapping[str, ModelUsage]) -> str:
    """The one-line cost summary of a run's model use; empty when no model was called."""
    if not usages:
        return ""
    unpriced = [n for n, u in usages.items() if u.cost_usd is None]
    spent = sum(u.cost_usd or 0.0 for u in usages.values())
    total = "unpriced" if len(unpriced) == len(usages) else f"${spent:.4f}"
    parts = [f"cost · {total}"]
    for name, u in usages.items():
        calls = f"{u.calls} call" + ("" if u.calls == 1 else "s")
        tokens = f"{u.input_tokens:,}→{u.output_tokens:,} tok"
        own_cost = _cost_label(u.cost_usd) if len(usages) > 1 or u.cost_usd is None else ""
        parts.append(" ".join(p for p in (name, calls, tokens, own_cost) if p))
    return " · ".join(parts)
