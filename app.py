"""The BLEU Space: score predictions against references in the browser, or through the API.

    python app.py    # serves on GRADIO_SERVER_NAME:GRADIO_SERVER_PORT (default 127.0.0.1:7860)

The page takes one segment per line, up to three reference sets, and the options that decide the
number; it shows the score, the full result, the n-gram precisions, per-sentence scores and the
signature. The same computation is the API endpoint `/compute`:

    from gradio_client import Client
    Client(url).predict("the cat sat", "the cat sat on the mat", api_name="/compute")
"""

import html
import os

import evaluate
import gradio as gr
import pandas as pd
from starlette.middleware import Middleware

from exactbleu.options import DEFAULTS, OPTION
from exactbleu.scoring import NLTK_SMOOTHING, SMOOTH_DEFAULTS
from exactbleu.significance import PAIRED_TESTS
from exactbleu.tokenizers.spm import SPM_MODELS, spm_model_path

METRIC_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bleu_metric.py")
# What one request may hold: every limit is checked before the work it guards.
MAX_LINES = 100_000
MAX_BYTES = 10_000_000  # of text, all boxes together; also the largest upload
MAX_REQUEST_BYTES = MAX_BYTES + 1_000_000  # the text plus room for its JSON encoding
MAX_TOKENS = 1_000_000  # predictions and references together: about a second and 400 MB at worst
MAX_ORDER = 8  # the page's slider; the library takes up to exactbleu.options.MAX_ORDER
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


class InputError(ValueError):
    """Input the page can explain: shown as a message, never as a stack trace."""


def lines_of(text, name):
    """The segments of a text box: one per line; a final line break ends the last one."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if len(lines) > MAX_LINES:
        raise InputError(f"{name} has {len(lines):,} lines; the page takes at most {MAX_LINES:,}")
    return lines


def checked_max_order(value):
    """The page's max_order as an int: a whole number on the slider's range, or a message."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ORDER:
        raise InputError(f"max_order must be a whole number from 1 to {MAX_ORDER}, got {value!r:.40}")
    return value


def score(predictions, references, references_2="", references_3="", tokenizer=DEFAULTS["tokenizer"],
          max_order=DEFAULTS["max_order"], smoothing="none", ref_length=DEFAULTS["ref_length"], lowercase=False):
    """Score newline-separated predictions against one to three newline-separated reference sets.

    Returns the metric's result dict, with per-sentence scores and the signature.
    """
    return score_lines(predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
                       ref_length, lowercase)[0]


def score_lines(predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length,
                lowercase):
    """``score``, with the prediction lines and the first reference set's lines it scored."""
    max_order = checked_max_order(max_order)
    texts = [text or "" for text in (predictions, references, references_2, references_3)]
    if sum(len(text.encode("utf-8", "surrogatepass")) for text in texts) > MAX_BYTES:  # bad Unicode: the metric says
        raise InputError(f"the texts are larger than {MAX_BYTES // 1_000_000} MB together; score big corpora "
                         f"with the command line")
    prediction_lines = lines_of(predictions or "", "Predictions")
    if not prediction_lines:
        raise InputError("Predictions is empty: give one prediction per line")
    reference_sets = []
    for name, text in (("References", references), ("References (second set)", references_2),
                       ("References (third set)", references_3)):
        if name == "References" or (text or "").strip():
            lines = lines_of(text or "", name)
            if len(lines) != len(prediction_lines):
                raise InputError(f"{name} has {len(lines):,} lines but Predictions has "
                                 f"{len(prediction_lines):,}: give one reference per prediction, line by line")
            reference_sets.append(lines)
    if smoothing not in SMOOTHING:
        raise InputError(f"smoothing must be one of {list(SMOOTHING)}, got {smoothing!r}")
    # A new metric for every request: no state is shared between users. One thread: the web
    # server already runs requests in threads of its own.
    metric = evaluate.load(METRIC_PATH, threads=1, max_tokens=MAX_TOKENS)
    try:
        result = metric.compute(
            predictions=prediction_lines,
            references=[list(segment) for segment in zip(*reference_sets)],
            tokenizer=tokenizer, max_order=max_order, ref_length=ref_length, lowercase=lowercase,
            sentence_level=True, signature=True, **SMOOTHING[smoothing],
        )
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None
    return result, prediction_lines, reference_sets[0]


def as_page_error(function, *arguments):
    """``function(*arguments)``, an input problem becoming a message the page or client shows."""
    try:
        return function(*arguments)
    except InputError as error:
        raise gr.Error(str(error), print_exception=False) from None


