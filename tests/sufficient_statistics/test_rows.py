"""Statistics add up: the statistics of any split of a corpus, added with +, with sum() or as
summed vectors, in any order, are the whole corpus's, and their score is corpus_bleu's on the
whole, bit for bit, under every preset and smoothing method; a vector that is no such sum is refused."""

import functools
import itertools
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactbleu
from conftest import examples
from oracles import corpora, hf_bleu, random_cases

SMOOTHING = [{}, {"smooth": True}, *({"smooth_method": method} for method in ("none", "floor", "add-k", "exp")),
             *({"smooth_method": f"method{number}"} for number in range(8)), {"smooth_method": "exp", "effective_order": True}]


@settings(max_examples=examples(300))
@given(corpus=corpora(max_segments=12), cuts=st.lists(st.integers(1, 11), max_size=3),
       preset=st.sampled_from(["default", "sacrebleu", "nltk"]))
def test_any_split_adds_up_to_the_whole(corpus, cuts, preset):
    predictions, references = corpus
    bounds = sorted({0, len(predictions), *(min(cut, len(predictions)) for cut in cuts)})
    spans = [(start, stop) for start, stop in itertools.pairwise(bounds) if stop > start]
    parts = [exactbleu.statistics(predictions[start:stop], references[start:stop], preset) for start, stop in spans]
    whole = exactbleu.statistics(predictions, references, preset)
    assert sum(parts) == functools.reduce(operator.add, parts) == whole
    assert sum(whole[start:stop] for start, stop in spans) == whole
    expected = exactbleu.corpus_bleu(predictions, references, preset, signature=True)
    assert exactbleu.score(sum(parts), preset, signature=True) == expected
    assert exactbleu.score(sum(reversed(parts)), preset, signature=True) == expected
    assert exactbleu.score(np.sum([part.vector() for part in reversed(parts)], axis=0), preset,
                           signature=True) == expected
    if preset == "default":
        assert exactbleu.score(whole) == hf_bleu(predictions, references)
    # As a harness keeps them: each segment's row as a dict of columns, joined back in order.
    rows = [exactbleu.statistics([prediction], [group], preset).as_dict() for prediction, group in zip(*corpus)]
    assert exactbleu.Statistics.from_dicts(rows) == whole


def test_joined_dicts_must_hold_the_same_columns_and_some():
    row = exactbleu.statistics(["a b"], [["a b"]]).as_dict()
    with pytest.raises(ValueError, match="no sample"):
        exactbleu.Statistics.from_dicts([])
    with pytest.raises(ValueError, match="same columns"):
        exactbleu.Statistics.from_dicts([row, {name: row[name] for name in list(row)[:-1]}])


@pytest.mark.parametrize("preset", ["default", "sacrebleu", "nltk"])
@pytest.mark.parametrize("smoothing", SMOOTHING, ids=lambda options: ",".join(f"{k}={v}" for k, v in options.items()) or "-")
def test_summed_vectors_score_as_corpus_bleu_on_the_whole(preset, smoothing):
    predictions, references = random_cases(seed=30, count=400)  # 0-9 words: NLTK's short-hypothesis quirk too
    expected = exactbleu.corpus_bleu(predictions, references, preset, signature=True, **smoothing)
    shards = [slice(0, 1), slice(1, 150), slice(150, 151), slice(151, 400)]
    vectors = [exactbleu.statistics(predictions[shard], references[shard], preset, **smoothing).vector()
               for shard in shards]
    assert all(vector.dtype == np.int64 and vector.ndim == 1 and len(vector) == len(vectors[0]) for vector in vectors)
    assert exactbleu.score(sum(vectors), preset, signature=True, **smoothing) == expected


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


def test_statistics_name_their_columns():
    stats = exactbleu.statistics(["a b c", "a"], [["a b c d"], ["b"]])
    assert stats.prediction_length.tolist() == [3, 1] and stats.reference_length.tolist() == [4, 1]
    assert stats.matches.tolist() == [[3, 2, 1, 0], [0, 0, 0, 0]]
    assert stats.totals.tolist() == [[3, 2, 1, 0], [1, 0, 0, 0]]
    assert len(stats) == 2 and stats[1:].matches.tolist() == [[0, 0, 0, 0]]
    with pytest.raises(ValueError, match="orders"):
        exactbleu.score(stats, max_order=2)
    with pytest.raises(ValueError, match="different orders"):
        stats + exactbleu.statistics(["a"], ["a"], max_order=2)
    with pytest.raises(TypeError, match="statistics must be the Statistics"):
        exactbleu.score({"matches": []})
