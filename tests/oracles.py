"""Independent oracles: a plain restatement of HF's BLEU, and hypothesis strategies for corpora."""

import functools
import math
from collections import Counter

from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from exactbleu import OPTIONS as DECLARED

_SACREBLEU_13A = Tokenizer13a()


def sacrebleu_13a(line):
    """sacrebleu's mteval-v13a tokens (its class does not right-strip; its BLEU class does)."""
    return _SACREBLEU_13A(line).split()


def streams(references):
    """Per-prediction reference lists -> sacrebleu's reference streams, None where one runs short."""
    width = max(len(segment_references) for segment_references in references)
    return [[segment[j] if j < len(segment) else None for segment in references] for j in range(width)]


def hf_bleu(predictions, references, max_order=4, smooth=False, tokenize=sacrebleu_13a):
    """HF's `bleu` (tensorflow/nmt compute_bleu), restated plainly, with the same float operations."""
    if isinstance(references[0], str):
        references = [[reference] for reference in references]
    matches, possible = [0] * max_order, [0] * max_order
    translation_length = reference_length = 0
    for prediction, segment_references in zip(predictions, references):
        hyp = tokenize(prediction)
        refs = [tokenize(reference) for reference in segment_references]
        translation_length += len(hyp)
        reference_length += min(len(ref) for ref in refs)
        for n in range(1, max_order + 1):
            hyp_ngrams = Counter(tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1))
            most_in_one_reference = Counter()
            for ref in refs:
                for ngram, count in Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1)).items():
                    most_in_one_reference[ngram] = max(most_in_one_reference[ngram], count)
            matches[n - 1] += sum(min(count, most_in_one_reference[g]) for g, count in hyp_ngrams.items())
            possible[n - 1] += max(0, len(hyp) - n + 1)
    if smooth:
        precisions = [(m + 1.0) / (p + 1.0) for m, p in zip(matches, possible)]
    else:
        precisions = [float(m) / p if p > 0 else 0.0 for m, p in zip(matches, possible)]
    geo_mean = math.exp(sum((1.0 / max_order) * math.log(p) for p in precisions)) if min(precisions) > 0 else 0
    if reference_length == 0 or translation_length == 0:
        ratio = bp = 0.0
    else:
        ratio = float(translation_length) / reference_length
        bp = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
    return {
        "bleu": geo_mean * bp,
        "precisions": precisions,
        "brevity_penalty": bp,
        "length_ratio": ratio,
        "translation_length": translation_length,
        "reference_length": reference_length,
    }


# Words that exercise the tokenizer: non-ASCII scripts, numbers with . , -, HTML entities,
# punctuation, and a small core vocabulary so that n-grams really match.
WORDS = [
    "the", "cat", "sat", "on", "mat", "a", "Haus", "größer", "Straße", "日本語", "中文", "Привет",
    "مرحبا", "שלום", "नमस्ते", "café", "naïve", "3.14", "1,000", "2-3", "1.5-2", "x.", "y,", "..",
    "U.S.", "e.g.", "&amp;", "&quot;", "&lt;", "&gt;", "&amp;lt;", "<skipped>", "don't", "(a)",
    "[b]", "{c}", "50%", "$5", "a/b", "—", "«", "»", "-", "--", "5-", "-5", ".5", "5.", ",5",
    # around the 15 bytes that the statistics hold in place; longer ones they number
    "abcdefghijklmn", "abcdefghijklmno", "abcdefghijklmnp", "abcdefghijklmnop", "abcdefghijklmnoq",
    "Donaudampfschifffahrt", "Donaudampfschiffahrt", "gerichtsmedizinische", "Straßenbahnhaltestelle",
]
SEPARATORS = [" ", " ", " ", "  ", "\t", "\n", "-\n", chr(12), "\u00a0", "\u3000", ""]


