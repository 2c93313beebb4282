"""Usage -> dollars, with the genai-prices library and its offline price snapshot.

Anthropic reports ``input_tokens`` without the cache reads and writes; genai-prices wants
the total prompt tokens with the cached parts broken out, so ``Usage.prompt_tokens`` is
passed as the input. Local, Ollama and scripted calls have no price provider: they cost $0
but still record tokens and time. A model the price library does not know costs ``None``
(unknown), never a made-up zero.
"""

from __future__ import annotations

from functools import lru_cache

from .records import Usage

PER_MTOK = "per-mtok:"  # a price provider "per-mtok:IN:OUT": dollars per million input and output tokens


def call_cost(provider: str | None, model: str, usage: Usage) -> float | None:
    if provider is None:
        return 0.0
    if provider.startswith(PER_MTOK):  # a private deployment's own price: [openai] price_per_mtok
        low, high = (float(x) for x in provider.removeprefix(PER_MTOK).split(":"))
        return (usage.prompt_tokens * low + usage.output_tokens * high) / 1_000_000
    import genai_prices

    try:
        calc = genai_prices.calc_price(
            genai_prices.Usage(
                input_tokens=usage.prompt_tokens,
                output_tokens=usage.output_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                cache_read_tokens=usage.cache_read_tokens,
            ),
            model,
            provider_id=provider,
        )
    except LookupError:
        return None
    return float(calc.total_price)


@lru_cache(maxsize=64)
def price_known(provider: str | None, model: str) -> bool:
    return call_cost(provider, model, Usage(input_tokens=1, output_tokens=1)) is not None


def estimate_cost(provider: str | None, model: str, input_tokens: int, output_tokens: int) -> float | None:
    """A cost estimate without cache discounts (an upper bound for cached prefixes)."""
    return call_cost(provider, model, Usage(input_tokens=input_tokens, output_tokens=output_tokens))


def dollars(value: float | None) -> str:
    if value is None:
        return "unknown"
    if value == 0:
        return "$0"
    if value < 0.01:
        return f"${value:.4f}"
    return f"${value:.2f}"
