"""Benchmark: the per-sentence functions (sentence_scores, self_bleu, bleu_matrix, token ids)
against their peers, in one run.

    python benchmarks/per_sentence.py            # every size (about 2.5 minutes on 2 cores); prints the table
    python benchmarks/per_sentence.py --smoke    # tiny sizes: checks that it runs

What is measured, on the synthetic corpora of benchmarks/corpus.py (~25 tokens a segment):

1. ``sentence_scores`` at 20k segments x 1 reference (default preset) against a Python loop of
   ``exactbleu.sentence_bleu`` over the same pairs and against ``exactbleu.corpus_bleu`` on the
   same corpus.
2. ``sentence_scores(..., "sacrebleu")`` at 20k x 1 against a loop of ``sacrebleu.sentence_bleu``;
   NLTK's ``sentence_bleu`` (smoothing method1) and fast-bleu's ``BLEU`` (one object per pair, as
   its references are shared by all the hypotheses it scores) in loops over the same pairs, against
   ``sentence_scores(..., "nltk", smooth_method="method1")``. The loops of NLTK and fast-bleu split
   the texts on whitespace inside the timing, since they take tokens and the others take text.
3. ``self_bleu(texts, "nltk", smooth_method="method1")`` (Texygen's and fast-bleu's definition) at
   2k and 8k texts; at 8k against ``corpus_bleu`` (same preset) over the same texts, each with its
   own reference, and against fast-bleu's ``SelfBLEU``; at 200 and 500 texts against Texygen's
   quadratic loop of NLTK's ``sentence_bleu`` (each text against all the others).
4. ``bleu_matrix`` at 600 x 600 against a loop of ``sentence_bleu(p, [r])`` (the loop is timed on
   the first 60 predictions x 600 references and multiplied by 10), and at 8,000 x 2,000.
5. ``corpus_bleu`` on token ids (lists of ints, made before the timing) at 20k x 4 references,
   against the same ids joined into space-separated words (the join inside the timing) and scored
   with ``tokenizer="none"``.
6. Time and peak memory at 100k texts: sentence_scores (x 1 reference), self_bleu, bleu_matrix
   (100k predictions x 100 references) and corpus_bleu on token ids (x 1 reference).

TensorBLEU is not measured: it is not on PyPI.

Each measurement runs in a fresh process (``--worker``), so its peak memory (max RSS) is its own;
the table also gives the max RSS just before the first timed call (imports, inputs and warm-up),
so the call's own share is the difference. In each process the inputs are made, one untimed
warm-up call runs on a small slice of them, and then the timed calls run, each after a garbage
collection; a time is the median of those calls, end to end. Calls under a second are timed 5
times, the loops and fast-bleu's SelfBLEU (a few seconds each) 3 times, and Texygen's loop, the
large matrices and the 100k rows once. Scores that two measurements must agree on
travel back from the workers and are compared here. Ratios are taken within this one run.
"""

import argparse
import gc
import json
import pathlib
import resource
import statistics
import subprocess
import sys
import time
import warnings

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
WEIGHTS = (0.25, 0.25, 0.25, 0.25)
WARM_UP = 20  # segments (texts, predictions) of the untimed warm-up call


# ----------------------------------------------------------------------------------------------
# Workers: each task makes its inputs and returns (function, full input, warm-up input); the
# function's result is what the timed call returns.


def corpus(segments, references=1, seed=0):
    sys.path.insert(0, str(HERE))
    from corpus import make_corpus

    return make_corpus(segments, references, seed=seed)