# Strategies are built once, not at every draw: hypothesis works out each new strategy's properties
# before drawing from it, which cost more than the drawing when these were built per example. A word
# and the separator after it are one draw, from every pair.
_WORD = st.sampled_from([word + separator for word in WORDS for separator in SEPARATORS])
_BLANK = st.sampled_from(["", " ", chr(12), "\n", " \t "])
_TEXT = st.text(max_size=40)


@functools.cache
def segments(max_words=12, arbitrary_text=True):
    """A segment: mostly joined vocabulary words, sometimes arbitrary Unicode, sometimes empty."""
    words = st.lists(_WORD, max_size=max_words).map("".join)
    return st.one_of(words, words, words, _BLANK, *([_TEXT] if arbitrary_text else []))


@functools.cache
def corpora(max_segments=8, max_references=4, arbitrary_text=True):
    """(predictions, references): a list of references per prediction, their number varying."""
    segment = segments(arbitrary_text=arbitrary_text)
    references = st.lists(segment, min_size=1, max_size=max_references)
    return st.lists(st.tuples(segment, references), min_size=1, max_size=max_segments).map(
        lambda pairs: ([prediction for prediction, _ in pairs], [group for _, group in pairs]))


def random_corpus(segments, seed, references=1):
    """A reproducible corpus of ``segments`` predictions, each with ``references`` references that
    share about half its words: ordinary text with punctuation and numbers, as the fault and
    threading tests need in thousands of segments."""
    import random

    rng = random.Random(seed)
    vocabulary = [f"w{number}" for number in range(300)] + ["the", "a", ",", ".", "3.5", "1,000", "e.g.", "&amp;", "-"]

    def sentence():
        return [rng.choice(vocabulary) for _ in range(rng.randint(0, 30))]

    predictions, reference_lists = [], []
    for _ in range(segments):
        words = sentence()
        predictions.append(" ".join(words))
        reference_lists.append([" ".join(word if rng.random() < 0.5 else rng.choice(vocabulary) for word in words)
                                + " " + " ".join(sentence()[:3]) for _ in range(references)])
    return predictions, reference_lists


# The presets of several references that a peer computes on any corpus of uneven_corpus's: multi-bleu.perl's and
# multi-bleu-detok.perl's, by sacrebleu's arithmetic unsmoothed on their tokens (sacrebleu's own, on text whose
# whitespace is ASCII's). t2t-bleu takes one reference, and no peer here runs tokenizer.perl's pipelines or
# mteval's arithmetic: the scripts' recordings hold those (tests/conventions/test_mt_scripts.py), as CodeXGLUE's
# evaluator's hold its preset (test_codexglue.py), and DeepEval's, HELM's and Azure's theirs (test_nltk_frameworks.py);
# pytorch-ignite's, a mean of sentence scores that no harness face resamples, is held to ignite itself in
# test_ignite.py; fairseq's, which scores token ids, to libbleu's recordings (test_fairseq.py).
SCRIPT_TOKENIZERS = {"multi-bleu": "none", "multi-bleu-detok": "13a"}
RECORDED_ONLY = {"t2t-bleu", "tokenized-bleu", "t2t-ende", "mteval-v13a", "mteval-v14", "codexglue", "ignite",
                 "deepeval-bleu1", "deepeval-bleu2", "deepeval-bleu3", "deepeval-bleu4", "helm-bleu-1", "helm-bleu-4",
                 "azure", "fairseq"}


# torchmetrics' BLEUScore and SacreBLEUScore as they compute: their presets' numbers, from torchmetrics itself.
TORCHMETRICS_PRESETS = ("torchmetrics", "torchmetrics-sacrebleu")


def torchmetrics_bleu(preset, predictions, references):
    """torchmetrics' own functional bleu_score (or sacre_bleu_score) on 0..1, as a float."""
    from torchmetrics.functional.text import bleu_score, sacre_bleu_score

    return float((bleu_score if preset == "torchmetrics" else sacre_bleu_score)(predictions, references))


