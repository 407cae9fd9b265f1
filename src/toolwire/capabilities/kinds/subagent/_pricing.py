"""What a model's tokens cost: `ModelPrice`, a price table, and `cost_of`.

Prices are US dollars per million tokens, per model name as the endpoint reports it (or as
the runner requested it). A model missing from the table has an unknown cost (``None``), never
a guessed one.

```python
prices = {"gpt-4.1-mini": ModelPrice(input_per_mtok=0.40, output_per_mtok=1.60)}
```
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from toolwire.capabilities.kinds.subagent.seam import SubagentUsage
from toolwire.errors import ConfigurationError

__all__ = ["ModelPrice", "PriceTable", "cost_of", "price_table"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelPrice:
    """Dollars per million prompt (input) and completion (output) tokens.

    Raises:
        ConfigurationError: a price that is negative or not a finite number.
    """

    input_per_mtok: float
    output_per_mtok: float

    def __post_init__(self) -> None:
        for name in ("input_per_mtok", "output_per_mtok"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
            ):
                raise ConfigurationError(
                    f"ModelPrice({name}={value!r}) must be a finite number of dollars >= 0"
                )


PriceTable = Mapping[str, ModelPrice]
"""Model name → its price."""


def price_table(raw: Mapping[str, object]) -> dict[str, ModelPrice]:
    """A price table from config data: ``{"model": {"input_per_mtok": .., "output_per_mtok": ..}}``
    (or `ModelPrice` values, kept).

    Raises:
        ConfigurationError: an entry that is not such a table.
    """
    table: dict[str, ModelPrice] = {}
    for model, entry in raw.items():
        if isinstance(entry, ModelPrice):
            table[model] = entry
            continue
        if not isinstance(entry, Mapping) or set(entry) != {"input_per_mtok", "output_per_mtok"}:
            raise ConfigurationError(
                f"prices[{model!r}] must be a table with input_per_mtok and output_per_mtok "
                "(dollars per million tokens)"
            )
        table[model] = ModelPrice(
            input_per_mtok=entry["input_per_mtok"], output_per_mtok=entry["output_per_mtok"]
        )
    return table


def cost_of(usage: SubagentUsage, prices: PriceTable, *models: str | None) -> float | None:
    """The dollar cost of ``usage`` at the price of the first of ``models`` in ``prices``;
    ``None`` when none of them is priced."""
    for model in models:
        if model is not None and model in prices:
            price = prices[model]
            return (
                usage.prompt_tokens * price.input_per_mtok
                + usage.completion_tokens * price.output_per_mtok
            ) / 1_000_000
    return None
