"""A misspelled name gets the nearest valid one, after the valid choices, which stay listed: an
option, a preset, a tokenizer, a smoothing method and the other named choices, through the
functional API, the evaluate metric, compat, torchmetrics' Metrics and the Space (the command line's
own flags: tests/cli/test_cli.py). A name near no valid one gets no suggestion."""

import evaluate
import pytest

import exactbleu
from conftest import METRIC_PATH, load_metric
from exactbleu import OPTIONS, did_you_mean

PREDICTIONS, REFERENCES = ["the cat sat on the mat"], [["the cat sat on a mat"]]
OPTIONS_LISTED = ("; the options are ['tokenizer', 'lang', 'spm_model', 'aggressive_dash_splits', 'lowercase', "
                  "'rstrip', 'pad', 'eos', 'unk', 'max_order'")
PRESETS_LISTED = ("must be one of ['default', 'hf', 'sacrebleu', 'nltk', 'lm-eval', 'lighteval', 'coco', "
                  "'nlg-eval', 'vlmevalkit', 'codexglue', 'ignite', 'deepeval-bleu1', 'deepeval-bleu2', "
                  "'deepeval-bleu3', 'deepeval-bleu4', 'helm-bleu-1', 'helm-bleu-4', 'azure', 'fairseq', 'torchmetrics', 'torchmetrics-sacrebleu', "
                  "'multi-bleu', 'multi-bleu-detok', 't2t-bleu', 'tokenized-bleu', 't2t-ende', 'mteval-v13a', "
                  "'mteval-v14']")
TOKENIZERS_LISTED = "tokenizer must be one of ['13a', 'intl', 'zh', 'char', 'none', 'moses', "
SMOOTHING_LISTED = "smooth_method must be one of ['none', 'floor', 'add-k', 'exp', 'method0', "


@pytest.mark.parametrize("value, choices, each, expected", [
    ("smoth", ["smooth", "smooth_method"], False, "; did you mean 'smooth'?"),
    ("SacreBLEU", ["hf", "sacrebleu"], False, "; did you mean 'sacrebleu'?"),  # case aside
    (["max_ordr", "colour", "smoth"], ["max_order", "smooth"], True,
     "; did you mean 'max_order' for 'max_ordr', 'smooth' for 'smoth'?"),
    (["smoth"], ["smooth"], True, "; did you mean 'smooth'?"),
    ("colour", ["smooth", "max_order"], False, ""),
    ("smooth", ["smooth", "smoothing"], False, ""),  # valid already
    (["smoth"], ["smooth"], False, ""),  # a list is no name
    (3, ["3"], False, ""),
    ("smoth" * 100, ["smooth"], False, ""),  # too long to be a typo
])
def test_the_nearest_valid_name(value, choices, each, expected):
    assert did_you_mean(value, choices, each=each) == expected


@pytest.mark.parametrize("preset, options, listed, suggested", [
    ("default", {"smoth": True}, "unknown option(s) ['smoth']" + OPTIONS_LISTED, "'smooth'"),
    ("sacrebleau", {}, "preset " + PRESETS_LISTED + ", got 'sacrebleau'", "'sacrebleu'"),
    ("default", {"tokenizer": "13b"}, TOKENIZERS_LISTED, "'13a'"),
    ("default", {"smooth_method": "flor"}, SMOOTHING_LISTED, "'floor'"),
    ("default", {"ref_length": "closer"},
     "ref_length must be one of ['shortest', 'closest', 'closest-first'], got 'closer'",
     "'closest'"),
    ("default", {"keep_references": "firts"}, "keep_references must be one of ['all', 'first', 'fewest', 'one', "
     "'best']", "'first'"),
])
def test_a_misspelled_name_gets_the_nearest_in_the_api_and_the_metric(preset, options, listed, suggested):
    with pytest.raises(ValueError) as raised:
        exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, preset, **options)
    message = str(raised.value)
    assert listed in message
    assert message.endswith(f"; did you mean {suggested}?") and message.count("did you mean") == 1
    with pytest.raises(ValueError) as raised:
        load_metric(preset).compute(predictions=PREDICTIONS, references=REFERENCES, **options)
    assert str(raised.value).endswith(f"; did you mean {suggested}?")


def test_the_metric_suggests_at_load_time_too():
    with pytest.raises(ValueError) as raised:
        evaluate.load(METRIC_PATH, smoth=True, max_tokns=10)
    assert str(raised.value).startswith("unknown option(s) ['max_tokns', 'smoth'] given to evaluate.load")
    assert str(raised.value).endswith("; did you mean 'max_tokens' for 'max_tokns', 'smooth' for 'smoth'?")
    with pytest.raises(ValueError) as raised:
        load_metric("sacrebleau")
    assert str(raised.value).startswith("config_name " + PRESETS_LISTED + " (the presets), got 'sacrebleau'")
    assert str(raised.value).endswith("; did you mean 'sacrebleu'?")
    with pytest.raises(ValueError, match=r"got also \['predicton'\]; did you mean 'prediction'\?$"):
        load_metric().add(predicton="a", reference="a")
    with pytest.raises(ValueError, match=r"got also \['refrences'\]; did you mean 'references'\?$"):
        load_metric().add_batch(predictions=["a"], refrences=["a"])


@pytest.mark.parametrize("call, suggested", [
    (lambda: exactbleu.compat.BLEU(smooth_method="flor"), "'floor'"),
    (lambda: exactbleu.compat.BLEU(tokenize="13b"), "'13a'"),
    (lambda: exactbleu.paired_test({"base": PREDICTIONS, "other": PREDICTIONS}, REFERENCES, baseline="bse"), "'base'"),
    (lambda: exactbleu.paired_test({"a": PREDICTIONS, "b": PREDICTIONS}, REFERENCES, test="bootstrp"), "'bootstrap'"),
    (lambda: exactbleu.conventions(PREDICTIONS, REFERENCES, tokenizers=["13b"]), "'13a'"),
])
def test_other_faces_and_choices_suggest_alike(call, suggested):
    with pytest.raises(ValueError, match="must be one of") as raised:
        call()
    assert str(raised.value).endswith(f"; did you mean {suggested}?")


def test_torchmetrics_and_the_space_suggest_alike():
    from exactbleu.torchmetrics import SacreBLEUScore
    from space import requests as space

    with pytest.raises(ValueError, match=r"^tokenize must be one of \['13a', .*\], got '13b'; did you mean '13a'\?$"):
        SacreBLEUScore(tokenize="13b")
    with pytest.raises(space.InputError, match=r"^ref_length must be one of \['shortest', 'closest', 'closest-first'\], "
                                               r"got 'closer'; did you mean 'closest'\?$"):
        space.score("a b", "a b", ref_length="closer")


@pytest.mark.parametrize("preset, options", [
    ("default", {"colour": "blue"}), ("bleurt", {}), ("default", {"tokenizer": "wordpiece"}),
    ("default", {"smooth_method": "laplace"}),
])
def test_a_name_near_no_valid_one_gets_no_suggestion(preset, options):
    with pytest.raises(ValueError) as raised:
        exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, preset, **options)
    assert "did you mean" not in str(raised.value) and ("must be one of" in str(raised.value) or
                                                         str(list(OPTIONS)) in str(raised.value))
