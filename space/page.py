"""The page: its layout and events, and the API endpoints ``/compute`` and ``/compare``.

Inputs on the left, the result on the right, so that after Compute the score, the precisions and
the per-sentence table are in view on a laptop's screen; the further reference sets and the
uploads are folded away. Every event checks its inputs once (``requests.PageInputs``), prices the
work, and runs it in a worker (``workers``); an input problem is a message, never a stack trace.
"""

import asyncio
import contextlib
import html
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from exactbleu import PAIRED_TESTS, MissingExtra

try:
    import gradio as gr
    import pandas as pd
    from gradio.events import api  # gradio's gr.api, which its __init__ leaves out of __all__
except ModuleNotFoundError as error:
    raise MissingExtra("the Space", "gradio", "space", name=error.name) from None

from .pricing import InputError
from .requests import (
    DEFAULT_MAX_ORDER,
    DEFAULT_REF_LENGTH,
    DEFAULT_TOKENIZER,
    EXAMPLE_PREDICTIONS,
    EXAMPLE_REFERENCES,
    EXAMPLE_REFERENCES_2,
    EXAMPLE_SYSTEM_B,
    MAX_ORDER,
    REF_LENGTHS,
    Job,
    PageInputs,
    compare_job,
    conventions_job,
    explain_job,
    languages,
    score_job,
    smoothings,
    tokenizers,
)
from .spread import conventions_table, spread_plot
from .workers import WORK, Abandoned, Workers

workers = Workers()
Checked = TypeVar("Checked")


@contextlib.contextmanager
def shown_as_message() -> Iterator[None]:
    """An input problem, or a client that went away, becomes a message, not a stack trace."""
    try:
        yield
    except (InputError, Abandoned) as error:
        raise gr.Error(str(error), print_exception=False) from None


async def checked(job_of: Callable[..., Checked], *arguments: Any) -> Checked:
    """``job_of(*arguments)``, a request's job checked and priced: here for a small request, in a
    thread for a big one (checking 10 MB takes 0.2 s, which would hold up the event loop)."""
    if sum(len(argument) for argument in arguments if isinstance(argument, str)) < 100_000:
        return job_of(*arguments)
    return await asyncio.to_thread(job_of, *arguments)


def abandoned(request: gr.Request | None) -> bool:
    """Whether Gradio has given up on every running event of this request's session: it marks
    them not alive when the client's event stream closes. Gradio 6 has no public hook for this,
    so this reads its queue; tests/space/test_space_limits.py checks that a disconnect stops the
    work."""
    session = getattr(request, "session_hash", None)
    queue = getattr(demo, "_queue", None)
    if session is None or queue is None:
        return False
    events = [event for running in queue.active_jobs if running for event in running if event.session_hash == session]
    return bool(events) and not any(event.alive for event in events)


def _score_inputs(*page: Any) -> Job:
    return score_job(PageInputs.checked(*page))


async def compute(predictions: str, references: str, references_2: str = "", references_3: str = "",
                  tokenizer: str = DEFAULT_TOKENIZER, max_order: int = DEFAULT_MAX_ORDER,
                  smoothing: str = "none", ref_length: str = DEFAULT_REF_LENGTH, lowercase: bool = False,
                  request: gr.Request | None = None) -> dict[str, Any]:
    """The API endpoint /compute: the metric's result dict, with per-sentence scores and the
    signature, or an error message the client raises."""
    with shown_as_message():
        job = await checked(_score_inputs, predictions, references, references_2, references_3, tokenizer, max_order,
                            smoothing, ref_length, lowercase)
        result: dict[str, Any] = await workers.run(job, lambda: abandoned(request))
        return result


