"""exactbleu in mbrs, naist-nlp's toolkit for minimum Bayes risk decoding: ``MetricBLEU``, a BLEU
that mbrs's decoders take in place of mbrs's own, with its numbers.

mbrs's own ``MetricBLEU`` is sacrebleu's ``BLEU``: it scores every pair with ``sentence_score``, one
pair at a time, in a process pool that each call starts anew. This one takes the same ``Config``,
resolved as ``compat.bleu_settings`` resolves sacrebleu's fields, and gives mbrs's numbers (float32
tensors equal to mbrs's; floats equal to sacrebleu's ``.score``, on 0..100) from ``bleu_matrix``'s
sparse products and the aggregated utility of ``mbr``, with no process: ``num_workers`` bounds its
threads. It reports to mbrs's timer as mbrs's metrics do, and mbrs's registry knows it as
``"exactbleu"`` (``mbrs.metrics.get_metric("exactbleu")``).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import MissingExtra

try:
    import torch
    from mbrs import timer
    from mbrs.metrics import MetricAggregatable, get_metric, register
except ModuleNotFoundError as error:
    if not (error.name or "").startswith(("mbrs", "torch", "comet")):
        raise
    raise MissingExtra("exactbleu.mbrs", "mbrs", "mbrs", name=error.name) from None

from . import bleu_matrix, mbr, scored, scored_rows, statistics
from .compat import bleu_settings, references_per_segment

NAME = "exactbleu"  # the name mbrs's registry knows this metric by


class MetricBLEU(MetricAggregatable):
    """mbrs's BLEU, without a process pool. ``Config`` has mbrs's fields and takes what sacrebleu's
    ``BLEU`` takes (``compat.bleu_settings``): sacrebleu's four smoothing methods only, so every
    number is on mbrs's 0..100. ``force`` only silences sacrebleu's warning on tokenized text, and
    changes no number."""

    @dataclass
    class Config(MetricAggregatable.Config):
        """mbrs's own BLEU configuration, field for field; ``num_workers`` bounds the threads of
        one call (0 or 1: the calling thread only)."""

        lowercase: bool = False
        force: bool = False
        tokenize: str | None = None
        smooth_method: str = "exp"
        smooth_value: float | None = None
        max_ngram_order: int = 4
        effective_order: bool = True
        trg_lang: str = ""
        num_workers: int = 8

    def __init__(self, cfg: "MetricBLEU.Config"):
        super().__init__(cfg)
        # Checked here, before any decoding.
        self.threads = _threads(cfg.num_workers)
        self.settings = bleu_settings(lowercase=cfg.lowercase, tokenize=cfg.tokenize, smooth_method=cfg.smooth_method,
                                      smooth_value=cfg.smooth_value, max_ngram_order=cfg.max_ngram_order,
                                      effective_order=cfg.effective_order, trg_lang=cfg.trg_lang)

    def score(self, hypothesis: str, reference: str, *_: Any, **__: Any) -> float:
        """The hypothesis's sentence BLEU against the reference: sacrebleu's ``.score`` (a float)."""
        return scored(statistics([hypothesis], [[reference]], self.settings), self.settings).percent()

    def scores(self, hypotheses: list[str], references: list[str], *_: Any, **__: Any) -> torch.Tensor:
        """Each hypothesis's sentence BLEU against the reference beside it, on 0..100 (float32)."""
        with timer.measure("score") as measured:
            measured.set_delta_ncalls(len(hypotheses))
            rows = statistics(hypotheses, [[reference] for reference in references], self.settings,
                              threads=self.threads)
            return torch.tensor(scored_rows(rows, self.settings).percents().tolist())

    def pairwise_scores(self, hypotheses: list[str], references: list[str], *_: Any, **__: Any) -> torch.Tensor:
        """Every hypothesis against every reference, (H, R) on 0..100 (float32); mbrs's
        ``expected_scores`` (its decoders' utilities) averages these."""
        with timer.measure("score") as measured:
            measured.set_delta_ncalls(len(hypotheses) * len(references))
            # Each entry on its arithmetic's own scale: sacrebleu's, the only one bleu_settings
            # admits, states its scores on 0..100.
            matrix = bleu_matrix(hypotheses, references, self.settings, own_scale=True, threads=self.threads)
            return torch.tensor(matrix.tolist()).view(len(hypotheses), len(references))

    def corpus_score(self, hypotheses: list[str], references_lists: list[list[str]],
                     sources: list[str] | None = None) -> float:
        """sacrebleu's corpus BLEU of the hypotheses against the reference streams (one list per
        reference set, as sacrebleu takes them): its ``.score``, on 0..100."""
        per_segment = references_per_segment(references_lists, _count(hypotheses), "references_lists")
        rows = statistics(hypotheses, per_segment, self.settings, threads=self.threads)
        return scored(rows, self.settings).percent()

    def expected_scores_reference_aggregation(self, hypotheses: list[str], references: list[str],
                                              source: str | None = None,
                                              reference_lprobs: torch.Tensor | None = None) -> torch.Tensor:
        """Each hypothesis's BLEU against the expected n-gram counts and length of the references,
        on 0..100 (float32); weighted as mbrs weighs them (its float32 softmax of the log-probabilities).
        Timed as mbrs's aggregatable metrics time it: the references' aggregation, then the
        expectation, with a score per hypothesis."""
        weights = None
        with timer.measure("aggregate/references"):
            # The weights are this face's part of the aggregation; mbr counts the expected n-grams
            # and scores against them in one pass, timed below.
            if reference_lprobs is not None:
                weights = [[math.exp(value) for value in
                            reference_lprobs.log_softmax(dim=-1, dtype=torch.float32).tolist()]]
        with timer.measure("expectation"), timer.measure("score") as measured:
            measured.set_delta_ncalls(len(hypotheses))
            # On the arithmetic's own scale: sacrebleu's, the only one bleu_settings admits, is 0..100.
            utilities = mbr([hypotheses], [references], self.settings, reference_aggregation=True,
                            reference_weights=weights, threads=self.threads, own_scale=True).utilities[0]
            return torch.tensor(utilities.tolist())


def _threads(num_workers: object) -> int:
    """mbrs's ``num_workers`` as the core's ``threads``: 0 (no worker) and 1 count in the calling
    thread, as the core's one thread does."""
    if isinstance(num_workers, bool) or not isinstance(num_workers, int):
        raise TypeError(f"num_workers must be an int, 0 or more (0: no worker threads), got "
                        f"{type(num_workers).__name__}: {num_workers!r:.80}")
    if num_workers < 0:
        raise ValueError(f"num_workers must be an int, 0 or more (0: no worker threads), got {num_workers}")
    return max(1, num_workers)


def _count(hypotheses: object) -> int:
    """How many hypotheses a list holds; a string or a non-list is an error."""
    if isinstance(hypotheses, str) or not isinstance(hypotheses, Sequence):
        raise TypeError(f"hypotheses must be a list of strings, got {type(hypotheses).__name__}: {hypotheses!r:.80}")
    return len(hypotheses)


def _registered() -> None:
    try:
        get_metric(NAME)
    except KeyError:
        register(NAME)(MetricBLEU)


_registered()

__all__ = ["NAME", "MetricBLEU"]
