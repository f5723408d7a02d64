"""What crosses between the host and a device: tensors' ids to the host as ``TokenIds`` (where
the numpy engine counts them, or where only the host's code goes), counted columns (each
prediction's, or the distinct ones of a matrix's entries), and scores back to the device as
float64 tensors."""

from collections.abc import Sequence

import numpy as np
import torch
from numpy.typing import NDArray

from ..inputs import Checked, Corpus, Texts, TokenIds
from .checks import TensorIds, TensorReferences


def host_ids(texts: TensorIds) -> TokenIds:
    """Texts of a device as ``TokenIds`` on the host: their ids end to end."""
    ids, lengths = texts.ids.cpu().numpy(), texts.lengths.cpu().numpy()
    kept = np.arange(ids.shape[1]) < lengths[:, None]
    return TokenIds(ids[kept].astype(np.int64), lengths.astype(np.int64))


def host_references(references: TensorReferences) -> TokenIds:
    """Each prediction's references as ``TokenIds`` on the host, grouped by prediction."""
    present = references.present
    texts = host_ids(TensorIds(references.ids[present], references.lengths[present]))
    return TokenIds(texts.ids, texts.lengths, present.sum(dim=1).cpu().numpy().astype(np.int64))


def on_host(checked: Checked) -> Checked:
    """Checked tensors as the same ids on the host (``kind`` "ids"), for the host's counting."""
    if isinstance(checked, Corpus):
        return Corpus(host_ids(checked.predictions), host_references(checked.references), "ids")
    return Texts(host_ids(checked.values), "ids", checked.size)


def on_device_of(scores: NDArray[np.float64], like: torch.Tensor) -> torch.Tensor:
    """Scores as a float64 tensor on the device of ``like``."""
    return torch.as_tensor(scores, dtype=torch.float64).to(like.device)


def joined_texts(first: TensorIds, second: TensorIds) -> TensorIds:
    """Two sets of texts on one device as one, the first's then the second's."""
    if first.ids.device != second.ids.device:
        raise ValueError(f"predictions and references must be on one device, got {first.ids.device} and "
                         f"{second.ids.device}")
    width = max(int(first.ids.shape[1]), int(second.ids.shape[1]), 1)
    rows = torch.zeros((int(first.ids.shape[0]) + int(second.ids.shape[0]), width), dtype=torch.int64,
                       device=first.ids.device)
    rows[: first.ids.shape[0], : first.ids.shape[1]] = first.ids
    rows[first.ids.shape[0] :, : second.ids.shape[1]] = second.ids
    return TensorIds(rows, torch.cat([first.lengths, second.lengths]))


def distinct_rows(rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The distinct rows of an integer tensor, and where each row is among them: a BLEU matrix has
    a row per entry, millions of them, but few distinct ones (short texts share lengths and
    counts), so only those cross to the host. Rows whose columns all fit in 62 bits together are
    packed into one number each and sorted; others are compared whole."""
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


def host_columns(columns: Sequence[torch.Tensor]) -> list[NDArray[np.int64]]:
    """Integer columns of one device, each 1-D or a 2-D block of columns, on the host as int64
    arrays of the same shapes: they cross together, in one transfer."""
    blocks = [column[:, None] if column.dim() == 1 else column for column in columns]
    joined = torch.cat([block.to(torch.int64) for block in blocks], dim=1).cpu().numpy()
    ends = np.cumsum([int(block.shape[1]) for block in blocks])
    parts = np.split(joined, ends[:-1], axis=1)
    return [part.reshape(-1) if column.dim() == 1 else part for part, column in zip(parts, columns)]


def distinct_columns(columns: Sequence[torch.Tensor]) -> tuple[list[NDArray[np.int64]], torch.Tensor]:
    """The distinct rows of 1-D integer columns of one device (see ``distinct_rows``), on the host
    column by column, and where each row is among them, on the device."""
    distinct, inverse = distinct_rows(torch.stack(list(columns), dim=1))
    return list(distinct.cpu().numpy().T), inverse
