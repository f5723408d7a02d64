"""The functional API over the core: each function resolves its options once (``resolve_settings``),
checks its inputs once (``inputs.corpus_of``), then counts, and scores by the one arithmetic.

>>> import exactbleu
>>> exactbleu.corpus_bleu(["the cat sat on the mat"], [["the cat sat on a mat"]])["bleu"]
0.537284965911771
>>> a = exactbleu.statistics(["the cat sat on the mat"], [["the cat sat on a mat"]])
>>> b = exactbleu.statistics(["a dog ran"], [["a dog ran home"]])
>>> exactbleu.score(a + b) == exactbleu.corpus_bleu(["the cat sat on the mat", "a dog ran"],
...                                                 [["the cat sat on a mat"], ["a dog ran home"]])
True
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .counting import Progress, ReferenceCache, Run, corpus_tokens, sentence_sums
from .dispatch import checked_corpus, checked_texts, corpus_statistics, settings_for
from .inputs import Corpus, corpus_of, kind_of, with_references_kept
from .inputs.text import check_segment
from .limits import MAX_SAMPLES, PAIRED_TESTS
from .options import (
    PresetChoice,
    Settings,
    check_corpus_result,
    check_int,
    check_micro,
    check_no_output_options,
    check_references_shown,
    check_whole_corpus,
    counted_orders,
    resolve_settings,
    resolve_settings_for_language,
)
from .registry import did_you_mean
from .scoring import (
    Scored,
    ScoredRows,
    arithmetic,
    for_sentences,
    result_of_sums,
    scored_rows_of,
    scored_statistics,
    scored_sums,
    several_weight_sets,
)
from .scoring.explanation import Explanations
from .scoring.results import Result, checked_statistics, checked_vector_for, result_of_statistics, result_of_vector
from .scoring.significance import Compared, Estimate, bootstrap_estimate, paired_test_statistics
from .sufficient_statistics import Statistics, Sums
from .tokenizers import make_tokenizer


def corpus_bleu(predictions: Any, references: Sequence[Any] | None, preset: PresetChoice = "default", *,
                ignore_ids: Sequence[int] | None = None, threads: int | None = None,
                max_tokens: int | None = None, cache: ReferenceCache | None = None, **options: Any) -> Result:
    """Corpus BLEU, the metric's result: HF's six keys (``bleu``, ``precisions``,
    ``brevity_penalty``, ``length_ratio``, ``translation_length``, ``reference_length``), and
    ``sentence_bleu``, ``bleu_ci`` and ``signature`` where the options ask for them.

    Args:
        predictions: the translations, one string per segment; or token ids (lists of ints, 1-D
            integer arrays, a 2-D padded array, or torch tensors, counted on their device), which
            are scored as the same ids written as words under the whitespace tokenizer, ``"none"``;
            or a ``Corpus`` that ``checked_corpus`` returned, with ``references`` None, not checked again.
        references: a list of references per prediction (``references[i]`` holds the references
            of ``predictions[i]``), or one reference string each. sacrebleu's layout, one list per
            reference set, is ``exactbleu.compat``'s. Token ids: one segment or a list of them per
            prediction, or a 2-D or 3-D array.
        preset: a name in ``PRESETS`` ("default" is HF's ``bleu``), or ``resolve_settings``'s ``Settings``.
        ignore_ids: token ids to drop before scoring, such as padding (``pad``, ``eos``, ``unk``: fairseq's rules).
        threads, max_tokens, cache: how counting runs, which changes no score (``counting.Run``).
        **options: any option of ``OPTIONS``.
    Raises:
        ValueError or TypeError naming the bad argument.
    """
    settings = resolve_settings(preset, **options)
    check_corpus_result(settings)
    run = Run(threads, max_tokens, cache).checked()
    corpus = corpus_of(predictions, references, ignore_ids, settings.statistics.keep_references)
    settings = settings_for(corpus.kind, settings)
    counted = corpus_statistics(corpus, settings, run)
    return result_of_statistics(counted, settings)


def sentence_bleu(prediction: Any, references: Any, preset: PresetChoice = "default", **options: Any) -> Result:
    """One segment's BLEU (``references``: its references, or one reference string): the result
    of that segment alone, as a per-sentence score. Under the "sacrebleu" preset that means
    effective order unless ``effective_order`` is given, as ``sacrebleu.sentence_bleu`` has it."""
    settings = for_sentences(resolve_settings(preset, **options))
    check_whole_corpus(settings, "sentence_bleu")
    kind = "text" if isinstance(prediction, str) else kind_of([prediction])
    settings = settings_for(kind, settings)
    if kind != "text":  # token ids: a corpus of one
        corpus = corpus_of([prediction], [references], keep=settings.statistics.keep_references)
        return result_of_statistics(corpus_statistics(corpus, settings), settings)
    prediction, references = check_segment(prediction, references)
    rule = settings.statistics.keep_references
    if rule != "all":  # the references that the rule keeps of this corpus of one
        references = with_references_kept(Corpus([prediction], [references], "text"), rule).references[0]
    if settings.output.adds_keys or rule == "best":
        return result_of_statistics(corpus_statistics(Corpus([prediction], [references], "text"), settings), settings)
    # HF's six keys of one segment of text, the shortest path: its row by the definition, scored as sums.
    return result_of_sums(sentence_sums(prediction, references, settings), settings)


def statistics(predictions: Any, references: Sequence[Any] | None, preset: PresetChoice = "default", *,
               ignore_ids: Sequence[int] | None = None, threads: int | None = None,
               max_tokens: int | None = None, cache: ReferenceCache | None = None,
               progress: Progress | None = None, **options: Any) -> Statistics:
    """The corpus's per-segment statistics. They add up: ``score(a + b)`` is the score of both
    corpora together, so batches, processes and machines can count apart and score once. Options
    that change the statistics (the tokenizer and its settings, lowercase, rstrip, max_order or
    weights, ref_length, and a smoothing method that reads a higher order) must be the same here as
    for ``score``: the statistics carry them (``Statistics.counted_with``), and ``score`` refuses
    others. ``progress``, if given, is called with each chunk's number of segments."""
    settings = resolve_settings(preset, **options)
    run = Run(threads, max_tokens, cache, progress).checked()
    corpus = corpus_of(predictions, references, ignore_ids, settings.statistics.keep_references)
    return corpus_statistics(corpus, settings_for(corpus.kind, settings), run)


def score(statistics: Statistics | NDArray[np.int64] | Sequence[int], preset: PresetChoice = "default",
          **options: Any) -> Result:
    """The result of ``statistics`` (from ``statistics()``, added up as you like, or read back with
    ``Statistics.from_dict``), as ``corpus_bleu`` gives it for the same segments and options, bit
    for bit.

    ``statistics`` may also be a summed ``Statistics.vector()`` (a 1-D int64 array, as
    ``torch.distributed.all_reduce``, Dask or Ray add them up): its score is the same, but it
    holds no segment's own row, so ``sentence_level`` and ``n_bootstrap`` need the ``Statistics``.

    Raises:
        ValueError when the statistics were counted with other settings than these options
        count with (another tokenizer, lowercasing, reference length ...): the error names the
        setting and both values.
    """
    settings = resolve_settings(preset, **options)
    check_corpus_result(settings)
    if isinstance(statistics, Statistics):
        return result_of_statistics(checked_statistics(statistics, settings), settings)
    return result_of_vector(checked_vector_for(statistics, settings), settings)


def scored(statistics: Statistics | Sums, preset: PresetChoice = "default", **options: Any) -> Scored:
    """The corpus score of ``statistics`` as its arithmetic states it: ``value`` and ``precisions`` on
    its own ``scale`` (100 where it states percent, as sacrebleu's; else 1), the brevity penalty and
    the length ratio, with ``bleu`` on 0..1 (one weight set). ``statistics`` may also be ``Sums`` made
    by hand, as sacrebleu's ``compute_bleu`` takes them (ints, or floats in sacrebleu's arithmetic)."""
    settings = resolve_settings(preset, **options)
    if several_weight_sets(settings):
        raise ValueError("scored takes one weight set at a time, got several weights")
    if isinstance(statistics, Sums):
        orders = counted_orders(settings)
        if len(statistics.matches) != orders or len(statistics.totals) != orders:
            raise ValueError(f"the sums hold {len(statistics.matches)} matches and {len(statistics.totals)} totals; "
                             f"these options count {orders} orders")
        if arithmetic(settings).DENOMINATORS and len(statistics.denominators) != orders:
            raise ValueError(f"NLTK's arithmetic needs the sums' denominators, {orders} of them")
        check_micro(settings, "scored(Sums)")
        return scored_sums(statistics, settings)
    return scored_statistics(checked_statistics(statistics, settings), settings)


def scored_rows(statistics: Statistics, preset: PresetChoice = "default", **options: Any) -> ScoredRows:
    """Each segment's per-sentence score of ``statistics`` as its arithmetic states it (see
    ``scored``): arrays of one entry per segment (one weight set)."""
    settings = resolve_settings(preset, **options)
    check_whole_corpus(settings, "scored_rows")
    if several_weight_sets(settings):
        raise ValueError("scored_rows takes one weight set at a time, got several weights")
    return scored_rows_of(checked_statistics(statistics, settings), settings)


def bootstrap(statistics: Statistics, preset: PresetChoice = "default", **options: Any) -> Estimate:
    """sacrebleu's bootstrap estimate of one system's score, as its ``-ci`` and
    ``corpus_score(n_bootstrap=)`` give it: ``n_bootstrap`` resamples (required) seeded with
    ``bootstrap_seed``; the correctly rounded mean and the half-width of the 95% interval, on the
    arithmetic's own scale (``Estimate.percents()``: on sacrebleu's)."""
    settings = resolve_settings(preset, **options)
    check_whole_corpus(settings, "bootstrap")
    if not settings.output.n_bootstrap:
        raise ValueError("bootstrap needs n_bootstrap, the number of resamples: at least 1")
    if several_weight_sets(settings):
        raise ValueError("bootstrap takes one weight set at a time, got several weights")
    return bootstrap_estimate(checked_statistics(statistics, settings), settings)


# The harnesses' own BLEU (lm-eval's, LightEval's) is sacrebleu's, and sacrebleu's bootstrap takes 1,000
# resamples: so do the faces that stand in for it, by default.
HARNESS_PRESET = "sacrebleu"
HARNESS_RESAMPLES = 1000


class SampleScore(NamedTuple):
    """The corpus score of a harness's per-sample rows on 0..100, and its bootstrap standard error on
    0..100 (nan where it is not asked for, or for fewer than two samples, which have no spread)."""

    bleu: float
    standard_error: float


def resolve_harness_settings(target_language: str | None = None, preset: str = HARNESS_PRESET, *,
                             n_bootstrap: int = HARNESS_RESAMPLES, **options: Any) -> Settings:
    """The settings of a face whose harness keeps each sample's statistics row and sums them when it
    aggregates (lm-eval's ``TaskMetric``, LightEval's corpus metric), checked when the task loads:
    ``resolve_settings_for_language``'s, with ``n_bootstrap`` resamples (at least 2) for the standard
    error. A rule under which per-sample rows do not add up is refused here (``check_whole_corpus``)."""
    settings = resolve_settings_for_language(target_language, preset, n_bootstrap=n_bootstrap, **options)
    check_whole_corpus(settings, "a harness sums per-sample statistics rows (lm-eval's own `bleu` metric gives the "
                                 "\"lm-eval\" number)")
    if settings.output.n_bootstrap < 2:
        raise ValueError(f"n_bootstrap must be at least 2 for a standard error, got {n_bootstrap!r}")
    return settings


def score_samples(samples: Sequence[Mapping[str, Sequence[Any]]], preset: PresetChoice = HARNESS_PRESET, *,
                  standard_error: bool = True, **options: Any) -> SampleScore:
    """A harness's aggregation: the corpus score of its samples' rows (each an ``as_dict()`` of one
    sample's statistics, as the harness logged it), and with ``standard_error`` the standard
    deviation of ``n_bootstrap`` resampled corpus scores (Bessel's correction, as lm-eval's own)."""
    settings = resolve_settings(preset, **options)
    rows = Statistics.from_dicts(samples)
    value = scored(rows, settings).percent()
    if not standard_error or len(rows) < 2:
        return SampleScore(value, math.nan)
    return SampleScore(value, bootstrap(rows, settings).standard_error_percent())


def count_tokens(texts: Sequence[str], preset: PresetChoice = "default", **options: Any) -> int:
    """How many tokens the texts hold under the options' tokenizing: what ``max_tokens`` bounds."""
    if kind_of(texts) != "text":
        raise TypeError("count_tokens counts the tokens of text; token ids are tokens already: len() counts them")
    settings = settings_for("text", resolve_settings(preset, **options))  # fairseq's rules for ids refuse text
    return corpus_tokens(checked_texts(texts, "texts").values, settings)


def explain(predictions: Any, references: Sequence[Any] | None, preset: PresetChoice = "default", *,
            max_tokens: int | None = None, **options: Any) -> Explanations:
    """Why this score? One dict per segment: ``prediction_tokens``, ``reference_tokens`` (a list
    per reference), ``reference_length``, ``brevity_penalty``, ``sentence_bleu``, and ``orders``:
    ``{"n", "matches", "total", "ngrams"}`` per order, ``ngrams`` listing each distinct n-gram of
    the prediction, in order of first occurrence, as ``{"ngram": [tokens], "count",
    "max_reference_count"}``. ``total`` is the sum of the counts and ``matches`` the sum of
    min(count, max_reference_count), as in ``statistics()`` under the same options.

    The result is a sequence that works each segment out when it is read (``explained[i]``, a
    slice, or a ``for`` loop that streams them), so any corpus fits in memory one segment at a
    time; inputs and options are checked at once. ``max_tokens`` bounds each segment's tokens."""
    settings = settings_for("text", resolve_settings(preset, **options))
    check_no_output_options(settings, "explain")
    check_whole_corpus(settings, "explain")
    max_tokens = Run(max_tokens=max_tokens).checked().max_tokens
    corpus = corpus_of(predictions, references)
    if corpus.kind != "text":
        raise TypeError("explain takes text: its tokens are shown as the tokenizer gives them")
    check_references_shown(settings, "explain")
    corpus = with_references_kept(corpus, settings.statistics.keep_references)
    return Explanations(corpus.predictions, corpus.references, make_tokenizer(settings.tokenize), settings,
                        counted_orders(settings), max_tokens)


def paired_test(systems: Mapping[str, Sequence[str]], references: Sequence[Any], *, baseline: str | None = None,
                test: str = "bootstrap", n_samples: int | None = None, seed: int | None = 12345,
                preset: PresetChoice = "default", ignore_ids: Sequence[int] | None = None, threads: int | None = None,
                max_tokens: int | None = None, cache: ReferenceCache | None = None,
                **options: Any) -> dict[str, dict[str, float | None]]:
    """Is a system really better than the baseline? sacrebleu's paired tests, on statistics.

    Args:
        systems: a dict from each system's name to its predictions, all against ``references``.
        references: as for ``corpus_bleu``.
        baseline: the name of the baseline system; by default the first.
        test: "bootstrap" (paired bootstrap resampling) or "randomization" (paired approximate
            randomization), as sacrebleu's --paired-bs and --paired-ar.
        n_samples: resamples or trials; by default sacrebleu's 1000 and 10000, at most
            100,000 (``MAX_SAMPLES``).
        seed: the random seed, sacrebleu's 12345 by default; None draws from the OS.
        preset, **options: as for ``corpus_bleu`` (the "sacrebleu" preset gives sacrebleu's numbers).
        ignore_ids: for systems of token ids, the ids to drop from every system and the references.
        threads, max_tokens, cache: how counting runs (see ``counting.Run``).
    Returns:
        ``{name: {"bleu", "p_value", "mean", "ci"}}`` on 0..1 (see ``paired_test_statistics``).
    """
    settings = resolve_settings(preset, **options)
    check_no_output_options(settings, "paired_test")
    check_whole_corpus(settings, "paired_test")
    _check_test(systems, "predictions", baseline, test, n_samples, seed, settings, "paired_test")
    run = Run(threads, max_tokens, cache).checked()
    if run.cache is None:  # the references are counted once for every system
        run = run._replace(cache=ReferenceCache())
    corpora = {}
    for name, predictions in systems.items():
        try:
            checked = checked_corpus(predictions, references, ignore_ids)
            corpora[name] = corpus_of(checked, None, keep=settings.statistics.keep_references)
        except (TypeError, ValueError) as error:
            raise type(error)(f"systems[{name!r}]: {error}") from None
    if len({corpus.kind == "text" for corpus in corpora.values()}) > 1:
        raise TypeError("systems must all be text or all be token ids: their statistics are counted alike")
    settings = settings_for(next(iter(corpora.values())).kind, settings)  # token ids are tokens already
    counted_systems = {name: corpus_statistics(corpus, settings, run)
                       for name, corpus in corpora.items()}
    compared = compare(counted_systems, baseline=baseline, test=test, n_samples=n_samples, seed=seed, preset=settings)
    return {name: one.fractions() for name, one in compared.items()}


def compare(systems: Mapping[str, Statistics], *, baseline: str | None = None, test: str = "bootstrap",
            n_samples: int | None = None, seed: int | None = 12345, preset: PresetChoice = "default",
            **options: Any) -> dict[str, Compared]:
    """sacrebleu's paired tests on each system's statistics (the same segments, counted with the
    same options): each system's ``Compared`` outcome against the baseline, on the arithmetic's
    own scale (``Compared.fractions()``: on 0..1; ``Compared.percents()``: on sacrebleu's)."""
    settings = resolve_settings(preset, **options)
    check_whole_corpus(settings, "compare")
    _check_test(systems, "statistics", baseline, test, n_samples, seed, settings, "compare")
    checked = {name: checked_statistics(one, settings) for name, one in systems.items()}
    return paired_test_statistics(checked, next(iter(systems)) if baseline is None else baseline, settings, test,
                                  n_samples, seed)


def _check_test(systems: object, what: str, baseline: str | None, test: str, n_samples: int | None,
                seed: int | None, settings: Settings, function: str) -> None:
    """A paired test's arguments, checked before any work."""
    if not isinstance(systems, Mapping) or len(systems) < 2:
        raise ValueError(f"systems must be a dict from a name to that system's {what}, with at least two "
                         f"systems, got {type(systems).__name__}: {systems!r:.80}")
    if baseline is not None and baseline not in systems:
        raise ValueError(f"baseline must be one of the systems {list(systems)}, got {baseline!r:.80}"
                         f"{did_you_mean(baseline, systems)}")
    if test not in PAIRED_TESTS:
        raise ValueError(f"test must be one of {list(PAIRED_TESTS)}, got {test!r:.80}"
                         f"{did_you_mean(test, PAIRED_TESTS)}")
    if n_samples is not None:
        check_int("n_samples", n_samples, 1, MAX_SAMPLES)
    if seed is not None:
        check_int("seed", seed, 0)
    if several_weight_sets(settings):
        raise ValueError(f"{function} takes one weight set at a time, got several weights")


__all__: list[str] = ["HARNESS_PRESET", "HARNESS_RESAMPLES", "SampleScore", "bootstrap", "compare", "corpus_bleu",
                      "count_tokens", "explain", "paired_test", "resolve_harness_settings", "score", "score_samples",
                      "scored", "scored_rows", "sentence_bleu", "statistics"]
