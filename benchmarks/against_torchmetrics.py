"""exactbleu.torchmetrics against torchmetrics' own BLEUScore, in one run: how often torchmetrics
gives another number than the one it documents (NLTK's corpus_bleu), and of which kind, on random
small corpora; and the time of ``update`` + ``compute``.

    python benchmarks/against_torchmetrics.py           # 300 corpora; 10k segments of text; 8192 x 256 token ids
    python benchmarks/against_torchmetrics.py --smoke   # tiny sizes: it runs, and ours is NLTK's

The corpora: 1 to 8 segments of 0 to 9 words from 8 words, 1 to 3 references each, n_gram 1 to 4,
smoothed or not, a third with uneven weights; few words, so that orders go without a match and
references tie for the closest length. A torchmetrics number counts as other than NLTK's where it
differs beyond float32's precision (every one differs in float64's last digits); each is put down to
the first cause that explains it: an order without a match (torchmetrics returns 0), a prediction
shorter than n_gram (NLTK counts one possible n-gram there), a tie for the closest reference
(torchmetrics takes the first), or another. Times are medians of several calls, alternating,
each on a fresh metric; torchmetrics takes token ids only as text, so its row of ids times it on the
same ids written as words, and the time of writing them is given beside.
"""

import argparse
import math
import pathlib
import random
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
if "--smoke" in sys.argv:
    # NLTK imports scikit-learn for its classifiers when it finds it: 1 s of CPU that no BLEU uses.
    sys.modules.setdefault("sklearn", None)

import torch  # noqa: E402
import torchmetrics.text  # noqa: E402
from corpus import make_corpus  # noqa: E402
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu  # noqa: E402

import exactbleu  # noqa: E402
from exactbleu.torchmetrics import BLEUScore  # noqa: E402

WORDS = "a b c d e the cat sat".split()


def random_corpus(rng):
    size = rng.randint(1, 8)
    sentence = lambda: " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 9)))  # noqa: E731
    predictions = [sentence() for _ in range(size)]
    references = [[sentence() for _ in range(rng.randint(1, 3))] for _ in range(size)]
    n_gram = rng.randint(1, 4)
    weights = [rng.random() + 0.01 for _ in range(n_gram)] if rng.random() < 1 / 3 else None
    return predictions, references, {"n_gram": n_gram, "smooth": rng.random() < 0.5, "weights": weights}


def nltk_number(predictions, references, n_gram, smooth, weights):
    import warnings

    with warnings.catch_warnings():  # NLTK warns where an order has no match
        warnings.simplefilter("ignore")
        return corpus_bleu([[r.split() for r in group] for group in references], [p.split() for p in predictions],
                           weights=tuple(weights) if weights else (1 / n_gram,) * n_gram,
                           smoothing_function=SmoothingFunction().method2 if smooth else None)


def cause(predictions, references, arguments):
    """Why torchmetrics' number is another: the first cause that explains it."""
    counted = exactbleu.statistics(predictions, references, "nltk", max_order=arguments["n_gram"])
    if min(counted.sums().matches) == 0:
        return "an order without a match: 0"
    if any(len(prediction.split()) < arguments["n_gram"] for prediction in predictions):
        return "a prediction shorter than n_gram: NLTK counts one possible n-gram there, torchmetrics none"
    for prediction, group in zip(predictions, references):
        length = len(prediction.split())
        distances = sorted(abs(len(reference.split()) - length) for reference in group)
        if len(distances) > 1 and distances[0] == distances[1]:
            lengths = [len(reference.split()) for reference in group]
            closest = [size for size in lengths if abs(size - length) == distances[0]]
            if lengths[[abs(size - length) for size in lengths].index(distances[0])] != min(closest):
                return "a tie for the closest reference: the first, not the shorter"
    return "another cause"


