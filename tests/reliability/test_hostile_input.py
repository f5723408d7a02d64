"""Hostile input: malformed input gets a TypeError or ValueError that names the argument, a
rejected call loses nothing, odd but valid text scores as the oracles score it, and the
properties every BLEU must have hold on random corpora."""

import math
import random
import uuid

import evaluate
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU

from conftest import METRIC_PATH, examples
from exactbleu import options, tokenizers
from oracles import corpora, hf_bleu, sacrebleu_13a, streams

TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
GOOD = {"predictions": ["the cat sat on the mat"], "references": [["the cat sat on a mat"]]}
CAUGHT_BY_NAME = (ZeroDivisionError, IndexError, KeyError, AttributeError, AssertionError)


# --- Malformed input: a TypeError or ValueError naming what is wrong -------------------------

MALFORMED = [
    ({"predictions": None, "references": [["a"]]}, ["predictions", "list", "None"]),
    ({"predictions": ["a"], "references": None}, ["references", "list", "None"]),
    ({"predictions": [None], "references": [["a"]]}, ["predictions[0]", "string", "NoneType"]),
    ({"predictions": ["a"], "references": [None]}, ["references[0]", "NoneType"]),
    ({"predictions": ["a"], "references": [["a", None]]}, ["references[0][1]", "string", "NoneType"]),
    ({"predictions": ["a", "b"], "references": ["a", None]}, ["references[1]", "string", "NoneType"]),
    ({"predictions": [b"a"], "references": [["a"]]}, ["predictions[0]", "string", "bytes"]),
    ({"predictions": ["a"], "references": [[b"a"]]}, ["references[0][0]", "string", "bytes"]),
    ({"predictions": ["a"], "references": [b"a"]}, ["references[0]", "bytes"]),
    ({"predictions": b"ab", "references": [["a"], ["b"]]}, ["predictions", "list", "bytes"]),
    ({"predictions": "a b", "references": ["a b"]}, ["predictions", "list", "str"]),
    ({"predictions": [["a", "b"]], "references": [["a"]]},
     ["predictions[0]", "string", "list", "tokens", "' '.join(tokens)", "tokenizer='none'", "'nltk'"]),
    ({"predictions": ["a"], "references": [[["a", "b"]]]},
     ["references[0][0]", "string", "list", "' '.join(tokens)", "tokenizer='none'", "'nltk'"]),
    ({"predictions": ["a"], "references": [[[1]]]}, ["references[0][0]", "string", "list"]),
    ({"predictions": [1], "references": [["a"]]}, ["predictions[0]", "string", "int"]),
    ({"predictions": [math.nan], "references": [["a"]]}, ["predictions[0]", "string", "float"]),
    ({"predictions": ["a"], "references": [1]}, ["references[0]", "int"]),
    ({"predictions": {"a": 1}, "references": [["a"]]}, ["predictions", "list", "dict"]),
    ({"predictions": ["a"], "references": [{"a": 1}]}, ["references[0]", "list", "dict"]),
    ({"predictions": ["a"], "references": [{"a"}]}, ["references[0]", "list", "set"]),
    ({"predictions": (p for p in ["a"]), "references": [["a"]]}, ["predictions", "list", "generator"]),
    ({"predictions": [], "references": []}, ["predictions", "empty"]),
    ({"predictions": ["a"], "references": [[]]}, ["references[0]", "empty"]),
    ({"predictions": ["a", "b"], "references": [["a"]]}, ["same length", "2", "1"]),
    ({"predictions": ["a", "b"], "references": [["a"], "b"]}, ["references[1]", "mixes shapes", "string"]),
    ({"predictions": ["a", "b"], "references": ["a", ["b"]]}, ["references[1]", "mixes shapes", "list"]),
]

