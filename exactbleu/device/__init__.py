"""The torch path: token-id tensors checked on their device (``checks``), each prediction's row
counted there (``rows``), Self-BLEU's and a matrix's matches too (``across_texts``), and MBR's
pairs of each source (``by_source``). Only rows
cross to the host (``transfer``), where the one arithmetic scores them as it scores every other
row, so the scores are bit for bit those of the same ids as arrays (a device's ``log`` and ``exp``
are not CPython's); the scores go back to the device. This package imports torch: the dispatch
imports it only when a tensor arrives, and calls what is here as it calls ``counting``'s.
torchmetrics' float32 arithmetic, which is torch's, is here too (``float32_scores``).
"""

from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray

from ..counting import PairReducer, Scorer, utilities_by_block
from ..inputs import Corpus, Groups, Texts
from ..options import Settings, counted_orders, counted_with
from ..sufficient_statistics import Statistics, other_lengths
from .across_texts import matrix_matches, self_matches
from .by_source import TENSOR_BLOCK_PAIRS, checked_group_tensor, tensor_pair_rows
from .checks import TensorIds, check_tensor_texts, checked_tensors
from .rows import statistics_on_device
from .transfer import distinct_columns, joined_texts, on_device_of, on_host


def checked_texts(texts: Any, name: str, ignore_ids: NDArray[np.int64] | None) -> Texts:
    """Texts given as tensors, checked on their device."""
    checked = check_tensor_texts(texts, name, ignore_ids)
    return Texts(checked, "tensor", int(checked.lengths.shape[0]))


def checked_groups(value: Any, name: str, ignore_ids: NDArray[np.int64] | None) -> tuple[Texts, NDArray[np.int64]]:
    """Texts in groups as a (sources, texts per source, length) tensor, checked on its device: the
    rows, and each source's number of texts."""
    texts, each = checked_group_tensor(value, name, ignore_ids)
    sources = int(texts.lengths.shape[0]) // each
    return Texts(texts, "tensor", sources * each), np.full(sources, each, dtype=np.int64)


def _ids_of(checked: Corpus | Texts) -> torch.Tensor:
    """The ids of tensors' predictions (or texts), which lie where all of them lie: a checked
    corpus's rows, or the first tensor of one as the boundary told it apart."""
    texts = checked.predictions if isinstance(checked, Corpus) else checked.values
    if isinstance(texts, TensorIds):
        return texts.ids
    return texts if torch.is_tensor(texts) else texts[0]


def in_cpu_memory(checked: Corpus | Texts) -> bool:
    """Whether checked tensors lie in the CPU's memory."""
    return bool(_ids_of(checked).device.type == "cpu")


def self_rows(texts: Texts, settings: Settings, threads: int | None = None) -> Statistics:
    """Each text's statistics row against all the other texts, counted on the texts' device."""
    orders = counted_orders(settings)
    matches = self_matches(texts.values, orders).cpu().numpy()
    lengths = texts.values.lengths.cpu().numpy()
    values, counts = np.unique(lengths, return_counts=True)
    reference = other_lengths(lengths, values, counts, settings.statistics.ref_length)
    return Statistics.of_lengths(lengths, reference, matches, [len(lengths) - 1] * len(lengths),
                                 counted_with(settings))


def matrix(predictions: Texts, references: Texts, settings: Settings, score: Scorer, sets: int | None,
           threads: int | None = None) -> torch.Tensor:
    """The BLEU matrix on the texts' device: a float64 tensor (predictions, references), or (weight
    sets, predictions, references). Its distinct statistics rows cross to the host, ``score``
    scores them there, and each entry gathers its row's score on the device."""
    texts, counted = joined_texts(predictions.values, references.values), counted_with(settings)
    rows_of, orders = predictions.size, counted.orders
    matches = matrix_matches(texts, rows_of, orders).to(torch.int64)
    mine, theirs = texts.lengths[:rows_of], texts.lengths[rows_of:]
    columns = [mine[:, None].expand(-1, references.size), theirs[None, :].expand(rows_of, -1),
               *(matches[:, :, n] for n in range(orders))]
    (lengths, reference, *matched), inverse = distinct_columns([column.reshape(-1) for column in columns])
    statistics = Statistics.of_lengths(lengths, reference, np.column_stack(matched), None, counted)
    scores = on_device_of(score(statistics), texts.ids)
    return scores[..., inverse].reshape(*scores.shape[:-1], rows_of, references.size)


def pairwise_utilities(candidates: Texts, references: Texts | None, groups: Groups, settings: Settings,
                       reduce: PairReducer, threads: int | None = None) -> NDArray[np.float64]:
    """One utility per candidate, from each source's pairs counted on the tensors' device (the
    aggregated utilities sum floats: they are the host's)."""
    counted = counted_with(settings)
    each, theirs_each = int(groups.candidates[0]), int(groups.references[0])
    theirs = None if references is None else references.values

    def utilities_of(first: int, stop: int) -> NDArray[np.float64]:
        return reduce(tensor_pair_rows(candidates.values, theirs, each, theirs_each, first, stop, counted), first, stop)

    return utilities_by_block(groups, groups.blocks(TENSOR_BLOCK_PAIRS), utilities_of, 1)


def returned(scores: NDArray[np.float64], checked: Corpus | Texts) -> torch.Tensor:
    """Scores as a float64 tensor on the device the tensors came from."""
    return on_device_of(scores, _ids_of(checked))


__all__ = [
    "TensorIds",
    "TensorReferences",
    "checked_groups",
    "checked_tensors",
    "checked_texts",
    "in_cpu_memory",
    "matrix",
    "on_host",
    "pairwise_utilities",
    "returned",
    "self_rows",
    "statistics_on_device",
]