def _precision_bars(result: Mapping[str, Any]) -> str:
    """The precisions and the brevity penalty as bars, small enough to sit under the score."""
    measures = [(f"{n}-gram precision", value) for n, value in enumerate(result["precisions"], 1)]
    rows = "".join(
        f"<div style='display:flex;align-items:center;gap:6px;margin:1px 0'><span style='width:9em'>{label}</span>"
        f"<span style='flex:1;background:#eee;height:0.9em'><span style='display:block;height:100%;"
        f"width:{100 * min(1.0, value):.1f}%;background:#6c8ebf'></span></span><span style='width:4em;"
        f"text-align:right'>{value:.3f}</span></div>"
        for label, value in [*measures, ("brevity penalty", result["brevity_penalty"])])
    return f"<div id='precisions'>{rows}</div>"


async def compute_for_page(predictions: str | None, references: str | None, references_2: str | None,
                           references_3: str | None, tokenizer: str, max_order: int, smoothing: str,
                           ref_length: str, lowercase: bool,
                           request: gr.Request) -> tuple[str, pd.DataFrame, str, dict[str, Any]]:
    """The page's view of the result: score with precisions, per-sentence table, signature, JSON."""
    page = (predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length, lowercase)
    with shown_as_message():
        inputs = await checked(PageInputs.checked, *page)
        job = await checked(score_job, inputs)
        result = await workers.run(job, lambda: abandoned(request))
    headline = (f"<div id='bleu-score'><div style='font-size:2.6em;font-weight:700'>BLEU = {100 * result['bleu']:.2f}"
                f"</div><div>{result['translation_length']:,} prediction tokens, {result['reference_length']:,} "
                f"reference tokens</div>{_precision_bars(result)}</div>")
    (_, prediction_lines), (_, reference_lines), *_ = inputs.boxes
    table = pd.DataFrame({
        "line": range(1, len(prediction_lines) + 1),
        "sentence BLEU": [round(100 * s, 2) for s in result["sentence_bleu"]],
        "prediction": prediction_lines,
        "reference": reference_lines,
    })
    summary = {key: value for key, value in result.items() if key != "sentence_bleu"}
    return headline, table, result["signature"], summary


async def compare(baseline: str, system: str, references: str, tokenizer: str = DEFAULT_TOKENIZER,
                  test: str = "bootstrap", request: gr.Request | None = None) -> dict[str, Any]:
    """The API endpoint /compare: sacrebleu's paired test of the second system against the baseline,
    ``{"baseline": {...}, "system": {...}}`` with "bleu", "p_value", "mean" and "ci" each."""
    with shown_as_message():
        job = await checked(compare_job, baseline, system, references, tokenizer, test)
        results: dict[str, Any] = await workers.run(job, lambda: abandoned(request))
        return results


async def compare_for_page(baseline: str, system: str, references: str, tokenizer: str, test: str,
                           request: gr.Request) -> str:
    """Both scores, their intervals and the p-value, with how to read them."""
    results = await compare(baseline, system, references, tokenizer, test, request)

    def line(label: str, result: Mapping[str, Any]) -> str:
        text = f"{label}: BLEU {100 * result['bleu']:.2f}"
        if result["mean"] is not None:
            text += f" (resampled mean {100 * result['mean']:.2f} ± {100 * result['ci']:.2f})"
        return text

    p_value = results["system"]["p_value"]
    verdict = "the difference is unlikely to be chance" if p_value < 0.05 else "the difference may well be chance"
    return (f"<div id='compare-result'><div>{line('Baseline', results['baseline'])}</div>"
            f"<div>{line('Second system', results['system'])}</div>"
            f"<div style='font-size:1.6em;font-weight:700'>p = {p_value:.4f}: {verdict}</div></div>"
            "<p>How to read this: the p-value is roughly the chance of a BLEU difference at least this large "
            "if the two systems were really the same; below 0.05 the difference is called significant. "
            "The ± is half the width of the 95% interval of each score over the resamples. A significant "
            "difference says the systems differ, not by how much it matters.</p>")


