"""The functional API: BLEU without evaluate. Every function takes ``preset=`` and the same
options as the metric's ``compute``, checked the same way, and the metric's methods call these.

>>> import exactbleu
>>> exactbleu.corpus_bleu(["the cat sat on the mat"], [["the cat sat on a mat"]])["bleu"]
0.537284965911771
>>> a = exactbleu.statistics(["the cat sat on the mat"], [["the cat sat on a mat"]])
>>> b = exactbleu.statistics(["a dog ran"], [["a dog ran home"]])
>>> exactbleu.score(a + b) == exactbleu.corpus_bleu(["the cat sat on the mat", "a dog ran"],
...                                                 [["the cat sat on a mat"], ["a dog ran home"]])
True
"""

import collections.abc
import math
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from .counting import ReferenceCache, count
from .explanation import Explanations
from .inputs import (check_inputs, check_segment, check_texts, check_token_id_texts, check_token_ids, is_token_ids,
                     reference_lists)
from .matrix import MAX_CELLS, bleu_matrix_of
from .ngrams import tokens_of_ids, tokens_of_text
from .options import (Settings, _check_int, check_counted_with, check_no_output_options, counted_orders, counted_with,
                      for_token_ids, resolve_settings, signature)
from .scoring import for_sentences, score_corpus, several_weight_sets
from .scoring import score as score_sums
from .scoring import sentence_scores as score_sentences
from .self_statistics import SelfBleuStatistics, self_statistics
from .limits import MAX_SAMPLES, PAIRED_TESTS
from .significance import bootstrap_interval, paired_test_statistics
from .sufficient_statistics import CountedWith, Statistics
from .tokenizers import make_tokenizer
from .tokenizers.ids import TokenIds

References = Union[Sequence[Sequence[str]], Sequence[str]]


class Counting(NamedTuple):
    """How counting runs, which changes no score: a reference cache to reuse, the most worker
    threads (None: two where two cores are free), and the most tokens one call may count."""

    cache: Optional[ReferenceCache] = None
    threads: Optional[int] = None
    max_tokens: Optional[int] = None


def check_counting(threads: Optional[int] = None, max_tokens: Optional[int] = None,
                   cache: Optional[ReferenceCache] = None) -> Counting:
    """``Counting`` from checked arguments."""
    if threads is not None:
        _check_int("threads", threads, 1)
    if max_tokens is not None:
        _check_int("max_tokens", max_tokens, 1)
    return Counting(cache, threads, max_tokens)


def checked_corpus(predictions, references, settings: Settings, options: Dict[str, object],
                   ignore_ids=None) -> Tuple[Settings, object, object]:
    """(settings, predictions, references) checked at the boundary: text as lists (a list of
    references per prediction), or token ids as ``TokenIds``, with the settings token ids take."""
    if is_token_ids(predictions):
        predictions, references = check_token_ids(predictions, references, ignore_ids)
        return for_token_ids(settings, options), predictions, references
    if ignore_ids is not None:
        raise ValueError("ignore_ids applies to token ids, but the predictions are text")
    predictions, references, _ = check_inputs(predictions, references)
    return settings, predictions, reference_lists(references)


def corpus_bleu(predictions: Sequence[str], references: References, preset: str = "default", *,
                ignore_ids: Optional[Sequence[int]] = None, threads: Optional[int] = None,
                max_tokens: Optional[int] = None, **options) -> Dict[str, object]:
    """Corpus BLEU, the metric's result: HF's six keys (``bleu``, ``precisions``,
    ``brevity_penalty``, ``length_ratio``, ``translation_length``, ``reference_length``), and
    ``sentence_bleu``, ``bleu_ci`` and ``signature`` where the options ask for them.

    Args:
        predictions: the translations, one string per segment; or token ids (lists of ints, 1-D
            integer arrays, or a 2-D padded array or tensor), which are scored as the same ids
            written as words under ``tokenizer="none"``.
        references: a list of references per prediction (``references[i]`` holds the references
            of ``predictions[i]``), or one reference string each. sacrebleu's layout, one list per
            reference set, is ``exactbleu.compat``'s. Token ids: one segment or a list of them per
            prediction, or a 2-D or 3-D array.
        preset: "default" (HF's ``bleu``; "hf" is the same), "sacrebleu" or "nltk".
        ignore_ids: token ids to drop before scoring, such as padding and end-of-sequence.
        threads, max_tokens: how counting runs (see ``Counting``).
        **options: any option of ``options.OPTIONS``.
    Raises:
        ValueError or TypeError naming the bad argument.
    """
    settings, predictions, references = checked_corpus(predictions, references, resolve_settings(preset, **options),
                                                       options, ignore_ids)
    return result_of(predictions, references, settings, check_counting(threads, max_tokens))


