"""Benchmark: this module against bleuscore (Rust), sacrebleu, NLTK and HF's algorithm, in one run.

    python benchmarks/run.py            # every size; rewrites docs/performance.md's table
                                        # and benchmarks/scaling.png
    python benchmarks/run.py --smoke    # tiny sizes, nothing rewritten: checks that it runs
    python benchmarks/run.py --before DIR   # this tree against another checkout of it (say, the
                                            # commit before a change), interleaved, row by row

Each measurement runs in a fresh process, so its peak memory (max RSS) is its own (the smoke run
starts one, for its first row, and measures the rest in its own process). Times are
medians of the end-to-end call: `metric.compute(...)` through evaluate with default settings,
`bleuscore.compute`, `BLEU().corpus_score`, NLTK's `corpus_bleu` on whitespace tokens, and a plain
restatement of HF's algorithm. Ours and bleuscore are interleaved: round after round, a process of
ours then one of bleuscore's, and each median is over every call of every round, so a slow spell of
the machine falls on both. The other peers run once per row. Ratios are taken within this one run.

Every timed call, whichever implementation it times, follows the same untimed preparation: the
garbage is collected and a new metric object of ours is loaded. So our reference cache never
helps (except in the "same references again" row, which measures exactly that), and every call
starts from the same state of the process's caches and thread pools, as a training loop's
evaluation does after a training step. (Timed back to back instead, bleuscore is up to 2.4 times
faster on small calls, where its thread pool stays awake and the caches warm.) The "another
thread alive" row keeps a second thread running in the process, as a training process has (a data
loader, a logger): it wakes every millisecond to do a little Python work.
"""

import argparse
import gc
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
WMT17 = ROOT / "tests" / "data" / "wmt17-en-de"
IMPLEMENTATIONS = ["ours", "bleuscore", "sacrebleu", "nltk", "hf"]


def load_corpus(spec):
    """(predictions, references as one list per prediction) for a size spec."""
    if spec["kind"] in ("wmt17", "paired"):
        read = lambda path: path.read_text(encoding="utf-8").split("\n")[:-1]  # noqa: E731
        lines = spec.get("lines")  # the first lines only (the smoke run's)
        reference = read(WMT17 / "newstest2017.ref.de")[:lines]
        systems = sorted((WMT17 / "systems").glob("*.de"))[: spec.get("systems", 16)]
        return [read(path)[:lines] for path in systems], [[line] for line in reference]
    sys.path.insert(0, str(HERE))
    from corpus import make_corpus

    predictions, references = make_corpus(spec["segments"], spec["references"], seed=spec.get("seed", 0))
    if spec["kind"] == "paired-synthetic":  # two systems against the same references
        return [predictions, make_corpus(spec["segments"], 1, seed=1)[0]], references
    return predictions, references


def paired_runner(name):
    """A function (systems, references) running the paired bootstrap of every system against the
    first, 1000 resamples, in sacrebleu's convention: ours, or sacrebleu's PairedTest."""
    if name in ("ours", "before"):
        return lambda systems, references, metric: metric.paired_test(dict(enumerate(systems)), references)
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    return lambda systems, references: PairedTest(list(enumerate(systems)), {"BLEU": BLEU()}, [references],
                                                   test_type="bs")()


def runner(name, kind="synthetic"):
    """A function (predictions, references) -> BLEU in [0, 1], set up outside the timing."""
    if name in ("ours", "before") and kind == "explain":  # every segment worked out, one at a time
        return lambda p, r, metric: sum(len(segment["orders"]) for segment in metric.explain(p, r))
    if name in ("ours", "before"):
        # An evaluate module is falsy while it holds no data (its __len__ is 0): test for None.
        return lambda p, r, metric: metric.compute(predictions=p, references=r)["bleu"]
    if name == "bleuscore":
        import bleuscore

        return lambda p, r: bleuscore.compute(r, p, 4, False)["bleu"]
    if name == "sacrebleu":
        from sacrebleu.metrics import BLEU

        sys.path.insert(0, str(ROOT / "tests"))
        from oracles import streams

        return lambda p, r: BLEU().corpus_score(p, streams(r)).score / 100
    if name == "nltk":
        import warnings

        from nltk.translate.bleu_score import corpus_bleu

        def score(p, r):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return corpus_bleu([[x.split() for x in refs] for refs in r], [x.split() for x in p])

        return score
    if name == "hf":
        sys.path.insert(0, str(ROOT / "tests"))
        from oracles import hf_bleu

        return lambda p, r: hf_bleu(p, r)["bleu"]
    raise ValueError(name)


