"""Sufficient statistics: all that BLEU needs of a segment, as one row of integers. ``definition``
states a row; ``rows`` holds a corpus's rows as ``Statistics``, which add up to ``Sums``, what a
score is a function of (``sums``); ``counted_with`` names the settings they were counted with;
``columns`` reads stored statistics back, checked; ``expected`` holds rows against expected
reference counts.
"""

from .columns import CheckedColumns, checked_columns
from .counted_with import CountedWith
from .definition import other_lengths, reference_length, segment_matches, segment_row
from .expected import ExpectedRows
from .rows import Statistics, checked_vector
from .sums import Sums

__all__ = ["CheckedColumns", "CountedWith", "ExpectedRows", "Statistics", "Sums", "checked_columns", "checked_vector",
           "other_lengths", "reference_length", "segment_matches", "segment_row"]
