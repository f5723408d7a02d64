"""Counting across texts on the tensors' device: Self-BLEU's statistics and a BLEU matrix's
clipped matches, from token-id tensors, with sorts and scatters in memory linear in the tokens
(the matrix holds its entries, and what one block of predictions needs).

Every n-gram of the texts gets a number, the same wherever the n-gram is the same: the unigram's
is its token's rank among the distinct ids; an n-gram's is the rank of (its (n-1)-gram's number,
its last token's). Sorting (n-gram, text) pairs groups each n-gram's texts side by side, with how
often each holds it. Self-BLEU clips a text's count by the largest count of the others (the
n-gram's two largest counts decide it, as ``counting.self_bleu_statistics`` explains); a matrix
entry's clipped matches are a sum over n-grams of the least of two counts, gathered from the
references' counts a block of predictions at a time. Counts are integers: exact on any device.
"""

from collections.abc import Iterator

import torch

from .checks import TensorIds
from .rows import dense_ranks, run_starts

# The references' counts one gather reads at once, and a block of entries of the matrix: about
# 256 MB each.
_GATHERED = 1 << 26


def ngram_pairs(texts: TensorIds, orders: int) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """For each order: every (n-gram, text) pair that occurs, sorted by n-gram then text, as three
    tensors (n-gram number, text, how often the text holds it)."""
    rows, device = texts.ids, texts.ids.device
    count, width = rows.shape
    remaining = texts.lengths[:, None] - torch.arange(width, device=device)
    text = torch.arange(count, device=device)[:, None].expand(-1, width)
    first = dense_ranks(rows.reshape(-1)).view_as(rows)
    previous = first
    for n in range(1, orders + 1):
        if n > width:  # no text holds an n-gram longer than the rows
            empty = torch.zeros(0, dtype=torch.int64, device=device)
            yield empty, empty, empty
            continue
        if n > 1:
            keys = torch.zeros_like(rows)
            keys[:, : width - n + 1] = previous[:, : width - n + 1] * rows.numel() + first[:, n - 1 :]
            previous = dense_ranks(torch.where(remaining >= n, keys, -1).reshape(-1)).view_as(rows)
        valid = (remaining >= n).reshape(-1)
        pairs = torch.sort(torch.where(valid, previous.reshape(-1) * count + text.reshape(-1), -1)).values
        pairs = pairs[pairs >= 0]
        places = torch.nonzero(run_starts(pairs)).reshape(-1)
        held = torch.diff(places, append=torch.tensor([len(pairs)], device=device))
        distinct = pairs[places]
        yield distinct // count, distinct % count, held


def self_matches(texts: TensorIds, orders: int) -> torch.Tensor:
    """Each text's clipped matches of each order against all the other texts, (texts, orders)."""
    count = int(texts.lengths.shape[0])
    matches = torch.zeros((count, orders), dtype=torch.int64, device=texts.ids.device)
    for n, (gram, text, held) in enumerate(ngram_pairs(texts, orders)):
        if not len(gram):
            break
        group = torch.cumsum(run_starts(gram), 0) - 1
        zero = torch.zeros(int(group[-1]) + 1, dtype=torch.int64, device=gram.device)
        top = zero.scatter_reduce(0, group, held, "amax")[group]
        at_top = zero.scatter_add(0, group, (held == top).to(torch.int64))[group]
        rest = zero.scatter_reduce(0, group, torch.where(held == top, 0, held), "amax")[group]
        second = torch.where(at_top > 1, top, rest)
        matches[:, n] = torch.zeros(count, dtype=torch.int64, device=gram.device).scatter_add_(
            0, text, torch.where(held < top, held, second))
    return matches


def matrix_matches(texts: TensorIds, predictions: int, orders: int) -> torch.Tensor:
    """The clipped matches of every (prediction, reference) pair, (predictions, references,
    orders) int32: ``texts`` holds the predictions, then the references."""
    device = texts.ids.device
    references = int(texts.lengths.shape[0]) - predictions
    matches = torch.zeros((predictions, references, orders), dtype=torch.int32, device=device)
    for n, (gram, text, held) in enumerate(ngram_pairs(texts, orders)):
        theirs = text >= predictions
        known = torch.unique(gram[theirs])  # the references' n-grams, sorted
        if not len(known):
            break
        mine = ~theirs & torch.isin(gram, known)
        place = torch.searchsorted(known, gram[mine])
        by_text = torch.argsort(text[mine], stable=True)
        rows, slots, counts = text[mine][by_text], place[by_text], held[mine][by_text].to(torch.int32)
        block = max(1, _GATHERED // max(1, references))
        for start in range(0, len(known), block):
            stop = min(len(known), start + block)
            table = torch.zeros((stop - start, references), dtype=torch.int32, device=device)
            inside = theirs & (gram >= known[start]) & (gram <= known[stop - 1])
            table[torch.searchsorted(known, gram[inside]) - start, text[inside] - predictions] = held[inside].to(
                torch.int32)
            wanted = (slots >= start) & (slots < stop)
            add_minima(matches[:, :, n], rows[wanted], slots[wanted] - start, counts[wanted], table)
    return matches


def add_minima(into: torch.Tensor, rows: torch.Tensor, slots: torch.Tensor, counts: torch.Tensor,
                table: torch.Tensor) -> None:
    """Add min(count, table[slot]) to ``into[row]`` for each (row, slot, count), a bounded block of
    them at a time."""

    step = max(1, _GATHERED // max(1, table.shape[1]))
    for start in range(0, len(rows), step):
        stop = start + step
        gathered = torch.minimum(table[slots[start:stop]], counts[start:stop, None])
        into.index_add_(0, rows[start:stop], gathered)