def pairs_task(spec):
    """Tasks over (predictions, references) pairs."""
    import exactbleu

    predictions, references = corpus(spec["segments"], spec.get("references", 1))
    preset, options = spec.get("preset", "default"), spec.get("options", {})
    kind = spec["task"]
    if kind == "sentence_scores":
        def run(p, r):
            return exactbleu.sentence_scores(p, r, preset, **options)
    elif kind == "sentence_bleu_loop":
        def run(p, r):
            return [exactbleu.sentence_bleu(x, refs, preset, **options)["bleu"] for x, refs in zip(p, r)]
    elif kind == "corpus_bleu":
        def run(p, r):
            return exactbleu.corpus_bleu(p, r, preset, **options)["bleu"]
    elif kind == "sacrebleu_loop":
        import sacrebleu

        def run(p, r):
            return [min(1.0, sacrebleu.sentence_bleu(x, refs).score / 100) for x, refs in zip(p, r)]
    elif kind == "nltk_loop":
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

        method1 = SmoothingFunction().method1

        def run(p, r):
            return [sentence_bleu([y.split() for y in refs], x.split(), WEIGHTS, smoothing_function=method1)
                    for x, refs in zip(p, r)]
    elif kind == "fast_bleu_loop":
        from fast_bleu import BLEU

        def run(p, r):
            return [BLEU([y.split() for y in refs], {"4": WEIGHTS}).get_score([x.split()])["4"][0]
                    for x, refs in zip(p, r)]
    else:
        raise ValueError(kind)
    return run, (predictions, references), (predictions[:WARM_UP], references[:WARM_UP])


def texts_task(spec):
    """Tasks over one set of texts: Self-BLEU, and corpus BLEU of the same texts for scale."""
    import exactbleu

    texts, references = corpus(spec["segments"], 1)
    preset, options = spec.get("preset", "default"), spec.get("options", {})
    kind = spec["task"]
    if kind == "self_bleu":
        def run(t):
            return exactbleu.self_bleu(t, preset, **options)["scores"]
    elif kind == "corpus_bleu_of_texts":  # the same texts, each with its own reference
        def run(t):
            return exactbleu.corpus_bleu(t, references[: len(t)], preset, **options)["bleu"]
    elif kind == "fast_bleu_self":
        from fast_bleu import SelfBLEU

        def run(t):
            return SelfBLEU([x.split() for x in t], {"4": WEIGHTS}).get_score()["4"]
    elif kind == "texygen_loop":  # Texygen's Self-BLEU: each text against all the others, NLTK, method1
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

        method1 = SmoothingFunction().method1

        def run(t):
            tokens = [x.split() for x in t]
            return [sentence_bleu(tokens[:i] + tokens[i + 1:], tokens[i], WEIGHTS, smoothing_function=method1)
                    for i in range(len(tokens))]
    else:
        raise ValueError(kind)
    return run, (texts,), (texts[:WARM_UP],)


def matrix_task(spec):
    """The BLEU matrix of predictions by reference texts, or the loop of sentence_bleu it equals."""
    import exactbleu

    predictions = corpus(spec["predictions"], 1)[0]
    columns = [refs[0] for refs in corpus(spec["columns"], 1, seed=spec["column_seed"])[1]]
    preset = spec.get("preset", "default")
    if spec["task"] == "bleu_matrix":
        def run(p, c):
            return exactbleu.bleu_matrix(p, c, preset)
    elif spec["task"] == "matrix_loop":
        predictions = predictions[: spec["loop_rows"]]

        def run(p, c):
            return [[exactbleu.sentence_bleu(x, [y], preset)["bleu"] for y in c] for x in p]
    else:
        raise ValueError(spec["task"])
    return run, (predictions, columns), (predictions[:5], columns[:5])


def ids_task(spec):
    """corpus_bleu on token ids, or on the same ids joined into words under tokenizer="none"."""
    import exactbleu

    predictions, references = corpus(spec["segments"], spec["references"])
    vocabulary = {}
    to_ids = lambda text: [vocabulary.setdefault(word, len(vocabulary)) for word in text.split()]  # noqa: E731
    predictions = [to_ids(text) for text in predictions]
    references = [[to_ids(text) for text in refs] for refs in references]
    if spec["task"] == "corpus_bleu_ids":
        def run(p, r):
            return exactbleu.corpus_bleu(p, r)
    elif spec["task"] == "corpus_bleu_joined":
        def run(p, r):
            words = lambda ids: " ".join(map(str, ids))  # noqa: E731
            return exactbleu.corpus_bleu([words(x) for x in p], [[words(y) for y in refs] for refs in r],
                                         tokenizer="none")
    else:
        raise ValueError(spec["task"])
    return run, (predictions, references), (predictions[:WARM_UP], references[:WARM_UP])


