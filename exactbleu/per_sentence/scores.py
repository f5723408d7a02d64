"""Every prediction's sentence BLEU at once: the statistics rows of the corpus, each scored alone
by the one arithmetic, with numpy over the rows rather than a loop of ``sentence_bleu``."""

from collections.abc import Sequence
from typing import Any

from ..counting import ReferenceCache, Run
from ..dispatch import corpus_statistics, returned, settings_for
from ..inputs import corpus_of
from ..options import PresetChoice, check_no_output_options, check_whole_corpus, resolve_settings
from ..scoring import scores_of_rows

Scores = Any  # a float64 array, or for tensors a float64 tensor on their device


def sentence_scores(predictions: Any, references: Sequence[Any] | None, preset: PresetChoice = "default", *,
                    ignore_ids: Sequence[int] | None = None, threads: int | None = None,
                    max_tokens: int | None = None, cache: ReferenceCache | None = None,
                    **options: Any) -> Scores:
    """Every prediction's per-sentence BLEU at once: a float64 array with one score per prediction
    (or one row of them per weight set, with several). Entry ``i`` is
    ``sentence_bleu(predictions[i], references[i], preset, **options)["bleu"]`` bit for bit, under
    every preset and option (so under "sacrebleu", ``min(1, sacrebleu.sentence_bleu(...).score / 100)``,
    the float that division gives, capped at 1), computed with numpy over the rows of the
    statistics, not a loop of ``sentence_bleu``. Takes text or token ids, as ``corpus_bleu`` does;
    for torch tensors, the counting runs on their device, and the scores are a float64 tensor
    there."""
    settings = resolve_settings(preset, **options)
    check_no_output_options(settings, "sentence_scores")
    check_whole_corpus(settings, "sentence_scores")
    run = Run(threads, max_tokens, cache).checked()
    corpus = corpus_of(predictions, references, ignore_ids, settings.statistics.keep_references)
    settings = settings_for(corpus.kind, settings)
    counted = corpus_statistics(corpus, settings, run)
    return returned(scores_of_rows(counted, settings), corpus)