def sentence_bleu(prediction: str, references: Union[Sequence[str], str], preset: str = "default",
                  **options) -> Dict[str, object]:
    """One segment's BLEU (``references``: its references, or one reference string): the result
    of that segment alone, as a per-sentence score. Under the "sacrebleu" preset that means
    effective order unless ``effective_order`` is given, as ``sacrebleu.sentence_bleu`` has it."""
    settings = for_sentences(resolve_settings(preset, **options))
    if is_token_ids([prediction]):
        settings, predictions, checked = checked_corpus([prediction], [references], settings, options)
        return result_of(predictions, checked, settings, Counting())
    prediction, references = check_segment(prediction, references)
    return result_of([prediction], [references], settings, Counting())


def sentence_scores(predictions: Sequence[str], references: References, preset: str = "default", *,
                    ignore_ids: Optional[Sequence[int]] = None, threads: Optional[int] = None,
                    max_tokens: Optional[int] = None, **options) -> np.ndarray:
    """Every prediction's per-sentence BLEU at once: a float64 array with one score per prediction
    (or one row of them per weight set, with several). Entry ``i`` is
    ``sentence_bleu(predictions[i], references[i], preset, **options)["bleu"]`` bit for bit, under
    every preset and option (so under "sacrebleu", ``sacrebleu.sentence_bleu``'s score / 100, up to
    the last bit that the division by 100 may round), computed with numpy over the rows of the
    statistics, not a loop of ``sentence_bleu``. Takes text or token
    ids, as ``corpus_bleu`` does."""
    check_no_output_options(options, "sentence_scores")
    settings, predictions, references = checked_corpus(predictions, references, resolve_settings(preset, **options),
                                                       options, ignore_ids)
    counted = count_statistics(predictions, references, settings, check_counting(threads, max_tokens))
    return score_sentences(counted, settings)


def self_bleu(texts: Sequence[str], preset: str = "default", *, corpus: Optional[SelfBleuStatistics] = None,
              ignore_ids: Optional[Sequence[int]] = None, **options) -> Dict[str, object]:
    """Self-BLEU: each text scored against all the other texts as its references, by index,
    duplicates included, and the mean of those scores.

    ``scores[i]`` is exactly ``sentence_bleu(texts[i], texts[:i] + texts[i + 1:], preset,
    **options)["bleu"]``, but the work is linear in the n-grams (see ``exactbleu.self_statistics``'s
    module). Texygen's and fast-bleu's Self-BLEU is ``preset="nltk", smooth_method="method1"``
    with uniform weights of the chosen order; ``preset="sacrebleu"`` gives sacrebleu's sentence
    scores (with effective order); the default, HF's.

    Args:
        texts: the texts, as strings or token ids (see ``corpus_bleu``).
        corpus: the ``self_bleu_statistics`` of the whole corpus these texts are a shard of,
            summed over the shards; the texts are then scored against every other text of the
            corpus. By default the texts are the whole corpus.
    Returns:
        ``{"self_bleu": the mean score, "scores": a float64 array of one score per text}`` (with
        several weight sets, a mean per set and a row of scores per set).
    """
    check_no_output_options(options, "self_bleu")
    settings, tokens = _self_bleu_tokens(texts, preset, options, ignore_ids)
    if corpus is None:
        if len(tokens.lengths) < 2:
            raise ValueError(f"texts holds {len(tokens.lengths)} text(s); Self-BLEU scores each text against the others, "
                             f"so it needs at least two")
        counted = self_statistics(tokens, counted_orders(settings), settings.statistics.ref_length,
                                  counted_with(settings))
    else:
        if not isinstance(corpus, SelfBleuStatistics):
            raise TypeError(f"corpus must be the SelfBleuStatistics that self_bleu_statistics() returns (summed over "
                            f"shards), got {type(corpus).__name__}")
        check_counted_with(corpus.counted_with, settings)
        if len(corpus) < 2:
            raise ValueError("corpus counts fewer than two texts; Self-BLEU scores each text against the others")
        counted = corpus.rows_of(tokens, settings.statistics.ref_length)
    scores = score_sentences(counted, settings)
    means = [math.fsum(row) / len(row) for row in np.atleast_2d(scores).tolist()]
    return {"self_bleu": means if scores.ndim == 2 else means[0], "scores": scores}


