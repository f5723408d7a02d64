"""BLEU for Hugging Face ``evaluate``: HF's numbers by default, without HF's crashes.

The data flows one way, and this file reads in that order:

1. **Tokenizers** turn a segment into a list of tokens.
2. **Statistics** turn one prediction and its references into one row of integers:
   ``[prediction length, reference length, matches per order..., totals per order...]``.
3. **Scoring** turns the column sums of those rows into the result dict. Corpus scores are
   the sum of all rows, a sentence score is one row, and any split of the corpus (batches,
   processes) sums to the same corpus row.
4. **The metric class** validates input and options at the boundary and wires the stages.

By default the result is exactly (``==`` on every key) what Hugging Face's ``bleu`` metric
returns: the tensorflow/nmt algorithm with the mteval-v13a tokenizer.
"""

import math
import numbers
import re
from collections import Counter

import datasets
import evaluate
import numpy as np

__version__ = "1.0.0"

# ---------------------------------------------------------------------------------------------
# 1. Tokenizers
# ---------------------------------------------------------------------------------------------

# mteval-v13a (WMT's reference tokenizer), as HF's `bleu` runs it. Every ASCII punctuation mark
# except the apostrophe, comma, hyphen and period becomes a token of its own, wherever it is.
_13A_SYMBOLS = "!\"#$%&()*+/:;<=>?@[\\]^_`{|}~"
_13A_PAD_SYMBOLS = str.maketrans({symbol: f" {symbol} " for symbol in _13A_SYMBOLS})
# Periods and commas split off unless they sit inside a number; a hyphen splits off after a
# digit. These three rules match pairs left to right without overlap, and that overlap
# behaviour decides cases like "a..5" -> "a", ".", ".5", so they stay regular expressions.
_13A_CONTEXT_RULES = (
    (re.compile(r"([^0-9])([.,])"), r"\1 \2 "),
    (re.compile(r"([.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)
_13A_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))


def tokenize_13a(line):
    """Split ``line`` into tokens the way mteval-v13a (and HF's ``bleu``) does.

    >>> tokenize_13a("Hello, &quot;world&quot;! It costs $3.50-4.")
    ['Hello', ',', '"', 'world', '"', '!', 'It', 'costs', '$', '3.50', '-', '4', '.']
    """
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        for entity, character in _13A_ENTITIES:
            line = line.replace(entity, character)
    line = f" {line} ".translate(_13A_PAD_SYMBOLS)
    for pattern, replacement in _13A_CONTEXT_RULES:
        line = pattern.sub(replacement, line)
    return line.split()


TOKENIZERS = {"13a": tokenize_13a}


def tokenize_corpus(segments, tokenizer):
    """Tokenize every segment with ``tokenizer`` (a function ``str -> list[str]``)."""
    return [list(tokenizer(segment)) for segment in segments]


# ---------------------------------------------------------------------------------------------
# 2. Sufficient statistics, one row per segment
# ---------------------------------------------------------------------------------------------


def ngram_counts(tokens, max_order):
    """Count every n-gram of ``tokens`` for n = 1..max_order, keyed by token tuple."""
    counts = Counter()
    for order in range(1, max_order + 1):
        counts.update(zip(*(tokens[start:] for start in range(order))))
    return counts


def reference_length(prediction_length, reference_lengths, method):
    """The reference length that enters the brevity penalty for one segment.

    ``"shortest"`` is HF's and tensorflow/nmt's choice; ``"closest"`` is Papineni et al.'s,
    sacrebleu's and NLTK's: the length nearest the prediction's, a tie going to the shorter.
    """
    if method == "shortest":
        return min(reference_lengths)
    return min(reference_lengths, key=lambda length: (abs(length - prediction_length), length))


def segment_statistics(prediction, references, max_order, ref_length="shortest"):
    """One segment's row: ``[len, ref_len, matches_1..matches_N, totals_1..totals_N]``.

    A prediction n-gram matches at most as often as it occurs in any single reference
    (clipping); the totals count every n-gram position of the prediction.
    """
    prediction_counts = ngram_counts(prediction, max_order)
    best_reference_counts = Counter()
    for reference in references:
        best_reference_counts |= ngram_counts(reference, max_order)
    matches = [0] * max_order
    for ngram, count in prediction_counts.items():
        reference_count = best_reference_counts.get(ngram)
        if reference_count:
            matches[len(ngram) - 1] += min(count, reference_count)
    totals = [max(0, len(prediction) - order + 1) for order in range(1, max_order + 1)]
    lengths = [len(prediction), reference_length(len(prediction), [len(r) for r in references], ref_length)]
    return lengths + matches + totals


def corpus_statistics(predictions, references, max_order, ref_length="shortest"):
    """The statistics rows of a tokenized corpus, as an ``int64`` array of shape (n, 2 + 2N)."""
    rows = [
        segment_statistics(prediction, segment_references, max_order, ref_length)
        for prediction, segment_references in zip(predictions, references)
    ]
    return np.array(rows, dtype=np.int64).reshape(len(rows), 2 + 2 * max_order)


# ---------------------------------------------------------------------------------------------
# 3. Scoring: summed statistics -> result
# ---------------------------------------------------------------------------------------------


def score_statistics(stats, max_order, smooth=False):
    """Score one statistics row (a segment's, or the sum of a corpus's) the tensorflow/nmt way.

    Follows HF's ``bleu`` operation for operation, so the floats are bit-identical:
    ``smooth`` adds one to matches and totals at every order (Lin & Och, 2004), any zero
    precision makes the geometric mean 0, and BP = exp(1 - 1/ratio) when ratio <= 1. An empty
    side (no prediction or no reference tokens) gives 0.0 for bleu, BP and ratio.
    """
    stats = [int(value) for value in stats]
    translation_length, ref_length = stats[0], stats[1]
    matches, totals = stats[2 : 2 + max_order], stats[2 + max_order :]

    if smooth:
        precisions = [(m + 1.0) / (t + 1.0) for m, t in zip(matches, totals)]
    else:
        precisions = [float(m) / t if t > 0 else 0.0 for m, t in zip(matches, totals)]

    if min(precisions) > 0:
        weight = 1.0 / max_order
        geometric_mean = math.exp(sum(weight * math.log(p) for p in precisions))
    else:
        geometric_mean = 0.0

    if ref_length == 0 or translation_length == 0:
        ratio = brevity_penalty = 0.0
    else:
        ratio = float(translation_length) / ref_length
        brevity_penalty = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)

    return {
        "bleu": geometric_mean * brevity_penalty,
        "precisions": precisions,
        "brevity_penalty": brevity_penalty,
        "length_ratio": ratio,
        "translation_length": translation_length,
        "reference_length": ref_length,
    }


