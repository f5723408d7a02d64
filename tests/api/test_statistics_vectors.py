"""One statistics form that sums exactly. Vectors of shards add up with +, and the score
of the sum is compute's on the whole corpus, bit for bit, for every preset and smoothing method."""

import evaluate
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import exactbleu
from conftest import METRIC_PATH
from oracles import corpora, random_cases

SMOOTHING = [{}, {"smooth": True}, *({"smooth_method": method} for method in ("none", "floor", "add-k", "exp")),
             *({"smooth_method": f"method{number}"} for number in range(8)), {"smooth_method": "exp", "effective_order": True}]


@pytest.mark.parametrize("preset", ["default", "sacrebleu", "nltk"])
@pytest.mark.parametrize("smoothing", SMOOTHING, ids=lambda options: ",".join(f"{k}={v}" for k, v in options.items()) or "-")
def test_summed_vectors_score_as_compute_on_the_whole(preset, smoothing):
    predictions, references = random_cases(seed=30, count=400)  # 0-9 words: NLTK's short-hypothesis quirk too
    metric = evaluate.load(METRIC_PATH, preset)
    expected = metric.compute(predictions=predictions, references=references, signature=True, **smoothing)
    shards = [slice(0, 1), slice(1, 150), slice(150, 151), slice(151, 400)]
    vectors = [exactbleu.statistics(predictions[shard], references[shard], preset, **smoothing).vector()
               for shard in shards]
    assert all(vector.dtype == np.int64 and vector.ndim == 1 and len(vector) == len(vectors[0]) for vector in vectors)
    assert exactbleu.score(sum(vectors), preset, signature=True, **smoothing) == expected


@given(corpus=corpora(max_segments=10), cut=st.integers(1, 9))
def test_any_split_sums_to_the_whole(corpus, cut):
    predictions, references = corpus
    whole = exactbleu.corpus_bleu(predictions, references, signature=True)
    cut = min(cut, len(predictions))
    parts = [exactbleu.statistics(predictions[:cut], references[:cut]).vector()]
    if cut < len(predictions):
        parts.append(exactbleu.statistics(predictions[cut:], references[cut:]).vector())
    assert exactbleu.score(np.sum(parts, axis=0), signature=True) == whole


def test_the_signature_tells_a_varying_number_of_references():
    same = exactbleu.statistics(["a", "b"], [["a", "c"], ["b", "d"]]).vector()
    varying = exactbleu.statistics(["a", "b"], [["a"], ["b", "c", "d"]]).vector()
    assert "nrefs:2|" in exactbleu.score(same, signature=True)["signature"]
    assert "nrefs:var|" in exactbleu.score(varying, signature=True)["signature"]
    # 1 + 3 references over two segments sum like 2 + 2, but are not "nrefs:2"
    assert "nrefs:var|" in exactbleu.score(varying + varying, signature=True)["signature"]


@pytest.mark.parametrize("options, words", [
    ({"sentence_level": True}, ["sentence_level", "each segment's own statistics", "vector"]),
    ({"n_bootstrap": 10}, ["n_bootstrap", "each segment's own statistics"]),
    ({"max_order": 2}, ["vector holds 19 numbers", "13", "same options"]),
])
def test_scoring_a_summed_vector_says_what_it_cannot_give(options, words):
    vector = exactbleu.statistics(["a b c"], [["a b c"]]).vector()
    with pytest.raises(ValueError) as error:
        exactbleu.score(vector, **options)
    for word in words:
        assert word in str(error.value)


@pytest.mark.parametrize("vector, error", [
    (np.array([1.0] * 19), TypeError),
    (np.zeros((2, 19), dtype=np.int64), TypeError),
    # [segments, references, references squared, settings code, parts, lengths, matches, totals, denominators]
    (np.array([1, 1, 1, 0, 1, 3, 3, 4, 0, 0, 0, 3, 2, 1, 0, 3, 2, 1, 1]), ValueError),  # 4 matches of 3 unigrams
    (np.array([1, 1, 1, 0, 1, -3, 3, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 1]), ValueError),
    (np.array([0, 0, 0, 0, 1, 3, 3, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 1]), ValueError),  # no segment
    (np.array([1, 1, 1, 0, 0, 3, 3, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 1]), ValueError),  # no part
])
def test_a_vector_that_is_no_sum_of_statistics_is_refused(vector, error):
    with pytest.raises(error, match="statistics"):
        exactbleu.score(vector)
