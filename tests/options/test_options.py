"""Options, presets and signatures; the scoring function fed hand-written statistics."""


import evaluate
import pytest

import exactbleu

from conftest import METRIC_PATH
from exactbleu import options

HF_KEYS = ["bleu", "precisions", "brevity_penalty", "length_ratio", "translation_length", "reference_length"]
PREDICTIONS = ["the cat sat on the mat", "a dog ran"]
REFERENCES = [["the cat sat on a mat", "there is a cat on the mat"], ["a dog ran home"]]
VERSION = f"version:exactbleu-{exactbleu.__version__}"  # the version every signature names, stated in version.py


def test_default_output_is_exactly_hf_keys(bleu):
    assert list(bleu.compute(predictions=PREDICTIONS, references=REFERENCES)) == HF_KEYS


def test_extra_keys_only_when_asked(bleu):
    result = bleu.compute(predictions=PREDICTIONS, references=REFERENCES, sentence_level=True, signature=True,
                          n_bootstrap=50)
    assert list(result) == HF_KEYS + ["sentence_bleu", "bleu_ci", "signature"]
    assert len(result["sentence_bleu"]) == 2
    assert result["signature"] == f"nrefs:var|bs:50|seed:12345|case:mixed|eff:no|tok:13a|smooth:none|reflen:shortest|rstrip:no|{VERSION}"


def test_the_signature_of_the_default_settings(bleu):
    result = bleu.compute(predictions=["a b"], references=["a b"], signature=True)
    assert result["signature"] == f"nrefs:1|case:mixed|eff:no|tok:13a|smooth:none|reflen:shortest|rstrip:no|{VERSION}"


@pytest.mark.parametrize("options", [{}, {"tokenize": "intl", "lowercase": True}, {"smooth_method": "floor"},
                                     {"smooth_method": "add-k", "smooth_value": 2}, {"effective_order": True}])
def test_the_sacrebleu_presets_signature_is_sacrebleus_but_for_the_version(sacrebleu_preset, options):
    import sacrebleu

    metric = sacrebleu.BLEU(**options)
    metric.corpus_score(["a b c"], [["a b c"], ["a b"]])
    ours = {"tokenizer" if name == "tokenize" else name: value for name, value in options.items()}
    result = sacrebleu_preset.compute(predictions=["a b c"], references=[["a b c", "a b"]], signature=True, **ours)
    assert result["signature"] == metric.get_signature().format().replace("version:2.6.0", VERSION)


@pytest.mark.parametrize(
    "options, fields",
    [
        ({"smooth": True}, ["smooth:add-one"]),
        ({"smooth_method": "floor"}, ["smooth:floor[0.10]"]),
        ({"smooth_method": "add-k", "smooth_value": 2}, ["smooth:add-k[2.00]"]),
        ({"lowercase": True, "effective_order": True}, ["case:lc", "eff:yes"]),
        ({"weights": [0.5, 0.5]}, ["weights:0.5,0.5"]),
        ({"tokenizer": "moses", "lang": "de"}, ["tok:moses-de"]),
        ({"tokenizer": str.split}, ["tok:custom(split)"]),
        ({"max_order": 2}, ["order:2"]),
        ({"tokenizer": "intl", "rstrip": False}, ["tok:intl", "rstrip:no"]),
    ],
)
def test_signature_names_every_setting(bleu, options, fields):
    signature = bleu.compute(predictions=["a b"], references=["a b"], signature=True, **options)["signature"]
    for field in fields:
        assert field in signature.split("|")


@pytest.mark.parametrize(
    "options, words",
    [
        ({"tokenizer": "13b"}, ["tokenizer", "'13b'", "intl", "moses"]),
        ({"ref_length": "longest"}, ["ref_length", "'longest'", "closest"]),
        ({"smooth_method": "add-one"}, ["smooth_method", "'add-one'", "floor", "exp"]),
        ({"smooth": True, "smooth_method": "exp"}, ["smooth=True", "smooth_method='exp'"]),
        ({"smooth_value": 0.2}, ["smooth_value", "floor", "add-k"]),
        ({"smooth_method": "floor", "smooth_value": -1}, ["smooth_value", "-1"]),
        ({"weights": [0.5, 0.5], "max_order": 4}, ["max_order=4", "2 weights"]),
        ({"weights": []}, ["weights", "[]"]),
        ({"weights": [0.5, float("nan")]}, ["weights", "nan"]),
        ({"weights": [0.5, -0.5]}, ["weights", "-0.5"]),
        ({"weights": [0, 0]}, ["weights", "positive"]),
        ({"weights": "0.5"}, ["weights", "'0.5'"]),
        ({"weights": [0.5, 0.5], "effective_order": True}, ["effective_order", "weights"]),
        ({"n_bootstrap": -1}, ["n_bootstrap", "-1"]),
        ({"smoothing": True}, ["smoothing", "smooth_method"]),
        ({"lang": ""}, ["lang"]),
    ],
)
def test_bad_options_are_named_with_their_value_and_the_choices(bleu, options, words):
    with pytest.raises(ValueError) as raised:
        bleu.compute(predictions=["a"], references=["a"], **options)
    for word in words:
        assert word in str(raised.value)


