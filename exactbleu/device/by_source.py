"""MBR's pairwise counts on the tensors' device: each source's candidates against its own
pseudo-references, a block of sources at a time. Every source has as many candidates (and
pseudo-references) as the tensors' second dimension, so a block is a run of rows. An n-gram's key
is (n-gram, source); the pseudo-references' counts of a block's keys fill a table, one column per
pseudo-reference of a source, and each candidate's counts gather their minima from it, as a BLEU
matrix's do (``across_texts``). Counts are integers: exact on any device."""

from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray

from ..counting import PairRows
from ..sufficient_statistics import CountedWith, Statistics
from .across_texts import add_minima, ngram_pairs
from .checks import TensorIds, check_tensor_texts
from .transfer import distinct_columns, joined_texts

# A block's pairs: its matches and its table take about 40 bytes a pair on the device.
TENSOR_BLOCK_PAIRS = 1 << 21


def checked_group_tensor(value: Any, name: str, ignore_ids: NDArray[np.int64] | None) -> tuple[TensorIds, int]:
    """A (sources, texts, length) tensor of token ids, checked as its rows: the rows, and how many
    texts each source has."""
    if value.dim() != 3 or not value.shape[0] or not value.shape[1]:
        raise ValueError(f"{name} as a tensor must be 3-D (sources, texts per source, length), with at least one "
                         f"source and one text each, got shape {tuple(value.shape)}")
    sources, each, width = value.shape
    return check_tensor_texts(value.reshape(sources * each, width), name, ignore_ids), int(each)


def _texts_of_sources(texts: TensorIds, first: int, stop: int, each: int) -> TensorIds:
    """The texts of sources ``first`` to ``stop``, ``each`` a source."""
    return TensorIds(texts.ids[first * each:stop * each], texts.lengths[first * each:stop * each])


def tensor_pair_rows(candidates: TensorIds, references: TensorIds | None, each: int, theirs_each: int, first: int,
                     stop: int, counted_with: CountedWith) -> PairRows:
    """The statistics rows of the (candidate, pseudo-reference) pairs of sources ``first`` to
    ``stop`` (source after source, each candidate's pairs in its pseudo-references' order): the
    distinct ones, found on the device, and where each pair's is among them."""
    orders, sources = counted_with.orders, stop - first
    mine = _texts_of_sources(candidates, first, stop, each)
    texts = mine if references is None else joined_texts(mine, _texts_of_sources(references, first, stop, theirs_each))
    count = sources * each
    first_reference = 0 if references is None else count
    device = texts.ids.device
    matches = torch.zeros((count, theirs_each, orders), dtype=torch.int32, device=device)
    for n, (gram, text, held) in enumerate(ngram_pairs(texts, orders)):
        if not len(gram):
            break
        source = torch.where(text < count, text // each, (text - first_reference) // theirs_each)
        key = gram * sources + source
        theirs = text >= first_reference
        known = torch.unique(key[theirs])
        table = torch.zeros((len(known), theirs_each), dtype=torch.int32, device=device)
        table[torch.searchsorted(known, key[theirs]), (text[theirs] - first_reference) % theirs_each] = (
            held[theirs].to(torch.int32))
        wanted = (text < count) & torch.isin(key, known)
        add_minima(matches[:, :, n], text[wanted], torch.searchsorted(known, key[wanted]),
                   held[wanted].to(torch.int32), table)
    lengths = texts.lengths
    place = (first_reference + (torch.arange(count, device=device) // each)[:, None] * theirs_each
             + torch.arange(theirs_each, device=device))
    (mine_length, their_length, *matched), inverse = distinct_columns(
        [lengths[:count, None].expand(-1, theirs_each).reshape(-1), lengths[place].reshape(-1),
         *matches.reshape(-1, orders).to(torch.int64).unbind(1)])
    return PairRows(Statistics.of_lengths(mine_length, their_length, np.column_stack(matched), None, counted_with),
                    inverse.cpu().numpy())
