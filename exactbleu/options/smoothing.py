"""Smoothing methods, declared once: each method's name, the arithmetic it belongs to, the default
of its ``smooth_value``, whether sacrebleu's effective order applies to it, how many orders its
statistics must count, and what it does.

This is a declaration, not arithmetic: ``scoring`` reads it to choose the arithmetic, whose module
holds each method's formula (its ``METHODS``), and the options, the command line, the docs' table
and the Space read their choices from it. It imports nothing heavy, so the command line can offer
the choices without loading numpy.
"""

from typing import NamedTuple

from ..registry import Registry, markdown_table
from ..tokenizers.registry import Needs

# The arithmetics, by the name their modules in ``scoring`` carry (``NAME``).
HF, SACREBLEU, NLTK, COCO, T2T, MTEVAL, CODEXGLUE, IGNITE, FAIRSEQ, TORCHMETRICS = (
    "HF", "sacrebleu", "NLTK", "COCO", "tensor2tensor", "mteval", "CodeXGLUE", "ignite", "fairseq", "torchmetrics")
# torchmetrics' arithmetic is torch's float32 operations themselves (their log and exp are not
# correctly rounded, so no other library gives the same floats).
TORCH = Needs(("torch",), "torch", 'pip install "exactbleu[torch]"')


class Smoothing(NamedTuple):
    """A smoothing method: its name, the arithmetic it belongs to (``SACREBLEU``, ``NLTK``, ``COCO``,
    ``T2T``, ``MTEVAL``, ``CODEXGLUE``, ``IGNITE``, ``FAIRSEQ`` or ``TORCHMETRICS``), the default of its
    ``smooth_value`` (None: it takes none), what it does, whether sacrebleu's effective order applies to it, the
    order its statistics count through at least (NLTK's methods 5 and 7 smooth with the 5-gram precision at any
    order), whether NLTK's ``weights`` apply to its arithmetic (COCO's takes the n-th root of the precisions'
    product), the most orders it scores (0: any; fairseq's libbleu counts four), and what its arithmetic
    needs beyond the core install (torchmetrics': torch)."""

    name: str
    arithmetic: str
    default: float | None
    describe: str
    effective_order: bool = True
    counts_through: int = 0
    weights: bool = True
    most_orders: int = 0
    needs: Needs | None = None


