"""exactbleu: BLEU with exactly Hugging Face's, sacrebleu's or NLTK's numbers.

The data flows one way, and the modules follow it:

- ``tokenizers``: a segment becomes tokens; a corpus becomes one token text;
- ``sufficient_statistics``: the ``Statistics`` type, one row of integers per segment, and its
  definition;
- ``counting`` (with the numpy ``engine``): a corpus becomes its ``Statistics``;
- ``scoring``, ``significance``, ``explanation``: pure functions of statistics;
- ``options``: every option, declared once, checked into ``Settings``;
- ``api``: the functional API below; ``compat``: sacrebleu's API over it, as a drop-in;
  ``cli``: the command line.

``bleu_metric.py``, beside this package, is the evaluate metric over it.
"""

from . import compat
from .api import (bleu_matrix, corpus_bleu, explain, paired_test, score, self_bleu, self_bleu_statistics, sentence_bleu,
                  sentence_scores, statistics)
from .options import OPTIONS, PRESETS, Settings, resolve_settings
from .sufficient_statistics import Statistics
from .version import __version__

__all__ = ["bleu_matrix", "compat", "corpus_bleu", "sentence_bleu", "sentence_scores", "self_bleu", "self_bleu_statistics", "statistics", "score", "paired_test", "explain", "Statistics",
           "Settings", "resolve_settings", "OPTIONS", "PRESETS", "__version__"]
