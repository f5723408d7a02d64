"""Weights in every shape NLTK takes, and scoring options given to evaluate.load, which
are checked there and become the metric's defaults (evaluate's evaluator and combine call compute
without options)."""

import evaluate
import numpy as np
import pytest
from evaluate.evaluator.text2text_generation import TranslationEvaluator

from conftest import METRIC_PATH

PREDICTIONS = ["The cat sat on the mat", "a dog didn't run", "x", ""]
REFERENCES = [["the cat sat on a mat", "there is a cat on the mat"], ["a dog didn't run home", "a dog"], ["x y"], ["z"]]
SCORED = dict(predictions=PREDICTIONS, references=REFERENCES, signature=True, sentence_level=True)


@pytest.mark.parametrize("weights", [
    [0.1, 0.2, 0.3, 0.4],
    (0.1, 0.2, 0.3, 0.4),
    np.array([0.1, 0.2, 0.3, 0.4]),
    np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32),
    [np.float64(0.1), np.float64(0.2), np.float64(0.3), np.float64(0.4)],
    [np.float32(0.1), np.float32(0.2), np.float32(0.3), np.float32(0.4)],
])
@pytest.mark.parametrize("preset", ["default", "nltk"])
def test_weights_in_every_shape_give_the_result_of_the_equal_floats(weights, preset):
    metric = evaluate.load(METRIC_PATH, preset)
    floats = [float(weight) for weight in weights]  # float32 values stay float32's, as NLTK computes with them
    assert metric.compute(weights=weights, **SCORED) == metric.compute(weights=floats, **SCORED)


@pytest.mark.parametrize("sets", [
    [np.array([0.5, 0.5]), np.array([0.25] * 4)],
    (np.array([0.5, 0.5], dtype=np.float32), (0.25, 0.25, 0.25, 0.25)),
    [[np.float32(1 / 3)] * 3, np.array([0.1, 0.2, 0.3, 0.4])],
])
def test_several_weight_sets_given_as_arrays(nltk_preset, sets):
    floats = [[float(weight) for weight in one] for one in sets]
    ours = nltk_preset.compute(weights=sets, **SCORED)
    assert ours == nltk_preset.compute(weights=floats, **SCORED)
    assert isinstance(ours["bleu"], list) and len(ours["bleu"]) == len(sets)


@pytest.mark.parametrize("weights, words", [
    (np.full((2, 4), 0.25), ["weights", "2-D", "(2, 4)", "list of 1-D"]),
    ("0.25 0.25 0.25 0.25", ["weights", "sequence of numbers", "str"]),
    ([0.5, float("nan")], ["weights", "nan"]),
    (np.array([0.5, np.nan]), ["weights", "nan"]),
    ([0.5, [0.5, 0.5]], ["weights"]),
    ([[0.5, 0.5], 0.5], ["weights", "mixes"]),
    ({0.5, 0.25}, ["weights", "set"]),
    ([[1.0]] * 1001, ["weights", "1001 weight sets", "at most 1000"]),
])
def test_bad_weights_name_the_argument(bleu, weights, words):
    with pytest.raises(ValueError) as error:
        bleu.compute(predictions=["a b"], references=["a b"], weights=weights)
    for word in words:
        assert word in str(error.value)


# Each scoring option, with a value other than its default, and what else it needs.
LOAD_TIME = [
    {"tokenizer": "char"},
    {"tokenizer": "moses", "lang": "de"},
    {"lowercase": True},
    {"tokenizer": "intl", "rstrip": False},
    {"max_order": 2},
    {"ref_length": "closest"},
    {"weights": [0.7, 0.3]},
    {"weights": [[0.5, 0.5], [0.25] * 4]},
    {"smooth": True},
    {"smooth_method": "floor", "smooth_value": 0.3},
    {"smooth_method": "exp", "effective_order": True},
    {"smooth_method": "method3"},
    {"sentence_level": True},
    {"signature": True},
    {"n_bootstrap": 20, "bootstrap_seed": 7},
]


@pytest.mark.parametrize("options", LOAD_TIME, ids=lambda options: ",".join(options))
def test_every_option_given_at_load_time_becomes_the_default(bleu, options):
    loaded = evaluate.load(METRIC_PATH, **options)
    expected = bleu.compute(predictions=PREDICTIONS, references=REFERENCES, **options)
    assert loaded.compute(predictions=PREDICTIONS, references=REFERENCES) == expected
    assert expected != bleu.compute(predictions=PREDICTIONS, references=REFERENCES)
    # ... in the batched pattern, and in the other methods too
    loaded.add_batch(predictions=PREDICTIONS[:2], references=REFERENCES[:2])
    loaded.add_batch(predictions=PREDICTIONS[2:], references=REFERENCES[2:])
    assert loaded.compute() == expected
    if "weights" not in options or not isinstance(options["weights"][0], list):
        assert loaded.statistics(PREDICTIONS, REFERENCES) == bleu.statistics(PREDICTIONS, REFERENCES, **{
            name: value for name, value in options.items() if name not in ("sentence_level", "signature")})


