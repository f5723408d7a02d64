"""Synthetic corpora for the benchmark: Zipf-like words, about 25 tokens a segment, with
punctuation and numbers, and references that are noisy copies of the predictions."""

import numpy as np

_PUNCTUATION = [",", ".", "-", "(", ")", "'s", "3.5", "1,000", "&", "?"]
_BLOCK = 10_000  # segments made at a time, so making a big corpus holds little beyond the corpus itself


def make_corpus(segments, references=1, seed=0, vocabulary=30000, length=25):
    """(predictions, references): references as one list of strings per prediction."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(vocabulary)] + _PUNCTUATION
    # Zipf-like: word i drawn with probability proportional to 1 / (i + 10)
    weights = 1.0 / (np.arange(len(words)) + 10.0)
    weights /= weights.sum()
    predictions, refs = [], []
    for first in range(0, segments, _BLOCK):
        block = min(_BLOCK, segments - first)
        lengths = np.clip(rng.normal(length, 8, size=block * (1 + references)).astype(int), 1, 120)
        draws = rng.choice(len(words), size=int(lengths.sum()), p=weights)
        ends = np.cumsum(lengths)
        texts = [draws[end - n : end] for end, n in zip(ends, lengths)]
        predictions += [" ".join(words[i] for i in text) for text in texts[:block]]
        for s in range(block):
            segment_references = []
            for r in range(references):
                # Keep about 60% of the prediction's tokens in place, fill the rest from the draw.
                base, other = texts[s], texts[block + s * references + r]
                keep = rng.random(len(base)) < 0.6
                mixed = [words[b] if k else words[other[i % len(other)]] for i, (b, k) in enumerate(zip(base, keep))]
                segment_references.append(" ".join(mixed))
            refs.append(segment_references)
    return predictions, refs
