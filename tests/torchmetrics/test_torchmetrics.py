"""exactbleu.torchmetrics: torchmetrics' BLEUScore and SacreBLEUScore, with their arguments and
layouts, giving the number torchmetrics documents: NLTK's corpus_bleu on whitespace tokens or on
sacrebleu's, exactly, in float64. Held to NLTK itself on torchmetrics' own test vectors (and to
torchmetrics, but for the cases where it departs from what it documents, each named here with the
right number) and on random corpora; token-id tensors through the device's code; and the Metric's
life: forward, reset, merge_state, clone, .to and pickling."""

import math
import pickle

import pytest
import torch
import torchmetrics.text
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu
from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

import exactbleu
from conftest import examples
from exactbleu.torchmetrics import BLEUScore, SacreBLEUScore
from oracles import nltk_quietly

# torchmetrics' test vectors (its tests/unittests/text/inputs.py): NLTK's documented example,
# adjusted, in two batches of two predictions with two references each, one of them spaced oddly.
HYPOTHESIS_A = "It is a guide to action which ensures that the military always obeys the commands of the party"
REFERENCE_1A = "It is a guide to action that ensures that the military will forever heed Party commands"
REFERENCE_2A = "It is a guiding principle which makes the military forces always being under the command of the Party"
HYPOTHESIS_B = "he read the book because he was interested in world history"
REFERENCE_1B = "he was interested in world history because he read the book"
REFERENCE_2B = "It is the practical guide for the army always to heed the directions of the party"
HYPOTHESIS_C = "the cat the   cat on the mat "
REFERENCE_1C = "the  cat is     on the mat "
REFERENCE_2C = "there is a   cat on the mat"
BATCHES = [((HYPOTHESIS_A, HYPOTHESIS_B), ((REFERENCE_1A, REFERENCE_2A), (REFERENCE_1B, REFERENCE_2B))),
           ((HYPOTHESIS_B, HYPOTHESIS_C), ((REFERENCE_1B, REFERENCE_2B), (REFERENCE_1C, REFERENCE_2C)))]


def nltk_corpus_bleu(predictions, references, n_gram=4, smooth=False, weights=None, tokenize=str.split):
    """What torchmetrics documents: NLTK's corpus_bleu on these tokens, method2 where smoothed."""
    return nltk_quietly(corpus_bleu, [[tokenize(reference) for reference in group] for group in references],
                        [tokenize(prediction) for prediction in predictions],
                        weights=tuple(weights) if weights else (1 / n_gram,) * n_gram,
                        smoothing_function=SmoothingFunction().method2 if smooth else None)


def batched(metric, batches):
    for predictions, references in batches:
        metric.update(predictions, references)
    return metric.compute()


def everything(batches):
    return ([prediction for predictions, _ in batches for prediction in predictions],
            [group for _, references in batches for group in references])


@pytest.mark.parametrize("n_gram, smooth", [(1, False), (2, True), (3, False), (4, True)])
def test_torchmetrics_vectors_for_bleuscore(n_gram, smooth):
    ours = batched(BLEUScore(n_gram=n_gram, smooth=smooth), BATCHES)
    assert ours.dtype == torch.float64 and ours.shape == ()
    assert ours.item() == nltk_corpus_bleu(*everything(BATCHES), n_gram, smooth)
    theirs = batched(torchmetrics.text.BLEUScore(n_gram=n_gram, smooth=smooth), BATCHES)
    assert math.isclose(ours.item(), theirs.item(), rel_tol=1e-6)  # torchmetrics computes in float32


def sacrebleu_tokens(tokenize, lowercase):
    """sacrebleu's tokens, as its BLEU makes them: lowercased, right-stripped, tokenized, split."""
    tokenizer = BLEU(tokenize=tokenize).tokenizer
    return lambda line: tokenizer((line.lower() if lowercase else line).rstrip()).split()


