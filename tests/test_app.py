"""The Space: its scoring function, its API through gradio_client with concurrent clients and
oversize requests, the page in a real browser (Debian's Chromium through Playwright), and what
issue 31's attack found: dear requests priced and refused before any tokenizing, work stopped
when its client leaves, explain's own limit through the page's raw event, idle and slow
connections closed, uploads deleted, no hidden tokenizer and no server path in a message, no
evaluate.load per request, and the load benchmark's smoke run."""

import concurrent.futures
import contextlib
import http.client
import json
import os
import pathlib
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

import pytest

from conftest import ROOT

from space import page as ui  # noqa: E402
from space import pricing, server as space_server  # noqa: E402
from space import requests as space  # noqa: E402

PREDICTIONS = ui.EXAMPLE_PREDICTIONS
REFERENCES = ui.EXAMPLE_REFERENCES
REFERENCES_2 = ui.EXAMPLE_REFERENCES_2
TRANSFORMERS_BLEU = 0.5037930378757725  # the documented example, max_order=2


def test_score_is_the_metric_with_the_example_prefilled():
    result = space.score(PREDICTIONS, REFERENCES, REFERENCES_2, max_order=2)
    assert result["bleu"] == TRANSFORMERS_BLEU
    assert len(result["sentence_bleu"]) == 3 and result["signature"].startswith("nrefs:2|")


@pytest.mark.parametrize("arguments, words", [
    ((PREDICTIONS, "one line"), ["References has 1 lines", "Predictions has 3"]),
    (("", REFERENCES), ["Predictions is empty"]),
    (("x\n" * (space.MAX_LINES + 1), "x\n" * (space.MAX_LINES + 1)), ["at most 100,000"]),
    (("x" * (space.MAX_BYTES + 1), "x"), ["larger than 10 MB"]),
    (("ok\nbad \udc80", "ok\nbad"), ["predictions[1]", "not valid Unicode"]),
])
def test_input_errors_are_messages(arguments, words):
    with pytest.raises(pricing.InputError) as raised:
        space.score(*arguments)
    for word in words:
        assert word in str(raised.value)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def uploads(tmp_path_factory):
    return tmp_path_factory.mktemp("gradio-uploads")


@contextlib.contextmanager
def start_space(uploads):
    """app.py served as a user would start it, on a free local port: (url, process)."""
    port = free_port()
    env = dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port), GRADIO_TEMP_DIR=str(uploads),
               GRADIO_ANALYTICS_ENABLED="False", HF_EVALUATE_OFFLINE="1", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    log = tempfile.TemporaryFile("w+")  # not a pipe, which a chatty server could fill and block on
    process = subprocess.Popen([sys.executable, str(ROOT / "app.py")], env=env, cwd=ROOT, stdout=log,
                               stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None:
                    log.seek(0)
                    pytest.fail(f"app.py exited: {log.read()[-3000:]}")
                time.sleep(0.5)
        else:
            pytest.fail("app.py did not start listening within 120 s")
        yield f"http://127.0.0.1:{port}/", process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module")
def server(uploads):
    with start_space(uploads) as served:
        yield served


@pytest.fixture(scope="module")
def client(server):
    from gradio_client import Client

    return Client(server[0], verbose=False)


def metric_result(predictions, references, max_order=4, tokenizer="13a", **options):
    """The evaluate metric's result for the page's texts: what the Space must answer."""
    import evaluate

    from conftest import METRIC_PATH

    sets = [text.split("\n") for text in references]
    return evaluate.load(METRIC_PATH).compute(
        predictions=predictions.split("\n"), references=[list(segment) for segment in zip(*sets)],
        max_order=max_order, tokenizer=tokenizer, sentence_level=True, signature=True, **options)


def test_api_compute_is_the_metric(client):
    assert client.predict(PREDICTIONS, REFERENCES, api_name="/compute") == metric_result(PREDICTIONS, [REFERENCES])
    result = client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "intl", 3, "floor (sacrebleu)", "closest", True,
                            api_name="/compute")
    assert result == metric_result(PREDICTIONS, [REFERENCES, REFERENCES_2], 3, "intl", smooth_method="floor",
                                   ref_length="closest", lowercase=True)


