"""Counting on the host: a corpus becomes its ``Statistics`` (``corpus``: a few segments by the
definition, the rest by the numpy ``engine``, which reads token texts as bytes (``reading``), in
worker ``threads``, with a ``ReferenceCache``); texts against each other become Self-BLEU's rows
and statistics (``ngrams``, ``self_bleu_statistics``), a BLEU matrix (``matrix_matches``), and
each source's candidates against its pseudo-references for MBR (``by_source``); token ids as
fairseq's libbleu counts them (``fairseq_hashes``).

The functions below are what the dispatch calls here, as it calls ``device``'s for tensors.
"""


import numpy as np
from numpy.typing import NDArray

from ..inputs import Corpus, Groups, Texts, TokenIds
from ..options import Settings, counted_orders, counted_with
from ..sufficient_statistics import Statistics
from .by_source import (
    ExpectedScorer,
    PairReducer,
    PairRows,
    host_aggregated_utilities,
    host_pairwise_utilities,
    utilities_by_block,
)
from .cache import ReferenceCache
from .corpus import corpus_tokens, count, sentence_sums
from .fairseq_hashes import fairseq_statistics
from .matrix_matches import Scorer, matrix_scores
from .ngrams import Tokens, tokens_of_ids, tokens_of_text
from .run import Progress, Run
from .self_bleu_statistics import SelfBleuStatistics, rows_against_the_others
from .threads import thread_count


def corpus_statistics(corpus: Corpus, settings: Settings, run: Run) -> Statistics:
    """The statistics of a corpus of text or token ids (see ``corpus.count``), counted as ``run`` says."""
    return count(corpus.predictions, corpus.references, settings, counted_with(settings), run)


def fairseq_corpus_statistics(corpus: Corpus, settings: Settings) -> Statistics:
    """The statistics of token ids as fairseq's scorer reads them (``inputs.read_as_fairseq``) and
    libbleu counts them (``fairseq_hashes``)."""
    return fairseq_statistics(corpus.predictions, corpus.references, counted_orders(settings), counted_with(settings))


def _tokens(texts: Texts, settings: Settings) -> Tokens:
    if isinstance(texts.values, TokenIds):
        return tokens_of_ids(texts.values)
    return tokens_of_text(texts.values, settings.tokenize)


def self_rows(texts: Texts, settings: Settings, threads: int | None = None) -> Statistics:
    """Each text's statistics row against all the other texts, in linear time."""
    tokens = _tokens(texts, settings)
    return rows_against_the_others(tokens, counted_orders(settings), settings.statistics.ref_length,
                                   counted_with(settings), thread_count(threads, len(tokens.ids)))


def shard_statistics(texts: Texts, settings: Settings, threads: int | None = None) -> SelfBleuStatistics:
    """What Self-BLEU needs of a shard of a corpus, which adds up across shards."""
    tokens = _tokens(texts, settings)
    return SelfBleuStatistics.of(tokens, counted_orders(settings), counted_with(settings),
                                 thread_count(threads, len(tokens.ids)))


def self_rows_against(texts: Texts, corpus: SelfBleuStatistics, settings: Settings) -> Statistics:
    """Each text's statistics row against all the other texts of the corpus whose Self-BLEU
    statistics ``corpus`` holds (these texts are a shard of it)."""
    return corpus.rows_of(_tokens(texts, settings), settings.statistics.ref_length)


def matrix(predictions: Texts, references: Texts, settings: Settings, score: Scorer, sets: int | None,
           threads: int | None = None) -> NDArray[np.float64]:
    """The BLEU matrix of predictions against references (both text, or both ids)."""
    if isinstance(predictions.values, TokenIds):
        ids = TokenIds(np.concatenate([predictions.values.ids, references.values.ids]),
                       np.concatenate([predictions.values.lengths, references.values.lengths]))
        tokens = tokens_of_ids(ids)
    else:
        tokens = tokens_of_text(predictions.values + references.values, settings.tokenize)
    return matrix_scores(tokens, predictions.size, counted_with(settings), score, sets, thread_count(threads))


def pairwise_utilities(candidates: Texts, references: Texts | None, groups: Groups, settings: Settings,
                       reduce: PairReducer, threads: int | None = None) -> NDArray[np.float64]:
    """One utility per candidate (MBR's), end to end: each block of sources' pairs counted (see
    ``by_source``), and reduced by ``reduce``."""
    return host_pairwise_utilities(candidates, references, groups, settings.tokenize, counted_with(settings), reduce,
                                   thread_count(threads))


def aggregated_utilities(candidates: Texts, references: Texts | None, groups: Groups, settings: Settings,
                         probabilities: NDArray[np.float64], score: ExpectedScorer,
                         threads: int | None = None) -> NDArray[np.float64]:
    """One utility per candidate (MBR's aggregated), end to end: each candidate counted against its
    source's ``probabilities``-weighted aggregate (see ``by_source``), and scored by ``score``."""
    return host_aggregated_utilities(candidates, references, groups, settings.tokenize, counted_with(settings),
                                     probabilities, score, thread_count(threads))


__all__ = [
    "ExpectedScorer",
    "PairReducer",
    "PairRows",
    "Progress",
    "ReferenceCache",
    "Run",
    "Scorer",
    "SelfBleuStatistics",
    "aggregated_utilities",
    "corpus_statistics",
    "corpus_tokens",
    "fairseq_corpus_statistics",
    "matrix",
    "pairwise_utilities",
    "self_rows",
    "self_rows_against",
    "sentence_sums",
    "shard_statistics",
    "utilities_by_block",
]
