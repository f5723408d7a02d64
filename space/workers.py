"""Where a request's work runs: in worker processes, never in the server's, whose one event loop
serves every client (scoring there, in threads, took the GIL from it: 49 answers a second instead
of 61 inline).

A cheap job (priced at most LIGHT_SECONDS) runs in a pool of LIGHT_AT_ONCE processes that stay
up, the standard library's ``ProcessPoolExecutor``. A dear one runs in a process of its own, at
low priority, one at a time, so two cores are never both taken by big requests; its process is
killed as soon as its client goes away, and its memory goes with it. A spare one is started
ahead, since starting takes a moment. In both lanes a waiting job's turn comes by its arrival,
delayed by WAIT_PER_SECOND times its price: a big request waits behind smaller ones that came a
little after it, but not for ever, and requests of about the same price go first come, first
served. Every worker dies with the server, even when the server is killed (``PR_SET_PDEATHSIG``,
Linux, as on Spaces).

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
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnProcess
from typing import Any, TypedDict

from exactbleu import MissingExtra

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
Outcome = tuple[bool, Any]  # (True, result) or (False, the input error's message)


# Every event that scores shares one limit, well above what runs at once (the workers' lanes
# decide that): a request waiting for its turn there holds no place in Gradio's queue.
class Concurrency(TypedDict):
    """An event's place among Gradio's concurrency groups."""

    concurrency_id: str
    concurrency_limit: int


WORK: Concurrency = {"concurrency_id": "work", "concurrency_limit": 64}


class Abandoned(Exception):  # noqa: N818 -- it names what happened to the client, as the page's message says
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


def outcome(job: Job) -> Outcome:
    """A job's result, or its input error: (True, result) or (False, message)."""
    try:
        result = job.function(*job.arguments, **job.keywords)
        return True, job.finish(result) if job.finish else result
    except (ValueError, TypeError, MissingExtra) as error:
        return False, str(error)


def _dear_worker(connection: "Connection[Outcome, Job]", server: int) -> None:
    """A dear job's process: ready ahead of its job, it runs one and ends."""
    start_worker(server, HEAVY_NICENESS)
    import exactbleu

    exactbleu.corpus_bleu  # noqa: B018 -- the library loads before the job comes, as part of being ready

    try:
        job = connection.recv()
    except EOFError:
        return
    connection.send(outcome(job))


class Lane:
    """At most ``slots`` jobs at once, at most ``waiting`` waiting; next the waiting job whose
    arrival time plus WAIT_PER_SECOND times its price is least."""

    def __init__(self, slots: int, waiting: int | None = None) -> None:
        self.free, self.limit = slots, waiting
        self.waiting: list[tuple[float, int, asyncio.Future[None]]] = []  # a heap of (turn time, arrival, future)
        self.arrivals = itertools.count()

    async def acquire(self, cost: float) -> None:
        """A slot for a job of this price: now if one is free and nobody waits, else at its turn."""
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

    def release(self) -> None:
        """A job's slot, given to the waiting job whose turn is next, or freed."""
        while self.waiting:
            turn = heapq.heappop(self.waiting)[2]
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1


class Workers:
    """The server's workers: the pool of cheap jobs and a spare process for the next dear one.
    ``start`` must run in the thread that serves to the end (see ``start_worker``)."""

    def __init__(self) -> None:
        self.light, self.heavy = Lane(LIGHT_AT_ONCE), Lane(HEAVY_AT_ONCE, HEAVY_WAITING)
        self.pool: ProcessPoolExecutor | None = None
        self.spare: tuple[SpawnProcess, Connection[Job, Outcome]] | None = None

    def start(self) -> None:
        """Start the pool's processes and a spare dear one now, so the first requests wait for none."""
        self.pool = ProcessPoolExecutor(LIGHT_AT_ONCE, mp_context=_SPAWN, initializer=start_worker,
                                        initargs=(os.getpid(), 0))
        for started in [self.pool.submit(int) for _ in range(LIGHT_AT_ONCE)]:
            started.result()
        self.spare = self._dear_process()

    def _dear_process(self) -> "tuple[SpawnProcess, Connection[Job, Outcome]]":
        ours, theirs = _SPAWN.Pipe()
        process = _SPAWN.Process(target=_dear_worker, args=(theirs, os.getpid()), daemon=True)
        process.start()
        theirs.close()
        return process, ours

    async def run(self, job: Job, abandoned: Callable[[], bool] = lambda: False) -> Any:
        """The job's result, run where its price says; an InputError with the library's message,
        or Abandoned when ``abandoned()`` tells that its client went away."""
        light = job.cost.seconds <= LIGHT_SECONDS
        lane = self.light if light else self.heavy
        await lane.acquire(job.cost.seconds)
        try:
            succeeded, value = await (self._in_pool(job) if light else self._in_process(job, abandoned))
        finally:
            lane.release()
        if not succeeded:
            raise InputError(value)
        return value

    async def _in_pool(self, job: Job) -> Outcome:
        try:
            return await asyncio.get_running_loop().run_in_executor(self.pool, outcome, job)
        except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool for the next job
            if self.pool is not None:  # always: only a process pool breaks
                self.pool.shutdown(wait=False)
            self.pool = ProcessPoolExecutor(LIGHT_AT_ONCE, mp_context=_SPAWN, initializer=start_worker,
                                            initargs=(os.getpid(), 0))
            raise InputError("the worker scoring this request ended before it answered; try again") from None

    async def _in_process(self, job: Job, abandoned: Callable[[], bool]) -> Outcome:
        if self.spare is None:
            raise RuntimeError("start() the workers before they run a dear job")
        (process, connection), self.spare = self.spare, self._dear_process()
        loop, answered = asyncio.get_running_loop(), asyncio.Event()
        loop.add_reader(connection.fileno(), answered.set)
        try:
            connection.send(job)
            while not answered.is_set():
                try:
                    await asyncio.wait_for(answered.wait(), POLL_SECONDS)
                except asyncio.TimeoutError:
                    if abandoned():
                        raise Abandoned("the client went away") from None
            return connection.recv()
        except (EOFError, OSError):
            raise InputError("the worker scoring this request ended before it answered; try again") from None
        finally:
            loop.remove_reader(connection.fileno())
            process.kill()
            process.join()
            connection.close()

    def close(self) -> None:
        """Stop the pool's processes and the spare one."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        if self.spare is not None:
            self.spare[0].kill()
            self.spare[0].join()
