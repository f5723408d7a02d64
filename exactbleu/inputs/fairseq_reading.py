"""Token ids as fairseq's scorer reads them (``--scoring bleu``: `Scorer.add` in fairseq/scoring/bleu.py,
and its C library, libbleu), before anything is counted: a reference's unknown-word id becomes -999,
as fairseq writes it; then each segment loses its padding ids at the start, and its end-of-sentence
and padding ids at the end, but never its first token that is left. Ids between are kept.

fairseq takes one reference a prediction and holds ids as C ints, so more references and larger ids
are refused; its trim reads past the end of a segment that is empty, or padding alone, so those are
refused too: fairseq has no number for them. (libbleu counts the ids so read: ``counting.fairseq_hashes``.)
"""

import numpy as np

from ..limits import C_INT_MAX
from .corpus import Corpus, not_one_reference
from .ids import Namer, TokenIds, segment_at


class FairseqUnreadableError(ValueError):
    """Token ids that fairseq's scorer cannot read: it has no number for them."""


# What a reference's unknown word becomes, as fairseq writes it.
UNKNOWN = -999


def read_as_fairseq(corpus: Corpus, pad: int | None, eos: int | None, unk: int | None) -> Corpus:
    """The corpus of token ids (on the host) as fairseq's scorer reads it, with these ids (None: no
    such rule)."""
    several = not_one_reference(corpus)
    if several is not None:
        raise FairseqUnreadableError(f"fairseq's scorer takes one reference a prediction, but prediction {several[0]} "
                                     f"has {several[1]}: give one each")
    predicted = _trimmed(corpus.predictions, pad, eos, None, "predictions[{}]".format)
    referenced = _trimmed(corpus.references, pad, eos, unk, "references[{}]".format)
    return corpus._replace(predictions=predicted, references=referenced)


def _trimmed(segments: TokenIds, pad: int | None, eos: int | None, unk: int | None, name: Namer) -> TokenIds:
    """Segments trimmed as libbleu's ``bleu_trim`` trims them, ``unk`` replaced first."""
    ids, lengths = segments.ids, segments.lengths
    _check(ids, lengths, name)
    if unk is not None:
        ids = np.where(ids == unk, UNKNOWN, ids)
    offsets = segments.offsets
    starts, positions = offsets[:-1], np.arange(len(ids))
    first = np.minimum.reduceat(np.where(ids != pad, positions, len(ids)), starts) if pad is not None else starts
    padding_alone = np.flatnonzero(first >= offsets[1:])
    if padding_alone.size:
        raise FairseqUnreadableError(f"{name(int(padding_alone[0]))} holds the padding id {pad} alone: fairseq's "
                                     f"scorer reads past its end there, so it has no number for it")
    ending = np.isin(ids, [value for value in (pad, eos) if value is not None])
    last = np.maximum(np.maximum.reduceat(np.where(ending, -1, positions), starts), first)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    kept = (positions >= first[owner]) & (positions <= last[owner])
    return TokenIds(ids[kept], (last - first + 1).astype(np.int64), segments.groups)


def _check(ids: np.ndarray, lengths: np.ndarray, name: Namer) -> None:
    """A ValueError where a segment is empty, or holds an id that no C int holds."""
    empty = np.flatnonzero(lengths == 0)
    if empty.size:
        raise FairseqUnreadableError(f"{name(int(empty[0]))} is empty: fairseq's scorer reads past the end of an "
                                     f"empty segment, so it has no number for it")
    if len(ids) and int(ids.max()) > C_INT_MAX:
        first = int(np.argmax(ids > C_INT_MAX))
        raise FairseqUnreadableError(f"{name(segment_at(lengths, first))} holds the token id {int(ids[first])}: "
                                     f"fairseq's scorer holds ids as C ints (torch.IntTensor), at most {C_INT_MAX}")

