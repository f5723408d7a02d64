"""A small corpus (a training batch, a sentence-level reward) takes its own path through the
statistics: it must give exactly the rows of the plain definition and of the chunked path."""

import sys

import evaluate
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conftest import METRIC_PATH
from oracles import corpora, hf_bleu, load_module, plain_row, sacrebleu_13a

bleu_metric = load_module()


def plain_rows(predictions, references, max_order, ref_length):
    return np.array([plain_row(sacrebleu_13a(p), [sacrebleu_13a(r) for r in refs], max_order, ref_length)
                     for p, refs in zip(predictions, references)], dtype=np.int64).reshape(len(predictions), -1)


def small_rows(predictions, references, max_order, ref_length):
    tokenize = bleu_metric.resolve_settings().tokenize
    return bleu_metric.small_corpus_rows(
        bleu_metric.token_text(predictions, tokenize),
        bleu_metric.token_text([reference for segment in references for reference in segment], tokenize),
        [len(segment) for segment in references], max_order, ref_length)


@given(corpus=corpora(max_segments=12, max_references=5), max_order=st.integers(1, 8),
       ref_length=st.sampled_from(["shortest", "closest"]))
def test_small_path_rows_equal_the_plain_definition(corpus, max_order, ref_length):
    predictions, references = corpus
    rows = small_rows(predictions, references, max_order, ref_length)
    assume(rows is not None)  # keys wider than 62 bits go to the chunked path (tested below)
    assert (rows == plain_rows(predictions, references, max_order, ref_length)).all()


@given(corpus=corpora(max_segments=12, max_references=3))
def test_compute_on_a_small_corpus_equals_hf(corpus):
    predictions, references = corpus
    metric = evaluate.load(METRIC_PATH)
    assert metric.compute(predictions=predictions, references=references) == hf_bleu(predictions, references)


def test_compute_takes_the_small_path_for_a_small_corpus(monkeypatch):
    module = sys.modules[type(evaluate.load(METRIC_PATH)).__module__]
    calls = []
    small = module.small_corpus_rows
    monkeypatch.setattr(module, "small_corpus_rows", lambda *args: calls.append(args) or small(*args))
    predictions, references = ["the cat sat on the mat ."] * 8, [["the cat is on the mat ."]] * 8
    result = evaluate.load(METRIC_PATH).compute(predictions=predictions, references=references)
    assert len(calls) == 1 and result == hf_bleu(predictions, references)


def test_keys_too_wide_for_62_bits_fall_back_to_the_chunked_path():
    """Order 20 over a vocabulary of 600 tokens needs 200 bits per n-gram: the chunked path counts it."""
    words = [f"w{number}" for number in range(600)]
    predictions = [" ".join(words[start : start + 30]) for start in range(0, 600, 30)]
    references = [[" ".join(reversed(prediction.split()))] for prediction in predictions]
    assert small_rows(predictions, references, 20, "shortest") is None
    settings = bleu_metric.resolve_settings(max_order=20)
    assert (bleu_metric.corpus_rows(predictions, references, settings)
            == plain_rows(predictions, references, 20, "shortest")).all()


def test_max_tokens_holds_on_the_small_path():
    metric = evaluate.load(METRIC_PATH, max_tokens=10)
    with pytest.raises(ValueError, match="more than 10 tokens"):
        metric.compute(predictions=["a b c d e f"], references=["a b c d e f"])
    assert metric.compute(predictions=["a b c"], references=["a b c"])["bleu"] == 0.0  # 6 tokens: no 4-grams
