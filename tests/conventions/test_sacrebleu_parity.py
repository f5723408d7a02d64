"""Differential tests against sacrebleu itself: corpus scores and sentence scores (sacrebleu's
``sentence_bleu``, the "sacrebleu" preset's per-sentence scores) under its tokenizers, smoothing,
effective order and lowercase, the WMT17 rows of expected.json, and the bootstrap interval."""

import itertools
import math

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU

import exactbleu
from conftest import examples
from exactbleu import options, tokenizers
from oracles import corpora, streams

TOKENIZERS = ["13a", "intl", "zh", "char", "none"]
SMOOTHING = ["none", "floor", "add-k", "exp"]
# CJK and symbols for zh and intl, on top of the usual corpora.
CJK_WORDS = st.lists(st.sampled_from(["我", "爱", "北京", "天安门", "。", "，", "２０", "☀", "€", "日本", "·", "ｱ"]), max_size=8)


def assert_same_score(ours, theirs):
    """What the docs state: ``bleu`` is sacrebleu's score divided by 100, that float, capped at 1."""
    assert ours["bleu"] == min(1.0, theirs.score / 100)
    assert ours["precisions"] == [p / 100 for p in theirs.precisions]
    assert ours["brevity_penalty"] == theirs.bp
    assert (ours["translation_length"], ours["reference_length"]) == (theirs.sys_len, theirs.ref_len)


@pytest.mark.parametrize(
    "tokenizer, smooth_method, effective_order, lowercase",
    list(itertools.product(TOKENIZERS, SMOOTHING, [False, True], [False, True])),
)
@settings(max_examples=examples(12))
@given(corpus=corpora(max_segments=6, max_references=3))
def test_corpus_and_sentence_scores(corpus, tokenizer, smooth_method, effective_order, lowercase):
    predictions, references = corpus
    options = dict(tokenizer=tokenizer, smooth_method=smooth_method, effective_order=effective_order, lowercase=lowercase)
    ours = exactbleu.corpus_bleu(predictions, references, "sacrebleu", **options)
    theirs = BLEU(tokenize=tokenizer, smooth_method=smooth_method, effective_order=effective_order, lowercase=lowercase)
    assert_same_score(ours, theirs.corpus_score(predictions, streams(references)))
    sentences = exactbleu.sentence_scores(predictions, references, "sacrebleu", **options)
    for prediction, segment_references, sentence in zip(predictions, references, sentences.tolist()):
        assert sentence == min(1.0, theirs.sentence_score(prediction, segment_references).score / 100)


@settings(max_examples=examples(300))
@given(corpus=corpora(max_segments=6, max_references=3), tokenizer=st.sampled_from(TOKENIZERS),
       smooth_method=st.sampled_from(SMOOTHING), lowercase=st.booleans())
def test_the_presets_sentence_scores_are_sacrebleus_sentence_bleu(corpus, tokenizer, smooth_method, lowercase):
    """Without effective_order given, the preset's per-sentence scores take sacrebleu's
    ``sentence_bleu`` default, effective order."""
    predictions, references = corpus
    expected = [min(1.0, sacrebleu.sentence_bleu(p, r, smooth_method=smooth_method, tokenize=tokenizer,
                                                 lowercase=lowercase).score / 100)
                for p, r in zip(predictions, references)]
    got = exactbleu.sentence_scores(predictions, references, "sacrebleu", smooth_method=smooth_method,
                                    tokenizer=tokenizer, lowercase=lowercase)
    assert got.tolist() == expected


@pytest.mark.parametrize("smooth_method, smooth_value", [("floor", 0.01), ("floor", 0.5), ("add-k", 2), ("add-k", 0.5)])
@given(corpus=corpora(max_segments=5))
def test_smooth_values(sacrebleu_preset, corpus, smooth_method, smooth_value):
    predictions, references = corpus
    ours = sacrebleu_preset.compute(predictions=predictions, references=references,
                                    smooth_method=smooth_method, smooth_value=smooth_value)
    theirs = BLEU(smooth_method=smooth_method, smooth_value=smooth_value).corpus_score(predictions, streams(references))
    assert_same_score(ours, theirs)


def test_a_perfect_match_is_1_where_sacrebleu_says_100_00000000000004():
    """exp(log(100)) is a few ulps above 100: sacrebleu's score of a perfect match, and the 0-100 number
    of every exactbleu face in its arithmetic; the 0..1 number is capped at 1."""
    text = ["the cat sat on the mat"]
    theirs = BLEU().corpus_score(text, [text]).score
    assert theirs == 100.00000000000004
    assert exactbleu.corpus_bleu(text, [text], "sacrebleu")["bleu"] == 1.0
    assert exactbleu.scored(exactbleu.statistics(text, [text], "sacrebleu"), "sacrebleu").percent() == theirs
    assert exactbleu.compat.corpus_bleu(text, [text]).score == theirs


