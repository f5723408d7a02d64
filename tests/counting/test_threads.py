"""Worker threads count exactly what one thread counts, and end with the call that started them:
when a worker fails, and when an interrupt lands while the caller waits for them."""

import queue
import random
import signal
import threading
import time

import evaluate
import pytest

from conftest import METRIC_PATH
from exactbleu.counting import corpus as counting
from exactbleu.counting import threads as worker_threads
from oracles import hf_bleu

pytestmark = pytest.mark.usefixtures("chunked_path")


def test_worker_threads_count_exactly(fresh, monkeypatch):
    """Worker threads count the later chunks: the rows are those of one thread, with and without
    the cache, under other options too."""
    module = counting
    monkeypatch.setattr(module, "_THREADS_MIN_DOCUMENTS", 10)
    used = []
    in_threads = module.in_threads
    monkeypatch.setattr(module, "in_threads", lambda work, items, threads: (used.append(threads),
                                                                             in_threads(work, items, threads))[1])
    rng = random.Random(11)
    words = "a b c d e f g , . 1.5".split()
    sentence = lambda: " ".join(rng.choice(words) for _ in range(rng.randint(0, 15)))  # noqa: E731
    predictions = [sentence() for _ in range(400)]
    references = [[sentence() for _ in range(rng.randint(1, 3))] for _ in range(400)]
    expected = hf_bleu(predictions, references)
    assert fresh.compute(predictions=predictions, references=references) == expected
    assert fresh.compute(predictions=predictions, references=references) == expected  # from the cache
    assert used == [2, 2]
    options = {"tokenizer": "intl", "lowercase": True, "smooth_method": "floor", "ref_length": "closest",
               "sentence_level": True}
    one_thread = evaluate.load(METRIC_PATH, threads=1).compute(predictions=predictions, references=references, **options)
    assert used[-1] == 1
    assert fresh.compute(predictions=predictions, references=references, **options) == one_thread
    assert used[-1] == 2


def test_a_failing_worker_thread_raises_here_and_every_worker_ends():
    started = threading.active_count()

    def work(part, stop):
        if 3 in part:
            raise RuntimeError("chunk 3")
        for _ in part:
            if stop.wait(0.05):
                return

    with pytest.raises(RuntimeError, match="chunk 3"):
        counting.in_threads(work, range(4), 2)
    assert threading.active_count() == started


@pytest.mark.parametrize("shape", ["parts", "pipeline"])
def test_an_interrupt_while_waiting_for_the_workers_leaves_none_running(shape):
    """Ctrl-C lands while this thread waits for a worker: the worker is told to stop, is waited
    for, and only then is the interrupt raised; so no worker works on after the call."""
    started, seen = threading.active_count(), []

    def work(part, stop):
        for item in part:
            if item and stop.wait(0.05):  # the worker's items are slow; this thread's part is quick
                seen.append("stopped")
                return
            seen.append(item)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.1)  # after this thread's part, while it waits
    try:
        with pytest.raises(KeyboardInterrupt):
            if shape == "parts":
                worker_threads.in_threads(work, [0] * 50 + [1] * 50, 2)
            else:  # the worker consumes slowly while this thread produces quickly
                worker_threads.pipelined(range(100), lambda item: time.sleep(0.05), 2)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert threading.active_count() == started
    if shape == "parts":
        assert seen[-1] == "stopped" and seen.count(1) < 10  # of the worker's 50 slow items


def a_worker(thread):
    """Whether a thread is one of exactbleu's workers (the others are left alone)."""
    return "_Worker" in getattr(getattr(thread, "_target", None), "__qualname__", "")


