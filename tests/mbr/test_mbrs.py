"""exactbleu.mbrs inside mbrs 0.1.8: mbrs's own DecoderMBR and DecoderAggregateMBR pick the same
candidates with the same scores with exactbleu's MetricBLEU as with mbrs's, under its configs; every
metric method gives mbrs's number (float32 tensors equal, floats equal to sacrebleu's ``.score``),
under every one of sacrebleu's smoothing methods; exactbleu.mbr's aggregated utility is mbrs's own
aggregation, in float64, to 1e-9 relative; what sacrebleu refuses is refused, with the library's
messages; mbrs's timer gets its rows; mbrs's own tests of its BLEU pass against the face; no
process pool starts.

mbrs cannot share this environment: it brings unbabel-comet, which pins numpy below 2 and
torchmetrics below 0.11. nox builds mbrs-env for it (noxfile.py), and mbrs runs there, once
for all these tests, in a process of its own (in_mbrs.py)."""

import json
import math
import os
import random
import subprocess

import pytest
import sacrebleu

import exactbleu
from conftest import ROOT, client_python, once_for_the_run
from oracles import mbr_samples
from pages import recipe

pytestmark = pytest.mark.slow  # mbrs's start, and its process pools, in a process of its own

CONFIGS = [{}, {"tokenize": "char", "lowercase": True}, {"smooth_method": "floor", "smooth_value": 0.2,
                                                        "max_ngram_order": 2},
           {"smooth_method": "add-k"}, {"smooth_method": "none", "effective_order": False}, {"trg_lang": "zh"}]
# sacrebleu's smoothing methods (its own list, the oracle's), each with its default value and with one
# of its own; "exp" and "none" take a value too, and ignore it, as sacrebleu does.
SMOOTHING = [{"smooth_method": method, **value} for method in sacrebleu.BLEU.SMOOTH_DEFAULTS
             for value in ({}, {"smooth_value": 0.3})]
NO_WORKER = {"num_workers": 0}
# exactbleu's other smoothing methods (NLTK's), which sacrebleu's BLEU, and so mbrs's, refuses.
NLTK_METHODS = [name for name in exactbleu.SMOOTHING if name not in sacrebleu.BLEU.SMOOTH_DEFAULTS]
# mbrs's own test inputs (mbrs/metrics/bleu_test.py), compared here number for number.
SUITE_HYPOTHESES = ["this is a test", "another test", "this is a fest",
                    "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"]
SUITE_REFERENCES = ["ref", "this is a test", "producţia de zahăr brut se exprimă în zahăr alb;"]
SUITE = [{"config": {"effective_order": order}, "hypotheses": SUITE_HYPOTHESES, "references": SUITE_REFERENCES,
          "lprobs": [-2.0] * 3} for order in (True, False)] + [
    {"config": {}, "hypotheses": SUITE_HYPOTHESES, "references": [SUITE_REFERENCES[i] for i in (1, 0, 1, 2)]},
    {"config": {"tokenize": "ja-mecab"}, "hypotheses": ["ありがとうございます", "どうも"],
     "references": ["ありがとう", "どうもありがとうございます"]},
    {"config": {}, "hypotheses": ["thank you", ""],
     "references": ["thank you so much", "", "thank you.", "thank you", ""], "lprobs": [-2.0] * 5}]
THREE = ["a b c d", "e f g h", "i j k l"]
BAD_STREAMS = [  # name, hypotheses, references_lists; the messages the test expects are below
    ("a short stream", THREE, [THREE, THREE[:2]]),
    ("None in every stream", THREE, [[THREE[0], None, THREE[2]], [THREE[0], None, "x y"]]),
    ("None beside a reference", THREE, [[THREE[0], None, THREE[2]], THREE]),
    ("a stream that is no list", THREE, [THREE, 5]),
    ("a stream that is a string", THREE, ["a b c d", THREE]),
    ("a text for the streams", THREE, "a b c d"),
    ("a reference that is no string", THREE, [[THREE[0], 7, THREE[2]], THREE]),
    ("a text for the hypotheses", "a b c d", [THREE]),
]
NUM_WORKERS_REFUSED = [-1, "2", 1.5, True, None]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """mbrs's run, once for the whole test run."""
    return once_for_the_run(tmp_path_factory, "mbrs", lambda: run_in_mbrs(tmp_path_factory.mktemp("mbrs")))


def run_in_mbrs(scratch):
    mbrs = client_python("mbrs")
    sources = mbr_samples(3, seed=57)
    rng = random.Random(57)
    cases = [{"config": config, "hypotheses": sources[0], "references": sources[1]}
             for config in [*CONFIGS, *SMOOTHING, NO_WORKER]] + SUITE
    job = {"recipe": recipe("mbrs/decode.py"), "configs": CONFIGS, "sources": sources, "cases": cases,
           "lprobs": [[rng.gauss(-20, 5) for _ in group] for group in sources], "nltk_methods": NLTK_METHODS,
           "bad_streams": BAD_STREAMS, "num_workers_refused": NUM_WORKERS_REFUSED}
    (scratch / "job.json").write_text(json.dumps(job), encoding="utf-8")
    environment = {**os.environ, "TMPDIR": str(scratch), "HF_HUB_OFFLINE": "1"}
    completed = subprocess.run([str(mbrs), str(ROOT / "tests" / "mbr" / "in_mbrs.py"), str(scratch / "job.json"),
                                str(scratch / "partial.json")], capture_output=True, text=True, timeout=300,
                               env=environment, cwd=scratch)
    assert completed.returncode == 0, completed.stderr[-6000:]
    report = {**json.loads((scratch / "partial.json").read_text(encoding="utf-8")), "sources": sources}
    return report


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