def test_api_errors_are_messages_and_the_server_stays_up(client, server):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="References has 1 lines"):
        client.predict(PREDICTIONS, "just one line", api_name="/compute")
    with pytest.raises(AppError, match="at most 100,000"):
        client.predict("x\n" * (space.MAX_LINES + 1), "x\n" * (space.MAX_LINES + 1), api_name="/compute")
    with pytest.raises(AppError, match="larger than 10 MB"):
        client.predict("x" * (space.MAX_BYTES + 1), "x", api_name="/compute")
    with pytest.raises(AppError, match="larger than 10 MB together"):
        client.predict("x" * (space.MAX_BYTES // 2), "x" * (space.MAX_BYTES // 2 + 1), api_name="/compute")
    assert server[1].poll() is None
    assert client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


@pytest.mark.parametrize("max_order", [0, 9, 2.7, "x", 10**9, True])
def test_api_max_order_outside_the_page_range_is_a_message_at_once(client, server, max_order):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="max_order must be a whole number from 1 to 8"):
        client.predict(PREDICTIONS, REFERENCES, "", "", "13a", max_order, api_name="/compute")
    assert client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2.0, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


def peak_memory_mb(pid):
    """A process's peak resident memory so far (VmHWM), in MB."""
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) / 1024


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


def test_oversized_requests_and_uploads_are_refused_unread_and_the_server_stays_up(client, server, uploads):
    url, process = server
    client.predict(PREDICTIONS, REFERENCES, api_name="/compute")
    before = peak_memory_mb(process.pid)
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
    assert space.MAX_BYTES < len(upload) < space_server.MAX_REQUEST_BYTES
    status, _ = post(url, "/gradio_api/upload", upload, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 413
    stored = [path for path in uploads.rglob("*") if path.is_file() and path.stat().st_size > 1_000_000]
    assert stored == []
    assert peak_memory_mb(process.pid) - before < 100  # nothing big was parsed
    assert process.poll() is None
    assert client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


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


def test_the_worst_request_within_the_limits_is_bounded(client, server):
    """One line each side, every character a token (tokenizer char), max order 8, no n-gram fitting
    a packed key: the definition's path. The largest line the Space takes scores, exactly, in a
    worker whose memory is its own; one more character is a message."""
    from gradio_client.exceptions import AppError

    url, process = server
    rng = random.Random(12)
    text = "".join(chr(rng.randint(33, 126)) for _ in range(pricing.MAX_TOKENS // 2))
    size = largest_taken(lambda size: (text[:size], text[:size], "", "", "char", 8, "none", "shortest", False),
                         len(text))
    assert size > 50_000
    line = text[:size]
    before = peak_memory_mb(process.pid)
    result = client.predict(line, line, "", "", "char", 8, api_name="/compute")
    assert result["bleu"] == 1.0 and result["translation_length"] == len(line)
    assert peak_memory_mb(process.pid) - before < 100  # the work ran in a worker process
    with pytest.raises(AppError, match="would take up to"):
        client.predict(text[: size + 1], text[: size + 1], "", "", "char", 8, api_name="/compute")
    with pytest.raises(AppError, match="more than the 1,000,000"):
        client.predict(text + "abcdefghijklmnopqrstu", text, "", "", "char", 1, api_name="/compute")
    assert client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


def test_eight_concurrent_clients_get_their_own_results(client):
    corpora = [(f"the cat sat on mat {i}\nsomething {i} else", f"the cat sat on the mat {i}\nsomething else") for i in range(8)]
    expected = [metric_result(p, [r], max_order=2 + i % 3) for i, (p, r) in enumerate(corpora)]
    with concurrent.futures.ThreadPoolExecutor(9) as pool:
        futures = [pool.submit(client.predict, p, r, "", "", "13a", 2 + i % 3, api_name="/compute")
                   for i, (p, r) in enumerate(corpora)]
        failing = pool.submit(client.predict, "one\ntwo", "just one", api_name="/compute")  # among them
        results = [future.result(timeout=120) for future in futures]
        with pytest.raises(Exception, match="References has 1 lines"):
            failing.result(timeout=120)
    assert results == expected


def chromium():
    path = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install Chromium (apt-get install -y chromium) for the browser test")
        pytest.skip("the browser test needs Chromium: install Debian's with `apt-get install -y chromium` "
                    "(as .ci/run does), then run the tests again")
    return path


SCREENSHOTS = ROOT / "screenshots"


@contextlib.contextmanager
def space_page(url, height, width=1300):
    """The Space at ``url`` in headless Chromium, 1300 pixels wide; the browser closes after."""
    executable = chromium()
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(url, timeout=60_000)
            yield page
        finally:
            browser.close()


def test_page_in_a_real_browser(server, tmp_path):
    from playwright.sync_api import expect

    with space_page(server[0], 1600) as page:
        # The first click, with nothing typed: the documented example, both reference sets (the
        # second folded away, prefilled).
        expect(page.get_by_role("button", name="Compute BLEU")).to_be_visible(timeout=30_000)
        page.get_by_role("button", name="Compute BLEU").click()
        score = page.locator("#bleu-score")
        expect(score).to_contain_text("BLEU = 50.38", timeout=60_000)
        assert f"{100 * TRANSFORMERS_BLEU:.2f}" == "50.38"
        page.screenshot(path=str(SCREENSHOTS / "first-click.png"), full_page=True)
        page.get_by_label("Predictions", exact=True).fill("the cat sat on the mat\nhello world")
        page.get_by_label("References", exact=True).fill("the cat sat on the mat\nhello there world")
        page.get_by_text("More reference sets, and files").click()
        page.get_by_label("References (second set)", exact=True).fill("")
        page.get_by_role("button", name="Compute BLEU").click()
        expected = space.score("the cat sat on the mat\nhello world", "the cat sat on the mat\nhello there world", max_order=2)
        expect(score).to_contain_text(f"BLEU = {100 * expected['bleu']:.2f}", timeout=60_000)
        # The per-sentence table and the precisions render.
        expect(page.get_by_text("sentence BLEU").first).to_be_visible(timeout=30_000)
        expect(page.get_by_text("hello there world").first).to_be_visible()
        expect(page.locator("#precisions")).to_contain_text("2-gram precision")
        page.screenshot(path=str(SCREENSHOTS / "app.png"), full_page=True)
        # Selecting a row of the per-sentence table works that sentence out.
        page.get_by_text("hello world", exact=True).last.click()
        explanation = page.locator("#explanation")
        expect(explanation).to_contain_text("Line 2", timeout=30_000)
        explained = space.explain_line("the cat sat on the mat\nhello world", "the cat sat on the mat\nhello there world",
                                     "", "", "13a", 2, "none", "shortest", False, 1)
        expect(explanation).to_contain_text(f"sentence BLEU {100 * explained['sentence_bleu']:.2f}")
        expect(explanation).to_contain_text("1-grams: 2 / 2 clipped matches")
        expect(explanation).to_contain_text("2-grams: 0 / 1 clipped matches")
        expect(explanation).to_contain_text("c = 2 prediction tokens, r = 3 reference tokens: BP = exp(1 − r/c)")
        assert explanation.locator(".matched").count() == 2 and explanation.locator(".unmatched").count() == 2
        page.screenshot(path=str(SCREENSHOTS / "explain.png"), full_page=True)
        # A mismatched input shows a readable message, not a stack trace.
        page.get_by_label("References", exact=True).fill("only one line")
        page.get_by_role("button", name="Compute BLEU").click()
        expect(page.get_by_text("References has 1 lines").first).to_be_visible(timeout=30_000)
        assert "Traceback" not in page.content()
    assert (SCREENSHOTS / "app.png").stat().st_size > 10_000


def test_the_result_is_in_view_after_compute_on_a_laptop_screen(server):
    """At 1366 x 768, the size of many laptops' screens, the first click on Compute shows the
    documented example's score, its precisions and the per-sentence table without scrolling."""
    from playwright.sync_api import expect

    with space_page(server[0], 768, width=1366) as page:
        button = page.get_by_role("button", name="Compute BLEU")
        expect(button).to_be_visible(timeout=30_000)
        where = button.bounding_box()
        assert where is not None and where["y"] + where["height"] <= 768, ("Compute below the fold", where)
        button.click()
        expect(page.locator("#bleu-score")).to_contain_text("BLEU = 50.38", timeout=60_000)
        expect(page.get_by_text("sentence BLEU").first).to_be_visible(timeout=30_000)
        # Bounding boxes are relative to the viewport, so these hold only for what is in view now,
        # whatever the browser's fonts or Gradio's scrolling did to the page's height.
        for name, box in (("score", page.locator("#bleu-score")), ("precisions", page.locator("#precisions")),
                          ("table", page.locator("#sentences"))):
            where = box.bounding_box()
            assert where is not None and where["y"] >= 0 and where["y"] + where["height"] <= 768, (name, where)
            assert where["x"] >= 0 and where["x"] + where["width"] <= 1366, (name, where)
        page.screenshot(path=str(SCREENSHOTS / "laptop.png"))


def test_the_space_offers_korean_and_japanese():
    assert {"ko-mecab", "ja-mecab"} <= set(space.tokenizers())
    from sacrebleu.metrics import BLEU

    prediction = "私は毎朝電車で会社に行きます。"
    result = space.score(prediction, "私は毎朝、電車で会社へ行く。", tokenizer="ja-mecab", max_order=2)
    assert result["translation_length"] == len(BLEU(tokenize="ja-mecab")._preprocess_segment(prediction).split())
    assert "tok:ja-mecab-" in result["signature"]


def metric_paired_test(baseline, system, references, test="bootstrap"):
    """The evaluate metric's paired test of the page's texts, in sacrebleu's convention."""
    import evaluate

    from conftest import METRIC_PATH

    return evaluate.load(METRIC_PATH, "sacrebleu").paired_test(
        {"baseline": baseline.split("\n"), "system": system.split("\n")}, references.split("\n"), test=test)


def test_api_compare_is_the_metrics_paired_test(client):
    result = client.predict(PREDICTIONS, ui.EXAMPLE_SYSTEM_B, REFERENCES, "13a", "randomization", api_name="/compare")
    assert result == metric_paired_test(PREDICTIONS, ui.EXAMPLE_SYSTEM_B, REFERENCES, "randomization")
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="Second system has 1 lines"):
        client.predict(PREDICTIONS, "one line", REFERENCES, api_name="/compare")


def test_compare_view_in_a_real_browser(server):
    from playwright.sync_api import expect

    expected = metric_paired_test(PREDICTIONS, ui.EXAMPLE_SYSTEM_B, REFERENCES)
    with space_page(server[0], 1100) as page:
        page.get_by_role("tab", name="Compare systems").click()
        page.get_by_role("button", name="Compare", exact=True).click()
        result = page.locator("#compare-result")
        expect(result).to_contain_text(f"p = {expected['system']['p_value']:.4f}", timeout=60_000)
        for name, label in (("baseline", "Baseline"), ("system", "Second system")):
            numbers = expected[name]
            expect(result).to_contain_text(f"{label}: BLEU {100 * numbers['bleu']:.2f} (resampled mean "
                                           f"{100 * numbers['mean']:.2f} ± {100 * numbers['ci']:.2f})")
        expect(page.get_by_text("How to read this")).to_be_visible()
        page.screenshot(path=str(SCREENSHOTS / "compare.png"), full_page=True)


def test_explaining_a_line_that_is_no_longer_there_is_a_message():
    with pytest.raises(pricing.InputError, match="no line 5"):
        space.explain_line(PREDICTIONS, REFERENCES, "", "", "13a", 2, "none", "shortest", False, 4)
    explained = space.explain_line(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, "none", "shortest", False, 1)
    assert explained["reference_tokens"] == [["Good", "Morning", "Transformers"], ["Morning", "Transformers"]]


# Issue 31, items 8 to 12: what an attack on the Space found.


def test_the_space_scores_without_evaluate():
    """Item 12: the Space called evaluate.load on every request (76 ms, against 2.8 ms of scoring).
    It calls the functional API instead, and never imports evaluate."""
    code = ("import sys; from space.requests import score; result = score('the cat sat on the mat', "
            "'the cat sat on a mat'); "
            "print(result['bleu'], sorted(name for name in sys.modules if name.split('.')[0] == 'evaluate'))")
    completed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, GRADIO_ANALYTICS_ENABLED="False"))
    assert completed.returncode == 0, completed.stderr[-2000:]
    bleu, modules = completed.stdout.split(maxsplit=1)
    assert float(bleu) == metric_result("the cat sat on the mat", ["the cat sat on a mat"])["bleu"]
    assert modules.strip() == "[]"


