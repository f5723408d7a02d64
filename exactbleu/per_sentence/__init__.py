"""Per-sentence scores at scale: every prediction's sentence BLEU at once (``scores``), Self-BLEU in
linear time (``self_scores``), BLEU matrices (``matrix``), and MBR decoding (``decoding``). Each rests on
``sentence_bleu``'s number, entry for entry, bit for bit, under every preset and option; they take text or token ids, as
``corpus_bleu`` does, and tensors on any device.
"""

from .decoding import MBR, mbr
from .matrix import bleu_matrix
from .scores import Scores, sentence_scores
from .self_scores import self_bleu, self_bleu_statistics

__all__ = ["MBR", "Scores", "bleu_matrix", "mbr", "self_bleu", "self_bleu_statistics", "sentence_scores"]
