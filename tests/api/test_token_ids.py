"""Token ids wherever a function takes text: lists or tuples of ints, 1-D integer arrays, a 2-D
padded array or tensor with ignore_ids. Every result equals that of the same ids written as
space-separated words under tokenizer="none"; bad ids get a message."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import exactbleu

IDS = st.lists(st.integers(0, 12), max_size=9)


def words(ids):
    return " ".join(map(str, ids))


@st.composite
def id_corpora(draw):
    size = draw(st.integers(1, 6))
    predictions = draw(st.lists(IDS, min_size=size, max_size=size))
    references = [draw(st.lists(IDS, min_size=1, max_size=3)) for _ in range(size)]
    return predictions, references


@given(corpus=id_corpora(), preset=st.sampled_from(sorted(exactbleu.PRESETS)),
       form=st.sampled_from(["lists", "tuples", "arrays", "padded", "tensor"]))
def test_every_function_gives_the_result_of_the_ids_as_words(corpus, preset, form):
    predictions, references = corpus
    as_words = [words(p) for p in predictions], [[words(r) for r in group] for group in references]
    pad = 99
    if form == "tuples":
        predictions = [tuple(p) for p in predictions]
    elif form == "arrays":
        predictions = [np.array(p, dtype=np.int32) for p in predictions]
        references = [[np.array(r, dtype=np.uint16) for r in group] for group in references]
    elif form in ("padded", "tensor"):
        width = max(map(len, predictions)) + 1
        padded = np.full((len(predictions), width), pad)
        for row, one in enumerate(predictions):
            padded[row, : len(one)] = one
        predictions = torch.tensor(padded) if form == "tensor" else padded
    extra = {"ignore_ids": [pad]} if form in ("padded", "tensor") else {}
    options = {"tokenizer": "none"} if preset != "nltk" else {}
    assert exactbleu.corpus_bleu(predictions, references, preset, **extra) == \
        exactbleu.corpus_bleu(*as_words, preset, **options)
    assert exactbleu.statistics(predictions, references, preset, **extra) == \
        exactbleu.statistics(*as_words, preset, **options)
    assert exactbleu.sentence_scores(predictions, references, preset, **extra).tolist() == \
        exactbleu.sentence_scores(*as_words, preset, **options).tolist()
    if form == "lists":
        assert exactbleu.sentence_bleu(predictions[0], references[0], preset) == \
            exactbleu.sentence_bleu(as_words[0][0], as_words[1][0], preset, **options)
        flat = [r for group in references for r in group]
        assert exactbleu.bleu_matrix(predictions, flat, preset).tolist() == \
            exactbleu.bleu_matrix(as_words[0], [words(r) for r in flat], preset, **options).tolist()
        if len(predictions) > 1:
            assert exactbleu.self_bleu(predictions, preset)["scores"].tolist() == \
                exactbleu.self_bleu(as_words[0], preset, **options)["scores"].tolist()


def test_references_as_arrays_one_or_several_per_prediction():
    predictions = [[1, 2, 3, 4], [5, 6, 7]]
    one_each = np.array([[1, 2, 3, 5], [5, 6, 7, 0]])
    several = np.array([[[1, 2, 3, 5], [1, 2, 0, 0]], [[5, 6, 7, 0], [6, 0, 0, 0]]])
    assert exactbleu.corpus_bleu(predictions, one_each, ignore_ids=[0]) == \
        exactbleu.corpus_bleu(["1 2 3 4", "5 6 7"], ["1 2 3 5", "5 6 7"], tokenizer="none")
    assert exactbleu.corpus_bleu(predictions, several, ignore_ids=[0]) == \
        exactbleu.corpus_bleu(["1 2 3 4", "5 6 7"], [["1 2 3 5", "1 2"], ["5 6 7", "6"]], tokenizer="none")


def test_a_counted_corpus_of_ids_is_the_chunked_engines_too():
    """Past a few segments the numpy engine counts, in threads: the same rows."""
    rng = np.random.default_rng(0)
    predictions = [rng.integers(0, 300, rng.integers(0, 30)).tolist() for _ in range(6000)]
    references = [[rng.integers(0, 300, rng.integers(1, 30)).tolist() for _ in range(2)] for _ in range(6000)]
    as_words = [words(p) for p in predictions], [[words(r) for r in group] for group in references]
    assert exactbleu.statistics(predictions, references) == exactbleu.statistics(*as_words, tokenizer="none")


@pytest.mark.parametrize("predictions, references, options, error, words", [
    ([[1, 2.5]], [[1]], {}, TypeError, "predictions[0] must hold integer token ids, got float64"),
    ([[1, -2]], [[1]], {}, ValueError, "at least 0, got -2"),
    ([[1, "a"]], [[1]], {}, TypeError, "mixes text with token ids"),
    ([[1, 2]], [["a b"]], {}, TypeError, "references[0] mixes text with token ids"),
    ([[1, 2]], [[["a b"], [1]]], {}, TypeError, "references[0][0] mixes text with token ids"),
    (np.array([[1.0, 2.0]]), [[1]], {}, TypeError, "integer token ids"),
    ([[1, 2]], [[1]], {"tokenizer": "13a"}, ValueError, "['tokenizer'] apply to text"),
    ([[1, 2]], [[1]], {"lowercase": True}, ValueError, "['lowercase'] apply to text"),
    (["1 2"], [["1"]], {"ignore_ids": [0]}, ValueError, "ignore_ids applies to token ids"),
    ([[1, 2]], [[1]], {"ignore_ids": ["pad"]}, TypeError, "ignore_ids must be a list of integer token ids"),
    (np.zeros((2, 2, 2), dtype=int), [[1], [1]], {}, ValueError, "must be 2-D"),
    ([[1, 2]], [[]], {}, ValueError, "references[0] is empty"),
])
def test_bad_ids_get_a_message(predictions, references, options, error, words):
    with pytest.raises(error) as raised:
        exactbleu.corpus_bleu(predictions, references, **options)
    assert words in str(raised.value)


def test_ragged_rows_in_an_array_are_refused():
    ragged = np.empty(2, dtype=object)
    ragged[:] = [[1, 2], [3]]
    with pytest.raises(ValueError, match="rows of different lengths"):
        exactbleu.corpus_bleu(np.stack([ragged]), [[1]])
