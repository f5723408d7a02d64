"""The default result is exactly HF's `bleu`: checked against a plain restatement of HF's
algorithm and against bleuscore (Rust, PyPI), on random multi-reference corpora."""

import math

import bleuscore
import pytest
from hypothesis import given
from hypothesis import strategies as st

from oracles import corpora, hf_bleu


@given(corpus=corpora(), max_order=st.integers(1, 6), smooth=st.booleans())
def test_equals_hf_algorithm(bleu, corpus, max_order, smooth):
    predictions, references = corpus
    result = bleu.compute(predictions=predictions, references=references, max_order=max_order, smooth=smooth)
    assert result == hf_bleu(predictions, references, max_order, smooth)
    assert [type(result[key]) for key in result] == [float, list, float, float, int, int]


@given(corpus=corpora(arbitrary_text=False), max_order=st.integers(1, 6), smooth=st.booleans())
def test_equals_bleuscore(bleu, corpus, max_order, smooth):
    """bleuscore reproduces HF but for three things of its own. Its tokenizer splits on fewer
    whitespace characters than Python's str.split (not on U+001F, say), so its corpora hold no
    arbitrary Unicode. The other two this test allows and no more:
    it rounds the geometric mean as exp(w * sum(log p)) where HF rounds exp(sum(w * log p)), a few
    ulps of the exponent apart (for example 0.5000000000000001 where HF gives 0.5); and on an empty side it gives
    nan/inf ratios and BP 1.0 where HF's current code gives 0.0."""
    predictions, references = corpus
    result = bleu.compute(predictions=predictions, references=references, max_order=max_order, smooth=smooth)
    expected = bleuscore.compute(references, predictions, max_order, smooth)
    assert result["translation_length"] == expected["translation_length"]
    assert result["reference_length"] == expected["reference_length"]
    if result["translation_length"] == 0 or result["reference_length"] == 0:
        return
    assert {k: v for k, v in result.items() if k != "bleu"} == {k: v for k, v in expected.items() if k != "bleu"}
    # Rounding the exponent differently moves it by a few of its own ulps, which exp turns into
    # that many ulps of |log bleu| relative to bleu (6 ulps of bleu when log bleu is -2.95).
    exponent_ulp = math.ulp(max(1.0, abs(math.log(expected["bleu"])))) if expected["bleu"] > 0 else 0.0
    assert abs(result["bleu"] - expected["bleu"]) <= 4 * max(math.ulp(expected["bleu"]), exponent_ulp * expected["bleu"])


@given(corpus=corpora())
def test_single_string_references_equal_one_element_lists(bleu, corpus):
    predictions, references = corpus
    single = [segment_references[0] for segment_references in references]
    as_strings = bleu.compute(predictions=predictions, references=single)
    assert as_strings == bleu.compute(predictions=predictions, references=[[r] for r in single])
    assert as_strings == hf_bleu(predictions, single)


@pytest.mark.parametrize("blank", ["", " ", chr(12), "\n", "\t\r"])
def test_blank_segments_score_without_crashing(bleu, blank):
    """HF's bleu divides by zero on an empty prediction or reference (ZeroDivisionError); ours scores."""
    for predictions, references in (
        ([blank], [[blank]]),
        ([blank], [["a reference"]]),
        (["a prediction"], [[blank]]),
        ([blank, "the cat"], [[blank], ["the cat", blank]]),
    ):
        result = bleu.compute(predictions=predictions, references=references)
        assert result == hf_bleu(predictions, references)
        if result["translation_length"] == 0 or result["reference_length"] == 0:
            assert (result["bleu"], result["brevity_penalty"], result["length_ratio"]) == (0.0, 0.0, 0.0)
