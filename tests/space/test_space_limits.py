"""What keeps one user from starving the others: requests and uploads bounded and refused unread,
the worst request within the limits bounded, work stopped when its client leaves, workers that die
with the server, idle and slow connections closed, uploads removed once read, and the load
benchmark's smoke run."""

import ast
import contextlib
import json
import os
import pathlib
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

import pytest

from conftest import ROOT, start_space

from space import pricing, server as server_settings
from space import requests as space
from space_helpers import (DEAR_MOSES_REQUEST, PREDICTIONS, REFERENCES, REFERENCES_2, TRANSFORMERS_BLEU,
                           alive, clock_ticks, cpu_seconds, descendants, file_data,
                           largest_taken, peak_memory_mb, post, queued_event, raw_event, reset_peak_memory_mb,
                           seconds_until_idle, upload, wait_for_work)

pytestmark = pytest.mark.slow  # Space server processes under abuse


def test_oversized_requests_and_uploads_are_refused_unread_and_the_server_stays_up(space_client, space_server, space_uploads):
    url, process = space_server
    space_client.predict(PREDICTIONS, REFERENCES, api_name="/compute")
    before = reset_peak_memory_mb(process.pid)
    # A body that says it is 300 MB: refused on its Content-Length, before any of it is read.
    status, text = post(url, "/gradio_api/call/compute", b"{" + b" " * 100_000,
                        {"Content-Type": "application/json", "Content-Length": "300000000"})
    assert status == 413 and "larger than" in text
    # A body sent in chunks, with no length: refused once it passes the limit.
    chunks = (b"{\"data\": [\"" + b"x" * 1_000_000 if number == 0 else b"x" * 1_000_000 for number in range(30))
    status, _ = post(url, "/gradio_api/call/compute", chunks, {"Content-Type": "application/json"})
    assert status == 413
    # An upload between the request limit and the file limit: Gradio's max_file_size refuses it.
    boundary = "bleu-test-boundary"
    upload = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.txt\"\r\n"
              f"Content-Type: text/plain\r\n\r\n").encode() + b"a\n" * (space.MAX_BYTES // 2 + 200_000) + \
             f"\r\n--{boundary}--\r\n".encode()
    assert space.MAX_BYTES < len(upload) < server_settings.MAX_REQUEST_BYTES
    status, _ = post(url, "/gradio_api/upload", upload, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 413
    stored = [path for path in space_uploads.rglob("*") if path.is_file() and path.stat().st_size > 1_000_000]
    assert stored == []
    assert peak_memory_mb(process.pid) - before < 100  # nothing big was parsed
    assert process.poll() is None
    assert space_client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


def test_the_worst_request_within_the_limits_is_bounded(space_client, space_server):
    """One line each side, every character a token (tokenizer char), max order 8, no n-gram fitting
    a packed key: the definition's path. The largest line the Space takes scores, exactly, in a
    worker whose memory is its own; one more character is a message."""
    from gradio_client.exceptions import AppError

    url, process = space_server
    rng = random.Random(12)
    text = "".join(chr(rng.randint(33, 126)) for _ in range(pricing.MAX_TOKENS // 2))
    size = largest_taken(lambda size: (text[:size], text[:size], "", "", "char", 8, "none", "shortest", False),
                         len(text))
    assert size > 50_000
    line = text[:size]
    before = reset_peak_memory_mb(process.pid)
    result = space_client.predict(line, line, "", "", "char", 8, api_name="/compute")
    assert result["bleu"] == 1.0 and result["translation_length"] == len(line)
    assert peak_memory_mb(process.pid) - before < 100  # the work ran in a worker process
    with pytest.raises(AppError, match="would take up to"):
        space_client.predict(text[: size + 1], text[: size + 1], "", "", "char", 8, api_name="/compute")
    with pytest.raises(AppError, match="more than the 1,000,000"):
        space_client.predict(text + "abcdefghijklmnopqrstu", text, "", "", "char", 1, api_name="/compute")
    assert space_client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


# A client that reads its request's outcome as a browser does, and says when the work has begun. A
# client that leaves before it opens its stream is not this test's: Gradio cannot tell that it left.
LEAVING_CLIENT = f"""
import json, sys
sys.path[:0] = [{str(ROOT / "tests" / "space")!r}]
from queue_events import event_messages
for message in event_messages(sys.argv[1], json.load(open(sys.argv[2]))):
    if message.get("msg") == "process_starts":
        print("reading", flush=True)
"""


# A dear request of about 2 s of sacremoses: the server notices a client that left within half a
# second, so a longer one (DEAR_MOSES_REQUEST takes 7 s, as sacremoses' time grows faster than its
# line) would show no more, at three times the CPU.
LEAVING_REQUEST = ["1.2. " * 600, "1.2. " * 600, *DEAR_MOSES_REQUEST[2:]]


def test_work_for_a_client_that_leaves_stops(space_client, space_server, tmp_path):
    """Work nobody waits for starves those who do. A dear request runs in a worker process that is
    killed when its client's connection closes, or when the client cancels: the server is idle long
    before the request would have ended."""
    url, process = space_server
    arguments = LEAVING_REQUEST
    seconds_until_idle(process.pid, time.time())  # the server is shared: what came before is not timed
    started = time.time()
    space_client.predict(*arguments, api_name="/compute")
    whole = time.time() - started  # what the request takes when its client waits
    seconds_until_idle(process.pid, time.time())
    # The client's process dies while it reads the request's event stream: its connections close.
    (tmp_path / "event.json").write_text(json.dumps(queued_event(url, "compute", arguments)))
    # The worker a request starts as the next one's spare is not that request's work: under load,
    # at low priority, its start can take longer than the request.
    before, born = cpu_seconds(process.pid), clock_ticks()
    leaving = subprocess.Popen([sys.executable, "-c", LEAVING_CLIENT, url, str(tmp_path / "event.json")],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert leaving.stdout.readline() == "reading\n"  # its stream is open: Gradio sees it close
        wait_for_work(process.pid, before)
    finally:
        leaving.kill()
        leaving.wait()
        leaving.stdout.close()
    after_disconnect = seconds_until_idle(process.pid, time.time(), born)
    # The client cancels.
    before, born = cpu_seconds(process.pid), clock_ticks()
    job = space_client.submit(*arguments, api_name="/compute")
    wait_for_work(process.pid, before)
    job.cancel()
    after_cancel = seconds_until_idle(process.pid, time.time(), born)
    print(f"the request takes {whole:.2f} s; idle {after_disconnect:.2f} s after its client left, "
          f"{after_cancel:.2f} s after it cancelled")
    assert after_disconnect < whole / 2 and after_cancel < whole / 2, (whole, after_disconnect, after_cancel)
    assert process.poll() is None
    assert space_client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


def test_workers_end_with_the_server(tmp_path):
    """Nothing outlives the server: killed mid-request, by SIGKILL, it leaves no worker behind."""
    from gradio_client import Client

    with start_space(tmp_path) as (url, process):
        job = Client(url, verbose=False).submit(*DEAR_MOSES_REQUEST, api_name="/compute")
        wait_for_work(process.pid, cpu_seconds(process.pid))
        started = descendants(process.pid)
        assert started, "the request runs in a worker process"
        process.kill()
        process.wait()
        deadline = time.time() + 10
        while time.time() < deadline and any(alive(pid) for pid in started):
            time.sleep(0.1)
        assert not [pid for pid in started if alive(pid)]
        with contextlib.suppress(Exception):
            job.cancel()


def test_explain_on_the_page_has_its_own_limit_through_its_raw_event(space_server):
    """Selecting a row runs explain, and a client can call that event raw with anything (450k tokens
    a side would take 294 s, 677 MB of HTML and 7 GB). A line the page cannot show gets a message
    before any work; the largest it shows makes a small page."""
    url, process = space_server
    words = " ".join(f"w{number}" for number in range(200))  # 200 tokens, 1,090 characters but spaces
    with pytest.raises(pricing.InputError, match="line 1 .* more than the 1,000 the Space takes"):
        space.explain_line(words, words, "", "", "13a", 4, "none", "shortest", False, 0)
    before = reset_peak_memory_mb(process.pid)
    huge = "x " * 450_000
    page = ["fine\n" + huge, "fine\n" + huge, "", "", "13a", 8, "none", "shortest", False]
    message = raw_event(url, "explain_for_page", page, {"index": [1, 1], "value": ""})
    assert not message["success"] and "line 2" in message["output"]["error"]
    assert "more than the 1,000" in message["output"]["error"]
    assert peak_memory_mb(process.pid) - before < 200
    message = raw_event(url, "explain_for_page", page, {"index": [0, 1], "value": ""})
    assert message["success"] and "sentence BLEU 0.00" in message["output"]["data"][0]
    widest = "x " * 250 + "y " * 249  # 499 tokens a side: just within the limit
    message = raw_event(url, "explain_for_page", [widest, widest, "", "", "13a", 8, "none", "shortest", False],
                        {"index": [0, 1], "value": ""})
    assert message["success"] and len(message["output"]["data"][0]) < 1_000_000
    assert "sentence BLEU 100.00" in message["output"]["data"][0]
    # The page's scoring event, raw, has the API's limits.
    message = raw_event(url, "compute_for_page", ["1.2. " * 32_000, "1.2. " * 32_000, "", "", "moses", 4, "none",
                                                  "shortest", False])
    assert not message["success"] and "would take up to" in message["output"]["error"]


def test_idle_and_slow_connections_are_closed_and_new_clients_served(space_client, space_server):
    """Idle connections left open use up the file descriptors (20,000 did), and then new clients
    time out. A connection must send its headers within a few seconds, and no more than the
    server's MAX_IDLE_CONNECTIONS wait at once: 600 idle sockets and 3 sending their headers a byte
    at a time are all closed by the server, and a new client is served meanwhile."""
    url, process = space_server
    address = (urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port)
    idle = [socket.create_connection(address) for _ in range(600)]
    slow = [socket.create_connection(address) for _ in range(3)]
    try:
        opened = time.time()
        result = space_client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")
        assert result["bleu"] == TRANSFORMERS_BLEU
        request = b"GET /config HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 1000
        closed, sent = set(), 0
        while time.time() - opened < 12 and len(closed) < len(idle) + len(slow):
            for connection in slow:
                if connection not in closed:
                    with contextlib.suppress(OSError):
                        connection.send(request[sent : sent + 1])
            sent += 1
            for connection in idle + slow:
                if connection not in closed:
                    connection.setblocking(False)
                    try:
                        if connection.recv(1) == b"":
                            closed.add(connection)
                    except BlockingIOError:
                        pass
                    except OSError:
                        closed.add(connection)
            time.sleep(0.1)
        print(f"{len(closed)} of {len(idle) + len(slow)} connections closed by the server within "
              f"{time.time() - opened:.1f} s")
        assert len(closed) == len(idle) + len(slow), f"{len(closed)} of {len(idle) + len(slow)} closed"
        assert all(connection in closed for connection in slow)
    finally:
        for connection in idle + slow:
            connection.close()
    assert space_client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


def test_uploads_are_deleted_once_read_and_only_uploads_are_read(space_server, space_uploads):
    """Anonymous uploads of up to 10 MB would fill the disk if kept (20 make 189 MB). The upload
    event reads the file into its box and deletes it; a path that is not an upload is refused and
    left alone; Gradio's own copies are swept after a minute (delete_cache)."""
    url, _ = space_server
    text = "ein Satz\nnoch einer\n"
    path = upload(url, "predictions.txt", text.encode())
    assert pathlib.Path(path).is_file() and pathlib.Path(path).is_relative_to(space_uploads)
    message = raw_event(url, "read_upload", [file_data(path)])
    assert message["success"] and message["output"]["data"][0] == text
    assert not pathlib.Path(path).exists() and not pathlib.Path(path).parent.exists()
    outside = ROOT / "README.md"
    message = raw_event(url, "read_upload", [file_data(str(outside))])
    assert not message["success"] and outside.is_file()
    # Read from the page's source, not from the page: building it loads Gradio, 5 s of CPU.
    page = ast.parse((ROOT / "space" / "page.py").read_text(encoding="utf-8"))
    kept = [ast.literal_eval(keyword.value) for call in ast.walk(page)
            if isinstance(call, ast.Call) and ast.unparse(call.func) == "gr.Blocks"
            for keyword in call.keywords if keyword.arg == "delete_cache"]
    assert kept == [(60, 60)]
    stored = [entry for entry in space_uploads.rglob("*") if entry.is_file() and entry.name == "predictions.txt"]
    assert stored == []


def test_the_load_benchmark_runs(tmp_path):
    """benchmarks/load.py in its tiny smoke run: it starts the Space, measures 2 users alone and
    attacked, finds every answer right, and leaves no process behind."""
    script = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "load.py"), "--smoke"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = set()

    def watch():
        while script.poll() is None:
            seen.update(descendants(script.pid))
            time.sleep(0.5)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        output, errors = script.communicate(timeout=300)
    finally:
        if script.poll() is None:  # it hung: end it and everything it started
            os.killpg(script.pid, signal.SIGKILL)
            script.wait()
    watcher.join()
    assert script.returncode == 0, errors[-3000:]
    assert "| users | 8 attackers | requests |" in output
    rows = [line.split("|") for line in output.splitlines() if line.startswith("| 2 |")]
    assert len(rows) == 2 and all(int(row[3]) > 0 and row[8].strip() == "0" for row in rows), output
    # The kernel ends the workers as the server ends (PR_SET_PDEATHSIG): that takes a moment, no more.
    deadline = time.time() + 10
    while time.time() < deadline and any(alive(pid) for pid in seen):
        time.sleep(0.05)
    assert not [pid for pid in seen if alive(pid)], "a process outlived the benchmark"
