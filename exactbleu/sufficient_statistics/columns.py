"""Statistics stored as columns (``Statistics.as_dict``: a dict, or a ``datasets.Dataset``),
read back and checked where they enter. What they must be here does not depend on any settings;
whether settings can score them is the scorer's check (``scoring.results``).
"""

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .counted_with import CountedWith, corpus_fingerprint, whole_corpus_error

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


class CheckedColumns(NamedTuple):
    """The columns of stored statistics, checked, as int64 arrays, and the settings that counted them."""

    prediction_length: NDArray[np.int64]
    reference_length: NDArray[np.int64]
    matches: NDArray[np.int64]
    totals: NDArray[np.int64]
    references: NDArray[np.int64]
    counted_with: CountedWith | None


def checked_columns(columns: Columns) -> CheckedColumns:
    """The columns that ``Statistics.as_dict`` gives, checked: whole, non-negative counts, a row
    per segment in every column, matches at most totals, totals at most the prediction's length,
    at least one reference per segment, and one set of settings."""
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
    counted = _counted_with_column(columns, len(counts))
    if counted is not None and counted.whole_corpus() and \
            counted.corpus != corpus_fingerprint(prediction_length, reference_length, matches, totals, counts):
        raise whole_corpus_error(f"must be read back whole: these {len(counts)} rows are not the corpus they were "
                                 f"counted on (a part of it, or parts of several corpora)")
    return CheckedColumns(prediction_length, reference_length, matches, totals, counts, counted)


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
        if first.whole_corpus() and all(other.settings_alone() == first.settings_alone() for other in others):
            raise whole_corpus_error(f"do not add up: these rows come from {len(texts)} corpora, each counted in a "
                                     f"call of its own")
        was, other = first.difference(others[0])
        raise ValueError(f"statistics rows counted with different settings do not add up: some were counted with "
                         f"{was}, others with {other}; count every part with the same options")
    if not texts:
        return None
    if len(column) != segments:
        raise ValueError(f"statistics column 'counted_with' has {len(column)} rows but 'references' has {segments}: "
                         f"every column needs a row per segment")
    return CountedWith.from_text(texts.pop())
