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


def test_references_of_zero_width_and_zero_rows_score_as_the_equal_lists():
    """The seed example: a (1, 1, 0) array of references crashed inside numpy's reshape."""
    expected = exactbleu.sentence_scores([[5, 8, 9]], [[[]]], ignore_ids=[0])
    assert expected.tolist() == [0.0]
    assert exactbleu.sentence_scores(np.array([[5, 8, 9]]), np.zeros((1, 1, 0), dtype=np.int64),
                                     ignore_ids=[0]).tolist() == expected.tolist()
    assert exactbleu.sentence_scores(np.array([[5, 8, 9]]), np.zeros((1, 0), dtype=np.int64),
                                     ignore_ids=[0]).tolist() == expected.tolist()
    assert exactbleu.corpus_bleu(np.zeros((2, 0), dtype=np.int64), np.zeros((2, 3, 0), dtype=np.int64), ignore_ids=[0]) \
        == exactbleu.corpus_bleu([[], []], [[[], [], []], [[], [], []]])
    for predictions, references in (([[5]], np.zeros((0, 1), dtype=np.int64)),
                                    (np.zeros((0, 3), dtype=np.int64), np.zeros((0, 1, 3), dtype=np.int64))):
        with pytest.raises(ValueError, match="predictions") as raised:
            exactbleu.corpus_bleu(predictions, references, ignore_ids=[0])
        lists = ([[5]], []) if len(predictions) else ([], [])
        with pytest.raises(ValueError) as plain:
            exactbleu.corpus_bleu(*lists)
        assert str(raised.value) == str(plain.value)


@pytest.mark.parametrize("given, ignore_ids, words", [
    ([[2**63 + 5, 7]], None, ["predictions[0]", str(2**63 + 5), "int64"]),
    (np.array([[2**63 + 5, 7]], dtype=np.uint64), [], ["predictions", str(2**63 + 5), "int64"]),
    ([[-(2**63) - 1, 7]], None, ["predictions[0]", str(-(2**63) - 1), "int64"]),
    ([[5, 7]], [2**63 + 5], ["ignore_ids", str(2**63 + 5), "int64"]),
])
def test_an_id_that_no_int64_holds_is_named_and_refused(given, ignore_ids, words):
    with pytest.raises(ValueError) as raised:
        exactbleu.sentence_scores(given, [[7]], **({} if ignore_ids is None else {"ignore_ids": ignore_ids}))
    for word in words:
        assert word in str(raised.value)
    assert "ignore_ids=[" not in str(raised.value)
