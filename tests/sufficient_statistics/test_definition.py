"""One segment's row by the definition (``segment_row``, with Python's sets) is the plain
restatement's (tests/oracles.py), where n-grams repeat on both sides."""

import pytest

from exactbleu import sufficient_statistics
from oracles import plain_row, random_cases



@pytest.mark.parametrize("seed", range(3))
def test_segment_row_clips_repeated_ngrams_as_the_definition_does(seed):
    """Five words, up to nine a sentence, up to four references: most n-grams repeat, on both sides."""
    predictions, references = random_cases(seed, count=300)
    for prediction, segment_references in zip(predictions, references):
        tokens, reference_tokens = prediction.split(), [reference.split() for reference in segment_references]
        for ref_length in ("shortest", "closest"):
            assert (sufficient_statistics.segment_row(tokens, reference_tokens, 6, ref_length)
                    == plain_row(tokens, reference_tokens, 6, ref_length))
