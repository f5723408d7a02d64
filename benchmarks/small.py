"""Small inputs: one sentence, a few, and an RL step's rewards, against the peers, in one run.

    python benchmarks/small.py           # the tables
    python benchmarks/small.py --smoke   # tiny sizes: it runs, and the numbers agree

1. One call on one sentence pair, and a corpus of 8 segments: each implementation in a process of
   its own, warmed up on other segments, then timed over one pass of 2,000 distinct WMT17
   English-German pairs (online-B.0 against the reference; corpora: 250 runs of 8 consecutive
   segments), so that no cache of a previous call helps (sacrebleu keeps its tokenizer's results).
   A time is the mean per call of that pass, the best of three passes in three processes. (The
   smoke run starts a process for the first implementation only, and runs the rest in its own.)
2. One RL step's rewards: 1,024 completions in groups of 8 (eight systems' outputs of each of 128
   segments, each group sharing its reference), scored per sample and batched by
   ``exactbleu.rewards``, against the reward that translation RL recipes copy (sacrebleu's
   ``corpus_bleu`` on one sentence, its printed score parsed with a regular expression) and
   ``sacrebleu.sentence_bleu`` per sample; and the batched form with each completion's reference
   counted apart, to show what counting a group's shared reference once saves. The best of seven
   steps, the ways taking turns.

The "floor" row is no BLEU: the least a pure-Python BLEU of one pair must do (tokenize it, and
intersect its n-gram sets), to compare a goal with.
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
WMT17 = ROOT / "tests" / "data" / "wmt17-en-de"
SYSTEMS = sorted((WMT17 / "systems").glob("*.de"))

# (label, implementation) of the per-call rows; each implementation is set up in ``one_call``.
CALLS = [
    ("`exactbleu.sentence_bleu(h, [r], \"sacrebleu\")`", "sentence_bleu_sacrebleu"),
    ("`exactbleu.sentence_bleu(h, [r])` (HF's)", "sentence_bleu_default"),
    ("`exactbleu.sentence_scores([h], [[r]], \"sacrebleu\")`", "sentence_scores"),
    ("`sacrebleu.BLEU(effective_order=True).sentence_score`", "sacrebleu_sentence_score"),
    ("`sacrebleu.sentence_bleu`", "sacrebleu_sentence_bleu"),
    ("NLTK `sentence_bleu`, tokens given", "nltk"),
    ("bleuscore (Rust), one pair", "bleuscore"),
    ("the floor in Python: 13a's tokens of the pair and one set intersection per order (no BLEU)", "floor"),
    ("`exactbleu.corpus_bleu`, 8 segments", "corpus_ours"),
    ("bleuscore (Rust), 8 segments", "corpus_bleuscore"),
]


def lines(path: pathlib.Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def one_call(name: str, pairs: int) -> dict:
    """The mean time of one call of ``name`` over ``pairs`` distinct pairs (or ``pairs // 8``
    corpora of 8), after a warm-up on other segments; and the scores, to compare."""
    hypotheses, references = lines(SYSTEMS[11]), lines(WMT17 / "newstest2017.ref.de")
    if name.startswith("corpus"):
        corpora = [(hypotheses[i:i + 8], [[r] for r in references[i:i + 8]])
                   for i in range(0, min(2 * pairs, len(hypotheses)) - 7, 8)]
        if name == "corpus_ours":
            import exactbleu

            call = exactbleu.corpus_bleu
        else:
            import bleuscore

            call = lambda h, r: bleuscore.compute(r, h, 4, False)  # noqa: E731
        work, warm = corpora[: pairs // 8], corpora[pairs // 8:]
    else:
        call = setup(name)
        work = [(h, r) for h, r in zip(hypotheses[:pairs], references[:pairs])]
        warm = [(h, r) for h, r in zip(hypotheses[pairs: 2 * pairs], references[pairs: 2 * pairs])]
        if name == "nltk":
            work = [(h.split(), [r.split()]) for h, r in work]
            warm = [(h.split(), [r.split()]) for h, r in warm]
    for h, r in warm[:200]:
        call(h, r)
    start = time.perf_counter()
    scores = [call(h, r) for h, r in work]
    elapsed = time.perf_counter() - start
    return {"mean": elapsed / len(work), "scores": [value if isinstance(value, float) else value["bleu"]
                                                    for value in scores]}


def setup(name: str):
    """A function (hypothesis, reference) -> its score, as each implementation is called."""
    if name.startswith("sentence_bleu") or name == "sentence_scores":
        import exactbleu

        if name == "sentence_scores":
            return lambda h, r: float(exactbleu.sentence_scores([h], [[r]], "sacrebleu")[0])
        preset = "sacrebleu" if name.endswith("sacrebleu") else "default"
        return lambda h, r: exactbleu.sentence_bleu(h, [r], preset)["bleu"]
    if name == "sacrebleu_sentence_score":
        from sacrebleu.metrics import BLEU

        bleu = BLEU(effective_order=True)
        return lambda h, r: bleu.sentence_score(h, [r]).score / 100
    if name == "sacrebleu_sentence_bleu":
        import sacrebleu

        return lambda h, r: sacrebleu.sentence_bleu(h, [r]).score / 100
    if name == "nltk":
        import warnings

        from nltk.translate.bleu_score import sentence_bleu

        warnings.simplefilter("ignore")
        return lambda h, r: float(sentence_bleu(r, h))
    if name == "bleuscore":
        import bleuscore

        return lambda h, r: bleuscore.compute([[r]], [h], 4, False)["bleu"]
    if name == "floor":
        # What any pure-Python BLEU of one pair does at the least, at C speed where Python allows:
        # tokenize both texts (13a's fastest form here) and intersect each order's n-gram sets.
        # No clipping, lengths, scoring or checks: a floor, not a score.
        from exactbleu.tokenizers.tokenizer_13a import text_13a

        def floor(h: str, r: str) -> float:
            a, b = (text_13a([h]) or "").split(), (text_13a([r]) or "").split()
            return float(sum(len(set(zip(*[a[i:] for i in range(n)])).intersection(zip(*[b[i:] for i in range(n)])))
                             for n in range(1, 5)))

        return floor
    raise ValueError(name)


def child(name: str, pairs: int, isolated: bool = True) -> dict:
    """``one_call`` in a process of its own; or, ``isolated`` false, in this one (the smoke run's)."""
    if not isolated:
        return json.loads(json.dumps(one_call(name, pairs)))
    completed = subprocess.run([sys.executable, __file__, "--child", name, str(pairs)], capture_output=True, text=True,
                               check=False, cwd=ROOT)
    if completed.returncode:
        raise SystemExit(f"{name} failed:\n{completed.stderr[-3000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def step(completions: list[str], references: list[str]) -> list[tuple[str, float, list[float]]]:
    """One RL step's rewards, each way: (label, best of the rounds, the rewards). The ways take
    turns, round after round, so that a slow spell of the machine falls on all of them."""
    import sacrebleu

    from exactbleu import rewards
    from exactbleu.counting import corpus

    def copied(completion: str, reference: str) -> float:
        # The reward translation RL recipes copy: sacrebleu's corpus_bleu on one sentence, its printed score parsed.
        printed = str(sacrebleu.corpus_bleu([completion], [[reference]]))
        return float(re.search(r"BLEU = ([\d.]+)", printed).group(1)) / 100  # type: ignore[union-attr]

    def apart() -> list[float]:
        # The same call with every completion's reference counted apart, as before shared ones were
        # counted once: what counting them once saves.
        shared = corpus.shared_references
        corpus.shared_references = lambda segments: (segments, None)  # type: ignore[assignment]
        try:
            return rewards.compute_score_batch(["wmt17"] * len(completions), completions, references)
        finally:
            corpus.shared_references = shared

    ways = [
        ("`exactbleu.rewards.compute_score`, per sample (verl's `NaiveRewardManager`)",
         lambda: [rewards.compute_score("wmt17", c, r) for c, r in zip(completions, references)]),
        ("`exactbleu.rewards.compute_score_batch`, the step at once (verl's `BatchRewardManager`)",
         lambda: rewards.compute_score_batch(["wmt17"] * len(completions), completions, references)),
        ("the same, each completion's reference counted apart (not once per group)", apart),
        ("`exactbleu.rewards.bleu_reward` (TRL's), the step at once",
         lambda: rewards.bleu_reward(completions, references)),
        ("sacrebleu's `corpus_bleu` on one sentence, its printed score parsed (the copied reward), per sample",
         lambda: [copied(c, r) for c, r in zip(completions, references)]),
        ("`sacrebleu.sentence_bleu`, per sample",
         lambda: [sacrebleu.sentence_bleu(c, [r]).score / 100 for c, r in zip(completions, references)]),
    ]
    times: list[list[float]] = [[] for _ in ways]
    values: list[list[float]] = [work() for _, work in ways]  # warm
    for _ in range(7):
        for index, (_, work) in enumerate(ways):
            start = time.perf_counter()
            values[index] = work()
            times[index].append(time.perf_counter() - start)
    return [(label, min(spent), value) for (label, _), spent, value in zip(ways, times, values)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: it runs, and the numbers agree")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        print(json.dumps(one_call(arguments.child[0], int(arguments.child[1]))))
        return
    pairs, passes, groups = (80, 1, 4) if arguments.smoke else (2000, 3, 128)
    if arguments.smoke:
        # NLTK imports scikit-learn and scipy.stats when it finds them, for its classifiers and
        # association measures: 3 s of CPU that no BLEU uses, and the smoke run imports NLTK in this process.
        sys.modules.setdefault("sklearn", None)
        sys.modules.setdefault("scipy.stats", None)
    measured = {}
    for _ in range(passes):
        for index, (_, name) in enumerate(CALLS):
            # A smoke run starts a process for its first implementation only, which checks the child's command line.
            one = child(name, pairs, isolated=not arguments.smoke or index == 0)
            if name not in measured or one["mean"] < measured[name]["mean"]:
                measured[name] = one
    # the numbers agree: ours are sacrebleu's sentence scores (to the last bit /100 may round), and
    # bleuscore's corpus scores are HF's, which ours are
    for ours, theirs in (("sentence_bleu_sacrebleu", "sacrebleu_sentence_score"), ("sentence_scores",
                                                                                   "sacrebleu_sentence_score"),
                         ("sentence_bleu_default", "bleuscore"), ("corpus_ours", "corpus_bleuscore")):
        for a, b in zip(measured[ours]["scores"], measured[theirs]["scores"]):
            if abs(a - b) > 1e-12 * max(1.0, abs(b)):
                raise SystemExit(f"{ours} and {theirs} differ: {a} and {b}")
    base = measured["sacrebleu_sentence_score"]["mean"]
    print("| call | time | vs sacrebleu's `sentence_score` |\n|---|---|---|")
    for label, name in CALLS:
        mean = measured[name]["mean"]
        print(f"| {label} | {mean * 1e6:.0f} µs | {mean / base:.2f}x |")
    print(f"\n`sentence_bleu` / `sentence_score`: "
          f"{measured['sentence_bleu_sacrebleu']['mean'] / base:.3f}x (\"sacrebleu\"), "
          f"{measured['sentence_bleu_default']['mean'] / base:.3f}x (HF's); "
          f"`corpus_bleu` of 8 segments / bleuscore's: "
          f"{measured['corpus_ours']['mean'] / measured['corpus_bleuscore']['mean']:.2f}x; "
          f"`sentence_scores` of one pair / `sentence_bleu`'s: "
          f"{measured['sentence_scores']['mean'] / measured['sentence_bleu_sacrebleu']['mean']:.2f}x\n")
    references = lines(WMT17 / "newstest2017.ref.de")[:groups]
    outputs = [lines(path) for path in SYSTEMS[:8]]
    completions = [outputs[k][i] for i in range(groups) for k in range(8)]
    repeated = [references[i] for i in range(groups) for _ in range(8)]
    rows = step(completions, repeated)
    expected = rows[0][2]
    for label, _, values in rows[1:4]:
        if values != expected:
            raise SystemExit(f"{label} differs from compute_score")
    print(f"| reward ({len(completions):,} completions in groups of 8) | one step | per completion |\n|---|---|---|")
    for label, seconds, _ in rows:
        print(f"| {label} | {seconds * 1000:.1f} ms | {seconds / len(completions) * 1e6:.0f} µs |")


if __name__ == "__main__":
    main()