TASKS = {
    "sentence_scores": pairs_task, "sentence_bleu_loop": pairs_task, "corpus_bleu": pairs_task,
    "sacrebleu_loop": pairs_task, "nltk_loop": pairs_task, "fast_bleu_loop": pairs_task,
    "self_bleu": texts_task, "corpus_bleu_of_texts": texts_task, "fast_bleu_self": texts_task,
    "texygen_loop": texts_task, "bleu_matrix": matrix_task, "matrix_loop": matrix_task,
    "corpus_bleu_ids": ids_task, "corpus_bleu_joined": ids_task,
}


def plain(value):
    """A result as JSON: arrays and lists as lists of floats (exact through JSON), dicts as they are."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def worker(spec, calls):
    """Runs in its own process: one warm-up call, then `calls` timed calls; every time, the max RSS
    before the first timed call and at the end, and (if the spec keeps it) the first call's result."""
    # Nothing here needs transformers; block it as run.py does, should anything try to import it.
    sys.modules.setdefault("transformers", None)
    warnings.simplefilter("ignore")  # NLTK warns on segments without matches of an order
    run, full, small = TASKS[spec["task"]](spec)
    run(*small)  # untimed warm-up on a small input, in this process
    base_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times, kept = [], None
    for call in range(calls):
        result = None
        gc.collect()
        start = time.perf_counter()
        result = run(*full)
        times.append(time.perf_counter() - start)
        if call == 0 and spec.get("keep"):
            kept = result
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"times": times, "base_mb": base_mb, "peak_mb": peak_mb, "result": plain(kept)}


def measure(spec, calls, isolated=True):
    """One worker's report. ``isolated``: in a fresh process, whose peak memory is its own; the
    smoke run, which checks only that everything runs and agrees, measures most rows in this process."""
    if isolated:
        command = [sys.executable, __file__, "--worker", json.dumps(spec), str(calls)]
        completed = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        if completed.returncode != 0:
            raise RuntimeError(f"{spec} failed:\n{completed.stderr[-3000:]}")
        measured = json.loads(completed.stdout.strip().splitlines()[-1])
    else:
        # What this process holds so far (the peers' modules, above all) is frozen out of the
        # collections before each timed call: they scan the new objects only.
        gc.freeze()
        measured = json.loads(json.dumps(worker(spec, calls)))
    measured["median"] = statistics.median(measured["times"])
    return measured


# ----------------------------------------------------------------------------------------------
# The plan, the ratios and the table.


def sizes(smoke):
    if smoke:
        return {"pairs": 300, "self_small": 100, "self_large": 400, "texygen": [20, 40], "matrix": 60,
                "matrix_loop_rows": 6, "big_matrix": (200, 100), "ids": 300, "huge": 3_000, "huge_columns": 10,
                "short": 1, "loop": 1, "long": 1}
    return {"pairs": 20_000, "self_small": 2_000, "self_large": 8_000, "texygen": [200, 500], "matrix": 600,
            "matrix_loop_rows": 60, "big_matrix": (8_000, 2_000), "ids": 20_000, "huge": 100_000,
            "huge_columns": 100, "short": 5, "loop": 3, "long": 1}


