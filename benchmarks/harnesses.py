"""exactbleu.lm_eval against lm-evaluation-harness's own BLEU, in one run: the bootstrap standard error
of a task's BLEU at 1,000 resamples of the samples' rows, against lm-eval's own ``bleu`` stderr at
the 100 resamples it caps BLEU at (each running sacrebleu on the strings, in a process pool as lm-eval
runs it); and, on the same multi-reference sets, how often and by how much each harness's own BLEU
(lm-eval's ``bleu``; LightEval's corpus ``bleu``, as the "lighteval" preset) differs from BLEU over
every reference.

    python benchmarks/harnesses.py           # 2,000 WMT17 samples; 200 sets of 50 segments
    python benchmarks/harnesses.py --smoke   # tiny sizes: it runs, and the numbers agree

The samples are WMT17 English-German segments (online-B.0 against the reference); the multi-reference
sets give each segment one to four references, three of them other systems' outputs. Times are the
best of three runs each.
"""

import argparse
import json
import pathlib
import random
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sacrebleu  # noqa: E402
from lm_eval.api.metrics import bleu as lm_evals_bleu  # noqa: E402
from lm_eval.api.metrics import bootstrap_stderr  # noqa: E402

import exactbleu  # noqa: E402
from exactbleu.lm_eval import TaskMetric  # noqa: E402

WMT17 = ROOT / "tests" / "data" / "wmt17-en-de"
SYSTEMS = ["online-B.0", "KIT.4950", "uedin-nmt.4722", "online-A.0"]


def read_lines(path: pathlib.Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def best_of(runs: int, work) -> tuple[float, object]:
    times, value = [], None
    for _ in range(runs):
        start = time.perf_counter()
        value = work()
        times.append(time.perf_counter() - start)
    return min(times), value


def stderr_timings(samples: int, ours_resamples: int, theirs_resamples: int) -> list[list[str]]:
    reference = read_lines(WMT17 / "newstest2017.ref.de")[:samples]
    predictions = read_lines(WMT17 / "systems" / f"{SYSTEMS[0]}.de")[:samples]
    metric = TaskMetric(n_bootstrap=ours_resamples)
    counting, rows = best_of(3, lambda: [metric.process_results({"references": [r]}, [p])["bleu"]
                                         for p, r in zip(predictions, reference)])
    ours, our_error = best_of(3, lambda: metric.bleu_standard_error(rows))
    theirs, their_error = best_of(3, lambda: bootstrap_stderr(lm_evals_bleu, list(zip(reference, predictions)),
                                                               iters=theirs_resamples))
    return [["exactbleu.lm_eval `bleu_standard_error`", f"{ours_resamples:,}", f"{ours:.3f} s",
             f"{our_error:.4f}", f"+ {counting:.3f} s counting the {samples:,} samples' rows"],
            ["lm-eval's own `bleu` stderr", f"{theirs_resamples:,}", f"{theirs:.3f} s", f"{their_error:.4f}", ""]]


def reference_departures(sets: int, segments: int) -> dict[str, list[float]]:
    """By how many BLEU points each harness's own BLEU departs from BLEU over every reference, set by
    set: lm-eval's own ``bleu``, called directly, and LightEval's corpus ``bleu`` as the "lighteval"
    preset gives it (the tests check the preset against LightEval's own function)."""
    rng = random.Random(2026)
    reference = read_lines(WMT17 / "newstest2017.ref.de")
    outputs = {name: read_lines(WMT17 / "systems" / f"{name}.de") for name in SYSTEMS}
    metric = TaskMetric()
    differences: dict[str, list[float]] = {"lm-eval's own `bleu`": [], "LightEval's own corpus `bleu`": []}
    for _ in range(sets):
        lines = rng.sample(range(len(reference)), segments)
        predictions = [outputs[SYSTEMS[0]][line] for line in lines]
        references = [[reference[line], *(outputs[name][line] for name in SYSTEMS[1:])][: rng.randint(1, 4)]
                      for line in lines]
        width = max(len(group) for group in references)
        streams = [[group[j] if j < len(group) else None for group in references] for j in range(width)]
        every = sacrebleu.corpus_bleu(predictions, streams).score
        assert metric.bleu([metric.process_results({"references": group}, [prediction])["bleu"]
                            for prediction, group in zip(predictions, references)]) == every
        first = 100 * exactbleu.corpus_bleu(predictions, references, "lighteval")["bleu"]
        for name, theirs in zip(differences, (lm_evals_bleu(list(zip(references, predictions))), first)):
            differences[name].append(abs(theirs - every))
    return differences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, to check that it runs")
    smoke = parser.parse_args().smoke
    samples, sets, segments = (200, 5, 20) if smoke else (2000, 200, 50)
    rows = stderr_timings(samples, 100 if smoke else 1000, 10 if smoke else 100)
    print(f"Bootstrap standard error of a task's BLEU, {samples:,} samples (best of 3):\n")
    print("| | resamples | time | standard error | |\n|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    departures = reference_departures(sets, segments)
    print(f"\nEach harness's own BLEU against BLEU over every reference, {sets} sets of {segments} segments with 1 "
          f"to 4 references each:\n")
    print("| | sets where it differs | median difference | largest difference |\n|---|---|---|---|")
    for name, differences in departures.items():
        print(f"| {name} | {sum(difference > 0 for difference in differences)} of {sets} | "
              f"{statistics.median(differences):.2f} BLEU | {max(differences):.2f} BLEU |")
    differing = {name: sum(difference > 0 for difference in differences) for name, differences in departures.items()}
    print(json.dumps({"samples": samples, "sets": sets, "differing": differing}))

if __name__ == "__main__":
    main()
