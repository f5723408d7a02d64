"""What the Space's tests share: the documented example, the metric's own results for the page's
texts, and probes of the server's processes, memory and connections."""

import contextlib
import functools
import http.client
import json
import os
import pathlib
import re
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import uuid

import pytest

from conftest import ROOT
from queue_events import event_messages

from space import pricing
from space import requests as space


PREDICTIONS = space.EXAMPLE_PREDICTIONS
REFERENCES = space.EXAMPLE_REFERENCES
REFERENCES_2 = space.EXAMPLE_REFERENCES_2
TRANSFORMERS_BLEU = 0.5037930378757725  # the documented example, max_order=2


def metric_result(predictions, references, max_order=4, tokenizer="13a", **options):
    """The evaluate metric's result for the page's texts: what the Space must answer."""
    import evaluate

    from conftest import METRIC_PATH

    sets = [text.split("\n") for text in references]
    return evaluate.load(METRIC_PATH).compute(
        predictions=predictions.split("\n"), references=[list(segment) for segment in zip(*sets)],
        max_order=max_order, tokenizer=tokenizer, sentence_level=True, signature=True, **options)


def peak_memory_mb(pid):
    """A process's peak resident memory so far (VmHWM), in MB."""
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) / 1024


def reset_peak_memory_mb(pid):
    """Forget a process's peak resident memory so far and return the new one, its resident memory
    now (Linux resets VmHWM when "5" is written to clear_refs): the peak read after is what came
    since, whatever the server, shared by a session's tests, did for earlier ones."""
    pathlib.Path(f"/proc/{pid}/clear_refs").write_text("5")
    return peak_memory_mb(pid)


def post(url, path, body, headers):
    """POST raw bytes (or an iterable of chunks, sent chunked) and return (status, text); a server
    that refuses the body may close the connection while it is still being sent."""
    connection = http.client.HTTPConnection(urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port,
                                            timeout=120)
    try:
        try:
            connection.request("POST", path, body=body, headers=headers, encode_chunked=not isinstance(body, bytes))
        except (BrokenPipeError, ConnectionResetError):
            pass
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def largest_taken(make, high):
    """The largest size up to ``high`` for which the Space takes the request ``make(size)``."""
    low = 1
    while low < high:
        middle = (low + high + 1) // 2
        try:
            space.score_job(space.PageInputs.checked(*make(middle)))
            low = middle
        except pricing.InputError:
            high = middle - 1
    return low


def metric_paired_test(baseline, system, references, test="bootstrap"):
    """The evaluate metric's paired test of the page's texts, in sacrebleu's convention."""
    import evaluate

    from conftest import METRIC_PATH

    return evaluate.load(METRIC_PATH, "sacrebleu").paired_test(
        {"baseline": baseline.split("\n"), "system": system.split("\n")}, references.split("\n"), test=test)


def descendants(pid):
    """The processes started by ``pid``, and theirs, from /proc."""
    children = {}
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        started = children.get(todo.pop(), [])
        found += started
        todo += started
    return found


def clock_ticks():
    """Now, in clock ticks since boot: the unit of a process's start time in /proc."""
    return float(pathlib.Path("/proc/uptime").read_text().split()[0]) * os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid, born_before=None):
    """CPU time of ``pid``, its reaped children and every live descendant; with ``born_before`` (in
    clock ticks since boot), only of the descendants started before then: a spare worker that a
    request started is not that request's work."""
    total = 0
    for number, process in enumerate([pid, *descendants(pid)]):
        with contextlib.suppress(OSError):
            fields = pathlib.Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
            if number and born_before is not None and int(fields[19]) > born_before:
                continue
            total += sum(map(int, fields[11:15] if number == 0 else fields[11:13]))
    return total / os.sysconf("SC_CLK_TCK")


def seconds_until_idle(pid, started, born_before=None):
    """Seconds from ``started`` until the process tree (see ``cpu_seconds``) uses under 15% of a
    core for 0.4 s."""
    while time.time() - started < 120:
        before, at = cpu_seconds(pid, born_before), time.time()
        time.sleep(0.4)
        if cpu_seconds(pid, born_before) - before < 0.06:
            return at - started
    return float("inf")


def wait_for_work(pid, before, cpu=0.5):
    deadline = time.time() + 60
    while cpu_seconds(pid) - before < cpu:
        assert time.time() < deadline, "the request never started"
        time.sleep(0.05)


# Seconds of sacremoses (1 ms a token ending in a period), within the Space's limits.
DEAR_MOSES_REQUEST = ["1.2. " * 1_000, "1.2. " * 1_000, "", "", "moses", 4, "none", "shortest", False]


def alive(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@functools.cache
def event_indexes(url):
    """{name: index} of the page's events, from the server's config, as a browser finds them. Not
    from the page itself: importing it loads Gradio, 5 s of a test process's CPU."""
    with urllib.request.urlopen(url + "config", timeout=60) as response:
        dependencies = json.load(response)["dependencies"]
    indexes = {}
    for event in dependencies:
        indexes.setdefault(event["api_name"], event["id"])
    return indexes


def queued_event(url, name, data, event_data=None):
    """The body with which a browser puts a page event on Gradio's queue, under a session of its
    own: it then reads the outcome from the session's event stream."""
    return {"data": data, "event_data": event_data, "fn_index": event_indexes(url)[name], "trigger_id": None,
            "session_hash": uuid.uuid4().hex}


def raw_event(url, name, data, event_data=None):
    """A page event called as a raw queue request, as a browser (or an attacker) sends it; the
    outcome message: {"success": ..., "output": ...}."""
    for message in event_messages(url, queued_event(url, name, data, event_data)):
        if message.get("msg") == "process_completed":
            return message
    pytest.fail("the event never completed")


def upload(url, name, content):
    """A file uploaded as the page uploads it: its path on the server."""
    import httpx

    response = httpx.post(url + "gradio_api/upload", files={"files": (name, content, "text/plain")}, timeout=60)
    response.raise_for_status()
    return response.json()[0]


def file_data(path, name="a.txt"):
    return {"path": path, "url": None, "size": None, "orig_name": name, "mime_type": None, "is_stream": False,
            "meta": {"_type": "gradio.FileData"}}


def assert_no_server_path(message):
    for secret in (os.path.expanduser("~"), str(ROOT), tempfile.gettempdir(), ".sacrebleu", sys.prefix, "/models/"):
        assert secret not in message, message
    assert not re.search(r"(^|[\s'\"(=])/[\w.]", message), message
