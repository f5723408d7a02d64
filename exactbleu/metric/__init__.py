"""The evaluate metric, a face: ``evaluate_metric`` holds the ``Bleu`` class that ``bleu_metric.py``
hands to ``evaluate.load`` (the only module that imports evaluate), and ``card`` its description,
made from the declarations. Nothing is imported here, so the card loads without evaluate."""