def background_thread():
    """A thread that stays alive beside the timed calls, as in a training process; stop it with
    the returned function."""
    stop = threading.Event()

    def run():
        beats = 0
        while not stop.wait(0.001):
            beats = sum(range(100)) + beats % 7  # a little Python work, holding the GIL briefly

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def finish():
        stop.set()
        thread.join()

    return finish


def worker(name, spec, calls):
    """Runs in its own process: times `calls` calls and reports every time and the max RSS."""
    predictions, references = load_corpus(spec)
    paired = spec["kind"].startswith("paired")
    score = paired_runner(name) if paired else runner(name, spec["kind"])
    stop_thread = background_thread() if spec.get("thread") else None
    times, scores = [], []
    os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
    # evaluate imports transformers whenever it is installed (for its evaluators): 6 s and
    # hundreds of MB per process here, which no BLEU uses. Every worker blocks it alike, so the
    # times and peaks are BLEU's, as on a machine without transformers.
    sys.modules.setdefault("transformers", None)
    import evaluate  # imported here, outside the timing

    for _ in range(calls):
        # The same untimed preparation before every timed call, whichever implementation is timed:
        # the previous call's metric goes, the garbage is collected, and a new metric object of
        # ours is loaded (a cold reference cache; the paired test in sacrebleu's convention).
        # Ours needs it; the others get it too, so that every timed call starts from the same
        # state of the process's caches and thread pools, as in a training loop, where each
        # evaluation follows other work.
        metric = call = None
        gc.collect()
        metric = evaluate.load(str(metric_root(name) / "bleu_metric.py"), "sacrebleu" if paired else None)
        call = (lambda p, r: score(p, r, metric)) if name in ("ours", "before") else score
        start = time.perf_counter()
        if paired:  # every system against the first, one call
            call([system for system in predictions], [line for [line] in references])
            scores.append(None)
        elif spec["kind"] == "wmt17":  # the 16 systems against one reference, one call each
            scores.append([call(system, references) for system in predictions])
        elif spec.get("again"):  # the training-loop pattern: the same references a second time
            call(predictions, references)
            start = time.perf_counter()
            scores.append(call(predictions[::-1][::-1], references))
        else:
            scores.append(call(predictions, references))
        times.append(time.perf_counter() - start)
    if stop_thread:
        stop_thread()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"times": times, "peak_mb": peak_mb, "score": scores[0]}


def metric_root(name):
    """The checkout whose bleu_metric.py a worker times: this one, or --before's."""
    return pathlib.Path(os.environ["BENCHMARK_BEFORE"]) if name == "before" else ROOT


