"""BLEU matrices: every prediction against every reference, each entry a sentence score.

Entry ``[i, j]`` is ``sentence_bleu(predictions[i], [references[j]])``. One reference makes the
reference length that reference's length, whichever rule; the clipped matches of order n are
sums of minima, sum over n-grams of min(a, b), and min(a, b) = sum over k >= 1 of [a >= k][b >= k].
So each order's matches are sums of products of sparse 0/1 matrices, predictions by n-grams
times n-grams by references: scipy's sparse products, a block of predictions at a time, so memory
stays bounded. The scores of a block come from its statistics rows, as ``sentence_scores``.
"""

from typing import Iterator, Tuple

import numpy as np

from .ngrams import Tokens, ngram_counts
from .scoring import sentence_scores
from .sufficient_statistics import CountedWith, Statistics

# The largest matrix one call makes: 10**8 float64 entries, 800 MB.
MAX_CELLS = 100_000_000
# Entries worked out at once: their statistics rows and scores take about 500 bytes each at the peak.
_BLOCK_CELLS = 250_000


def _sparse():
    try:
        from scipy import sparse
    except ImportError:
        raise ImportError("bleu_matrix needs scipy (its sparse matrices): pip install scipy") from None
    return sparse


def matrix_blocks(tokens: Tokens, predictions: int, orders: int) -> Iterator[Tuple[int, int, np.ndarray]]:
    """The clipped matches of every (prediction, reference) pair, a block of predictions at a time:
    (first, stop, matches of shape (stop - first, references, orders)). ``tokens`` holds the
    predictions, then the references. The references' side is made once; a block's side, of
    its predictions alone."""
    sparse = _sparse()
    references = len(tokens.lengths) - predictions
    sides = []  # per order: the predictions' (text, gram, count) by text, and each level k's reference side
    for counts in ngram_counts(tokens, orders):
        grams = int(counts.gram.max(initial=-1)) + 1
        mine = counts.text < predictions
        by_text = np.argsort(counts.text[mine], kind="stable")
        predicted = counts.text[mine][by_text], counts.gram[mine][by_text], counts.count[mine][by_text]
        theirs = ~mine
        levels = []
        for k in range(1, int(counts.count.max(initial=0)) + 1):
            right = theirs & (counts.count >= k)
            ones = np.ones(int(right.sum()), dtype=np.int32)
            levels.append(sparse.csr_matrix((ones, (counts.gram[right], counts.text[right] - predictions)),
                                            shape=(grams, references)))
        sides.append((predicted, grams, levels))
    block = max(1, _BLOCK_CELLS // max(references, 1))
    for first in range(0, predictions, block):
        stop = min(first + block, predictions)
        matches = np.zeros((stop - first, references, orders), dtype=np.int64)
        for n, ((text, gram, count), grams, levels) in enumerate(sides):
            start, end = np.searchsorted(text, [first, stop])
            text, gram, count = text[start:end] - first, gram[start:end], count[start:end]
            for k, level in enumerate(levels, start=1):
                left = count >= k
                ones = np.ones(int(left.sum()), dtype=np.int32)
                rows = sparse.csr_matrix((ones, (text[left], gram[left])), shape=(stop - first, grams))
                matches[:, :, n] += (rows @ level).toarray()
        yield first, stop, matches


def bleu_matrix_of(tokens: Tokens, predictions: int, settings, counted_with: CountedWith) -> np.ndarray:
    """The BLEU matrix of ``tokens`` (the predictions, then the references): a float64 array of
    shape (predictions, references), or (weight sets, predictions, references)."""
    references = len(tokens.lengths) - predictions
    orders = counted_with.orders
    prediction_lengths, reference_lengths = tokens.lengths[:predictions], tokens.lengths[predictions:]
    result = None
    for first, stop, matches in matrix_blocks(tokens, predictions, orders):
        rows = (stop - first) * references
        lengths = np.repeat(prediction_lengths[first:stop], references)
        statistics = Statistics.from_columns(lengths, np.tile(reference_lengths, stop - first),
                                             matches.reshape(rows, orders),
                                             np.maximum(lengths[:, None] - np.arange(orders), 0), None, counted_with)
        scores = sentence_scores(statistics, settings)
        if result is None:
            result = np.empty(scores.shape[:-1] + (predictions, references))
        result[..., first:stop, :] = scores.reshape(scores.shape[:-1] + (stop - first, references))
    return result