DEAR_REQUESTS = {
    # sacremoses checks every token ending in a period against its whole alphabet: 1 ms a token.
    "moses periods": lambda: space.score("1.2. " * 32_000, "1.2. " * 32_000, tokenizer="moses", max_order=4),
    # MeCab groups a run of unknown characters in quadratic time.
    "mecab run": lambda: space.score("1" * 100_000, "1" * 100_000, tokenizer="ja-mecab", max_order=4),
    # every character a token, max order 8, too many distinct tokens for packed keys
    "char, order 8": lambda: space.score(*[_random_ascii(400_000)] * 2, tokenizer="char", max_order=8),
    "over a million tokens": lambda: space.score("x" * 600_000, "y" * 600_000, tokenizer="13a", max_order=1),
    "compare with moses": lambda: space.run_here(space.compare_job("1.2. " * 20_000, "1.2. " * 20_000, "1.2. " * 20_000,
                                                               "moses", "bootstrap")),
}


def _random_ascii(length):
    rng = random.Random(7)
    return "".join(chr(rng.randint(33, 126)) for _ in range(length))


@pytest.mark.parametrize("name", list(DEAR_REQUESTS))
def test_dear_requests_are_refused_before_any_tokenizing(monkeypatch, name):
    """Item 8: the 1M-token limit was checked only after tokenizing (a refused request tokenized
    twice; 160 KB took 26 s with moses). Now every request is priced from its characters, lines,
    periods and runs before its work starts, and a refused one reaches no tokenizer."""
    import exactbleu.api

    def tokenized(*arguments, **options):
        raise AssertionError("a request that must be refused was tokenized")

    monkeypatch.setattr(exactbleu.api, "count", tokenized)
    started = time.perf_counter()
    with pytest.raises(pricing.InputError, match=r"would take up to [\d.]+ s with tokenizer|more than the 1,000,000"):
        DEAR_REQUESTS[name]()
    assert time.perf_counter() - started < 5  # priced, not worked out (generous: the pricing takes ~0.1 s)


