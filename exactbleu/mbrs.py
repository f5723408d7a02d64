"""exactbleu in mbrs, naist-nlp's toolkit for minimum Bayes risk decoding: ``MetricBLEU``, a BLEU
that mbrs's decoders take in place of mbrs's own, with its numbers.

mbrs's own ``MetricBLEU`` scores every pair with sacrebleu's ``sentence_score``, one pair at a
time, in a process pool that each call starts anew. This one takes the same ``Config`` and gives the
same numbers, as mbrs gives them (float32 tensors on 0..100), from ``bleu_matrix``'s sparse products
and the aggregated utility of ``mbr``, with no process: ``num_workers`` bounds its threads. It is
registered with mbrs as ``"exactbleu"`` (``mbrs.metrics.get_metric("exactbleu")``).
"""

import math
from dataclasses import dataclass
from typing import Any

try:
    import torch
    from mbrs.metrics import MetricAggregatable, get_metric, register
except ModuleNotFoundError as error:
    if not (error.name or "").startswith(("mbrs", "torch", "comet")):
        raise
    raise ImportError(f'exactbleu.mbrs needs mbrs, which is not installed here ({error}): '
                      f'pip install "exactbleu[mbrs]"') from None

from . import Settings, bleu_matrix, mbr, resolve_settings_for_language, scored, scored_rows, statistics

NAME = "exactbleu"  # the name mbrs's registry knows this metric by


def settings_of(config: Any) -> Settings:
    """The settings of an mbrs BLEU ``Config``, as sacrebleu's ``BLEU`` takes its fields: a
    ``tokenize`` of None means the target language's tokenizer (13a by default)."""
    options: dict[str, Any] = {"lowercase": config.lowercase, "max_order": config.max_ngram_order,
                               "smooth_method": config.smooth_method, "effective_order": config.effective_order}
    if config.smooth_value is not None:
        options["smooth_value"] = config.smooth_value
    if config.tokenize is not None:
        return resolve_settings_for_language(None, "sacrebleu", tokenizer=config.tokenize, **options)
    return resolve_settings_for_language(config.trg_lang or None, "sacrebleu", **options)


class MetricBLEU(MetricAggregatable):
    """mbrs's BLEU, exactly, without a process pool. ``Config`` has mbrs's fields; ``force`` only
    silences sacrebleu's warning on tokenized text, and changes no number."""

    @dataclass
    class Config(MetricAggregatable.Config):
        """mbrs's own BLEU configuration, field for field; ``num_workers`` bounds the threads of
        one call."""

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
        self.settings = settings_of(cfg)  # checked here, before any decoding
        if not isinstance(cfg.num_workers, int) or cfg.num_workers < 1:
            raise ValueError(f"num_workers must be a positive int, got {cfg.num_workers!r}")

    def score(self, hypothesis: str, reference: str, *_: Any, **__: Any) -> float:
        """The hypothesis's sentence BLEU against the reference, on 0..100 (a float, as mbrs's)."""
        return float(scored_rows(statistics([hypothesis], [[reference]], self.settings), self.settings).value[0])

    def scores(self, hypotheses: list[str], references: list[str], *_: Any, **__: Any) -> torch.Tensor:
        """Each hypothesis's sentence BLEU against the reference beside it, on 0..100 (float32)."""
        rows = statistics(hypotheses, [[reference] for reference in references], self.settings,
                          threads=self.cfg.num_workers)
        return torch.tensor(scored_rows(rows, self.settings).value.tolist())

    def pairwise_scores(self, hypotheses: list[str], references: list[str], *_: Any, **__: Any) -> torch.Tensor:
        """Every hypothesis against every reference, (H, R) on 0..100 (float32); mbrs's
        ``expected_scores`` (its decoders' utilities) averages these."""
        matrix = bleu_matrix(hypotheses, references, self.settings, own_scale=True, threads=self.cfg.num_workers)
        return torch.tensor(matrix.tolist()).view(len(hypotheses), len(references))

    def corpus_score(self, hypotheses: list[str], references_lists: list[list[str]],
                     sources: list[str] | None = None) -> float:
        """sacrebleu's corpus BLEU of the hypotheses against the reference streams, on 0..100."""
        per_hypothesis = [[stream[i] for stream in references_lists] for i in range(len(hypotheses))]
        return float(scored(statistics(hypotheses, per_hypothesis, self.settings), self.settings).value)

    def expected_scores_reference_aggregation(self, hypotheses: list[str], references: list[str],
                                              source: str | None = None,
                                              reference_lprobs: torch.Tensor | None = None) -> torch.Tensor:
        """Each hypothesis's BLEU against the expected n-gram counts and length of the references,
        on 0..100 (float32); weighted as mbrs weighs them (its float32 softmax of the log-probabilities)."""
        weights = None
        if reference_lprobs is not None:
            weights = [[math.exp(value) for value in
                        reference_lprobs.log_softmax(dim=-1, dtype=torch.float32).tolist()]]
        utilities = mbr([hypotheses], [references], self.settings, reference_aggregation=True,
                        reference_weights=weights, threads=self.cfg.num_workers).utilities[0]
        return torch.tensor((utilities * 100).tolist())


def _registered() -> None:
    try:
        get_metric(NAME)
    except KeyError:
        register(NAME)(MetricBLEU)


_registered()

__all__ = ["NAME", "MetricBLEU", "settings_of"]
