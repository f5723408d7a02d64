"""Combinations of options that an arithmetic cannot honour, each a ValueError that says why,
checked once the settings are resolved: more orders than fairseq's scorer counts, and lowercasing
that torchmetrics' SacreBLEUScore does after its split.
"""

from ..tokenizers import WORDS
from .declared import Settings
from .smoothing import SMOOTHING, TORCHMETRICS


def check_combinations(settings: Settings) -> None:
    """A ValueError where resolved settings combine options that their arithmetic cannot honour."""
    _most_orders(settings)
    _lowercase_order(settings)


def _most_orders(settings: Settings) -> None:
    """A ValueError where the smoothing method's arithmetic scores fewer orders than max_order."""
    method = settings.scoring.smooth_method
    most = SMOOTHING[method].most_orders if method is not None else 0
    if most and settings.statistics.max_order > most:
        raise ValueError(f"max_order must be at most {most} under smooth_method={method!r}, whose scorer counts "
                         f"{most} orders, got {settings.statistics.max_order}")


def _lowercase_order(settings: Settings) -> None:
    """A ValueError where torchmetrics' arithmetic meets lowercasing of a tokenizer that is not the
    whitespace split: its SacreBLEUScore lowercases the tokens after the split, exactbleu the text
    before it (as sacrebleu does), and the two part ways on a few texts ("&AMP;" under 13a)."""
    tokenize = settings.tokenize
    method = settings.scoring.smooth_method
    if (method is not None and SMOOTHING[method].arithmetic == TORCHMETRICS and tokenize.lowercase
            and tokenize.tokenizer != WORDS):
        raise ValueError(f"lowercase=True under smooth_method={method!r}: torchmetrics' SacreBLEUScore lowercases the "
                         f"tokens after its split, exactbleu the text before it, as sacrebleu does, and the two differ "
                         f"on some texts (\"&AMP;\"): exactbleu does not give that number; leave lowercase out, or "
                         f"score with the \"sacrebleu\" preset")
