"""Counting for MBR decoding: each source's candidates against its own pseudo-references, for many
sources at once, a block of sources at a time.

Pairwise, as a BLEU matrix counts (``matrix_matches``), but with each n-gram's number made
per source: the key of an n-gram in a text is (n-gram, the text's source), so the sparse products
of a block join only texts of one source, and a block's work is linear in its pairs, never in
all the block's candidates times all its pseudo-references. Aggregated (DeNero et al., 2009), each
source's pseudo-references become one bag of expected n-gram counts, and a candidate is counted
against that bag alone: linear in the texts.
"""

import threading
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..inputs import Groups, Texts, TokenIds, starts_of
from ..sufficient_statistics import CountedWith, ExpectedRows, Statistics
from ..tokenizers import Tokenizing
from .matrix_matches import sparse_module
from .ngrams import Tokens, ngram_counts, tokens_of_ids, tokens_of_text
from .threads import in_threads

# A block's (candidate, pseudo-reference) pairs: each takes about 400 bytes at the peak.
BLOCK_PAIRS = 250_000
# An aggregated block's texts: its sorts are fastest at about this size.
BLOCK_TEXTS = 8_000


class PairRows(NamedTuple):
    """A pairwise block's rows: its pairs' distinct statistics rows, and where each pair's row is
    among them (pairs of like texts share rows: a score is then worked out once a row)."""

    rows: Statistics
    inverse: NDArray[np.int64]


# What becomes of a pairwise block's rows: (rows, first source, stop) -> one utility per candidate of the block.
PairReducer = Callable[[PairRows, int, int], NDArray[np.float64]]
# What becomes of an aggregated block's rows: one utility per candidate, its expected row's score.
ExpectedScorer = Callable[[ExpectedRows], NDArray[np.float64]]
# A block of sources worked out: (first source, stop) -> one utility per candidate of the block.
BlockUtilities = Callable[[int, int], NDArray[np.float64]]


class Block(NamedTuple):
    """A block of sources, counted: the tokens of its candidates, then of its pseudo-references
    (none where they are the candidates), and its sources' sizes."""

    tokens: Tokens
    candidates: NDArray[np.int64]
    references: NDArray[np.int64]
    shared: bool

    def source_of(self) -> NDArray[np.int64]:
        """Each text's source (within the block), candidates first."""
        sources = np.arange(len(self.candidates))
        owners = [np.repeat(sources, self.candidates)] + ([] if self.shared else [np.repeat(sources, self.references)])
        return np.concatenate(owners)

    def first_reference(self) -> int:
        """Where the pseudo-references' texts start among the block's texts."""
        return 0 if self.shared else int(self.candidates.sum())


def _sliced(texts: Texts, first: int, stop: int) -> list[str] | TokenIds:
    values = texts.values
    return values.segments(first, stop) if isinstance(values, TokenIds) else list(values[first:stop])


def _block(candidates: Texts, references: Texts | None, groups: Groups, first: int, stop: int,
           tokenize: Tokenizing) -> Block:
    """The tokens of sources ``first`` to ``stop``: their candidates, then their pseudo-references."""
    parts = [_sliced(candidates, *groups.candidate_span(first, stop))]
    if references is not None:
        parts.append(_sliced(references, *groups.reference_span(first, stop)))
    if isinstance(parts[0], TokenIds):
        joined = TokenIds(np.concatenate([part.ids for part in parts]),  # type: ignore[union-attr]
                          np.concatenate([part.lengths for part in parts]))  # type: ignore[union-attr]
        tokens = tokens_of_ids(joined)
    else:
        tokens = tokens_of_text([text for part in parts for text in part], tokenize)  # type: ignore[union-attr]
    return Block(tokens, groups.candidates[first:stop], groups.references[first:stop], references is None)


def _keyed(source: NDArray[np.int64], sources: int, text: NDArray[np.int64],
           gram: NDArray[np.int64]) -> tuple[NDArray[np.int64], int]:
    """Each (text, n-gram) pair's key, (n-gram, the text's ``source``) made dense, and how many
    keys there are."""
    distinct, key = np.unique(gram * sources + source[text], return_inverse=True)
    return key.reshape(-1), len(distinct)