# ---------------------------------------------------------------------------------------------
# 4. The evaluate metric
# ---------------------------------------------------------------------------------------------

_CITATION = """\
@inproceedings{papineni-etal-2002-bleu,
    title = "{B}leu: a Method for Automatic Evaluation of Machine Translation",
    author = "Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing",
    booktitle = "Proceedings of the 40th Annual Meeting of the Association for Computational Linguistics",
    year = "2002",
    pages = "311--318",
    url = "https://aclanthology.org/P02-1040",
}
@inproceedings{lin-och-2004-orange,
    title = "{ORANGE}: a Method for Evaluating Automatic Evaluation Metrics for Machine Translation",
    author = "Lin, Chin-Yew and Och, Franz Josef",
    booktitle = "COLING 2004",
    year = "2004",
    pages = "501--507",
    url = "https://aclanthology.org/C04-1072",
}
"""

_DESCRIPTION = """\
BLEU (Bilingual Evaluation Understudy) scores machine-translated text against one or more
reference translations: the geometric mean of clipped n-gram precisions, times a brevity
penalty for output shorter than the references. By default this module returns exactly what
Hugging Face's `bleu` metric returns, handles empty segments, and loads offline.
"""

_KWARGS_DESCRIPTION = """
Computes corpus BLEU of predictions against one or more references per prediction.

Args:
    predictions (list of str): the translations to score, one string per segment.
    references (list of list of str, or list of str): the references of each prediction.
        The number of references may differ from one prediction to the next.
    tokenizer (str or callable): "13a" (default, mteval-v13a as in HF's bleu), or any
        function that takes a string and returns a list of tokens.
    max_order (int): the largest n-gram order, 4 by default.
    smooth (bool): add one to matches and totals at every order (Lin & Och, 2004).

Returns:
    bleu (float): the score, between 0 and 1.
    precisions (list of float): the n-gram precision of each order, 1..max_order.
    brevity_penalty (float): the brevity penalty.
    length_ratio (float): translation_length / reference_length.
    translation_length (int): the number of prediction tokens.
    reference_length (int): the summed reference length (the shortest reference per segment).

Examples:
    >>> import evaluate
    >>> bleu = evaluate.load("bleu_metric.py")
    >>> predictions = ["hello there general kenobi", "foo bar foobar"]
    >>> references = [["hello there general kenobi", "hello there!"], ["foo bar foobar"]]
    >>> bleu.compute(predictions=predictions, references=references)["bleu"]
    1.0
"""

_FEATURES = [
    datasets.Features(
        {
            "predictions": datasets.Value("string", id="sequence"),
            "references": datasets.Sequence(datasets.Value("string", id="sequence"), id="references"),
        }
    ),
    datasets.Features(
        {
            "predictions": datasets.Value("string", id="sequence"),
            "references": datasets.Value("string", id="sequence"),
        }
    ),
]