def departures(count, seed=0):
    """How often torchmetrics' number is another than NLTK's, by cause; and that ours never is."""
    rng, found, ours_wrong = random.Random(seed), {}, 0
    for _ in range(count):
        predictions, references, arguments = random_corpus(rng)
        right = nltk_number(predictions, references, **arguments)
        ours = BLEUScore(**arguments)(predictions, references).item()
        theirs = torchmetrics.text.BLEUScore(**arguments)(predictions, references).item()
        ours_wrong += ours != right
        if not math.isclose(theirs, right, rel_tol=1e-6, abs_tol=1e-30):
            kind = cause(predictions, references, arguments)
            found[kind] = found.get(kind, 0) + 1
    return found, ours_wrong


def timed(call, rounds):
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def update_and_compute(metric, predictions, references):
    metric.update(predictions, references)
    return metric.compute()


def id_batch(rows, width, seed=0):
    """A batch of token ids as a model gives it: rows of 32k-vocabulary ids, half to all the width
    long, padded with 0, one reference each with 30% of its ids changed."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(width // 2, width + 1, rows)
    predictions = rng.integers(1, 32_000, (rows, width))
    references = predictions.copy()
    changed = rng.random(references.shape) < 0.3
    references[changed] = rng.integers(1, 32_000, int(changed.sum()))
    keep = np.arange(width) < lengths[:, None]
    return np.where(keep, predictions, 0), np.where(keep, references, 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes")
    smoke = parser.parse_args().smoke
    count, segments, (rows, width), rounds = (20, 100, (16, 32), 1) if smoke else (300, 10_000, (8192, 256), 5)

    found, ours_wrong = departures(count)
    print(f"| {count} random corpora | number |\n|---|---|")
    print(f"| torchmetrics' number another than NLTK's | {sum(found.values())} |")
    for kind, number in sorted(found.items()):
        print(f"| ... {kind} | {number} |")
    print(f"| ours another than NLTK's | {ours_wrong} |\n")
    if ours_wrong:
        raise SystemExit("exactbleu.torchmetrics gave another number than NLTK's")

    predictions, references = make_corpus(segments, 1, seed=3)
    ids, referenced = id_batch(rows, width)
    as_words = lambda array: [" ".join(map(str, row[row > 0])) for row in array]  # noqa: E731
    id_words = (as_words(ids), [[one] for one in as_words(referenced)])
    tensors = torch.tensor(ids), torch.tensor(referenced)[:, None, :]
    measured = {
        "text": (timed(lambda: update_and_compute(BLEUScore(), predictions, references), rounds),
                 timed(lambda: update_and_compute(torchmetrics.text.BLEUScore(), predictions, references), rounds)),
        "ids": (timed(lambda: update_and_compute(BLEUScore(ignore_ids=[0]), *tensors), rounds),
                timed(lambda: update_and_compute(torchmetrics.text.BLEUScore(), *id_words), rounds)),
    }
    writing = timed(lambda: (as_words(ids), as_words(referenced)), rounds)
    same = update_and_compute(BLEUScore(ignore_ids=[0]), *tensors).item() == update_and_compute(
        BLEUScore(), *id_words).item() == nltk_number(*id_words, 4, False, None)
    print("| update + compute | exactbleu.torchmetrics | torchmetrics | ours / theirs |\n|---|---|---|---|")
    print(f"| {segments:,} segments of text | {measured['text'][0]:.3f} s | {measured['text'][1]:.3f} s | "
          f"{measured['text'][0] / measured['text'][1]:.3f} |")
    print(f"| {rows:,} x {width} token ids (a CPU tensor) | {measured['ids'][0]:.3f} s | {measured['ids'][1]:.3f} s "
          f"(+ {writing:.3f} s writing them as words) | {measured['ids'][0] / measured['ids'][1]:.3f} |")
    print(f"\nthe ids' number is the same ids' as words and NLTK's: {'yes' if same else 'NO'}")
    if not same:
        raise SystemExit("the ids' number differs")


if __name__ == "__main__":
    main()
