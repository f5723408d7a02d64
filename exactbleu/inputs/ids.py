"""The boundary for token ids: segments as a model's tokenizer gives them, checked once, with
messages that name the argument, and laid end to end as ``TokenIds``. No tokenizer applies: an id
is a token, and the statistics of ids are those of the same ids written as words under
``tokenizer="none"``, with no string made per token.

Predictions are a 2-D padded integer array or a sequence of segments (lists or tuples of ints,
1-D integer arrays); references one such segment per prediction, a list of them per prediction, a
2-D array (one reference each) or a 3-D array (several each). ``ignore_ids`` are dropped everywhere
before anything else is checked, such as padding (-100 included) and end-of-sequence ids.
"""

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from .groups import starts_of
from .text import as_list

Ints = NDArray[np.int64]
Namer = Callable[[int], str]


@dataclasses.dataclass(slots=True, eq=False)
class TokenIds:
    """Segments of token ids: ``ids`` end to end (int64), ``lengths`` one per segment, and for
    references ``groups``, how many segments each prediction has."""

    ids: np.ndarray
    lengths: np.ndarray
    groups: np.ndarray | None = None

    @property
    def offsets(self) -> np.ndarray:
        """Where each segment starts in ``ids``, and where the last ends."""
        return np.concatenate(([0], np.cumsum(self.lengths)))

    def segments(self, start: int, stop: int) -> "TokenIds":
        """Segments ``start`` to ``stop``, without their groups."""
        offsets = self.offsets
        return TokenIds(self.ids[offsets[start] : offsets[stop]], self.lengths[start:stop])

    def grouped(self, start: int, stop: int) -> "TokenIds":
        """The segments of groups ``start`` to ``stop`` (the references of those predictions)."""
        groups = cast(np.ndarray, self.groups)  # references, whose groups are set
        firsts = np.concatenate(([0], np.cumsum(groups)))
        part = self.segments(int(firsts[start]), int(firsts[stop]))
        part.groups = groups[start:stop]
        return part

    def as_lists(self) -> list[list[int]]:
        """Each segment's ids as a list of ints."""
        ids, offsets = self.ids.tolist(), self.offsets.tolist()
        return [ids[offsets[number] : offsets[number + 1]] for number in range(len(self.lengths))]

    def __len__(self) -> int:
        return len(self.lengths)


def segment_at(lengths: Ints, position: int) -> int:
    """The segment that holds the id at ``position`` of segments laid end to end with these lengths."""
    return int(np.searchsorted(np.cumsum(lengths), position, side="right"))


def is_token_ids(predictions: object) -> bool:
    """Whether predictions are token ids rather than text: an array or tensor (anything with
    ``__array__``) but an array of strings, or a sequence whose first segment is a sequence of ints,
    a 1-D array or tensor."""
    if hasattr(predictions, "__array__") and not isinstance(predictions, (list, tuple)):
        return not _holds_strings(predictions)
    if isinstance(predictions, (str, bytes)) or not isinstance(predictions, Sequence) or not len(predictions):
        return False
    first = predictions[0]
    if isinstance(first, (str, bytes)):  # numpy's strings have __array__ too
        return False
    if hasattr(first, "__array__"):
        return True
    if isinstance(first, (list, tuple)):
        return not first or not isinstance(first[0], str)
    return False


def _holds_strings(array: object) -> bool:
    """Whether an array holds text: numpy's strings, or objects that are strings."""
    kind = getattr(getattr(array, "dtype", None), "kind", None)
    if kind in ("U", "S"):
        return True
    return kind == "O" and bool(getattr(array, "size", 0)) and isinstance(np.asarray(array).reshape(-1)[0], str)


def ignored_ids(ignore_ids: object) -> Ints:
    """``ignore_ids`` checked: an int or a list of ints (negative ones too, such as -100)."""
    ignore = as_list(ignore_ids, "ignore_ids") if not isinstance(ignore_ids, int) else [ignore_ids]
    array = np.asarray(ignore)
    past_int64(ignore if array.dtype.kind in "fO" else array, lambda position: "ignore_ids")
    if array.size and (array.dtype.kind not in "iu" or array.ndim != 1):
        raise TypeError(f"ignore_ids must be a list of integer token ids, got {ignore_ids!r:.80}")
    return array.astype(np.int64)