async def which_bleu(predictions: str, references: str, reported: str = "", language: str = "",
                     request: gr.Request | None = None) -> dict[str, Any]:
    """The API endpoint /conventions: every convention's score on the lines (``conventions``, each a
    dict), and with a reported score, as written, the places of those that give it (``matches``)."""
    with shown_as_message():
        inputs = await checked(PageInputs.checked, predictions, references)
        job = await checked(conventions_job, inputs, reported, language)
        result: dict[str, Any] = await workers.run(job, lambda: abandoned(request))
        return result


async def which_bleu_for_page(predictions: str, references: str, reported: str, language: str,
                              request: gr.Request) -> tuple[str, pd.DataFrame]:
    """The "Which BLEU?" view: the spread of every convention, and what gives the reported score."""
    result = await which_bleu(predictions, references, reported, language, request)
    return spread_plot(result), conventions_table(result)


def matched_positions(tokens: Sequence[str], order: Mapping[str, Any]) -> list[bool]:
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


def _explain_inputs(line: Any, predictions: str | None, references: str | None, references_2: str | None,
                    references_3: str | None, tokenizer: str, max_order: int, smoothing: str, ref_length: str,
                    lowercase: bool) -> Job:
    inputs = PageInputs.checked(predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
                                ref_length, lowercase, advice="explain a line in Python")
    return explain_job(inputs, line)


async def explain_for_page(predictions: str | None, references: str | None, references_2: str | None,
                           references_3: str | None, tokenizer: str, max_order: int, smoothing: str,
                           ref_length: str, lowercase: bool, event: gr.SelectData, request: gr.Request) -> str:
    """A selected row of the per-sentence table, worked out: matched tokens per order, clipped
    counts, and the brevity penalty's arithmetic."""
    index = event.index
    line = index[0] if isinstance(index, (list, tuple)) and index else index
    with shown_as_message():
        job = await checked(_explain_inputs, line, predictions, references, references_2, references_3, tokenizer,
                            max_order, smoothing, ref_length, lowercase)
        explained = (await workers.run(job, lambda: abandoned(request)))[0]
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
        arithmetic = (f"c = {c} prediction tokens, r = {r} reference tokens: "
                      f"BP = exp(1 − r/c) = exp(1 − {r}/{c}) = {bp:.4f}")
    parts.append(f"<p id='brevity'><b>Brevity penalty</b> ({html.escape(str(ref_length))} reference): {arithmetic}</p>")
    return "".join(parts) + "</div>"


def read_upload(path: str | None) -> tuple[str | dict[str, Any], dict[str, Any] | None]:
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


