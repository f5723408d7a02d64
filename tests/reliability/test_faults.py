"""No silent wrong number: exact results when a call is interrupted, when the process forks and
when threads share one metric; and nothing outlives the process that started it. The scenarios run
one after another in a real process of their own (evaluate takes seconds to import, once), with
real signals, forks and threads, under a timeout, so a hang fails the tests instead of hanging the
suite."""

import functools
import json
import subprocess
import sys

import pytest

from conftest import METRIC_PATH, ROOT, once_for_the_run, without_transformers
from oracles import hf_bleu, random_corpus

pytestmark = pytest.mark.slow  # a process that runs the scenarios

TESTS = ROOT / "tests"
# Big enough to be counted in chunks, by several threads where they are allowed.
BIG = 8000
# What an interrupted call is followed by, scored sentence by sentence too: still counted in two
# threads (4,000 documents, twice the fewest that take them), at a fraction of the oracle's time.
SMALL = 2000

PRELUDE = f"""
import json, os, signal, sys, threading, time
sys.path.insert(0, {str(TESTS)!r})
import evaluate
from oracles import random_corpus
PATH = {METRIC_PATH!r}

def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{{entry}}/stat") as stat:
                    fields = stat.read().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found

def threads_since(before):
    # The threads running now that were not in before (a set of threading.enumerate()'s): their
    # names and targets, so that a failure says whose they are.
    return sorted((thread.name + " " + getattr(getattr(thread, "_target", None), "__qualname__", "")).strip()
                  for thread in threading.enumerate() if thread not in before)

import traceback
outcomes = {{}}
for name, body in json.load(sys.stdin).items():  # in order: the first sees a process nothing has forked
    def report(value, name=name):
        outcomes[name] = json.loads(json.dumps(value))  # as it is now; later scenarios change nothing
    try:  # in __main__ itself, so that its functions pickle by reference for a process pool
        exec(body, globals())
    except BaseException:
        outcomes[name] = {{"error": traceback.format_exc()}}
print(json.dumps(outcomes))
"""
SCENARIOS = {}  # name: the code of a scenario, which reports its outcome


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Every scenario's outcome, from one process that runs them all, once for the whole test run."""
    return once_for_the_run(tmp_path_factory, "faults", lambda: run_the_scenarios(tmp_path_factory))


def run_the_scenarios(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    first = "no process, no thread"  # before any other scenario forks or starts a thread
    scenarios = {name: SCENARIOS[name].replace("CACHE_DIR", repr(str(cache)))
                 for name in [first, *(name for name in SCENARIOS if name != first)]}
    completed = subprocess.run([sys.executable, "-c", PRELUDE], input=json.dumps(scenarios), capture_output=True,
                               text=True, timeout=400, cwd=ROOT, env=without_transformers())
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1]), cache


def outcome_of(outcomes, name):
    found = outcomes[0].get(name)
    assert found is not None, f"{name} reported nothing"
    assert not (isinstance(found, dict) and "error" in found), found.get("error")
    return found


@functools.cache
def oracle(segments, seed, sentences=False):
    """The oracle's result for ``random_corpus(segments, seed)``, with each sentence's BLEU if
    ``sentences``: computed once however many tests compare with it (a second or two of CPU each)."""
    predictions, references = random_corpus(segments, seed=seed)
    expected = hf_bleu(predictions, references)
    if sentences:
        expected["sentence_bleu"] = [hf_bleu([p], [r])["bleu"] for p, r in zip(predictions, references)]
    return expected


SCENARIOS["interrupted calls"] = f"""
metric = evaluate.load(PATH)
def interrupt(signum, frame):
    raise KeyboardInterrupt
signal.signal(signal.SIGALRM, interrupt)
big, small = random_corpus({BIG}, seed=1), random_corpus({SMALL}, seed=2)
interrupted, results = 0, []
for delay in (0.002, 0.01, 0.02, 0.04, 0.08, 0.15):
    try:
        signal.setitimer(signal.ITIMER_REAL, delay)
        metric.compute(predictions=big[0], references=big[1])
        signal.setitimer(signal.ITIMER_REAL, 0)
    except KeyboardInterrupt:
        interrupted += 1
    signal.setitimer(signal.ITIMER_REAL, 0)
    results.append(metric.compute(predictions=small[0], references=small[1], sentence_level=True))
report({{"interrupted": interrupted, "results": results}})
"""


