"""The Space: its scoring function, its API through gradio_client with concurrent clients and
oversize requests, and the page in a real browser (Debian's Chromium through Playwright)."""

import concurrent.futures
import contextlib
import http.client
import os
import pathlib
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
import app  # noqa: E402

PREDICTIONS = app.EXAMPLE_PREDICTIONS
REFERENCES = app.EXAMPLE_REFERENCES
REFERENCES_2 = app.EXAMPLE_REFERENCES_2
TRANSFORMERS_BLEU = 0.5037930378757725  # the documented example, max_order=2


def test_score_is_the_metric_with_the_example_prefilled():
    result = app.score(PREDICTIONS, REFERENCES, REFERENCES_2, max_order=2)
    assert result["bleu"] == TRANSFORMERS_BLEU
    assert len(result["sentence_bleu"]) == 3 and result["signature"].startswith("nrefs:2|")


@pytest.mark.parametrize("arguments, words", [
    ((PREDICTIONS, "one line"), ["References has 1 lines", "Predictions has 3"]),
    (("", REFERENCES), ["Predictions is empty"]),
    (("x\n" * (app.MAX_LINES + 1), "x\n" * (app.MAX_LINES + 1)), ["at most 100,000"]),
    (("x" * (app.MAX_BYTES + 1), "x"), ["larger than 10 MB"]),
    (("ok\nbad \udc80", "ok\nbad"), ["predictions[1]", "not valid Unicode"]),
])
def test_input_errors_are_messages(arguments, words):
    with pytest.raises(app.InputError) as raised:
        app.score(*arguments)
    for word in words:
        assert word in str(raised.value)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def uploads(tmp_path_factory):
    return tmp_path_factory.mktemp("gradio-uploads")


