"""Paired significance tests: identical to sacrebleu's PairedTest on the WMT17 systems, for paired
bootstrap resampling and paired approximate randomization; the same statistics for any other
convention, checked against a plain restatement of the test on HF's algorithm. sacrebleu runs live
here, except on all 16 systems at full resamples, where its numbers were recorded with it
(tests/data/wmt17-en-de/record_paired.py)."""

import json
import math
import random
import types

import numpy as np
import pytest
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest

from conftest import WMT17
from oracles import hf_bleu


def assert_same_as_sacrebleu(ours, theirs):
    assert list(ours) == theirs["System"]
    for name, result in zip(theirs["System"], theirs["BLEU"]):
        mine = ours[name]
        assert math.isclose(mine["bleu"], result.score / 100, rel_tol=0, abs_tol=1e-9), name
        assert mine["p_value"] == result.p_value, name  # (count + 1) / (n + 1): any miscount shows
        for key in ("mean", "ci"):
            expected = getattr(result, key)
            if expected is None:
                assert mine[key] is None
            else:
                assert math.isclose(mine[key], expected / 100, rel_tol=0, abs_tol=1e-9), (name, key)


def recorded(test):
    """sacrebleu's PairedTest on WMT17, as tests/data/wmt17-en-de/record_paired.py recorded it, in the
    form that PairedTest returns."""
    record = json.loads((WMT17 / "paired.json").read_text(encoding="utf-8"))
    assert record["sacrebleu"] == "2.6.0" and record["SACREBLEU_SEED"] == "12345"
    return {"System": [entry.pop("system") for entry in record[test]],
            "BLEU": [types.SimpleNamespace(**entry) for entry in record[test]]}


@pytest.fixture(autouse=True)
def sacrebleu_seed(monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "12345")


@pytest.mark.slow
def test_paired_bootstrap_of_the_16_systems_is_sacrebleus(sacrebleu_preset, wmt17):
    theirs = recorded("bootstrap")
    systems = {name: wmt17["systems"][name] for name in theirs["System"]}
    ours = sacrebleu_preset.paired_test(systems, wmt17["reference"])  # n_samples: sacrebleu's 1000
    assert_same_as_sacrebleu(ours, theirs)
    assert len(ours) == 16 and list(ours)[0] == "KIT.4950"
    assert any(0.01 < ours[name]["p_value"] < 0.99 for name in ours if name != "KIT.4950")  # close systems too


@pytest.mark.slow
def test_paired_randomization_is_sacrebleus(sacrebleu_preset, wmt17):
    theirs = recorded("randomization")
    names = theirs["System"]
    assert names == ["KIT.4950", "FBK.4870", "LIUM-NMT.4900"]  # within a BLEU point of each other
    systems = {name: wmt17["systems"][name] for name in names}
    ours = sacrebleu_preset.paired_test(systems, wmt17["reference"], test="randomization")  # 10000 trials
    assert_same_as_sacrebleu(ours, theirs)
    assert all(0.01 < ours[name]["p_value"] < 0.99 for name in names[1:])


@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_other_options_baseline_and_seed_as_sacrebleu(sacrebleu_preset, wmt17, monkeypatch, test):
    names = ["online-A.0", "KIT.4950", "FBK.4870"]
    systems = {name: wmt17["systems"][name][:800] for name in names}
    references = wmt17["reference"][:800]
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    ours = sacrebleu_preset.paired_test(systems, references, baseline="KIT.4950", test=test, n_samples=300, seed=7,
                                        tokenizer="intl", smooth_method="floor", lowercase=True)
    reordered = ["KIT.4950", "online-A.0", "FBK.4870"]
    _, theirs = PairedTest([(name, systems[name]) for name in reordered],
                           {"BLEU": BLEU(tokenize="intl", smooth_method="floor", lowercase=True)}, [references],
                           test_type={"bootstrap": "bs", "randomization": "ar"}[test], n_samples=300)()
    assert_same_as_sacrebleu({name: ours[name] for name in reordered}, theirs)


