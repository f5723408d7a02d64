"""The BLEU Space: score predictions against references in the browser, or through the API.

    python app.py    # serves on GRADIO_SERVER_NAME:GRADIO_SERVER_PORT (default 127.0.0.1:7860)

The page takes one segment per line, up to three reference sets, and the options that decide the
number; it shows the score, the full result, the n-gram precisions, per-sentence scores and the
signature. The same computation is the API endpoint `/compute`:

    from gradio_client import Client
    Client(url).predict("the cat sat", "the cat sat on the mat", api_name="/compute")

Every request is checked and priced before any of its work runs (issue 31): its size, its tokens
and the seconds it may take, estimated from what its texts hold with prices measured per tokenizer
(`python benchmarks/load.py prices`). The work runs in worker processes, never in the server's: a
cheap request in one of two that stay up, a dear one in one of its own, one at a time and at low
priority, killed when its client goes away. Connections that send nothing, or send slowly, are
closed.
"""

import asyncio
import collections
import contextlib
import heapq
import html
import itertools
import os
import pickle
import re
import struct
import subprocess
import sys
import time
from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple

import gradio as gr
import pandas as pd
import uvicorn
from fastapi import FastAPI
from starlette.middleware import Middleware
from uvicorn.protocols.http.h11_impl import H11Protocol

from exactbleu import api
from exactbleu.engine import _max_token_bits
from exactbleu.inputs import check_inputs, reference_lists
from exactbleu.options import DEFAULTS, OPTION, resolve_settings
from exactbleu.scoring import NLTK_SMOOTHING, SMOOTH_DEFAULTS
from exactbleu.significance import PAIRED_TESTS
from exactbleu.tokenizers.spm import SPM_MODELS, spm_model_path

HERE = os.path.dirname(os.path.abspath(__file__))
# What one request may hold: every limit is checked before the work it guards.
MAX_LINES = 100_000
MAX_BYTES = 10_000_000  # of text, all boxes together; also the largest upload
MAX_REQUEST_BYTES = MAX_BYTES + 1_000_000  # the text plus room for its JSON encoding
MAX_TOKENS = 1_000_000  # at most this many, counted before tokenizing as characters other than spaces
MAX_SECONDS = 5.0  # of work, estimated before any of it runs (see PRICES)
MAX_EXPLAIN_TOKENS = 1_000  # in the line the page explains, prediction and references together
MAX_ORDER = 8  # the page's slider; the library takes up to exactbleu.options.MAX_ORDER
MAX_COMPARE_LINES = 10_000  # the resamples are matrices of samples x lines
QUEUE_SIZE = 128  # requests waiting in Gradio's queue, each up to MAX_REQUEST_BYTES
# A SentencePiece tokenizer only where its model is on this machine (nothing is downloaded).
TOKENIZERS = [name for name in OPTION["tokenizer"].choices if name not in SPM_MODELS or os.path.isfile(spm_model_path(name))]
REF_LENGTHS = list(OPTION["ref_length"].choices)
# The smoothing choices, and the options each one means.
SMOOTHING = {
    "none": {},
    "add-one (HF smooth=True)": {"smooth": True},
    **{f"{method} (sacrebleu)": {"smooth_method": method} for method in SMOOTH_DEFAULTS if method != "none"},
    **{f"{method} (NLTK)": {"smooth_method": method} for method in NLTK_SMOOTHING},
}
EXAMPLE_PREDICTIONS = "\n".join([
    "Transformers Transformers are fast plus efficient",
    "Good Morning",
    "I am waiting for new Transformers",
])
EXAMPLE_REFERENCES = "\n".join([
    "HuggingFace Transformers are quick, efficient and awesome",
    "Good Morning Transformers",
    "People are eagerly waiting for new Transformer models",
])
EXAMPLE_REFERENCES_2 = "\n".join([
    "Transformers are awesome because they are fast to execute",
    "Morning Transformers",
    "People are very excited about new Transformers",
])
EXAMPLE_SYSTEM_B = "\n".join([
    "HuggingFace Transformers are fast and efficient",
    "Good Morning Transformers",
    "People are waiting for new Transformers",
])


class InputError(ValueError):
    """Input the page can explain: shown as a message, never as a stack trace."""


# Prices: seconds of work on the Space's 2-core machine, measured by `python benchmarks/load.py
# prices` on the dearest inputs found for each tokenizer, the most of three runs times 2 (the same
# input measured up to three times as slow at another hour of this shared machine). Each input's whole
# time is charged to one term, so a mix of them is priced at least at its cost.
class Price(NamedTuple):
    """What tokenizing costs, per character and per line, and for two known blow-ups: sacremoses
    checks each token that ends in a period against its whole alphabet (up to 1 ms a token, as in
    "1.2."), and MeCab groups a run of unknown characters in quadratic time (7 s for a run of
    80,000), charged per squared length of each run of RUN_LENGTH or more characters without a
    space or line break."""

    character: float
    line: float
    period: float = 0.0
    run: float = 0.0