def test_a_tokenizer_is_priced_by_what_it_costs():
    """The same text costs what its tokenizer makes of it: moses pays per period, MeCab per
    squared run, 13a neither; so 13a takes texts that moses and MeCab are refused."""
    periods, run = "1.2. " * 32_000, "1" * 100_000
    for tokenizer, text in (("moses", periods), ("ja-mecab", run)):
        with pytest.raises(pricing.InputError, match=f"tokenizer '{tokenizer}'"):
            space.score(text, text, tokenizer=tokenizer)
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        result = space.score(text, text, tokenizer="13a")
        assert result["translation_length"] == len(Tokenizer13a()(text).split())
    cheap, dear = (pricing.cost_of([periods], [[periods]], tokenizer, 4) for tokenizer in ("13a", "moses"))
    assert cheap.tokens == dear.tokens == 2 * len(periods.replace(" ", ""))
    assert dear.seconds > 10 * cheap.seconds


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


def cpu_seconds(pid):
    """CPU time of ``pid``, its reaped children and every live descendant."""
    total = 0
    for number, process in enumerate([pid, *descendants(pid)]):
        with contextlib.suppress(OSError):
            fields = pathlib.Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(map(int, fields[11:15] if number == 0 else fields[11:13]))
    return total / os.sysconf("SC_CLK_TCK")