def bleu_matrix(predictions: Sequence[str], references: Sequence[str], preset: str = "default", *,
                ignore_ids: Optional[Sequence[int]] = None, **options) -> np.ndarray:
    """Every prediction against every reference: entry ``[i, j]`` is exactly
    ``sentence_bleu(predictions[i], [references[j]], preset, **options)["bleu"]``.

    The clipped matches of all pairs come from sparse matrix products, a block of predictions at
    a time (see ``exactbleu.matrix``), so memory stays bounded; the matrix itself holds at most
    ``matrix.MAX_CELLS`` (10**8) entries.

    Args:
        predictions, references: lists of texts, or of token ids (see ``corpus_bleu``); here
            ``references`` is one reference per column, not a list per prediction.
    Returns:
        a float64 array of shape (len(predictions), len(references)); with several weight sets,
        one such matrix per set.
    """
    check_no_output_options(options, "bleu_matrix")
    settings = resolve_settings(preset, **options)
    if is_token_ids(predictions):
        settings = for_token_ids(settings, options)
        ignored = None if ignore_ids is None else ignore_ids
        rows, columns = check_token_id_texts(predictions, ignored, "predictions"), \
            check_token_id_texts(references, ignored, "references")
        sizes = len(rows), len(columns)
        tokens = tokens_of_ids(TokenIds(np.concatenate([rows.ids, columns.ids]),
                                        np.concatenate([rows.lengths, columns.lengths])))
    else:
        if ignore_ids is not None:
            raise ValueError("ignore_ids applies to token ids, but the predictions are text")
        rows, columns = check_texts(predictions, "predictions"), check_texts(references, "references")
        sizes = len(rows), len(columns)
    if not sizes[0] or not sizes[1]:
        raise ValueError(f"bleu_matrix needs at least one prediction and one reference, got {sizes[0]} and {sizes[1]}")
    if sizes[0] * sizes[1] > MAX_CELLS:
        raise ValueError(f"a BLEU matrix of {sizes[0]:,} predictions x {sizes[1]:,} references has "
                         f"{sizes[0] * sizes[1]:,} entries, more than the {MAX_CELLS:,} (800 MB) one call makes: "
                         f"score it in blocks of predictions (bleu_matrix(predictions[i:j], references)), as the "
                         f"blocks of a matrix are its rows")
    if not is_token_ids(predictions):
        tokens = tokens_of_text(rows + columns, settings.tokenize)
    return bleu_matrix_of(tokens, sizes[0], settings, counted_with(settings))


def self_bleu_statistics(texts: Sequence[str], preset: str = "default", *, ignore_ids: Optional[Sequence[int]] = None,
                         **options) -> SelfBleuStatistics:
    """What Self-BLEU needs of a shard of a corpus: each n-gram's two largest counts and the
    lengths' histogram. They add up with ``+`` and ``sum()`` across shards (and machines); pass the
    sum to ``self_bleu(shard, corpus=...)`` to score each shard's texts against the whole corpus."""
    check_no_output_options(options, "self_bleu_statistics")
    settings, tokens = _self_bleu_tokens(texts, preset, options, ignore_ids)
    return SelfBleuStatistics.of(tokens, counted_orders(settings), counted_with(settings))