def past_int64(values: object, name: Callable[[int], str]) -> None:
    """A ValueError where ids hold one that no int64 holds (Python ints in a list, which numpy would
    make floats or objects of; an array's uint64s or objects), naming it and, by
    ``name(position)``, what holds it: read as an int64, it would be another id, and the score
    another corpus's."""
    if isinstance(values, np.ndarray):
        flat: Any = values.reshape(-1)
        if values.dtype.kind == "u" and values.size and flat.max() >= 2**63:
            position = int(np.argmax(flat >= 2**63))
            raise ValueError(_outside_int64(name(position), int(flat[position])))
        if values.dtype != object:
            return
        flat = flat.tolist()
    elif isinstance(values, (list, tuple)):
        flat = values
    else:
        return
    for position, value in enumerate(flat):
        if isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise ValueError(_outside_int64(name(position), value))


def _outside_int64(name: str, value: int) -> str:
    return (f"{name} holds the token id {value}, which no int64 holds: token ids are 64-bit signed integers, from "
            f"-2**63 to 2**63 - 1")


def check_token_ids(predictions: object, references: object,
                    ignore_ids: object | None = None) -> tuple[TokenIds, TokenIds]:
    """Check a corpus of token ids and return it as ``TokenIds``, the references grouped by
    prediction (see the module)."""
    ignore = None if ignore_ids is None else ignored_ids(ignore_ids)
    predicted = check_token_id_texts(predictions, ignore, "predictions")
    if len(predicted) == 0:
        raise ValueError("predictions is empty: BLEU needs at least one prediction and its references")
    return predicted, check_token_id_references(references, len(predicted), ignore)


def check_token_id_references(references: object, predictions: int, ignore: Ints | None) -> TokenIds:
    """References of token ids for this many predictions, as ``TokenIds`` grouped by prediction
    (``ignore``: checked ``ignored_ids``)."""
    if hasattr(references, "__array__") and not isinstance(references, (list, tuple)):
        referenced = _reference_array(references, ignore)
    else:
        referenced = _reference_lists(as_list(references, "references"), ignore)
    assert referenced.groups is not None
    if len(referenced.groups) != predictions:
        raise ValueError(f"predictions and references must have the same length, got {predictions} predictions "
                         f"and {len(referenced.groups)} references")
    return referenced


def _reference_array(references: object, ignore: Ints | None) -> TokenIds:
    """References as a 2-D array (one each) or a 3-D array (several each)."""
    array = _integer_array(references, "references")
    if array.ndim not in (2, 3):
        raise ValueError(f"references as an array must be 2-D (one reference per prediction) or 3-D (several), "
                         f"got shape {array.shape}")
    several = array.ndim == 3
    if several and array.shape[1] == 0:
        raise ValueError("references[0] is empty: every prediction needs at least one reference")
    per_prediction = array.shape[1] if several else 1
    name = (lambda number: f"references[{number // per_prediction}][{number % per_prediction}]") if several \
        else "references[{}]".format
    referenced = _rows(array.reshape(len(array) * per_prediction, array.shape[-1]), ignore, name)
    referenced.groups = np.full(len(array), per_prediction, dtype=np.int64)
    return referenced


def _reference_lists(groups: list[Any], ignore: Ints | None) -> TokenIds:
    """References as one segment per prediction, or a list (or 2-D array) of them per prediction."""
    first = groups[0] if groups else None
    several = (first is not None and hasattr(first, "__array__") and np.ndim(first) == 2) or (
        isinstance(first, (list, tuple)) and (
        not first or hasattr(first[0], "__array__") or isinstance(first[0], (list, tuple))))
    if not several:  # one reference per prediction, named references[i]
        groups = [[segment] for segment in groups]
    for index, group in enumerate(groups):
        if len(group) == 0:
            raise ValueError(f"references[{index}] is empty: every prediction needs at least one reference")
    sizes = [len(group) for group in groups]
    firsts = starts_of(sizes)

    def name(number: int) -> str:  # the flat index of a reference, as references[i][j]
        index = int(np.searchsorted(firsts, number, side="right")) - 1
        return f"references[{index}][{number - firsts[index]}]" if several else f"references[{index}]"

    referenced = _joined(list(itertools.chain.from_iterable(groups)), name, ignore)
    referenced.groups = np.array(sizes, dtype=np.int64)
    return referenced