BAD_OPTIONS = [
    ({"tokenizer": "13b"}, ["tokenizer", "'13b'", "13a", "intl"]),
    ({"tokenizer": 5}, ["tokenizer", "5"]),
    ({"smooth_method": "laplace"}, ["smooth_method", "'laplace'", "floor", "exp"]),
    ({"ref_length": "longest"}, ["ref_length", "'longest'", "shortest", "closest"]),
    ({"lang": 5, "tokenizer": "moses"}, ["lang", "5"]),
    ({"max_order": 0}, ["max_order", "0", "positive"]),
    ({"max_order": "4"}, ["max_order", "'4'"]),
    ({"max_order": 10**9}, ["max_order", "at most 20", "1000000000"]),
    ({"max_order": 21}, ["max_order", "at most 20", "21"]),
    ({"weights": [0.01] * 10**6}, ["weights", "at most 20"]),
    ({"weights": [math.nan] * 4}, ["weights", "nan"]),
    ({"weights": [0.5, -0.5, 0.5, 0.5]}, ["weights", "-0.5"]),
    ({"weights": [math.inf, 0, 0, 0]}, ["weights", "inf"]),
    ({"weights": []}, ["weights", "[]"]),
    ({"weights": [0, 0]}, ["weights", "positive"]),
    ({"weights": "abc"}, ["weights", "'abc'"]),
    ({"weights": [0.5, 0.5], "max_order": 4}, ["max_order=4", "weights"]),
    ({"smooth": True, "smooth_method": "exp"}, ["smooth=True", "smooth_method='exp'"]),
    ({"smooth_method": "floor", "smooth_value": -1}, ["smooth_value", "-1"]),
    ({"smooth_method": "floor", "smooth_value": math.nan}, ["smooth_value", "nan"]),
    ({"n_bootstrap": -1}, ["n_bootstrap", "-1"]),
    ({"n_bootstrap": 2.5}, ["n_bootstrap", "2.5"]),
    ({"n_bootstrap": 10, "bootstrap_seed": "x"}, ["bootstrap_seed", "'x'"]),
    ({"lowercase": "yes"}, ["lowercase", "'yes'"]),
    ({"sentence_level": 1}, ["sentence_level", "1"]),
    ({"colour": "blue"}, ["unknown option", "colour", "tokenizer"]),
]


def assert_names(error, words):
    assert isinstance(error, (TypeError, ValueError)) and not isinstance(error, CAUGHT_BY_NAME)
    for word in words:
        assert word in str(error), (word, str(error))


@pytest.mark.parametrize("arguments, words", MALFORMED)
def test_malformed_input_to_compute(bleu, arguments, words):
    with pytest.raises((TypeError, ValueError)) as raised:
        bleu.compute(**arguments)
    assert_names(raised.value, words)


@pytest.mark.parametrize("arguments, words", [case for case in MALFORMED if "generator" not in case[1]])
def test_malformed_input_to_add_batch_and_statistics(bleu, arguments, words):
    for call in (bleu.add_batch, bleu.statistics):
        with pytest.raises((TypeError, ValueError)) as raised:
            call(**arguments)
        assert_names(raised.value, words)
    assert bleu.compute(**GOOD) == hf_bleu(**GOOD)  # nothing half-added stays behind


@pytest.mark.parametrize(
    "prediction, reference, words",
    [
        (None, ["a"], ["predictions[0]", "NoneType"]),
        ("a", None, ["references[0]", "NoneType"]),
        (b"a", ["a"], ["predictions[0]", "bytes"]),
        ("a", [b"a"], ["references[0][0]", "bytes"]),
        ("a", [], ["references[0]", "empty"]),
        ("a", [["a"]], ["references[0][0]", "list"]),
    ],
)
def test_malformed_input_to_add(bleu, prediction, reference, words):
    with pytest.raises((TypeError, ValueError)) as raised:
        bleu.add(prediction=prediction, reference=reference)
    assert_names(raised.value, words)


@pytest.mark.parametrize("options, words", BAD_OPTIONS)
def test_bad_options_are_errors_and_lose_no_added_data(options, words):
    """A bad option raises before evaluate consumes the added data; the corrected call scores it."""
    metric = evaluate.load(METRIC_PATH, experiment_id=uuid.uuid4().hex)
    metric.add_batch(predictions=GOOD["predictions"], references=GOOD["references"])
    metric.add(prediction="a b c d", reference=["a b c d e"])
    with pytest.raises((TypeError, ValueError)) as raised:
        metric.compute(**options)
    assert_names(raised.value, words)
    predictions, references = GOOD["predictions"] + ["a b c d"], GOOD["references"] + [["a b c d e"]]
    assert metric.compute() == hf_bleu(predictions, references)


