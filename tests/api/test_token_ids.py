"""Token ids wherever a function takes text: lists or tuples of ints, 1-D integer arrays, a 2-D
padded array or tensor with ignore_ids. Every result equals that of the same ids written as
space-separated words under tokenizer="none", through every function of the API."""

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

import exactbleu

from oracles import outcome


IDS = st.lists(st.integers(0, 12), max_size=9)


def words(ids):
    return " ".join(map(str, ids))


@st.composite
def id_corpora(draw):
    size = draw(st.integers(1, 6))
    predictions = draw(st.lists(IDS, min_size=size, max_size=size))
    references = [draw(st.lists(IDS, min_size=1, max_size=3)) for _ in range(size)]
    return predictions, references


# A tool that scores token ids (fairseq's) reads them its own way: tests/conventions/test_fairseq.py.
@given(corpus=id_corpora(), preset=st.sampled_from(sorted(name for name, preset in exactbleu.PRESETS.items()
                                                         if not preset.token_ids)),
       form=st.sampled_from(["lists", "tuples", "arrays", "padded", "tensor"]))
def test_every_function_gives_the_result_of_the_ids_as_words(corpus, preset, form):
    predictions, references = corpus
    as_words = [words(p) for p in predictions], [[words(r) for r in group] for group in references]
    pad = 99
    if form == "tuples":
        predictions = [tuple(p) for p in predictions]
    elif form == "arrays":
        predictions = [np.array(p, dtype=np.int32) for p in predictions]
        references = [[np.array(r, dtype=np.uint16) for r in group] for group in references]
    elif form in ("padded", "tensor"):
        width = max(map(len, predictions)) + 1
        padded = np.full((len(predictions), width), pad)
        for row, one in enumerate(predictions):
            padded[row, : len(one)] = one
        predictions = torch.tensor(padded) if form == "tensor" else padded
    extra = {"ignore_ids": [pad]} if form in ("padded", "tensor") else {}
    options = {"tokenizer": "none"} if preset != "nltk" else {}
    if exactbleu.PRESETS[preset].options.get("lowercase"):  # ids are tokens: a preset's lowercasing is not theirs
        options["lowercase"] = False
    if exactbleu.PRESETS[preset].options.get("rstrip") is False:  # nor its right-strip: ids have no spaces
        options["rstrip"] = True
    # A harness preset keeps some references: of tensors, that is refused (they come cut already).
    refused = form == "tensor" and exactbleu.PRESETS[preset].options.get("keep_references", "all") != "all"

    def same(of_ids, of_words):
        expected = ("error", ValueError) if refused else outcome(of_words)
        assert outcome(of_ids) == expected

    same(lambda: exactbleu.corpus_bleu(predictions, references, preset, **extra),
         lambda: exactbleu.corpus_bleu(*as_words, preset, **options))
    same(lambda: exactbleu.statistics(predictions, references, preset, **extra),
         lambda: exactbleu.statistics(*as_words, preset, **options))
    same(lambda: exactbleu.sentence_scores(predictions, references, preset, **extra).tolist(),
         lambda: exactbleu.sentence_scores(*as_words, preset, **options).tolist())
    if form == "lists":
        same(lambda: exactbleu.sentence_bleu(predictions[0], references[0], preset),
             lambda: exactbleu.sentence_bleu(as_words[0][0], as_words[1][0], preset, **options))
        flat = [r for group in references for r in group]
        same(lambda: exactbleu.bleu_matrix(predictions, flat, preset).tolist(),
             lambda: exactbleu.bleu_matrix(as_words[0], [words(r) for r in flat], preset, **options).tolist())
        if len(predictions) > 1:
            same(lambda: exactbleu.self_bleu(predictions, preset)["scores"].tolist(),
                 lambda: exactbleu.self_bleu(as_words[0], preset, **options)["scores"].tolist())
