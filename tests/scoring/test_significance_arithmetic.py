"""Every resample of the significance tests is scored by the same arithmetic as the corpus score.

The oracle is a plain restatement of sacrebleu's resampling (numpy's ``default_rng(seed)``:
``choice`` for the bootstrap, ``integers(2, dtype=bool)`` for randomization), each resample's
statistics taken by indexing and scored with ``exactbleu.score``.
"""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from sacrebleu.metrics import BLEU

import exactbleu
from exactbleu import options as declared
from exactbleu.scoring import on_percent_scale
from exactbleu.scoring.significance import bootstrap_resamples, randomization_trials

# Each arithmetic, and NLTK's weights on sacrebleu's smoothing, where the tests once used
# sacrebleu's arithmetic without the weights.
CONVENTIONS = [
    ("default", {}),
    ("default", {"weights": [0.7, 0.1, 0.1, 0.1], "smooth_method": "exp"}),
    ("sacrebleu", {}),
    ("sacrebleu", {"weights": [0.6, 0.4]}),
    ("sacrebleu", {"smooth_method": "floor", "max_order": 3}),
    ("nltk", {"smooth_method": "method1"}),
    ("nltk", {"weights": [0.5, 0.3, 0.2]}),
]


@pytest.fixture(scope="module")
def systems(wmt17):
    names = ["KIT.4950", "FBK.4870"]
    return {name: wmt17["systems"][name][:120] for name in names}, wmt17["reference"][:120]


def scale(preset, options):
    return 100 if on_percent_scale(declared.resolve_settings(preset, **options)) else 1


@pytest.mark.parametrize("preset, options", CONVENTIONS)
def test_every_bootstrap_resample_is_scored_as_its_own_statistics(systems, preset, options):
    hypotheses, references = systems
    counted = {name: exactbleu.statistics(lines, references, preset, **options) for name, lines in hypotheses.items()}
    settings = declared.resolve_settings(preset, **options)
    drawn_by_numpy = np.random.default_rng(3).choice(len(references), size=(20, len(references)))
    resamples = [(row, {name: values[number] for name, values in block.items()})
                 for drawn, block in bootstrap_resamples(counted, settings, 20, 3) for number, row in enumerate(drawn)]
    assert len(resamples) == 20
    # sacrebleu sums a resample's statistics in float32, and so computes its precisions in float32.
    tolerance = 1e-6 if scale(preset, options) == 100 else 1e-12
    for (drawn, scores), expected_drawn in zip(resamples, drawn_by_numpy):
        assert np.array_equal(drawn, expected_drawn)
        for name, statistics in counted.items():
            expected = exactbleu.score(statistics[drawn], preset, **options)["bleu"]
            assert scores[name] / scale(preset, options) == pytest.approx(expected, rel=tolerance, abs=1e-15)
            if preset == "sacrebleu" and "weights" not in options:  # sacrebleu's own score of the float32 sums
                metric = BLEU(smooth_method=settings.scoring.smooth_method, max_ngram_order=settings.statistics.max_order)
                summed = statistics.array.astype(np.float32)[drawn].sum(0)
                assert scores[name] == metric._compute_score_from_stats(summed).score


@pytest.mark.parametrize("preset, options", CONVENTIONS)
def test_every_randomization_trial_is_scored_as_its_own_statistics(systems, preset, options):
    hypotheses, references = systems
    baseline, system = (exactbleu.statistics(lines, references, preset, **options) for lines in hypotheses.values())
    settings = declared.resolve_settings(preset, **options)
    swaps = np.random.default_rng(5).integers(2, size=(40, len(references)), dtype=bool)
    trials = [trial for swapped, first, second in randomization_trials(baseline, system, settings, 40, 5)
              for trial in zip(swapped, first, second)]
    assert len(trials) == 40
    for (swapped, first, second), expected_swap in zip(trials, swaps):
        assert np.array_equal(swapped, expected_swap)
        # The swap gives the system the baseline's segments where it swaps, and the baseline the system's.
        rows = np.where(swapped[:, None], baseline.array, system.array)
        others = np.where(swapped[:, None], system.array, baseline.array)
        for value, corpus in ((first, rows), (second, others)):
            expected = exactbleu.score(exactbleu.Statistics(corpus, baseline.orders, [1] * len(corpus),
                                                            baseline.counted_with), preset, **options)["bleu"]
            assert value / scale(preset, options) == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("preset, options", [c for c in CONVENTIONS if c[0] != "sacrebleu" or c[1].get("weights")])
