"""Counting on the tensors' device: each prediction's statistics row from token-id tensors, with
torch's sort, cumulative sums and scatters, in memory linear in the tokens: no matrix of batch by
vocabulary, nor of batch by distinct n-grams (the dense counts that make other GPU BLEUs' memory
grow with the square of the batch).

Every token of the batch, its references' and its predictions', is a position. An n-gram is named
by a number that is the same exactly where the n-gram is the same within one segment: the
unigram's is (segment, token id); an n-gram's is (its (n-1)-gram's number, its last token's
number), made dense by sorting. Sorting the numbers with the side each position is on (a
reference, or the prediction) beside them groups every n-gram of a segment, side by side: the
prediction's count and the most any one reference holds are reductions over the group, and the
clipped matches are their minimum, summed by segment. Counts are integers: exact on any device.
"""

from typing import Any

import torch

from ..counting import Run
from ..inputs import Corpus
from ..options import Settings, counted_with
from ..sufficient_statistics import Statistics
from .checks import TensorIds, TensorReferences
from .transfer import host_columns

# Positions counted at once, times the orders counted (every order's are worked on together):
# about 2 GB of work arrays on a GPU, 0.5 GB on a CPU.
GPU_POSITIONS = 1 << 24
CPU_POSITIONS = 1 << 22
_TOKEN_BITS = 31  # a token id below 2**31 packs beside its segment; larger ids are numbered first


def chunk_positions(device: Any) -> int:
    """How many positions one chunk of a batch may hold on this device."""
    return CPU_POSITIONS if str(device) == "cpu" else GPU_POSITIONS