def compute(predictions: str, references: str, references_2: str = "", references_3: str = "",
            tokenizer: str = DEFAULTS["tokenizer"], max_order: int = DEFAULTS["max_order"], smoothing: str = "none",
            ref_length: str = DEFAULTS["ref_length"], lowercase: bool = False) -> dict:
    """The API endpoint: the result dict, or an error message the client raises."""
    return as_page_error(score, predictions, references, references_2, references_3, tokenizer, max_order,
                         smoothing, ref_length, lowercase)


def compute_for_page(predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
                     ref_length, lowercase):
    """The page's view of the result: score, JSON, precision chart, per-sentence table, signature."""
    result, prediction_lines, reference_lines = as_page_error(
        score_lines, predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
        ref_length, lowercase)
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


MAX_COMPARE_LINES = 10_000  # the resamples are matrices of samples x lines
EXAMPLE_SYSTEM_B = "\n".join([
    "HuggingFace Transformers are fast and efficient",
    "Good Morning Transformers",
    "People are waiting for new Transformers",
])


def compare(baseline: str, system: str, references: str, tokenizer: str = DEFAULTS["tokenizer"],
            test: str = "bootstrap") -> dict:
    """The API endpoint /compare: sacrebleu's paired test of the second system against the baseline,
    ``{"baseline": {...}, "system": {...}}`` with "bleu", "p_value", "mean" and "ci" each."""
    return as_page_error(compare_systems, baseline, system, references, tokenizer, test)


def compare_systems(baseline, system, references, tokenizer, test):
    texts = [text or "" for text in (baseline, system, references)]
    if sum(len(text.encode("utf-8", "surrogatepass")) for text in texts) > MAX_BYTES:
        raise InputError(f"the texts are larger than {MAX_BYTES // 1_000_000} MB together; compare big corpora "
                         f"with the command line (--paired-bs)")
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
    if test not in PAIRED_TESTS:
        raise InputError(f"test must be one of {list(PAIRED_TESTS)}, got {test!r:.40}")
    metric = evaluate.load(METRIC_PATH, "sacrebleu", threads=1, max_tokens=MAX_TOKENS)
    try:
        return metric.paired_test(systems, reference_lines, test=test, tokenizer=tokenizer)
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None


def compare_for_page(baseline, system, references, tokenizer, test):
    """Both scores, their intervals and the p-value, with how to read them."""
    results = as_page_error(compare_systems, baseline, system, references, tokenizer, test)

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


def explain_line(predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length,
                 lowercase, line):
    """The metric's explain() of one line (0-based) of the page's texts, under the page's options."""
    max_order = checked_max_order(max_order)
    texts = [("Predictions", predictions), ("References", references), ("References (second set)", references_2),
             ("References (third set)", references_3)]
    lines = [lines_of(text or "", name) for name, text in texts
             if name in ("Predictions", "References") or (text or "").strip()]  # the sets score() takes
    if any(len(these) <= line for these in lines):
        raise InputError(f"there is no line {line + 1} in the texts now: compute again, then select a row")
    prediction_lines, segment_references = lines[0], [these[line] for these in lines[1:]]
    metric = evaluate.load(METRIC_PATH, threads=1, max_tokens=MAX_TOKENS)
    try:
        return metric.explain([prediction_lines[line]], [segment_references], tokenizer=tokenizer, max_order=max_order,
                              ref_length=ref_length, lowercase=lowercase, **SMOOTHING[smoothing])[0]
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None


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


def explain_for_page(predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length,
                     lowercase, event: gr.SelectData):
    """A selected row of the per-sentence table, worked out: matched tokens per order, clipped
    counts, and the brevity penalty's arithmetic."""
    line = event.index[0]
    explained = as_page_error(explain_line, predictions, references, references_2, references_3, tokenizer,
                              max_order, smoothing, ref_length, lowercase, line)
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
    """The text of an uploaded .txt file, for its text box."""
    if path is None:  # a file over MAX_BYTES never gets here: the server refuses it unstored
        return gr.update()
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except UnicodeDecodeError:
        raise gr.Error("the file is not UTF-8 text", print_exception=False) from None


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


with gr.Blocks(title="BLEU") as demo:
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
        button.click(compute_for_page, inputs, [headline, summary, chart, table, signature], api_visibility="private")
        table.select(explain_for_page, inputs, explanation, api_visibility="private")
        for upload, box in ((predictions_file, predictions), (references_file, references),
                            (references_2_file, references_2), (references_3_file, references_3)):
            upload.upload(read_upload, upload, box, api_visibility="private")
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
                             comparison, api_visibility="private")
    gr.api(compute, api_name="compute")
    gr.api(compare, api_name="compare")


if __name__ == "__main__":
    demo.queue(default_concurrency_limit=8).launch(
        max_file_size=MAX_BYTES, app_kwargs={"middleware": [Middleware(RequestSizeLimit, limit=MAX_REQUEST_BYTES)]})
