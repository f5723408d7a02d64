"""The "coco" preset against the COCO caption evaluation itself: pycocoevalcap 1.2's
``Bleu(n).compute_score`` gives Bleu_1 to Bleu_n for the corpus and for each image, and exactbleu
gives the same floats, float for float, on whitespace tokens (the tokens pycocoevalcap's own PTB
tokenizer returns), with 1 to 6 references an image, empty captions and repeated n-grams. Past 4
orders, where pycocoevalcap's own ``Bleu`` fails, the same formula goes on: a plain restatement of
it here holds exactbleu to it."""

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactbleu
from conftest import examples

bleu_module = pytest.importorskip("pycocoevalcap.bleu.bleu")

# Few words, so that n-grams repeat and match; "" makes empty captions.
WORD = st.sampled_from(["a", "b", "c", "dog", "the", "a", "the"])
CAPTION = st.lists(WORD, max_size=9).map(" ".join)
IMAGES = st.lists(st.tuples(CAPTION, st.lists(CAPTION, min_size=1, max_size=6)), min_size=1, max_size=10)


def theirs(images, n):
    """pycocoevalcap's Bleu(n) on images keyed as COCOEvalCap keys them (their order kept)."""
    gts = {1000 + number: references for number, (_, references) in enumerate(images)}
    res = {1000 + number: [caption] for number, (caption, _) in enumerate(images)}
    return bleu_module.Bleu(n).compute_score(gts, res, verbose=0)


def ours(images, n):
    """Bleu_1..Bleu_n of the corpus and of each image, from one count of n orders, through the
    public API: each k's score is the "coco" arithmetic of the first k orders."""
    captions, references = [caption for caption, _ in images], [group for _, group in images]
    counted = exactbleu.statistics(captions, references, "coco", tokenizer="none", max_order=n)
    corpus, each = [], []
    for k in range(1, n + 1):
        first = counted.first_orders(k)
        corpus.append(exactbleu.scored(first, "coco", tokenizer="none", max_order=k).value)
        each.append(exactbleu.scored_rows(first, "coco", tokenizer="none", max_order=k).value.tolist())
    return corpus, each


@settings(max_examples=examples(300), deadline=None)
@given(images=IMAGES, n=st.integers(1, 4))
def test_bleu_1_to_4_are_pycocoevalcaps_for_the_corpus_and_each_image(images, n):
    score, scores = theirs(images, n)
    assert ours(images, n) == (score, scores)


def test_the_corpus_score_is_the_presets_corpus_bleu_and_each_image_its_sentence_bleu():
    images = [("a dog runs on the grass", ["a dog running on grass", "the dog is on the grass"]),
              ("", ["a cat"]), ("a a a a", ["a a", "b a a"]), ("two people ride horses", ["people riding"] * 3)]
    captions, references = [caption for caption, _ in images], [group for _, group in images]
    score, scores = theirs(images, 4)
    result = exactbleu.corpus_bleu(captions, references, "coco", tokenizer="none", sentence_level=True)
    assert result["bleu"] == score[3] and result["sentence_bleu"] == scores[3]
    assert exactbleu.sentence_scores(captions, references, "coco", tokenizer="none").tolist() == scores[3]
    assert [exactbleu.sentence_bleu(c, r, "coco", tokenizer="none")["bleu"] for c, r in images] == scores[3]


def restated(images, n):
    """pycocoevalcap's arithmetic for any n, in plain words: each image's closest reference length
    (the shorter on a tie) and clipped counts; every precision (correct + 1e-15) / (guess + 1e-9),
    multiplied in order; Bleu_k its k-th root, times exp(1 - 1/ratio) where the length ratio
    (c + 1e-15) / (r + 1e-9) is under 1."""
    correct, guess, hypothesis_length, reference_length = [0] * n, [0] * n, 0, 0
    for caption, references in images:
        words = caption.split()
        lengths = [len(reference.split()) for reference in references]
        reference_length += min(lengths, key=lambda length: (abs(length - len(words)), length))
        hypothesis_length += len(words)
        for k in range(1, n + 1):
            counts = Counter(tuple(words[i:i + k]) for i in range(len(words) - k + 1))
            most = Counter()
            for reference in references:
                tokens = reference.split()
                for gram, count in Counter(tuple(tokens[i:i + k]) for i in range(len(tokens) - k + 1)).items():
                    most[gram] = max(most[gram], count)
            correct[k - 1] += sum(min(count, most[gram]) for gram, count in counts.items())
            guess[k - 1] += max(0, len(words) - k + 1)
    product, scores = 1.0, []
    for k in range(n):
        product *= (float(correct[k]) + 1e-15) / (float(guess[k]) + 1e-9)
        scores.append(product ** (1.0 / (k + 1)))
    ratio = (hypothesis_length + 1e-15) / (reference_length + 1e-9)
    return [score * math.exp(1 - 1 / ratio) if ratio < 1 else score for score in scores]


