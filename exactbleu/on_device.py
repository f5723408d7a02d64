"""Token-id tensors, from counts to scores: the statistics are counted on the tensors' device
(``tensor_counting``, ``tensor_texts``); only the rows cross to the host, where the one arithmetic
scores them, as it scores every other row, so that the scores are bit for bit those of the same ids
as arrays (a device's ``log`` and ``exp`` are not CPython's); the scores go back to the device.

A BLEU matrix has a row per entry, millions of them, but few distinct ones (short texts share
lengths and counts): the distinct rows cross, and each entry gathers its row's score on the device.
"""

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .scoring import sentence_scores
from .self_statistics import other_lengths
from .sufficient_statistics import CountedWith, Statistics
from .tensor_counting import sentence_rows
from .tensor_ids import TensorIds, TensorReferences
from .tensor_texts import matrix_matches, self_matches
from .tokenizers.ids import TokenIds

if TYPE_CHECKING:
    import torch

    from .options import Settings


# Tensors in the CPU's memory are counted by the numpy engine, which takes their memory as it is
# (no copy) and is several times faster there than torch's kernels (8192 x 256 ids: 0.22 s
# against 1.6 s), and uses its threads. The tests turn this off, to run the device's code on the
# CPU and hold it to the numpy path.
CPU_TENSORS_ON_HOST = True


def on_host(texts: TensorIds) -> bool:
    """Whether these tensors are counted as arrays, by the numpy engine: those in the CPU's memory."""
    return CPU_TENSORS_ON_HOST and texts.ids.device.type == "cpu"


def host_references(references: TensorReferences) -> TokenIds:
    """Each prediction's references as ``TokenIds`` on the host, grouped by prediction."""
    present = references.present
    texts = host_ids(TensorIds(references.ids[present], references.lengths[present]))
    return TokenIds(texts.ids, texts.lengths, present.sum(dim=1).cpu().numpy().astype(np.int64))


def tensor_statistics(predictions: TensorIds, references: TensorReferences, counted: CountedWith,
                      ref_length: str) -> Statistics:
    """The statistics of a corpus of tensors, counted on their device, as ``Statistics``."""
    rows = sentence_rows(predictions, references, counted.orders, ref_length).cpu().numpy()
    return Statistics(np.ascontiguousarray(rows[:, :-1]), counted.orders, rows[:, -1].tolist(), counted)


def on_device_of(scores: NDArray[np.float64], like: "torch.Tensor") -> "torch.Tensor":
    """Scores as a float64 tensor on the device of ``like``."""
    import torch
    return torch.as_tensor(scores, dtype=torch.float64).to(like.device)


def self_statistics_of(texts: TensorIds, orders: int, ref_length: str, counted: CountedWith) -> Statistics:
    """Each text's statistics row against all the other texts, counted on the texts' device."""
    matches = self_matches(texts, orders).cpu().numpy()
    lengths = texts.lengths.cpu().numpy()
    values, counts = np.unique(lengths, return_counts=True)
    reference = other_lengths(lengths, values, counts, ref_length)
    return Statistics.from_columns(lengths, reference, matches, np.maximum(lengths[:, None] - np.arange(orders), 0),
                                   [len(lengths) - 1] * len(lengths), counted)


def matrix_scores(texts: TensorIds, predictions: int, settings: "Settings", counted: CountedWith) -> "torch.Tensor":
    """The BLEU matrix of ``texts`` (the predictions, then the references) on their device: a
    float64 tensor (predictions, references), or (weight sets, predictions, references)."""
    import torch
    orders = counted.orders
    matches = matrix_matches(texts, predictions, orders).to(torch.int64)
    mine, theirs = texts.lengths[:predictions], texts.lengths[predictions:]
    references = int(theirs.shape[0])
    columns = [mine[:, None].expand(-1, references), theirs[None, :].expand(predictions, -1),
               *(matches[:, :, n] for n in range(orders))]
    distinct, inverse = _distinct_rows(torch.stack([column.reshape(-1) for column in columns], dim=1))
    rows = distinct.cpu().numpy()
    lengths = rows[:, 0]
    statistics = Statistics.from_columns(lengths, rows[:, 1], rows[:, 2:],
                                         np.maximum(lengths[:, None] - np.arange(orders), 0), None, counted)
    scores = torch.as_tensor(sentence_scores(statistics, settings), dtype=torch.float64).to(texts.ids.device)
    entries = scores[..., inverse]
    return entries.reshape(*scores.shape[:-1], predictions, references)


def _distinct_rows(rows: "torch.Tensor") -> tuple["torch.Tensor", "torch.Tensor"]:
    """The distinct rows of an integer tensor, and where each row is among them. Rows whose
    columns all fit in 62 bits together are packed into one number each and sorted; others are
    compared whole."""
    import torch
    if not len(rows):
        return rows, torch.zeros(0, dtype=torch.int64, device=rows.device)
    widths = [max(1, int(bound)) for bound in rows.amax(dim=0).tolist()]
    bits = [value.bit_length() for value in widths]
    if sum(bits) > 62:
        distinct, inverse = torch.unique(rows, dim=0, return_inverse=True)
        return distinct, inverse
    packed = torch.zeros(len(rows), dtype=torch.int64, device=rows.device)
    shift = 0
    for column, width in enumerate(bits):
        packed |= rows[:, column] << shift
        shift += width
    keys, inverse = torch.unique(packed, return_inverse=True)
    shift, columns = 0, []
    for width in bits:
        columns.append((keys >> shift) & ((1 << width) - 1))
        shift += width
    return torch.stack(columns, dim=1), inverse


def size_of(texts: Any) -> int:
    """How many texts a checked input holds: strings, ``TokenIds`` or ``TensorIds``."""
    if isinstance(texts, TensorIds):
        return int(texts.lengths.shape[0])
    return len(texts)


def host_ids(texts: TensorIds) -> TokenIds:
    """Texts of a device as ``TokenIds`` on the host: their ids end to end."""
    ids, lengths = texts.ids.cpu().numpy(), texts.lengths.cpu().numpy()
    kept = np.arange(ids.shape[1]) < lengths[:, None]
    return TokenIds(ids[kept].astype(np.int64), lengths.astype(np.int64))


def joined_texts(first: TensorIds, second: TensorIds) -> TensorIds:
    """Two sets of texts on one device as one, the first's then the second's."""
    import torch
    if first.ids.device != second.ids.device:
        raise ValueError(f"predictions and references must be on one device, got {first.ids.device} and "
                         f"{second.ids.device}")
    width = max(int(first.ids.shape[1]), int(second.ids.shape[1]), 1)
    rows = torch.zeros((int(first.ids.shape[0]) + int(second.ids.shape[0]), width), dtype=torch.int64,
                       device=first.ids.device)
    rows[: first.ids.shape[0], : first.ids.shape[1]] = first.ids
    rows[first.ids.shape[0] :, : second.ids.shape[1]] = second.ids
    return TensorIds(rows, torch.cat([first.lengths, second.lengths]))