def _self_bleu_tokens(texts, preset, options, ignore_ids):
    """The settings and the tokens of Self-BLEU's texts, checked."""
    settings = resolve_settings(preset, **options)
    if is_token_ids(texts):
        return for_token_ids(settings, options), tokens_of_ids(check_token_id_texts(texts, ignore_ids))
    if ignore_ids is not None:
        raise ValueError("ignore_ids applies to token ids, but the texts are text")
    return settings, tokens_of_text(check_texts(texts), settings.tokenize)


def statistics(predictions: Sequence[str], references: References, preset: str = "default", *,
               ignore_ids: Optional[Sequence[int]] = None, threads: Optional[int] = None,
               max_tokens: Optional[int] = None, **options) -> Statistics:
    """The corpus's per-segment statistics. They add up: ``score(a + b)`` is the score of both
    corpora together, so batches, processes and machines can count apart and score once. Options
    that change the statistics (tokenizer, lang, lowercase, rstrip, max_order or weights,
    ref_length, and NLTK's method5 and method7) must be the same here as for ``score``: the
    statistics carry them (``Statistics.counted_with``), and ``score`` refuses others."""
    settings, predictions, references = checked_corpus(predictions, references, resolve_settings(preset, **options),
                                                       options, ignore_ids)
    return count_statistics(predictions, references, settings, check_counting(threads, max_tokens))


def score(statistics: Union[Statistics, np.ndarray], preset: str = "default", **options) -> Dict[str, object]:
    """The result of ``statistics`` (from ``statistics()``, added up as you like), as
    ``corpus_bleu`` gives it for the same segments and options, bit for bit.

    ``statistics`` may also be a summed ``Statistics.vector()`` (a 1-D int64 array, as
    ``torch.distributed.all_reduce``, Dask or Ray add them up): its score is the same, but it
    holds no segment's own row, so ``sentence_level`` and ``n_bootstrap`` need the ``Statistics``.

    Raises:
        ValueError when the statistics were counted with other settings than these options
        count with (another tokenizer, lowercasing, reference length ...): the error names the
        setting and both values.
    """
    settings = resolve_settings(preset, **options)
    if isinstance(statistics, Statistics):
        return result_of_statistics(checked_statistics(statistics, settings), settings)
    return result_of_vector(checked_vector(statistics, settings), settings)


def paired_test(systems: Mapping[str, Sequence[str]], references: References, *, baseline: Optional[str] = None,
                test: str = "bootstrap", n_samples: Optional[int] = None, seed: Optional[int] = 12345,
                preset: str = "default", **options) -> Dict[str, Dict[str, object]]:
    """Is a system really better than the baseline? sacrebleu's paired tests, on statistics.

    Args:
        systems: a dict from each system's name to its predictions, all against ``references``.
        references: as for ``corpus_bleu``.
        baseline: the name of the baseline system; by default the first.
        test: "bootstrap" (paired bootstrap resampling) or "randomization" (paired approximate
            randomization), as sacrebleu's --paired-bs and --paired-ar.
        n_samples: resamples or trials; by default sacrebleu's 1000 and 10000, at most
            100,000 (``significance.MAX_SAMPLES``).
        seed: the random seed, sacrebleu's 12345 by default; None draws from the OS.
        preset, **options: as for ``corpus_bleu`` (the "sacrebleu" preset gives sacrebleu's numbers).
    Returns:
        ``{name: {"bleu", "p_value", "mean", "ci"}}`` (see ``significance.paired_test_statistics``).
    """
    check_no_output_options(options, "paired_test")
    return paired_test_with(systems, references, baseline, test, n_samples, seed, resolve_settings(preset, **options),
                            Counting())