def test_interrupted_calls_leave_every_later_result_exact(outcomes):
    """A KeyboardInterrupt (Ctrl-C, a notebook's interrupt, a timeout alarm) lands mid-compute;
    every later compute scores its own data, exactly."""
    outcome = outcome_of(outcomes, "interrupted calls")
    assert outcome["interrupted"] >= 3  # most alarms land inside compute
    expected = oracle(SMALL, 2, sentences=True)
    for result in outcome["results"]:
        assert result == expected


SCENARIOS["interrupt after add_batch"] = f"""
metric = evaluate.load(PATH, cache_dir=CACHE_DIR)
predictions, references = random_corpus({BIG}, seed=3)
for _ in range(4):  # four copies of the corpus, whose BLEU is that of one copy
    for start in range(0, {BIG}, 1000):
        metric.add_batch(predictions=predictions[start:start + 1000], references=references[start:start + 1000])
def interrupt(signum, frame):
    raise KeyboardInterrupt
signal.signal(signal.SIGALRM, interrupt)
interrupted = finished = False
try:
    signal.setitimer(signal.ITIMER_REAL, 0.02)
    metric.compute()
    finished = True
    time.sleep(5)
except KeyboardInterrupt:
    interrupted = True
signal.setitimer(signal.ITIMER_REAL, 0)
report({{"interrupted": interrupted and not finished, "result": metric.compute(), "stored": len(metric)}})
"""


def test_an_interrupt_inside_compute_loses_no_added_batch(outcomes):
    """Ctrl-C during compute() after add_batch: the next compute still scores everything that was
    added, and no cache file is left behind."""
    outcome = outcome_of(outcomes, "interrupt after add_batch")
    assert outcome["interrupted"] and outcome["stored"] == 0
    once, result = oracle(BIG, 3), outcome["result"]
    assert (result["bleu"], result["precisions"]) == (once["bleu"], once["precisions"])
    assert (result["translation_length"], result["reference_length"]) == \
        (4 * once["translation_length"], 4 * once["reference_length"])
    assert [path for path in outcomes[1].rglob("*") if path.is_file()] == []


SCENARIOS["forked worker"] = f"""
import concurrent.futures, multiprocessing
metric = evaluate.load(PATH)
mine, theirs = random_corpus({BIG}, seed=3), random_corpus({BIG}, seed=4)

def in_worker():
    return [metric.compute(predictions=theirs[0], references=theirs[1]) for _ in range(2)]

first = metric.compute(predictions=mine[0], references=mine[1])
with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
    worker = pool.submit(in_worker).result(timeout=120)
after = [metric.compute(predictions=mine[0], references=mine[1]) for _ in range(2)]
report({{"first": first, "worker": worker, "after": after}})
"""


def test_a_forked_worker_using_the_metric_leaves_the_parent_exact(outcomes):
    """A ProcessPoolExecutor worker (fork context, not daemonic) uses the parent's metric on
    other references; the parent's next results are still its own."""
    outcome = outcome_of(outcomes, "forked worker")
    mine, theirs = oracle(BIG, 3), oracle(BIG, 4)
    assert outcome["first"] == mine
    assert outcome["worker"] == [theirs, theirs]
    assert outcome["after"] == [mine, mine]


SCENARIOS["threads sharing"] = f"""
import concurrent.futures
metric = evaluate.load(PATH)
corpora = [random_corpus({BIG // 2}, seed=seed) for seed in (5, 6)]

def work(index):
    predictions, references = corpora[index]
    results = []
    for _ in range(15):
        try:
            results.append(metric.compute(predictions=predictions, references=references))
        except Exception as error:
            results.append(repr(error))
    return results

with concurrent.futures.ThreadPoolExecutor(2) as pool:
    report(list(pool.map(work, [0, 1, 0, 1])))
"""


