"""The torchmetrics face's functional forms, ``bleu_score`` and ``sacre_bleu_score``: torchmetrics'
arguments, the classes' numbers as float64 tensors, torchmetrics' own functions as the peer where
they compute what they document; and ``SacreBLEUScore(spm_model=...)``, whose spBLEU is
sacrebleu's with the same model file."""

import math

import pytest
import sacrebleu.tokenizers.tokenizer_spm as sacrebleu_spm
import torch
import torchmetrics.functional.text as theirs
from sacrebleu.metrics import BLEU

from exactbleu.torchmetrics import BLEUScore, SacreBLEUScore, bleu_score, sacre_bleu_score
from test_torchmetrics import BATCHES, everything, nltk_corpus_bleu, sacrebleu_tokens

PREDICTIONS, TARGET = everything(BATCHES)


@pytest.mark.parametrize("n_gram, smooth, weights", [(4, False, None), (2, True, None), (3, False, [0.5, 0.3, 0.2]),
                                                     (4, True, [0.1, 0.2, 0.3, 0.4])])
def test_bleu_score_is_the_classes_number_and_nltks(n_gram, smooth, weights):
    ours = bleu_score(PREDICTIONS, TARGET, n_gram, smooth, weights)
    metric = BLEUScore(n_gram, smooth, weights)
    metric.update(PREDICTIONS, TARGET)
    assert isinstance(ours, torch.Tensor) and ours.dtype == torch.float64 and ours.shape == ()
    assert ours == metric.compute() == torch.tensor(nltk_corpus_bleu(PREDICTIONS, TARGET, n_gram, smooth, weights),
                                                     dtype=torch.float64)
    # torchmetrics' function, in float32, on its own test vectors
    assert math.isclose(ours.item(), theirs.bleu_score(PREDICTIONS, TARGET, n_gram, smooth, weights).item(),
                        rel_tol=1e-6)


@pytest.mark.parametrize("tokenize, lowercase", [("13a", False), ("intl", True), ("char", False), ("none", True)])
def test_sacre_bleu_score_is_the_classes_number_and_torchmetrics(tokenize, lowercase):
    ours = sacre_bleu_score(PREDICTIONS, TARGET, 4, True, tokenize, lowercase)
    metric = SacreBLEUScore(4, True, tokenize, lowercase)
    metric.update(PREDICTIONS, TARGET)
    expected = nltk_corpus_bleu(PREDICTIONS, TARGET, 4, True, tokenize=sacrebleu_tokens(tokenize, lowercase))
    assert ours == metric.compute() == torch.tensor(expected, dtype=torch.float64)
    assert math.isclose(ours.item(), theirs.sacre_bleu_score(PREDICTIONS, TARGET, 4, True, tokenize, lowercase).item(),
                        rel_tol=1e-6)


def test_one_prediction_as_a_string_and_references_as_strings_as_torchmetrics_takes_them():
    prediction, references = "the cat is on the mat", ["there is a cat on the mat"]
    ours = bleu_score(prediction, [references], n_gram=2)
    assert ours == bleu_score([prediction], [references], n_gram=2) == sacre_bleu_score(prediction, [references],
                                                                                        n_gram=2)
    assert math.isclose(ours.item(), theirs.bleu_score(prediction, [references], n_gram=2).item(), rel_tol=1e-6)
    assert bleu_score([prediction], references, n_gram=2) == ours  # a target's one reference as a string
    assert bleu_score([], []) == 0.0 == theirs.bleu_score([], []).item()


def test_token_ids_as_the_class_takes_them():
    ids = torch.tensor([[5, 8, 9, 7, 0]])
    assert bleu_score(ids, torch.tensor([[[5, 8, 9, 7]]]), ignore_ids=[0]) == 1.0
    assert sacre_bleu_score([[5, 8, 9]], [[[5, 8, 9, 7]]], n_gram=2).item() == BLEUScore(n_gram=2)(
        [[5, 8, 9]], [[[5, 8, 9, 7]]]).item()


@pytest.mark.parametrize("call, words", [
    (lambda: bleu_score(["a b"], [["a b"]], n_gram=0), "n_gram must be an int from 1 to 20, got 0"),
    (lambda: bleu_score(["a b"], [["a b"]], n_gram=2, weights=[1.0]), "weights must hold n_gram=2 numbers"),
    (lambda: bleu_score(["a b"], [["a b"], ["c"]]), "same length"),
    (lambda: sacre_bleu_score(["a b"], [["a b"]], tokenize="13b"), "tokenize must be one of"),
    (lambda: sacre_bleu_score(["a b"], [["a b"]], spm_model="/nowhere"), "spm_model applies only"),
])
def test_bad_arguments_get_the_classes_messages(call, words):
    with pytest.raises((TypeError, ValueError)) as raised:
        call()
    assert words in str(raised.value)


@pytest.mark.parametrize("tokenize", ["flores101", "flores200"])
def test_spm_model_gives_sacrebleus_spbleu_with_that_model(sacrebleu_folder, monkeypatch, tmp_path, wmt17, tokenize):
    hypotheses, references = wmt17["systems"]["uedin-nmt.4722"][:200], wmt17["reference"][:200]
    monkeypatch.setenv("SACREBLEU", str(sacrebleu_folder))
    monkeypatch.setattr(sacrebleu_spm, "SACREBLEU_DIR", str(sacrebleu_folder))  # read at its import
    sacrebleus = BLEU(tokenize=tokenize)
    expected = sacrebleus.corpus_score(hypotheses, [references]).score / 100
    pieces = nltk_corpus_bleu(hypotheses, [[reference] for reference in references],
                              tokenize=lambda line: sacrebleus._preprocess_segment(line).split())
    monkeypatch.setenv("SACREBLEU", str(tmp_path))  # no model where sacrebleu keeps them: only the one named
    model = str(sacrebleu_folder / "small.model")
    metric = SacreBLEUScore(tokenize=tokenize, spm_model=model)
    metric.update(hypotheses[:100], [[reference] for reference in references[:100]])
    metric.update(hypotheses[100:], [[reference] for reference in references[100:]])
    assert metric.compute().item() == pieces
    assert math.isclose(metric.compute().item(), expected, rel_tol=1e-12)
    assert sacre_bleu_score(hypotheses, [[reference] for reference in references], tokenize=tokenize,
                            spm_model=model).item() == pieces
    with pytest.raises(ValueError, match="spm_model"):
        SacreBLEUScore(tokenize=tokenize)(hypotheses[:2], [[reference] for reference in references[:2]])