def script_bleu(preset, predictions, references):
    """multi-bleu.perl's or multi-bleu-detok.perl's number on 0..100 (see SCRIPT_TOKENIZERS)."""
    import sacrebleu

    return sacrebleu.corpus_bleu(predictions, streams(references), tokenize=SCRIPT_TOKENIZERS[preset],
                                 smooth_method="none").score


def coco_bleu(predictions, references, ptb=True):
    """pycocoevalcap's Bleu_4 (the COCO caption evaluation's) of the corpus, on 0..1, on its PTB tokens
    (the "ptb" tokenizer's, held to its Java tokenizer in tests/tokenizers/test_ptb.py), or with
    ``ptb=False`` on the text as given (nlg-eval's and VLMEvalKit's)."""
    from pycocoevalcap.bleu.bleu import Bleu

    from exactbleu import ptb_tokens

    def tokens(text):
        return " ".join(ptb_tokens(text)) if ptb else text

    gts = {number: [tokens(r) for r in group] for number, group in enumerate(references)}
    res = {number: [tokens(p)] for number, p in enumerate(predictions)}
    return Bleu(4).compute_score(gts, res, verbose=0)[0][3]


def uneven_corpus(segments, seed):
    """A random corpus whose predictions have one to four references each, their number varying from
    segment to segment."""
    import random

    predictions, references = random_corpus(segments, seed, references=4)
    rng = random.Random(seed)
    return predictions, [group[: rng.randint(1, 4)] for group in references]


def plain_row(prediction, references, max_order, ref_length="shortest"):
    """One segment's statistics row by the definition, from its tokens: ``[prediction length,
    reference length, matches per order..., totals per order...]``. A prediction n-gram matches
    at most as often as it occurs in any single reference; the reference length is the shortest
    reference's, or the closest one's (a tie going to the shorter)."""
    def ngrams(tokens, n):
        return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))

    matches = []
    for n in range(1, max_order + 1):
        most = Counter()
        for reference in references:
            most |= ngrams(reference, n)
        matches.append(sum(min(count, most[ngram]) for ngram, count in ngrams(prediction, n).items()))
    totals = [max(0, len(prediction) - n + 1) for n in range(1, max_order + 1)]
    lengths = [len(reference) for reference in references]
    if ref_length == "shortest":
        chosen = min(lengths)
    else:
        chosen = min(lengths, key=lambda length: (abs(length - len(prediction)), length))
    return [len(prediction), chosen] + matches + totals


def plain_rows(predictions, references, max_order, ref_length="shortest"):
    """A corpus's statistics rows by the definition (``plain_row``), from sacrebleu's 13a tokens."""
    import numpy as np

    return np.array([plain_row(sacrebleu_13a(p), [sacrebleu_13a(r) for r in refs], max_order, ref_length)
                     for p, refs in zip(predictions, references)], dtype=np.int64).reshape(len(predictions), -1)


