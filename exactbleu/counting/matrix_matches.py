"""BLEU matrices: every prediction against every reference, each entry a sentence score.

Entry ``[i, j]`` is ``sentence_bleu(predictions[i], [references[j]])``. One reference makes the
reference length that reference's length, whichever rule; the clipped matches of order n are
sums of minima, sum over n-grams of min(a, b), and min(a, b) = sum over k >= 1 of [a >= k][b >= k].
So each order's matches are sums of products of sparse 0/1 matrices, predictions by n-grams
times n-grams by references: scipy's sparse products, a block of predictions at a time, so memory
stays bounded. The scores of a block come from its statistics rows, by the scorer the caller
gives; blocks are worked out in threads, as numpy and scipy run outside the GIL.
"""

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..registry import MissingExtra
from ..sufficient_statistics import CountedWith, Statistics
from .ngrams import Tokens, ngram_counts
from .threads import in_threads

Scorer = Callable[[Statistics], NDArray[np.float64]]  # rows' sentence scores: (rows,), or (weight sets, rows)

# Entries worked out at once: their statistics rows and scores take about 500 bytes each at the peak.
_BLOCK_CELLS = 250_000


def sparse_module(function: str) -> Any:  # scipy.sparse, which ships no types
    """scipy.sparse, or a MissingExtra that says ``function`` needs it and how to install it."""
    try:
        from scipy import sparse
    except ImportError as error:
        raise MissingExtra(function, "scipy's sparse matrices", "matrix", name=error.name) from None
    return sparse


class MatrixSides:
    """The clipped matches of every (prediction, reference) pair, a block of predictions at a time.
    ``tokens`` holds the predictions, then the references. The references' side is made once, at
    construction; a block's side, of its predictions alone, when the block is asked for."""

    def __init__(self, tokens: Tokens, predictions: int, orders: int):
        sparse = sparse_module("bleu_matrix")
        self.predictions, self.references, self.orders = predictions, len(tokens.lengths) - predictions, orders
        # per order: the predictions' (text, gram, count) by text, and each level k's reference side
        self.sides: list[tuple[tuple[np.ndarray, np.ndarray, np.ndarray], int, list[Any]]] = []
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
                                                shape=(grams, self.references)))
            self.sides.append((predicted, grams, levels))

    def blocks(self) -> list[tuple[int, int]]:
        """(first, stop) of each block of predictions: about ``_BLOCK_CELLS`` entries each."""
        block = max(1, _BLOCK_CELLS // max(self.references, 1))
        return [(first, min(first + block, self.predictions)) for first in range(0, self.predictions, block)]

    def matches(self, first: int, stop: int) -> np.ndarray:
        """The clipped matches of predictions ``first`` to ``stop`` against every reference, of
        shape (stop - first, references, orders)."""
        sparse = sparse_module("bleu_matrix")
        matches = np.zeros((stop - first, self.references, self.orders), dtype=np.int64)
        for n, ((text, gram, count), grams, levels) in enumerate(self.sides):
            start, end = np.searchsorted(text, [first, stop])
            text, gram, count = text[start:end] - first, gram[start:end], count[start:end]
            for k, level in enumerate(levels, start=1):
                left = count >= k
                ones = np.ones(int(left.sum()), dtype=np.int32)
                rows = sparse.csr_matrix((ones, (text[left], gram[left])), shape=(stop - first, grams))
                matches[:, :, n] += (rows @ level).toarray()
        return matches


def matrix_scores(tokens: Tokens, predictions: int, counted_with: CountedWith, score: Scorer, sets: int | None,
                  threads: int = 1) -> NDArray[np.float64]:
    """The BLEU matrix of ``tokens`` (the predictions, then the references), each block's rows
    scored by ``score``: a float64 array of shape (predictions, references), or with ``sets``
    weight sets (sets, predictions, references). Blocks of predictions are worked out in up to
    ``threads`` threads, each into its own rows of the matrix."""
    sides = MatrixSides(tokens, predictions, counted_with.orders)
    references, orders = sides.references, counted_with.orders
    prediction_lengths, reference_lengths = tokens.lengths[:predictions], tokens.lengths[predictions:]
    result = np.empty((*([sets] if sets else []), predictions, references))
    bounds = sides.blocks()

    def score_blocks(numbers: Sequence[int], stop: threading.Event) -> None:
        for number in numbers:
            if stop.is_set():
                return
            first, last = bounds[number]
            rows = (last - first) * references
            lengths = np.repeat(prediction_lengths[first:last], references)
            statistics = Statistics.of_lengths(lengths, np.tile(reference_lengths, last - first),
                                               sides.matches(first, last).reshape(rows, orders), None, counted_with)
            scores = score(statistics)
            result[..., first:last, :] = scores.reshape((*scores.shape[:-1], last - first, references))

    in_threads(score_blocks, range(len(bounds)), max(1, min(threads, len(bounds))))
    return result