def explain(predictions: Sequence[str], references: References, preset: str = "default",
            **options) -> Explanations:
    """Why this score? One dict per segment: ``prediction_tokens``, ``reference_tokens`` (a list
    per reference), ``reference_length``, ``brevity_penalty``, ``sentence_bleu``, and ``orders``:
    ``{"n", "matches", "total", "ngrams"}`` per order, ``ngrams`` listing each distinct n-gram of
    the prediction, in order of first occurrence, as ``{"ngram": [tokens], "count",
    "max_reference_count"}``. ``total`` is the sum of the counts and ``matches`` the sum of
    min(count, max_reference_count), as in ``statistics()`` under the same options.

    The result is a sequence that works each segment out when it is read (``explained[i]``, a
    slice, or a ``for`` loop that streams them), so any corpus fits in memory one segment at a
    time; inputs and options are checked at once."""
    check_no_output_options(options, "explain")
    return explain_with(predictions, references, resolve_settings(preset, **options), Counting())


# The same, on settings already checked: what the metric calls.


def count_statistics(predictions: List[str], references: List[List[str]], settings: Settings,
                     counting: Counting) -> Statistics:
    """The statistics of checked inputs."""
    return count(predictions, references, settings, counted_orders(settings), counting.cache, counting.threads,
                 max_tokens=counting.max_tokens)


def result_of(predictions: List[str], references: List[List[str]], settings: Settings,
              counting: Counting) -> Dict[str, object]:
    """The result dict of checked inputs."""
    return result_of_statistics(count_statistics(predictions, references, settings, counting), settings)


def result_of_statistics(statistics: Statistics, settings: Settings) -> Dict[str, object]:
    """The result dict of a corpus's statistics, with the extra keys the settings ask for."""
    result = score_corpus(statistics, settings)
    if settings.output.sentence_level:
        result["sentence_bleu"] = score_sentences(statistics, settings).tolist()
    if settings.output.n_bootstrap:
        result["bleu_ci"] = bootstrap_interval(statistics, settings)
    if settings.output.signature:
        counts = set(statistics.references) if statistics.references is not None else set()
        result["signature"] = signature(settings, counts.pop() if len(counts) == 1 else "var")
    return result


def checked_statistics(statistics: Statistics, settings: Settings) -> Statistics:
    """Statistics that these settings can score: counted with as many orders, not empty."""
    if not isinstance(statistics, Statistics):
        raise TypeError(f"statistics must be the Statistics that exactbleu.statistics() returns, got "
                        f"{type(statistics).__name__}: {statistics!r:.80}")
    if len(statistics) == 0:
        raise ValueError("statistics is empty: BLEU needs at least one segment")
    if statistics.orders != counted_orders(settings):
        raise ValueError(f"statistics hold {statistics.orders} orders of matches and totals, but max_order is "
                         f"{settings.statistics.max_order} (these options count {counted_orders(settings)} orders); "
                         f"use the same options for both")
    check_counted_with(statistics.counted_with, settings)
    return statistics


def paired_test_with(systems, references, baseline, test, n_samples, seed, settings: Settings,
                     counting: Counting) -> Dict[str, Dict[str, object]]:
    """``paired_test`` with checked settings."""
    if not isinstance(systems, collections.abc.Mapping) or len(systems) < 2:
        raise ValueError(f"systems must be a dict from a name to that system's predictions, with at least two "
                         f"systems, got {type(systems).__name__}: {systems!r:.80}")
    baseline = next(iter(systems)) if baseline is None else baseline
    if baseline not in systems:
        raise ValueError(f"baseline must be one of the systems {list(systems)}, got {baseline!r}")
    if test not in PAIRED_TESTS:
        raise ValueError(f"test must be one of {list(PAIRED_TESTS)}, got {test!r}")
    if n_samples is not None:
        _check_int("n_samples", n_samples, 1, MAX_SAMPLES)
    if seed is not None:
        _check_int("seed", seed, 0)
    if several_weight_sets(settings):
        raise ValueError("paired_test takes one weight set at a time, got several weights")
    counted = {}
    for name, predictions in systems.items():
        try:
            predictions, checked, _ = check_inputs(predictions, references)
        except (TypeError, ValueError) as error:
            raise type(error)(f"systems[{name!r}]: {error}") from None
        counted[name] = count_statistics(predictions, reference_lists(checked), settings, counting)
    return paired_test_statistics(counted, baseline, settings, test, n_samples, seed)