@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("tokenize", ["none", "13a", "zh", "intl", "char"])
def test_torchmetrics_vectors_for_sacrebleuscore(tokenize, lowercase):
    ours = batched(SacreBLEUScore(tokenize=tokenize, lowercase=lowercase), BATCHES)
    predictions, references = everything(BATCHES)
    assert ours.item() == nltk_corpus_bleu(predictions, references, tokenize=sacrebleu_tokens(tokenize, lowercase))
    theirs = batched(torchmetrics.text.SacreBLEUScore(tokenize=tokenize, lowercase=lowercase), BATCHES)
    assert math.isclose(ours.item(), theirs.item(), rel_tol=1e-6)
    # torchmetrics' own test holds it to sacrebleu's corpus score, which every order's matches make the same here.
    streams = [list(stream) for stream in zip(*references)]
    sacrebleus = BLEU(tokenize=tokenize, lowercase=lowercase).corpus_score(predictions, streams).score / 100
    assert math.isclose(ours.item(), sacrebleus, rel_tol=1e-9)


def test_uniform_weights_and_no_weights_are_the_same():
    predictions, references = ["My full pytorch-lightning"], [["My full pytorch-lightning test", "Completely Different"]]
    for metric in (BLEUScore, SacreBLEUScore):
        assert metric(n_gram=2)(predictions, references) == metric(n_gram=2, weights=[0.5, 0.5])(predictions,
                                                                                                 references)


# Where torchmetrics 1.9 departs from what it documents, with the number it documents.
DEPARTURES = {
    # No 4-gram matches: NLTK stands sys.float_info.min in for the 4-gram precision, as its
    # unsmoothed corpus_bleu does; torchmetrics returns 0 whenever an order has no match.
    "an order without a match, unsmoothed": (
        {}, ["My full pytorch-lightning"], [["My full pytorch-lightning test", "Completely Different"]]),
    # With smooth=True, the add-one is meant for exactly this case; torchmetrics still returns 0.
    "an order without a match, smoothed": (
        {"smooth": True}, ["a b a c"], [["a c a b"]]),
    # A prediction shorter than an order: NLTK counts one possible n-gram of that order for it,
    # torchmetrics none ("a b" adds a possible 3-gram and 4-gram: 3/4 and 2/3, not 3/3 and 2/2).
    "a prediction shorter than n_gram": (
        {}, ["a b c d e", "a b"], [["a b c d e"], ["a b"]]),
    # Two references as close as each other: NLTK takes the shorter (5 tokens, not 7, for 6),
    # torchmetrics the first listed.
    "a tie for the closest reference": (
        {"n_gram": 2}, ["a b c d e f"], [["a b c d e f g", "a b c d e"]]),
}


@pytest.mark.parametrize("departure", list(DEPARTURES))
def test_where_torchmetrics_departs_from_what_it_documents(departure):
    arguments, predictions, references = DEPARTURES[departure]
    right = nltk_corpus_bleu(predictions, references, **arguments)
    assert BLEUScore(**arguments)(predictions, references).item() == right
    theirs = torchmetrics.text.BLEUScore(**arguments)(predictions, references).item()
    assert not math.isclose(theirs, right, rel_tol=1e-6)
    if departure.startswith("an order"):
        assert theirs == 0.0 < right


def test_torchmetrics_computes_in_float32_and_this_in_float64():
    """The right number differs from torchmetrics' in the float32 digits: 24 bits against 53."""
    predictions, references = everything(BATCHES)
    right = nltk_corpus_bleu(predictions, references)
    theirs = torchmetrics.text.BLEUScore()(predictions, references)
    assert theirs.dtype == torch.float32 and theirs.item() != right
    assert BLEUScore()(predictions, references).item() == right


WORDS = st.sampled_from("a b c d e the cat sat".split())
SEGMENT = st.lists(WORDS, max_size=9).map(" ".join)