RUN_LENGTH = 256  # shorter runs cost MeCab at most RUN_LENGTH * run per character, in `character`
PRICES = {
    "13a": Price(character=0.45e-6, line=21e-6),
    "intl": Price(character=1.6e-6, line=19e-6),
    "zh": Price(character=2.9e-6, line=26e-6),
    "char": Price(character=0.45e-6, line=8e-6),
    "none": Price(character=0.05e-6, line=9e-6),
    "moses": Price(character=8.5e-6, line=64e-6, period=1.1e-3),
    "ja-mecab": Price(character=0.8e-6, line=11.5e-6, run=2.3e-9),
    "ko-mecab": Price(character=0.85e-6, line=13e-6, run=4.2e-9),
    # Not measured: a flores model is not on this machine. Priced as the dearest of the others.
    **{name: Price(character=8.5e-6, line=64e-6) for name in SPM_MODELS},
}
# Counting n-grams, per token, by max order (index 0 is order 1): in packed integer keys, or by
# the definition where a segment's references hold too many distinct tokens for the keys (see
# `exactbleu/engine.py`): a segment whose references have fewer characters cannot.
PACKED_PRICE = (0.3e-6, 0.33e-6, 0.36e-6, 0.33e-6, 0.41e-6, 0.42e-6, 0.42e-6, 0.4e-6)
DEFINITION_PRICE = (0.3e-6, 0.45e-6, 4.1e-6, 5e-6, 5.1e-6, 5.5e-6, 6e-6, 7.6e-6)
EXPLAIN_PRICE = 0.1e-6  # per token and order: explain() builds a dict per n-gram
# The paired tests resample per line: (seconds, seconds per line), by test, at its default samples.
PAIRED_PRICES = {"bootstrap": (0.03, 93e-6), "randomization": (0.5, 83e-6)}
LIGHT_SECONDS = 0.25  # priced at most this, a request runs in a worker that stays up; dearer, in one of its own


class Cost(NamedTuple):
    """What a request may cost, known before any of its work runs."""

    tokens: int  # at most this many tokens: characters other than spaces and line breaks
    seconds: float  # at most about this much work, by PRICES
    why: str  # what the price is made of, for a message


# A run starts only after a space, a line break or the start: so the search is linear in the text.
_LONG_RUN = re.compile(f"(?<![^ \n])[^ \n]{{{RUN_LENGTH},}}")


def cost_of(predictions: Sequence[str], references: Sequence[Sequence[str]], tokenizer: str, max_order: int) -> Cost:
    """The cost of tokenizing and counting these segments (``references``: a list per
    prediction) with this tokenizer up to this order. Every named tokenizer gives at most a token
    per character that is not a space or a line break; this counts those, never a token."""
    price, packed_limit = PRICES[tokenizer], 1 << _max_token_bits(max_order)
    text = "\n".join(itertools.chain(predictions, itertools.chain.from_iterable(references)))
    lines = len(predictions) + sum(map(len, references))
    characters = len(text) - (lines - 1)
    tokens = characters - text.count(" ")
    periods = text.count(".") if price.period else 0
    runs = [match.end() - match.start() for match in _LONG_RUN.finditer(text)] if price.run else []
    reference_lengths = [sum(map(len, segment)) for segment in references]
    unpacked = sum(len(prediction) + length for prediction, length in zip(predictions, reference_lengths)
                   if length >= packed_limit)
    seconds = (characters * price.character + lines * price.line + periods * price.period
               + sum(run * run for run in runs) * price.run
               + tokens * PACKED_PRICE[max_order - 1] + unpacked * DEFINITION_PRICE[max_order - 1])
    why = f"{characters:,} characters in {lines:,} lines"
    if periods:
        why += f", {periods:,} periods"
    if runs:
        why += f", a run of {max(runs):,} characters without a space"
    return Cost(tokens, seconds, why)


COMMAND_LINE = "score big corpora with the command line, `python -m exactbleu`"


def checked_cost(cost: Cost, tokenizer: str, limit: int = MAX_TOKENS, what: str = "the texts",
                 advice: str = COMMAND_LINE) -> Cost:
    """``cost``, if the Space takes it; else a message saying what is over which limit."""
    if cost.tokens > limit:
        raise InputError(f"{what} hold up to {cost.tokens:,} tokens (any character but a space or a line break "
                         f"may be one), more than the {limit:,} the Space takes; {advice}")
    if cost.seconds > MAX_SECONDS:
        raise InputError(f"{what} would take up to {cost.seconds:.1f} s with tokenizer {tokenizer!r} ({cost.why}); "
                         f"the Space takes requests of up to {MAX_SECONDS:g} s: send fewer lines, choose a cheaper "
                         f"tokenizer, or {advice}")
    return cost


def lines_of(text, name):
    """The segments of a text box: one per line; a final line break ends the last one."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if len(lines) > MAX_LINES:
        raise InputError(f"{name} has {len(lines):,} lines; the page takes at most {MAX_LINES:,}")
    return lines


def checked_size(texts, advice):
    """The texts (None as ""), if they are at most MAX_BYTES together."""
    texts = [text or "" for text in texts]
    if sum(len(text.encode("utf-8", "surrogatepass")) for text in texts) > MAX_BYTES:  # bad Unicode: the library says
        raise InputError(f"the texts are larger than {MAX_BYTES // 1_000_000} MB together; {advice}")
    return texts


def checked_max_order(value):
    """The page's max_order as an int: a whole number on the slider's range, or a message."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ORDER:
        raise InputError(f"max_order must be a whole number from 1 to {MAX_ORDER}, got {value!r:.40}")
    return value


