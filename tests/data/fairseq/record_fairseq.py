#!/usr/bin/env python3
"""Record what fairseq's ``--scoring bleu`` (``fairseq.scoring.bleu.Scorer`` over its C ``libbleu``) gives on
drawn corpora of token ids, as ground truth for exactbleu's tests.

fairseq's code is NOT part of this repository and is never copied into it. The script reads
``fairseq/clib/libbleu/libbleu.cpp`` and ``fairseq/scoring/bleu.py`` out of a git snapshot of
facebookresearch/fairseq into a temporary directory, compiles the first there with
``g++ -O2 -shared -fPIC -o libbleu.so libbleu.cpp``, and imports the second as published (its text
unchanged), with minimal stand-ins in ``sys.modules`` for the fairseq modules it imports
(``fairseq.dataclass``, ``fairseq.scoring``, ``fairseq.scoring.tokenizer``, and ``fairseq.libbleu``,
whose ``__file__`` is the compiled library).

The recording was made from the repository root with
    .nox/core-env/bin/python tests/data/fairseq/record_fairseq.py
using fairseq commit 3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99, g++ (Debian 12.2.0-14+deb12u1) 12.2.0
on x86-64 (where ``char`` is signed), torch 2.13.0+cpu, Python 3.11.7. The commit, g++ and torch
versions, the command and the sha256 of both fairseq files are stored in the output as well.

Output: gzip'd JSON (sorted keys, gzip mtime 0, so the same run gives the same bytes) holding
``corpora``, a list of {name, pad, eos, unk, predictions, references, corpus, sentences}: one reference
per prediction, lists of int ids, added with ``Scorer.add(torch.IntTensor(ref), torch.IntTensor(pred))`` in
order. ``corpus`` holds ``score`` (orders "1" to "4"), ``precision()``, ``brevity()``, ``stat`` (the C
struct's fields as ints) and ``result_string(order=4)``; ``sentences`` holds, for each segment scored alone
by a fresh Scorer, ``score(order=4)``, ``precision()``, ``brevity()`` and ``stat``. Floats are JSON
floats written by ``repr``, so they read back exactly; values fairseq returns as Python ints (a precision
of ``0`` where an order has no prediction n-grams, a brevity of ``1`` from ``min(1, ...)``) stay JSON ints.
No value is NaN or infinite (``allow_nan=False`` would refuse it); an ``ArithmeticError`` while scoring
would be recorded as ``"error": TYPE`` (none occurs).

No segment is empty or all pad: libbleu's right trim starts at ``*len - 1`` and would read out of bounds.
The corpora named ``hash-collision-*`` hold distinct n-grams that libbleu counts as matches: it keys n-grams
by an FNV-1a hash of their bytes read as ``char``, signed on x86-64, so a byte >= 0x80 flips the hash's upper
bits (ids 0 and 65278 match; id 16844001 matches a reference's unk, -999). Where ``char`` is unsigned
(aarch64) those numbers would differ; no other corpus has a collision.
"""

import argparse
import gzip
import hashlib
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable

import numpy as np
import torch

SEED = 20260611
MIRROR = "/work/.mirror/facebookresearch+fairseq/repo"
SOURCES = {"libbleu.cpp": "fairseq/clib/libbleu/libbleu.cpp", "bleu.py": "fairseq/scoring/bleu.py"}
Corpus = tuple[str, tuple[int, int, int], list[list[int]], list[list[int]]]  # name, (pad, eos, unk), preds, refs
DEFAULT, ZERO_PAD, FAR = (1, 2, 3), (0, 2, 1), (5, 7, 9)
HIGH = [200, 40000, 2**24 + 129, 2**31 - 1, 2**31 - 2, 128, 255, 0x8080, 0x7F808080, 0x180, 0xFF00FF]


def _git(folder: str, *arguments: str) -> bytes:
    """Run git on the (bare) snapshot and return its stdout."""
    return subprocess.run(["git", "-C", folder, *arguments], check=True, capture_output=True).stdout