def sentence_rows(predictions: TensorIds, references: TensorReferences, orders: int,
                  ref_length: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """What each prediction's statistics row is made of, as int64 tensors on the predictions'
    device: its length, its reference length, its clipped matches per order (shape (predictions,
    orders)), and its number of references (the totals follow from the lengths, on the host)."""
    count, most = references.lengths.shape
    width = max(int(predictions.ids.shape[1]), int(references.ids.shape[2]), 1)
    per_row = (most + 1) * width
    step = max(1, chunk_positions(predictions.ids.device) // (per_row * min(orders, width)))
    largest = max(predictions.largest, references.largest)  # as the check read them
    wide = bool(count) and (largest >= 1 << _TOKEN_BITS if min(predictions.largest, references.largest) >= 0
                            else _holds_wide_ids(predictions, references))
    parts = []
    for start in range(0, count, step):
        stop = min(count, start + step)
        matches = _chunk_matches(predictions.ids[start:stop], predictions.lengths[start:stop],
                                 references.ids[start:stop], references.lengths[start:stop],
                                 references.present[start:stop], orders, width, wide)
        parts.append(matches)
    matches = torch.cat(parts) if parts else torch.zeros((0, orders), dtype=torch.int64)
    lengths = predictions.lengths
    chosen = _reference_lengths(references, lengths, ref_length)
    return lengths, chosen, matches, references.present.sum(dim=1)


def _holds_wide_ids(predictions: TensorIds, references: TensorReferences) -> bool:
    """Whether an id reaches 2**31, past what packs beside a segment (one read of the device)."""
    most = torch.stack([predictions.ids.amax() if predictions.ids.numel() else predictions.lengths.new_zeros(()),
                        references.ids.amax() if references.ids.numel() else predictions.lengths.new_zeros(())])
    return bool(most.max().item() >= 1 << _TOKEN_BITS)


def _reference_lengths(references: TensorReferences, lengths: torch.Tensor, ref_length: str) -> torch.Tensor:
    """Each segment's reference length for the brevity penalty: the shortest present reference's,
    or the closest one's, a tie going to the shorter (the least (distance, length)) or, under
    "closest-first", to the first (the least (distance, place))."""
    big = torch.iinfo(torch.int64).max
    if ref_length == "shortest":
        return torch.where(references.present, references.lengths, big).amin(dim=1)
    distance = (references.lengths - lengths[:, None]).abs()
    if ref_length == "closest-first":
        place = torch.arange(references.lengths.shape[1], device=lengths.device)
        first = torch.where(references.present, (distance << 32) | place, big).amin(dim=1) & 0xFFFFFFFF
        return references.lengths.gather(1, first[:, None])[:, 0]
    packed = torch.where(references.present, (distance << 32) | references.lengths, big)
    return packed.amin(dim=1) & 0xFFFFFFFF


def run_starts(values: torch.Tensor) -> torch.Tensor:
    """Where each run of equal values starts along the last dimension: True at its first value."""
    starts = torch.ones_like(values, dtype=torch.bool)
    starts[..., 1:] = values[..., 1:] != values[..., :-1]
    return starts


def _ranks_of_sorted(ordered: torch.Tensor, order: torch.Tensor) -> torch.Tensor:
    """Each key's rank among the distinct keys, from the keys sorted and where each came from."""
    ranks = torch.empty_like(order)
    ranks[order] = torch.cumsum(run_starts(ordered), 0) - 1
    return ranks


def dense_ranks(keys: torch.Tensor) -> torch.Tensor:
    """Each key's rank among the distinct keys (equal keys, equal ranks), by one sort."""
    return _ranks_of_sorted(*torch.sort(keys))


def _chunk_matches(prediction_ids: torch.Tensor, prediction_lengths: torch.Tensor,
                   reference_ids: torch.Tensor, reference_lengths: torch.Tensor, present: torch.Tensor,
                   orders: int, width: int, wide: bool) -> torch.Tensor:
    """The clipped matches of each order of a chunk of segments, (segments, orders) int64."""
    device = prediction_ids.device
    segments, most = reference_lengths.shape
    rows = torch.zeros((segments * (most + 1), width), dtype=torch.int64, device=device)
    rows[: segments * most, : reference_ids.shape[2]] = reference_ids.reshape(segments * most, -1)
    rows[segments * most :, : prediction_ids.shape[1]] = prediction_ids
    lengths = torch.cat([torch.where(present, reference_lengths, 0).reshape(-1), prediction_lengths])
    segment = torch.cat([torch.arange(segments, device=device).repeat_interleave(most),
                         torch.arange(segments, device=device)])
    side = torch.cat([torch.arange(most, device=device).repeat(segments),
                      torch.full((segments,), most, dtype=torch.int64, device=device)])
    remaining = lengths[:, None] - torch.arange(width, device=device)  # tokens of its row from each position on
    side_bits = max(1, most.bit_length())  # the prediction's side is `most`, after every reference's
    if wide or segments.bit_length() + _TOKEN_BITS + side_bits > 62:  # number the tokens first
        keys = segment[:, None] * rows.numel() + dense_ranks(rows.reshape(-1)).view_as(rows)
    else:
        keys = (segment[:, None] << _TOKEN_BITS) | rows  # the unigram's number, within its segment
    counted = min(orders, width)  # no row holds an n-gram longer than the rows
    sorted_keys, owners = _sorted_orders(rows, keys, remaining, segment, side, side_bits, counted)
    matches = torch.zeros((segments, orders), dtype=torch.int64, device=device)
    matches[:, :counted] = _clipped_by_segment(sorted_keys, owners, side_bits, most, segments)
    return matches


def _sorted_orders(rows: torch.Tensor, keys: torch.Tensor, remaining: torch.Tensor, segment: torch.Tensor,
                   side: torch.Tensor, side_bits: int, orders: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Each order's (n-gram, side) keys, sorted, and the segment of each sorted position: two
    (orders, positions) tensors. An n-gram's number is its (n-1)-gram's dense number and its last
    token's, so each order takes one sort."""
    width = rows.shape[1]
    owner = segment[:, None].expand(-1, width).reshape(-1)
    # A position where no n-gram starts gets a negative key of its own: it sorts first, alone in
    # its group, so no group gathers many positions (which would serialize a GPU's atomic adds).
    alone = (-1 - torch.arange(rows.numel(), device=rows.device).view_as(rows)) << side_bits
    every_sorted = torch.empty((orders, rows.numel()), dtype=torch.int64, device=rows.device)
    every_owner, order = torch.empty_like(every_sorted), torch.empty_like(owner)
    first = previous = rows  # each position's unigram and (n-1)-gram numbers, once counted
    sides = side[:, None]
    for n in range(1, orders + 1):
        if n > 1:  # an n-gram: its (n-1)-gram's number and its last token's
            keys = torch.zeros_like(rows)
            keys[:, : width - n + 1] = previous[:, : width - n + 1] * rows.numel() + first[:, n - 1 :]
        sorted_keys, _ = torch.sort(torch.where(remaining >= n, (keys << side_bits) | sides, alone).reshape(-1),
                                    out=(every_sorted[n - 1], order))
        torch.index_select(owner, 0, order, out=every_owner[n - 1])
        if n < orders:
            previous = _ranks_of_sorted(sorted_keys >> side_bits, order).view_as(rows)
            first = previous if n == 1 else first
    return every_sorted, every_owner


def _clipped_by_segment(sorted_keys: torch.Tensor, owners: torch.Tensor, side_bits: int, most: int,
                        segments: int) -> torch.Tensor:
    """Each segment's clipped matches of each order, (segments, orders): per n-gram, the least of
    the prediction's count and the most any one reference holds, summed by segment. Every order
    at once, from its sorted keys (a row of ``sorted_keys`` per order), with no atomic add on a
    busy address.

    Runs of equal keys are the (n-gram, side) pairs, and runs of equal n-grams their groups. The
    prediction's side sorts last in its group, so the group's last position holds the
    prediction's count, where it holds the n-gram at all. Positions sort by segment (those where
    no n-gram starts first), so a segment's sum is the difference of a running total at its ends."""
    orders = sorted_keys.shape[0]
    # Runs start anew at each order's row.
    pair = torch.cumsum(run_starts(sorted_keys).reshape(-1), 0) - 1
    gram = torch.cumsum(run_starts(sorted_keys >> side_bits).reshape(-1), 0) - 1
    flat = sorted_keys.reshape(-1)
    counted = torch.zeros_like(flat).scatter_add_(0, pair, torch.ones_like(flat))[pair]
    predicted = (flat >= 0) & ((flat & ((1 << side_bits) - 1)) == most)
    in_reference = torch.zeros_like(flat).scatter_reduce(0, gram, torch.where(predicted, 0, counted), "amax")
    last = run_starts(gram).roll(-1)  # where each group ends: where the next one starts
    clipped = torch.where(last & predicted, torch.minimum(counted, in_reference[gram]), 0)
    total = torch.nn.functional.pad(torch.cumsum(clipped, 0), (1, 0))
    lanes = torch.arange(orders, device=flat.device)[:, None] * segments  # order n's segments, after n-1's
    owned = torch.where(sorted_keys >= 0, owners + lanes, lanes - 1).reshape(-1)
    ends = torch.searchsorted(owned, torch.arange(orders * segments + 1, device=flat.device))
    return (total[ends[1:]] - total[ends[:-1]]).view(orders, segments).T


def statistics_on_device(corpus: Corpus, settings: Settings, run: Run) -> Statistics:
    """The statistics of a corpus of tensors checked on their device (``checks.checked_tensors``),
    counted there: only each prediction's row crosses to the host. The run's ``max_tokens`` bounds
    the corpus's tokens; its ``threads`` and ``cache`` are the host's engine's."""
    predictions: TensorIds = corpus.predictions
    references: TensorReferences = corpus.references
    if run.max_tokens is not None:
        tokens = int(predictions.lengths.sum()) + int(references.lengths.sum())
        if tokens > run.max_tokens:
            raise ValueError(f"the corpus holds {tokens:,} tokens, more than max_tokens={run.max_tokens:,}")
    counted = counted_with(settings)
    rows = sentence_rows(predictions, references, counted.orders, settings.statistics.ref_length)
    lengths, reference, matches, present = host_columns(rows)
    statistics = Statistics.of_lengths(lengths, reference, matches, present.tolist(), counted)
    if run.progress:
        run.progress(len(statistics))
    return statistics
