"""sentence_scores: every prediction's per-sentence BLEU at once, numpy over the rows, bit for bit
what sentence_bleu gives for each, under every preset, smoothing method and set of weights; and
so the oracles' numbers: HF's bleu on one segment, sacrebleu's sentence_bleu, NLTK's sentence_bleu."""

import math

import numpy as np
import pytest
import sacrebleu
from hypothesis import given
from hypothesis import strategies as st
from nltk.translate.bleu_score import SmoothingFunction
from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

import exactbleu
from exactbleu import Statistics, options
from exactbleu.scoring import for_sentences, result_of_sums, scores_of_rows
from oracles import OPTIONS, PER_CORPUS, corpora, hf_bleu, nltk_quietly, outcome, random_cases





@given(corpus=corpora(max_segments=6), preset=st.sampled_from(sorted(exactbleu.PRESETS)), drawn=OPTIONS)
def test_every_entry_is_sentence_bleu_bit_for_bit(corpus, preset, drawn):
    predictions, references = corpus
    chosen = {name: value for name, value in drawn.items() if name in PER_CORPUS}
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


@st.composite
def rows(draw, orders):
    """A statistics row by hand: any lengths, matches at most totals, totals as the length has them;
    sometimes an empty prediction or reference."""
    length = draw(st.integers(0, 12))
    totals = [max(0, length - n) for n in range(orders)]
    matches = [draw(st.integers(0, total)) for total in totals]
    return [length, draw(st.integers(0, 14)), *matches, *totals]


SCORING = [("default", {}), ("default", {"smooth": True}), ("default", {"effective_order": True}),
           ("default", {"ref_length": "closest"}), ("default", {"weights": [0.7, 0, 0.2, 0.1]}),
           *[("sacrebleu", {"smooth_method": method, **extra}) for method in ("none", "floor", "add-k", "exp")
             for extra in ({}, {"effective_order": True}, {"max_order": 2})],
           ("sacrebleu", {"smooth_method": "floor", "smooth_value": 0.5}), ("sacrebleu", {"smooth_value": 0.0,
                                                                                          "smooth_method": "add-k"}),
           ("sacrebleu", {"weights": [0.6, 0.4]}), ("sacrebleu", {"weights": [0, 0.5, 0.5]}),
           *[("nltk", {"smooth_method": f"method{number}"}) for number in range(8)],
           ("nltk", {"weights": [0.49, 0.49, 0.01, 0.01]}), ("nltk", {"smooth_method": "method4", "max_order": 2})]


@pytest.mark.parametrize("preset, chosen", SCORING)
@given(data=st.data())
def test_rows_made_by_hand_score_as_each_alone(preset, chosen, data):
    """Rows no tokenizer makes too (an empty reference with a long prediction, and so on)."""
    settings = options.resolve_settings(preset, **chosen)
    orders = options.counted_orders(settings)
    made = data.draw(st.lists(rows(orders), min_size=1, max_size=30))
    statistics = Statistics(np.array(made, dtype=np.int64), orders)
    expected = [result_of_sums(sums, for_sentences(settings))["bleu"] for sums in statistics.segments()]
    assert scores_of_rows(statistics, settings).tolist() == expected


@given(corpus=corpora(max_segments=5, arbitrary_text=False))
def test_the_default_is_hfs_bleu_on_each_segment(corpus):
    predictions, references = corpus
    expected = [hf_bleu([p], [r])["bleu"] for p, r in zip(predictions, references)]
    assert exactbleu.sentence_scores(predictions, references).tolist() == expected


@given(corpus=corpora(max_segments=5, arbitrary_text=False), method=st.sampled_from(["exp", "floor", "add-k", "none"]))
def test_the_sacrebleu_preset_is_sacrebleus_sentence_bleu(corpus, method):
    predictions, references = corpus
    expected = [min(1.0, sacrebleu.sentence_bleu(p, r, smooth_method=method).score / 100)
                for p, r in zip(predictions, references)]
    got = exactbleu.sentence_scores(predictions, references, "sacrebleu", smooth_method=method)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("method", range(8))
def test_the_nltk_preset_is_nltks_sentence_bleu(method):
    predictions, references = random_cases(seed=method, count=300)
    smoothing = getattr(SmoothingFunction(), f"method{method}")
    expected = []
    for prediction, segment_references in zip(predictions, references):
        if method == 6 and not _has_trigram_match(prediction, segment_references):
            expected.append(None)  # NLTK raises there; see the README's NLTK notes
            continue
        expected.append(nltk_quietly(nltk_sentence_bleu, [r.split() for r in segment_references], prediction.split(),
                                     smoothing_function=smoothing))
    got = exactbleu.sentence_scores(predictions, references, "nltk", smooth_method=f"method{method}").tolist()
    for mine, theirs in zip(got, expected):
        if theirs is not None:
            assert math.isclose(mine, theirs, rel_tol=1e-12, abs_tol=1e-300)


def _has_trigram_match(prediction, references):
    tokens = prediction.split()
    grams = {tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2)}
    return any(grams & {tuple(r.split()[i : i + 3]) for i in range(len(r.split()) - 2)} for r in references)


def test_the_metric_the_command_line_and_explain_use_the_same_scores(bleu):
    predictions, references = random_cases(seed=3, count=50)
    expected = exactbleu.sentence_scores(predictions, references).tolist()
    assert bleu.compute(predictions=predictions, references=references, sentence_level=True)["sentence_bleu"] == \
        expected
    assert [segment["sentence_bleu"] for segment in exactbleu.explain(predictions, references)] == expected


def test_several_weight_sets_give_a_row_per_set():
    predictions, references = ["a b c d", "a b x"], [["a b c d"], ["a b c"]]
    scores = exactbleu.sentence_scores(predictions, references, weights=[[1.0], [0.5, 0.5]])
    assert scores.shape == (2, 2)
    assert scores[0].tolist() == exactbleu.sentence_scores(predictions, references, weights=[1.0]).tolist()
    assert scores[1].tolist() == exactbleu.sentence_scores(predictions, references, max_order=2).tolist()
