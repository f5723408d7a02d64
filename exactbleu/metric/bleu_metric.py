"""BLEU for Hugging Face ``evaluate``, as the installed package carries it: the script that
``evaluate.load(exactbleu.metric.SCRIPT)`` loads, where no clone of the repository is at hand.

evaluate copies a metric's script to its own cache and imports it there, so the script holds only
an import of the installed ``Bleu``: that class, not this file, is the metric (it pickles by
reference to ``exactbleu.metric.evaluate_metric``). The import is absolute because evaluate reads
a script's imports to name what a user must install: ``exactbleu``, here.
"""

from exactbleu.metric.evaluate_metric import Bleu

__all__ = ["Bleu"]