def test_hf_convention_against_a_plain_restatement(bleu):
    """On HF's default convention, the paired bootstrap is the same test on HF's scores: here it
    is restated plainly, resampling the texts themselves and scoring them with oracles.hf_bleu."""
    rng = random.Random(4)
    words = "the cat sat on a mat dog ran far away".split()
    sentence = lambda: " ".join(rng.choice(words) for _ in range(rng.randint(3, 12)))  # noqa: E731
    references = [sentence() for _ in range(40)]
    systems = {"base": [sentence() for _ in range(40)],
               "other": [r if rng.random() < 0.3 else sentence() for r in references]}
    ours = bleu.paired_test(systems, references, n_samples=60, seed=3)
    drawn = np.random.default_rng(3).choice(40, size=(60, 40), replace=True)
    scores = {name: np.array([hf_bleu([hyps[i] for i in sample], [references[i] for i in sample])["bleu"]
                              for sample in drawn]) for name, hyps in systems.items()}
    for name, hyps in systems.items():
        ordered = np.sort(scores[name])
        assert ours[name]["bleu"] == hf_bleu(hyps, references)["bleu"]
        assert math.isclose(ours[name]["mean"], ordered.mean(), rel_tol=1e-12)
        assert math.isclose(ours[name]["ci"], 0.5 * (ordered[60 - 60 // 40 - 1] - ordered[60 // 40]), abs_tol=1e-12)
    differences = np.abs(scores["other"] - scores["base"])
    observed = abs(ours["base"]["bleu"] - ours["other"]["bleu"])
    assert ours["other"]["p_value"] == (np.sum(differences - differences.mean() > observed) + 1) / 61


def test_nltk_convention_runs_through_the_same_statistics(wmt17):
    import evaluate

    from conftest import METRIC_PATH

    nltk = evaluate.load(METRIC_PATH, "nltk")
    systems = {name: wmt17["systems"][name][:300] for name in ["KIT.4950", "FBK.4870"]}
    result = nltk.paired_test(systems, wmt17["reference"][:300], n_samples=100, smooth_method="method1")
    expected = nltk.compute(predictions=systems["FBK.4870"], references=wmt17["reference"][:300], smooth_method="method1")
    assert result["FBK.4870"]["bleu"] == expected["bleu"] and 0 < result["FBK.4870"]["p_value"] <= 1


@pytest.mark.parametrize("arguments, words", [
    ({"systems": ["a"]}, ["systems must be a dict", "two"]),
    ({"systems": {"a": ["x"]}}, ["systems must be a dict", "two"]),
    ({"baseline": "c"}, ["baseline", "'c'", "['a', 'b']"]),
    ({"test": "t-test"}, ["test", "'t-test'", "bootstrap", "randomization"]),
    ({"n_samples": 0}, ["n_samples", "0"]),
    ({"seed": -1}, ["seed", "-1"]),
    ({"systems": {"a": ["x"], "b": ["x", "y"]}}, ["systems['b']", "same length"]),
    ({"weights": [(0.5, 0.5), (1.0,)]}, ["one weight set"]),
])
def test_errors_name_the_argument(bleu, arguments, words):
    call = {"systems": {"a": ["x y"], "b": ["x z"]}, "references": ["x y"], **arguments}
    with pytest.raises(ValueError) as raised:
        bleu.paired_test(**call)
    for word in words:
        assert word in str(raised.value)


@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_resampling_in_small_blocks_draws_sacrebleus_numbers(sacrebleu_preset, wmt17, monkeypatch, test):
    """The resamples and trials are drawn a block at a time (memory stays bounded); blocks of a
    few samples, of an odd size, must give sacrebleu's numbers still."""
    import exactbleu.scoring.significance

    monkeypatch.setattr(exactbleu.scoring.significance, "_DRAWS_PER_BLOCK", 3 * 333 + 1)
    names = ["KIT.4950", "FBK.4870"]
    systems = {name: wmt17["systems"][name][:333] for name in names}
    references = wmt17["reference"][:333]
    ours = sacrebleu_preset.paired_test(systems, references, test=test, n_samples=250)
    _, theirs = PairedTest(list(systems.items()), {"BLEU": BLEU()}, [references],
                           test_type={"bootstrap": "bs", "randomization": "ar"}[test], n_samples=250)()
    assert_same_as_sacrebleu(ours, theirs)
    interval = sacrebleu_preset.compute(predictions=systems["KIT.4950"], references=references, n_bootstrap=250)
    sacrebleu = BLEU()
    sacrebleu.corpus_score(systems["KIT.4950"], [references], n_bootstrap=250)  # the -ci interval
    one_block = exactbleu.scoring.significance._DRAWS_PER_BLOCK
    monkeypatch.setattr(exactbleu.scoring.significance, "_DRAWS_PER_BLOCK", 1 << 22)
    assert one_block != 1 << 22
    assert interval["bleu_ci"] == sacrebleu_preset.compute(predictions=systems["KIT.4950"], references=references,
                                                           n_bootstrap=250)["bleu_ci"]


_PEAK_MEMORY = """
import json, sys
sys.path.insert(1, "tests")
import exactbleu  # this checkout's, from the working folder
from oracles import random_corpus

def kilobytes(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))

predictions, references = random_corpus({segments}, seed=5)
other = random_corpus({segments}, seed=6)[0]
with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")  # the peak (VmHWM) starts again from here
before = kilobytes("VmRSS")
{work}
print(json.dumps((kilobytes("VmHWM") - before) // 1024))
"""


def peak_memory_mb(segments, work):
    """How far a call raises the peak memory of a fresh process (MB), on a random corpus."""
    import subprocess
    import sys

    from conftest import ROOT

    completed = subprocess.run([sys.executable, "-c", _PEAK_MEMORY.format(segments=segments, work=work)],
                               capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(completed.stdout.splitlines()[-1])


@pytest.mark.slow
def test_a_paired_bootstrap_runs_in_bounded_memory():
    """30k segments x 1000 resamples: the resamples as one matrix took about a GB here (16 GB at 1M
    segments); drawn a block at a time, they take a bounded few hundred MB, whatever the corpus's
    size. More segments would only cost time: 30k is where one matrix already passes the bound."""
    grown = peak_memory_mb(30_000, "exactbleu.paired_test({'a': predictions, 'b': other}, references)")
    assert grown < 400, grown


@pytest.mark.slow
def test_explain_streams_in_bounded_memory():
    """explain() of 1,000 long segments, read one at a time: materialised, they take about 50 MB
    here; worked out when read, the memory of one segment."""
    grown = peak_memory_mb(1_000, "sum(len(e['orders']) for e in exactbleu.explain("
                                  "[p * 8 for p in predictions], [[r[0] * 8] for r in references]))")
    assert grown < 30, grown


def test_paired_bootstrap_past_float32s_exact_integers_is_sacrebleus():
    """sacrebleu sums each resample's statistics in float32, segment after segment in the order
    drawn: past 2**24 (about 17M tokens) those sums round, and the scores move. Ours must round as
    sacrebleu does. sacrebleu's own PairedTest is the oracle, on statistics given to it (40
    segments of about a million tokens each: 40M tokens per system)."""
    from exactbleu import Statistics, compare

    rng = np.random.default_rng(3)

    def statistics(segments):
        prediction_length = rng.integers(900_000, 1_100_000, segments) | 1  # odd: float32 must round
        reference_length = rng.integers(900_000, 1_100_000, segments) | 1
        totals = np.maximum(prediction_length[:, None] - np.arange(4), 0)
        matches = (totals * rng.uniform(0.2, 0.7, (segments, 4))).astype(np.int64) | 1
        return Statistics.from_columns(prediction_length, reference_length, matches, totals, [1] * segments)

    systems = {"baseline": statistics(40), "other": statistics(40)}
    rows = {tuple(f"{name} {segment}" for segment in range(40)): system.array for name, system in systems.items()}

    class GivenStatistics(BLEU):
        def _extract_corpus_statistics(self, hypotheses, references):
            given = rows.get(tuple(hypotheses))
            return super()._extract_corpus_statistics(hypotheses, references) if given is None else given.tolist()

    metric = GivenStatistics()
    metric.corpus_score(["a"], [["a"]])  # sacrebleu's signature needs one evaluation first
    _, theirs = PairedTest([(name, list(key)) for key, name in zip(rows, systems)], {"BLEU": metric},
                           [[f"reference {segment}" for segment in range(40)]], test_type="bs", n_samples=200)()
    ours = compare(systems, baseline="baseline", n_samples=200, seed=12345, preset="sacrebleu")
    assert_same_as_sacrebleu({name: one.fractions() for name, one in ours.items()}, theirs)


def test_sacrebleus_float32_additions_on_real_text_are_sacrebleus(sacrebleu_preset, wmt17, monkeypatch):
    """The float32 additions, which a corpus past 2**24 tokens needs, forced on a small one:
    sacrebleu's numbers still (there, both ways of summing must agree with it)."""
    import exactbleu.scoring.significance

    monkeypatch.setattr(exactbleu.scoring.significance, "FLOAT32_WHOLE", 0)
    monkeypatch.setattr(exactbleu.scoring.significance, "_DRAWS_PER_BLOCK", 3 * 333 + 1)
    names = ["KIT.4950", "FBK.4870"]
    systems = {name: wmt17["systems"][name][:333] for name in names}
    references = wmt17["reference"][:333]
    ours = sacrebleu_preset.paired_test(systems, references, n_samples=250)
    _, theirs = PairedTest(list(systems.items()), {"BLEU": BLEU()}, [references], test_type="bs", n_samples=250)()
    assert_same_as_sacrebleu(ours, theirs)


def test_float32_sums_of_a_long_resample_are_sacrebleus_expression():
    """At 300k segments, the sums sacrebleu's expression gives, ``stats_np[idxs]`` then ``.sum(0)``
    on each resample in float32, against ours from the exact sums."""
    from exactbleu.scoring.significance import draw_counts, float32_sums, resampled_sums

    rng = np.random.default_rng(11)
    columns = rng.integers(0, 120, (300_000, 10))  # about 18M per column: past 2**24
    drawn = rng.choice(len(columns), size=(2, len(columns)), replace=True)
    theirs = np.array([resample.sum(0) for resample in columns.astype(np.float32)[drawn]])
    exact = resampled_sums(draw_counts(drawn), columns)
    assert (exact > 2**24).any() and (theirs != exact).any()  # float32 rounded somewhere
    ours = float32_sums(exact, drawn, np.ascontiguousarray(columns.T, dtype=np.float32))
    assert ours.dtype == np.float32 and (ours == theirs).all()
