"""Why this score? Each segment's n-gram evidence, worked out as the tutorials do by hand.

A corpus's explanations are a lazy sequence: each segment is worked out when it is read, so
explaining a million segments, one at a time, takes the memory of one.
"""

import collections
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast, overload

from ..options import Settings
from ..sufficient_statistics import Statistics, segment_row
from . import first_weight_set, scored_rows_of, scores_of_rows


def ngrams(tokens: list[str], n: int) -> Iterator[tuple[str, ...]]:
    """The n-grams of a token list, in order, as tuples."""
    return zip(*(tokens[start:] for start in range(n)))


def explain_segment(prediction: str, references: list[str], tokenize: Callable[[str], list[str]],
                    settings: Settings, orders: int) -> dict[str, object]:
    """One segment's evidence: count each n-gram of the prediction, clip it by the most times it
    occurs in one reference, pick the reference length, apply the brevity penalty. Its score is a
    per-sentence score (``scoring.scores_of_rows``).

    ``tokenize`` is the settings' tokenizer (``tokenizers.make_tokenizer``), and ``orders`` how
    many orders the settings' statistics count; the evidence adds up to that row.
    """
    tokens, reference_tokens = tokenize(prediction), [tokenize(reference) for reference in references]
    row = segment_row(tokens, reference_tokens, orders, settings.statistics.ref_length)
    statistics = Statistics([row], orders)
    scores = scores_of_rows(statistics, settings)
    # A list with several weight sets.
    bleu: list[float] | float = scores[:, 0].tolist() if scores.ndim == 2 else float(scores[0])
    explained: list[dict[str, object]] = []
    for n in range(1, settings.statistics.max_order + 1):
        counts = collections.Counter(ngrams(tokens, n))
        most: collections.Counter[tuple[str, ...]] = collections.Counter()
        for reference in reference_tokens:
            most |= collections.Counter(ngrams(reference, n))
        grams: list[dict[str, Any]] = [{"ngram": list(ngram), "count": count, "max_reference_count": most[ngram]}
                 for ngram, count in counts.items()]
        explained.append({"n": n, "matches": sum(min(g["count"], g["max_reference_count"]) for g in grams),
                          "total": sum(counts.values()), "ngrams": grams})
    return {"prediction_tokens": tokens, "reference_tokens": reference_tokens,
            "reference_length": statistics.sums().reference_length,
            "brevity_penalty": float(scored_rows_of(statistics, first_weight_set(settings)).brevity_penalty[0]),
            "sentence_bleu": bleu, "orders": explained}


class Explanations(collections.abc.Sequence[dict[str, object]]):
    """The explanations of a corpus, one dict per segment (see ``api.explain``), each worked out
    when it is read: index it, slice it, or iterate over it to stream them. ``list()`` of it
    holds them all at once."""

    def __init__(self, predictions: Sequence[str], references: Sequence[list[str]],
                 tokenize: Callable[[str], list[str]], settings: Settings, orders: int,
                 max_tokens: int | None = None):
        self._predictions, self._references = predictions, references
        self._tokenize, self._settings, self._orders, self._max_tokens = tokenize, settings, orders, max_tokens

    def __len__(self) -> int:
        return len(self._predictions)

    @overload
    def __getitem__(self, index: int) -> dict[str, object]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, object]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, object] | list[dict[str, object]]:
        if isinstance(index, slice):
            return [self[number] for number in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"segment {index} of {len(self)}")
        explained = explain_segment(self._predictions[index], self._references[index], self._tokenize,
                                    self._settings, self._orders)
        # explain_segment's tokens: the prediction's list of tokens, and a list of them per reference.
        tokens = (len(cast("list[str]", explained["prediction_tokens"]))
                  + sum(map(len, cast("list[list[str]]", explained["reference_tokens"]))))
        if self._max_tokens is not None and tokens > self._max_tokens:
            raise ValueError(f"segment {index} holds {tokens:,} tokens, more than max_tokens={self._max_tokens:,}, "
                             f"the most this metric takes")
        return explained

    def __iter__(self) -> Iterator[dict[str, object]]:
        return (self[index] for index in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Explanations, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return f"Explanations({len(self)} segments, each worked out when read)"
