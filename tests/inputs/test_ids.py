"""The boundary for token ids: references as 2-D or 3-D arrays, one or several per prediction, with
ignore_ids dropped; bad ids get a message that names the argument."""

import numpy as np
import pytest

import exactbleu


def test_references_as_arrays_one_or_several_per_prediction():
    predictions = [[1, 2, 3, 4], [5, 6, 7]]
    one_each = np.array([[1, 2, 3, 5], [5, 6, 7, 0]])
    several = np.array([[[1, 2, 3, 5], [1, 2, 0, 0]], [[5, 6, 7, 0], [6, 0, 0, 0]]])
    assert exactbleu.corpus_bleu(predictions, one_each, ignore_ids=[0]) == \
        exactbleu.corpus_bleu(["1 2 3 4", "5 6 7"], ["1 2 3 5", "5 6 7"], tokenizer="none")
    assert exactbleu.corpus_bleu(predictions, several, ignore_ids=[0]) == \
        exactbleu.corpus_bleu(["1 2 3 4", "5 6 7"], [["1 2 3 5", "1 2"], ["5 6 7", "6"]], tokenizer="none")


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
