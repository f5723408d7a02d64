"""A few segments (a sentence-level reward, a small training batch) are counted by the definition
itself, with sets; the engine takes the rest, and its segments too wide for packed keys. Each
must give exactly the rows of the plain definition (tests/oracles.py)."""

import evaluate
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import METRIC_PATH
from exactbleu import options, tokenizers
from exactbleu.counting import corpus as counting
from oracles import corpora, hf_bleu, plain_row, plain_rows


def few_rows(predictions, references, max_order, ref_length):
    """The rows that the few-segments path (the definition, with sets) gives a corpus."""
    tokenize = options.resolve_settings().tokenize
    return counting.few_segment_rows(
        tokenizers.token_text(predictions + [reference for segment in references for reference in segment], tokenize),
        [len(segment) for segment in references], max_order, ref_length)


@given(corpus=corpora(max_segments=12, max_references=5), max_order=st.integers(1, 8),
       ref_length=st.sampled_from(["shortest", "closest"]))
def test_the_few_segments_path_gives_the_rows_of_the_plain_definition(corpus, max_order, ref_length):
    predictions, references = corpus
    rows = few_rows(predictions, references, max_order, ref_length)
    assert np.array_equal(np.array(rows, dtype=np.int64).reshape(len(predictions), -1),
                          plain_rows(predictions, references, max_order, ref_length))


@given(corpus=corpora(max_segments=12, max_references=3))
def test_compute_on_a_small_corpus_equals_hf(corpus):
    predictions, references = corpus
    metric = evaluate.load(METRIC_PATH)
    assert metric.compute(predictions=predictions, references=references) == hf_bleu(predictions, references)


def _counting_calls(monkeypatch, module, name):
    calls, original = [], getattr(module, name)
    monkeypatch.setattr(module, name, lambda *args: calls.append(args) or original(*args))
    return calls


def test_compute_counts_a_few_segments_with_sets_and_more_with_the_engine(monkeypatch):
    few = _counting_calls(monkeypatch, counting, "few_segment_rows")
    engine_calls = _counting_calls(monkeypatch, counting, "chunk_statistics")
    metric = evaluate.load(METRIC_PATH)
    predictions, references = ["the cat sat on the mat ."] * 8, [["the cat is on the mat ."]] * 8
    assert metric.compute(predictions=predictions, references=references) == hf_bleu(predictions, references)
    assert (len(few), len(engine_calls)) == (1, 0)
    # Past _FEW_SEGMENTS_TEXT characters of text, though within _FEW_DOCUMENTS documents.
    predictions, references = ["the cat sat on the mat ." * 20] * 100, [["the cat is on the mat ." * 20]] * 100
    assert metric.compute(predictions=predictions, references=references) == hf_bleu(predictions, references)
    assert (len(few), len(engine_calls)) == (1, 1)


def test_keys_too_wide_for_62_bits_take_the_plain_definition():
    """Order 20 over a vocabulary of 600 tokens needs 200 bits per n-gram: the engine counts
    such segments by the definition."""
    words = [f"w{number}" for number in range(600)]
    predictions = [" ".join(words[start : start + 30]) for start in range(0, 600, 30)]
    references = [[" ".join(reversed(prediction.split()))] for prediction in predictions]
    settings = options.resolve_settings(max_order=20)
    assert (counting.count(predictions, references, settings, options.counted_with(settings)).array
            == plain_rows(predictions, references, 20, "shortest")).all()


def test_max_tokens_holds_on_the_small_path():
    metric = evaluate.load(METRIC_PATH, max_tokens=10)
    with pytest.raises(ValueError, match="more than 10 tokens"):
        metric.compute(predictions=["a b c d e f"], references=["a b c d e f"])
    assert metric.compute(predictions=["a b c"], references=["a b c"])["bleu"] == 0.0  # 6 tokens: no 4-grams


def test_statistics_rows_are_the_plain_definitions_on_every_path(monkeypatch):
    """The same corpus through the few-segments path and through the engine."""
    from exactbleu.counting import corpus as counting

    predictions = ["the the the cat", "a b a b a b", "x", ""] * 3
    references = [["the cat the", "the the"], ["a b a b"], ["x x"], ["y"]] * 3
    settings = options.resolve_settings()
    few = counting.count(predictions, references, settings, options.counted_with(settings))
    monkeypatch.setattr(counting, "_FEW_DOCUMENTS", 0)
    assert counting.count(predictions, references, settings, options.counted_with(settings)) == few
    assert few.array.tolist() == [plain_row(prediction.split(), [r.split() for r in segment], 4)
                                  for prediction, segment in zip(predictions, references)]