@settings(max_examples=examples(150))
@given(corpus=st.lists(st.tuples(SEGMENT, st.lists(SEGMENT, min_size=1, max_size=3)), min_size=1, max_size=8),
       n_gram=st.integers(1, 4), smooth=st.booleans(), uneven=st.booleans(), data=st.data())
def test_random_corpora_are_nltks_corpus_bleu(corpus, n_gram, smooth, uneven, data):
    """Few words, so that orders go without a match and references tie for the closest length."""
    predictions, references = [prediction for prediction, _ in corpus], [group for _, group in corpus]
    weights = None
    if uneven:
        weights = data.draw(st.lists(st.floats(0.0, 1.0), min_size=n_gram, max_size=n_gram).filter(any))
    expected = nltk_corpus_bleu(predictions, references, n_gram, smooth, weights)
    metric = BLEUScore(n_gram=n_gram, smooth=smooth, weights=weights)
    cut = data.draw(st.integers(0, len(predictions)))
    assert batched(metric, [(predictions[:cut], references[:cut]), (predictions[cut:], references[cut:])]).item() \
        == expected
    # A face of the one core: the "nltk" preset's corpus_bleu, with NLTK's method2 for smooth=True.
    order = {"weights": weights} if weights else {"max_order": n_gram}
    assert exactbleu.corpus_bleu(predictions, references, "nltk", smooth_method="method2" if smooth else None,
                                 **order)["bleu"] == expected


def as_ids(texts_and_references):
    """The corpus's words as token ids, 1 up (0 pads), and the same ids written back as words."""
    predictions, references = texts_and_references
    vocabulary = {word: number for number, word in enumerate(sorted({w for text in predictions + [
        r for group in references for r in group] for w in text.split()}), 1)}
    ids = [[vocabulary[word] for word in text.split()] for text in predictions]
    referenced = [[[vocabulary[word] for word in reference.split()] for reference in group] for group in references]
    return ids, referenced


def padded(rows):
    width = max([1, *map(len, rows)])
    return torch.tensor([row + [0] * (width - len(row)) for row in rows])


@pytest.mark.parametrize("kernels", ["torch", "numpy"])
@pytest.mark.parametrize("metric", [BLEUScore, SacreBLEUScore])
def test_token_id_tensors_score_as_the_same_text(metric, kernels):
    """Through the device's code (the kernels a GPU runs, here on the CPU) and the numpy engine."""
    predictions, references = everything(BATCHES)
    ids, referenced = as_ids((predictions, references))
    words = [" ".join(map(str, row)) for row in ids], [[" ".join(map(str, r)) for r in group] for group in referenced]
    expected = BLEUScore(smooth=True)(*words)
    with exactbleu.cpu_tensor_kernels(kernels):
        tensors = metric(smooth=True, ignore_ids=[0])
        tensors.update(padded(ids[:2]), [[torch.tensor(r) for r in group] for group in referenced[:2]])
        tensors.update(padded(ids[2:]), [padded(group) for group in referenced[2:]])
        assert tensors.compute() == expected and tensors.compute().dtype == torch.float64


def test_forward_gives_the_batch_and_keeps_the_whole():
    metric, (first, second) = BLEUScore(), BATCHES
    assert metric(*first) == BLEUScore()(*first)
    assert metric(*second) == BLEUScore()(*second)
    assert metric.compute() == BLEUScore()(*everything(BATCHES))


def test_reset_merge_state_clone_to_and_pickling():
    whole = BLEUScore()(*everything(BATCHES))
    first, second = BLEUScore(), BLEUScore()
    first.update(*BATCHES[0])
    second.update(*BATCHES[1])
    clone = first.clone()
    first.merge_state(second)
    assert first.compute() == whole
    clone.merge_state({"statistics": second.statistics, "kinds": second.kinds})
    assert clone.compute() == whole
    restored = pickle.loads(pickle.dumps(first))
    assert restored.compute() == whole
    moved = first.to("cpu")
    assert moved.compute().device.type == "cpu" and moved.statistics.dtype == torch.int64
    first.reset()
    with pytest.warns(UserWarning, match="before the ``update``"):  # torchmetrics' own warning
        assert first.compute() == 0.0 and first.statistics.sum() == 0
    first.update(*BATCHES[0])
    assert first.compute() == BLEUScore()(*BATCHES[0])


