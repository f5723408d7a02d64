"""Scale-out: statistics() rows sum to compute()'s result, through datasets.map with several
processes and through evaluate's own distributed mode with three real processes."""

import json
import pickle
import uuid

import datasets
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import METRIC_PATH, examples, run_distributed
from oracles import corpora, hf_bleu

OPTION_SETS = [
    {},
    {"smooth": True, "max_order": 3},
    {"tokenizer": "intl", "ref_length": "closest", "smooth_method": "exp", "sentence_level": True},
    {"weights": [0.5, 0.3, 0.2], "signature": True, "n_bootstrap": 50},
    {"tokenizer": "none", "ref_length": "closest", "smooth_method": "method5", "max_order": 2, "sentence_level": True},
    {"smooth_method": "method6", "weights": [(0.5, 0.5), (0.25, 0.25, 0.25, 0.25)], "sentence_level": True},
]


@settings(max_examples=examples(40))
@given(corpus=corpora(), options=st.sampled_from(OPTION_SETS), cut=st.integers(0, 8))
def test_statistics_of_any_split_score_like_compute(bleu, corpus, options, cut):
    predictions, references = corpus
    cut = min(cut, len(predictions))
    parts = [bleu.statistics(predictions[a:b], references[a:b], **options)
             for a, b in ((0, cut), (cut, len(predictions))) if b > a]
    merged = {key: [value for part in parts for value in part[key]] for key in parts[0]}
    assert bleu.score_statistics(merged, **options) == bleu.compute(predictions=predictions, references=references,
                                                                    **options)


def test_score_statistics_errors(bleu):
    stats = bleu.statistics(["a b c"], ["a b c"])
    with pytest.raises(ValueError, match="max_order is 2"):
        bleu.score_statistics(stats, max_order=2)
    with pytest.raises(ValueError, match="columns"):
        bleu.score_statistics({"matches": [[1, 1, 1, 1]]})


@pytest.mark.slow
def test_datasets_map_with_two_processes(bleu, wmt17):
    dataset = datasets.Dataset.from_dict({
        "prediction": wmt17["systems"]["online-B.0"][:1200],
        "references": [[line] for line in wmt17["reference"][:1200]],
    })
    columns = dataset.map(lambda batch: bleu.statistics(batch["prediction"], batch["references"]),
                          batched=True, batch_size=100, num_proc=2, remove_columns=dataset.column_names)
    expected = bleu.compute(predictions=dataset["prediction"], references=dataset["references"])
    assert bleu.score_statistics(columns) == expected


@pytest.mark.slow
def test_evaluate_distributed_mode_with_three_processes(bleu, wmt17, tmp_path):
    """Three real processes, one job per option set: rank 0 alone returns, exactly what one process
    computes on the corpus it gathered (the shares in rank order, so an interleaved corpus)."""
    predictions, references = wmt17["systems"]["KIT.4950"][:300], [[r] for r in wmt17["reference"][:300]]
    jobs = [(uuid.uuid4().hex, predictions, references, options) for options in OPTION_SETS]
    ranks = run_distributed(jobs, 3, tmp_path)
    assert ranks[1] == ranks[2] == [None] * len(jobs)
    gathered = [i for rank in range(3) for i in range(rank, 300, 3)]
    for options, result in zip(OPTION_SETS, ranks[0]):
        single = bleu.compute(predictions=[predictions[i] for i in gathered],
                              references=[references[i] for i in gathered], **options)
        assert result == json.loads(json.dumps(single)), options
    assert ranks[0][0]["bleu"] == bleu.compute(predictions=predictions, references=references)["bleu"]


@pytest.mark.slow
def test_a_metric_used_with_add_batch_still_pickles_for_datasets_map(wmt17):
    import evaluate

    metric = evaluate.load(METRIC_PATH)
    metric.add_batch(predictions=["a b c"], references=[["a b c"]])
    metric.compute()  # evaluate keeps its (released) file locks after this
    dataset = datasets.Dataset.from_dict({"p": wmt17["reference"][:40], "r": wmt17["reference"][:40]})
    columns = dataset.map(lambda batch: metric.statistics(batch["p"], batch["r"]), batched=True, batch_size=10,
                          num_proc=2, remove_columns=["p", "r"])
    assert metric.score_statistics(columns)["bleu"] == 1.0


@pytest.mark.usefixtures("chunked_path")  # a few segments skip the cache
def test_the_metric_pickles_without_its_cache_and_scores_the_same(fresh):
    """datasets.map pickles the metric into its workers: the cache (and its lock) stay here."""
    predictions, references = ["a b c d", "e f"], [["a b c d"], ["e f g"]]
    expected = hf_bleu(predictions, references)
    assert fresh.compute(predictions=predictions, references=references) == expected
    assert len(fresh._reference_cache()) == 1
    clone = pickle.loads(pickle.dumps(fresh))
    assert "_cache" not in clone.__dict__
    assert clone.compute(predictions=predictions, references=references) == expected
