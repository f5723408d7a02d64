"""Worker threads. numpy's sorting, searching and arithmetic run outside the GIL, so the work on a
big input goes faster split between threads. Every worker ends before the call that started it
returns or raises, interrupted or not: nothing outlives the call, and a failure anywhere stops
every thread at its next item."""

import contextlib
import functools
import os
import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Consumed = TypeVar("Consumed")


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

    workers = [_Worker(functools.partial(guarded, part)) for part in parts[1:] if part]
    finished = False
    try:
        for worker in workers:
            worker.start()
        work(parts[0], stop)
        finished = True
    finally:
        if not finished:  # interrupted or failed here: the workers stop after their current item
            stop.set()
        _to_the_end([worker.wait for worker in workers if worker.started], stop)
    if errors:
        raise errors[0]


def pipelined(produced: Iterable[Item], consume: Callable[[Item], Consumed], threads: int) -> list[Consumed]:
    """``[consume(item) for item in produced]``, with two threads a pipeline: a worker consumes
    each item while this thread produces the next (the stages of work whose next step needs only
    the step before, as each order of n-grams is made from the order before). The worker has
    ended when this returns or raises; a failure in either stage stops both."""
    if threads < 2:
        return [consume(item) for item in produced]
    handoff: queue.Queue[tuple[Item] | None] = queue.Queue(maxsize=1)
    results: list[Consumed] = []
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

    def ended() -> None:
        """The worker told there is no more, and gone (a put that an interrupt cut short may have
        landed: the worker leaving is what counts)."""
        while not consumer.done.is_set():
            with contextlib.suppress(queue.Full):
                handoff.put(None, timeout=0.05)
                break
        consumer.wait()

    consumer = _Worker(worker)
    try:
        consumer.start()
        for item in produced:
            if stop.is_set():
                break
            handoff.put((item,))
    except BaseException:
        stop.set()
        raise
    finally:
        _to_the_end([ended] if consumer.started else [], stop)
    if errors:
        raise errors[0]
    return results


class _Worker:
    """A daemon thread running ``run``, with an event set once ``run`` has returned. Waiting uses
    the event: CPython 3.11's ``threading.Thread.join``, interrupted while it waits, marks the
    thread ended though it still runs, so a join taken again would not wait."""

    def __init__(self, run: Callable[[], None]):
        self.done, self.started = threading.Event(), False

        def body() -> None:
            try:
                run()
            finally:
                self.done.set()

        self.thread = threading.Thread(target=body, daemon=True)

    def start(self) -> None:
        self.thread.start()
        self.started = True

    def wait(self) -> None:
        """Until ``run`` has returned, and the thread is gone."""
        self.done.wait()
        self.thread.join()


def _to_the_end(steps: list[Callable[[], None]], stop: threading.Event) -> None:
    """Each step (a join) run to its end, even when an interrupt lands while it waits: that sets
    ``stop``, so the workers end at their next item, the step is taken again, and the interrupt is
    raised once every step is done. Else an interrupted join would leave a worker running on."""
    arrived: BaseException | None = None
    for step in steps:
        while True:
            try:
                step()
                break
            except BaseException as error:
                stop.set()
                arrived = arrived or error
    if arrived is not None:
        raise arrived
