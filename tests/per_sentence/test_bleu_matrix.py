"""bleu_matrix: entry [i, j] is exactly sentence_bleu(predictions[i], [references[j]]), under every
preset and option, in blocks of any size, from text or token ids."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import exactbleu
from exactbleu.counting import matrix_matches as matrix
from exactbleu.per_sentence import matrix as per_sentence
from oracles import OPTIONS, PER_CORPUS, outcome, segments


@given(predictions=st.lists(segments(max_words=8), min_size=1, max_size=5),
       references=st.lists(segments(max_words=8), min_size=1, max_size=5),
       preset=st.sampled_from(sorted(exactbleu.PRESETS)), drawn=OPTIONS, threaded=st.booleans())
def test_every_entry_is_sentence_bleu_of_its_pair(predictions, references, preset, drawn, threaded):
    """Threaded: a block per prediction, worked out in two threads."""
    chosen = {name: value for name, value in drawn.items() if name in PER_CORPUS}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matrix, "_BLOCK_CELLS", 1 if threaded else 10**6)
        got = outcome(lambda: exactbleu.bleu_matrix(predictions, references, preset, threads=2, **chosen))
    expected = outcome(lambda: [[exactbleu.sentence_bleu(p, [r], preset, **chosen)["bleu"] for r in references]
                                for p in predictions])
    assert got[0] == expected[0]
    if got[0] == "ok":
        entries = expected[1]
        if isinstance(entries[0][0], list):  # several weight sets: a matrix per set
            entries = np.moveaxis(np.array(entries), 2, 0).tolist()
        assert got[1].tolist() == entries


def test_blocks_of_any_size_give_the_same_matrix(monkeypatch):
    rng = np.random.default_rng(1)
    words = np.array("the a cat dog sat ran on in mat home".split())
    predictions = [" ".join(rng.choice(words, rng.integers(0, 12))) for _ in range(23)]
    references = [" ".join(rng.choice(words, rng.integers(0, 12))) for _ in range(7)]
    whole = exactbleu.bleu_matrix(predictions, references, "sacrebleu")
    monkeypatch.setattr(matrix, "_BLOCK_CELLS", 10)  # one prediction a block, then a few
    assert exactbleu.bleu_matrix(predictions, references, "sacrebleu").tolist() == whole.tolist()
    monkeypatch.setattr(matrix, "_BLOCK_CELLS", 50)
    assert exactbleu.bleu_matrix(predictions, references, "sacrebleu").tolist() == whole.tolist()
    for threads in (1, 2, 3):
        assert exactbleu.bleu_matrix(predictions, references, "sacrebleu", threads=threads).tolist() == whole.tolist()
    expected = [[exactbleu.sentence_bleu(p, [r], "sacrebleu")["bleu"] for r in references] for p in predictions]
    assert whole.tolist() == expected


def test_token_ids_give_the_matrix_of_the_same_ids_as_words():
    rng = np.random.default_rng(2)
    predictions = [rng.integers(0, 15, rng.integers(0, 10)).tolist() for _ in range(12)]
    references = [rng.integers(0, 15, rng.integers(1, 10)).tolist() for _ in range(5)]
    words = lambda ids: [" ".join(map(str, one)) for one in ids]  # noqa: E731
    expected = exactbleu.bleu_matrix(words(predictions), words(references), tokenizer="none")
    assert exactbleu.bleu_matrix(predictions, references).tolist() == expected.tolist()


def test_a_matrix_too_large_is_refused_before_any_work(monkeypatch):
    monkeypatch.setattr(per_sentence, "MAX_CELLS", 12)
    with pytest.raises(ValueError, match="entries, more than"):
        exactbleu.bleu_matrix(["a"] * 4, ["b"] * 4)
    with pytest.raises(ValueError, match="at least one prediction and one reference"):
        exactbleu.bleu_matrix(["a"], [])


def test_own_scale_entries_are_sacrebleus_sentence_scores_on_its_scale():
    from sacrebleu.metrics import BLEU

    rng = np.random.default_rng(6)
    words = np.array("the a cat dog sat ran on in mat home . ,".split())
    predictions = [" ".join(rng.choice(words, rng.integers(0, 14))) for _ in range(17)]
    references = [" ".join(rng.choice(words, rng.integers(0, 14))) + " " * int(rng.integers(0, 2)) for _ in range(9)]
    for options in ({}, {"smooth_method": "floor", "effective_order": False}, {"max_order": 2}):
        sacrebleus = BLEU(effective_order=options.get("effective_order", True), max_ngram_order=options.get(
            "max_order", 4), smooth_method=options.get("smooth_method", "exp"))
        expected = [[sacrebleus.sentence_score(p, [r]).score for r in references] for p in predictions]
        assert exactbleu.bleu_matrix(predictions, references, "sacrebleu", own_scale=True,
                                     **options).tolist() == expected
    # HF's arithmetic states its scores on 0..1: its own scale is bleu's
    assert (exactbleu.bleu_matrix(predictions, references, own_scale=True).tolist()
            == exactbleu.bleu_matrix(predictions, references).tolist())
    with pytest.raises(TypeError, match="own_scale must be True or False"):
        exactbleu.bleu_matrix(predictions, references, own_scale="yes")
    with pytest.raises(ValueError, match="own_scale takes one set"):
        exactbleu.bleu_matrix(predictions, references, own_scale=True, weights=[[1.0], [0.5, 0.5]])
