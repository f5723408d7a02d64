"""exactbleu.coco against pycocoevalcap 1.2, the COCO caption evaluation, in one run: its
``PTBTokenizer().tokenize`` (Stanford CoreNLP's jar through Java, the JVM's start included) against
exactbleu's, on every caption; and its ``Bleu(4).compute_score`` (Bleu_1 to Bleu_4, the corpus's and
each image's) against exactbleu's, on the tokenized captions. Both give the same tokens and floats:
the run checks that too.

    python benchmarks/captions.py           # 5,000 images x 5 references: 25,000 captions, and a result each
    python benchmarks/captions.py --smoke   # 200 images: it runs, and the answers agree

The captions are pycocoevalcap's example results (tests/data/coco/, 1,000 of them): each image's
result is one of them, and its references that caption with a word dropped or two swapped, and
other images' captions, as a captioning test set's references resemble its results. Times are the
best of three runs each.
"""

import argparse
import contextlib
import io
import json
import pathlib
import random
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pycocoevalcap.bleu.bleu import Bleu as TheirBleu  # noqa: E402
from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer as TheirTokenizer  # noqa: E402

from exactbleu import coco  # noqa: E402

CAPTIONS = ROOT / "tests" / "data" / "coco" / "captions_val2014_fakecap_results.json"


def images(count: int, seed: int = 5) -> tuple[dict[int, list[dict[str, str]]], dict[int, list[dict[str, str]]]]:
    """``count`` images, each with a result and five references, as COCO's annotations hold them."""
    rng = random.Random(seed)
    captions = [result["caption"] for result in json.loads(CAPTIONS.read_text(encoding="utf-8"))]
    results, references = {}, {}
    for image in range(count):
        caption = captions[image % len(captions)]
        words = caption.split()
        cut = rng.randrange(len(words))
        swapped = words[:]
        place = rng.randrange(max(1, len(words) - 1))
        swapped[place:place + 2] = swapped[place:place + 2][::-1]
        made = [" ".join(words[:cut] + words[cut + 1:]).capitalize() + ".", " ".join(swapped)]
        made += [rng.choice(captions) for _ in range(3)]
        results[image] = [{"caption": caption}]
        references[image] = [{"caption": one} for one in made]
    return results, references


def best_of(runs: int, work) -> tuple[float, object]:
    times, value = [], None
    for _ in range(runs):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            value = work()
        times.append(time.perf_counter() - start)
    return min(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, to check that it runs")
    smoke = parser.parse_args().smoke
    results, references = images(200 if smoke else 5000)
    theirs_tokens, ours_tokens = TheirTokenizer(), coco.PTBTokenizer()
    their_time, their_gts = best_of(3, lambda: theirs_tokens.tokenize(references))
    our_time, our_gts = best_of(3, lambda: ours_tokens.tokenize(references))
    res = ours_tokens.tokenize(results)
    their_score_time, theirs = best_of(3, lambda: TheirBleu(4).compute_score(their_gts, res))
    our_score_time, ours = best_of(3, lambda: coco.Bleu(4).compute_score(our_gts, res))
    captions = sum(map(len, references.values()))
    rows = [("tokenizing the references (`PTBTokenizer().tokenize`)", f"{captions:,} captions", their_time, our_time,
             0.5, our_gts == their_gts),
            ("Bleu_1 to Bleu_4, corpus and each image (`Bleu(4).compute_score`)", f"{len(results):,} images",
             their_score_time, our_score_time, 0.1, ours == theirs)]
    print("| step | size | pycocoevalcap | exactbleu.coco | ratio | goal | the same answer |")
    print("|---|---|---|---|---|---|---|")
    for step, size, their, our, goal, same in rows:
        print(f"| {step} | {size} | {their:.3f} s | {our:.3f} s | {our / their:.3f} | ≤ {goal:g} | "
              f"{'yes' if same else 'NO'} |")
    print(json.dumps({"bleu": ours[0], "images": len(results)}))  # type: ignore[index]


if __name__ == "__main__":
    main()
