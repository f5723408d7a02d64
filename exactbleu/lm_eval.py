"""exactbleu in EleutherAI's lm-evaluation-harness: a task's BLEU over every reference of every
sample, and its bootstrap standard error from the samples' statistics rows.

lm-eval 0.4's own ``bleu`` keeps, for every sample, only as many references as the sample with the
fewest, and bootstraps its error from 100 resamples at most, each running sacrebleu on the strings.
Here a sample's value is its statistics row, counted once; ``bleu`` scores the summed rows and
``bleu_standard_error`` resamples them. A task's YAML names them through a ``utils.py`` beside it
(docs/harnesses.md). lm-eval fills its own ``_stderr`` column only for the aggregations on its own
list, hands a task's aggregation no ``bootstrap_iters``, and leaves out of its printed table every
metric whose name ends in ``_stderr``: the error is a metric of its own, a row of that table, at the
face's ``n_bootstrap`` resamples.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from . import (
    HARNESS_PRESET,
    HARNESS_RESAMPLES,
    Settings,
    Statistics,
    resolve_harness_settings,
    score_samples,
    statistics,
)

# The metric names a task's YAML lists, each with the aggregation of the same name.
METRICS = ("bleu", "bleu_standard_error")


class TaskMetric:
    """BLEU for an lm-eval task whose documents hold their references, under any preset and options.

    Args:
        references: the field of a document that holds its references: a list of strings, or
            one string.
        target_language: chooses the tokenizer as sacrebleu does for the target language (zh, ja
            and ko have their own); not with ``tokenizer``.
        preset: ``"sacrebleu"`` by default, as lm-eval's own ``bleu``; any of ``exactbleu.PRESETS``
            whose rows add up: the ``"lm-eval"`` preset keeps references by the whole corpus, which
            per-sample rows cannot, and is refused here (lm-eval's own ``bleu`` gives its number).
        n_bootstrap: the resamples of ``bleu_standard_error``, at least 2.
        **options: any option of ``exactbleu.OPTIONS`` that changes a score, checked here, when
            the task is loaded.

    Both aggregations report on 0..100, as lm-eval's own ``bleu``: in sacrebleu's arithmetic,
    sacrebleu's own score.
    """

    def __init__(self, references: str = "references", *, target_language: str | None = None,
                 preset: str = HARNESS_PRESET, n_bootstrap: int = HARNESS_RESAMPLES, **options: Any):
        if not isinstance(references, str) or not references:
            raise TypeError(f"references must name a field of the task's documents, a non-empty string; "
                            f"got {references!r}")
        self.references = references
        self.settings: Settings = resolve_harness_settings(target_language, preset, n_bootstrap=n_bootstrap,
                                                           **options)
        self.__name__ = "exactbleu"  # lm-eval names what a YAML's !function returns by its __name__

    def process_results(self, doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, dict[str, list[Any]]]:
        """A sample's value for each metric: its statistics row, as columns (JSON as lm-eval logs a
        sample). ``results`` holds the model's generation, first."""
        if not isinstance(doc, Mapping) or self.references not in doc:
            raise KeyError(f"the document has no field {self.references!r}, which references= names; its fields: "
                           f"{sorted(doc) if isinstance(doc, Mapping) else type(doc).__name__}")
        if not results:
            raise ValueError("lm-eval gave no generation for this document: results is empty")
        row = statistics([results[0]], [doc[self.references]], self.settings).as_dict()
        return dict.fromkeys(METRICS, row)

    def rows(self, items: Sequence[Mapping[str, list[Any]]]) -> Statistics:
        """The samples' rows, as one ``Statistics`` (checked as it is read back)."""
        return Statistics.from_dicts(items)

    def bleu(self, items: Sequence[Mapping[str, list[Any]]]) -> float:
        """The corpus BLEU of the samples, on 0..100: the aggregation named ``bleu``."""
        return score_samples(items, self.settings, standard_error=False).bleu

    def bleu_standard_error(self, items: Sequence[Mapping[str, list[Any]]]) -> float:
        """The bootstrap standard error of ``bleu``, on 0..100: the standard deviation of the
        resampled corpus scores (with Bessel's correction, as lm-eval's own), at ``n_bootstrap``
        resamples of the rows."""
        return score_samples(items, self.settings).standard_error