def test_mixed_shapes_across_batches_are_caught(bleu):
    """evaluate fixes the shape from the first batch and would read a later string as a list of
    characters; the metric says so instead."""
    metric = evaluate.load(METRIC_PATH, experiment_id=uuid.uuid4().hex)
    metric.add_batch(predictions=["a b"], references=[["a b"]])
    with pytest.raises(ValueError, match="mixes shapes"):
        metric.add_batch(predictions=["c d"], references=["c d"])
    with pytest.raises(ValueError, match="mixes shapes"):
        metric.add(prediction="c d", reference="c d")
    metric.add_batch(predictions=["c d"], references=[["c d"]])
    assert metric.compute() == hf_bleu(["a b", "c d"], [["a b"], ["c d"]])


def test_a_rejected_batch_leaves_the_earlier_ones_intact():
    metric = evaluate.load(METRIC_PATH, experiment_id=uuid.uuid4().hex)
    metric.add_batch(predictions=["the cat sat"], references=[["the cat sat"]])
    for bad in ([None], ["bad \udc80 text"], [b"bytes"]):
        with pytest.raises((TypeError, ValueError)):
            metric.add_batch(predictions=bad, references=[["x"]])
    metric.add_batch(predictions=["on the mat"], references=[["on a mat"]])
    assert metric.compute() == hf_bleu(["the cat sat", "on the mat"], [["the cat sat"], ["on a mat"]])


# --- Odd but valid input scores as the oracles score it --------------------------------------

ODD_CHARACTERS = {
    "NUL": "\x00",
    "zero-width joiner": "\u200d",
    "zero-width space": "\u200b",
    "right-to-left mark": "\u200f",
    "byte order mark": "\ufeff",
    "combining acute": "e\u0301",
    "CRLF": "\r\n",
    "CR": "\r",
    "line separator U+2028": "\u2028",
    "paragraph separator U+2029": "\u2029",
    "next line U+0085": "\u0085",
    "unit separator U+001F": "\x1f",
    "vertical tab": "\x0b",
}
RTL_TEXT = ["שלום עולם , זה מבחן .", "مرحبا بالعالم ، هذا اختبار .", "‏Hebrew ‎mixed‏ with LTR"]


@pytest.mark.parametrize("name", list(ODD_CHARACTERS))
def test_odd_characters_inside_segments(bleu, sacrebleu_preset, name):
    odd = ODD_CHARACTERS[name]
    rng = random.Random(name)
    words = "the cat sat on a mat and 3.5 , dogs - ran".split() + RTL_TEXT[0].split()

    def line():
        return " ".join(rng.choice(words) + (odd if rng.random() < 0.3 else "") for _ in range(rng.randint(0, 12)))

    predictions = [line() for _ in range(30)] + RTL_TEXT
    references = [[line(), line()] for _ in range(30)] + [[text] for text in RTL_TEXT]
    assert bleu.compute(predictions=predictions, references=references) == hf_bleu(predictions, references)
    stored = evaluate.load(METRIC_PATH, experiment_id=uuid.uuid4().hex)  # through evaluate's Arrow storage
    stored.add_batch(predictions=predictions, references=references)
    assert stored.compute() == hf_bleu(predictions, references)
    ours = sacrebleu_preset.compute(predictions=predictions, references=references)
    theirs = BLEU().corpus_score(predictions, streams(references))
    assert math.isclose(ours["bleu"], theirs.score / 100, rel_tol=1e-9, abs_tol=1e-15)


def test_a_thousand_references_for_one_prediction(bleu, sacrebleu_preset):
    rng = random.Random(1000)
    words = [f"w{i}" for i in range(40)]
    prediction = " ".join(rng.choice(words) for _ in range(30))
    references = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 40))) for _ in range(1000)]
    for predictions, refs in (([prediction], [references]), ([prediction, "w1 w2"], [references, ["w1 w2"]])):
        assert bleu.compute(predictions=predictions, references=refs) == hf_bleu(predictions, refs)
        ours = sacrebleu_preset.compute(predictions=predictions, references=refs)
        theirs = BLEU().corpus_score(predictions, streams(refs))
        assert math.isclose(ours["bleu"], theirs.score / 100, rel_tol=1e-9, abs_tol=1e-15)