def load_scorer(folder: str, work: str) -> tuple[type, dict[str, str]]:
    """Copy fairseq's two files into ``work``, compile libbleu, import bleu.py as published; return Scorer."""
    digests = {}
    for name, path in SOURCES.items():
        text = _git(folder, "show", f"HEAD:{path}")
        digests[path] = hashlib.sha256(text).hexdigest()
        with open(os.path.join(work, name), "wb") as file:
            file.write(text)
    subprocess.run(["g++", "-O2", "-shared", "-fPIC", "-o", "libbleu.so", "libbleu.cpp"], cwd=work, check=True)

    def module(name: str, **attributes: object) -> types.ModuleType:
        made = types.ModuleType(name)
        made.__dict__.update(attributes)
        sys.modules[name] = made
        return made

    class BaseScorer:
        def __init__(self, cfg: object) -> None:
            self.cfg, self.ref, self.pred = cfg, [], []

    def register_scorer(*_: object, **__: object) -> Callable[[type], type]:
        return lambda cls: cls

    fairseq = module("fairseq", __path__=[])
    fairseq.dataclass = module("fairseq.dataclass", FairseqDataclass=type("FairseqDataclass", (), {}))
    fairseq.scoring = module("fairseq.scoring", __path__=[], BaseScorer=BaseScorer, register_scorer=register_scorer)
    tokenizer = type("EvaluationTokenizer", (), {"ALL_TOKENIZER_TYPES": str})
    fairseq.scoring.tokenizer = module("fairseq.scoring.tokenizer", EvaluationTokenizer=tokenizer)
    fairseq.libbleu = module("fairseq.libbleu", __file__=os.path.join(work, "libbleu.so"))
    spec = importlib.util.spec_from_file_location("fairseq.scoring.bleu", os.path.join(work, "bleu.py"))
    bleu = importlib.util.module_from_spec(spec)
    sys.modules["fairseq.scoring.bleu"] = bleu
    spec.loader.exec_module(bleu)
    return bleu.Scorer, digests