def nltk_quietly(function, *args, **kwargs):
    """Call an NLTK function without its warning for every order that has no match."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def random_cases(seed, count=1000):
    """NLTK's classic check (the seed 002 protocol): words from a b c d e, 0-9 words a sentence,
    1-4 references."""
    import random

    rng = random.Random(seed)
    sentence = lambda: " ".join(rng.choice("abcde") for _ in range(rng.randint(0, 9)))  # noqa: E731
    predictions = [sentence() for _ in range(count)]
    return predictions, [[sentence() for _ in range(rng.randint(1, 4))] for _ in range(count)]


# Random option sets, drawn from the declared options: mostly valid values, and some the options
# refuse. A custom tokenizer cannot cross the command line, and SentencePiece needs a model file:
# the other tokenizers are all drawn.
TOKENIZERS = [name for name in DECLARED["tokenizer"].choices if name not in ("flores101", "flores200", "spBLEU-1K", "spm")]
SMOOTH_METHODS = [None, *DECLARED["smooth_method"].choices]
WEIGHT = st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0, 2.0])
ONE_WEIGHT_SET = st.lists(WEIGHT, min_size=1, max_size=5)
# What each option may be drawn as: valid values mostly, and some the options refuse.
VALUES = {
    "tokenizer": st.sampled_from(TOKENIZERS),
    "lang": st.sampled_from(["en", "de", "fr"]),
    "aggressive_dash_splits": st.booleans(),
    "spm_model": st.just(None),
    "lowercase": st.booleans(),
    "rstrip": st.booleans(),
    # fairseq's rules for token ids (text refuses them), mostly left out (None) so that text is scored.
    "pad": st.sampled_from([None] * 6 + [1, -1]),
    "eos": st.sampled_from([None] * 6 + [2]),
    "unk": st.sampled_from([None] * 6 + [3]),
    "max_order": st.integers(1, 6),
    "ref_length": st.sampled_from(["shortest", "closest"]),
    "keep_references": st.sampled_from(["all", "all", "first", "fewest", "one", "most"]),
    "weights": st.one_of(ONE_WEIGHT_SET, st.lists(ONE_WEIGHT_SET, min_size=1, max_size=3)),
    "smooth": st.booleans(),
    "smooth_method": st.sampled_from(SMOOTH_METHODS),
    "smooth_value": st.sampled_from([0.0, 0.01, 0.1, 0.5, 1.0, 2.0]),
    "effective_order": st.booleans(),
    "average": st.sampled_from(["micro", "micro", "macro", "mean"]),
    "sentence_level": st.booleans(),
    "signature": st.booleans(),
    "n_bootstrap": st.sampled_from([0, 3, 10]),
    "bootstrap_seed": st.sampled_from([0, 7]),  # None draws from the OS: no two faces could agree
}
OPTIONS = st.fixed_dictionaries({}, optional=VALUES)
assert set(VALUES) == set(DECLARED), "a declared option has no values to draw"
# The options of a score itself, not of the result's extra keys.
PER_CORPUS = {name for name, option in DECLARED.items() if option.stage != "output"}


def outcome(function):
    """("ok", result) or ("error", exception type) for a ValueError or TypeError; any other
    exception fails the test: no face may raise one."""
    import pytest

    try:
        return "ok", function()
    except (ValueError, TypeError) as error:
        return "error", type(error)
    except Exception as error:  # noqa: BLE001
        pytest.fail(f"{type(error).__name__}: {error}")


def sacrebleus_standard_error(predictions, references, n_samples=1000):
    """The standard deviation (Bessel's) of sacrebleu's own bootstrap resamples, seeded as its
    SACREBLEU_SEED default, 12345."""
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import _bootstrap_resample

    import numpy as np

    metric = BLEU()
    rows = metric._extract_corpus_statistics(predictions, streams(references))
    _, resampled = _bootstrap_resample(rows, metric, n_samples)
    return float(np.std([score.score for score in resampled], ddof=1))


def mbr_samples(sources, seed, most=12):
    """MBR's input as a model's samples look: per source (a WMT17 segment), two to ``most``
    candidates, each a system's output with a few words dropped, swapped or doubled."""
    import pathlib
    import random

    from benchmarks.mbr import perturbed  # the benchmark's samples are made alike

    folder = pathlib.Path(__file__).resolve().parent / "data" / "wmt17-en-de" / "systems"
    outputs = [path.read_text(encoding="utf-8").split("\n")[:-1] for path in sorted(folder.glob("*.de"))]
    rng = random.Random(seed)
    samples = []
    for _ in range(sources):
        segment = rng.randrange(len(outputs[0]))
        group = []
        for _ in range(rng.randint(2, most)):
            words = perturbed(rng.choice(outputs)[segment].split(), rng.randint(0, 3), rng)
            group.append(" ".join(words))
        samples.append(group)
    return samples
