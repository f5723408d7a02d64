"""The metric card's worked examples (HF's bleu and the tensorflow/nmt ones), errors on malformed
input, datasets, and offline loading."""

import json
import pathlib
import re
import subprocess
import sys

import datasets
import pytest

from conftest import METRIC_PATH, without_transformers
from oracles import hf_bleu

TRANSFORMERS_PREDICTIONS = [
    "Transformers Transformers are fast plus efficient",
    "Good Morning",
    "I am waiting for new Transformers",
]
TRANSFORMERS_REFERENCES = [
    ["HuggingFace Transformers are quick, efficient and awesome",
     "Transformers are awesome because they are fast to execute"],
    ["Good Morning Transformers", "Morning Transformers"],
    ["People are eagerly waiting for new Transformer models",
     "People are very excited about new Transformers"],
]
TRANSFORMERS_RESULT = {
    "bleu": 0.5037930378757725,
    "precisions": [0.7142857142857143, 0.5454545454545454],
    "brevity_penalty": 0.8071177470053892,
    "length_ratio": 0.8235294117647058,
    "translation_length": 14,
    "reference_length": 17,
}
CAT_REFERENCES = ["the cat is on the mat", "there is a cat on the mat"]
NASA_REFERENCE = "The NASA Opportunity rover is battling a massive dust storm on Mars."


def test_documented_transformers_example(bleu):
    result = bleu.compute(predictions=TRANSFORMERS_PREDICTIONS, references=TRANSFORMERS_REFERENCES, max_order=2)
    assert result == TRANSFORMERS_RESULT


def test_clipped_unigram_precision(bleu):
    result = bleu.compute(predictions=["the the the the the the the"], references=[CAT_REFERENCES], max_order=1)
    assert result["precisions"] == [2 / 7]


def test_clipped_bigram_precision(bleu):
    result = bleu.compute(predictions=["the cat the cat on the mat"], references=[CAT_REFERENCES], max_order=2)
    assert result["precisions"][1] == 4 / 6


def test_google_example_without_a_4gram_match(bleu):
    candidate = "The Opportunity rover is combating a big sandstorm on Mars."
    result = bleu.compute(predictions=[candidate], references=[[NASA_REFERENCE]])
    assert result["precisions"] == [8 / 11, 4 / 10, 2 / 9, 0 / 8]
    assert result["bleu"] == 0.0


def test_google_example_with_every_order_matching(bleu):
    candidate = "A NASA rover is fighting a massive storm on Mars."
    result = bleu.compute(predictions=[candidate], references=[[NASA_REFERENCE]])
    assert result["precisions"] == [9 / 11, 5 / 10, 2 / 9, 1 / 8]
    assert round(result["brevity_penalty"], 2) == 0.83
    assert round(result["bleu"], 2) == 0.27


def test_callable_tokenizer(bleu):
    result = bleu.compute(predictions=TRANSFORMERS_PREDICTIONS, references=TRANSFORMERS_REFERENCES, tokenizer=str.split)
    assert result == hf_bleu(TRANSFORMERS_PREDICTIONS, TRANSFORMERS_REFERENCES, tokenize=str.split)


@pytest.mark.parametrize(
    "arguments, error, words",
    [
        ({"predictions": [], "references": []}, ValueError, ["predictions", "empty"]),
        ({"predictions": ["a"], "references": [[]]}, ValueError, ["references[0]", "empty"]),
        ({"predictions": ["a", "b"], "references": [["a"]]}, ValueError, ["predictions", "references", "2", "1"]),
        ({"predictions": ["a"], "references": [["a"]], "max_order": 0}, ValueError, ["max_order", "positive", "0"]),
        ({"predictions": ["a"], "references": [["a"]], "max_order": -2}, ValueError, ["max_order", "-2"]),
        ({"predictions": ["a"], "references": [["a"]], "max_order": 2.5}, ValueError, ["max_order", "2.5"]),
        ({"predictions": ["a"], "references": [["a"]], "max_order": "4"}, ValueError, ["max_order", "'4'"]),
        ({"predictions": ["a"], "references": [["a"]], "max_order": True}, ValueError, ["max_order", "True"]),
        ({"predictions": ["a"], "references": [["a"]], "tokenizer": "13b"}, ValueError, ["tokenizer", "13b", "13a"]),
    ],
)
def test_malformed_input_gets_a_clear_error(bleu, arguments, error, words):
    with pytest.raises(error) as raised:
        bleu.compute(**arguments)
    for word in words:
        assert word in str(raised.value)