def by_hand() -> list[Corpus]:
    """Corpora written out to reach each of libbleu's edge cases."""
    big = [HIGH[:7], HIGH[4:] + HIGH[:2], [2**31 - 1] * 5]
    return [
        ("leading-pads", DEFAULT, [[1, 4, 5, 6, 7, 2], [4, 5, 6]], [[1, 1, 4, 5, 6, 7, 2], [1, 4, 5, 6]]),
        ("trailing-eos-pad-mixed", DEFAULT, [[4, 5, 6, 7, 1, 1, 2], [4, 5, 6, 2], [8, 9, 1], [8, 9, 2, 1, 2, 1]],
         [[4, 5, 6, 7, 2, 1, 1], [4, 5, 6, 1, 2], [8, 9, 2, 2, 1, 2], [8, 9, 2]]),
        ("middle-pad-eos-kept", DEFAULT, [[4, 1, 5, 2, 6, 7, 2], [4, 5, 2, 6], [1, 2, 4, 1, 1, 5, 2]],
         [[4, 1, 5, 2, 6, 7], [4, 5, 2, 6, 2, 1], [2, 4, 1, 1, 5]]),
        ("only-eos-segments", DEFAULT, [[2], [2, 2], [2, 1], [4, 2], [2], [1, 2, 2]],
         [[2], [2, 2], [2, 1], [1, 2], [1, 1, 2, 2, 1], [2, 1, 2]]),
        ("eos-pad-then-word", DEFAULT, [[2, 4, 5, 6], [1, 2, 1, 4]], [[2, 4, 5, 6, 2], [2, 1, 4, 2, 2]]),
        ("single-tokens", DEFAULT, [[4], [6], [5, 2], [1, 7]], [[4], [5], [5], [7, 1, 2]]),
        ("single-token-miss", DEFAULT, [[5]], [[4]]),
        ("single-token-hit", DEFAULT, [[4]], [[4, 2]]),
        ("repeated-ngrams", DEFAULT, [[4, 4, 4, 4, 4, 4, 4], [4, 4, 4, 4, 4], [4, 5, 4, 5]],
         [[4, 4, 4, 4, 4], [4, 4, 4], [4, 5, 4, 5, 4, 5]]),
        ("unk-in-references", DEFAULT, [[4, 3, 5, 6, 7], [3, 3, 3, 3]], [[4, 3, 5, 6, 7], [3, 3, 3, 3]]),
        ("unk-in-predictions", DEFAULT, [[4, 3, 6, 7], [3, 8, 9, 10]], [[4, 5, 6, 7], [11, 8, 9, 10, 2]]),
        ("unk-trailing", DEFAULT, [[4, 5, 3], [4, 5, 3, 2]], [[4, 5, 3, 2], [4, 5, 3]]),
        ("zero-is-a-word", DEFAULT, [[0, 4, 0, 0], [0]], [[0, 0, 4, 0], [0, 2]]),
        ("large-and-high-byte-ids", DEFAULT, [big[0], big[1][::-1], big[2]], big),
        ("high-byte-near-twins", DEFAULT, [[0x80, 0x180, 0x80, 0x8080], [0x7F, 0xFF, 0x17F]],
         [[0x180, 0x80, 0x80, 0x8080, 2], [0x7F, 0xFF, 0x7F]]),
        ("short-references", DEFAULT, [[4, 5, 6, 7, 8], [6, 7, 8, 9], [4, 5, 6, 7]], [[4, 5], [6, 7, 8], [4]]),
        ("predictions-shorter", DEFAULT, [[4, 5, 6], [10, 11]], [[4, 5, 6, 7, 8, 9, 2], [10, 11, 12, 13, 14]]),
        ("predictions-longer", DEFAULT, [[4, 5, 6, 7, 8, 9, 10, 11, 2]], [[4, 5, 6, 7]]),
        ("no-match", DEFAULT, [[4, 5, 6, 7], [8, 9]], [[10, 11, 12, 13], [14, 15, 16]]),
        ("perfect", DEFAULT, [[4, 5, 6, 7, 8, 2], [9, 10, 11, 12, 2, 1]], [[4, 5, 6, 7, 8], [9, 10, 11, 12]]),
        # libbleu hashes n-gram bytes as (signed) char and counts by hash alone: these distinct n-grams collide
        ("hash-collision-unigram", DEFAULT, [[4, 65278, 5, 6], [32768, 7]], [[4, 0, 5, 6], [32510, 7]]),
        ("hash-collision-bigram", DEFAULT, [[10, 254, 254, 11]], [[10, 0, 0, 11]]),
        ("hash-collision-trigram", DEFAULT, [[384, 65408, 65408, 5]], [[384, 384, 384, 5]]),
        ("hash-collision-unk", DEFAULT, [[4, 16844001, 5, 6]], [[4, 3, 5, 6]]),  # hashes as -999, a reference unk
        ("pad0-eos2-unk1", ZERO_PAD, [[0, 0, 3, 4, 1, 5, 2, 0], [3, 4, 0, 2], [2, 0]],
         [[0, 3, 4, 1, 5, 2, 0, 0], [1, 3, 4, 0], [0, 0, 2, 2]]),
        ("pad5-eos7-unk9", FAR, [[5, 1, 2, 3, 4, 7, 5], [9, 1, 2, 3], [7, 5], [0, 6]],
         [[5, 5, 1, 2, 3, 4, 5, 7], [9, 1, 2, 3, 7], [7], [0, 6, 9, 5, 7]]),
    ]


def _segment(rng: np.random.Generator, body: list[int], cfg: tuple[int, int, int]) -> list[int]:
    """Wrap a body of words in what fairseq trims or keeps: leading pads, mid pad/eos, a tail of eos and pads."""
    pad, eos, _ = cfg
    tokens = list(body)
    if rng.random() < 0.2:
        tokens.insert(int(rng.integers(0, len(tokens) + 1)), int(rng.choice([pad, eos])))
    if rng.random() < 0.25:
        tokens = [pad] * int(rng.integers(1, 4)) + tokens
    tails = [[], [eos], [eos, pad, pad], [pad, eos], [eos, eos], [pad], [eos, pad, eos, pad]]
    return tokens + tails[int(rng.integers(0, len(tails)))] if rng.random() < 0.6 else tokens