def test_the_state_is_the_summed_statistics_vector_and_syncs_by_sum():
    metric = BLEUScore()
    metric.update(*BATCHES[0])
    assert metric._reductions["statistics"] is not None and metric.statistics.dtype == torch.int64
    counted = exactbleu.statistics(*BATCHES[0], "nltk")
    assert metric.statistics.tolist() == counted.vector().tolist()


@pytest.mark.parametrize("make, words", [
    (lambda: BLEUScore(n_gram=0), "n_gram must be an int from 1 to 20, got 0"),
    (lambda: BLEUScore(n_gram=2, weights=[0.5, 0.3, 0.2]), "weights must hold n_gram=2 numbers"),
    (lambda: BLEUScore(weights=[0.5, -0.5, 0.5, 0.5]), "weights must be a finite number >= 0"),
    (lambda: BLEUScore(smooth="yes"), "smooth"),
    (lambda: SacreBLEUScore(tokenize="13b"), "tokenize must be one of"),
    (lambda: BLEUScore(weights=4), "weights must be a sequence of numbers"),
    (lambda: BLEUScore(n_gram=2, weights=[[0.5, 0.5], [1.0]]), "weights must be one weight set"),
    (lambda: BLEUScore(ignore_ids="pad"), "ignore_ids must be a list"),
    (lambda: BLEUScore(ignore_ids=[0]).update(torch.tensor(5), torch.tensor(5)), "predictions"),
    (lambda: SacreBLEUScore(lowercase=1), "lowercase must be True or False"),
    (lambda: SacreBLEUScore(lowercase=True, ignore_ids=[0]).update([[1, 2]], [[[1, 2]]]), "tokenizes text"),
    (lambda: BLEUScore().update(["a b"], [["a b"], ["c"]]), "same length"),
    (lambda: BLEUScore().update("a b", ["a b"]), "predictions must be a list"),
    (lambda: BLEUScore().merge_state(BLEUScore(n_gram=2)), "same arguments"),
    (lambda: BLEUScore().merge_state({"statistics": torch.zeros(3)}), "merge_state takes this metric's state"),
])
def test_bad_arguments_get_exactbleus_messages(make, words):
    with pytest.raises((TypeError, ValueError)) as raised:
        make()
    assert words in str(raised.value)


def test_a_refused_batch_loses_nothing_added_before():
    metric = SacreBLEUScore(ignore_ids=[0])
    metric.update(*BATCHES[0])
    with pytest.raises(ValueError, match="this metric has counted text"):
        metric.update(torch.tensor([[1, 2]]), torch.tensor([[[1, 2]]]))
    with pytest.raises(TypeError):
        metric.update([3], [["a"]])
    metric.update(*BATCHES[1])
    assert metric.compute() == SacreBLEUScore()(*everything(BATCHES))


def test_sacrebleus_tokens_are_lowercased_then_cut():
    """sacrebleu lowercases before its tokenizer; torchmetrics after, which differs where 13a
    reads an entity: "&AMP;" is "&" lowercased first, "&amp;" (three tokens) after."""
    predictions, references = ["a &AMP; b"], [["a & b"]]
    ours = SacreBLEUScore(lowercase=True, n_gram=1)(predictions, references).item()
    assert ours == nltk_corpus_bleu(predictions, references, 1, tokenize=sacrebleu_tokens("13a", True)) == 1.0
    assert Tokenizer13a()("a &amp; b".lower()).split() == ["a", "&", "b"]