@pytest.mark.parametrize("shape", ["parts", "pipeline"])
@pytest.mark.parametrize("launched", [True, False], ids=["after-the-launch", "before-the-launch"])
def test_an_interrupt_inside_a_workers_start_leaves_none_running(shape, launched, monkeypatch):
    """Ctrl-C lands while threading starts a worker, after the thread was launched or before:
    the call raises it without hanging, no worker is left (a launched one is told to stop and
    waited for), and the next call counts as before."""
    started, start = threading.active_count(), threading.Thread.start

    def cut_short(thread):
        if not a_worker(thread):
            return start(thread)  # only exactbleu's workers are interrupted
        if launched:
            start(thread)
        raise KeyboardInterrupt

    def work(part, stop):
        for _ in part:
            if stop.wait(0.01):
                return

    def call():
        if shape == "parts":
            worker_threads.in_threads(work, range(20), 2)
            return None
        return worker_threads.pipelined(range(20), lambda item: item * 2, 2)

    monkeypatch.setattr(threading.Thread, "start", cut_short)
    begun = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        call()
    assert time.monotonic() - begun < 5
    assert threading.active_count() == started
    monkeypatch.undo()
    assert call() == (None if shape == "parts" else list(range(0, 40, 2)))
    assert threading.active_count() == started


@pytest.mark.parametrize("shape", ["parts", "pipeline"])
def test_a_worker_the_machine_runs_late_is_still_waited_for(shape, monkeypatch):
    """On a machine too busy to run a new thread at once, a worker that was started begins its
    work after the launch grace: it is waited for all the same, its share is counted, and none is
    left when the call returns."""
    monkeypatch.setattr(worker_threads, "_LAUNCH_GRACE", 0.0)
    started, start = threading.active_count(), threading.Thread.start

    def late(thread):
        target = getattr(thread, "_target", None)
        if a_worker(thread):
            def after_a_while():
                time.sleep(0.3)
                target()

            thread._target = after_a_while
        return start(thread)

    monkeypatch.setattr(threading.Thread, "start", late)
    if shape == "parts":
        seen = []
        worker_threads.in_threads(lambda part, stop: seen.extend(part), range(20), 2)
        assert sorted(seen) == list(range(20))
    else:
        assert worker_threads.pipelined(range(3), lambda item: item * 2, 2) == [0, 2, 4]
    assert threading.active_count() == started


@pytest.mark.parametrize("shape", ["parts", "pipeline"])
def test_an_interrupt_just_before_the_thread_is_made_leaves_no_thread_behind(shape, monkeypatch):
    """Ctrl-C arrives inside threading's start after it has listed the thread as starting and
    before it makes it: threading would keep listing it forever (CPython 3.11 removes it only on
    an Exception). The call raises the interrupt, and no thread is left, listed or running."""
    started, make = threading.active_count(), threading._start_new_thread

    def interrupted(function, arguments):
        if a_worker(getattr(function, "__self__", None)):  # the thread's own _bootstrap
            signal.raise_signal(signal.SIGALRM)  # its handler raises at the next line of Python code
        return make(function, arguments)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    monkeypatch.setattr(threading, "_start_new_thread", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            if shape == "parts":
                worker_threads.in_threads(lambda part, stop: None, range(20), 2)
            else:
                worker_threads.pipelined(range(20), lambda item: item, 2)
    finally:
        signal.signal(signal.SIGALRM, previous)
    monkeypatch.undo()
    time.sleep(0.1)
    assert threading.active_count() == started, threading.enumerate()


def test_a_lost_wake_up_of_the_pipeline_worker_does_not_hang_it(monkeypatch):
    """An interrupt inside the put that hands an item over can lose the worker's wake-up (in
    threading's notify): the worker still takes the item, and the call ends."""
    class Forgetful(queue.Queue):
        def put(self, item, block=True, timeout=None):
            if item is not None and not getattr(self, "forgot", False):
                self.forgot = True
                time.sleep(0.2)  # the worker waits for an item by now
                with self.mutex:  # the item lands; the wake-up is lost
                    self._put(item)
                    self.unfinished_tasks += 1
                return
            super().put(item, block, timeout)

    monkeypatch.setattr(worker_threads.queue, "Queue", Forgetful)
    outcome = []
    caller = threading.Thread(target=lambda: outcome.append(worker_threads.pipelined(range(5), lambda item: item, 2)),
                              daemon=True)
    caller.start()
    caller.join(10)
    assert outcome == [[0, 1, 2, 3, 4]]