def plan(smoke):
    """(key, row, label, spec, calls) of every measurement, in the order they run."""
    s = sizes(smoke)
    n, short, loop, long = s["pairs"], s["short"], s["loop"], s["long"]
    nltk1 = {"preset": "nltk", "options": {"smooth_method": "method1"}}
    pairs = lambda task, **more: {"task": task, "segments": n, "references": 1, **more}  # noqa: E731
    rows = [
        ("ss", 1, f"sentence_scores, {n:,} × 1 ref", pairs("sentence_scores", keep=True), short),
        ("ss_loop", 1, f"loop of exactbleu.sentence_bleu, {n:,} × 1 ref", pairs("sentence_bleu_loop", keep=True),
         loop),
        ("cb", 1, f"corpus_bleu, {n:,} × 1 ref", pairs("corpus_bleu"), short),
        ("ss_sacre", 2, f'sentence_scores "sacrebleu", {n:,} × 1 ref', pairs("sentence_scores", preset="sacrebleu",
                                                                             keep=True), short),
        ("sacre_loop", 2, f"loop of sacrebleu.sentence_bleu, {n:,} × 1 ref", pairs("sacrebleu_loop", keep=True), loop),
        ("ss_nltk", 2, f'sentence_scores "nltk" method1, {n:,} × 1 ref', pairs("sentence_scores", keep=True, **nltk1),
         short),
        ("nltk_loop", 2, f"loop of NLTK sentence_bleu method1, {n:,} × 1 ref", pairs("nltk_loop", keep=True), loop),
        ("fast_loop", 2, f"loop of fast-bleu BLEU (one object a pair), {n:,} × 1 ref",
         pairs("fast_bleu_loop", keep=True), loop),
    ]
    small, large = s["self_small"], s["self_large"]
    rows += [
        ("self_small", 3, f'self_bleu "nltk" method1, {small:,} texts', {"task": "self_bleu", "segments": small,
                                                                          **nltk1}, short),
        ("self_large", 3, f'self_bleu "nltk" method1, {large:,} texts', {"task": "self_bleu", "segments": large,
                                                                          "keep": True, **nltk1}, short),
        ("self_cb", 3, f'corpus_bleu "nltk" method1, the same {large:,} texts × 1 ref',
         {"task": "corpus_bleu_of_texts", "segments": large, **nltk1}, short),
        ("fast_self", 3, f"fast-bleu SelfBLEU, {large:,} texts", {"task": "fast_bleu_self", "segments": large,
                                                                  "keep": True}, loop),
        ("self_default", 3, f"self_bleu default preset, {large:,} texts", {"task": "self_bleu", "segments": large},
         short),
        ("self_cb_default", 3, f"corpus_bleu default preset, the same {large:,} texts × 1 ref",
         {"task": "corpus_bleu_of_texts", "segments": large}, short),
    ]
    for size in s["texygen"]:
        rows += [
            (f"self_{size}", 3, f'self_bleu "nltk" method1, {size} texts',
             {"task": "self_bleu", "segments": size, "keep": True, **nltk1}, short),
            (f"texygen_{size}", 3, f"Texygen's loop (NLTK sentence_bleu against all the others), {size} texts",
             {"task": "texygen_loop", "segments": size, "keep": True}, long),
        ]
    m, loop_rows = s["matrix"], s["matrix_loop_rows"]
    big_p, big_r = s["big_matrix"]
    matrix = lambda task, p, r, seed, **more: {"task": task, "predictions": p, "columns": r,  # noqa: E731
                                               "column_seed": seed, **more}
    rows += [
        ("matrix", 4, f"bleu_matrix, {m} × {m}", matrix("bleu_matrix", m, m, 0, keep=True), short),
        ("matrix_loop", 4, f"loop of sentence_bleu(p, [r]), {loop_rows} × {m}, time × {m // loop_rows}",
         matrix("matrix_loop", m, m, 0, loop_rows=loop_rows, keep=True), long),
        ("big_matrix", 4, f"bleu_matrix, {big_p:,} × {big_r:,}", matrix("bleu_matrix", big_p, big_r, 1), long),
    ]
    k = s["ids"]
    rows += [
        ("ids", 5, f"corpus_bleu on token ids, {k:,} × 4 refs", {"task": "corpus_bleu_ids", "segments": k,
                                                                  "references": 4, "keep": True}, short),
        ("joined", 5, f'ids joined into words, corpus_bleu tokenizer="none", {k:,} × 4 refs',
         {"task": "corpus_bleu_joined", "segments": k, "references": 4, "keep": True}, short),
    ]
    h, columns = s["huge"], s["huge_columns"]
    rows += [
        ("huge_ss", 6, f"sentence_scores, {h:,} × 1 ref", {"task": "sentence_scores", "segments": h}, long),
        ("huge_self", 6, f"self_bleu default preset, {h:,} texts", {"task": "self_bleu", "segments": h}, long),
        ("huge_matrix", 6, f"bleu_matrix, {h:,} × {columns}", matrix("bleu_matrix", h, columns, 1), long),
        ("huge_ids", 6, f"corpus_bleu on token ids, {h:,} × 1 ref", {"task": "corpus_bleu_ids", "segments": h,
                                                                      "references": 1}, long),
    ]
    return rows