def checked_tokenizer(value):
    """A tokenizer the page offers: the API takes no other (a SentencePiece one without its model
    would answer with the server's folders)."""
    if value not in TOKENIZERS:
        raise InputError(f"tokenizer must be one of {TOKENIZERS}, got {value!r:.40}")
    return value


def checked_choice(name, value, choices):
    if value not in choices:
        raise InputError(f"{name} must be one of {list(choices)}, got {value!r:.40}")
    return value


def settings_of(preset="default", **options):
    """The library's settings for these options, its message as the page's."""
    try:
        return resolve_settings(preset, **options)
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None


def checked_segments(predictions, references):
    """The library's own check of the texts (valid Unicode), its message as the page's."""
    try:
        predictions, references, _ = check_inputs(predictions, references)
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None
    return predictions, reference_lists(references)


BOXES = ("Predictions", "References", "References (second set)", "References (third set)")


def boxes_used(texts):
    """(name, lines) of each text box a request uses: Predictions, References, and each further
    reference set that holds more than spaces."""
    return [(name, lines_of(text, name)) for name, text in zip(BOXES, texts)
            if name in BOXES[:2] or text.strip()]


class Job(NamedTuple):
    """A request's work, ``finish(function(*arguments))``, and its cost. The functions are the
    library's or builtins, so a worker process finds them by name."""

    function: Callable
    arguments: tuple
    cost: Cost
    finish: Callable = None  # for a result that is not plain data, such as explain's lazy sequence


def score_job(predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length,
              lowercase):
    """The job of scoring newline-separated predictions against one to three newline-separated
    reference sets, as the metric's compute (sentence scores and signature included), checked and
    priced; with the prediction lines and the first reference set's lines."""
    max_order, tokenizer = checked_max_order(max_order), checked_tokenizer(tokenizer)
    smoothing = checked_choice("smoothing", smoothing, SMOOTHING)
    texts = checked_size((predictions, references, references_2, references_3), COMMAND_LINE)
    (_, prediction_lines), *reference_boxes = boxes_used(texts)
    if not prediction_lines:
        raise InputError("Predictions is empty: give one prediction per line")
    for name, lines in reference_boxes:
        if len(lines) != len(prediction_lines):
            raise InputError(f"{name} has {len(lines):,} lines but Predictions has "
                             f"{len(prediction_lines):,}: give one reference per prediction, line by line")
    reference_sets = [lines for _, lines in reference_boxes]
    settings = settings_of(tokenizer=tokenizer, max_order=max_order, ref_length=ref_length, lowercase=lowercase,
                           sentence_level=True, signature=True, **SMOOTHING[smoothing])
    predictions_checked, references_checked = checked_segments(prediction_lines, list(map(list, zip(*reference_sets))))
    cost = checked_cost(cost_of(predictions_checked, references_checked, tokenizer, max_order), tokenizer)
    # One thread: two workers run requests side by side already. MAX_TOKENS again: the library's own guard.
    job = Job(api.result_of, (predictions_checked, references_checked, settings, api.Counting(None, 1, MAX_TOKENS)),
              cost)
    return job, prediction_lines, reference_sets[0]


def explain_job(predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length,
                lowercase, line):
    """The job of the metric's explain() of one line (0-based) of the page's texts, under the
    page's options: a line of at most MAX_EXPLAIN_TOKENS, so its page stays small."""
    max_order, tokenizer = checked_max_order(max_order), checked_tokenizer(tokenizer)
    smoothing = checked_choice("smoothing", smoothing, SMOOTHING)
    texts = checked_size((predictions, references, references_2, references_3), "explain a line in Python")
    lines = [these for _, these in boxes_used(texts)]
    if isinstance(line, bool) or not isinstance(line, int) or line < 0:
        raise InputError(f"the selected row must be a row of the table, got {line!r:.20}")
    if any(len(these) <= line for these in lines):
        raise InputError(f"there is no line {line + 1} in the texts now: compute again, then select a row")
    prediction, segment_references = lines[0][line], [these[line] for these in lines[1:]]
    settings = settings_of(tokenizer=tokenizer, max_order=max_order, ref_length=ref_length, lowercase=lowercase,
                           **SMOOTHING[smoothing])
    checked_segments([prediction], [segment_references])
    cost = cost_of([prediction], [segment_references], tokenizer, max_order)
    # explain() tokenizes and counts as scoring does, and makes a dict per n-gram of every order.
    cost = cost._replace(seconds=2 * cost.seconds + cost.tokens * max_order * EXPLAIN_PRICE)
    checked_cost(cost, tokenizer, MAX_EXPLAIN_TOKENS, f"line {line + 1} (its prediction and references)",
                 "explain longer lines in Python, with exactbleu.explain")
    return Job(api.explain_with, ([prediction], [segment_references], settings, api.Counting(None, 1, MAX_TOKENS)),
               cost, list)