@settings(max_examples=examples(100), deadline=None)
@given(images=IMAGES, n=st.integers(5, 6))
def test_past_4_orders_the_same_formula_goes_on(images, n):
    assert ours(images, n)[0] == restated(images, n)
    with pytest.raises(IndexError):  # pycocoevalcap's own counts 4 orders, whatever n
        theirs(images, n)


def test_the_restatement_is_pycocoevalcaps_up_to_4_orders():
    images = [("a dog runs on the grass", ["a dog running on grass", "the dog is on the grass"]), ("a b", ["a"])]
    assert restated(images, 4) == theirs(images, 4)[0]


@pytest.mark.parametrize("options, words", [
    ({"weights": [0.5, 0.5]}, "weights do not apply to COCO's coco"),
    ({"effective_order": True}, "effective_order=True is sacrebleu's"),
    ({"smooth_value": 0.1}, "smooth_value=0.1 applies only to the smooth_method that take a value"),
])
def test_what_pycocoevalcaps_arithmetic_has_no_place_for_is_refused(options, words):
    with pytest.raises(ValueError, match=words):
        exactbleu.corpus_bleu(["a b"], [["a b"]], "coco", **options)


# Captions as a model writes them, for the harnesses that skip the PTB step: capitals, punctuation
# stuck to words, tabs and no-break spaces (Python's split splits at both).
RAW_WORD = st.sampled_from(["A", "dog", "dog.", "runs,", "the", "The", "grass!", "a", "on", "Dog", "\t", "\u00a0"])
RAW_IMAGES = st.lists(st.tuples(st.lists(RAW_WORD, max_size=9).map(" ".join),
                                st.lists(st.lists(RAW_WORD, max_size=9).map(" ".join), min_size=1, max_size=5)),
                      min_size=1, max_size=10)


@settings(max_examples=examples(200), deadline=None)
@given(images=RAW_IMAGES)
def test_nlg_eval_and_vlmevalkit_are_pycocoevalcaps_bleu_on_the_captions_as_given(images):
    """nlg-eval and VLMEvalKit hand pycocoevalcap's Bleu(4) the captions as given (nlg-eval strips
    them first); VLMEvalKit reports each Bleu_n times 100."""
    captions, references = [caption for caption, _ in images], [group for _, group in images]
    score, scores = theirs([(caption.strip(), [one.strip() for one in group]) for caption, group in images], 4)
    assert theirs(images, 4) == (score, scores)
    for k in range(1, 5):
        assert exactbleu.corpus_bleu(captions, references, "nlg-eval", max_order=k)["bleu"] == score[k - 1]
        assert exactbleu.corpus_bleu(captions, references, "vlmevalkit", max_order=k)["bleu"] * 100 == score[k - 1] * 100
    assert exactbleu.sentence_scores(captions, references, "nlg-eval").tolist() == scores[3]


def test_which_bleu_names_nlg_eval_and_vlmevalkit_by_the_scale_of_their_number():
    """The same Bleu_4, as nlg-eval prints it (0-1) and as VLMEvalKit reports it (times 100), names
    each harness among the first, after none but other tools' own numbers (NLTK's corpus_bleu and
    multi-bleu.perl count these captions alike); the PTB-tokenized number names "coco"."""
    images = [("A dog runs on the grass.", ["A dog is running on the grass.", "The dog runs on grass!"]),
              ("Two people ride horses, on a beach", ["Two people riding horses on the beach.", "People ride."]),
              ("A red car parked near a tree", ["A red car is parked by a tree.", "A car near the tree"]),
              ("a cat sleeps on a sofa", ["A cat sleeping on the sofa.", "The cat sleeps on a couch."])]
    captions, references = [caption for caption, _ in images], [group for _, group in images]
    score = theirs(images, 4)[0][3]
    for reported, preset, scale in ((f"{score:.4f}", "nlg-eval", 1), (f"{score * 100:.2f}", "vlmevalkit", 100)):
        matches = exactbleu.identify(captions, references, reported).matches
        first = next(number for number, row in enumerate(matches) if row.preset == preset)
        assert (matches[first].options, matches[first].scale) == ({}, scale)
        assert all(row.departures == 0 for row in matches[:first + 1]), matches[:first + 1]
    tokenized = exactbleu.corpus_bleu(captions, references, "coco")["bleu"]
    assert exactbleu.identify(captions, references, f"{tokenized:.4f}").matches[0].preset == "coco"