def largest_relative_difference(ours, theirs):
    """max |a - b| / max(|a|, |b|) over the entries (0 where both are 0)."""
    import numpy as np

    a, b = np.asarray(ours, dtype=float).ravel(), np.asarray(theirs, dtype=float).ravel()
    if a.shape != b.shape:
        return float("inf")
    scale = np.maximum(np.abs(a), np.abs(b))
    difference = np.abs(a - b)
    return float(np.max(np.where(scale > 0, difference / np.where(scale > 0, scale, 1), 0), initial=0))


def ratios_and_checks(results, smoke):
    """(row, what, value, goal, met) lines: the ratios the goals use, and the agreement checks."""
    s = sizes(smoke)
    t = lambda key: results[key]["median"]  # noqa: E731
    value = lambda key: results[key]["result"]  # noqa: E731
    lines = []

    def ratio(row, what, numerator, denominator, goal):
        r = numerator / denominator
        lines.append((row, what, f"{r:.3g}", f"≤ {goal}", "yes" if r <= goal else "NO"))

    def agree(row, what, ours, theirs, goal=None, exact=False):
        if exact:
            same = ours == theirs
            if not same:  # a corpus_bleu result is a dict: its BLEU tells how far apart they are
                d = largest_relative_difference(*(x["bleu"] if isinstance(x, dict) else x for x in (ours, theirs)))
            lines.append((row, what, "equal" if same else f"differ (largest relative difference {d:.3g})",
                          "equal", "yes" if same else "NO"))
        else:
            d = largest_relative_difference(ours, theirs)
            lines.append((row, what, f"{d:.3g}", f"≤ {goal:g}" if goal is not None else "",
                          "" if goal is None else ("yes" if d <= goal else "NO")))

    ratio(1, "sentence_scores / loop of sentence_bleu", t("ss"), t("ss_loop"), 0.1)
    ratio(1, "sentence_scores / corpus_bleu", t("ss"), t("cb"), 1.5)
    agree(1, "sentence_scores == loop of sentence_bleu", value("ss"), value("ss_loop"), exact=True)
    ratio(2, 'sentence_scores "sacrebleu" / loop of sacrebleu.sentence_bleu', t("ss_sacre"), t("sacre_loop"), 0.05)
    lines.append((2, 'sentence_scores "nltk" method1 / loop of NLTK', f"{t('ss_nltk') / t('nltk_loop'):.3g}", "", ""))
    lines.append((2, 'sentence_scores "nltk" method1 / loop of fast-bleu BLEU', f"{t('ss_nltk') / t('fast_loop'):.3g}",
                  "", ""))
    agree(2, 'sentence_scores "sacrebleu" == min(1, sacrebleu.sentence_bleu\'s score / 100)', value("ss_sacre"),
          value("sacre_loop"), exact=True)
    agree(2, 'largest relative difference, "nltk" method1 vs NLTK', value("ss_nltk"), value("nltk_loop"), 1e-12)
    agree(2, 'largest relative difference, "nltk" method1 vs fast-bleu BLEU', value("ss_nltk"), value("fast_loop"))
    small, large = s["self_small"], s["self_large"]
    ratio(3, f"self_bleu t({large:,}) / t({small:,})", t("self_large"), t("self_small"), 6)
    ratio(3, f"self_bleu / corpus_bleu, {large:,} texts (nltk method1)", t("self_large"), t("self_cb"), 4)
    lines.append((3, f"self_bleu / corpus_bleu, {large:,} texts (default preset)",
                  f"{t('self_default') / t('self_cb_default'):.3g}", "", ""))
    ratio(3, f"self_bleu / fast-bleu SelfBLEU, {large:,} texts", t("self_large"), t("fast_self"), 0.25)
    agree(3, f"largest relative difference, self_bleu vs fast-bleu SelfBLEU, {large:,} texts", value("self_large"),
          value("fast_self"), 1e-12)
    for size in s["texygen"]:
        lines.append((3, f"self_bleu / Texygen's loop, {size} texts", f"{t(f'self_{size}') / t(f'texygen_{size}'):.3g}",
                      "", ""))
        agree(3, f"largest relative difference, self_bleu vs Texygen's loop, {size} texts", value(f"self_{size}"),
              value(f"texygen_{size}"), 1e-12)
    m, loop_rows = s["matrix"], s["matrix_loop_rows"]
    scale = m // loop_rows
    ratio(4, f"bleu_matrix / loop of sentence_bleu, {m} × {m} (loop time × {scale})", t("matrix"),
          t("matrix_loop") * scale, 0.05)
    agree(4, f"bleu_matrix rows 0..{loop_rows - 1} == loop of sentence_bleu", value("matrix")[:loop_rows],
          value("matrix_loop"), exact=True)
    big_p, big_r = s["big_matrix"]
    lines.append((4, f"bleu_matrix {big_p:,} × {big_r:,}: time", f"{t('big_matrix'):.3g} s", "≤ 60 s",
                  "yes" if t("big_matrix") <= 60 else "NO"))
    ratio(5, "token ids / joined into words", t("ids"), t("joined"), 0.7)
    agree(5, "corpus_bleu on token ids == joined into words", value("ids"), value("joined"), exact=True)
    return lines