def _resolve_options(tokenizer="13a", max_order=4, smooth=False):
    """Check the options once, at the boundary, and return them ready for the stages."""
    if callable(tokenizer):
        tokenize = tokenizer
    elif isinstance(tokenizer, str) and tokenizer in TOKENIZERS:
        tokenize = TOKENIZERS[tokenizer]
    else:
        raise ValueError(
            f"tokenizer must be one of {sorted(TOKENIZERS)} or a callable str -> list[str], got {tokenizer!r}"
        )
    if isinstance(max_order, bool) or not isinstance(max_order, numbers.Integral) or max_order < 1:
        raise ValueError(f"max_order must be a positive int, got {max_order!r}")
    if not isinstance(smooth, (bool, np.bool_)):
        raise TypeError(f"smooth must be True or False, got {smooth!r}")
    return {"tokenize": tokenize, "max_order": int(max_order), "smooth": bool(smooth)}


def _as_list(value, name):
    """A column (list, tuple, numpy array, datasets Column) as a list; a string is an error."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list, got {type(value).__name__}: {value!r:.80}")
    return value if isinstance(value, list) else list(value)


def _check_inputs(predictions, references):
    """Check one batch; return it as lists, and whether each prediction's references are one string.

    Every prediction's references must take the same shape, all strings or all lists: evaluate
    fixes the shape from the first example and would read a later string as a list of characters.
    """
    predictions = _as_list(predictions, "predictions")
    references = _as_list(references, "references")
    if len(predictions) == 0:
        raise ValueError("predictions is empty: BLEU needs at least one prediction and its references")
    if len(predictions) != len(references):
        raise ValueError(
            f"predictions and references must have the same length, got {len(predictions)} predictions "
            f"and {len(references)} references"
        )
    for index, prediction in enumerate(predictions):
        if not isinstance(prediction, str):
            raise TypeError(f"predictions[{index}] must be a string, got {type(prediction).__name__}: {prediction!r:.80}")
    single_strings = isinstance(references[0], str)
    for index, segment_references in enumerate(references):
        if isinstance(segment_references, str) != single_strings:
            raise ValueError(_mixed_shapes_message(single_strings, index))
        if single_strings:
            continue
        segment_references = _as_list(segment_references, f"references[{index}]")
        if len(segment_references) == 0:
            raise ValueError(f"references[{index}] is empty: every prediction needs at least one reference")
        for position, reference in enumerate(segment_references):
            if not isinstance(reference, str):
                raise TypeError(
                    f"references[{index}][{position}] must be a string, got {type(reference).__name__}: {reference!r:.80}"
                )
    return predictions, references, single_strings


def _mixed_shapes_message(first_is_string, index):
    first, this = ("a string", "a list") if first_is_string else ("a list", "a string")
    return (
        f"references mixes shapes: the first prediction's references are {first} but references[{index}] "
        f"is {this}; give every prediction a list of reference strings (or every one a single string)"
    )


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Bleu(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_FEATURES,
            codebase_urls=["https://github.com/tensorflow/nmt/blob/master/nmt/scripts/bleu.py"],
            reference_urls=["https://aclanthology.org/P02-1040", "https://en.wikipedia.org/wiki/BLEU"],
        )

    # evaluate appends the inputs description to the docstrings of compute, add_batch and add
    # at every load, so each override needs a docstring of its own.
    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions and their references, checked first."""
        if predictions is not None or references is not None:
            predictions, references, single_strings = _check_inputs(predictions, references)
            self._check_same_shape(single_strings)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction and its references, checked first."""
        if prediction is not None or reference is not None:
            self._check_same_shape(_check_inputs([prediction], [reference])[2])
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _check_same_shape(self, single_strings):
        """References added now must take the shape of those added before this computation."""
        if self.selected_feature_format is not None:
            stored_as_string = isinstance(self.selected_feature_format["references"], datasets.Value)
            if stored_as_string != single_strings:
                raise ValueError(_mixed_shapes_message(stored_as_string, 0).replace("references[0]", "this batch"))

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score the predictions and references given here and any added before."""
        # Options are checked before evaluate consumes the added data: when `_compute` raises,
        # evaluate has already deleted it.
        options = _resolve_options(**kwargs)
        if predictions is None and references is None and self.writer is None:
            raise ValueError("no predictions to score: pass predictions and references, or add() them first")
        return super().compute(predictions=predictions, references=references, options=options)

    def _compute(self, predictions, references, options):
        if references and isinstance(references[0], str):
            references = [[reference] for reference in references]
        tokenize, max_order = options["tokenize"], options["max_order"]
        stats = corpus_statistics(
            tokenize_corpus(predictions, tokenize),
            [tokenize_corpus(segment_references, tokenize) for segment_references in references],
            max_order,
        )
        return score_statistics(stats.sum(axis=0), max_order, options["smooth"])
