"""The "torchmetrics" and "torchmetrics-sacrebleu" presets against torchmetrics 1.9 itself
(installed in the test environment): ``BLEUScore`` and ``SacreBLEUScore`` as they compute, in
float32, float for float, on drawn corpora of one to four references with ties in reference length,
empty and repeated words; orders 1 to 6, weights, both smoothings, each tokenizer, lowercasing; a
batch at a time and each sentence alone. What torchmetrics has no one number for is refused."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactbleu
from conftest import examples

text = pytest.importorskip("torchmetrics.text")

WORD = st.sampled_from(["a", "b", "c", "the", "Cat", "sat", "on", "mat.", "x,y", "1-2", "dog!", "Über", "ä"])
SENTENCE = st.lists(WORD, max_size=10).map(" ".join)
CORPUS = st.lists(st.tuples(SENTENCE, st.lists(SENTENCE, min_size=1, max_size=4)), min_size=1, max_size=8)
WEIGHTS = st.sampled_from([None, "uneven"])


def options_of(n_gram, smooth, weights):
    options = {"max_order": n_gram, "smooth_method": "torchmetrics-smooth" if smooth else "torchmetrics"}
    if weights is not None:
        options = {**options, "weights": weights}
        del options["max_order"]
    return options


def uneven(n_gram):
    return [(order + 1) / sum(range(1, n_gram + 1)) for order in range(n_gram)]


@settings(max_examples=examples(300), deadline=None)
@given(corpus=CORPUS, n_gram=st.integers(1, 6), smooth=st.booleans(), weighted=WEIGHTS, batches=st.integers(1, 3))
def test_bleuscore_as_torchmetrics_computes_it(corpus, n_gram, smooth, weighted, batches):
    predictions = [prediction for prediction, _ in corpus]
    references = [group for _, group in corpus]
    weights = uneven(n_gram) if weighted else None
    metric = text.BLEUScore(n_gram=n_gram, smooth=smooth, weights=weights)
    for start in range(batches):  # its float32 states added batch by batch
        metric.update(predictions[start::batches], references[start::batches])
    options = options_of(n_gram, smooth, weights)
    assert exactbleu.corpus_bleu(predictions, references, "torchmetrics", **options)["bleu"] == float(metric.compute())


@settings(max_examples=examples(300), deadline=None)
@given(corpus=CORPUS, n_gram=st.integers(1, 5), smooth=st.booleans(),
       tokenize=st.sampled_from(["13a", "none", "intl", "char", "zh"]), lowercase=st.booleans())
def test_sacrebleuscore_as_torchmetrics_computes_it(corpus, n_gram, smooth, tokenize, lowercase):
    predictions = [prediction for prediction, _ in corpus]
    references = [group for _, group in corpus]
    metric = text.SacreBLEUScore(n_gram=n_gram, smooth=smooth, tokenize=tokenize, lowercase=lowercase)
    metric.update(predictions, references)
    options = {**options_of(n_gram, smooth, None), "tokenizer": tokenize, "lowercase": lowercase}
    if lowercase and tokenize != "none":  # it lowercases the tokens, after its split
        with pytest.raises(ValueError, match=r"lowercase=True under smooth_method='torchmetrics.*' SacreBLEUScore"):
            exactbleu.corpus_bleu(predictions, references, "torchmetrics-sacrebleu", **options)
        return
    assert exactbleu.corpus_bleu(predictions, references, "torchmetrics-sacrebleu", **options)["bleu"] == \
        float(metric.compute())


def test_lowercasing_after_the_split_is_why_it_is_refused():
    """'&AMP;' lowercased first is 13a's '&amp;', which it reads as '&'; split first, it is '& amp ;'."""
    metric = text.SacreBLEUScore(lowercase=True)
    metric.update(["&AMP; a b c d"], [["& a b c d"]])
    sacrebleus = exactbleu.corpus_bleu(["&AMP; a b c d"], [["& a b c d"]], "sacrebleu", lowercase=True)["bleu"]
    assert sacrebleus == 1.0 and float(metric.compute()) < 0.5


def test_each_sentence_is_torchmetrics_score_of_it_alone():
    predictions = ["the cat sat on the mat", "a b c", "", "the the the"]
    references = [["the cat sat on a mat", "a cat sat on the mat"], ["a b", "a b c d"], ["x"], ["the cat", "the"]]
    expected = []
    for prediction, group in zip(predictions, references):
        metric = text.BLEUScore(n_gram=2, smooth=True)
        metric.update([prediction], [group])
        expected.append(float(metric.compute()))
    got = exactbleu.sentence_scores(predictions, references, "torchmetrics", max_order=2,
                                    smooth_method="torchmetrics-smooth")
    assert got.tolist() == expected