def fmt_time(seconds):
    if seconds < 0.1:
        return f"{seconds * 1000:.3g} ms"
    return f"{seconds:.3g} s" if seconds < 100 else f"{seconds:.0f} s"


def render(rows, results, lines):
    table = ["| # | measurement | timed calls | median time | peak memory | before the call |",
             "|---|---|---|---|---|---|"]
    for key, row, label, spec, calls in rows:
        m = results[key]
        time_cell = fmt_time(m["median"])
        if key == "matrix_loop":
            scale = spec["columns"] // spec["loop_rows"]
            time_cell += f" (× {scale} = {fmt_time(m['median'] * scale)})"
        table.append(f"| {row} | {label} | {len(m['times'])} | {time_cell} | {m['peak_mb']:.0f} MB | "
                     f"{m['base_mb']:.0f} MB |")
    table += ["", "| # | ratio or check | value | goal | met |", "|---|---|---|---|---|"]
    table += [f"| {row} | {what} | {value} | {goal} | {met} |" for row, what, value, goal, met in lines]
    table += ["", "TensorBLEU (rxlm 0.3.80) works on token-id tensors: benchmarks/gpu.py compares it, on the same device.",
              "The NLTK and fast-bleu loops split the texts on whitespace inside the timing.",
              "Peak memory is the process's max RSS (imports and inputs included); \"before the call\" is its max RSS "
              "after the inputs and the warm-up call, before the first timed call."]
    return "\n".join(table)


def main(smoke):
    started = time.perf_counter()
    if smoke:
        # NLTK imports scikit-learn and scipy.stats when it finds them, for its classifiers and
        # association measures: 3 s of CPU that no BLEU uses, and the smoke run imports NLTK in this process.
        sys.modules.setdefault("sklearn", None)
        sys.modules.setdefault("scipy.stats", None)
    rows = plan(smoke)
    results = {}
    for index, (key, row, label, spec, calls) in enumerate(rows, start=1):
        # A smoke run starts a process for its first row only, which checks the workers' command line.
        measured = measure(spec, calls, isolated=not smoke or index == 1)
        results[key] = measured
        print(f"[{index}/{len(rows)}] row {row}: {label}: {fmt_time(measured['median'])} "
              f"(median of {calls}), peak {measured['peak_mb']:.0f} MB, before the call {measured['base_mb']:.0f} MB",
              flush=True)
    lines = ratios_and_checks(results, smoke)
    print()
    print(render(rows, results, lines))
    print(f"\n{len(rows)} measurements in {time.perf_counter() - started:.0f} s"
          + (" (smoke: tiny sizes, the goals do not apply)" if smoke else ""), flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        print(json.dumps(worker(json.loads(sys.argv[2]), int(sys.argv[3]))))
    else:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--smoke", action="store_true", help="tiny sizes; checks that the benchmark runs")
        main(parser.parse_args().smoke)