@given(corpus=corpora(max_segments=5), max_order=st.integers(1, 6))
def test_other_orders(sacrebleu_preset, corpus, max_order):
    predictions, references = corpus
    ours = sacrebleu_preset.compute(predictions=predictions, references=references, max_order=max_order)
    assert_same_score(ours, BLEU(max_ngram_order=max_order).corpus_score(predictions, streams(references)))


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
@pytest.mark.parametrize("lowercase", [False, True])
@given(line=st.one_of(st.text(), CJK_WORDS.map("".join), CJK_WORDS.map(" ".join)))
def test_same_tokens_on_random_unicode(tokenizer, lowercase, line):
    ours = tokenizers.make_tokenizer(options.resolve_settings("sacrebleu", tokenizer=tokenizer, lowercase=lowercase).tokenize)
    theirs = BLEU(tokenize=tokenizer, lowercase=lowercase)._preprocess_segment(line).split()
    assert ours(line) == theirs


def test_zh_reproduces_the_two_character_range_quirk():
    """sacrebleu's table reads '\\u20000' as U+2000 and '0' (a four-digit escape): U+2001..U+2A6D count
    as Chinese characters, and U+20000 (a real Extension B ideograph) does not."""
    theirs = BLEU(tokenize="zh")
    for character in ["\u2000", "\u2001", "\u2a6d", "\u2a6e", "\U00020000", "\u2f80", "\u2f81", "\u2fa1", "\u2fa2"]:
        line = f"a{character}b"
        ours = tokenizers.make_tokenizer(options.resolve_settings(tokenizer="zh").tokenize)(line)
        assert ours == theirs._preprocess_segment(line).split(), hex(ord(character))


WMT_OPTIONS = {
    "sacrebleu_default": {},
    "sacrebleu_smooth_none": {"smooth_method": "none"},
    "sacrebleu_lowercase": {"lowercase": True},
    "sacrebleu_tokenize_intl": {"tokenizer": "intl"},
    "sacrebleu_tokenize_char": {"tokenizer": "char"},
    "sacrebleu_tokenize_none": {"tokenizer": "none"},
}


@pytest.mark.slow
@pytest.mark.parametrize("key", WMT_OPTIONS)
def test_wmt17_rows_of_expected_json(sacrebleu_preset, wmt17, key):
    for name, hypotheses in wmt17["systems"].items():
        ours = sacrebleu_preset.compute(predictions=hypotheses, references=wmt17["reference"], signature=True,
                                        **WMT_OPTIONS[key])
        expected = wmt17["expected"][name][key]
        assert ours["bleu"] == expected["score"] / 100, name
        # The counts behind the precisions are sacrebleu's own, order by order.
        rows = sacrebleu_preset.statistics(hypotheses, wmt17["reference"], **WMT_OPTIONS[key])
        assert [sum(column) for column in zip(*rows["matches"])] == expected["counts"], name
        assert [sum(column) for column in zip(*rows["totals"])] == expected["totals"], name
        assert ours["brevity_penalty"] == expected["bp"]
        assert (ours["translation_length"], ours["reference_length"]) == (expected["sys_len"], expected["ref_len"])
        # sacrebleu's signature, field for field, but for the version.
        theirs = dict(field.split(":") for field in expected["signature"].split("|"))
        mine = dict(field.split(":") for field in ours["signature"].split("|"))
        assert {k: v for k, v in mine.items() if k != "version"} == {k: v for k, v in theirs.items() if k != "version"}
        assert mine["version"] == f"exactbleu-{exactbleu.__version__}"


def test_options_reproduce_sacrebleu_without_the_preset(bleu, wmt17):
    """The preset is only a bundle: the same options on the default config give the same score."""
    hypotheses = wmt17["systems"]["online-B.0"]
    ours = bleu.compute(predictions=hypotheses, references=wmt17["reference"], ref_length="closest",
                        smooth_method="exp", rstrip=True)
    assert ours["bleu"] == wmt17["expected"]["online-B.0"]["sacrebleu_default"]["score"] / 100


@pytest.mark.parametrize("n_bootstrap", [100, 1000])
def test_bootstrap_half_width_equals_sacrebleu(sacrebleu_preset, wmt17, monkeypatch, n_bootstrap):
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    hypotheses = wmt17["systems"]["KIT.4950"]
    theirs = BLEU().corpus_score(hypotheses, [wmt17["reference"]], n_bootstrap=n_bootstrap)
    ours = sacrebleu_preset.compute(predictions=hypotheses, references=wmt17["reference"], n_bootstrap=n_bootstrap)
    low, high = ours["bleu_ci"]
    assert low < ours["bleu"] < high
    # sacrebleu sums the resampled statistics in float32; the interval agrees to that rounding.
    assert math.isclose((high - low) / 2 * 100, theirs._ci, rel_tol=1e-5)


def test_bootstrap_seed_changes_the_interval(sacrebleu_preset, wmt17):
    hypotheses, references = wmt17["systems"]["KIT.4950"][:500], wmt17["reference"][:500]
    first = sacrebleu_preset.compute(predictions=hypotheses, references=references, n_bootstrap=100)
    again = sacrebleu_preset.compute(predictions=hypotheses, references=references, n_bootstrap=100)
    other = sacrebleu_preset.compute(predictions=hypotheses, references=references, n_bootstrap=100, bootstrap_seed=7)
    assert first["bleu_ci"] == again["bleu_ci"] != other["bleu_ci"]
