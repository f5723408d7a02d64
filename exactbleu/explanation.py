"""Why this score? Each segment's n-gram evidence, worked out as the tutorials do by hand.

A corpus's explanations are a lazy sequence: each segment is worked out when it is read, so
explaining a million segments, one at a time, takes the memory of one.
"""

import collections
from typing import Callable, Dict, Iterator, List, Optional, Sequence

from .scoring import first_weight_set, sentence_results, sentence_scores
from .sufficient_statistics import Statistics, segment_row


def ngrams(tokens: List[str], n: int):
    """The n-grams of a token list, in order, as tuples."""
    return zip(*(tokens[start:] for start in range(n)))


def explain_segment(prediction: str, references: List[str], tokenize: Callable[[str], List[str]], settings,
                    orders: int) -> Dict[str, object]:
    """One segment's evidence: count each n-gram of the prediction, clip it by the most times it
    occurs in one reference, pick the reference length, apply the brevity penalty. Its score is a
    per-sentence score (``scoring.sentence_scores``).

    ``tokenize`` is the settings' tokenizer (``tokenizers.make_tokenizer``), and ``orders`` how
    many orders the settings' statistics count; the evidence adds up to that row.
    """
    tokens, reference_tokens = tokenize(prediction), [tokenize(reference) for reference in references]
    row = segment_row(tokens, reference_tokens, orders, settings.statistics.ref_length)
    statistics = Statistics([row], orders)
    scores = sentence_scores(statistics, settings)
    scores = scores[:, 0].tolist() if scores.ndim == 2 else float(scores[0])  # a list with several weight sets
    explained = []
    for n in range(1, settings.statistics.max_order + 1):
        counts = collections.Counter(ngrams(tokens, n))
        most = collections.Counter()
        for reference in reference_tokens:
            most |= collections.Counter(ngrams(reference, n))
        grams = [{"ngram": list(ngram), "count": count, "max_reference_count": most[ngram]}
                 for ngram, count in counts.items()]
        explained.append({"n": n, "matches": sum(min(g["count"], g["max_reference_count"]) for g in grams),
                          "total": sum(counts.values()), "ngrams": grams})
    return {"prediction_tokens": tokens, "reference_tokens": reference_tokens, "reference_length": row[1],
            "brevity_penalty": float(sentence_results(statistics, first_weight_set(settings)).brevity_penalty[0]),
            "sentence_bleu": scores, "orders": explained}


class Explanations(collections.abc.Sequence):
    """The explanations of a corpus, one dict per segment (see ``api.explain``), each worked out
    when it is read: index it, slice it, or iterate over it to stream them. ``list()`` of it
    holds them all at once."""

    def __init__(self, predictions: Sequence[str], references: Sequence[List[str]], tokenize, settings, orders: int,
                 max_tokens: Optional[int] = None):
        self._predictions, self._references = predictions, references
        self._tokenize, self._settings, self._orders, self._max_tokens = tokenize, settings, orders, max_tokens

    def __len__(self) -> int:
        return len(self._predictions)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[number] for number in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"segment {index} of {len(self)}")
        explained = explain_segment(self._predictions[index], self._references[index], self._tokenize,
                                    self._settings, self._orders)
        tokens = len(explained["prediction_tokens"]) + sum(map(len, explained["reference_tokens"]))
        if self._max_tokens is not None and tokens > self._max_tokens:
            raise ValueError(f"segment {index} holds {tokens:,} tokens, more than max_tokens={self._max_tokens:,}, "
                             f"the most this metric takes")
        return explained

    def __iter__(self) -> Iterator[Dict[str, object]]:
        return (self[index] for index in range(len(self)))

    def __eq__(self, other) -> bool:
        if isinstance(other, (Explanations, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return f"Explanations({len(self)} segments, each worked out when read)"