def compare_job(baseline, system, references, tokenizer, test):
    """The job of sacrebleu's paired test of the second system against the baseline, checked and priced."""
    tokenizer, test = checked_tokenizer(tokenizer), checked_choice("test", test, PAIRED_TESTS)
    texts = checked_size((baseline, system, references), "compare big corpora with the command line (--paired-bs)")
    systems = {"baseline": lines_of(texts[0], "Baseline system"), "system": lines_of(texts[1], "Second system")}
    reference_lines = lines_of(texts[2], "References for both")
    for name, lines in (("Baseline system", systems["baseline"]), ("Second system", systems["system"])):
        if not lines:
            raise InputError(f"{name} is empty: give one prediction per line")
        if len(lines) != len(reference_lines):
            raise InputError(f"{name} has {len(lines):,} lines but References for both has {len(reference_lines):,}: "
                             f"give one reference per prediction, line by line")
    if len(reference_lines) > MAX_COMPARE_LINES:
        raise InputError(f"the comparison takes at most {MAX_COMPARE_LINES:,} lines; use the command line for more")
    settings = settings_of("sacrebleu", tokenizer=tokenizer)
    for lines in systems.values():
        checked_segments(lines, reference_lines)
    # Each system is counted against the references: they are tokenized twice.
    cost = cost_of(systems["baseline"] + systems["system"], [[reference] for reference in reference_lines] * 2,
                   tokenizer, settings.statistics.max_order)
    fixed, per_line = PAIRED_PRICES[test]
    cost = checked_cost(cost._replace(seconds=cost.seconds + fixed + per_line * len(reference_lines)), tokenizer)
    return Job(api.paired_test_with, (systems, reference_lines, None, test, None, 12345, settings,
                                      api.Counting(None, 1, MAX_TOKENS)), cost)


def run_here(job: Job):
    """The job's result, computed in this process; the library's message as the page's."""
    try:
        result = job.function(*job.arguments)
        return job.finish(result) if job.finish else result
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None


# Where the work runs: never in the server's process, whose one event loop serves every client
# (scoring there, in threads, took the GIL from it: 49 answers a second instead of 61 inline).
# A cheap job runs in one of LIGHT_AT_ONCE worker processes that stay up; a dear one in a worker
# of its own, started for it (so its memory goes with it), at low priority, so the server and the
# cheap jobs keep the CPU, one at a time, so two cores are never both taken by big requests. Either
# is killed as soon as its client goes away. In both lanes a waiting job's turn comes by its
# arrival, delayed by WAIT_PER_SECOND times its price: a big request waits behind smaller ones that
# came a little after it, but not for ever, and requests of about the same price go first come,
# first served.
LIGHT_AT_ONCE = 2
HEAVY_AT_ONCE = 1
HEAVY_WAITING = 8  # beyond these, a dear request is told the Space is busy
WAIT_PER_SECOND = 10
HEAVY_NICENESS = 10
POLL_SECONDS = 0.2  # how often a dear job checks that its client is still there


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


LIGHT = Lane(LIGHT_AT_ONCE)
HEAVY = Lane(HEAVY_AT_ONCE, HEAVY_WAITING)

# A worker reads pickled (function, arguments, finish) jobs on stdin, each after its length, and
# answers each with its pickled outcome, until stdin ends. PR_SET_PDEATHSIG kills it when the
# server thread that started it ends, even by SIGKILL: nothing outlives the server.
WORKER_PROGRAM = """
import ctypes, os, pickle, signal, struct, sys
if sys.platform.startswith("linux"):
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    if os.getppid() != int(sys.argv[1]):
        sys.exit("the server ended before this worker started")
os.nice(int(sys.argv[2]))
import exactbleu.api
jobs, answers = sys.stdin.buffer, sys.stdout.buffer
while len(header := jobs.read(8)) == 8:
    function, arguments, finish = pickle.loads(jobs.read(struct.unpack("<Q", header)[0]))
    try:
        result = function(*arguments)
        outcome = (True, finish(result) if finish else result)
    except (ValueError, TypeError) as error:
        outcome = (False, str(error))
    answer = pickle.dumps(outcome)
    answers.write(struct.pack("<Q", len(answer)) + answer)
    answers.flush()
"""
class Worker:
    """A worker process, and its pipes as streams of the event loop that uses it: no thread
    waits on them, so none takes the GIL from the loop."""

    def __init__(self, niceness: int):
        # Started in the event loop's thread (or before it runs, in the same thread), which lives as
        # long as the server: PR_SET_PDEATHSIG is bound to the thread that starts a process.
        self.niceness = niceness
        self.process = subprocess.Popen([sys.executable, "-c", WORKER_PROGRAM, str(os.getpid()), str(niceness)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=HERE)
        self.loop = self.reader = None
        self.transports = []  # the pipes' transports, which own them once made

    async def answer(self, job: Job) -> Optional[bytes]:
        """The worker's pickled outcome of the job; None if it ended first."""
        loop = asyncio.get_running_loop()
        if self.loop is None:
            self.loop, self.reader = loop, asyncio.StreamReader(limit=2**16)
            reading = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(self.reader), self.process.stdout)
            writing = await loop.connect_write_pipe(asyncio.Protocol, self.process.stdin)
            self.transports = [reading[0], writing[0]]
        data = pickle.dumps((job.function, job.arguments, job.finish))
        self.transports[1].write(struct.pack("<Q", len(data)) + data)
        try:
            return await self.reader.readexactly(struct.unpack("<Q", await self.reader.readexactly(8))[0])
        except (asyncio.IncompleteReadError, ConnectionError):
            return None

    def close_transports(self):
        # Each pipe must leave the loop before it is closed, or the loop goes on watching a file
        # descriptor that the next connection is given (seen: hung connections, FileNotFoundError
        # in the selector). Reading, close() does that at once; writing, only abort() does: close()
        # waits to write what it holds.
        for transport in self.transports:
            if isinstance(transport, asyncio.WriteTransport):
                transport.abort()
            else:
                transport.close()
        self.transports = []

    def end(self):
        with contextlib.suppress(OSError):
            self.process.kill()
        self.close_transports()
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                pipe.close()
        self.process.wait()


