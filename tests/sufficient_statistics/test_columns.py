"""Statistics stored as columns (Statistics.as_dict, a dict or a datasets.Dataset) are read back
checked where they enter: a forged column gets a message that names it, and whole counts given as
floats are read exactly."""

import pytest

import exactbleu
from exactbleu import Statistics


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
def test_statistics_are_validated_where_they_enter_with_the_column_named(column, value, words):
    columns = good_columns()
    columns[column] = value
    with pytest.raises((ValueError, TypeError)) as raised:
        Statistics.from_dict(columns)
    for word in words:
        assert word in str(raised.value)


def test_whole_float_counts_are_read_exactly_and_good_columns_score():
    columns = good_columns()
    expected = exactbleu.score(Statistics.from_dict(columns))
    columns["prediction_length"] = [4.0, 3.0]
    assert exactbleu.score(Statistics.from_dict(columns)) == expected
    assert 0 < expected["bleu"] <= 1
