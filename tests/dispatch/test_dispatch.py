"""The one dispatch: a checked input is counted where it lies, the device decided once. Tensors in the
CPU's memory go to the numpy engine by default, the device's kernels where the named setting
cpu_tensor_kernels("torch") asks; the numbers are the same, and tensors come back as tensors."""

import numpy as np
import pytest
import torch

import exactbleu
from exactbleu import device
from exactbleu.device import rows as device_rows

PAD = 0


def test_cpu_tensors_go_to_the_numpy_engine(monkeypatch):
    """By default, tensors in the CPU's memory are counted as arrays (faster there than torch's
    kernels, and in threads): the same numbers as the device's code, still tensors out."""
    rng = np.random.default_rng(3)
    predictions, references = rng.integers(0, 6, (40, 12)), rng.integers(0, 6, (40, 2, 12))
    tensors = torch.tensor(predictions), torch.tensor(references)
    texts = torch.tensor(predictions[:8])
    with exactbleu.cpu_tensor_kernels("torch"):
        on_device_scores = exactbleu.sentence_scores(*tensors, "sacrebleu", ignore_ids=[PAD])
        on_device_self = exactbleu.self_bleu(texts, ignore_ids=[PAD])
        on_device_matrix = exactbleu.bleu_matrix(texts, texts[:3], "sacrebleu", ignore_ids=[PAD])
    monkeypatch.setattr(device_rows, "sentence_rows", None)  # the device's counting is not reached
    monkeypatch.setattr(device, "self_matches", None)
    monkeypatch.setattr(device, "matrix_matches", None)
    with exactbleu.cpu_tensor_kernels("numpy"):
        scores = exactbleu.sentence_scores(*tensors, "sacrebleu", ignore_ids=[PAD], threads=2)
        corpus = exactbleu.corpus_bleu(*tensors, ignore_ids=[PAD])
        self = exactbleu.self_bleu(texts, ignore_ids=[PAD])
        matrix = exactbleu.bleu_matrix(texts, texts[:3], "sacrebleu", ignore_ids=[PAD])
    assert isinstance(scores, torch.Tensor) and scores.dtype == torch.float64
    assert scores.tolist() == on_device_scores.tolist() == exactbleu.sentence_scores(
        predictions, references, "sacrebleu", ignore_ids=[PAD]).tolist()
    assert corpus == exactbleu.corpus_bleu(predictions, references, ignore_ids=[PAD])
    assert self["scores"].tolist() == on_device_self["scores"].tolist() and isinstance(self["scores"], torch.Tensor)
    assert isinstance(matrix, torch.Tensor) and matrix.tolist() == on_device_matrix.tolist()


@pytest.mark.parametrize("kernels", ["numpy", "torch"])
def test_the_kernels_of_cpu_tensors_are_a_named_setting_that_ends_with_its_block(kernels, monkeypatch):
    counted_on_the_device = []
    rows = device_rows.sentence_rows
    monkeypatch.setattr(device_rows, "sentence_rows", lambda *given: counted_on_the_device.append(1) or rows(*given))
    tensors = torch.tensor([[1, 2, 3]]), torch.tensor([[1, 2, 4]])
    expected = exactbleu.sentence_scores([[1, 2, 3]], [[1, 2, 4]]).tolist()
    with exactbleu.cpu_tensor_kernels(kernels):
        assert exactbleu.sentence_scores(*tensors, ignore_ids=[]).tolist() == expected
    assert counted_on_the_device == ([1] if kernels == "torch" else [])
    assert exactbleu.sentence_scores(*tensors, ignore_ids=[]).tolist() == expected  # the default again: numpy
    assert counted_on_the_device == ([1] if kernels == "torch" else [])
    with pytest.raises(ValueError, match=r"kernels must be one of \['numpy', 'torch'\], got 'cuda'"):
        with exactbleu.cpu_tensor_kernels("cuda"):
            pass