def explain_with(predictions, references, settings: Settings, counting: Counting) -> Explanations:
    """``explain`` with checked settings."""
    predictions, references, _ = check_inputs(predictions, references)
    return Explanations(predictions, reference_lists(references), make_tokenizer(settings.tokenize), settings,
                        counted_orders(settings), counting.max_tokens)


def _count_column(columns, name, ndim):
    """A column of counts as an int64 array: integers (or floats that are whole numbers), not
    negative, of ``ndim`` dimensions; else a ValueError or TypeError that names the column."""
    try:
        values = columns[name]
    except (KeyError, TypeError, IndexError):
        raise ValueError(f"statistics must hold the columns prediction_length, reference_length, matches, totals "
                         f"and references, as statistics() returns them: {name!r} is missing") from None
    try:
        raw = np.asarray(list(values))
    except (TypeError, ValueError) as error:
        raise TypeError(f"statistics column {name!r} must hold counts: {error}") from None
    if raw.dtype.kind == "b" or raw.dtype.kind not in "iuf" and raw.size:
        raise TypeError(f"statistics column {name!r} must hold integer counts, got {raw.dtype} values such as "
                        f"{raw.reshape(-1)[:1].tolist()!r}")
    if raw.ndim != ndim and raw.size:
        raise ValueError(f"statistics column {name!r} must have {ndim} dimension(s) "
                         f"({'a list per segment' if ndim == 2 else 'a number per segment'}), got shape {raw.shape}")
    if raw.dtype.kind == "f":
        whole = np.isfinite(raw) & (raw == np.round(raw))
        if not whole.all():
            raise ValueError(f"statistics column {name!r} must hold whole counts, got {raw[~whole][0]!r}")
    if (raw < 0).any():
        raise ValueError(f"statistics column {name!r} must hold counts of at least 0, got {raw.min()!r}")
    if raw.dtype.kind == "f" and raw.size and raw.max() >= 2**53:
        raise ValueError(f"statistics column {name!r} holds counts too big to be exact as floats: {raw.max()!r}")
    return raw.astype(np.int64).reshape(raw.shape if raw.size else (0,) * ndim)


def statistics_from_columns(columns, settings: Settings) -> Statistics:
    """``Statistics`` from the columns that ``Statistics.as_dict`` gives (a dict, or a
    ``datasets.Dataset``), checked where they enter: whole, non-negative counts, a row per
    segment in every column, matches at most totals, totals at most the prediction's length, at
    least one reference per segment, and as many orders as the settings count."""
    prediction_length = _count_column(columns, "prediction_length", 1)
    reference_length = _count_column(columns, "reference_length", 1)
    matches, totals = _count_column(columns, "matches", 2), _count_column(columns, "totals", 2)
    counts = _count_column(columns, "references", 1)
    if len(counts) == 0:
        raise ValueError("statistics is empty: BLEU needs at least one segment")
    for name, column in (("prediction_length", prediction_length), ("reference_length", reference_length),
                         ("matches", matches), ("totals", totals)):
        if len(column) != len(counts):
            raise ValueError(f"statistics column {name!r} has {len(column)} rows but 'references' has {len(counts)}: "
                             "every column needs a row per segment")
    if matches.shape != totals.shape or matches.shape[1] != counted_orders(settings):
        raise ValueError(f"statistics hold {matches.shape[1]} orders of matches and {totals.shape[1]} of totals, but "
                         f"max_order is {settings.statistics.max_order} (these options count "
                         f"{counted_orders(settings)} orders); use the same options for both")
    if (counts < 1).any():
        raise ValueError("statistics column 'references' must count at least one reference per segment, got 0")
    if (matches > totals).any():
        segment, order = np.argwhere(matches > totals)[0]
        raise ValueError(f"statistics column 'matches' exceeds 'totals' at segment {segment}, order {order + 1}: "
                         f"{matches[segment, order]} > {totals[segment, order]}")
    if (totals > prediction_length[:, None]).any():
        segment = int(np.argwhere(totals > prediction_length[:, None])[0][0])
        raise ValueError(f"statistics column 'totals' exceeds 'prediction_length' at segment {segment}: a prediction "
                         f"of {prediction_length[segment]} tokens has at most that many n-grams of each order")
    counted = _counted_with_column(columns, len(counts))
    check_counted_with(counted, settings)
    return Statistics.from_columns(prediction_length, reference_length, matches, totals, counts.tolist(), counted)


