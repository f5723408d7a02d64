"""What an attack on the metric found (issue 31): each test failed before its fix."""

import concurrent.futures
import threading

import evaluate
import pytest

from conftest import METRIC_PATH
from oracles import hf_bleu


class Switchable:
    """A tokenizer whose answer depends on a flag the caller flips between calls."""

    def __init__(self):
        self.lower = False

    def __call__(self, text):
        return (text.lower() if self.lower else text).split()


def test_a_callable_tokenizer_whose_answer_changes_never_gets_a_stale_cached_answer():
    predictions = [f"The cat {i} sat on The mat" for i in range(300)]
    references = [[f"the cat {i} sat on the Mat today"] for i in range(300)]
    bleu, tokenizer = evaluate.load(METRIC_PATH), Switchable()
    first = bleu.compute(predictions=predictions, references=references, tokenizer=tokenizer)
    tokenizer.lower = True
    second = bleu.compute(predictions=predictions, references=references, tokenizer=tokenizer)
    assert first == hf_bleu(predictions, references, tokenize=str.split)
    assert second == hf_bleu([p.lower() for p in predictions], [[r.lower() for r in rs] for rs in references],
                             tokenize=str.split)


def good_columns():
    return {"prediction_length": [4, 3], "reference_length": [5, 3], "matches": [[3, 2, 1, 1], [3, 2, 1, 0]],
            "totals": [[4, 3, 2, 1], [3, 2, 1, 0]], "references": [1, 2]}


@pytest.mark.parametrize("column, value, words", [
    ("matches", [[5, 2, 1, 0], [3, 2, 1, 0]], ["'matches' exceeds 'totals'", "segment 0, order 1"]),
    ("reference_length", [-5, 3], ["'reference_length'", "at least 0", "-5"]),
    ("prediction_length", [4.5, 3], ["'prediction_length'", "whole counts", "4.5"]),
    ("totals", [[4, 3, 2, 1], [9, 2, 1, 0]], ["'totals' exceeds 'prediction_length'", "segment 1"]),
    ("references", [1, 0], ["'references'", "at least one reference"]),
    ("matches", [[3, 2, 1, 0]], ["'matches' has 1 rows", "'references' has 2"]),
    ("totals", [["4", "3", "2", "1"], ["3", "2", "1", "0"]], ["'totals'", "integer counts"]),
    ("matches", [3, 3], ["'matches'", "2 dimension"]),
])
def test_statistics_are_validated_where_they_enter_with_the_column_named(bleu, column, value, words):
    columns = good_columns()
    columns[column] = value
    with pytest.raises((ValueError, TypeError)) as raised:
        bleu.score_statistics(columns)
    for word in words:
        assert word in str(raised.value)


def test_whole_float_counts_are_read_exactly_and_good_columns_score(bleu):
    columns = good_columns()
    expected = bleu.score_statistics(columns)
    columns["prediction_length"] = [4.0, 3.0]
    assert bleu.score_statistics(columns) == expected
    assert 0 < expected["bleu"] <= 1


def test_more_weight_sets_than_the_limit_are_refused_not_cut(bleu):
    with pytest.raises(ValueError, match="1000"):
        bleu.compute(predictions=["a b"], references=["a b"], weights=[[0.5, 0.5]] * 1001)


def test_add_batch_and_compute_from_8_threads_on_one_object_lose_nothing(wmt17):
    lines, reference = wmt17["systems"]["uedin-nmt.4722"][:1600], wmt17["reference"][:1600]
    batches = [(lines[i:i + 10], reference[i:i + 10]) for i in range(0, 1600, 10)]  # 8 threads x 20 batches
    one_thread = evaluate.load(METRIC_PATH)
    for predictions, references in batches:
        one_thread.add_batch(predictions=predictions, references=references)
    expected = one_thread.compute()
    assert expected == hf_bleu(lines, reference)
    shared = evaluate.load(METRIC_PATH)
    start = threading.Barrier(8)

    def add(share):
        start.wait()
        for predictions, references in share:
            shared.add_batch(predictions=predictions, references=references)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(add, [batches[k::8] for k in range(8)]))
    assert shared.compute() == expected