SMOOTHING: Registry[Smoothing] = Registry("smooth_method", lambda method: method.name)
for _method in (
    # sacrebleu's methods (Chen & Cherry, 2014, as sacrebleu states them).
    Smoothing("none", SACREBLEU, None, "no smoothing: an order without a match makes the score 0"),
    Smoothing("floor", SACREBLEU, 0.1, "an order without a match gets precision `smooth_value` / total"),
    Smoothing("add-k", SACREBLEU, 1, "adds `smooth_value` to matches and totals from order 2 on"),
    Smoothing("exp", SACREBLEU, None, "the k-th order without a match gets precision 1 / (2^k total)"),
    # NLTK's SmoothingFunction methods; method0 is its name for no smoothing, the "nltk" preset's.
    Smoothing("method0", NLTK, None, "no smoothing: a precision of 0 counts as `sys.float_info.min`", False),
    Smoothing("method1", NLTK, 0.1, "an order without a match gets `smooth_value` (epsilon) / total", False),
    Smoothing("method2", NLTK, None, "adds 1 to matches and totals from order 2 on (Lin & Och, 2004)", False),
    Smoothing("method3", NLTK, None, "the k-th order without a match gets 1 / (2^k total) (NIST)", False),
    Smoothing("method4", NLTK, None, "as method3, scaled by k / log(hypothesis length), k = 5", False),
    Smoothing("method5", NLTK, None, "each precision averaged with its neighbours, the 5-gram's included", False, 5),
    Smoothing("method6", NLTK, None, "interpolates with the previous orders' ratio, alpha = 5", False),
    Smoothing("method7", NLTK, None, "methods 4 and 5 together", False, 5),
    # pycocoevalcap's Bleu, the COCO caption evaluation's: its two epsilons are all its smoothing.
    Smoothing("coco", COCO, None, "pycocoevalcap's: each precision (matches + 1e-15) / (totals + 1e-9), so "
              "none is 0", False, weights=False),
    # tensor2tensor's compute_bleu (t2t-bleu), which always smooths.
    Smoothing("tensor2tensor", T2T, None, "tensor2tensor's: the k-th order without a match gets 1 / (2^k total), "
              "an order without n-grams counts 1; the score is a float32", False, weights=False),
    # mteval-v13a.pl's and mteval-v14.pl's, smoothed by default and under --no-smoothing.
    Smoothing("mteval", MTEVAL, None, "mteval's: the k-th order without a match gets 1 / (2^k total), an order "
              "without n-grams counts 1", False, weights=False),
    Smoothing("mteval-no-smoothing", MTEVAL, None, "mteval's --no-smoothing: an order without a match makes the "
              "score 0", False, weights=False),
    # CodeXGLUE's code-to-text evaluator (its smoothed BLEU-4).
    Smoothing("codexglue-smooth", CODEXGLUE, None, "CodeXGLUE's: adds 1 to matches and totals from order 2 on, "
              "a unigram precision of 0 counts as `sys.float_info.min`; BP from (r + 1) / (c + 1)", False,
              weights=False),
    # pytorch-ignite's Bleu, by its smooth argument's names.
    Smoothing("ignite-no-smooth", IGNITE, None, "ignite's `no_smooth`: an order without a match makes the score 0",
              False, weights=False),
    Smoothing("ignite-smooth1", IGNITE, None, "ignite's `smooth1`: an order without a match gets 0.1 / total", False,
              weights=False),
    Smoothing("ignite-nltk-smooth2", IGNITE, None, "ignite's `nltk_smooth2`: adds 1 to matches and totals from order "
              "2 on, the totals at least 1", False, weights=False),
    Smoothing("ignite-smooth2", IGNITE, None, "ignite's `smooth2`: adds 1 to matches and totals from order 2 on",
              False, weights=False),
    # fairseq's --scoring bleu (libbleu's counts, fairseq.scoring.bleu's score), on token ids.
    Smoothing("fairseq", FAIRSEQ, None, "fairseq's `--scoring bleu`: no smoothing, an order without a match makes the "
              "score 0; up to 4 orders", False, weights=False, most_orders=4),
    # torchmetrics' BLEUScore and SacreBLEUScore as they compute, in float32 (torch's operations).
    Smoothing("torchmetrics", TORCHMETRICS, None, "torchmetrics' `smooth=False`: in float32, an order without a "
              "match makes the score 0", False, needs=TORCH),
    Smoothing("torchmetrics-smooth", TORCHMETRICS, None, "torchmetrics' `smooth=True`: in float32, adds 1 to "
              "matches and totals from order 2 on; an order without a match still makes the score 0", False,
              needs=TORCH),
):
    SMOOTHING.register(_method)


def methods_of(arithmetic: str) -> dict[str, float | None]:
    """The smoothing methods of one arithmetic, with their default values."""
    return {method.name: method.default for method in SMOOTHING.values() if method.arithmetic == arithmetic}


def arithmetic_of(method: str | None) -> str:
    """The arithmetic a smoothing method belongs to; HF's where there is none."""
    return HF if method is None else SMOOTHING[method].arithmetic


def smoothing_table() -> str:
    """The docs' table of the smoothing methods."""
    rows = [["`None`", HF, "no smoothing (`smooth=True`: add one at every order)", "-"]]
    for method in SMOOTHING.values():
        default = "-" if method.default is None else f"default {method.default:g}"
        rows.append([f"`\"{method.name}\"`", method.arithmetic, method.describe, default])
    return markdown_table(["`smooth_method`", "arithmetic", "what it does", "`smooth_value`"], rows)
