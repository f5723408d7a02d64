"""A mean of sentence scores (``average="macro"``), resampled: the bootstrap interval, the bootstrap
estimate and the paired tests draw what sacrebleu draws (its seeds, its resample indices and swap
masks), and each resample's score is the mean of the drawn segments' own scores, as that corpus's
macro score would be. Held to a plain restatement over NLTK's own ``sentence_bleu`` scores (the
"nltk" preset with ``average="macro"``) and ignite's own ``Bleu`` per example (its preset's
default), with sacrebleu's formulas for the interval and the p-values."""

import math
import statistics as python_statistics

import nltk.translate.bleu_score as nltk_bleu
import numpy as np
import pytest

import exactbleu
from oracles import nltk_quietly

ignite_bleu = pytest.importorskip("ignite.metrics.nlp").Bleu

RNG = np.random.default_rng(11)
WORDS = np.array("the a cat dog sat ran on in mat home".split())


def sentence():
    return " ".join(RNG.choice(WORDS, RNG.integers(1, 10)))


REFERENCES = [[sentence(), sentence()] for _ in range(30)]
SYSTEMS = {"base": [sentence() for _ in range(30)],
           "other": [group[0] if RNG.random() < 0.4 else sentence() for group in REFERENCES]}


def nltk_scores(predictions):
    smoothing = nltk_bleu.SmoothingFunction().method1
    return np.array([nltk_quietly(nltk_bleu.sentence_bleu, [r.split() for r in group], p.split(),
                                  smoothing_function=smoothing) for p, group in zip(predictions, REFERENCES)])


def ignite_scores(predictions):
    scores = []
    for prediction, group in zip(predictions, REFERENCES):
        metric = ignite_bleu(ngram=4, average="macro")
        metric.update(([prediction.split()], [[r.split() for r in group]]))
        scores.append(float(metric.compute()))
    return np.array(scores)


def mean_in_order(values):
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


ORACLES = {"nltk": (nltk_scores, {"smooth_method": "method1", "average": "macro"}), "ignite": (ignite_scores, {})}


@pytest.mark.parametrize("preset", sorted(ORACLES))
def test_the_bootstrap_of_a_mean_resamples_the_segments_own_scores(preset):
    oracle, options = ORACLES[preset]
    scores, samples, seed = oracle(SYSTEMS["other"]), 80, 5
    drawn = np.random.default_rng(seed).choice(len(scores), size=(samples, len(scores)), replace=True)
    resampled = sorted(mean_in_order(scores[row]) for row in drawn)
    cut = samples // 40
    result = exactbleu.corpus_bleu(SYSTEMS["other"], REFERENCES, preset, n_bootstrap=samples, bootstrap_seed=seed,
                                   **options)
    assert result["bleu"] == mean_in_order(scores)
    assert result["bleu_ci"] == [resampled[cut], resampled[samples - cut - 1]]
    counted = exactbleu.statistics(SYSTEMS["other"], REFERENCES, preset, **options)
    estimate = exactbleu.bootstrap(counted, preset, n_bootstrap=samples, bootstrap_seed=seed, **options)
    assert estimate.mean == python_statistics.mean(resampled)  # correctly rounded, as sacrebleu's -ci
    assert estimate.ci == 0.5 * (resampled[samples - cut - 1] - resampled[cut])
    assert math.isclose(estimate.standard_error, float(np.std(resampled, ddof=1)), rel_tol=1e-12)


@pytest.mark.parametrize("preset", sorted(ORACLES))
def test_the_paired_bootstrap_of_means_is_sacrebleus_test_on_each_segments_score(preset):
    oracle, options = ORACLES[preset]
    scores = {name: oracle(predictions) for name, predictions in SYSTEMS.items()}
    samples, seed = 60, 3
    drawn = np.random.default_rng(seed).choice(30, size=(samples, 30), replace=True)
    resampled = {name: np.array([mean_in_order(values[row]) for row in drawn]) for name, values in scores.items()}
    ours = exactbleu.paired_test(SYSTEMS, REFERENCES, preset=preset, n_samples=samples, seed=seed, **options)
    for name in SYSTEMS:
        ordered = np.sort(resampled[name])
        assert ours[name]["bleu"] == mean_in_order(scores[name])
        assert ours[name]["mean"] == ordered.mean()
        assert ours[name]["ci"] == 0.5 * (ordered[samples - samples // 40 - 1] - ordered[samples // 40])
    differences = np.abs(resampled["other"] - resampled["base"])
    observed = abs(mean_in_order(scores["base"]) - mean_in_order(scores["other"]))
    assert ours["other"]["p_value"] == (np.sum(differences - differences.mean() > observed) + 1) / (samples + 1)


@pytest.mark.parametrize("preset", sorted(ORACLES))
def test_paired_randomization_of_means_swaps_each_segments_score(preset):
    oracle, options = ORACLES[preset]
    base, other = oracle(SYSTEMS["base"]), oracle(SYSTEMS["other"])
    trials, seed = 200, 9
    swaps = np.random.default_rng(seed).integers(2, size=(trials, 30), dtype=bool)
    statistic = np.array([abs(mean_in_order(np.where(swap, base, other)) - mean_in_order(np.where(swap, other, base)))
                          for swap in swaps])
    observed = abs(mean_in_order(base) - mean_in_order(other))
    ours = exactbleu.paired_test(SYSTEMS, REFERENCES, preset=preset, test="randomization", n_samples=trials, seed=seed,
                                 **options)
    assert ours["other"]["p_value"] == (np.sum(statistic > observed) + 1) / (trials + 1)
