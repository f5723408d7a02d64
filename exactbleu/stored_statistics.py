"""Statistics that come back from elsewhere, checked where they enter: the columns that
``Statistics.as_dict`` wrote (a dict, or a ``datasets.Dataset``), and the fixed-length vectors that
processes sum (``Statistics.vector``). What they must be here does not depend on any settings;
whether settings can score them is the scorer's check (``api.score``).
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .sufficient_statistics import CountedWith, Statistics

Columns = Mapping[str, Any]  # or a datasets.Dataset, read the same way


def _count_column(columns: Columns, name: str, ndim: int) -> NDArray[np.int64]:
    """A column of counts as an int64 array: integers (or floats that are whole numbers), not
    negative, of ``ndim`` dimensions; else a ValueError or TypeError that names the column."""
    try:
        values = columns[name]
    except (KeyError, TypeError, IndexError):
        raise ValueError(f"statistics must hold the columns prediction_length, reference_length, matches, totals "
                         f"and references, as statistics() returns them: {name!r} is missing") from None
    try:
        raw = np.asarray(list(values))
    except (TypeError, ValueError) as error:
        raise TypeError(f"statistics column {name!r} must hold counts: {error}") from None
    if raw.dtype.kind == "b" or (raw.dtype.kind not in "iuf" and raw.size):
        raise TypeError(f"statistics column {name!r} must hold integer counts, got {raw.dtype} values such as "
                        f"{raw.reshape(-1)[:1].tolist()!r}")
    if raw.ndim != ndim and raw.size:
        raise ValueError(f"statistics column {name!r} must have {ndim} dimension(s) "
                         f"({'a list per segment' if ndim == 2 else 'a number per segment'}), got shape {raw.shape}")
    if raw.dtype.kind == "f":
        whole = np.isfinite(raw) & (raw == np.round(raw))
        if not whole.all():
            raise ValueError(f"statistics column {name!r} must hold whole counts, got {raw[~whole][0]!r}")
    if (raw < 0).any():
        raise ValueError(f"statistics column {name!r} must hold counts of at least 0, got {raw.min()!r}")
    if raw.dtype.kind == "f" and raw.size and raw.max() >= 2**53:
        raise ValueError(f"statistics column {name!r} holds counts too big to be exact as floats: {raw.max()!r}")
    return raw.astype(np.int64).reshape(raw.shape if raw.size else (0,) * ndim)


def statistics_from_dict(columns: Columns) -> Statistics:
    """``Statistics`` from the columns that ``Statistics.as_dict`` gives, checked: whole,
    non-negative counts, a row per segment in every column, matches at most totals, totals at most
    the prediction's length, at least one reference per segment, and one set of settings."""
    prediction_length = _count_column(columns, "prediction_length", 1)
    reference_length = _count_column(columns, "reference_length", 1)
    matches, totals = _count_column(columns, "matches", 2), _count_column(columns, "totals", 2)
    counts = _count_column(columns, "references", 1)
    if len(counts) == 0:
        raise ValueError("statistics is empty: BLEU needs at least one segment")
    for name, column in (("prediction_length", prediction_length), ("reference_length", reference_length),
                         ("matches", matches), ("totals", totals)):
        if len(column) != len(counts):
            raise ValueError(f"statistics column {name!r} has {len(column)} rows but 'references' has {len(counts)}: "
                             "every column needs a row per segment")
    if matches.shape != totals.shape:
        raise ValueError(f"statistics hold {matches.shape[1]} orders of matches and {totals.shape[1]} of totals; "
                         f"every row holds as many of each")
    if (counts < 1).any():
        raise ValueError("statistics column 'references' must count at least one reference per segment, got 0")
    if (matches > totals).any():
        segment, order = np.argwhere(matches > totals)[0]
        raise ValueError(f"statistics column 'matches' exceeds 'totals' at segment {segment}, order {order + 1}: "
                         f"{matches[segment, order]} > {totals[segment, order]}")
    if (totals > prediction_length[:, None]).any():
        segment = int(np.argwhere(totals > prediction_length[:, None])[0][0])
        raise ValueError(f"statistics column 'totals' exceeds 'prediction_length' at segment {segment}: a prediction "
                         f"of {prediction_length[segment]} tokens has at most that many n-grams of each order")
    return Statistics.from_columns(prediction_length, reference_length, matches, totals, counts.tolist(),
                                   _counted_with_column(columns, len(counts)))


def _counted_with_column(columns: Columns, segments: int) -> CountedWith | None:
    """The settings that counted the rows, from the column ``counted_with`` (one text per row), or
    None where there is no such column (rows made by hand). Rows counted with different settings
    are an error: their sum is no corpus's."""
    try:
        column: Sequence[str] = columns["counted_with"]
    except (KeyError, TypeError, IndexError, ValueError):
        return None
    texts = set(column)
    if len(texts) > 1:
        first, *others = sorted(map(CountedWith.from_text, texts))
        was, other = first.difference(others[0])
        raise ValueError(f"statistics rows counted with different settings do not add up: some were counted with "
                         f"{was}, others with {other}; count every part with the same options")
    if not texts:
        return None
    if len(column) != segments:
        raise ValueError(f"statistics column 'counted_with' has {len(column)} rows but 'references' has {segments}: "
                         f"every column needs a row per segment")
    return CountedWith.from_text(texts.pop())


def checked_vector(vector: object) -> NDArray[np.int64]:
    """A summed statistics vector (``Statistics.vector``, summed over parts) as int64, checked: a
    1-D integer array of a vector's length, of non-negative counts of at least one segment with at
    least one reference each, its matches at most its totals and its totals at most its
    denominators; else a TypeError or ValueError that says what is wrong."""
    array = np.asarray(vector)
    if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or (array.dtype == object and len(array) == 0)):
        raise TypeError(f"statistics must be the Statistics from exactbleu.statistics(), or the 1-D integer vector "
                        f"of Statistics.vector(), got {type(vector).__name__}: {vector!r:.80}")
    if Statistics.vector_orders(len(array)) is None:
        raise ValueError(f"the statistics vector holds {len(array)} numbers, which no vector of Statistics.vector() "
                         f"holds: sum the vectors of statistics counted with the same options")
    array = array.astype(np.int64)
    if (array < 0).any() or array[0] < 1 or array[1] < array[0] or array[4] < 1:
        raise ValueError(f"the statistics vector must hold non-negative counts of at least one segment with at "
                         f"least one reference each, got {array.tolist()!r:.200}")
    sums = Statistics.vector_sums(array)
    if any(m > t for m, t in zip(sums.matches, sums.totals)) or \
            any(t > d for t, d in zip(sums.totals, sums.denominators)):
        raise ValueError("the statistics vector's matches exceed its totals, or its totals its denominators: it "
                         "is not a sum of Statistics.vector()s")
    return array