_idle_workers = {0: [], HEAVY_NICENESS: []}  # by niceness: up and waiting for a job


def idle_worker(niceness: int) -> Worker:
    """A worker ready for a job: an idle one if one is alive, else a new one."""
    idle = _idle_workers[niceness]
    while idle:
        worker = idle.pop()
        if worker.process.poll() is None and worker.loop in (None, asyncio.get_running_loop()):
            return worker
        worker.end()  # ended, or its pipes belong to another event loop
    return Worker(niceness)


async def in_worker(job: Job, niceness: int, request: Optional[gr.Request]):
    """The job's result, from a worker process. A cheap job's worker stays up for the next job; a
    dear job's ends with it (its memory goes with it; a spare one is started behind it). Either is
    killed if the request is cancelled, or (checked every POLL_SECONDS) its client goes away."""
    worker = idle_worker(niceness)
    if niceness:
        _idle_workers[niceness].append(Worker(niceness))  # starting takes 0.3 s: ready for the next job
    answering = asyncio.ensure_future(worker.answer(job))
    answer = None
    try:
        while not (await asyncio.wait({answering}, timeout=POLL_SECONDS))[0]:
            if niceness and abandoned(request):
                raise gr.Error("the client went away", print_exception=False)
        answer = answering.result()
    finally:
        if answer is not None and not niceness:
            _idle_workers[niceness].append(worker)
        else:  # a dear job's worker, or one that ended or whose answer is no longer wanted
            answering.cancel()
            worker.end()
    if answer is None:
        raise gr.Error("the worker scoring this request ended before it answered; try again", print_exception=False)
    succeeded, value = pickle.loads(answer)
    if not succeeded:
        raise InputError(value)
    return value


def abandoned(request: Optional[gr.Request]) -> bool:
    """Whether Gradio has given up on every running event of this request's session: it marks
    them not alive when the client's event stream closes. Gradio 6 has no public hook for this,
    so this reads its queue; tests/test_app.py checks that a disconnect kills the worker."""
    session = getattr(request, "session_hash", None)
    queue = getattr(demo, "_queue", None)
    if session is None or queue is None:
        return False
    events = [event for running in queue.active_jobs if running for event in running if event.session_hash == session]
    return bool(events) and not any(event.alive for event in events)


async def perform(job: Job, request: Optional[gr.Request] = None):
    """The job's result, run where its cost says (see LIGHT and HEAVY)."""
    light = job.cost.seconds <= LIGHT_SECONDS
    lane = LIGHT if light else HEAVY
    await lane.acquire(job.cost.seconds)
    try:
        return await in_worker(job, 0 if light else HEAVY_NICENESS, request)
    finally:
        lane.release()


async def checked(job_of, *arguments):
    """``job_of(*arguments)``, the request's job checked and priced: here for a small request, in a
    thread for a big one (checking 10 MB takes 0.2 s, which would hold up the event loop)."""
    if sum(len(argument) for argument in arguments if isinstance(argument, str)) < 100_000:
        return job_of(*arguments)
    return await asyncio.to_thread(job_of, *arguments)


@contextlib.contextmanager
def shown_as_message():
    """An input problem becomes a message the page or the client shows, not a stack trace."""
    try:
        yield
    except InputError as error:
        raise gr.Error(str(error), print_exception=False) from None


def score(predictions, references, references_2="", references_3="", tokenizer=DEFAULTS["tokenizer"],
          max_order=DEFAULTS["max_order"], smoothing="none", ref_length=DEFAULTS["ref_length"], lowercase=False):
    """Score newline-separated predictions against one to three newline-separated reference sets,
    in this process. Returns the metric's result dict, with per-sentence scores and the signature."""
    return run_here(score_job(predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
                              ref_length, lowercase)[0])


def explain_line(predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length,
                 lowercase, line):
    """The metric's explain() of one line (0-based) of the page's texts, in this process."""
    return run_here(explain_job(predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
                                ref_length, lowercase, line))[0]


async def compute(predictions: str, references: str, references_2: str = "", references_3: str = "",
                  tokenizer: str = DEFAULTS["tokenizer"], max_order: int = DEFAULTS["max_order"],
                  smoothing: str = "none", ref_length: str = DEFAULTS["ref_length"], lowercase: bool = False,
                  request: gr.Request = None) -> dict:
    """The API endpoint: the result dict, or an error message the client raises."""
    with shown_as_message():
        job = (await checked(score_job, predictions, references, references_2, references_3, tokenizer, max_order,
                             smoothing, ref_length, lowercase))[0]
        return await perform(job, request)