def test_a_tie_in_reference_lengths_goes_to_the_first_reference():
    """Three words against references of two and four: torchmetrics takes the first listed, where
    NLTK (and exactbleu's torchmetrics face, the number torchmetrics documents) take the shorter."""
    prediction, references = ["a b c"], [["a b c d", "a b"]]
    metric = text.BLEUScore(n_gram=2)
    metric.update(prediction, references)
    assert exactbleu.corpus_bleu(prediction, references, "torchmetrics", max_order=2)["bleu"] == float(metric.compute())
    first = exactbleu.statistics(prediction, references, "torchmetrics").sums().reference_length
    shorter = exactbleu.statistics(prediction, references, "nltk").sums().reference_length
    assert (first, shorter) == (4, 2)
    swapped = exactbleu.statistics(prediction, [references[0][::-1]], "torchmetrics").sums().reference_length
    assert swapped == 2


def test_an_order_without_a_match_is_0_smoothed_too():
    metric = text.BLEUScore(smooth=True)
    metric.update(["a b c d e"], [["a c b d x"]])
    assert float(metric.compute()) == 0.0
    assert exactbleu.corpus_bleu(["a b c d e"], [["a c b d x"]], "torchmetrics",
                                 smooth_method="torchmetrics-smooth")["bleu"] == 0.0


def test_counts_past_float32s_exact_range_are_refused():
    counted = exactbleu.statistics(["a b c d"], [["a b c d"]], "torchmetrics")
    many = exactbleu.Statistics(counted.array * (2**22), counted.orders, counted.references, counted.counted_with)
    with pytest.raises(ValueError, match=r"torchmetrics counts in float32, where a count of 16,777,216 \(2\*\*24 or more\)"):
        exactbleu.score(many, "torchmetrics")


def test_self_bleu_refuses_the_first_of_the_closest():
    with pytest.raises(ValueError, match=r"no references of their own, nor a first of them: "
                                         r"ref_length='closest-first' \(torchmetrics'\)"):
        exactbleu.self_bleu(["a b", "a c"], "torchmetrics")


def test_which_bleu_names_torchmetrics_for_its_number():
    predictions = ["the cat sat on the mat today", "a dog runs in the park", "it is"]
    references = [["the cat sat on a mat today"], ["a dog is running in the park", "a dog runs in a park"],
                  ["it was", "it is not"]]
    metric = text.BLEUScore()
    metric.update(predictions, references)
    logged = float(metric.compute())  # a float32, as a log shows it whole
    found = exactbleu.identify(predictions, references, repr(logged))
    assert found.matches[0].preset == "torchmetrics"  # then SacreBLEUScore's, whose 13a splits these alike
    assert {row.preset for row in found.matches} == {"torchmetrics", "torchmetrics-sacrebleu"}
    rounded = exactbleu.identify(predictions, references, f"{logged:.4f}")  # as torch prints it: many give that
    assert "torchmetrics" in [row.preset for row in rounded.matches]


def test_token_id_tensors_take_the_first_of_the_closest_on_the_device_too():
    import torch

    predictions = [[1, 2, 3], [4, 5, 6, 7], [8]]
    references = [[[1, 2, 3, 9], [1, 2]], [[4, 5, 6, 7, 8, 9], [4, 5]], [[8, 8], [8]]]
    lists = exactbleu.sentence_scores(predictions, references, "torchmetrics", max_order=2)
    width = 6
    padded = torch.zeros((3, 2, width), dtype=torch.long)
    for row, group in enumerate(references):
        for place, one in enumerate(group):
            padded[row, place, : len(one)] = torch.tensor(one) + 10  # ids past the padding 0
    shifted = [[token + 10 for token in one] for one in predictions]
    tensor = torch.zeros((3, 4), dtype=torch.long)
    for row, one in enumerate(shifted):
        tensor[row, : len(one)] = torch.tensor(one)
    with exactbleu.cpu_tensor_kernels("torch"):
        on_device = exactbleu.sentence_scores(tensor, padded, "torchmetrics", max_order=2, ignore_ids=[0])
    assert on_device.tolist() == lists.tolist()
    rows = exactbleu.statistics(predictions, references, "torchmetrics").array[:, 1].tolist()
    assert rows == [4, 6, 1]  # the first of 4 and 2 around 3, of 6 and 2 around 4; the closest to 1