def drawn(count: int) -> list[Corpus]:
    """Random corpora from a seeded generator: vocabularies of 5 to 1000 ids, small or up to 2**31 - 1."""
    rng = np.random.default_rng(SEED)
    made: list[Corpus] = []
    for number in range(count):
        cfg = [DEFAULT, DEFAULT, DEFAULT, ZERO_PAD, FAR][int(rng.integers(0, 5))]
        size = int(rng.choice([1, 2, 5, 50], p=[0.3, 0.25, 0.3, 0.15]))
        vocabulary_size = int(rng.choice([5, 10, 30, 100, 1000]))
        if rng.random() < 0.3:
            vocabulary = [int(i) for i in rng.choice(2**31, size=vocabulary_size + 3, replace=False) if i not in cfg]
        else:
            vocabulary = [i for i in range(vocabulary_size + 4) if i not in cfg]
        vocabulary = [*vocabulary[:vocabulary_size], cfg[2]]  # the unk id appears among the words too
        predictions, references = [], []
        while len(references) < size:
            reference = [int(i) for i in rng.choice(vocabulary, size=int(rng.integers(1, 25)))]
            if rng.random() < 0.2:  # an independent prediction
                prediction = [int(i) for i in rng.choice(vocabulary, size=int(rng.integers(1, 25)))]
            else:  # an edited copy: keep, swap, drop or double each word
                prediction = []
                for word in reference:
                    action = rng.choice(4, p=[0.7, 0.15, 0.08, 0.07])
                    prediction += {0: [word], 1: [int(rng.choice(vocabulary))], 2: [], 3: [word, word]}[int(action)]
            reference, prediction = _segment(rng, reference, cfg), _segment(rng, prediction, cfg)
            if any(t != cfg[0] for t in prediction) and any(t != cfg[0] for t in reference):  # else: skip
                predictions.append(prediction)
                references.append(reference)
        made.append((f"drawn-{number:02d}-v{vocabulary_size}-n{size}", cfg, predictions, references))
    return made


def measure(scorer_class: type, cfg: tuple[int, int, int], pairs: list[tuple[list[int], list[int]]],
            whole: bool) -> dict:
    """Add the (reference, prediction) pairs to a fresh Scorer and read back what it reports."""
    scorer = scorer_class(types.SimpleNamespace(pad=cfg[0], eos=cfg[1], unk=cfg[2]))
    for reference, prediction in pairs:
        scorer.add(torch.IntTensor(reference), torch.IntTensor(prediction))
    result: dict = {"stat": {name: int(getattr(scorer.stat, name)) for name, _ in scorer.stat._fields_}}
    try:
        if whole:
            result["score"] = {str(order): scorer.score(order=order) for order in range(1, 5)}
            result["result_string"] = scorer.result_string(order=4)
        else:
            result["score"] = scorer.score(order=4)
        result["precision"], result["brevity"] = scorer.precision(), scorer.brevity()
    except ArithmeticError as error:
        result["error"] = type(error).__name__
    return result


def main() -> None:
    """Parse arguments, build fairseq's scorer outside the repository, score every corpus, write the file."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fairseq-git", default=MIRROR, help="a (bare) git snapshot of facebookresearch/fairseq")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "recorded.json.gz"))
    arguments = parser.parse_args()
    gxx = subprocess.run(["g++", "--version"], check=True, capture_output=True, text=True).stdout.splitlines()[0]
    recorded = {"fairseq_commit": _git(arguments.fairseq_git, "rev-parse", "HEAD").decode().strip(),
                "torch": torch.__version__, "gxx": gxx, "python": sys.version.split()[0],
                "command": shlex.join(sys.orig_argv), "corpora": []}
    with tempfile.TemporaryDirectory() as work:
        scorer_class, recorded["sha256"] = load_scorer(arguments.fairseq_git, work)
        for name, cfg, predictions, references in by_hand() + drawn(40):
            segments = predictions + references
            assert all(any(t != cfg[0] for t in s) and all(0 <= t < 2**31 for t in s) for s in segments), name
            pairs = list(zip(references, predictions))
            recorded["corpora"].append({
                "name": name, "pad": cfg[0], "eos": cfg[1], "unk": cfg[2],
                "predictions": predictions, "references": references,
                "corpus": measure(scorer_class, cfg, pairs, whole=True),
                "sentences": [measure(scorer_class, cfg, [pair], whole=False) for pair in pairs]})
    text = json.dumps(recorded, sort_keys=True, allow_nan=False, separators=(",", ":")) + "\n"
    with open(arguments.out, "wb") as file:
        file.write(gzip.compress(text.encode(), mtime=0))
    print(f"{len(recorded['corpora'])} corpora -> {arguments.out}")


if __name__ == "__main__":
    main()