def measure(name, spec, calls, isolated=True):
    """One worker's report. ``isolated``: in a fresh process, whose peak memory is its own; the
    smoke run, which checks only that everything runs, measures most rows in this process."""
    if not isolated:
        # What this process holds so far (evaluate's and the peers' modules, above all) is frozen out
        # of the collections that each call's untimed preparation starts: they scan the new objects only.
        gc.freeze()
        return json.loads(json.dumps(worker(name, spec, calls)))
    command = [sys.executable, __file__, "--worker", name, json.dumps(spec), str(calls)]
    # The other checkout's package comes first on the path, before the one installed from here.
    env = dict(os.environ, PYTHONPATH=str(metric_root(name))) if name == "before" else None
    completed = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
    if completed.returncode != 0:
        raise RuntimeError(f"{name} on {spec} failed:\n{completed.stderr[-3000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def measure_row(spec, names, rounds, calls, isolated=True):
    """Ours and bleuscore interleaved over `rounds` rounds of `calls` calls each; the others once.
    Returns {name: {"median", "times", "peak_mb", "score"}}."""
    measured = {}
    interleaved = [name for name in ("ours", "bleuscore", "before") if name in names]
    for _ in range(rounds):
        for name in interleaved:
            one = measure(name, spec, calls, isolated)
            if name in measured:
                measured[name]["times"] += one["times"]
                measured[name]["peak_mb"] = max(measured[name]["peak_mb"], one["peak_mb"])
            else:
                measured[name] = one
    for name in names:
        if name not in interleaved:
            measured[name] = measure(name, spec, calls, isolated)
    for one in measured.values():
        one["median"] = statistics.median(one["times"])
    return measured


def plan(smoke):
    """(label, spec, implementations, rounds, calls per round) rows of the main table, and the
    scaling sizes."""
    if smoke:
        # Every implementation once, on one row that HF's algorithm checks, and each other kind of
        # row with ours and at most one peer. The first row, in a process of its own, has one.
        rows = [
            ("500 × 1 ref, another thread alive", {"kind": "synthetic", "segments": 500, "references": 1,
                                                   "thread": True}, ["ours"], 1, 3),
            ("200 × 1 ref", {"kind": "synthetic", "segments": 200, "references": 1}, IMPLEMENTATIONS, 1, 1),
            ("WMT17, 2 systems × 500", {"kind": "wmt17", "systems": 2, "lines": 500}, ["ours", "sacrebleu"], 1, 1),
            ("paired bootstrap, 2 systems × 500", {"kind": "paired", "systems": 2, "lines": 500}, ["ours", "sacrebleu"],
             1, 1),
            ("paired bootstrap, 2 × 1k × 1000 resamples", {"kind": "paired-synthetic", "segments": 1_000,
                                                            "references": 1}, ["ours"], 1, 1),
            ("explain, 500 segments, streamed", {"kind": "explain", "segments": 500, "references": 1}, ["ours"], 1, 1),
        ]
        return rows, [100, 300]
    rows = [
        ("50k × 1 ref", {"kind": "synthetic", "segments": 50_000, "references": 1},
         ["ours", "bleuscore", "sacrebleu", "hf"], 5, 1),
        ("50k × 1 ref, another thread alive", {"kind": "synthetic", "segments": 50_000, "references": 1,
                                               "thread": True}, ["ours", "bleuscore"], 5, 1),
        ("10k × 4 refs", {"kind": "synthetic", "segments": 10_000, "references": 4},
         ["ours", "bleuscore", "sacrebleu", "hf"], 5, 1),
        ("WMT17, 16 systems × 3004", {"kind": "wmt17"}, ["ours", "bleuscore", "sacrebleu", "hf"], 5, 1),
        ("1k × 1 ref", {"kind": "synthetic", "segments": 1_000, "references": 1}, IMPLEMENTATIONS, 5, 5),
        ("8 segments", {"kind": "synthetic", "segments": 8, "references": 1}, ["ours", "bleuscore", "hf"], 5, 201),
        ("50k × 1 ref, same references again", {"kind": "synthetic", "segments": 50_000, "references": 1,
                                                "again": True}, ["ours", "bleuscore"], 5, 1),
        ("paired bootstrap, WMT17 16 systems × 1000 resamples", {"kind": "paired"}, ["ours", "sacrebleu"], 3, 1),
        ("paired bootstrap, 2 systems × 1M × 1000 resamples", {"kind": "paired-synthetic", "segments": 1_000_000,
                                                                "references": 1}, ["ours"], 1, 1),
        ("explain, 100k segments, streamed", {"kind": "explain", "segments": 100_000, "references": 1}, ["ours"], 1, 1),
    ]
    return rows, [10_000, 100_000, 1_000_000]


SCALING_ROUNDS = 3
# Rows that show memory stays bounded on work the others cannot do at that size: a table of their own.
BOUNDED_MEMORY_KINDS = ("paired-synthetic", "explain")


def main(smoke):
    if smoke:
        # NLTK imports scikit-learn for its classifiers when it finds it, 1 s of CPU that no BLEU uses,
        # and the smoke run imports NLTK in this process.
        sys.modules.setdefault("sklearn", None)
    rows, scaling_sizes = plan(smoke)
    results = []
    for index, (label, spec, names, rounds, calls) in enumerate(rows):
        # A smoke run starts a process for its first row only, which checks the workers' command line.
        measured = measure_row(spec, names, rounds, calls, isolated=not smoke or index == 0)
        results.append((label, spec, measured))
        print(label, {name: round(m["median"], 4) for name, m in measured.items()}, flush=True)
    scaling = {}
    for size in scaling_sizes:
        # Ours and bleuscore interleaved over rounds, as in the table: time(1M) / time(100k) is a
        # ratio of two medians, not of two single calls, which move by 10% from run to run.
        names = ["ours"] + ([] if smoke else ["bleuscore"] + (["sacrebleu", "hf"] if size < 1_000_000 else []))
        measured = measure_row({"kind": "synthetic", "segments": size, "references": 1}, names,
                               1 if smoke else SCALING_ROUNDS, 1, isolated=not smoke)
        for name in names:
            scaling[(name, size)] = measured[name]
            print("scaling", name, size, round(measured[name]["median"], 3), flush=True)
    check_exactness(results)
    table = render(results, scaling, scaling_sizes)
    print(table)
    if not smoke:
        plot(scaling, scaling_sizes, HERE / "scaling.png")
        write_readme_section(table)
    else:
        import tempfile

        with tempfile.TemporaryDirectory() as scratch:  # the plot is drawn, and nothing is left behind
            plot(scaling, scaling_sizes, pathlib.Path(scratch) / "scaling.png")


def compare(before, smoke):
    """Every row of the table, ours against the checkout in ``before``, interleaved in one run:
    a change must not make any row more than 10% slower."""
    os.environ["BENCHMARK_BEFORE"] = str(pathlib.Path(before).resolve())
    rows, _ = plan(smoke)
    print("| row | before | after | after / before |\n|---|---|---|---|")
    for label, spec, _, rounds, calls in rows:
        if spec["kind"] in BOUNDED_MEMORY_KINDS:
            continue  # what an older checkout could not do in bounded memory (1M segments x 1000 resamples)
        measured = measure_row(spec, ["ours", "before"], rounds, calls)
        if not spec["kind"].startswith("paired") and measured["ours"]["score"] != measured["before"]["score"]:
            raise SystemExit(f"{label}: the scores differ: {measured['ours']['score']} against {measured['before']['score']}")
        after, was = measured["ours"]["median"], measured["before"]["median"]
        print(f"| {label} | {was * 1000:.3g} ms | {after * 1000:.3g} ms | {after / was:.2f} |", flush=True)


def check_exactness(results):
    """Every implementation that follows HF's algorithm must agree with ours on every row."""
    for label, spec, measured in results:
        ours = measured["ours"]["score"]
        for name in ("hf",):
            if name in measured and measured[name]["score"] != ours:
                raise SystemExit(f"{label}: ours {ours} differs from {name} {measured[name]['score']}")


def render(results, scaling, scaling_sizes):
    lines = [
        "| corpus | ours | bleuscore (Rust) | sacrebleu | NLTK | HF's algorithm | ours / bleuscore | ours / sacrebleu |",
        "|---|---|---|---|---|---|---|---|",
    ]
    def fmt(measured):  # three significant digits under 0.1 s, where "0.0003 s" would hide a 30% difference
        seconds = measured["median"]
        return f"{seconds * 1000:.3g} ms" if seconds < 0.1 else f"{seconds:.2f} s"

    bounded = [(label, measured) for label, spec, measured in results if spec["kind"] in BOUNDED_MEMORY_KINDS]
    for label, spec, measured in results:
        if spec["kind"] in BOUNDED_MEMORY_KINDS:
            continue
        cells = [fmt(measured[name]) if name in measured else "" for name in IMPLEMENTATIONS]
        ours = measured["ours"]["median"]
        ratio = lambda name: f"{ours / measured[name]['median']:.2f}×" if name in measured else ""  # noqa: E731
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {ratio('bleuscore')} | {ratio('sacrebleu')} |")
    lines += ["", "| scaling (× 1 reference) | " + " | ".join(f"{size:,} segments" for size in scaling_sizes) + " |",
              "|---|" + "---|" * len(scaling_sizes)]
    for name in ["ours", "bleuscore", "sacrebleu", "hf"]:
        cells = []
        for size in scaling_sizes:
            m = scaling.get((name, size))
            cells.append(f"{m['median']:.2f} s, {m['peak_mb']:.0f} MB peak" if m else "")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    ours = [scaling[("ours", size)]["median"] for size in scaling_sizes]
    lines += ["", f"time({scaling_sizes[-1]:,}) / time({scaling_sizes[-2]:,}) for ours: {ours[-1] / ours[-2]:.2f}"]
    lines += ["", "| bounded memory (ours only) | time | peak memory of the process |", "|---|---|---|"]
    lines += [f"| {label} | {fmt(measured['ours'])} | {measured['ours']['peak_mb']:.0f} MB |" for label, measured in bounded]
    return "\n".join(lines)


def plot(scaling, sizes, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    for name in ["ours", "bleuscore", "sacrebleu", "hf"]:
        points = [(size, scaling[(name, size)]["median"]) for size in sizes if (name, size) in scaling]
        axes.plot(*zip(*points), marker="o", label=name)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("segments (1 reference each, ~25 tokens)")
    axes.set_ylabel("seconds, end to end")
    axes.set_title("Corpus BLEU: time against corpus size")
    axes.legend()
    axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    print("wrote", path)


def write_readme_section(table):
    readme = ROOT / "docs" / "performance.md"
    text = readme.read_text(encoding="utf-8")
    start, end = "<!-- benchmark:start -->", "<!-- benchmark:end -->"
    machine = f"{os.cpu_count()} cores, Python {sys.version.split()[0]}"
    section = f"{start}\nMeasured by `python benchmarks/run.py` on {machine}:\n\n{table}\n\n{end}"
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    readme.write_text(head + section + tail, encoding="utf-8")
    print("updated", readme)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        print(json.dumps(worker(sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4]))))
    else:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--smoke", action="store_true", help="tiny sizes; checks that the benchmark runs")
        parser.add_argument("--before", metavar="DIR", help="compare with the checkout in DIR, row by row")
        arguments = parser.parse_args()
        if arguments.before:
            compare(arguments.before, arguments.smoke)
        else:
            main(arguments.smoke)
