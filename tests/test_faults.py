"""No silent wrong number: exact results when a call is interrupted, when the process forks, when
threads share one metric, and when the process is killed; nothing outlives the process that
started it (issue 11). Each scenario runs in a real process of its own, with real signals, forks
and threads, under a timeout, so a hang fails the test instead of hanging the suite."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import METRIC_PATH, ROOT
from oracles import hf_bleu, random_corpus

TESTS = ROOT / "tests"
# Big enough that the old forked helper counted half of it (4,000 documents and more).
BIG = 8000

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

def report(value):
    print(json.dumps(value), flush=True)
"""


def run_scenario(body, timeout=240):
    completed = subprocess.run([sys.executable, "-c", PRELUDE + body], capture_output=True, text=True,
                               timeout=timeout, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def alive(pid):
    """Whether a process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def with_sentences(predictions, references):
    expected = hf_bleu(predictions, references)
    expected["sentence_bleu"] = [hf_bleu([p], [r])["bleu"] for p, r in zip(predictions, references)]
    return expected


def test_interrupted_calls_leave_every_later_result_exact():
    """A KeyboardInterrupt (Ctrl-C, a notebook's interrupt, a timeout alarm) lands mid-compute;
    every later compute scores its own data, exactly."""
    outcome = run_scenario(f"""
metric = evaluate.load(PATH)
def interrupt(signum, frame):
    raise KeyboardInterrupt
signal.signal(signal.SIGALRM, interrupt)
big, small = random_corpus({BIG}, seed=1), random_corpus(5000, seed=2)
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
""")
    assert outcome["interrupted"] >= 3  # most alarms land inside compute
    expected = with_sentences(*random_corpus(5000, seed=2))
    for result in outcome["results"]:
        assert result == expected


def test_an_interrupt_inside_compute_loses_no_added_batch(tmp_path):
    """Ctrl-C during compute() after add_batch (issue 31: 300k segments were lost, and a 55 MB
    file left): the next compute scores everything added, and no file is left."""
    outcome = run_scenario(f"""
metric = evaluate.load(PATH, cache_dir={str(tmp_path)!r})
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
""")
    assert outcome["interrupted"] and outcome["stored"] == 0
    once, result = hf_bleu(*random_corpus(BIG, seed=3)), outcome["result"]
    assert (result["bleu"], result["precisions"]) == (once["bleu"], once["precisions"])
    assert (result["translation_length"], result["reference_length"]) == \
        (4 * once["translation_length"], 4 * once["reference_length"])
    assert [path for path in tmp_path.rglob("*") if path.is_file()] == []


def test_a_forked_worker_using_the_metric_leaves_the_parent_exact():
    """A ProcessPoolExecutor worker (fork context, not daemonic) uses the parent's metric on
    other references; the parent's next results are still its own."""
    outcome = run_scenario(f"""
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
""")
    mine, theirs = hf_bleu(*random_corpus(BIG, seed=3)), hf_bleu(*random_corpus(BIG, seed=4))
    assert outcome["first"] == mine
    assert outcome["worker"] == [theirs, theirs]
    assert outcome["after"] == [mine, mine]


def test_threads_sharing_one_metric_each_get_their_own_result():
    outcome = run_scenario(f"""
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
""")
    expected = [hf_bleu(*random_corpus(BIG // 2, seed=seed)) for seed in (5, 6)]
    for index, results in enumerate(outcome):
        assert results == [expected[index % 2]] * 15


KILLED = f"""
metric = evaluate.load(PATH)
predictions, references = random_corpus({BIG}, seed=7)
metric.compute(predictions=predictions, references=references)
report({{"pid": os.getpid(), "children": children(os.getpid())}})
time.sleep(600)
"""


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL", "exit"])
def test_nothing_outlives_a_killed_or_finished_process(how):
    """timeout, docker stop and Slurm send SIGTERM, then SIGKILL; a script may also just end."""
    script = KILLED.replace("time.sleep(600)", "") if how == "exit" else KILLED
    process = subprocess.Popen([sys.executable, "-c", PRELUDE + script], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        started = json.loads(process.stdout.readline())
        if how != "exit":
            process.send_signal(getattr(signal, how))
        process.wait(timeout=60)
        deadline = time.time() + 10
        while time.time() < deadline and any(map(alive, started["children"])):
            time.sleep(0.2)
        left = [pid for pid in started["children"] if alive(pid)]
        for pid in left:  # do not leave them to the rest of the suite
            os.kill(pid, signal.SIGKILL)
        assert left == [], f"{len(left)} process(es) outlived their parent"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_metric_per_epoch_leaves_no_processes_and_never_forks_beside_a_thread():
    """Reload: evaluate.load + compute once per epoch, as training scripts do. At most one helper
    process at a time (none, in fact), and no fork while another OS thread is alive: a training
    process has data-loader threads, and forking beside them can deadlock the child."""
    outcome = run_scenario(f"""
forks = []
os.register_at_fork(before=lambda: forks.append(len(os.listdir("/proc/self/task"))))
predictions, references = random_corpus({BIG}, seed=8)
most_children, results = 0, []
for epoch in range(30):
    metric = evaluate.load(PATH)
    results.append(metric.compute(predictions=predictions, references=references))
    most_children = max(most_children, len(children(os.getpid())))
loader = threading.Thread(target=time.sleep, args=(60,), daemon=True)  # a data-loader thread
loader.start()
metric = evaluate.load(PATH)
results.append(metric.compute(predictions=predictions, references=references))
report({{"forks": forks, "most_children": most_children, "results": results,
        "threads_now": len(os.listdir("/proc/self/task"))}})
""")
    expected = hf_bleu(*random_corpus(BIG, seed=8))
    assert outcome["results"] == [expected] * 31
    assert outcome["most_children"] <= 1
    assert outcome["threads_now"] >= 2  # the loader thread was alive during the last compute
    assert [threads for threads in outcome["forks"] if threads > 1] == []


def test_no_compute_waits_on_a_stopped_process():
    """Every process the metric has started is stopped (SIGSTOP); the next compute still returns,
    exactly, within the timeout."""
    outcome = run_scenario(f"""
metric = evaluate.load(PATH)
predictions, references = random_corpus({BIG}, seed=9)
metric.compute(predictions=predictions, references=references)
stopped = children(os.getpid())
for pid in stopped:
    os.kill(pid, signal.SIGSTOP)
result = metric.compute(predictions=predictions, references=references)
for pid in stopped:
    os.kill(pid, signal.SIGKILL)
report({{"result": result}})
""", timeout=120)
    assert outcome["result"] == hf_bleu(*random_corpus(BIG, seed=9))
