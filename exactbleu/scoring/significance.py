"""Significance: how sure is a score, and is one system really better than another?

sacrebleu's bootstrap confidence interval and its paired tests (its ``significance.py``),
resampled exactly as sacrebleu resamples, on statistics: no segment is tokenized twice. A mean of
sentence scores (``average="macro"``) is resampled by the same draws: each resample's score is
the mean of the drawn segments' own scores, added in the order drawn, as that corpus would score.
"""

import math
from collections.abc import Iterator, Mapping
from statistics import mean as correctly_rounded_mean
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..limits import FLOAT32_WHOLE, PAIRED_TESTS
from ..options import Settings
from ..sufficient_statistics import Statistics
from . import arithmetic, on_percent_scale, scored_statistics, scored_sums, scores_of_rows
from .common import percent

# How many random draws one block of resamples or trials holds: about 100 MB of work arrays at
# once, whatever the corpus and the number of samples.
_DRAWS_PER_BLOCK = 1 << 22


def bootstrap_indices(segments: int, n_samples: int, seed: int | None) -> Iterator[NDArray[Any]]:
    """sacrebleu's bootstrap resamples, ``default_rng(seed).choice(segments, size=(n_samples,
    segments))``, a block of resamples at a time: each row the segments one resample draws, in
    the order drawn.

    Drawing the rows block by block gives the same numbers as drawing them at once: numpy makes
    each of these draws from whole 64-bit words, and carries nothing over between calls."""
    rng = np.random.default_rng(seed)
    block = max(1, _DRAWS_PER_BLOCK // segments)
    for start in range(0, n_samples, block):
        yield rng.choice(segments, size=(min(block, n_samples - start), segments), replace=True)


def draw_counts(drawn: NDArray[Any]) -> NDArray[Any]:
    """A block of ``bootstrap_indices`` as how many times each resample draws each segment
    (float64, so a matrix product with the statistics columns sums the block in one exact step)."""
    rows, segments = drawn.shape
    flat = (drawn + np.arange(rows)[:, None] * segments).ravel()
    return np.bincount(flat, minlength=rows * segments).reshape(rows, segments).astype(np.float64)


def resampled_sums(draws: NDArray[Any], columns: NDArray[Any]) -> NDArray[Any]:
    """The column sums of each resample in a block of ``draw_counts``, as int64. Exact: every
    partial sum is a whole number below 2**53."""
    sums: NDArray[np.int64] = np.rint(draws @ columns.astype(np.float64)).astype(np.int64)
    return sums


# sacrebleu sums each resample's statistics in float32, one drawn segment after another. While
# every partial sum is a whole number up to 2**24 (``FLOAT32_WHOLE``), float32 holds it exactly;
# past that (a corpus of about 17M tokens) its additions round, and only the same additions in the
# same order give its numbers.


def float32_sums(sums: NDArray[Any], drawn: NDArray[Any], by_column: NDArray[Any]) -> NDArray[Any]:
    """sacrebleu's float32 sums of a block of resamples, from their exact ``sums``, their
    ``drawn`` segments and the statistics as float32 columns (``by_column``, one row per column).
    A resample's exact sum of a column of at most 2**24 is sacrebleu's too; a larger one is added
    up as sacrebleu adds it: the column's values in the order drawn, one after another."""
    result = sums.astype(np.float32)
    for resample, column in np.argwhere(sums > FLOAT32_WHOLE).tolist():
        values = np.take(by_column[column], drawn[resample])
        result[resample, column] = np.add.accumulate(values, out=values)[-1]
    return result


def _macro(settings: Settings) -> bool:
    return settings.scoring.average == "macro"


def macro_scores(terms: NDArray[np.float64], scale: int) -> NDArray[np.float64]:
    """Each row of ``terms`` (the sentence scores, on 0..1, of the segments a resample draws or a
    trial keeps, in order) as their mean on the arithmetic's ``scale``: added one after another
    (numpy's cumsum, as a loop adds them), times the scale, over their number, as a corpus's
    ``average="macro"`` score is."""
    means: NDArray[np.float64] = np.cumsum(terms, axis=1)[:, -1] * scale / terms.shape[1]
    return means


def bootstrap_interval(statistics: Statistics, settings: Settings) -> list[float]:
    """The 95% bootstrap interval of corpus BLEU, resampled exactly as sacrebleu does.

    sacrebleu draws ``default_rng(seed).choice(n, size=(n_bootstrap, n))`` and reports the mean
    plus or minus half the distance between the sorted scores at n_bootstrap//40 and
    n_bootstrap - n_bootstrap//40 - 1; this returns those two scores.
    """
    n_bootstrap = settings.output.n_bootstrap
    draws = bootstrap_indices(len(statistics), n_bootstrap, settings.output.bootstrap_seed)
    if _macro(settings):
        terms = scores_of_rows(statistics, settings)
        scores = sorted(score for drawn in draws for score in macro_scores(terms[drawn], 1).tolist())
    else:
        columns = statistics.columns(denominators=arithmetic(settings).DENOMINATORS)
        scores = sorted(scored_sums(statistics.sums_of(sums), settings).bleu
                        for drawn in draws for sums in resampled_sums(draw_counts(drawn), columns).tolist())
    cut = n_bootstrap // 40
    return [scores[cut], scores[n_bootstrap - cut - 1]]


def randomization_swaps(segments: int, n_samples: int, seed: int | None) -> Iterator[NDArray[Any]]:
    """sacrebleu's approximate randomization trials, ``default_rng(seed).integers(2, size=(n_samples,
    segments), dtype=bool)`` (whether each trial swaps each segment), a block of trials at a time.
    numpy makes 32 of these draws from each 32-bit word, so a block of a whole number of words
    gives the same numbers as drawing them at once."""
    rng = np.random.default_rng(seed)
    words = 32 // math.gcd(32, segments)  # trials per block must make a multiple of 32 draws
    block = max(words, _DRAWS_PER_BLOCK // segments // words * words)
    for start in range(0, n_samples, block):
        yield rng.integers(2, size=(min(block, n_samples - start), segments), dtype=bool)


# Is system B really better than A? sacrebleu's paired tests (its significance.py), on statistics:
# no tokenizing per sample. The default number of samples is sacrebleu's (limits.PAIRED_TESTS).


def bootstrap_resamples(systems: Mapping[str, Statistics], settings: Settings, n_samples: int,
                        seed: int | None) -> Iterator[tuple[NDArray[Any], dict[str, list[float]]]]:
    """sacrebleu's paired bootstrap resamples, a block at a time: the segments each resample of the
    block draws (a row each, in the order drawn), and each system's score of each resample, by
    the one arithmetic (``scoring.arithmetic``) on its own scale. In sacrebleu's arithmetic the
    resampled sums are float32's, as sacrebleu has them (see ``float32_sums``)."""
    if _macro(settings):
        yield from _macro_resamples(systems, settings, n_samples, seed)
        return
    percent_scale = on_percent_scale(settings)
    score_of = arithmetic(settings).score
    denominators = arithmetic(settings).DENOMINATORS
    columns = {name: statistics.columns(denominators=denominators) for name, statistics in systems.items()}
    layout = next(iter(systems.values()))  # reads summed columns back as sums
    if percent_scale:
        by_column = {name: np.ascontiguousarray(system_columns.T, dtype=np.float32)
                     for name, system_columns in columns.items()}
    for drawn in bootstrap_indices(len(layout), n_samples, seed):
        draws = draw_counts(drawn)
        block = {}
        for name, system_columns in columns.items():
            sums = resampled_sums(draws, system_columns)
            if percent_scale:
                sums = float32_sums(sums, drawn, by_column[name])
            block[name] = [score_of(layout.sums_of(row), settings).value for row in sums]
        yield drawn, block


def _macro_resamples(systems: Mapping[str, Statistics], settings: Settings, n_samples: int,
                     seed: int | None) -> Iterator[tuple[NDArray[Any], dict[str, list[float]]]]:
    """``bootstrap_resamples`` of means of sentence scores: the same draws, each system's resampled
    mean of its segments' own scores (see ``macro_scores``)."""
    terms = {name: scores_of_rows(statistics, settings) for name, statistics in systems.items()}
    layout = next(iter(systems.values()))
    scale = scored_sums(layout.sums(), settings).scale
    for drawn in bootstrap_indices(len(layout), n_samples, seed):
        yield drawn, {name: macro_scores(rows[drawn], scale).tolist() for name, rows in terms.items()}


def randomization_trials(baseline: Statistics, system: Statistics, settings: Settings, n_samples: int,
                         seed: int | None) -> Iterator[tuple[NDArray[Any], list[float], list[float]]]:
    """sacrebleu's paired approximate randomization trials, a block at a time: which segments each
    trial swaps between the two systems (a row each), and the scores of the two corpora each swap
    makes (the system's with the baseline's swapped segments, then the other), by the one
    arithmetic on its own scale."""
    if _macro(settings):  # each side's mean of its segments' own scores
        base, own = scores_of_rows(baseline, settings), scores_of_rows(system, settings)
        scale = scored_sums(baseline.sums(), settings).scale
        for swapped in randomization_swaps(len(baseline), n_samples, seed):
            yield (swapped, macro_scores(np.where(swapped, base, own), scale).tolist(),
                   macro_scores(np.where(swapped, own, base), scale).tolist())
        return
    score_of = arithmetic(settings).score
    denominators = arithmetic(settings).DENOMINATORS
    first_columns, second_columns = baseline.columns(denominators), system.columns(denominators)
    both = first_columns.sum(axis=0) + second_columns.sum(axis=0)
    difference = (first_columns - second_columns).astype(np.float64)  # exact: sums stay below 2**53
    for swapped in randomization_swaps(len(baseline), n_samples, seed):
        first = (second_columns.sum(axis=0) + swapped @ difference).round().astype(np.int64)
        yield (swapped, [score_of(baseline.sums_of(a), settings).value for a in first],
               [score_of(baseline.sums_of(b), settings).value for b in both - first])


class Compared(NamedTuple):
    """One system's outcome in a paired test: its corpus score; against the baseline, the p-value
    (None for the baseline); with the bootstrap, the mean of its resampled scores and the
    half-width of their 95% interval (None with randomization, as in sacrebleu). ``score``,
    ``mean`` and ``ci`` are on the arithmetic's own ``scale`` (100: sacrebleu's percent, whose
    test runs on that scale; else 1), ``bleu`` on 0..1."""

    bleu: float
    score: float
    p_value: float | None
    mean: float | None
    ci: float | None
    scale: int

    def fractions(self) -> dict[str, float | None]:
        """``{"bleu", "p_value", "mean", "ci"}`` on 0..1, mean and ci divided by the scale."""
        return {"bleu": self.bleu, "p_value": self.p_value, "mean": _divided(self.mean, self.scale),
                "ci": _divided(self.ci, self.scale)}

    def percents(self) -> dict[str, float | None]:
        """``{"score", "p_value", "mean", "ci"}`` on 0..100: sacrebleu's own numbers in its
        arithmetic, 100 times the others'."""
        return {"score": percent(self.score, self.scale), "p_value": self.p_value,
                "mean": None if self.mean is None else percent(self.mean, self.scale),
                "ci": None if self.ci is None else percent(self.ci, self.scale)}


class Estimate(NamedTuple):
    """One system's bootstrap estimate, as sacrebleu's single-system interval (its ``-ci``) gives
    it: the correctly rounded mean of the resampled scores and the half-width of their 95%
    interval, on the arithmetic's own ``scale``; and their standard deviation, with Bessel's
    correction: the bootstrap standard error that lm-eval reports (nan for one resample)."""

    mean: float
    ci: float
    scale: int
    standard_error: float = math.nan

    def percents(self) -> tuple[float, float]:
        """(mean, ci) on 0..100: sacrebleu's own numbers in its arithmetic, 100 times the others'."""
        return percent(self.mean, self.scale), percent(self.ci, self.scale)

    def standard_error_percent(self) -> float:
        """The standard error on 0..100, as ``percents`` gives the others."""
        return percent(self.standard_error, self.scale)


def _divided(value: float | None, scale: int) -> float | None:
    return None if value is None else value / scale


def _sorted_estimate(values: list[float], n_samples: int) -> tuple[NDArray[np.float64], float]:
    """sacrebleu's estimate_ci: the sorted values and the half-width of their 95% interval."""
    ordered = np.sort(values)
    cut = n_samples // 40
    return ordered, float(0.5 * (ordered[n_samples - cut - 1] - ordered[cut]))


def bootstrap_estimate(statistics: Statistics, settings: Settings) -> Estimate:
    """sacrebleu's bootstrap estimate of one system's score (its ``-ci``, and ``corpus_score``'s
    ``n_bootstrap``): ``n_bootstrap`` resamples seeded with ``bootstrap_seed``, resampled and summed
    exactly as its paired bootstrap does, with the correctly rounded mean (``statistics.mean``)."""
    n_samples = settings.output.n_bootstrap
    values = [value for _, block in bootstrap_resamples({"system": statistics}, settings, n_samples,
                                                        settings.output.bootstrap_seed) for value in block["system"]]
    ordered, ci = _sorted_estimate(values, n_samples)
    spread = float(np.std(ordered, ddof=1)) if n_samples > 1 else math.nan
    return Estimate(correctly_rounded_mean(ordered.tolist()), ci, 100 if on_percent_scale(settings) else 1, spread)


def paired_test_statistics(systems: Mapping[str, Statistics], baseline: str, settings: Settings,
                           test: str = "bootstrap", n_samples: int | None = None,
                           seed: int | None = 12345) -> dict[str, Compared]:
    """Paired bootstrap resampling or paired approximate randomization of each system against
    the baseline, exactly as sacrebleu's ``PairedTest`` computes them (see ``Compared``).

    Args:
        systems: each system's statistics, the same segments in the same order.
        baseline: the name of the baseline system, a key of ``systems``.
        test: "bootstrap" (Koehn, 2004) or "randomization" (Riezler & Maxwell, 2005).
        n_samples: resamples or trials; by default 1000 and 10000, as in sacrebleu.
        seed: numpy's ``default_rng`` seed (sacrebleu's SACREBLEU_SEED); None draws from the OS.

    In sacrebleu's arithmetic the test runs on its 0-100 scale, its resampled sums in float32 as
    it has them; the mean is numpy's, as in sacrebleu's paired test. The resamples and trials are
    drawn a block at a time (``bootstrap_indices``, ``randomization_swaps``), so memory stays
    bounded whatever the corpus and ``n_samples``.
    """
    n_samples = n_samples or PAIRED_TESTS[test]
    corpus = {name: scored_statistics(statistics, settings) for name, statistics in systems.items()}
    p_values: dict[str, float | None] = dict.fromkeys(systems)
    estimates: dict[str, tuple[float | None, float | None]] = dict.fromkeys(systems, (None, None))
    if test == "bootstrap":
        resampled: dict[str, list[float]] = {name: [] for name in systems}
        for _, block in bootstrap_resamples(systems, settings, n_samples, seed):
            for name, values in block.items():
                resampled[name] += values
        for name in systems:
            ordered, ci = _sorted_estimate(resampled[name], n_samples)
            estimates[name] = (float(ordered.mean()), ci)
            if name != baseline:
                differences = np.abs(np.array(resampled[name]) - np.array(resampled[baseline]))
                p_values[name] = _p_value(differences - differences.mean(),
                                          abs(corpus[baseline].value - corpus[name].value))
    else:
        for name, statistics in systems.items():
            if name != baseline:
                trials = [abs(a - b) for _, first, second in randomization_trials(systems[baseline], statistics,
                                                                                   settings, n_samples, seed)
                          for a, b in zip(first, second)]
                p_values[name] = _p_value(np.array(trials), abs(corpus[baseline].value - corpus[name].value))
    return {name: Compared(corpus[name].bleu, corpus[name].value, p_values[name], *estimates[name],
                           corpus[name].scale) for name in systems}


def _p_value(statistics: NDArray[np.float64], observed: float) -> float:
    """The share of samples whose statistic exceeds the observed one, counting the observed
    itself (multeval's and sacrebleu's +1)."""
    return (int(np.sum(statistics > observed)) + 1) / (len(statistics) + 1)