def test_every_metric_method_gives_mbrs_number_under_every_config(report):
    configs = [case["config"] for case in report["cases"]]
    assert all(config in configs for config in [*CONFIGS, *SMOOTHING, NO_WORKER])
    for case in report["cases"]:
        ours, theirs = case["ours"], case["theirs"]
        assert ours.keys() == theirs.keys()
        assert theirs["pairwise_dtype"] == "torch.float32"
        for name in theirs:
            if name == "aggregated_weighted":  # mbrs's float32 softmax, as above
                assert all(math.isclose(a, b, rel_tol=1e-6) for a, b in zip(ours[name], theirs[name])), case["config"]
            else:  # equal, not close: mbrs's own tests compare at 5e-4
                assert ours[name] == theirs[name], (name, case["config"], case["hypotheses"][:1])
        # On mbrs's 0..100: a sentence that is its reference scores 100.
        assert max(max(row) for row in ours["pairwise"]) <= 100


def test_mbrs_own_test_inputs_give_mbrs_numbers_on_0_to_100(report):
    suite = report["cases"][-len(SUITE):]  # compared with the rest above
    assert [case["hypotheses"] for case in suite] == [case["hypotheses"] for case in SUITE]
    effective = suite[0]
    # mbrs's own vector (bleu_test.py): "this is a test" against itself, 100; "another test", 18.394.
    assert effective["ours"]["pairwise"][0][1] == 100.0
    assert effective["ours"]["pairwise"][1][1] == pytest.approx(18.394, abs=5e-4)


def test_smooth_value_is_ignored_with_exp_and_none_as_sacrebleu_ignores_it(report):
    numbers = {json.dumps(case["config"], sort_keys=True): case["ours"] for case in report["cases"]}
    for method in ("exp", "none"):
        plain = numbers[json.dumps({"smooth_method": method})]
        assert numbers[json.dumps({"smooth_method": method, "smooth_value": 0.3}, sort_keys=True)] == plain
    # ...and used with floor and add-k, as sacrebleu uses it.
    floor = numbers[json.dumps({"smooth_method": "floor", "smooth_value": 0.3}, sort_keys=True)]
    assert floor["pairwise"] != numbers[json.dumps({"smooth_method": "floor"})]["pairwise"]


def test_nltks_smoothing_methods_are_refused_with_the_librarys_message(report):
    assert set(report["smoothing_refused"]) == set(NLTK_METHODS) and NLTK_METHODS
    for method, refused in report["smoothing_refused"].items():
        assert refused["theirs"] is not None  # sacrebleu's BLEU refuses it (by an assert)
        kind, message = refused["ours"]
        assert kind == "ValueError"
        assert "smooth_method" in message and repr(method) in message
        assert str(list(sacrebleu.BLEU.SMOOTH_DEFAULTS)) in message


def test_num_workers_0_counts_in_the_calling_thread_and_bad_values_are_refused(report):
    no_worker = next(case for case in report["cases"] if case["config"] == NO_WORKER)
    assert no_worker["ours"] == no_worker["theirs"]
    refused = {json.dumps(value): refusal for value, refusal in report["num_workers_refused"]}
    assert len(refused) == len(NUM_WORKERS_REFUSED)
    for value in NUM_WORKERS_REFUSED:
        kind, message = refused[json.dumps(value)]
        assert kind == ("ValueError" if value == -1 else "TypeError")
        assert "num_workers" in message and repr(value) in message


EXPECTED_STREAM_MESSAGES = {
    "a short stream": ("ValueError", "references_lists[1] holds 2 references but there are 3 hypotheses"),
    "None in every stream": ("ValueError", "hypothesis 1 has no reference"),
    "None beside a reference": None,
    "a stream that is no list": ("TypeError", "references_lists[1] must be a list, got int"),
    "a stream that is a string": ("TypeError", "references_lists[0] is a string"),
    "a text for the streams": ("TypeError", "references_lists must be a list, got str"),
    "a reference that is no string": ("TypeError", "references_lists[0][1] must be a string or None, got int: 7"),
    "a text for the hypotheses": ("TypeError", "hypotheses must be a list of strings, got str"),
}


def test_bad_reference_streams_get_messages_that_name_the_callers_indices(report):
    assert [name for name, _ in report["streams"]] == [name for name, _, _ in BAD_STREAMS]
    for name, refusal in report["streams"]:
        expected = EXPECTED_STREAM_MESSAGES[name]
        if expected is None:
            assert refusal is None, name
            continue
        assert refusal is not None, name
        assert refusal[0] == expected[0] and expected[1] in refusal[1], (name, refusal)


def test_mbrs_timer_gets_a_score_row_as_with_mbrs_own_metric(report):
    candidates = len(report["sources"][0])
    pairwise = report["timer"]["DecoderMBR"]
    assert pairwise["theirs"]["score"] == candidates * candidates  # the oracle's own rows
    assert pairwise["ours"] == pairwise["theirs"]
    aggregate = report["timer"]["DecoderAggregateMBR"]
    # mbrs's BLEU times its aggregation and a row per hypothesis; mbrs's aggregatable metrics time a
    # score per hypothesis inside the expectation, as the face does.
    assert aggregate["ours"].keys() >= aggregate["theirs"].keys() | {"score"}
    assert aggregate["ours"]["aggregate/references"] == aggregate["theirs"]["aggregate/references"] == 1
    assert aggregate["ours"]["score"] == candidates


def test_mbrs_own_tests_of_its_bleu_pass_against_the_face(report):
    suite = report["mbrs_own_tests"]
    assert suite["exit"] == 0, suite["printed"]
    assert list(suite["outcomes"].values()) == ["passed"] * 10, suite["printed"]
    assert "10 passed" in suite["printed"]


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