@pytest.mark.slow  # a big corpus: one segment of 200k tokens
def test_a_200k_token_segment(bleu):
    """One huge segment among ordinary ones (the benchmark times it: a second or so)."""
    rng = random.Random(200_000)
    words = [f"w{i}" for i in range(3000)] + [",", ".", "3.5", "-"]
    huge = [rng.choice(words) for _ in range(200_000)]
    prediction = " ".join(huge)
    reference = " ".join(word if rng.random() < 0.7 else rng.choice(words) for word in huge)
    predictions, references = [prediction, "a b c"], [[reference], ["a b c"]]
    expected = hf_bleu(predictions, references)
    assert expected["translation_length"] > 200_000
    assert bleu.compute(predictions=predictions, references=references) == expected


def test_the_highest_order_scores_and_no_order_can_hang(bleu):
    predictions, references = ["a b c d e f g h i j k l m n o p q r s t u v", "x y"], [["a b c d e f g h i j k l m n o p q r s t u"], ["x y"]]
    for max_order in (20, 13):
        assert bleu.compute(predictions=predictions, references=references, max_order=max_order, smooth=True) == \
            hf_bleu(predictions, references, max_order, smooth=True)


def test_max_tokens_bounds_the_work_of_one_call():
    """A server's guard (the Space sets it): more tokens than max_tokens is a ValueError before
    any n-gram is counted; within it, the usual result."""
    metric = evaluate.load(METRIC_PATH, max_tokens=12)
    predictions, references = ["the cat sat", "on the mat"], [["the cat sat"], ["on a mat"]]
    assert metric.compute(predictions=predictions, references=references) == hf_bleu(predictions, references)
    with pytest.raises(ValueError, match=r"more than 12 tokens.*max_tokens=12"):
        metric.compute(predictions=predictions + ["a b"], references=references + [["a b c"]])
    for bad in (0, -1, 2.5, True, "many"):
        with pytest.raises(ValueError, match="max_tokens must be a positive int"):
            evaluate.load(METRIC_PATH, max_tokens=bad)


# --- Invalid Unicode: a ValueError that says so ---------------------------------------------------

@pytest.mark.parametrize(
    "arguments, where",
    [
        ({"predictions": ["ok", "bad \udc80 text"], "references": [["ok"], ["bad text"]]}, "predictions[1]"),
        ({"predictions": ["ok", "fine"], "references": [["ok"], ["x", "bad \ud800"]]}, "references[1][1]"),
        ({"predictions": ["ok", "fine"], "references": ["ok", "\udfff bad"]}, "references[1]"),
        ({"predictions": [b"caf\xe9".decode("utf-8", "surrogateescape")], "references": [["café"]]}, "predictions[0]"),
    ],
)
def test_invalid_unicode_is_a_value_error_that_says_so(bleu, arguments, where):
    for call in (bleu.compute, bleu.statistics, bleu.add_batch):
        with pytest.raises(ValueError) as raised:
            call(**arguments)
        assert where in str(raised.value) and "not valid Unicode" in str(raised.value)
    assert bleu.compute(**GOOD) == hf_bleu(**GOOD)


def test_valid_astral_text_is_not_mistaken_for_surrogates(bleu):
    predictions, references = ["𝔘𝔫𝔦 😀 𠀀 ok"], [["𝔘𝔫𝔦 😀 𠀀 ok !"]]
    assert bleu.compute(predictions=predictions, references=references) == hf_bleu(predictions, references)


# --- Properties -------------------------------------------------------------------------------

OPTION_SETS = [
    {},
    {"smooth": True},
    {"ref_length": "closest"},
    {"max_order": 2},
    {"rstrip": True, "ref_length": "closest", "smooth_method": "exp"},
    {"smooth_method": "floor", "effective_order": True, "ref_length": "closest"},
    {"smooth_method": "add-k", "smooth_value": 2, "tokenizer": "intl"},
    {"tokenizer": "char", "weights": [0.7, 0.3]},
]


@settings(max_examples=examples(60))
@given(corpus=corpora(), options=st.sampled_from(OPTION_SETS))
def test_bleu_is_between_zero_and_one(bleu, corpus, options):
    predictions, references = corpus
    result = bleu.compute(predictions=predictions, references=references, sentence_level=True, **options)
    assert 0.0 <= result["bleu"] <= 1.0
    assert all(0.0 <= score <= 1.0 for score in result["sentence_bleu"])
    assert all(0.0 <= precision <= 1.0 for precision in result["precisions"])