async def compute_for_page(predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
                           ref_length, lowercase, request: gr.Request):
    """The page's view of the result: score, JSON, precision chart, per-sentence table, signature."""
    with shown_as_message():
        job, prediction_lines, reference_lines = await checked(
            score_job, predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
            ref_length, lowercase)
        result = await perform(job, request)
    headline = (f"<div id='bleu-score' style='font-size:3em;font-weight:700'>BLEU = {100 * result['bleu']:.2f}</div>"
                f"<div>{result['translation_length']:,} prediction tokens, {result['reference_length']:,} "
                f"reference tokens</div>")
    chart = pd.DataFrame({
        "measure": [f"{n}-gram precision" for n in range(1, len(result["precisions"]) + 1)] + ["brevity penalty"],
        "value": list(result["precisions"]) + [result["brevity_penalty"]],
    })
    table = pd.DataFrame({
        "line": range(1, len(prediction_lines) + 1),
        "sentence BLEU": [round(100 * s, 2) for s in result["sentence_bleu"]],
        "prediction": prediction_lines,
        "reference": reference_lines,
    })
    summary = {key: value for key, value in result.items() if key != "sentence_bleu"}
    return headline, summary, chart, table, result["signature"]


async def compare(baseline: str, system: str, references: str, tokenizer: str = DEFAULTS["tokenizer"],
                  test: str = "bootstrap", request: gr.Request = None) -> dict:
    """The API endpoint /compare: sacrebleu's paired test of the second system against the baseline,
    ``{"baseline": {...}, "system": {...}}`` with "bleu", "p_value", "mean" and "ci" each."""
    with shown_as_message():
        job = await checked(compare_job, baseline, system, references, tokenizer, test)
        return await perform(job, request)


async def compare_for_page(baseline, system, references, tokenizer, test, request: gr.Request):
    """Both scores, their intervals and the p-value, with how to read them."""
    results = await compare(baseline, system, references, tokenizer, test, request)

    def line(label, result):
        text = f"{label}: BLEU {100 * result['bleu']:.2f}"
        if result["mean"] is not None:
            text += f" (resampled mean {100 * result['mean']:.2f} ± {100 * result['ci']:.2f})"
        return text

    p_value = results["system"]["p_value"]
    verdict = ("the difference is unlikely to be chance" if p_value < 0.05 else
               "the difference may well be chance")
    return (f"<div id='compare-result'><div>{line('Baseline', results['baseline'])}</div>"
            f"<div>{line('Second system', results['system'])}</div>"
            f"<div style='font-size:1.6em;font-weight:700'>p = {p_value:.4f}: {verdict}</div></div>"
            "<p>How to read this: the p-value is roughly the chance of a BLEU difference at least this large "
            "if the two systems were really the same; below 0.05 the difference is called significant. "
            "The ± is half the width of the 95% interval of each score over the resamples. A significant "
            "difference says the systems differ, not by how much it matters.</p>")


def matched_positions(tokens, order):
    """Which tokens a clipped match of this order covers: each n-gram's first min(count, most in
    one reference) occurrences match."""
    allowed = {tuple(g["ngram"]): min(g["count"], g["max_reference_count"]) for g in order["ngrams"]}
    covered = [False] * len(tokens)
    for start in range(len(tokens) - order["n"] + 1):
        ngram = tuple(tokens[start : start + order["n"]])
        if allowed.get(ngram, 0) > 0:
            allowed[ngram] -= 1
            covered[start : start + order["n"]] = [True] * order["n"]
    return covered


async def explain_for_page(predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
                           ref_length, lowercase, event: gr.SelectData, request: gr.Request):
    """A selected row of the per-sentence table, worked out: matched tokens per order, clipped
    counts, and the brevity penalty's arithmetic."""
    index = event.index
    line = index[0] if isinstance(index, (list, tuple)) and index else index
    with shown_as_message():
        job = await checked(explain_job, predictions, references, references_2, references_3, tokenizer, max_order,
                            smoothing, ref_length, lowercase, line)
        explained = (await perform(job, request))[0]
    tokens = explained["prediction_tokens"]
    parts = [f"<div id='explanation'><h3>Line {line + 1}: sentence BLEU {100 * explained['sentence_bleu']:.2f}</h3>"]
    for order in explained["orders"]:
        marks = "".join(
            f"<span class='{'matched' if hit else 'unmatched'}' style='padding:1px 4px;margin:1px;border-radius:3px;"
            f"background:{'#b7e4c7' if hit else '#eee'}'>{html.escape(token)}</span>"
            for token, hit in zip(tokens, matched_positions(tokens, order)))
        rows = "".join(
            f"<tr><td>{html.escape(' '.join(g['ngram']))}</td><td>{g['count']}</td><td>{g['max_reference_count']}</td>"
            f"<td>{min(g['count'], g['max_reference_count'])}</td></tr>" for g in order["ngrams"])
        parts.append(
            f"<details open><summary><b>{order['n']}-grams: {order['matches']} / {order['total']} clipped "
            f"matches</b></summary><div>{marks}</div><table class='clipped'><tr><th>n-gram</th><th>count</th>"
            f"<th>most in one reference</th><th>clipped</th></tr>{rows}</table></details>")
    c, r, bp = len(tokens), explained["reference_length"], explained["brevity_penalty"]
    if c == 0:
        arithmetic = f"c = 0 prediction tokens: BP = {bp:g}"
    elif c > r:
        arithmetic = f"c = {c} prediction tokens &gt; r = {r} reference tokens: BP = 1"
    else:
        arithmetic = f"c = {c} prediction tokens, r = {r} reference tokens: BP = exp(1 − r/c) = exp(1 − {r}/{c}) = {bp:.4f}"
    parts.append(f"<p id='brevity'><b>Brevity penalty</b> ({html.escape(str(ref_length))} reference): {arithmetic}</p>")
    return "".join(parts) + "</div>"


