"""self_bleu in linear time: exactly sentence_bleu of each text against all the others, under every
preset and option; Texygen's NLTK loop and fast-bleu's C++ SelfBLEU for the "nltk" preset with
method1; and the same numbers from shards that add up, in any split and order, from text, token
ids and tensors."""

import functools
import math
import operator
import random

import numpy as np
import pytest
import torch
from fast_bleu import SelfBLEU
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import SmoothingFunction
from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

import exactbleu
from conftest import examples
from exactbleu.counting import threads as worker_threads
from oracles import OPTIONS, PER_CORPUS, nltk_quietly, outcome, segments

TEXTS = st.lists(segments(max_words=8), min_size=2, max_size=8).flatmap(
    lambda texts: st.lists(st.sampled_from(texts), min_size=0, max_size=3).map(lambda repeats: texts + repeats))


# The presets that keep every reference: Self-BLEU's references are the other texts, none to keep.
# The presets Self-BLEU takes: those that keep every reference, and put none first (torchmetrics' refuse).
ALL_REFERENCES = sorted(name for name, preset in exactbleu.PRESETS.items()
                        if preset.options.get("keep_references", "all") == "all"
                        and preset.options.get("ref_length") != "closest-first")


@given(texts=TEXTS, preset=st.sampled_from(sorted(exactbleu.PRESETS)), drawn=OPTIONS, threaded=st.booleans())
def test_each_score_is_sentence_bleu_against_all_the_others(texts, preset, drawn, threaded):
    """Threaded: the n-grams counted in two threads, however few the tokens. A preset or option
    that keeps fewer than all references, or takes the first of the closest, is refused: the others
    are all of a text's references, in no order of their own."""
    chosen = {name: value for name, value in drawn.items() if name in PER_CORPUS}
    declared = exactbleu.PRESETS[preset].options
    if chosen.get("keep_references", declared.get("keep_references", "all")) != "all" or \
            chosen.get("ref_length", declared.get("ref_length")) == "closest-first":
        assert outcome(lambda: exactbleu.self_bleu(texts, preset, **chosen))[0] == "error"
        assert outcome(lambda: exactbleu.self_bleu_statistics(texts, preset, **chosen))[0] == "error"
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(worker_threads, "THREADS_MIN_TOKENS", 0 if threaded else 10**9)
        got = outcome(lambda: exactbleu.self_bleu(texts, preset, threads=2, **chosen))
    expected = outcome(lambda: [exactbleu.sentence_bleu(texts[i], texts[:i] + texts[i + 1:], preset, **chosen)["bleu"]
                                for i in range(len(texts))])
    assert got[0] == expected[0]
    if got[0] == "ok":
        scores, expected = got[1]["scores"], expected[1]
        if isinstance(expected[0], list):
            expected = [list(column) for column in zip(*expected)]
            assert got[1]["self_bleu"] == [math.fsum(row) / len(row) for row in expected]
        else:
            assert got[1]["self_bleu"] == math.fsum(expected) / len(expected)
        assert scores.tolist() == expected


def texygen_self_bleu(texts, order):
    """Texygen's Self-BLEU: NLTK's sentence_bleu of each text against all the others, method1,
    uniform weights of the order; O(N^2)."""
    tokens = [text.split() for text in texts]
    weights = (1 / order,) * order
    smoothing = SmoothingFunction().method1
    return [nltk_quietly(nltk_sentence_bleu, tokens[:i] + tokens[i + 1:], hypothesis, weights,
                         smoothing_function=smoothing) for i, hypothesis in enumerate(tokens)]


def generated_texts(count, seed):
    rng = random.Random(seed)
    words = "the a cat dog sat ran on in mat home big small red blue and of to".split()
    return [" ".join(rng.choice(words) for _ in range(rng.randint(0, 14))) for _ in range(count)] + ["", "cat"] * 2


@pytest.mark.parametrize("order", [2, 3, 4])
def test_texygens_and_fast_bleus_definition_is_the_nltk_preset_with_method1(order):
    texts = generated_texts(150, order)
    ours = exactbleu.self_bleu(texts, "nltk", smooth_method="method1", max_order=order)
    expected = texygen_self_bleu(texts, order)
    assert ours["scores"] == pytest.approx(expected, rel=1e-12, abs=1e-300)
    fast = SelfBLEU([text.split() for text in texts], {"n": (1 / order,) * order}).get_score()["n"]
    # fast-bleu holds weights in float32, so a weight of 1/3 moves its scores by up to 5e-8.
    assert ours["scores"] == pytest.approx(fast, rel=1e-12 if order != 3 else 1e-7, abs=1e-15)
    assert ours["self_bleu"] == pytest.approx(sum(expected) / len(expected), rel=1e-12)


@pytest.mark.parametrize("preset, chosen", [("default", {}), ("sacrebleu", {}), ("nltk", {"smooth_method": "method1"}),
                                            ("default", {"ref_length": "closest", "max_order": 3})])