@settings(max_examples=examples(60))
@given(corpus=corpora(), ref_length=st.sampled_from(["shortest", "closest"]), seed=st.integers(0, 2**32 - 1),
       options=st.sampled_from([{}, {"smooth": True}, {"smooth_method": "exp", "rstrip": True}]))
def test_corpus_order_and_reference_order_change_nothing(bleu, corpus, ref_length, seed, options):
    predictions, references = corpus
    rng = random.Random(seed)
    order = list(range(len(predictions)))
    rng.shuffle(order)
    shuffled_references = [rng.sample(references[i], len(references[i])) for i in order]
    original = bleu.compute(predictions=predictions, references=references, ref_length=ref_length, **options)
    shuffled = bleu.compute(predictions=[predictions[i] for i in order], references=shuffled_references,
                            ref_length=ref_length, **options)
    assert shuffled == original


@settings(max_examples=examples(60))
@given(words=st.lists(st.sampled_from(["the", "cat", "größer", "日本語", "3.5", ",", "a-b", "x"]), min_size=1, max_size=30),
       max_order=st.integers(1, 6), options=st.sampled_from(OPTION_SETS[:6]))
def test_a_prediction_identical_to_its_only_reference_scores_one(bleu, words, max_order, options):
    options = {key: value for key, value in options.items() if key != "max_order"}
    text = " ".join(words)
    tokens = len(sacrebleu_13a(text))
    assume(tokens >= max_order)
    result = bleu.compute(predictions=[text], references=[[text]], max_order=max_order, **options)
    assert result["bleu"] == 1.0


@settings(max_examples=examples(40))
@given(corpus=corpora(), options=st.sampled_from(OPTION_SETS))
def test_sentence_scores_from_statistics_equal_compute(bleu, corpus, options):
    predictions, references = corpus
    expected = bleu.compute(predictions=predictions, references=references, sentence_level=True, **options)
    columns = bleu.statistics(predictions, references, **options)
    rebuilt = [bleu.score_statistics({key: [column[i]] for key, column in columns.items()}, **options)["bleu"]
               for i in range(len(predictions))]
    assert rebuilt == expected["sentence_bleu"]


# --- Tokenizer fuzzing against sacrebleu, on every plane of Unicode ---------------------------

def plane_text(plane):
    """Text from one plane (no surrogates), mixed with spaces, digits and the marks 13a handles."""
    low = plane * 0x10000
    character = st.one_of(
        st.characters(min_codepoint=low, max_codepoint=low + 0xFFFF, exclude_categories=("Cs",)),
        st.sampled_from(list(" .,-0123456789&;\"'()") + ["&amp;", "&quot;", " "]),
    )
    return st.lists(character, max_size=40).map("".join)


# Every plane that holds characters (0 to 3, 14), the private-use planes (15, 16), and the first
# and last of the unassigned ones between (4 to 13 hold nothing yet, and their code points are all
# alike to a tokenizer: category Cn).
PLANES = [0, 1, 2, 3, 4, 13, 14, 15, 16]


@pytest.mark.parametrize("plane", PLANES)
@pytest.mark.parametrize("tokenizer", TOKENIZERS)
@settings(max_examples=examples(25))
@given(data=st.data())
def test_tokens_and_scores_equal_sacrebleu_on_every_plane(sacrebleu_preset, plane, tokenizer, data):
    predictions = data.draw(st.lists(plane_text(plane), min_size=1, max_size=5))
    references = [data.draw(plane_text(plane)) for _ in predictions]
    ours_tokenize = tokenizers.make_tokenizer(options.resolve_settings("sacrebleu", tokenizer=tokenizer).tokenize)
    theirs = BLEU(tokenize=tokenizer)
    for line in predictions + references:
        assert ours_tokenize(line) == theirs._preprocess_segment(line).split()
    ours = sacrebleu_preset.compute(predictions=predictions, references=references, tokenizer=tokenizer)
    score = theirs.corpus_score(predictions, [references])
    assert (ours["translation_length"], ours["reference_length"]) == (score.sys_len, score.ref_len)
    assert math.isclose(ours["bleu"], score.score / 100, rel_tol=1e-9, abs_tol=1e-15)
