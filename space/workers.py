"""Where a request's work runs: in worker processes, never in the server's, whose one event loop
serves every client (scoring there, in threads, took the GIL from it: 49 answers a second instead
of 61 inline).

A cheap job (priced at most LIGHT_SECONDS) runs in one of LIGHT_AT_ONCE processes that stay up.
A dear one runs in a process of its own, at
low priority, one at a time, so two cores are never both taken by big requests; its process is
killed as soon as its client goes away, and its memory goes with it. A spare one is started
ahead, since starting takes a moment. In both lanes a waiting job's turn comes by its arrival,
delayed by WAIT_PER_SECOND times its price: a big request waits behind smaller ones that came a
little after it, but not for ever, and requests of about the same price go first come, first
served. Every worker dies with the server, even when the server is killed (``PR_SET_PDEATHSIG``,
Linux, as on Spaces). The workers are the standard library's ``multiprocessing`` processes, started
fresh (spawn), each taking pickled jobs on a ``multiprocessing`` connection. (A
``ProcessPoolExecutor`` was tried first: its manager and queue-feeder threads take the GIL from the
server's event loop, and at 50 users the 95th percentile rose by a fifth.)

This module imports no Gradio: the workers import it, and start quickly.
"""

import asyncio
import ctypes
import heapq
import itertools
import multiprocessing
import os
import signal
import sys
import time
from typing import Callable, Optional

from .pricing import COMMAND_LINE, InputError
from .requests import Job

LIGHT_SECONDS = 0.25  # priced at most this, a job runs in the pool; dearer, in a process of its own
LIGHT_AT_ONCE = 2
HEAVY_AT_ONCE = 1
HEAVY_WAITING = 8  # beyond these, a dear request is told the Space is busy
WAIT_PER_SECOND = 10
HEAVY_NICENESS = 10
POLL_SECONDS = 0.2  # how often a dear job checks that its client is still there
_SPAWN = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing of the server's threads


class Abandoned(Exception):
    """The client of a dear job went away, and its worker was killed."""


def start_worker(server: int, niceness: int) -> None:
    """What every worker does first: die with the server (the kernel sends SIGKILL when the
    thread that started it ends, which lives as long as the server), then lower its priority."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != server:  # the server ended before this worker started
            os._exit(1)
    if niceness:
        os.nice(niceness)


def outcome(job: Job):
    """A job's result, or its input error: (True, result) or (False, message)."""
    try:
        result = job.function(*job.arguments)
        return True, job.finish(result) if job.finish else result
    except (ValueError, TypeError) as error:
        return False, str(error)


def _serve(connection, server: int, niceness: int, once: bool) -> None:
    """A worker process: ready before its first job comes, it runs jobs from its connection until
    the connection ends, or just one."""
    start_worker(server, niceness)
    import exactbleu.api  # noqa: F401 -- imported before a job comes, as part of being ready

    while True:
        try:
            job = connection.recv()
        except EOFError:
            return
        connection.send(outcome(job))
        if once:
            return


class Worker:
    """A worker process and the connection it takes jobs on (multiprocessing's, which pickles
    them). The server's event loop waits for an answer on the connection itself: no thread waits,
    so none takes the GIL from the loop that serves every client."""

    def __init__(self, niceness: int, once: bool):
        self.connection, theirs = _SPAWN.Pipe()
        self.process = _SPAWN.Process(target=_serve, args=(theirs, os.getpid(), niceness, once), daemon=True)
        self.process.start()
        theirs.close()

    async def run(self, job: Job, abandoned: Optional[Callable[[], bool]] = None):
        """(succeeded, result or message); Abandoned when ``abandoned()`` (checked every
        POLL_SECONDS) tells that the client went away. The caller ends the worker then."""
        loop, answered, fileno = asyncio.get_running_loop(), asyncio.Event(), self.connection.fileno()
        loop.add_reader(fileno, answered.set)
        try:
            self.connection.send(job)
            while not answered.is_set():
                try:
                    await asyncio.wait_for(answered.wait(), POLL_SECONDS)
                except asyncio.TimeoutError:
                    if abandoned is not None and abandoned():
                        raise Abandoned("the client went away") from None
            return self.connection.recv()
        except (EOFError, OSError):
            raise InputError("the worker scoring this request ended before it answered; try again") from None
        finally:
            loop.remove_reader(fileno)

    def alive(self) -> bool:
        return self.process.is_alive()

    def end(self) -> None:
        self.process.kill()
        self.process.join()
        self.connection.close()


class Lane:
    """At most ``slots`` jobs at once, at most ``waiting`` waiting; next the waiting job whose
    arrival time plus WAIT_PER_SECOND times its price is least."""

    def __init__(self, slots: int, waiting: Optional[int] = None):
        self.free, self.limit = slots, waiting
        self.waiting = []  # a heap of (turn time, arrival number, future)
        self.arrivals = itertools.count()

    async def acquire(self, cost: float):
        if self.free and not self.waiting:
            self.free -= 1
            return
        if self.limit is not None and len(self.waiting) >= self.limit:
            raise InputError(f"the Space is busy: {len(self.waiting)} large requests are waiting already; try again "
                             f"in a minute, or {COMMAND_LINE}")
        turn = asyncio.get_running_loop().create_future()
        entry = (time.monotonic() + WAIT_PER_SECOND * cost, next(self.arrivals), turn)
        heapq.heappush(self.waiting, entry)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # given the slot just as it was cancelled
                self.release()
            else:
                self.waiting.remove(entry)
                heapq.heapify(self.waiting)
            raise

    def release(self):
        while self.waiting:
            turn = heapq.heappop(self.waiting)[2]
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1


class Workers:
    """The server's workers: LIGHT_AT_ONCE that stay up for cheap jobs, and a spare one for the
    next dear job. ``start`` must run in the thread that serves to the end (see ``start_worker``)."""

    def __init__(self):
        self.light, self.heavy = Lane(LIGHT_AT_ONCE), Lane(HEAVY_AT_ONCE, HEAVY_WAITING)
        self.idle, self.spare = [], None

    def start(self) -> None:
        """Start the workers now, so the first requests wait for none."""
        self.idle = [Worker(0, once=False) for _ in range(LIGHT_AT_ONCE)]
        self.spare = Worker(HEAVY_NICENESS, once=True)

    async def run(self, job: Job, abandoned: Callable[[], bool] = lambda: False):
        """The job's result, run where its price says; an InputError with the library's message,
        or Abandoned when ``abandoned()`` tells that its client went away."""
        light = job.cost.seconds <= LIGHT_SECONDS
        lane = self.light if light else self.heavy
        await lane.acquire(job.cost.seconds)
        try:
            if light:  # the lane lets at most LIGHT_AT_ONCE in: a worker is idle
                worker = self.idle.pop()
                if not worker.alive():
                    worker = Worker(0, once=False)
                answered = False
                try:
                    succeeded, value = await worker.run(job)
                    answered = True
                finally:
                    # Cancelled, or ended, before its answer came: the answer must never reach the
                    # next job, so the worker goes and a new one takes its place.
                    if not answered or not worker.alive():
                        worker.end()
                        worker = Worker(0, once=False)
                    self.idle.append(worker)
            else:
                worker, self.spare = self.spare, Worker(HEAVY_NICENESS, once=True)
                try:
                    succeeded, value = await worker.run(job, abandoned)
                finally:
                    worker.end()  # its memory goes with it
        finally:
            lane.release()
        if not succeeded:
            raise InputError(value)
        return value

    def close(self) -> None:
        for worker in self.idle + ([self.spare] if self.spare else []):
            worker.end()