def test_shards_add_up_to_the_whole_corpus(preset, chosen):
    texts = generated_texts(90, 1)
    cuts = [0, 17, 60, len(texts)]
    shards = [texts[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    corpus = sum(exactbleu.self_bleu_statistics(shard, preset, **chosen) for shard in shards)
    assert len(corpus) == len(texts)
    scores = np.concatenate([exactbleu.self_bleu(shard, preset, corpus=corpus, **chosen)["scores"] for shard in shards])
    assert scores.tolist() == exactbleu.self_bleu(texts, preset, **chosen)["scores"].tolist()
    # Summed in another order, the statistics are the same.
    other = exactbleu.self_bleu_statistics(shards[2], preset, **chosen) + exactbleu.self_bleu_statistics(
        shards[0], preset, **chosen) + exactbleu.self_bleu_statistics(shards[1], preset, **chosen)
    again = exactbleu.self_bleu(shards[1], preset, corpus=other, **chosen)["scores"]
    assert again.tolist() == exactbleu.self_bleu(texts, preset, **chosen)["scores"][17:60].tolist()


def as_form(texts, form):
    """Texts as the form gives them: strings, token ids (a word's id is its place in a vocabulary),
    or a padded tensor of those ids (0 pads: no word's id)."""
    if form == "text":
        return texts, {}
    vocabulary = {word: number for number, word in enumerate(sorted({w for text in texts for w in text.split()}), 1)}
    ids = [[vocabulary[word] for word in text.split()] for text in texts]
    if form == "ids":
        return ids, {}
    width = max([1, *map(len, ids)])
    return torch.tensor([row + [0] * (width - len(row)) for row in ids]), {"ignore_ids": [0]}


@settings(max_examples=examples(150))
@given(texts=TEXTS, preset=st.sampled_from(ALL_REFERENCES), form=st.sampled_from(["text", "ids", "tensor"]),
       data=st.data())
def test_any_split_into_shards_summed_in_any_order_is_the_whole_corpus(texts, preset, form, data):
    """One shard (and ``sum([s])``) too: a shard's statistics, alone or summed with the others'
    in any order, score each of its texts against every other text of the corpus."""
    given, ignoring = as_form(texts, form)
    cuts = data.draw(st.lists(st.integers(1, len(texts) - 1), max_size=3, unique=True).map(sorted))
    spans = list(zip([0, *cuts], [*cuts, len(texts)]))
    shards = [exactbleu.self_bleu_statistics(given[start:stop], preset, **ignoring) for start, stop in spans]
    order = data.draw(st.permutations(range(len(shards))))
    summed = data.draw(st.sampled_from(["sum", "plus"]))
    corpus = sum(shards[number] for number in order) if summed == "sum" else functools.reduce(
        operator.add, (shards[number] for number in order))
    assert len(corpus) == len(texts)
    scores = [exactbleu.self_bleu(given[start:stop], preset, corpus=corpus, **ignoring)["scores"].tolist()
              for start, stop in spans]
    assert [score for shard in scores for score in shard] == exactbleu.self_bleu(given, preset,
                                                                                 **ignoring)["scores"].tolist()


@pytest.mark.parametrize("preset", ALL_REFERENCES)
def test_self_bleu_from_its_own_statistics_is_self_bleu(preset):
    """The seed example: one SelfBleuStatistics kept its keys in one order and searched them as if
    sorted in another, so this raised "these texts hold an n-gram that the corpus's Self-BLEU
    statistics do not"; so did these ids, a tensor, and sum([statistics])."""
    texts = ["the cat sat", "a cat sat on", "the dog sat"]
    for given, ignoring in ((texts, {}), ([[1, 256], [1, 256]], {}), (torch.tensor([[1, 256, 0], [1, 256, 7]]),
                                                                      {"ignore_ids": [0]})):
        expected = exactbleu.self_bleu(given, preset, **ignoring)
        statistics = exactbleu.self_bleu_statistics(given, preset, **ignoring)
        for corpus in (statistics, sum([statistics])):
            got = exactbleu.self_bleu(given, preset, corpus=corpus, **ignoring)
            assert got["scores"].tolist() == expected["scores"].tolist() and got["self_bleu"] == expected["self_bleu"]


def test_token_ids_give_the_scores_of_the_same_ids_as_words():
    rng = np.random.default_rng(0)
    ids = [rng.integers(0, 20, rng.integers(0, 12)).tolist() for _ in range(40)] + [[], [3]]
    words = [" ".join(map(str, one)) for one in ids]
    expected = exactbleu.self_bleu(words, tokenizer="none")["scores"].tolist()
    assert exactbleu.self_bleu(ids)["scores"].tolist() == expected
    padded = np.full((len(ids), 13), 99)
    for row, one in enumerate(ids):
        padded[row, : len(one)] = one
    assert exactbleu.self_bleu(padded, ignore_ids=[99])["scores"].tolist() == expected
    parts = exactbleu.self_bleu_statistics(ids[:20]) + exactbleu.self_bleu_statistics(ids[20:])
    assert exactbleu.self_bleu(ids[20:], corpus=parts)["scores"].tolist() == expected[20:]


@pytest.mark.parametrize("call, words", [
    (lambda: exactbleu.self_bleu(["only one"]), "at least two"),
    (lambda: exactbleu.self_bleu(["a", 3]), "texts[1] must be a string"),
    (lambda: exactbleu.self_bleu(["a b", "b c"], corpus=exactbleu.self_bleu_statistics(["a b", "b c"], lowercase=True)),
     "lowercase=True"),
    (lambda: exactbleu.self_bleu(["a b", "x y"], corpus=exactbleu.self_bleu_statistics(["a b", "b c"])),
     "whole corpus"),
    (lambda: exactbleu.self_bleu(["a b", "b c"], corpus={"a": 1}), "SelfBleuStatistics"),
    (lambda: exactbleu.self_bleu(["a b", "b c"], sentence_level=True), "does not take"),
    (lambda: exactbleu.self_bleu_statistics(["a"]) + exactbleu.self_bleu_statistics(["b"], tokenizer="char"),
     "different settings"),
])
def test_bad_input_gets_a_message(call, words):
    with pytest.raises((ValueError, TypeError)) as raised:
        call()
    assert words in str(raised.value)