def seconds_until_idle(pid, started):
    """Seconds from ``started`` until the process tree uses under 15% of a core for 0.4 s."""
    while time.time() - started < 120:
        before, at = cpu_seconds(pid), time.time()
        time.sleep(0.4)
        if cpu_seconds(pid) - before < 0.06:
            return at - started
    return float("inf")


def wait_for_work(pid, before, cpu=0.5):
    deadline = time.time() + 60
    while cpu_seconds(pid) - before < cpu:
        assert time.time() < deadline, "the request never started"
        time.sleep(0.05)


# Seconds of sacremoses (1 ms a token ending in a period), within the Space's limits.
DEAR_MOSES_REQUEST = ["1.2. " * 1_000, "1.2. " * 1_000, "", "", "moses", 4, "none", "shortest", False]


def test_work_for_a_client_that_leaves_stops(client, server, tmp_path):
    """Item 8: abandoned requests were not cancelled (the server stayed busy 228 s after its
    clients left). A dear request runs in a worker process that is killed when its client's
    connection closes, or when the client cancels: the server is idle long before the request
    would have ended."""
    url, process = server
    arguments = DEAR_MOSES_REQUEST
    started = time.time()
    client.predict(*arguments, api_name="/compute")
    whole = time.time() - started  # what the request takes when its client waits
    seconds_until_idle(process.pid, time.time())
    # The client's process dies: its connections close.
    (tmp_path / "arguments.json").write_text(json.dumps(arguments))
    code = ("import json, sys; from gradio_client import Client; "
            "Client(sys.argv[1], verbose=False).predict(*json.load(open(sys.argv[2])), api_name='/compute')")
    before = cpu_seconds(process.pid)
    leaving = subprocess.Popen([sys.executable, "-c", code, url, str(tmp_path / "arguments.json")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_work(process.pid, before)
    finally:
        leaving.kill()
        leaving.wait()
    after_disconnect = seconds_until_idle(process.pid, time.time())
    # The client cancels.
    before = cpu_seconds(process.pid)
    job = client.submit(*arguments, api_name="/compute")
    wait_for_work(process.pid, before)
    job.cancel()
    after_cancel = seconds_until_idle(process.pid, time.time())
    print(f"the request takes {whole:.2f} s; idle {after_disconnect:.2f} s after its client left, "
          f"{after_cancel:.2f} s after it cancelled")
    assert after_disconnect < whole / 2 and after_cancel < whole / 2, (whole, after_disconnect, after_cancel)
    assert process.poll() is None
    assert client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


def test_a_cheap_job_cancelled_midway_never_answers_the_next_one():
    """A worker that was still working when its request was cancelled would send that answer to
    whoever came next: the next job must get its own."""
    import asyncio

    from space.pricing import Cost
    from space.requests import Job
    from space.workers import Workers

    async def scenario():
        workers = Workers()
        workers.start()
        try:
            cheap = Cost(0, 0.01, "")
            slow = asyncio.ensure_future(workers.run(Job(time.sleep, (1.0,), cheap)))
            await asyncio.sleep(0.3)
            slow.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await slow
            answers = await asyncio.gather(*(workers.run(Job(len, ("x" * n,), cheap)) for n in range(1, 6)))
            return answers
        finally:
            workers.close()

    assert asyncio.run(scenario()) == [1, 2, 3, 4, 5]


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
        while time.time() < deadline and any(_alive(pid) for pid in started):
            time.sleep(0.1)
        assert not [pid for pid in started if _alive(pid)]
        with contextlib.suppress(Exception):
            job.cancel()


def _alive(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def raw_event(url, name, data, event_data=None):
    """A page event called as a raw queue request, as a browser (or an attacker) sends it; the
    outcome message: {"success": ..., "output": ...}."""
    import httpx

    fn_index = next(index for index, fn in ui.demo.fns.items() if fn.name == name)
    session = uuid.uuid4().hex
    with httpx.Client(timeout=120) as http:
        http.post(url + "gradio_api/queue/join", json={"data": data, "event_data": event_data, "fn_index": fn_index,
                                                       "trigger_id": None, "session_hash": session}).raise_for_status()
        with http.stream("GET", url + "gradio_api/queue/data", params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:") and json.loads(line[5:]).get("msg") == "process_completed":
                    return json.loads(line[5:])
    pytest.fail("the event never completed")


def test_explain_on_the_page_has_its_own_limit_through_its_raw_event(server):
    """Item 9: selecting a row ran explain on whatever the client sent, even through the raw queue
    call of the page's hidden event (450k tokens a side: 294 s, 677 MB of HTML, 7 GB). A line the
    page cannot show gets a message before any work; the largest it shows makes a small page."""
    url, process = server
    words = " ".join(f"w{number}" for number in range(200))  # 200 tokens, 1,090 characters but spaces
    with pytest.raises(pricing.InputError, match="line 1 .* more than the 1,000 the Space takes"):
        space.explain_line(words, words, "", "", "13a", 4, "none", "shortest", False, 0)
    before = peak_memory_mb(process.pid)
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


def test_idle_and_slow_connections_are_closed_and_new_clients_served(client, server):
    """Item 10: nothing closed slow connections; 20,000 idle ones used up the file descriptors and
    new clients timed out. Now a connection must send its headers within a few seconds, and no more
    than space_server.MAX_IDLE_CONNECTIONS wait at once: 600 idle sockets and 3 sending their headers a byte
    at a time are all closed by the server, and a new client is served meanwhile."""
    url, process = server
    address = (urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port)
    idle = [socket.create_connection(address) for _ in range(600)]
    slow = [socket.create_connection(address) for _ in range(3)]
    try:
        opened = time.time()
        result = client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")
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
    assert client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


def upload(url, name, content):
    """A file uploaded as the page uploads it: its path on the server."""
    import httpx

    response = httpx.post(url + "gradio_api/upload", files={"files": (name, content, "text/plain")}, timeout=60)
    response.raise_for_status()
    return response.json()[0]


def file_data(path, name="a.txt"):
    return {"path": path, "url": None, "size": None, "orig_name": name, "mime_type": None, "is_stream": False,
            "meta": {"_type": "gradio.FileData"}}


def test_uploads_are_deleted_once_read_and_only_uploads_are_read(server, uploads):
    """Item 11: anonymous uploads of up to 10 MB were kept forever (20 added 189 MB). The upload
    event reads the file into its box and deletes it; a path that is not an upload is refused and
    left alone; Gradio's own copies are swept after a minute (delete_cache)."""
    url, _ = server
    text = "ein Satz\nnoch einer\n"
    path = upload(url, "predictions.txt", text.encode())
    assert pathlib.Path(path).is_file() and pathlib.Path(path).is_relative_to(uploads)
    message = raw_event(url, "read_upload", [file_data(path)])
    assert message["success"] and message["output"]["data"][0] == text
    assert not pathlib.Path(path).exists() and not pathlib.Path(path).parent.exists()
    outside = ROOT / "README.md"
    message = raw_event(url, "read_upload", [file_data(str(outside))])
    assert not message["success"] and outside.is_file()
    assert ui.demo.delete_cache == (60, 60)
    stored = [entry for entry in uploads.rglob("*") if entry.is_file() and entry.name == "predictions.txt"]
    assert stored == []


def assert_no_server_path(message):
    for secret in (os.path.expanduser("~"), str(ROOT), tempfile.gettempdir(), ".sacrebleu", sys.prefix, "/models/"):
        assert secret not in message, message
    assert not re.search(r"(^|[\s'\"(=])/[\w.]", message), message


@pytest.mark.parametrize("tokenizer", ["spm", "flores101", "flores200", "nonsense"])
def test_the_api_takes_only_the_pages_tokenizers_and_says_so_without_paths(client, tokenizer):
    """Item 11: the API took tokenizer names the dropdown hides (flores101, spm), and the error
    showed a server path (~/.sacrebleu/models/...). Now the message names the argument, the value
    and the page's choices, and nothing of the server."""
    from gradio_client.exceptions import AppError

    for endpoint, arguments in (("/compute", (PREDICTIONS, REFERENCES, "", "", tokenizer, 2)),
                                ("/compare", (PREDICTIONS, ui.EXAMPLE_SYSTEM_B, REFERENCES, tokenizer))):
        with pytest.raises(AppError) as raised:
            client.predict(*arguments, api_name=endpoint)
        message = str(raised.value)
        assert f"tokenizer must be one of {space.tokenizers()}, got '{tokenizer}'" in message
        assert_no_server_path(message)


@pytest.mark.parametrize("arguments, words", [
    ((PREDICTIONS, REFERENCES, "", "", "13a", 2, "laplace"), ["smoothing must be one of", "'laplace'"]),
    ((PREDICTIONS, REFERENCES, "", "", "13a", 2, "none", "longest"), ["ref_length must be one of", "'longest'"]),
    ((PREDICTIONS, REFERENCES, "", "", "13a", 2, "none", "shortest", "yes"), ["lowercase must be True or False"]),
])
def test_option_errors_name_the_choices_without_paths(client, arguments, words):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError) as raised:
        client.predict(*arguments, api_name="/compute")
    for word in words:
        assert word in str(raised.value)
    assert_no_server_path(str(raised.value))


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
    time.sleep(2)
    assert not [pid for pid in seen if _alive(pid)], "a process outlived the benchmark"