def check_token_id_texts(texts: object, ignore: Ints | None, name: str = "texts") -> TokenIds:
    """Texts given as token ids, as predictions take them, as ``TokenIds`` (``ignore``: checked
    ``ignored_ids``)."""
    if hasattr(texts, "__array__") and not isinstance(texts, (list, tuple)):
        array = _integer_array(texts, name)
        if array.ndim != 2:
            raise ValueError(f"{name} as an array must be 2-D, a padded row of token ids per segment, got shape "
                             f"{array.shape}")
        return _rows(array, ignore, f"{name}[{{}}]".format)
    return _joined(as_list(texts, name), f"{name}[{{}}]".format, ignore)


def _integer_array(value: object, name: str) -> NDArray[Any]:
    """An array of token ids: integers (their range is checked once the ignored ids are gone)."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as error:  # ragged rows
        raise ValueError(f"{name} must be a rectangular array of token ids (pad short rows and name the padding id "
                         f"in ignore_ids): {error}") from None
    past_int64(value if array.dtype.kind in "fO" else array, lambda position: name)
    if array.dtype == object:
        raise ValueError(f"{name} must be a rectangular array of token ids, got rows of different lengths (pad them "
                         f"and name the padding id in ignore_ids)")
    if array.dtype.kind in "US":
        raise TypeError(f"{name} mixes text with token ids: got {array.reshape(-1)[:3].tolist()!r:.80}; give text "
                        f"as strings, or ids as ints")
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer token ids, got {array.dtype} values such as "
                        f"{array.reshape(-1)[0].item()!r}")
    return array


def _segment(value: object, name: str) -> NDArray[Any]:
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} is a string, but the predictions are token ids: give every segment as ids")
    if not hasattr(value, "__array__") and not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of token ids or a 1-D integer array, got {type(value).__name__}: "
                        f"{value!r:.80}")
    array = _integer_array(value, name)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one segment of token ids (1-D), got shape {array.shape}")
    return array


def _joined(segments: list[Any], name: Namer, ignore: Ints | None) -> TokenIds:
    """Segments of token ids end to end, checked, with the ignored ids dropped (``name(i)`` names
    the i-th segment in a message). Lists of ints, the usual case, become one array at once."""
    if all(type(segment) is list or type(segment) is tuple for segment in segments):
        lengths = np.fromiter(map(len, segments), np.int64, len(segments))
        flat = list(itertools.chain.from_iterable(segments))
        try:
            ids: NDArray[Any] | None = np.array(flat) if flat else np.zeros(0, dtype=np.int64)
        except (ValueError, TypeError):
            ids = None
        if ids is None or ids.dtype.kind not in "i":  # an id past int64 is read as a float or an object
            past_int64(flat, lambda position: name(segment_at(lengths, position)))
        if ids is None or ids.ndim != 1 or ids.dtype.kind not in "iu":
            for index, segment in enumerate(segments):  # find the bad segment, to name it
                _segment(segment, name(index))
        ids = _integer_array(ids, name(0))
    else:
        arrays = [_segment(segment, name(index)) for index, segment in enumerate(segments)]
        lengths = np.array([len(array) for array in arrays], dtype=np.int64)
        ids = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
    return _finished(ids, lengths, ignore, name)


def _rows(array: NDArray[Any], ignore: Ints | None, name: Namer) -> TokenIds:
    """Padded rows of ids as segments end to end, the ignored ids dropped from each row."""
    if ignore is None or not len(ignore) or not array.size:
        return _finished(array.reshape(-1), np.full(len(array), array.shape[1], dtype=np.int64), None, name)
    kept = array != ignore[0] if len(ignore) == 1 else ~np.isin(array, ignore)
    return _finished(array[kept], kept.sum(axis=1, dtype=np.int64), None, name)


def _finished(ids: NDArray[Any], lengths: Ints, ignore: Ints | None, name: Namer) -> TokenIds:
    """Segments' ids end to end with the ignored ids dropped, as int64, every id at least 0."""
    ids = ids.astype(np.int64, copy=False)
    if ignore is not None and len(ignore) and len(ids):
        kept = ~np.isin(ids, ignore)
        if not kept.all():
            owner = np.repeat(np.arange(len(lengths)), lengths)
            lengths = np.bincount(owner[kept], minlength=len(lengths)).astype(np.int64)
            ids = ids[kept]
    if len(ids) and ids.min() < 0:
        first = int(np.flatnonzero(ids < 0)[0])
        raise ValueError(f"{name(segment_at(lengths, first))} must hold token ids of at least 0, got {ids[first]}; if "
                         f"it pads the rows, name it in ignore_ids")
    return TokenIds(ids, lengths)
