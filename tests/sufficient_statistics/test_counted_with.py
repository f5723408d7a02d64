"""Statistics carry the settings that counted them, so nothing scores them under other settings.

``score(statistics(P, R, preset, **a), preset, **b)`` is ``corpus_bleu(P, R, preset, **b)`` or a
ValueError that names the setting and both values; parts counted differently do not add up.
"""

import datasets
import numpy as np
import pytest

import exactbleu
from exactbleu import Statistics

PREDICTIONS = ["Cat ae.g.", "the cat sat on the mat"]
REFERENCES = [["cat", "ae.g."], ["the cat sat on a mat"]]


@pytest.mark.parametrize("counted, scored, words", [
    # the seed example: counted lowercased, scored as counted by default
    (("default", {"lowercase": True}), ("default", {}), ["lowercase=True", "lowercase=False"]),
    (("default", {"tokenizer": "char"}), ("default", {}), ["tokenizer='char'", "tokenizer='13a'"]),
    (("default", {"ref_length": "closest"}), ("default", {}), ["ref_length='closest'", "ref_length='shortest'"]),
    (("default", {"rstrip": True}), ("default", {}), ["rstrip=True", "rstrip=False"]),
    (("default", {"tokenizer": "moses", "lang": "de"}), ("default", {"tokenizer": "moses"}),
     ["tokenizer='moses-de'", "tokenizer='moses-en'"]),
    (("sacrebleu", {}), ("default", {}), ["rstrip=True", "rstrip=False"]),
    (("nltk", {}), ("sacrebleu", {}), ["tokenizer='none'", "tokenizer='13a'"]),
])
def test_statistics_scored_under_other_settings_are_refused_with_both_values(counted, scored, words):
    statistics = exactbleu.statistics(PREDICTIONS, REFERENCES, counted[0], **counted[1])
    with pytest.raises(ValueError) as error:
        exactbleu.score(statistics, scored[0], **scored[1])
    for word in words:
        assert word in str(error.value)
    with pytest.raises(ValueError, match="not counted with these settings"):
        exactbleu.score(statistics.vector(), scored[0], **scored[1])


def test_the_seed_example_gives_corpus_bleus_number_or_an_error():
    """score(statistics([...], lowercase=True)) returned the lowercased 0.70711 for the default
    settings, whose corpus_bleu is 0.66874."""
    assert exactbleu.corpus_bleu(["Cat ae.g."], [["cat", "ae.g."]])["bleu"] == pytest.approx(0.668740304976422)
    lowercased = exactbleu.statistics(["Cat ae.g."], [["cat", "ae.g."]], lowercase=True)
    with pytest.raises(ValueError, match="counted with lowercase=True, and are scored with lowercase=False"):
        exactbleu.score(lowercased)
    assert exactbleu.score(lowercased, lowercase=True) == exactbleu.corpus_bleu(["Cat ae.g."], [["cat", "ae.g."]],
                                                                               lowercase=True)


def test_parts_counted_with_different_settings_do_not_add_up():
    plain = exactbleu.statistics(PREDICTIONS[:1], REFERENCES[:1])
    lowercased = exactbleu.statistics(PREDICTIONS[1:], REFERENCES[1:], lowercase=True)
    with pytest.raises(ValueError, match="lowercase=False.*lowercase=True"):
        plain + lowercased
    with pytest.raises(ValueError, match="lowercase"):
        sum([plain, lowercased])
    # A summed vector proves its parts alike: code times parts.
    mixed = plain.vector() + lowercased.vector()
    with pytest.raises(ValueError, match="not counted with these settings"):
        exactbleu.score(mixed)
    with pytest.raises(ValueError, match="not counted with these settings"):
        exactbleu.score(mixed, lowercase=True)


def test_statistics_made_by_hand_carry_no_settings_and_score_under_any():
    """As sacrebleu's own tests feed given counts to its scoring: 9/10, 7/8, 5/6, 3/4 at length 11
    is 0.8375922397 in its test_scoring."""
    rows = np.array([[11, 11, 9, 7, 5, 3, 10, 8, 6, 4]])
    given = Statistics(rows, 4, [1])
    assert given.counted_with is None
    assert exactbleu.score(given, "sacrebleu", smooth_method="none")["bleu"] == pytest.approx(0.8375922397, abs=1e-10)
    vector = given.vector()
    assert vector[3] == 0  # no settings code
    assert exactbleu.score(vector, "sacrebleu", smooth_method="none")["bleu"] == pytest.approx(0.8375922397, abs=1e-10)


def test_the_metrics_statistics_columns_carry_the_settings_through_a_dataset(bleu):
    import evaluate

    from conftest import METRIC_PATH

    lowercasing = evaluate.load(METRIC_PATH, lowercase=True)
    columns = lowercasing.statistics(PREDICTIONS, REFERENCES)
    assert set(columns["counted_with"]) == {"tokenizer=13a|lowercase=True|rstrip=False|ref_length=shortest|orders=4"}
    table = datasets.Dataset.from_dict(columns)
    assert lowercasing.score_statistics(table) == lowercasing.compute(predictions=PREDICTIONS, references=REFERENCES)
    for given in (columns, table):
        with pytest.raises(ValueError, match="lowercase=True.*lowercase=False"):
            bleu.score_statistics(given)
    # Rows counted differently, concatenated as datasets.map's shards would be.
    mixed = datasets.concatenate_datasets([table, datasets.Dataset.from_dict(bleu.statistics(PREDICTIONS, REFERENCES))])
    with pytest.raises(ValueError, match="different settings"):
        lowercasing.score_statistics(mixed)
    # Columns without the settings (made by hand) are scored under the call's settings.
    bare = {name: value for name, value in columns.items() if name != "counted_with"}
    assert lowercasing.score_statistics(bare) == lowercasing.compute(predictions=PREDICTIONS, references=REFERENCES)