def test_the_p_values_and_means_are_those_of_the_resampled_scores(systems, preset, options):
    """The p-value and mean from a plain restatement of each test on exactbleu.score of each
    resample. (sacrebleu's own arithmetic is held to sacrebleu's PairedTest in test_paired.py.)"""
    hypotheses, references = systems
    (first_name, first_lines), (second_name, second_lines) = hypotheses.items()
    counted = [exactbleu.statistics(lines, references, preset, **options) for lines in (first_lines, second_lines)]
    times = scale(preset, options)

    tolerance = 1e-6 if times == 100 else 1e-12  # sacrebleu's resamples are float32 sums

    def value(statistics):
        return times * exactbleu.score(statistics, preset, **options)["bleu"]

    observed = abs(value(counted[0]) - value(counted[1]))
    segments = len(references)
    # bootstrap
    drawn = np.random.default_rng(11).choice(segments, size=(60, segments))
    first = np.array([value(counted[0][row]) for row in drawn])
    second = np.array([value(counted[1][row]) for row in drawn])
    differences = np.abs(second - first)
    expected_p = (np.sum(differences - differences.mean() > observed) + 1) / 61
    result = exactbleu.paired_test({first_name: first_lines, second_name: second_lines}, references, n_samples=60,
                                   seed=11, preset=preset, **options)
    assert result[second_name]["p_value"] == pytest.approx(expected_p)
    assert result[second_name]["mean"] == pytest.approx(second.mean() / times, rel=tolerance)
    assert result[first_name]["mean"] == pytest.approx(first.mean() / times, rel=tolerance)
    # randomization
    swaps = np.random.default_rng(11).integers(2, size=(80, segments), dtype=bool)
    statistics = []
    for swapped in swaps:
        a = np.where(swapped[:, None], counted[0].array, counted[1].array)
        b = np.where(swapped[:, None], counted[1].array, counted[0].array)
        made = [exactbleu.Statistics(rows, counted[0].orders, [1] * segments, counted[0].counted_with)
                for rows in (a, b)]
        statistics.append(abs(value(made[0]) - value(made[1])))
    expected_p = (np.sum(np.array(statistics) > observed) + 1) / 81
    result = exactbleu.paired_test({first_name: first_lines, second_name: second_lines}, references,
                                   test="randomization", n_samples=80, seed=11, preset=preset, **options)
    assert result[second_name]["p_value"] == pytest.approx(expected_p)
    assert 1 / 81 <= result[second_name]["p_value"] <= 1


def test_the_seed_example_bootstrap_mean_is_the_score_with_weights(tmp_path):
    """One segment: every resample is the corpus itself, so the mean is the score, 0.45966 (it was
    0.42888, sacrebleu's arithmetic without the weights)."""
    system, references = ["the Straße"], [["the naïve Straße"]]
    bleu = exactbleu.corpus_bleu(system, references, "sacrebleu", weights=[0.6, 0.4])["bleu"]
    # Unigrams 2/2; no bigram matches, which sacrebleu's exp smoothing makes 1/(2 * 1); BP exp(1 - 3/2).
    assert bleu == pytest.approx(math.exp(1 - 3 / 2) * 1.0 ** 0.6 * (1 / 2) ** 0.4, rel=1e-12)
    result = exactbleu.paired_test({"a": system, "b": system}, references, preset="sacrebleu", weights=[0.6, 0.4],
                                   n_samples=50)
    assert result["a"]["mean"] == pytest.approx(bleu, rel=1e-12)
    assert result["a"]["ci"] == 0
    # The command line's -ci and --paired-bs, on 0..100.
    (tmp_path / "ref").write_text("the naïve Straße\n", encoding="utf-8")
    for name in ("a", "b"):
        (tmp_path / name).write_text("the Straße\n", encoding="utf-8")
    command = [sys.executable, "-m", "exactbleu", str(tmp_path / "ref"), "--weights", "0.6", "0.4", "-w", "10"]
    single = json.loads(subprocess.run([*command, "-i", str(tmp_path / "a"), "-ci", "-cin", "50"],
                                       capture_output=True, text=True, check=True).stdout)
    assert single["confidence_mean"] == pytest.approx(100 * bleu, rel=1e-9)
    paired = json.loads(subprocess.run([*command, "-i", str(tmp_path / "a"), str(tmp_path / "b"), "--paired-bs",
                                        "-pbsn", "50"], capture_output=True, text=True, check=True).stdout)
    assert paired[1]["BLEU"]["mean"] == pytest.approx(100 * bleu, rel=1e-9)
