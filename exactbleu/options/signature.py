"""The signature: one line naming every setting that can change a score, in sacrebleu's format.

sacrebleu's fields come first (``nrefs``, a test's ``bs`` or ``ar`` and its ``seed``, ``case``,
``eff``, ``tok``, ``smooth``), then each way the settings depart from sacrebleu's conventions
(``reflen:shortest``, an ``order`` other than 4 or ``weights``, ``rstrip:no``, ``keep:first`` or
``keep:fewest``, ``avg:macro``, fairseq's ``pad``, ``eos`` and ``unk`` ids), then ``version``.
"""


from ..tokenizers import signature_name
from ..version import __version__
from .declared import Settings
from .smoothing import SMOOTHING

# sacrebleu's short names of its fields (its ``--short``); the fields it lacks keep theirs.
SHORT_NAMES = {"nrefs": "#", "bs": "bs", "ar": "ar", "seed": "rs", "case": "c", "eff": "e", "tok": "tok",
               "smooth": "s", "version": "v"}


class Signature:
    """The signature of a score under ``settings`` with ``nrefs`` references a segment (or "var"),
    and ``test``, ``("bs", n)`` or ``("ar", n)``, for a paired test (without it, ``n_bootstrap``
    gives ``bs``). ``fields`` holds (name, value) pairs in order; ``format(short=True)`` uses
    sacrebleu's short names; ``str()`` is the long form."""

    def __init__(self, settings: Settings, nrefs: int | str, test: tuple[str, int] | None = None):
        scoring = settings.scoring
        if scoring.smooth:
            smooth = "add-one"
        elif scoring.smooth_method is None:
            smooth = "none"
        else:
            default = SMOOTHING[scoring.smooth_method].default
            value = default if scoring.smooth_value is None else scoring.smooth_value
            smooth = scoring.smooth_method if value is None else f"{scoring.smooth_method}[{value:.2f}]"
        if test is None and settings.output.n_bootstrap:
            test = ("bs", settings.output.n_bootstrap)
        fields: list[tuple[str, object]] = [("nrefs", nrefs)]
        if test is not None:
            seed = settings.output.bootstrap_seed
            fields += [test, ("seed", "none" if seed is None else seed)]
        fields += [("case", "lc" if settings.tokenize.lowercase else "mixed"),
                   ("eff", "yes" if scoring.effective_order else "no"),
                   ("tok", signature_name(settings.tokenize)), ("smooth", smooth)]
        if settings.statistics.ref_length != "closest":
            fields.append(("reflen", settings.statistics.ref_length))
        if scoring.weights is not None:
            weights = scoring.weights
            sets = weights if isinstance(weights[0], tuple) else (weights,)
            fields.append(("weights", "/".join(",".join(f"{w:g}" for w in one) for one in sets)))
        elif settings.statistics.max_order != 4:
            fields.append(("order", settings.statistics.max_order))
        if not settings.tokenize.rstrip:
            fields.append(("rstrip", "no"))
        if settings.statistics.keep_references != "all":
            fields.append(("keep", settings.statistics.keep_references))
        if scoring.average != "micro":
            fields.append(("avg", scoring.average))
        fields += list(settings.tokenize.id_rules)
        fields.append(("version", f"exactbleu-{__version__}"))
        self.fields = fields

    def format(self, short: bool = False) -> str:
        """The signature as one line: ``name:value`` pairs joined by ``|``."""
        return "|".join(f"{SHORT_NAMES.get(name, name) if short else name}:{value}" for name, value in self.fields)

    def __str__(self) -> str:
        return self.format()

    __repr__ = __str__


def signature(settings: Settings, nrefs: int | str, test: tuple[str, int] | None = None,
              short: bool = False) -> str:
    """The signature as one line (see ``Signature``)."""
    return Signature(settings, nrefs, test).format(short)
