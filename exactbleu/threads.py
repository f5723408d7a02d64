"""Worker threads. numpy's sorting, searching and arithmetic run outside the GIL, so the work on a
big input goes faster split between threads. Every worker ends before the call that started it
returns or raises, interrupted or not: nothing outlives the call, and a failure anywhere stops
every thread at its next item."""

import os
import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def cores() -> int:
    """How many cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def thread_count(asked: int | None, tokens: int | None = None) -> int:
    """How many threads work on an input of this many tokens: one for fewer than
    ``THREADS_MIN_TOKENS`` (a thread would cost more than it saves), else as asked, by default two
    where two cores are (more rarely pays: the work between the GIL's releases is short)."""
    if tokens is not None and tokens < THREADS_MIN_TOKENS:
        return 1
    return min(2, cores()) if asked is None else asked


THREADS_MIN_TOKENS = 100_000


def in_threads(work: Callable[[Sequence[int], threading.Event], None], items: Sequence[int], threads: int) -> None:
    """``work(part, stop)`` on ``threads`` contiguous parts of ``items``: the first part in this
    thread, each other one in a worker thread of its own. Every worker has ended when this
    returns or raises; a failure anywhere sets ``stop``, and ``work`` checks it between items."""
    items = list(items)
    parts = [items[len(items) * number // threads : len(items) * (number + 1) // threads] for number in range(threads)]
    stop, errors = threading.Event(), []

    def guarded(part: Sequence[int]) -> None:
        try:
            work(part, stop)
        except BaseException as error:  # raised again in the calling thread
            errors.append(error)
            stop.set()

    workers = [threading.Thread(target=guarded, args=(part,), daemon=True) for part in parts[1:] if part]
    for worker in workers:
        worker.start()
    finished = False
    try:
        work(parts[0], stop)
        finished = True
    finally:
        if not finished:  # interrupted or failed here: the workers stop after their current item
            stop.set()
        for worker in workers:
            worker.join()
    if errors:
        raise errors[0]


def pipelined(produced: Iterable[Item], consume: Callable[[Item], Result], threads: int) -> list[Result]:
    """``[consume(item) for item in produced]``, with two threads a pipeline: a worker consumes
    each item while this thread produces the next (the stages of work whose next step needs only
    the step before, as each order of n-grams is made from the order before). The worker has
    ended when this returns or raises; a failure in either stage stops both."""
    if threads < 2:
        return [consume(item) for item in produced]
    handoff: queue.Queue[tuple[Item] | None] = queue.Queue(maxsize=1)
    results: list[Result] = []
    stop, errors = threading.Event(), []

    def worker() -> None:
        while (held := handoff.get()) is not None:
            if stop.is_set():
                continue  # drained, so that this thread's last put never waits on it
            try:
                results.append(consume(held[0]))
            except BaseException as error:  # raised again in the calling thread
                errors.append(error)
                stop.set()

    consumer = threading.Thread(target=worker, daemon=True)
    consumer.start()
    try:
        for item in produced:
            if stop.is_set():
                break
            handoff.put((item,))
    except BaseException:
        stop.set()
        raise
    finally:
        handoff.put(None)
        consumer.join()
    if errors:
        raise errors[0]
    return results
