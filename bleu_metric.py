"""BLEU for Hugging Face ``evaluate``: HF's numbers by default, without HF's crashes.

``evaluate.load("bleu_metric.py")`` loads this file, which hands evaluate the ``Bleu`` class of
the ``exactbleu`` package beside it (``exactbleu/metric/``: the card, the features and the class),
where BLEU lives. ``python bleu_metric.py REF -i HYP`` is its command line.
"""

import importlib
import os
import sys
from types import ModuleType


def _import_exactbleu(module: str) -> ModuleType:
    """A module of the exactbleu package: installed, on the path (the repository's folder), or
    beside this file when it runs as a script. (Imported in a function, not at the top: evaluate
    checks top-level imports and would tell the user to install it from PyPI.)"""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        missing = (error.name or "").split(".")[0] == "exactbleu"
        here = os.path.dirname(os.path.abspath(__file__))
        if missing and os.path.isdir(os.path.join(here, "exactbleu")) and here not in sys.path:
            sys.path.insert(0, here)
            return _import_exactbleu(module)
        if not missing:
            raise
        raise ImportError(
            "bleu_metric.py needs the exactbleu package: install it (`pip install .` in the root of a clone of its "
            "repository, as its README says; `pip install exactbleu` once it is published), or load the metric with "
            "the repository's folder as the working directory"
        ) from None


if __name__ == "__main__":  # the command line, before evaluate is imported (it takes seconds)
    sys.exit(_import_exactbleu("exactbleu.cli").main(prog="bleu_metric.py"))

# The one class evaluate looks for. It is defined in the package so that it pickles by reference.
Bleu = _import_exactbleu("exactbleu.metric.evaluate_metric").Bleu
__version__ = _import_exactbleu("exactbleu").__version__
