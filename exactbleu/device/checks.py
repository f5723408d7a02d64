"""The boundary for token-id tensors: torch tensors on any device, checked once, with messages that
name the argument. Predictions are a 2-D tensor (a padded row of ids each) or a list of 1-D
tensors; references a 2-D tensor (one each), a 3-D tensor (several each), a list of 1-D tensors, or
a list of lists of 1-D tensors or of 2-D tensors; references that are not tensors are checked as
the host checks them and moved to the predictions' device. A padded tensor needs its padding id
named in ``ignore_ids`` (``[]`` when its rows are not padded); those ids are dropped everywhere
first. What comes out lies on the predictions' device, as padded rows whose ids stand first:
``TensorIds`` for predictions or texts, ``TensorReferences`` for references.
"""

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import torch
from numpy.typing import NDArray

from ..inputs import Corpus, TokenIds, starts_of


class TensorIds(NamedTuple):
    """Texts of token ids on a device: ``ids`` (rows, width) int64, each row's ids first, then
    anything; ``lengths`` (rows,) int64."""

    ids: torch.Tensor
    lengths: torch.Tensor
    largest: int = -1  # the largest id in the rows, where the check has read it (-1: not read)


class TensorReferences(NamedTuple):
    """Each prediction's references on a device: ``ids`` (predictions, references, width) int64,
    ``lengths`` (predictions, references) int64, and ``present`` (predictions, references) bool,
    False where a prediction has fewer references than the most."""

    ids: torch.Tensor
    lengths: torch.Tensor
    present: torch.Tensor
    largest: int = -1  # as TensorIds's