@pytest.fixture(scope="module")
def server(uploads):
    """app.py served as a user would start it, on a free local port."""
    port = free_port()
    env = dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port), GRADIO_TEMP_DIR=str(uploads),
               GRADIO_ANALYTICS_ENABLED="False", HF_EVALUATE_OFFLINE="1", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    process = subprocess.Popen([sys.executable, str(ROOT / "app.py")], env=env, cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if process.poll() is not None:
                pytest.fail(f"app.py exited: {process.stdout.read()[-3000:]}")
            time.sleep(0.5)
    else:
        process.kill()
        pytest.fail("app.py did not start listening within 120 s")
    yield url, process
    process.terminate()
    process.wait(timeout=30)


@pytest.fixture(scope="module")
def client(server):
    from gradio_client import Client

    return Client(server[0], verbose=False)


def test_api_compute(client):
    result = client.predict(PREDICTIONS, REFERENCES, api_name="/compute")
    expected = app.score(PREDICTIONS, REFERENCES)
    assert result == expected


def test_api_errors_are_messages_and_the_server_stays_up(client, server):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="References has 1 lines"):
        client.predict(PREDICTIONS, "just one line", api_name="/compute")
    with pytest.raises(AppError, match="at most 100,000"):
        client.predict("x\n" * (app.MAX_LINES + 1), "x\n" * (app.MAX_LINES + 1), api_name="/compute")
    with pytest.raises(AppError, match="larger than 10 MB"):
        client.predict("x" * (app.MAX_BYTES + 1), "x", api_name="/compute")
    with pytest.raises(AppError, match="larger than 10 MB together"):
        client.predict("x" * (app.MAX_BYTES // 2), "x" * (app.MAX_BYTES // 2 + 1), api_name="/compute")
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
              f"Content-Type: text/plain\r\n\r\n").encode() + b"a\n" * (app.MAX_BYTES // 2 + 200_000) + \
             f"\r\n--{boundary}--\r\n".encode()
    assert app.MAX_BYTES < len(upload) < app.MAX_REQUEST_BYTES
    status, _ = post(url, "/gradio_api/upload", upload, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 413
    stored = [path for path in uploads.rglob("*") if path.is_file() and path.stat().st_size > 1_000_000]
    assert stored == []
    assert peak_memory_mb(process.pid) - before < 100  # nothing big was parsed
    assert process.poll() is None
    assert client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


def test_the_worst_request_within_the_limits_is_bounded(client, server):
    """One line each side, every character a token (tokenizer char), max order 8, no n-gram fitting
    a packed key: the dense path. Just under MAX_TOKENS it scores, exactly; just over, a message."""
    from gradio_client.exceptions import AppError

    url, process = server
    rng = random.Random(12)
    line = "".join(chr(rng.randint(33, 126)) for _ in range(app.MAX_TOKENS // 2 - 10))
    before = peak_memory_mb(process.pid)
    result = client.predict(line, line, "", "", "char", 8, api_name="/compute")
    assert result["bleu"] == 1.0 and result["translation_length"] == len(line)
    assert peak_memory_mb(process.pid) - before < 1000
    with pytest.raises(AppError, match="more than 1,000,000 tokens"):
        client.predict(line + "abcdefghijklmnopqrstu", line, "", "", "char", 8, api_name="/compute")
    assert client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


def test_eight_concurrent_clients_get_their_own_results(client):
    corpora = [(f"the cat sat on mat {i}\nsomething {i} else", f"the cat sat on the mat {i}\nsomething else") for i in range(8)]
    expected = [app.score(p, r, max_order=2 + i % 3) for i, (p, r) in enumerate(corpora)]
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
def space_page(url, height):
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
            page = browser.new_page(viewport={"width": 1300, "height": height})
            page.goto(url, timeout=60_000)
            yield page
        finally:
            browser.close()


def test_page_in_a_real_browser(server, tmp_path):
    from playwright.sync_api import expect

    with space_page(server[0], 1600) as page:
        # The first click, with nothing typed: the documented example, both reference sets visible.
        expect(page.get_by_label("References (second set)", exact=True)).to_be_visible(timeout=30_000)
        page.get_by_role("button", name="Compute BLEU").click()
        score = page.locator("#bleu-score")
        expect(score).to_contain_text("BLEU = 50.38", timeout=60_000)
        assert f"{100 * TRANSFORMERS_BLEU:.2f}" == "50.38"
        page.screenshot(path=str(SCREENSHOTS / "first-click.png"), full_page=True)
        page.get_by_label("Predictions", exact=True).fill("the cat sat on the mat\nhello world")
        page.get_by_label("References", exact=True).fill("the cat sat on the mat\nhello there world")
        page.get_by_label("References (second set)", exact=True).fill("")
        page.get_by_role("button", name="Compute BLEU").click()
        expected = app.score("the cat sat on the mat\nhello world", "the cat sat on the mat\nhello there world", max_order=2)
        expect(score).to_contain_text(f"BLEU = {100 * expected['bleu']:.2f}", timeout=60_000)
        # The per-sentence table and the precision chart render.
        expect(page.get_by_text("sentence BLEU").first).to_be_visible(timeout=30_000)
        expect(page.get_by_text("hello there world").first).to_be_visible()
        expect(page.locator("canvas, svg.marks, .vega-embed").first).to_be_visible(timeout=30_000)
        page.screenshot(path=str(SCREENSHOTS / "app.png"), full_page=True)
        # Selecting a row of the per-sentence table works that sentence out.
        page.get_by_text("hello world", exact=True).last.click()
        explanation = page.locator("#explanation")
        expect(explanation).to_contain_text("Line 2", timeout=30_000)
        explained = app.explain_line("the cat sat on the mat\nhello world", "the cat sat on the mat\nhello there world",
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


def test_the_space_offers_korean_and_japanese():
    assert {"ko-mecab", "ja-mecab"} <= set(app.TOKENIZERS)
    from sacrebleu.metrics import BLEU

    prediction = "私は毎朝電車で会社に行きます。"
    result = app.score(prediction, "私は毎朝、電車で会社へ行く。", tokenizer="ja-mecab", max_order=2)
    assert result["translation_length"] == len(BLEU(tokenize="ja-mecab")._preprocess_segment(prediction).split())
    assert "tok:ja-mecab-" in result["signature"]


def test_api_compare_is_the_metrics_paired_test(client):
    result = client.predict(PREDICTIONS, app.EXAMPLE_SYSTEM_B, REFERENCES, "13a", "randomization", api_name="/compare")
    import evaluate

    from conftest import METRIC_PATH

    expected = evaluate.load(METRIC_PATH, "sacrebleu").paired_test(
        {"baseline": PREDICTIONS.split("\n"), "system": app.EXAMPLE_SYSTEM_B.split("\n")}, REFERENCES.split("\n"),
        test="randomization")
    assert result == expected
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="Second system has 1 lines"):
        client.predict(PREDICTIONS, "one line", REFERENCES, api_name="/compare")


def test_compare_view_in_a_real_browser(server):
    from playwright.sync_api import expect

    expected = app.compare(PREDICTIONS, app.EXAMPLE_SYSTEM_B, REFERENCES)
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
    with pytest.raises(app.InputError, match="no line 5"):
        app.explain_line(PREDICTIONS, REFERENCES, "", "", "13a", 2, "none", "shortest", False, 4)
    explained = app.explain_line(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, "none", "shortest", False, 1)
    assert explained["reference_tokens"] == [["Good", "Morning", "Transformers"], ["Morning", "Transformers"]]