def _counted_with_column(columns, segments) -> Optional[CountedWith]:
    """The settings that counted the rows, from the column ``counted_with`` (one text per row), or
    None where there is no such column (rows made by hand). Rows counted with different settings
    are an error: their sum is no corpus's."""
    try:
        texts = columns["counted_with"]
    except (KeyError, TypeError, IndexError, ValueError):
        return None
    texts = set(texts)
    if len(texts) > 1:
        first, *others = sorted(map(CountedWith.from_text, texts))
        was, other = first.difference(others[0])
        raise ValueError(f"statistics rows counted with different settings do not add up: some were counted with "
                         f"{was}, others with {other}; count every part with the same options")
    if not texts:
        return None
    if len(columns["counted_with"]) != segments:
        raise ValueError(f"statistics column 'counted_with' has {len(columns['counted_with'])} rows but 'references' "
                         f"has {segments}: every column needs a row per segment")
    return CountedWith.from_text(texts.pop())


def checked_vector(vector, settings: Settings) -> np.ndarray:
    """A summed statistics vector that these settings can score, or a ValueError naming what is wrong."""
    array = np.asarray(vector)
    if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or array.dtype == object and len(array) == 0):
        raise TypeError(f"statistics must be the Statistics from exactbleu.statistics(), or the 1-D integer vector "
                        f"of Statistics.vector(), got {type(vector).__name__}: {vector!r:.80}")
    orders = counted_orders(settings)
    if len(array) != Statistics.vector_length(orders):
        raise ValueError(f"the statistics vector holds {len(array)} numbers; with these options it holds "
                         f"{Statistics.vector_length(orders)} ({orders} orders): count and score with the same options")
    array = array.astype(np.int64)
    sums = Statistics.vector_sums(array)
    if (array < 0).any() or array[0] < 1 or array[1] < array[0] or array[4] < 1:
        raise ValueError(f"the statistics vector must hold non-negative counts of at least one segment with at "
                         f"least one reference each, got {array.tolist()!r:.200}")
    if Statistics.vector_counted_with(array, counted_with(settings)) is False:
        raise ValueError(f"the statistics vector was not counted with these settings ({counted_with(settings).text()}): "
                         f"its {array[4]} part(s) were counted with other options, or with options that differ from "
                         f"part to part; count every part and score with the same options")
    if any(m > t for m, t in zip(sums.matches, sums.totals)) or any(t > d for t, d in zip(sums.totals, sums.denominators)):
        raise ValueError("the statistics vector's matches exceed its totals, or its totals its denominators: it "
                         "is not a sum of Statistics.vector()s")
    return array


def result_of_vector(vector: np.ndarray, settings: Settings) -> Dict[str, object]:
    """The result dict of a summed statistics vector."""
    for asked, key in ((settings.output.sentence_level, "sentence_level"), (settings.output.n_bootstrap, "n_bootstrap")):
        if asked:
            raise ValueError(f"{key} needs each segment's own statistics, which a summed vector does not hold: score "
                             f"the Statistics that exactbleu.statistics() returns (they add up with + too)")
    result = score_sums(Statistics.vector_sums(vector), settings)
    if settings.output.signature:
        result["signature"] = signature(settings, Statistics.vector_references(vector))
    return result