def read_upload(path):
    """The text of an uploaded .txt file, for its text box; the file is deleted once read, and the
    upload box emptied. Only a file in Gradio's upload folder is read (Gradio checks it too)."""
    if path is None:  # a file over MAX_BYTES never gets here: the server refuses it unstored
        return gr.update(), gr.update()
    folder = os.path.realpath(gr.utils.get_upload_folder())
    path = os.path.realpath(path)
    if os.path.commonpath([folder, path]) != folder:
        raise gr.Error("only a file uploaded here can be read", print_exception=False)
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except UnicodeDecodeError:
        raise gr.Error("the file is not UTF-8 text", print_exception=False) from None
    except OSError:
        raise gr.Error("the uploaded file is gone: upload it again", print_exception=False) from None
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)
        if os.path.dirname(path) != folder:
            with contextlib.suppress(OSError):  # Gradio's folder for this upload, if nothing else is in it
                os.rmdir(os.path.dirname(path))
    return text, None


class RequestSizeLimit:
    """ASGI middleware: a request whose body is over ``limit`` bytes gets 413 before the app reads
    any of it, by its Content-Length or, for a body sent in chunks, once the chunks pass the limit."""

    def __init__(self, app, limit):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if not length.isdigit() or int(length) > self.limit:
                return await self.refuse(send)
            return await self.app(scope, receive, send)
        messages, size = [], 0
        while True:  # no length given: read the chunks, up to the limit, then hand them on
            message = await receive()
            messages.append(message)
            size += len(message.get("body", b""))
            if size > self.limit:
                return await self.refuse(send)
            if message["type"] != "http.request" or not message.get("more_body"):
                break

        async def replay():
            return messages.pop(0) if messages else await receive()

        return await self.app(scope, replay, send)

    async def refuse(self, send):
        text = f"request body larger than {self.limit:,} bytes: the Space takes {MAX_BYTES // 1_000_000} MB of text"
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
        await send({"type": "http.response.body", "body": text.encode()})


# Connections: a client that opens connections and sends nothing, or its headers a byte at a time
# (slow-loris), would hold a file descriptor each, forever: 20,000 of them left no room for anyone.
HEADER_SECONDS = 5  # to send a request's headers, from the connection or the previous response
REQUEST_SECONDS = 60  # to send a whole request, body included (10 MB takes 0.8 s at 100 Mbit/s)
MAX_IDLE_CONNECTIONS = 256  # waiting for headers; a new one beyond closes the one waiting longest
MAX_CONNECTIONS = 4096  # uvicorn answers 503 beyond, well below the 20,000 file descriptors


class DeadlineProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with deadlines for what the client sends: a connection whose
    request has not arrived, headers within HEADER_SECONDS and all of it within REQUEST_SECONDS,
    is closed; and at most MAX_IDLE_CONNECTIONS wait for their headers at once."""

    idle = collections.OrderedDict()  # connection -> the request it had answered; oldest first

    def connection_made(self, transport):
        super().connection_made(transport)
        self.deadline = None
        self.await_request()

    def on_response_complete(self):
        super().on_response_complete()
        if not self.transport.is_closing() and self.cycle.response_complete:  # none pipelined behind it
            self.await_request()

    def connection_lost(self, exc):
        self.stop_waiting()
        super().connection_lost(exc)

    def await_request(self):
        self.stop_waiting()
        self.idle[self] = self.cycle
        while len(self.idle) > MAX_IDLE_CONNECTIONS:
            oldest, answered = self.idle.popitem(last=False)
            if oldest.cycle is answered:  # no request since: still idle
                oldest.transport.close()
        self.deadline = self.loop.call_later(HEADER_SECONDS, self.check_headers, self.cycle)

    def check_headers(self, answered):
        self.idle.pop(self, None)
        if self.cycle is answered:
            self.transport.close()
        else:
            self.deadline = self.loop.call_later(REQUEST_SECONDS - HEADER_SECONDS, self.check_body, self.cycle)

    def check_body(self, cycle):
        if self.cycle is cycle and cycle.more_body:
            self.transport.close()

    def stop_waiting(self):
        self.idle.pop(self, None)
        if self.deadline is not None:
            self.deadline.cancel()


# Every event that scores shares one limit, well above what runs at once (LIGHT and HEAVY decide
# that): a request waiting for its turn there holds no place in Gradio's queue.
WORK = {"concurrency_id": "work", "concurrency_limit": 64}
# Gradio keeps files it is given for a minute at most; an upload is deleted as soon as it is read.
with gr.Blocks(title="BLEU", delete_cache=(60, 60)) as demo:
    gr.Markdown(
        "# BLEU\nCorpus BLEU that returns exactly Hugging Face's `bleu` by default, and sacrebleu's or "
        "NLTK's numbers by option. One segment per line; references line up with the predictions."
    )
    with gr.Tab("Score"):
        with gr.Row():
            with gr.Column():
                predictions = gr.Textbox(label="Predictions", lines=6, value=EXAMPLE_PREDICTIONS)
                predictions_file = gr.File(label="Predictions file (.txt)", file_types=[".txt"], type="filepath")
                references = gr.Textbox(label="References", lines=6, value=EXAMPLE_REFERENCES)
                references_file = gr.File(label="References file (.txt)", file_types=[".txt"], type="filepath")
                with gr.Accordion("More reference sets", open=True):
                    references_2 = gr.Textbox(label="References (second set)", lines=4, value=EXAMPLE_REFERENCES_2)
                    references_2_file = gr.File(label="Second references file (.txt)", file_types=[".txt"], type="filepath")
                    references_3 = gr.Textbox(label="References (third set)", lines=4)
                    references_3_file = gr.File(label="Third references file (.txt)", file_types=[".txt"], type="filepath")
            with gr.Column():
                tokenizer = gr.Dropdown(TOKENIZERS, value=DEFAULTS["tokenizer"], label="Tokenizer")
                # The documented example: max order 2, both reference sets (BLEU 50.38 on the first click).
                max_order = gr.Slider(1, MAX_ORDER, value=2, step=1, label="Max n-gram order")
                smoothing = gr.Dropdown(list(SMOOTHING), value="none", label="Smoothing")
                ref_length = gr.Radio(REF_LENGTHS, value=DEFAULTS["ref_length"],
                                      label="Reference length (shortest: HF; closest: sacrebleu, NLTK)")
                lowercase = gr.Checkbox(label="Lowercase")
                button = gr.Button("Compute BLEU", variant="primary")
        headline = gr.HTML()
        with gr.Row():
            chart = gr.BarPlot(x="measure", y="value", label="n-gram precisions and brevity penalty", y_lim=[0, 1])
            summary = gr.JSON(label="Result")
        signature = gr.Textbox(label="Signature", interactive=False)
        table = gr.Dataframe(label="Per-sentence BLEU (select a row to see why; click a column to sort)",
                             interactive=False)
        explanation = gr.HTML()

        inputs = [predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length,
                  lowercase]
        button.click(compute_for_page, inputs, [headline, summary, chart, table, signature], api_visibility="private",
                     **WORK)
        table.select(explain_for_page, inputs, explanation, api_visibility="private", **WORK)
        for upload, box in ((predictions_file, predictions), (references_file, references),
                            (references_2_file, references_2), (references_3_file, references_3)):
            upload.upload(read_upload, upload, [box, upload], api_visibility="private")
        gr.Examples([[EXAMPLE_PREDICTIONS, EXAMPLE_REFERENCES, EXAMPLE_REFERENCES_2, "", DEFAULTS["tokenizer"], 2, "none", DEFAULTS["ref_length"],
                      False]], inputs, label="The Transformers example (max order 2)")
    with gr.Tab("Compare systems"):
        gr.Markdown(
            "Is the second system really better? Paired bootstrap resampling (or approximate randomization) "
            "of the two systems on the same references, exactly as sacrebleu's `--paired-bs` (`--paired-ar`) "
            "computes it, in sacrebleu's convention."
        )
        with gr.Row():
            with gr.Column():
                baseline_box = gr.Textbox(label="Baseline system", lines=5, value=EXAMPLE_PREDICTIONS)
                system_box = gr.Textbox(label="Second system", lines=5, value=EXAMPLE_SYSTEM_B)
                compare_references = gr.Textbox(label="References for both", lines=5, value=EXAMPLE_REFERENCES)
            with gr.Column():
                compare_tokenizer = gr.Dropdown(TOKENIZERS, value=DEFAULTS["tokenizer"], label="Tokenizer (both)")
                test = gr.Radio(list(PAIRED_TESTS), value="bootstrap", label="Test")
                compare_button = gr.Button("Compare", variant="primary")
        comparison = gr.HTML()
        compare_button.click(compare_for_page, [baseline_box, system_box, compare_references, compare_tokenizer, test],
                             comparison, api_visibility="private", **WORK)
    gr.api(compute, api_name="compute", **WORK)
    gr.api(compare, api_name="compare", **WORK)


def serve():
    """Serve the Space on GRADIO_SERVER_NAME:GRADIO_SERVER_PORT, with uvicorn configured here (see
    DeadlineProtocol): Gradio's launch() gives no say over the connections. Until Ctrl-C or SIGTERM."""
    # Gradio sums up its last 10,000 events with pandas after every event, for its monitoring page:
    # 3 ms of the server's GIL a request. Every 1,000 events is enough.
    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "1000")
    demo.queue(default_concurrency_limit=8, max_size=QUEUE_SIZE)
    # show_error=False: an unexpected error says "Error", never its text, which may hold a path.
    server_app = gr.mount_gradio_app(FastAPI(middleware=[Middleware(RequestSizeLimit, limit=MAX_REQUEST_BYTES)]),
                                     demo, path="/", max_file_size=MAX_BYTES, show_error=False)
    host, port = os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"), int(os.environ.get("GRADIO_SERVER_PORT", "7860"))
    config = uvicorn.Config(server_app, host=host, port=port, http=DeadlineProtocol, timeout_keep_alive=HEADER_SECONDS,
                            limit_concurrency=MAX_CONNECTIONS, log_level="warning")
    for niceness, count in ((0, LIGHT_AT_ONCE), (HEAVY_NICENESS, 1)):  # from this thread, which serves to the end
        _idle_workers[niceness] += [Worker(niceness) for _ in range(count)]
    print(f"Serving the BLEU Space on http://{host}:{port}", flush=True)
    uvicorn.Server(config).run()


if __name__ == "__main__":
    serve()
