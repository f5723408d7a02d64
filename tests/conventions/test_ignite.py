"""The "ignite" preset against pytorch-ignite's own ``Bleu`` (0.5.5, installed in the test
environment): its mean of sentence scores (``average="macro"``, ignite's default) and its corpus
score (``"micro"``), under each of its four smoothing methods and orders 1 to 5, float for float,
on drawn corpora of one to three references with empty and repeated words; token ids too."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactbleu
from conftest import examples

ignite_bleu = pytest.importorskip("ignite.metrics.nlp").Bleu

WORD = st.sampled_from(["a", "b", "c", "the", "cat", "sat", "on", "mat", "a", "dog", "x"])
TOKENS = st.lists(WORD, max_size=14)
CORPUS = st.lists(st.tuples(TOKENS, st.lists(TOKENS, min_size=1, max_size=3)), min_size=1, max_size=8)
SMOOTH = ["no_smooth", "smooth1", "nltk_smooth2", "smooth2"]


def ignites(corpus, ngram, smooth, average):
    metric = ignite_bleu(ngram=ngram, smooth=smooth, average=average)
    metric.update(([hypothesis for hypothesis, _ in corpus], [references for _, references in corpus]))
    return float(metric.compute())


@settings(max_examples=examples(300), deadline=None)
@given(corpus=CORPUS, ngram=st.integers(1, 5), smooth=st.sampled_from(SMOOTH),
       average=st.sampled_from(["macro", "micro"]))
def test_the_preset_is_ignites_bleu_float_for_float(corpus, ngram, smooth, average):
    predictions = [" ".join(hypothesis) for hypothesis, _ in corpus]
    references = [[" ".join(one) for one in group] for _, group in corpus]
    options = {"max_order": ngram, "smooth_method": "ignite-" + smooth.replace("_", "-"), "average": average}
    assert exactbleu.corpus_bleu(predictions, references, "ignite", **options)["bleu"] == \
        ignites(corpus, ngram, smooth, average)


def test_each_examples_score_is_ignites_of_that_example_alone():
    corpus = [(["the", "cat", "sat", "on", "the", "mat"], [["the", "cat", "is", "on", "the", "mat"]]),
              (["a", "a", "a"], [["a", "b"], ["a", "a", "c"]]), ([], [["x"]]), (["dog"], [["dog"]])]
    predictions = [" ".join(hypothesis) for hypothesis, _ in corpus]
    references = [[" ".join(one) for one in group] for _, group in corpus]
    scores = exactbleu.sentence_scores(predictions, references, "ignite", smooth_method="ignite-smooth1").tolist()
    assert scores == [ignites([one], 4, "smooth1", "macro") for one in corpus]


def test_token_ids_are_ignites_tokens():
    ids = [[5, 6, 7, 8, 5], [9, 9]]
    references = [[[5, 6, 7, 8, 6]], [[9, 10], [9, 9, 9]]]
    corpus = [(list(map(str, one)), [list(map(str, reference)) for reference in group])
              for one, group in zip(ids, references)]
    assert exactbleu.corpus_bleu(ids, references, "ignite")["bleu"] == ignites(corpus, 4, "no_smooth", "macro")


def test_which_bleu_names_ignite_for_its_number():
    """ignite's default, a mean of unsmoothed sentence scores, is other presets' mean of sentences
    too: "Which BLEU?" names the tool that reports that number, ignite, first."""
    corpus = [("the cat sat on the mat today", ["the cat sat on a mat today"]),
              ("a dog runs in the park", ["a dog is running in the park"]),
              ("the weather is nice and sunny today", ["the weather is very nice and sunny today"])]
    tokens = [(prediction.split(), [reference.split() for reference in group]) for prediction, group in corpus]
    reported = f"{ignites(tokens, 4, 'no_smooth', 'macro'):.4f}"
    found = exactbleu.identify([p for p, _ in corpus], [group for _, group in corpus], reported)
    assert (found.matches[0].preset, found.matches[0].options, found.matches[0].departures) == ("ignite", {}, 0)