def test_the_issue_example(bleu):
    """evaluate.load("bleu_metric.py", max_order=2, tokenizer="char", smooth=True) was silently the default."""
    predictions, references = ["hello there"], [["hello here"]]
    loaded = evaluate.load(METRIC_PATH, max_order=2, tokenizer="char", smooth=True)
    result = loaded.compute(predictions=predictions, references=references)
    assert len(result["precisions"]) == 2 and result["translation_length"] == 10
    assert result == bleu.compute(predictions=predictions, references=references, max_order=2, tokenizer="char",
                                  smooth=True)


def test_the_preset_and_load_time_options_combine(sacrebleu_preset):
    loaded = evaluate.load(METRIC_PATH, "sacrebleu", max_order=2, signature=True)
    result = loaded.compute(predictions=PREDICTIONS, references=REFERENCES)
    assert result == sacrebleu_preset.compute(predictions=PREDICTIONS, references=REFERENCES, max_order=2,
                                              signature=True)
    assert "smooth:exp" in result["signature"] and "order:2" in result["signature"]


@pytest.mark.parametrize("loaded, given", [
    ({"max_order": 2}, {"max_order": 3}),
    ({"max_order": 2}, {"weights": [0.2, 0.3, 0.5]}),
    ({"weights": [0.5, 0.5]}, {"max_order": 4}),
    ({"smooth": True}, {"smooth_method": "floor"}),
    ({"smooth_method": "floor", "smooth_value": 0.3}, {"smooth": True}),
    ({"smooth_method": "floor", "smooth_value": 0.3}, {"smooth_method": "exp"}),
    ({"tokenizer": "char", "signature": True}, {"tokenizer": "13a"}),
])
def test_compute_arguments_override_load_time_options(bleu, loaded, given):
    result = evaluate.load(METRIC_PATH, **loaded).compute(predictions=PREDICTIONS, references=REFERENCES, **given)
    kept = {name: value for name, value in loaded.items() if name == "signature"}
    assert result == bleu.compute(predictions=PREDICTIONS, references=REFERENCES, **given, **kept)


def test_evaluator_and_combine_use_the_load_time_options(bleu):
    loaded = evaluate.load(METRIC_PATH, max_order=2, tokenizer="char")
    expected = bleu.compute(predictions=PREDICTIONS, references=REFERENCES, max_order=2, tokenizer="char")
    # evaluate's own code paths, which pass no options: combine, and the evaluator's compute_metric
    # (the evaluator itself needs transformers, so its method runs on an instance made without __init__).
    assert evaluate.combine([loaded]).compute(predictions=PREDICTIONS, references=REFERENCES) == expected
    evaluator = object.__new__(TranslationEvaluator)
    assert evaluator.compute_metric(loaded, {"predictions": PREDICTIONS, "references": REFERENCES}) == expected


@pytest.mark.parametrize("options, words", [
    ({"max_ordr": 2}, ["unknown option", "max_ordr", "max_order"]),
    ({"smooth_methd": "exp"}, ["unknown option", "smooth_methd"]),
    ({"max_order": 0}, ["max_order", "positive int", "0"]),
    ({"tokenizer": "13b"}, ["tokenizer", "'13b'", "intl"]),
    ({"smooth": True, "smooth_method": "exp"}, ["smooth=True", "smooth_method='exp'"]),
    ({"weights": np.full((2, 2), 0.5)}, ["weights", "2-D"]),
])
def test_a_bad_load_time_option_fails_at_load_with_computes_message(bleu, options, words):
    with pytest.raises(ValueError) as at_load:
        evaluate.load(METRIC_PATH, **options)
    for word in words:
        assert word in str(at_load.value)
    if not any(name.endswith(("ordr", "methd")) for name in options):
        with pytest.raises(ValueError) as at_compute:
            bleu.compute(predictions=["a"], references=["a"], **options)
        assert str(at_compute.value) == str(at_load.value)


def test_processes_is_the_old_name_of_threads():
    with pytest.warns(FutureWarning, match="threads="):
        metric = evaluate.load(METRIC_PATH, processes=1)
    assert metric._threads == 1
    with pytest.raises(ValueError, match="threads must be a positive int"):
        evaluate.load(METRIC_PATH, threads=0)
