"""sentence_scores: every prediction's per-sentence BLEU at once, numpy over the rows, bit for bit
what sentence_bleu gives for each, under every preset, smoothing method and set of weights; and
so the oracles' numbers: HF's bleu on one segment, sacrebleu's sentence_bleu, NLTK's sentence_bleu."""


import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import exactbleu
from exactbleu import scoring
from oracles import OPTIONS, PER_CORPUS, corpora, hf_bleu, outcome


@given(corpus=corpora(max_segments=6), preset=st.sampled_from(sorted(exactbleu.PRESETS)), drawn=OPTIONS,
       rows_at_once=st.booleans())
def test_every_entry_is_sentence_bleu_bit_for_bit(corpus, preset, drawn, rows_at_once):
    """A few rows are scored one by one, by the arithmetic's one-sum form; more, all at once by its
    many-rows form (``rows_at_once``: every row so, whatever their number). Both are held to it."""
    predictions, references = corpus
    chosen = {name: value for name, value in drawn.items() if name in PER_CORPUS}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scoring, "FEW_ROWS", -1 if rows_at_once else scoring.FEW_ROWS)
        got = outcome(lambda: exactbleu.sentence_scores(predictions, references, preset, **chosen))
    expected = outcome(lambda: [exactbleu.sentence_bleu(p, r, preset, **chosen)["bleu"]
                                for p, r in zip(predictions, references)])
    assert got[0] == expected[0]
    if got[0] == "ok":
        scores, expected = got[1], expected[1]
        assert scores.dtype == np.float64
        if isinstance(expected[0], list):  # several weight sets: a row of scores per set
            assert scores.tolist() == [list(column) for column in zip(*expected)]
        else:
            assert scores.tolist() == expected


@given(corpus=corpora(max_segments=5, arbitrary_text=False))
def test_the_default_is_hfs_bleu_on_each_segment(corpus):
    predictions, references = corpus
    expected = [hf_bleu([p], [r])["bleu"] for p, r in zip(predictions, references)]
    assert exactbleu.sentence_scores(predictions, references).tolist() == expected


def test_several_weight_sets_give_a_row_per_set():
    predictions, references = ["a b c d", "a b x"], [["a b c d"], ["a b c"]]
    scores = exactbleu.sentence_scores(predictions, references, weights=[[1.0], [0.5, 0.5]])
    assert scores.shape == (2, 2)
    assert scores[0].tolist() == exactbleu.sentence_scores(predictions, references, weights=[1.0]).tolist()
    assert scores[1].tolist() == exactbleu.sentence_scores(predictions, references, max_order=2).tolist()