@pytest.mark.parametrize("option", ["lowercase", "smooth", "sentence_level", "signature", "effective_order"])
def test_boolean_options_take_booleans(bleu, option):
    with pytest.raises(TypeError, match=option):
        bleu.compute(predictions=["a"], references=["a"], **{option: "yes"})


def test_unknown_config_name_fails_at_load():
    with pytest.raises(ValueError, match="config_name.*nltk.*sacrebleu"):
        evaluate.load(METRIC_PATH, "sacrebleu2")


def test_presets_and_overrides():
    settings = options.resolve_settings("sacrebleu")
    assert settings.tokenize == options.TokenizeSettings(tokenizer="13a", rstrip=True)
    assert settings.statistics == options.StatisticsSettings(ref_length="closest")
    # sacrebleu's corpus score averages every order; its sentence scores, the orders a sentence has.
    assert settings.scoring == options.ScoringSettings(smooth_method="exp", effective_order=False,
                                                       sentence_effective_order=True)
    nltk = options.resolve_settings("nltk")
    assert (nltk.tokenize.tokenizer, nltk.tokenize.rstrip, nltk.statistics.ref_length) == ("none", True, "closest")
    # Explicit arguments override the preset's; an explicit None is the default, the preset's own;
    # an explicit smooth=True replaces its method.
    assert options.resolve_settings("sacrebleu", ref_length="shortest").statistics.ref_length == "shortest"
    assert options.resolve_settings("sacrebleu", smooth_method=None) == options.resolve_settings("sacrebleu")
    assert options.resolve_settings("nltk", smooth_method=None, weights=None) == options.resolve_settings("nltk")
    assert options.resolve_settings("sacrebleu", smooth=True).scoring.smooth_method is None


def test_weights_set_the_order_and_uniform_weights_change_nothing(bleu):
    plain = bleu.compute(predictions=PREDICTIONS, references=REFERENCES, max_order=3)
    weighted = bleu.compute(predictions=PREDICTIONS, references=REFERENCES, weights=[1 / 3] * 3)
    assert weighted == plain


def test_weights_take_any_1_d_sequence_of_numbers_tensors_included():
    """The seed example: a tensor of weights raised torch's "iteration over a 0-d tensor"."""
    import numpy as np
    import torch

    expected = exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, weights=[0.5, 0.3, 0.2])
    for weights in (torch.tensor([0.5, 0.3, 0.2]), torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64),
                    np.array([0.5, 0.3, 0.2]), (0.5, 0.3, 0.2)):
        assert exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, weights=weights) == \
            exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, weights=[float(w) for w in weights])
    assert exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, weights=np.array([0.5, 0.3, 0.2]))["bleu"] == expected["bleu"]
    for bad in (torch.tensor(0.5), torch.tensor([[0.5, 0.5], [0.2, 0.8]]), torch.tensor([1, 2]).to("meta")):
        with pytest.raises(ValueError) as raised:
            exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, weights=bad)
        assert str(raised.value).startswith("weights")


def test_settings_keep_what_they_derive_but_pickle_and_compare_as_before():
    """What a call works out from the settings once (its per-sentence settings, what the statistics
    carry) is kept with them, and leaves their pickle (datasets.map's fingerprint), copies and
    equality as they were."""
    import copy
    import pickle

    from exactbleu.options import counted_with

    settings = exactbleu.resolve_settings("sacrebleu", lowercase=True)
    before = pickle.dumps(settings)
    exactbleu.sentence_bleu("a b c", ["a b d"], settings)
    assert settings.memo and settings.per_sentence() is settings.per_sentence()
    assert counted_with(settings) is counted_with(settings)
    assert pickle.dumps(settings) == before and pickle.loads(before) == settings
    assert copy.deepcopy(settings).memo == {} and copy.deepcopy(settings) == settings
    assert settings.per_sentence().scoring.effective_order and not settings.scoring.effective_order


def test_a_call_resolved_before_is_not_resolved_again_nor_checked_less():
    """resolve_settings keeps what it resolved, by the call: the same call gets the same settings;
    a value equal but of another type (4.0 for 4, 1 for True) is another call, and refused as ever;
    a registration since is resolved anew."""
    first = exactbleu.resolve_settings("nltk", smooth_method="method1", max_order=4)
    assert exactbleu.resolve_settings("nltk", max_order=4, smooth_method="method1") is first
    assert exactbleu.resolve_settings("nltk", smooth_method="method1", max_order=3) is not first
    with pytest.raises(ValueError, match="max_order must be a positive int"):
        exactbleu.resolve_settings("nltk", smooth_method="method1", max_order=4.0)
    exactbleu.resolve_settings("sacrebleu", lowercase=True)
    with pytest.raises((TypeError, ValueError), match="lowercase"):
        exactbleu.resolve_settings("sacrebleu", lowercase=1)
    exactbleu.PRESETS.register(exactbleu.Preset("for-one-test", "a preset of this test", {"max_order": 2}))
    try:
        assert exactbleu.resolve_settings("for-one-test").statistics.max_order == 2
        exactbleu.PRESETS.register(exactbleu.Preset("for-one-test", "registered again", {"max_order": 3}))
        assert exactbleu.resolve_settings("for-one-test").statistics.max_order == 3
    finally:
        exactbleu.PRESETS.unregister("for-one-test")
    with pytest.raises(ValueError, match="for-one-test"):
        exactbleu.resolve_settings("for-one-test")