def test_computing_with_nothing_added_is_a_clear_error(bleu):
    with pytest.raises(ValueError, match="no predictions"):
        bleu.compute()


def test_a_bad_option_keeps_the_added_data(bleu):
    bleu.add_batch(predictions=TRANSFORMERS_PREDICTIONS, references=TRANSFORMERS_REFERENCES)
    with pytest.raises(ValueError, match="max_order"):
        bleu.compute(max_order=0)
    assert bleu.compute(max_order=2) == TRANSFORMERS_RESULT


@pytest.fixture(scope="module")
def dataset(wmt17):
    hypotheses = wmt17["systems"]["uedin-nmt.4722"][:300]
    references = [[reference] for reference in wmt17["reference"][:300]]
    return datasets.Dataset.from_dict({"prediction": hypotheses, "references": references})


def test_dataset_columns(bleu, dataset):
    result = bleu.compute(predictions=dataset["prediction"], references=dataset["references"])
    assert result == hf_bleu(list(dataset["prediction"]), list(dataset["references"]))


def test_streaming_batches_equal_one_call(bleu, dataset):
    for batch in dataset.iter(batch_size=64):
        bleu.add_batch(predictions=batch["prediction"], references=batch["references"])
    streamed = bleu.compute()
    assert streamed == bleu.compute(predictions=dataset["prediction"], references=dataset["references"])


def test_single_file_without_relative_imports_url_comments_or_oracles():
    source = pathlib.Path(METRIC_PATH).read_text(encoding="utf-8")
    assert not re.search(r"^\s*from\s+\.", source, re.MULTILINE)
    assert not re.search(r"#\s*From:", source)
    assert not re.search(r"^\s*(import|from)\s+(sacrebleu|nltk|bleuscore)\b", source, re.MULTILINE)


OFFLINE_SCRIPT = """
import json, socket, sys
def refuse(*args, **kwargs):
    raise OSError("network access attempted")
socket.socket.connect = refuse
socket.create_connection = refuse
import evaluate
bleu = evaluate.load(sys.argv[1])
result = bleu.compute(predictions=json.loads(sys.argv[2]), references=json.loads(sys.argv[3]), max_order=2)
oracles = sorted(name for name in ("sacrebleu", "nltk", "bleuscore") if name in sys.modules)
print(json.dumps({"result": result, "oracles": oracles}))
"""


@pytest.mark.slow
def test_loads_offline_in_a_fresh_cache_with_the_network_refused(tmp_path):
    # Without transformers, as on the Space, which does not install it: evaluate would import it, for
    # about 5 s on two cores, and nothing here uses a model.
    env = without_transformers(HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1",
                               HF_HOME=str(tmp_path))
    completed = subprocess.run(
        [sys.executable, "-c", OFFLINE_SCRIPT, METRIC_PATH,
         json.dumps(TRANSFORMERS_PREDICTIONS), json.dumps(TRANSFORMERS_REFERENCES)],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    output = json.loads(completed.stdout.strip().splitlines()[-1])
    assert output == {"result": TRANSFORMERS_RESULT, "oracles": []}


def test_the_private_attributes_of_evaluate_that_the_metric_reads_are_there():
    """The metric reads evaluate's num_process, process_id, data, writer, filelocks and file_paths
    (a failed distributed compute), _data_dir_root, and clears filelock, rendez_vous_lock and
    filelocks when pickled. An evaluate release that renames one must fail here, loudly, not
    quietly take another path."""
    import uuid

    import evaluate

    metric = evaluate.load(METRIC_PATH, experiment_id=uuid.uuid4().hex)
    for name in ("writer", "data", "filelock", "rendez_vous_lock", "filelocks", "file_paths", "num_process",
                 "process_id", "_data_dir_root"):
        assert name in metric.__dict__, f"evaluate.Metric no longer has {name}"
    metric.add_batch(predictions=["a b c d"], references=[["a b c d"]])
    assert metric.writer is None and len(metric) == 1  # one process keeps its batches in memory
    with pytest.raises(ValueError, match="mixes shapes"):
        metric.add_batch(predictions=["a"], references=["a"])
    assert metric.compute()["bleu"] == 1.0
    assert len(metric) == 0