demo: gr.Blocks  # the page (gradio leaves Blocks.__enter__ untyped, so `as demo` alone would say Any)
# Gradio keeps files it is given for a minute at most; an upload is deleted as soon as it is read.
with gr.Blocks(title="BLEU", delete_cache=(60, 60)) as demo:
    gr.Markdown("**BLEU**: Hugging Face's `bleu` numbers by default, sacrebleu's or NLTK's by option. One segment "
                "per line; references line up with the predictions.")
    with gr.Tab("Score"):
        with gr.Row(equal_height=False):
            with gr.Column(scale=1):
                predictions = gr.Textbox(label="Predictions", lines=3, max_lines=8, value=EXAMPLE_PREDICTIONS)
                references = gr.Textbox(label="References", lines=3, max_lines=8, value=EXAMPLE_REFERENCES)
                with gr.Row():
                    tokenizer = gr.Dropdown(tokenizers(), value=DEFAULT_TOKENIZER, label="Tokenizer", min_width=100)
                    smoothing = gr.Dropdown(list(smoothings()), value="none", label="Smoothing", min_width=100)
                    # The documented example: max order 2, both reference sets (BLEU 50.38 on the first click).
                    max_order = gr.Dropdown(list(range(1, MAX_ORDER + 1)), value=2, label="Max n-gram order",
                                            min_width=100)
                with gr.Row():
                    ref_length = gr.Radio(REF_LENGTHS, value=DEFAULT_REF_LENGTH,
                                          label="Reference length (shortest: HF; closest: sacrebleu, NLTK)")
                    lowercase = gr.Checkbox(label="Lowercase")
                button = gr.Button("Compute BLEU", variant="primary")
                with gr.Accordion("More reference sets, and files", open=False):
                    references_2 = gr.Textbox(label="References (second set)", lines=3, value=EXAMPLE_REFERENCES_2)
                    references_3 = gr.Textbox(label="References (third set)", lines=3)
                    uploads = [gr.File(label=f"{name} file (.txt)", file_types=[".txt"], type="filepath", height=80)
                               for name in ("Predictions", "References", "Second references", "Third references")]
            with gr.Column(scale=1):
                headline = gr.HTML(elem_id="result")
                table = gr.Dataframe(label="Per-sentence BLEU (select a row to see why)", interactive=False,
                                     max_height=260, elem_id="sentences")
                signature = gr.Textbox(label="Signature", interactive=False)
                with gr.Accordion("Result (JSON)", open=False):
                    summary = gr.JSON(label="Result")
        explanation = gr.HTML()

        inputs = [predictions, references, references_2, references_3, tokenizer, max_order, smoothing, ref_length,
                  lowercase]
        button.click(compute_for_page, inputs, [headline, table, signature, summary], api_visibility="private", **WORK)
        table.select(explain_for_page, inputs, explanation, api_visibility="private", **WORK)
        for upload, box in zip(uploads, (predictions, references, references_2, references_3)):
            upload.upload(read_upload, upload, [box, upload], api_visibility="private")
    with gr.Tab("Compare systems"):
        gr.Markdown("Is the second system really better? Paired bootstrap resampling (or approximate randomization) "
                    "of the two systems on the same references, exactly as sacrebleu's `--paired-bs` (`--paired-ar`) "
                    "computes it, in sacrebleu's convention.")
        with gr.Row():
            with gr.Column():
                baseline_box = gr.Textbox(label="Baseline system", lines=5, value=EXAMPLE_PREDICTIONS)
                system_box = gr.Textbox(label="Second system", lines=5, value=EXAMPLE_SYSTEM_B)
                compare_references = gr.Textbox(label="References for both", lines=5, value=EXAMPLE_REFERENCES)
            with gr.Column():
                compare_tokenizer = gr.Dropdown(tokenizers(), value=DEFAULT_TOKENIZER, label="Tokenizer (both)")
                test = gr.Radio(list(PAIRED_TESTS), value="bootstrap", label="Test")
                compare_button = gr.Button("Compare", variant="primary")
                comparison = gr.HTML()
        compare_button.click(compare_for_page, [baseline_box, system_box, compare_references, compare_tokenizer, test],
                             comparison, api_visibility="private", **WORK)
    with gr.Tab("Which BLEU?"):
        gr.Markdown("Which BLEU is this? Every convention on your lines at once (tokenizer, lowercase, smoothing, "
                    "reference length, references kept, corpus or mean of sentences, scale): give a reported score "
                    "to see which ones give it.")
        with gr.Row(equal_height=False):
            with gr.Column(scale=1):
                which_predictions = gr.Textbox(label="Outputs", lines=4, max_lines=8, value=EXAMPLE_PREDICTIONS)
                which_references = gr.Textbox(label="Their references", lines=4, max_lines=8, value=EXAMPLE_REFERENCES)
                with gr.Row():
                    reported = gr.Textbox(label="Reported score (as written: 27.3, 0.273)", value="")
                    language = gr.Dropdown([(code or "none", code) for code in languages()], value="",
                                           label="Target language (its own tokenizer)")
                which_button = gr.Button("Which BLEU?", variant="primary")
            with gr.Column(scale=2):
                spread = gr.HTML(elem_id="spread")
                which_table = gr.Dataframe(label="Conventions", interactive=False, max_height=300, elem_id="table")
        which_button.click(which_bleu_for_page, [which_predictions, which_references, reported, language],
                           [spread, which_table], api_visibility="private", **WORK)
    api(compute, api_name="compute", **WORK)
    api(which_bleu, api_name="conventions", **WORK)
    api(compare, api_name="compare", **WORK)
