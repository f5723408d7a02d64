"""What a request may cost, known before any of its work runs.

Every registered tokenizer declares its price (``exactbleu.Price``): seconds per
character, per line, and per known blow-up, measured by ``python benchmarks/load.py prices`` on the
dearest inputs found, the most of three runs times 2 (the same input measured up to three times as
slow at another hour of this shared machine). Counting n-grams has its own prices, per token, by
max order. Each input's whole time is charged to one term, so a mix of them is priced at least at
its cost. A request over the limits gets a message saying which, and what to do instead.
"""

import itertools
import re
from collections.abc import Sequence
from typing import NamedTuple

from exactbleu import TOKENIZERS, Price, packed_token_limit

RUN_LENGTH = Price.RUN_LENGTH

MAX_TOKENS = 1_000_000  # at most this many, counted before tokenizing as characters other than spaces
MAX_SECONDS = 5.0  # of work, estimated before any of it runs
# Counting n-grams, per token, by max order (index 0 is order 1): in packed integer keys, or by
# the definition where a segment's references hold too many distinct tokens for the keys (see
# `exactbleu/engine.py`): a segment whose references have fewer characters cannot.
PACKED_PRICE = (0.3e-6, 0.33e-6, 0.36e-6, 0.33e-6, 0.41e-6, 0.42e-6, 0.42e-6, 0.4e-6)
DEFINITION_PRICE = (0.3e-6, 0.45e-6, 4.1e-6, 5e-6, 5.1e-6, 5.5e-6, 6e-6, 7.6e-6)
EXPLAIN_PRICE = 0.1e-6  # per token and order: explain() builds a dict per n-gram
# The paired tests resample per line: (seconds, seconds per line), by test, at its default samples.
CONVENTIONS_PRICE = 2e-3  # s a segment: its sentence scores under every convention (5.4 s for WMT17's 3,004)
PAIRED_PRICES = {"bootstrap": (0.03, 93e-6), "randomization": (0.5, 83e-6)}
COMMAND_LINE = "score big corpora with the command line, `python -m exactbleu`"


class InputError(ValueError):
    """Input the page can explain: shown as a message, never as a stack trace."""


class Cost(NamedTuple):
    """What a request may cost, known before any of its work runs."""

    tokens: int  # at most this many tokens: characters other than spaces and line breaks
    seconds: float  # at most about this much work, by the prices
    why: str  # what the price is made of, for a message


# A run starts only after a space, a line break or the start: so the search is linear in the text.
_LONG_RUN = re.compile(f"(?<![^ \n])[^ \n]{{{RUN_LENGTH},}}")


def cost_of(predictions: Sequence[str], references: Sequence[Sequence[str]], tokenizer: str, max_order: int) -> Cost:
    """The cost of tokenizing and counting these segments (``references``: a list per
    prediction) with this tokenizer up to this order. Every named tokenizer gives at most a token
    per character that is not a space or a line break; this counts those, never a token."""
    price, packed_limit = TOKENIZERS[tokenizer].price, packed_token_limit(max_order)
    text = "\n".join(itertools.chain(predictions, itertools.chain.from_iterable(references)))
    lines = len(predictions) + sum(map(len, references))
    characters = len(text) - (lines - 1)
    tokens = characters - text.count(" ")
    periods = text.count(".") if price.period else 0
    runs = [match.end() - match.start() for match in _LONG_RUN.finditer(text)] if price.run else []
    reference_lengths = [sum(map(len, segment)) for segment in references]
    unpacked = sum(len(prediction) + length for prediction, length in zip(predictions, reference_lengths)
                   if length >= packed_limit)
    seconds = (characters * price.character + lines * price.line + periods * price.period
               + sum(run * run for run in runs) * price.run
               + tokens * PACKED_PRICE[max_order - 1] + unpacked * DEFINITION_PRICE[max_order - 1])
    why = f"{characters:,} characters in {lines:,} lines"
    if periods:
        why += f", {periods:,} periods"
    if runs:
        why += f", a run of {max(runs):,} characters without a space"
    return Cost(tokens, seconds, why)


def checked_cost(cost: Cost, tokenizer: str, limit: int = MAX_TOKENS, what: str = "the texts",
                 advice: str = COMMAND_LINE) -> Cost:
    """``cost``, if the Space takes it; else a message saying what is over which limit."""
    if cost.tokens > limit:
        raise InputError(f"{what} hold up to {cost.tokens:,} tokens (any character but a space or a line break "
                         f"may be one), more than the {limit:,} the Space takes; {advice}")
    if cost.seconds > MAX_SECONDS:
        raise InputError(f"{what} would take up to {cost.seconds:.1f} s with tokenizer {tokenizer!r} ({cost.why}); "
                         f"the Space takes requests of up to {MAX_SECONDS:g} s: send fewer lines, choose a cheaper "
                         f"tokenizer, or {advice}")
    return cost


def explain_cost(cost: Cost, max_order: int) -> Cost:
    """explain() tokenizes and counts as scoring does, and makes a dict per n-gram of every order."""
    return cost._replace(seconds=2 * cost.seconds + cost.tokens * max_order * EXPLAIN_PRICE)


def conventions_cost(costs: Sequence[Cost], segments: int) -> Cost:
    """Every convention: each tokenization counted twice (as written and lowercased), then each
    segment scored under every smoothing method, NLTK's methods 5 to 7 the dearest."""
    return Cost(max(cost.tokens for cost in costs), 2 * sum(cost.seconds for cost in costs)
                + segments * CONVENTIONS_PRICE, costs[0].why)


def paired_cost(cost: Cost, test: str, lines: int) -> Cost:
    """A paired test resamples per line, on top of counting both systems."""
    fixed, per_line = PAIRED_PRICES[test]
    return cost._replace(seconds=cost.seconds + fixed + per_line * lines)
