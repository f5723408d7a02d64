"""exactbleu in Hugging Face's LightEval: a custom task's corpus BLEU over every reference of every
sample, its bootstrap standard error, and a sentence BLEU per sample that is BLEU.

LightEval 0.13's own corpus ``bleu`` keeps each sample's first reference and calls ``nltk.download``
on every compute; its ``bleu_1`` and ``bleu_4`` are NLTK's ``sentence_bleu`` with one-hot weights,
so ``bleu_4`` is the 4-gram precision times the brevity penalty. The corpus metric here takes each
sample's statistics row, and scores their sum. It reports its
standard error itself, from resampled rows, in LightEval's own ``_stderr`` column: LightEval
bootstraps a corpus metric in a process pool and divides the spread of the resampled scores by the
square root of their number, which is not a standard error of the score. Nothing here opens a
network connection.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import MissingExtra

try:
    from lighteval.metrics.metrics_corpus import CorpusLevelComputation
    from lighteval.metrics.metrics_sample import SampleLevelComputation
    from lighteval.metrics.utils.metric_utils import CorpusLevelMetricGrouping, SampleLevelMetric
    from lighteval.tasks.requests import SamplingMethod
except ModuleNotFoundError as error:
    if not (error.name or "").startswith("lighteval"):
        raise
    raise MissingExtra("exactbleu.lighteval", "LightEval", "lighteval", name=error.name) from None

from . import (
    HARNESS_PRESET,
    HARNESS_RESAMPLES,
    Settings,
    check_whole_corpus,
    resolve_harness_settings,
    resolve_settings_for_language,
    score_samples,
    scored_rows,
    statistics,
)


def _prediction(model_response: Any) -> str:
    """The model's first generation, as LightEval's own corpus BLEU takes it."""
    texts = model_response.final_text
    if not texts:
        raise ValueError("LightEval gave no generation for this sample: the model response's text is empty")
    return str(texts[0])


def _golds(doc: Any) -> list[str]:
    """Every gold of the sample: each choice that its ``gold_index`` names."""
    golds = [str(gold) for gold in doc.get_golds()]
    if not golds:
        raise ValueError(f"the sample of task {doc.task_name!r} has no reference: its gold_index names no choice")
    return golds


class SampleStatistics(SampleLevelComputation):
    """A sample's statistics row, as columns (JSON, as LightEval logs a sample's details)."""

    def __init__(self, name: str, settings: Settings):
        self.name = name
        self.settings = settings

    def compute(self, doc: Any, model_response: Any, **kwargs: Any) -> dict[str, dict[str, list[Any]]]:
        """The sample's row under the corpus metric's name."""
        return {self.name: statistics([_prediction(model_response)], [_golds(doc)], self.settings).as_dict()}


class CorpusBLEU(CorpusLevelComputation):
    """The corpus BLEU of the summed rows, on 0..100, and its bootstrap standard error."""

    def __init__(self, name: str, settings: Settings):
        self.name = name
        self.settings = settings

    def compute_corpus(self, items: Sequence[Mapping[str, list[Any]]]) -> dict[str, float]:
        """``{name: BLEU, name + "_stderr": its standard error}``: the standard deviation of the
        resampled corpus scores, with Bessel's correction, at ``n_bootstrap`` resamples of the rows."""
        scored = score_samples(items, self.settings)
        return {self.name: scored.bleu, f"{self.name}_stderr": scored.standard_error}


class SentenceBLEU(SampleLevelComputation):
    """A sample's sentence BLEU against all its references, on 0..100."""

    def __init__(self, settings: Settings):
        self.settings = settings

    def compute(self, doc: Any, model_response: Any, **kwargs: Any) -> float:
        """sacrebleu's ``sentence_bleu`` score under the default preset (effective order)."""
        rows = statistics([_prediction(model_response)], [_golds(doc)], self.settings)
        return float(scored_rows(rows, self.settings).percents()[0])


def corpus_bleu_metric(name: str = "bleu", *, target_language: str | None = None, preset: str = HARNESS_PRESET,
                       n_bootstrap: int = HARNESS_RESAMPLES, **options: Any) -> Any:
    """A LightEval corpus metric: BLEU over every reference of every sample, and its standard error.

    Args:
        name: the metric's name in LightEval's results; its standard error is ``name + "_stderr"``.
        target_language: chooses the tokenizer as sacrebleu does for the target language (zh, ja
            and ko have their own), as LightEval's ``trg_lang``; not with ``tokenizer``.
        preset: ``"sacrebleu"`` by default, as LightEval's own ``bleu``; any of ``exactbleu.PRESETS``
            whose per-sample rows add up (the ``"lm-eval"`` preset's do not: it is refused here).
        n_bootstrap: the resamples of the standard error, at least 2.
        **options: any option of ``exactbleu.OPTIONS`` that changes a score, checked here.

    Returns:
        a ``CorpusLevelMetricGrouping`` for a ``LightevalTaskConfig``'s ``metrics``.
    """
    _check_name(name)
    settings = resolve_harness_settings(target_language, preset, n_bootstrap=n_bootstrap, **options)
    names = [name, f"{name}_stderr"]
    return CorpusLevelMetricGrouping(metric_name=names, higher_is_better={name: True, names[1]: False},
                                     category=SamplingMethod.GENERATIVE,
                                     sample_level_fn=SampleStatistics(name, settings),
                                     corpus_level_fn=CorpusBLEU(name, settings))


def sentence_bleu_metric(name: str = "sentence_bleu", *, target_language: str | None = None,
                         preset: str = HARNESS_PRESET, **options: Any) -> Any:
    """A LightEval sample-level metric: each sample's sentence BLEU against all its references, on
    0..100 (sacrebleu's ``sentence_bleu`` by default), averaged over the samples.

    Args: as ``corpus_bleu_metric``'s, without ``n_bootstrap``.

    Returns:
        a ``SampleLevelMetric`` for a ``LightevalTaskConfig``'s ``metrics``.
    """
    return SampleLevelMetric(metric_name=name, higher_is_better=True, category=SamplingMethod.GENERATIVE,
                             sample_level_fn=SentenceBLEU(_sentence_settings(name, target_language, preset,
                                                                                   **options)),
                             corpus_level_fn=np.mean)


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be the metric's name in LightEval's results, a non-empty string; got {name!r}")


def _sentence_settings(name: str, target_language: str | None, preset: str, **options: Any) -> Settings:
    """A sentence metric's settings, checked when the task loads: a rule that keeps references by the
    whole corpus has no sentence score."""
    _check_name(name)
    settings = resolve_settings_for_language(target_language, preset, **options)
    check_whole_corpus(settings, "sentence_bleu_metric")
    return settings