def pair_rows(block: Block, counted_with: CountedWith) -> Statistics:
    """The statistics row of every (candidate, pseudo-reference) pair of one source, source after
    source, each candidate's pairs in the order of its source's pseudo-references."""
    sparse = sparse_module("mbr")
    orders = counted_with.orders
    candidates, references = block.candidates, block.references
    texts, first_reference, theirs_count = int(candidates.sum()), block.first_reference(), int(references.sum())
    owner = np.repeat(np.arange(len(candidates)), candidates)  # each candidate's source
    # Pair (c, r) of a source is row base[c] + place[r]: where c's pairs start, and r's place in its source.
    each = references[owner]
    base = starts_of(each)
    reference_start = starts_of(references)
    place = np.arange(theirs_count) - np.repeat(reference_start, references)
    source = block.source_of()
    matches = np.zeros((int(each.sum()), orders), dtype=np.int64)
    for n, counts in enumerate(ngram_counts(block.tokens, orders)):
        if not len(counts.text):
            break
        key, keys = _keyed(source, len(candidates), counts.text, counts.gram)
        mine = counts.text < texts
        theirs = counts.text >= first_reference
        for k in range(1, int(counts.count.max()) + 1):
            left, right = mine & (counts.count >= k), theirs & (counts.count >= k)
            if not left.any() or not right.any():
                break
            one = sparse.csr_matrix((np.ones(int(left.sum()), dtype=np.int32), (counts.text[left], key[left])),
                                    shape=(texts, keys))
            two = sparse.csr_matrix((np.ones(int(right.sum()), dtype=np.int32),
                                     (key[right], counts.text[right] - first_reference)), shape=(keys, theirs_count))
            product = one @ two  # only pairs of one source meet: a key holds its source
            pair = np.repeat(base, np.diff(product.indptr)) + place[product.indices]
            matches[pair, n] += product.data
    candidate = np.repeat(np.arange(texts), each)
    # A pair's pseudo-reference: its source's first, and the pair's place among its candidate's pairs.
    first = first_reference + np.repeat(reference_start, candidates * references)
    reference = first + np.arange(len(matches)) - base[candidate]
    lengths = block.tokens.lengths
    return Statistics.of_lengths(lengths[candidate], lengths[reference], matches, None, counted_with)


def aggregated_rows(block: Block, probabilities: NDArray[np.float64], counted_with: CountedWith) -> ExpectedRows:
    """Each candidate's row against its source's expected pseudo-reference: every n-gram's count
    and the length weighted by ``probabilities`` (one per pseudo-reference of the block) and
    summed over the source's pseudo-references."""
    orders = counted_with.orders
    candidates, references = block.candidates, block.references
    texts, first_reference = int(candidates.sum()), block.first_reference()
    matches = np.zeros((texts, orders))
    source = block.source_of()
    for n, counts in enumerate(ngram_counts(block.tokens, orders)):
        if not len(counts.text):
            break
        key, keys = _keyed(source, len(candidates), counts.text, counts.gram)
        theirs = counts.text >= first_reference
        expected = np.bincount(key[theirs], probabilities[counts.text[theirs] - first_reference] * counts.count[theirs],
                               minlength=keys)
        mine = counts.text < texts
        matches[:, n] = np.bincount(counts.text[mine], np.minimum(counts.count[mine], expected[key[mine]]),
                                    minlength=texts)
    lengths = block.tokens.lengths
    their_lengths = lengths[first_reference:first_reference + int(references.sum())]
    expected_length = np.bincount(np.repeat(np.arange(len(references)), references), probabilities * their_lengths,
                                  minlength=len(references))
    return ExpectedRows.of_lengths(lengths[:texts], np.repeat(expected_length, candidates), matches, counted_with)


def host_pairwise_utilities(candidates: Texts, references: Texts | None, groups: Groups, tokenize: Tokenizing,
                            counted_with: CountedWith, reduce: PairReducer, threads: int) -> NDArray[np.float64]:
    """One utility per candidate, end to end: each block of sources' pairs counted on the host, and
    their rows reduced by ``reduce``."""

    def utilities_of(first: int, stop: int) -> NDArray[np.float64]:
        block = _block(candidates, references, groups, first, stop, tokenize)
        return reduce(PairRows(*pair_rows(block, counted_with).distinct()), first, stop)

    return utilities_by_block(groups, groups.blocks(BLOCK_PAIRS), utilities_of, threads)


def host_aggregated_utilities(candidates: Texts, references: Texts | None, groups: Groups, tokenize: Tokenizing,
                              counted_with: CountedWith, probabilities: NDArray[np.float64], score: ExpectedScorer,
                              threads: int) -> NDArray[np.float64]:
    """One utility per candidate, end to end: each candidate's expected row against its source's
    aggregate, its pseudo-references weighted by ``probabilities`` (one each, end to end), scored
    by ``score``."""

    def utilities_of(first: int, stop: int) -> NDArray[np.float64]:
        block = _block(candidates, references, groups, first, stop, tokenize)
        begin, end = groups.reference_span(first, stop)
        return score(aggregated_rows(block, probabilities[begin:end], counted_with))

    # An aggregated block's work is linear in its texts: blocks are counted in texts.
    return utilities_by_block(groups, groups.blocks(BLOCK_TEXTS, pairwise=False), utilities_of, threads)


def utilities_by_block(groups: Groups, bounds: Sequence[tuple[int, int]], utilities_of: BlockUtilities,
                       threads: int) -> NDArray[np.float64]:
    """One utility per candidate, end to end: each block of sources ((first, stop) in ``bounds``)
    worked out by ``utilities_of``, the blocks in up to ``threads`` threads, each into its own
    candidates' places."""
    utilities = np.empty(int(groups.candidates.sum()))

    def work(numbers: Sequence[int], stop: threading.Event) -> None:
        for number in numbers:
            if stop.is_set():
                return
            first, last = bounds[number]
            begin, end = groups.candidate_span(first, last)
            utilities[begin:end] = utilities_of(first, last)

    in_threads(work, range(len(bounds)), max(1, min(threads, len(bounds))))
    return utilities
