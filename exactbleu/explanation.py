"""Why this score? Each segment's n-gram evidence, worked out as the tutorials do by hand."""

import collections
from typing import Dict, List

from .scoring import score
from .sufficient_statistics import Statistics


def ngrams(tokens: List[str], n: int):
    """The n-grams of a token list, in order, as tuples."""
    return zip(*(tokens[start:] for start in range(n)))


def explain_segments(predictions: List[str], references: List[List[str]], statistics: Statistics, tokenize,
                     settings) -> List[Dict[str, object]]:
    """Each segment's evidence: count each n-gram of the prediction, clip it by the most times it
    occurs in one reference, pick the reference length, apply the brevity penalty.

    ``tokenize`` is the settings' tokenizer (``tokenizers.make_tokenizer``) and ``statistics``
    the corpus's, which the evidence adds up to. Returns one dict per segment (see ``api.explain``).
    """
    explained = []
    for prediction, segment_references, sums in zip(predictions, references, statistics.segments()):
        tokens, reference_tokens = tokenize(prediction), [tokenize(reference) for reference in segment_references]
        result = score(sums, settings)
        orders = []
        for n in range(1, settings.statistics.max_order + 1):
            counts = collections.Counter(ngrams(tokens, n))
            most = collections.Counter()
            for reference in reference_tokens:
                most |= collections.Counter(ngrams(reference, n))
            grams = [{"ngram": list(ngram), "count": count, "max_reference_count": most[ngram]}
                     for ngram, count in counts.items()]
            orders.append({"n": n, "matches": sum(min(g["count"], g["max_reference_count"]) for g in grams),
                           "total": sum(counts.values()), "ngrams": grams})
        explained.append({"prediction_tokens": tokens, "reference_tokens": reference_tokens,
                          "reference_length": int(sums.reference_length), "brevity_penalty": result["brevity_penalty"],
                          "sentence_bleu": result["bleu"], "orders": orders})
    return explained
