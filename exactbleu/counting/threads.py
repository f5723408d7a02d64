"""Worker threads. numpy's sorting, searching and arithmetic run outside the GIL, so the work on a
big input goes faster split between threads. Every worker ends before the call that started it
returns or raises, interrupted or not: nothing outlives the call, and a failure anywhere stops
every thread at its next item."""

import contextlib
import functools
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
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

    workers = [_Worker(functools.partial(guarded, part), stop) for part in parts[1:] if part]

    def here() -> None:
        for worker in workers:
            worker.start()
        work(parts[0], stop)

    _then_waited(here, [worker.wait for worker in workers], stop)
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
        while (held := _taken(handoff)) is not None:
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
        if not consumer.launched():
            return
        while not consumer.done.is_set():
            with contextlib.suppress(queue.Full):
                handoff.put(None, timeout=0.05)
                break
        consumer.wait()

    def here() -> None:
        consumer.start()
        for item in produced:
            if stop.is_set():
                break
            handoff.put((item,))

    consumer = _Worker(worker, stop)
    _then_waited(here, [ended], stop)
    if errors:
        raise errors[0]
    return results


def _taken(handoff: "queue.Queue[Item]") -> Item:
    """The next item handed off, looked for again every 50 ms: an interrupt that lands inside the
    put that handed it over (in threading's notify) can lose the worker's wake-up, and the worker
    would wait for ever beside an item, while the put of the end waited for room."""
    while True:
        with contextlib.suppress(queue.Empty):
            return handoff.get(timeout=0.05)


class _Worker:
    """A daemon thread running ``run`` unless ``stop`` is set when it begins, followed by events of
    its own, because an interrupt can land inside threading's start and join: a start cut short may
    or may not have launched the thread, and CPython 3.11's join, cut short, marks the thread ended
    though it still runs."""

    def __init__(self, run: Callable[[], None], stop: threading.Event):
        self.entered, self.done, self.asked, self.started = threading.Event(), threading.Event(), False, False

        def body() -> None:
            self.entered.set()
            try:
                if not stop.is_set():  # a thread whose start was cut short does nothing
                    run()
            finally:
                self.done.set()

        self.thread = threading.Thread(target=body, daemon=True)

    def start(self) -> None:
        self.asked = True
        with _signals_held():
            self.thread.start()
        self.started = True

    def launched(self) -> bool:
        """Whether the thread runs or has run: surely, once its start returned. A start cut short
        may have launched it, which then enters its body at once; one that has not entered within
        ``_LAUNCH_GRACE`` seconds is taken as never launched: were it launched after all (on a
        machine too busy to run it for that long), it finds ``stop`` set and does nothing."""
        return self.started or (self.asked and self.entered.wait(_LAUNCH_GRACE))

    def wait(self) -> None:
        """Until the thread, if launched, is gone."""
        if not self.launched():
            return
        self.done.wait()
        self.thread.join()
        while self.thread in threading.enumerate():  # a join cut short returns before the thread ends
            time.sleep(0.001)


_LAUNCH_GRACE = 1.0


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Signals with a Python handler (Ctrl-C's, an alarm's) wait until the block ends, where the
    system lets a thread hold them (POSIX): an interrupt inside threading's start, after it lists
    the thread as starting and before it makes it, would leave it listed forever (CPython 3.11
    takes it off only on an Exception). The thread made inherits the held signals, which only the
    main thread handles anyway."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    handled = {number for number in signal.valid_signals() if callable(_handler(number))}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, handled)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _handler(number: int) -> object:
    try:
        return signal.getsignal(number)
    except (ValueError, OSError):  # a number the system does not know
        return None


def _then_waited(here: Callable[[], None], waits: list[Callable[[], None]], stop: threading.Event) -> None:
    """``here()``, the calling thread's share, then each wait run to its end, even when an
    interrupt lands in either: that sets ``stop``, so the workers end at their next item, the waits
    are taken again, and the interrupt is raised once every worker is gone. The waits are not in a
    ``finally``, which an interrupt could leave before its first line: from the moment ``here``
    begins, every instruction up to the waits is inside a ``try`` that leads to them."""
    arrived: BaseException | None = None
    try:
        here()
    except BaseException as error:
        arrived = error
    while True:
        try:
            if arrived is not None:
                stop.set()
            for wait in waits:
                wait()
            break
        except BaseException as error:
            arrived = arrived or error
    if arrived is not None:
        raise arrived
