"""exactbleu.mbrs inside mbrs 0.1.8: mbrs's own DecoderMBR and DecoderAggregateMBR pick the same
candidates with the same scores with exactbleu's MetricBLEU as with mbrs's, under its configs; every
metric method gives mbrs's number (float32 tensors equal, floats equal); exactbleu.mbr's aggregated
utility is mbrs's own aggregation, in float64, to 1e-9 relative; no process pool starts.

mbrs cannot share this environment: it brings unbabel-comet, which pins numpy below 2 and
torchmetrics below 0.11. The README's set-up builds .venv-mbrs for it, and mbrs runs there, once
for all these tests, in a process of its own (in_mbrs.py)."""

import json
import math
import os
import random
import subprocess

import pytest

from conftest import ROOT, client_python
from oracles import mbr_samples
from pages import recipe

pytestmark = pytest.mark.slow  # mbrs's start, and its process pools, in a process of its own

CONFIGS = [{}, {"tokenize": "char", "lowercase": True}, {"smooth_method": "floor", "smooth_value": 0.2,
                                                        "max_ngram_order": 2},
           {"smooth_method": "add-k"}, {"smooth_method": "none", "effective_order": False}, {"trg_lang": "zh"}]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    mbrs = client_python(".venv-mbrs")
    scratch = tmp_path_factory.mktemp("mbrs")
    sources = mbr_samples(3, seed=57)
    rng = random.Random(57)
    job = {"recipe": recipe("mbrs/decode.py"), "configs": CONFIGS, "sources": sources,
           "lprobs": [[rng.gauss(-20, 5) for _ in group] for group in sources]}
    (scratch / "job.json").write_text(json.dumps(job), encoding="utf-8")
    environment = {**os.environ, "TMPDIR": str(scratch), "HF_HUB_OFFLINE": "1"}
    completed = subprocess.run([str(mbrs), str(ROOT / "tests" / "mbr" / "in_mbrs.py"), str(scratch / "job.json"),
                                str(scratch / "report.json")], capture_output=True, text=True, timeout=300,
                               env=environment, cwd=scratch)
    assert completed.returncode == 0, completed.stderr[-6000:]
    return {**json.loads((scratch / "report.json").read_text(encoding="utf-8")), "sources": sources}


def test_mbrs_decoders_pick_the_same_candidates_with_the_same_scores(report):
    assert len(report["decoders"]) == 2 * len(report["sources"])
    for case in report["decoders"]:
        assert case["pairwise_ours"] == case["pairwise_theirs"]
        ours, theirs = case["aggregate_ours"], case["aggregate_theirs"]
        if not case["weighted"]:  # float32 of the same number
            assert ours == theirs
            continue
        # mbrs weighs an aggregate by its float32 softmax, whose weights sum to 1 only to float32's
        # precision; exactbleu divides by their sum.
        assert all(math.isclose(a, b, rel_tol=1e-6) for a, b in zip(ours["score"], theirs["score"]))
        assert ours["idx"] == theirs["idx"]


def test_every_metric_method_gives_mbrs_number(report):
    for case in report["methods"]:
        for name in ("pairwise", "pairwise_dtype", "expected", "scores", "score", "corpus"):
            assert case[f"{name}_ours"] == case[f"{name}_theirs"], (name, case["config"])


def test_the_aggregated_utility_is_mbrs_own_aggregation(report):
    assert len(report["aggregation"]) == len(CONFIGS) * (len(report["sources"]) - 1)
    for case in report["aggregation"]:
        for ours, theirs in zip(case["ours"], case["theirs"]):
            assert math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-300), case["config"]


def test_it_is_registered_starts_no_pool_and_the_recipe_runs(report):
    assert report["registered"]
    assert report["children_after"] == 0
    assert report["no_pool"] == report["decoders"][0]["pairwise_theirs"]["idx"]
    assert report["recipe"] == report["decoders"][0]["pairwise_theirs"]["idx"][:1]
