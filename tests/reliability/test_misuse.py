"""The metric misused as an attacker would: callables that change their answers, threads sharing one
object, errors in the middle of a compute, unusable cache folders, failed distributed runs and
oversized requests. No wrong number, no lost data, and a message that names the argument
(tests/sufficient_statistics/test_columns.py forges statistics at the boundary)."""

import concurrent.futures
import json
import pathlib
import subprocess
import sys
import threading

import evaluate
import pytest

from conftest import METRIC_PATH, without_transformers
from failing_rank import failing_rank
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


# An error inside compute loses nothing that was added, and leaves nothing on disk.


def raising_tokenizer(text):
    raise ZeroDivisionError("this tokenizer fails")


def none_tokenizer(text):
    return None


def add_in_batches(metric, predictions, references, size=100):
    for start in range(0, len(predictions), size):
        metric.add_batch(predictions=predictions[start : start + size], references=references[start : start + size])


@pytest.fixture(scope="module")
def scored_3000(wmt17):
    """WMT17's first 3,000 lines of one system and the oracle's BLEU of them, computed once for
    every kind of error below."""
    predictions, references = wmt17["systems"]["uedin-nmt.4722"][:3000], wmt17["reference"][:3000]
    return predictions, references, hf_bleu(predictions, references)


@pytest.mark.parametrize("bad_options", [
    {"tokenizer": "flores101", "spm_model": "/etc/passwd"},
    {"tokenizer": raising_tokenizer},
    {"tokenizer": none_tokenizer},
    {"tokenizer": "char"},  # past max_tokens, refused inside compute
], ids=["bad-spm-model", "raising-tokenizer", "tokenizer-returns-none", "max-tokens"])
def test_an_error_inside_compute_loses_no_added_batch_and_leaves_no_file(scored_3000, tmp_path, bad_options):
    predictions, references, expected = scored_3000
    metric = evaluate.load(METRIC_PATH, cache_dir=str(tmp_path), max_tokens=200_000)
    add_in_batches(metric, predictions, references)
    with pytest.raises((ValueError, TypeError)):
        metric.compute(**bad_options)
    assert metric.compute() == expected
    del metric
    assert [path for path in tmp_path.rglob("*") if path.is_file()] == []


def test_max_tokens_refuses_a_batch_at_add_batch_before_storing_it(wmt17):
    predictions, references = wmt17["systems"]["uedin-nmt.4722"][:400], wmt17["reference"][:400]
    metric = evaluate.load(METRIC_PATH, max_tokens=10_000)
    added = 0
    with pytest.raises(ValueError, match="max_tokens=10,000") as refused:
        for start in range(0, 400, 100):
            metric.add_batch(predictions=predictions[start : start + 100], references=references[start : start + 100])
            added = start + 100
    assert "not added" in str(refused.value) and 0 < added < 400 and len(metric) == added
    assert metric.compute() == hf_bleu(predictions[:added], references[:added])


def test_an_unusable_cache_folder_neither_stops_the_metric_nor_breaks_it(tmp_path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")  # a folder below a file can never be made, even by root
    metric = evaluate.load(METRIC_PATH, cache_dir=str(not_a_folder / "cache"))
    metric.add_batch(predictions=["the cat sat on the mat"], references=[["the cat sat on a mat"]])
    metric.add(prediction="a dog", reference=["a dog ran"])
    expected = hf_bleu(["the cat sat on the mat", "a dog"], [["the cat sat on a mat"], ["a dog ran"]])
    assert metric.compute() == expected
    assert metric.compute(predictions=["a b c d"], references=[["a b c d"]])["bleu"] == 1.0


@pytest.mark.slow
def test_a_failed_distributed_compute_keeps_the_gathered_data_on_rank_0_and_removes_the_files(wmt17, tmp_path):
    """Two real processes: rank 1 a child, rank 0 this one (see failing_rank.py)."""
    predictions, references = wmt17["systems"]["uedin-nmt.4722"][:1000], wmt17["reference"][:1000]
    (tmp_path / "data.json").write_text(json.dumps({"predictions": predictions, "references": references}))
    cache = str(tmp_path / "cache")
    other = subprocess.Popen([sys.executable, str(pathlib.Path(__file__).with_name("failing_rank.py")), METRIC_PATH,
                              "1", cache, str(tmp_path / "data.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=without_transformers())
    try:
        outcome, result, files = failing_rank(METRIC_PATH, 0, cache, predictions, references)
    finally:
        out, err = other.communicate(timeout=300)
    assert other.returncode == 0, err[-2000:]
    other_outcome, _, _ = json.loads(out.splitlines()[-1])
    assert "max_tokens" in outcome and other_outcome == "no error"  # rank 1 hands its data over and is done
    assert result == hf_bleu(predictions, references)
    assert files == []


# Every error is a ValueError or TypeError naming the argument; no unbounded sample counts.


def test_a_custom_tokenizer_that_fails_gets_an_error_naming_it(bleu):
    with pytest.raises(TypeError, match="none_tokenizer returned a NoneType"):
        bleu.compute(predictions=["a b"], references=["a b"], tokenizer=none_tokenizer)
    with pytest.raises(ValueError, match="raising_tokenizer raised ZeroDivisionError: this tokenizer fails"):
        bleu.compute(predictions=["a b"], references=["a b"], tokenizer=raising_tokenizer)


def test_a_spm_model_that_does_not_load_is_a_value_error_naming_spm_model(bleu):
    with pytest.raises(ValueError, match="spm_model='/etc/passwd' is not a SentencePiece model"):
        bleu.compute(predictions=["a b"], references=["a b"], tokenizer="flores101", spm_model="/etc/passwd")


def test_sample_counts_have_an_upper_bound(bleu):
    import exactbleu

    with pytest.raises(ValueError, match="n_bootstrap must be an int >= 0 of at most 100000, got 100001"):
        bleu.compute(predictions=["a b"], references=["a b"], n_bootstrap=100_001)
    with pytest.raises(ValueError, match="n_samples must be a positive int of at most 100000, got 100000000"):
        exactbleu.paired_test({"a": ["a b"], "b": ["a c"]}, ["a b"], n_samples=10**8)


@pytest.mark.parametrize("flags, words", [
    (["--paired-bs", "--paired-n", "100000000"], "--paired-n must be a positive int of at most 100000"),
    (["--paired-ar", "-parn", "100000000"], "--paired-ar-n must be a positive int of at most 100000"),
    (["-ci", "-cin", "100000000"], "--confidence-n must be a positive int of at most 100000"),
    (["--tokenize", "flores101", "--spm-model", "/etc/passwd"], "is not a SentencePiece model"),
])
def test_the_command_line_prints_a_message_not_a_traceback(tmp_path, flags, words):
    reference, system = tmp_path / "ref", tmp_path / "hyp"
    reference.write_text("the cat sat\na dog ran\n")
    system.write_text("the cat sat\na dog ran far\n")
    systems = [str(system), str(system)] if "--paired-bs" in flags or "--paired-ar" in flags else [str(system)]
    completed = subprocess.run([sys.executable, "-m", "exactbleu", str(reference), "-i", *systems, *flags],
                               capture_output=True, text=True, timeout=60, cwd=METRIC_PATH.rsplit("/", 1)[0])
    assert completed.returncode == 1 and "Traceback" not in completed.stderr
    assert words in completed.stderr and len(completed.stderr.strip().splitlines()) == 1
