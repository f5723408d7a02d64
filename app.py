"""The BLEU Space: score predictions against references in the browser, or through the API.

    python app.py    # serves on GRADIO_SERVER_NAME:GRADIO_SERVER_PORT (default 127.0.0.1:7860)

The page takes one segment per line, up to three reference sets, and the options that decide the
number; it shows the score, the full result, the n-gram precisions, per-sentence scores and the
signature. The same computation is the API endpoint `/compute`:

    from gradio_client import Client
    Client(url).predict("the cat sat", "the cat sat on the mat", api_name="/compute")
"""

import os

import evaluate
import gradio as gr
import pandas as pd

METRIC_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bleu_metric.py")
MAX_LINES = 100_000
MAX_BYTES = 10_000_000
TOKENIZERS = ["13a", "intl", "zh", "char", "none", "moses"]
# The smoothing choices, and the options each one means.
SMOOTHING = {
    "none": {},
    "add-one (HF smooth=True)": {"smooth": True},
    "exp (sacrebleu)": {"smooth_method": "exp"},
    "floor (sacrebleu)": {"smooth_method": "floor"},
    "add-k (sacrebleu)": {"smooth_method": "add-k"},
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
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:  # invalid Unicode is the metric's to report
        raise InputError(f"{name} is larger than {MAX_BYTES // 1_000_000} MB; score big corpora with the CLI")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if len(lines) > MAX_LINES:
        raise InputError(f"{name} has {len(lines):,} lines; the page takes at most {MAX_LINES:,}")
    return lines


def score(predictions, references, references_2="", references_3="", tokenizer="13a", max_order=4,
          smoothing="none", ref_length="shortest", lowercase=False):
    """Score newline-separated predictions against one to three newline-separated reference sets.

    Returns the metric's result dict, with per-sentence scores and the signature.
    """
    return score_lines(predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
                       ref_length, lowercase)[0]


def score_lines(predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length,
                lowercase):
    """``score``, with the prediction lines and the first reference set's lines it scored."""
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
    metric = evaluate.load(METRIC_PATH, threads=1)
    try:
        result = metric.compute(
            predictions=prediction_lines,
            references=[list(segment) for segment in zip(*reference_sets)],
            tokenizer=tokenizer, max_order=int(max_order), ref_length=ref_length, lowercase=bool(lowercase),
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
            tokenizer: str = "13a", max_order: int = 4, smoothing: str = "none", ref_length: str = "shortest",
            lowercase: bool = False) -> dict:
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


def read_upload(path):
    """The text of an uploaded .txt file, for its text box."""
    if path is None:
        return gr.update()
    if os.path.getsize(path) > MAX_BYTES:
        raise gr.Error(f"the file is larger than {MAX_BYTES // 1_000_000} MB", print_exception=False)
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except UnicodeDecodeError:
        raise gr.Error("the file is not UTF-8 text", print_exception=False) from None


with gr.Blocks(title="BLEU") as demo:
    gr.Markdown(
        "# BLEU\nCorpus BLEU that returns exactly Hugging Face's `bleu` by default, and sacrebleu's or "
        "NLTK's numbers by option. One segment per line; references line up with the predictions."
    )
    with gr.Row():
        with gr.Column():
            predictions = gr.Textbox(label="Predictions", lines=6, value=EXAMPLE_PREDICTIONS)
            predictions_file = gr.File(label="Predictions file (.txt)", file_types=[".txt"], type="filepath")
            references = gr.Textbox(label="References", lines=6, value=EXAMPLE_REFERENCES)
            references_file = gr.File(label="References file (.txt)", file_types=[".txt"], type="filepath")
            with gr.Accordion("More reference sets", open=False):
                references_2 = gr.Textbox(label="References (second set)", lines=4)
                references_2_file = gr.File(label="Second references file (.txt)", file_types=[".txt"], type="filepath")
                references_3 = gr.Textbox(label="References (third set)", lines=4)
                references_3_file = gr.File(label="Third references file (.txt)", file_types=[".txt"], type="filepath")
        with gr.Column():
            tokenizer = gr.Dropdown(TOKENIZERS, value="13a", label="Tokenizer")
            max_order = gr.Slider(1, 8, value=4, step=1, label="Max n-gram order")
            smoothing = gr.Dropdown(list(SMOOTHING), value="none", label="Smoothing")
            ref_length = gr.Radio(["shortest", "closest"], value="shortest",
                                  label="Reference length (shortest: HF; closest: sacrebleu, NLTK)")
            lowercase = gr.Checkbox(label="Lowercase")
            button = gr.Button("Compute BLEU", variant="primary")
    headline = gr.HTML()
    with gr.Row():
        chart = gr.BarPlot(x="measure", y="value", label="n-gram precisions and brevity penalty", y_lim=[0, 1])
        summary = gr.JSON(label="Result")
    signature = gr.Textbox(label="Signature", interactive=False)
    table = gr.Dataframe(label="Per-sentence BLEU (click a column to sort)", interactive=False)

    inputs = [predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length,
              lowercase]
    button.click(compute_for_page, inputs, [headline, summary, chart, table, signature], api_visibility="private")
    for upload, box in ((predictions_file, predictions), (references_file, references),
                        (references_2_file, references_2), (references_3_file, references_3)):
        upload.upload(read_upload, upload, box, api_visibility="private")
    gr.Examples([[EXAMPLE_PREDICTIONS, EXAMPLE_REFERENCES, EXAMPLE_REFERENCES_2, "", "13a", 2, "none", "shortest",
                  False]], inputs, label="The Transformers example (max order 2)")
    gr.api(compute, api_name="compute")

if __name__ == "__main__":
    demo.queue(default_concurrency_limit=8).launch()