def test_threads_sharing_one_metric_each_get_their_own_result(outcomes):
    outcome = outcome_of(outcomes, "threads sharing")
    expected = [oracle(BIG // 2, seed) for seed in (5, 6)]
    for index, results in enumerate(outcome):
        assert results == [expected[index % 2]] * 15


SCENARIOS["no process, no thread"] = f"""
forks = []
os.register_at_fork(before=lambda: forks.append(len(os.listdir("/proc/self/task"))))
threads_before = set(threading.enumerate())
predictions, references = random_corpus({BIG}, seed=3)  # the oracle's result is shared with others
results = []
for epoch in range(3):  # evaluate.load and compute once per epoch, as training scripts do
    metric = evaluate.load(PATH, threads=2)
    results.append(metric.compute(predictions=predictions, references=references))
report({{"forks": forks, "children": children(os.getpid()), "results": results,
        "threads_left": threads_since(threads_before)}})
"""


def test_the_metric_starts_no_process_and_leaves_no_thread(outcomes):
    """Counting may use worker threads, which end with each call, and never a process: so nothing
    can outlive a script that ends or is killed (timeout, docker stop and Slurm send SIGTERM, then
    SIGKILL), and nothing forks beside a training script's data-loader threads, which can deadlock."""
    outcome = outcome_of(outcomes, "no process, no thread")
    assert outcome == {"forks": [], "children": [], "threads_left": [],
                       "results": [oracle(BIG, 3)] * 3}


SCENARIOS["per-sentence functions interrupted and forked"] = """
import concurrent.futures, multiprocessing
import numpy as np
import exactbleu
rng = np.random.default_rng(9)
# Big enough that each call works in two threads: 1024 x 256 ids, Self-BLEU over 130,000 tokens, a
# matrix of two blocks.
ids = rng.integers(1, 500, (1024, 256))
references = ids.copy()
changed = rng.random(ids.shape) < 0.3
references[changed] = rng.integers(1, 500, int(changed.sum()))
texts = [row[:length] for row, length in zip(ids, rng.integers(10, 256, 1024).tolist())]
words = [" ".join(map(str, row[:length])) for row, length in zip(ids, rng.integers(5, 30, 1000).tolist())]
calls = {
    "sentence_scores": lambda threads: exactbleu.sentence_scores(ids, references, "sacrebleu", threads=threads),
    "self_bleu": lambda threads: exactbleu.self_bleu(texts, "nltk", smooth_method="method1", threads=threads)["scores"],
    "bleu_matrix": lambda threads: exactbleu.bleu_matrix(words, words[:500], threads=threads),
}
alone = {name: call(1).tolist() for name, call in calls.items()}  # one thread, nothing interrupted
threads_before = set(threading.enumerate())
def interrupt(signum, frame):
    raise KeyboardInterrupt
signal.signal(signal.SIGALRM, interrupt)
interrupted, exact = {}, {}
for name, call in calls.items():
    interrupted[name], exact[name] = 0, []
    for delay in (0.002, 0.01, 0.03, 0.06):
        try:
            signal.setitimer(signal.ITIMER_REAL, delay)
            call(2)
            signal.setitimer(signal.ITIMER_REAL, 0)
        except KeyboardInterrupt:
            interrupted[name] += 1
        signal.setitimer(signal.ITIMER_REAL, 0)
        exact[name].append(call(2).tolist() == alone[name])
def in_worker():
    return {name: call(2).tolist() == alone[name] for name, call in calls.items()}
with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
    forked = pool.submit(in_worker).result(timeout=120)
report({"interrupted": interrupted, "exact": exact, "forked": forked,
        "threads_left": threads_since(threads_before)})
"""


def test_per_sentence_functions_in_threads_stay_exact_when_interrupted_or_forked(outcomes):
    """sentence_scores of token ids, self_bleu and bleu_matrix in two threads: interrupted
    mid-call, every later call gives the one-thread result; so does a forked worker; and no thread
    is left."""
    outcome = outcome_of(outcomes, "per-sentence functions interrupted and forked")
    names = ["sentence_scores", "self_bleu", "bleu_matrix"]
    assert all(outcome["interrupted"][name] >= 2 for name in names), outcome["interrupted"]
    assert outcome["exact"] == {name: [True] * 4 for name in names}
    assert outcome["forked"] == {name: True for name in names}
    assert outcome["threads_left"] == []
