"""The evaluate metric, a face: ``evaluate_metric`` holds the ``Bleu`` class that ``evaluate.load``
takes from a script (``bleu_metric.py`` in a clone of the repository, ``SCRIPT`` in the installed
package), and ``card`` its description, made from the declarations. Nothing is imported here, so
the card loads without evaluate."""

from pathlib import Path

# The script an installed package hands evaluate: ``evaluate.load(exactbleu.metric.SCRIPT)``.
SCRIPT = str(Path(__file__).with_name("bleu_metric.py"))