def _compacted(ids: torch.Tensor, kept: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows of ids (..., width) with only the ``kept`` ones, moved to the front of their row in their
    order, and each row's length: the same shape, and no size that depends on the data."""
    order = torch.sort((~kept).to(torch.int8), dim=-1, stable=True).indices  # kept first, in order
    return torch.gather(ids, -1, order), kept.sum(dim=-1)


def _kept(ids: torch.Tensor, ignore: torch.Tensor | None, lengths: torch.Tensor | None = None
          ) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded rows (..., width) without the ignored ids (and, with ``lengths``, without the
    padding past each row's length), compacted, and their lengths."""
    ids = ids.to(torch.int64)
    kept = None
    if lengths is not None:
        kept = torch.arange(ids.shape[-1], device=ids.device) < lengths[..., None]
    if ignore is not None and ignore.numel():
        outside = ~torch.isin(ids, ignore)
        kept = outside if kept is None else kept & outside
    if kept is None:
        return ids, torch.full(ids.shape[:-1], ids.shape[-1], dtype=torch.int64, device=ids.device)
    if not bool((kept[..., 1:] & ~kept[..., :-1]).any()):  # padding and end ids only trail: nothing moves
        return ids, kept.sum(dim=-1)
    return _compacted(ids, kept)


def _readable(value: torch.Tensor, name: str) -> None:
    """A tensor whose ids can be read as rows: dense, with its data, not nested."""
    if value.is_nested:
        raise ValueError(f"{name} is a nested tensor: give its rows as a list of 1-D tensors (tensor.unbind()), or "
                         f"as one padded tensor (torch.nested.to_padded_tensor) with its padding id in ignore_ids")
    if value.layout != torch.strided:
        raise ValueError(f"{name} is a sparse tensor ({value.layout}): give a dense one (tensor.to_dense())")
    if value.is_meta:
        raise ValueError(f"{name} is a meta tensor, which holds no values: give the tensor with its data, on the CPU "
                         f"or a GPU")
    if value.is_quantized:
        raise TypeError(f"{name} is a quantized tensor: give integer token ids (tensor.int_repr())")


def _integer_tensor(value: torch.Tensor, name: str) -> None:
    """Integer token ids that an int64 holds, in a tensor that can be read."""
    _readable(value, name)
    if value.numel() and (value.dtype == torch.bool or value.is_floating_point() or value.is_complex()):
        raise TypeError(f"{name} must hold integer token ids, got a {value.dtype} tensor")
    if value.dtype == torch.uint64 and value.numel():
        # Ids of 2**63 and more are exactly those whose bits read as a negative int64.
        wrapped = value.view(torch.int64).reshape(-1)
        negative = wrapped < 0
        if bool(negative.any()):
            first = int(wrapped[negative][0]) + 2**64
            raise ValueError(f"{name} holds the token id {first}, which no int64 holds: token ids are 64-bit signed "
                             f"integers, from -2**63 to 2**63 - 1")


def _padded(value: torch.Tensor, name: str, ignore: torch.Tensor | None, dims: tuple[int, ...]) -> torch.Tensor:
    """A padded tensor of token ids, checked: integers, of one of these dimensions, with its
    padding id named."""
    _integer_tensor(value, name)
    if value.dim() not in dims:
        wanted = " or ".join(f"{dim}-D" for dim in dims)
        extra = "; several references per prediction go in references, as a 3-D tensor" if name == "predictions" else ""
        raise ValueError(f"{name} as a tensor must be {wanted}, got shape {tuple(value.shape)}{extra}")
    if ignore is None:
        raise ValueError(f"{name} is a padded tensor: name its padding id in ignore_ids (ignore_ids=[] if its rows "
                         f"are not padded), or the padding would count as tokens")
    return value


def _stacked(rows: Sequence[Any], name: str, device: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """A list of 1-D tensors as one padded (rows, width) tensor on the device, and their lengths."""
    for index, row in enumerate(rows):
        if not torch.is_tensor(row):
            raise TypeError(f"{name}[{index}] must be a 1-D tensor of token ids, as {name}[0] is, got "
                            f"{type(row).__name__}")
        _integer_tensor(row, f"{name}[{index}]")
        if row.dim() != 1:
            raise ValueError(f"{name}[{index}] must be one segment of token ids (1-D), got shape {tuple(row.shape)}")
    stacked = torch.nn.utils.rnn.pad_sequence([row.to(device=device, dtype=torch.int64) for row in rows],
                                              batch_first=True)
    return stacked, torch.tensor([int(row.shape[0]) for row in rows], dtype=torch.int64, device=device)


def _texts(value: Any, name: str, ignore: torch.Tensor | None, device: Any) -> TensorIds:
    """Texts as a 2-D tensor or a list of 1-D tensors, with the ignored ids dropped."""
    if torch.is_tensor(value):
        return TensorIds(*_kept(_padded(value, name, ignore, (2,)).to(device), ignore))
    rows, lengths = _stacked(list(value), name, device)
    return TensorIds(*_kept(rows, ignore, lengths))


def _references(value: Any, predictions: int, ignore: torch.Tensor | None, device: Any) -> TensorReferences:
    """References in any of the forms the module names, on the device, with the ignored ids dropped."""
    if torch.is_tensor(value):
        value = _padded(value, "references", ignore, (2, 3)).to(device)
        value = value[:, None, :] if value.dim() == 2 else value
        if value.shape[1] == 0:
            raise ValueError("references[0] is empty: every prediction needs at least one reference")
        ids, lengths = _kept(value, ignore)
        referenced = TensorReferences(ids, lengths, torch.ones(lengths.shape, dtype=torch.bool, device=device))
    elif isinstance(value, TokenIds):  # lists of ints or arrays, checked at the boundary as the host checks them
        referenced = grouped_on(value, device)
    else:
        referenced = _reference_tensors(value, ignore, device)
    if referenced.ids.shape[0] != predictions:
        raise ValueError(f"predictions and references must have the same length, got {predictions} predictions "
                         f"and {referenced.ids.shape[0]} references")
    return referenced


def _reference_tensors(value: Sequence[Any], ignore: torch.Tensor | None, device: Any) -> TensorReferences:
    """References as a list of 1-D tensors (one each), of lists of them, or of 2-D tensors."""
    groups = [[one] if torch.is_tensor(one) and one.dim() == 1 else list(one) for one in value]
    for index, group in enumerate(groups):
        if not group:
            raise ValueError(f"references[{index}] is empty: every prediction needs at least one reference")
    flat = _texts([row for group in groups for row in group], "references", ignore, device)
    sizes = np.array([len(group) for group in groups], dtype=np.int64)
    return _grouped(flat.ids, flat.lengths, sizes, device)


def _grouped(ids: torch.Tensor, lengths: torch.Tensor, sizes: np.ndarray[Any, Any],
             device: Any) -> TensorReferences:
    """Rows of references (rows, width), ``sizes[i]`` of them for prediction i, laid out as
    (predictions, most references, width), absent where a prediction has fewer."""
    most, count = int(sizes.max(initial=1)), len(sizes)
    slot = torch.as_tensor(np.repeat(np.arange(count), sizes) * most
                           + np.arange(int(sizes.sum())) - np.repeat(starts_of(sizes), sizes), device=device)
    laid = torch.zeros((count * most, ids.shape[-1]), dtype=torch.int64, device=device)
    laid[slot] = ids
    laid_lengths = torch.zeros(count * most, dtype=torch.int64, device=device)
    laid_lengths[slot] = lengths
    present = torch.zeros(count * most, dtype=torch.bool, device=device)
    present[slot] = True
    return TensorReferences(laid.view(count, most, -1), laid_lengths.view(count, most), present.view(count, most))


def grouped_on(referenced: TokenIds, device: Any) -> TensorReferences:
    """References as ``TokenIds`` grouped by prediction, laid out as ``TensorReferences``."""
    assert referenced.groups is not None
    lengths = referenced.lengths
    width = max(int(lengths.max(initial=0)), 1)
    column = np.arange(len(referenced.ids)) - np.repeat(starts_of(lengths), lengths)
    rows = torch.zeros((len(lengths), width), dtype=torch.int64, device=device)
    rows[torch.as_tensor(np.repeat(np.arange(len(lengths)), lengths), device=device),
         torch.as_tensor(column, device=device)] = torch.as_tensor(referenced.ids, device=device)
    return _grouped(rows, torch.as_tensor(lengths, device=device), referenced.groups, device)


def _ignore_on(ignore: NDArray[np.int64] | None, device: Any) -> torch.Tensor | None:
    """The ids to drop, checked at the boundary (``inputs.ids.ignored_ids``), on the device."""
    return None if ignore is None else torch.as_tensor(ignore, dtype=torch.int64, device=device)


def checked_tensors(corpus: Corpus) -> Corpus:
    """A corpus of tensors, as the boundary told them apart (``inputs.corpus_of``), checked on
    their device: their padded rows, the ignored ids dropped. One checked already stays as it is."""
    if isinstance(corpus.predictions, TensorIds):
        return corpus
    predicted, referenced = check_tensor_ids(corpus.predictions, corpus.references, corpus.ignore_ids)
    return Corpus(predicted, referenced, "tensor")


def check_tensor_ids(predictions: Any, references: Any,
                     ignore_ids: NDArray[np.int64] | None = None) -> tuple[TensorIds, TensorReferences]:
    """Check a corpus whose predictions are tensors (see the module), on their device; the ids to
    drop checked already."""
    device = predictions.device if torch.is_tensor(predictions) else predictions[0].device
    ignore = _ignore_on(ignore_ids, device)
    predicted = _texts(predictions, "predictions", ignore, device)
    if predicted.lengths.shape[0] == 0:
        raise ValueError("predictions is empty: BLEU needs at least one prediction and its references")
    referenced = _references(references, int(predicted.lengths.shape[0]), ignore, device)
    largest = _check_range(((predicted.ids, predicted.lengths, "predictions"),
                            (referenced.ids, referenced.lengths, "references")))
    return predicted._replace(largest=largest), referenced._replace(largest=largest)


def check_tensor_texts(texts: Any, name: str, ignore_ids: NDArray[np.int64] | None = None) -> TensorIds:
    """Check texts given as tensors, as Self-BLEU and BLEU matrices take them; the ids to drop
    checked already."""
    device = texts.device if torch.is_tensor(texts) else texts[0].device
    checked = _texts(texts, name, _ignore_on(ignore_ids, device), device)
    return checked._replace(largest=_check_range(((checked.ids, checked.lengths, name),)))


def _check_range(sides: tuple[tuple[torch.Tensor, torch.Tensor, str], ...]) -> int:
    """Every kept id is at least 0: a negative one is padding whose id is not named. Returns the
    largest kept id (-1 for none). One read of the device: each side's least and largest."""
    big = torch.iinfo(torch.int64).max
    bounds = []
    for ids, lengths, _ in sides:
        inside = torch.arange(ids.shape[-1], device=ids.device) < lengths[..., None]
        none = torch.tensor([big, -1], device=ids.device)
        bounds.append(torch.stack([torch.where(inside, ids, big).amin(), torch.where(inside, ids, -1).amax()])
                      if ids.numel() else none)
    read: list[list[int]] = torch.stack(bounds).tolist()
    for (least, _), (_, _, name) in zip(read, sides):
        if least < 0:
            raise ValueError(f"{name} holds the id {least}, which no token has: if it pads the rows, name it in "
                             f"ignore_ids (ignore_ids=[{least}])")
    return max(largest for _, largest in read)
