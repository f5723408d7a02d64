"""sacrebleu's BLEU API, as a drop-in: ``from exactbleu import compat as sacrebleu``. Its layouts,
return types, text formats, signatures and numbers are sacrebleu 2.6's, counted and scored by
exactbleu's one core under the ``"sacrebleu"`` preset:

- ``corpus_bleu(hypotheses, [ref_stream, ...])``: references as *streams*, one list per reference
  set with a reference (or None) for every hypothesis, where the rest of exactbleu takes a list of
  references per prediction; ``sentence_bleu(hypothesis, references)``, with effective order;
- ``BLEU(...)`` with ``corpus_score``, ``sentence_score``, ``get_signature`` and ``compute_bleu``;
- ``BLEUScore`` with ``.score`` (0..100), ``.counts``, ``.totals``, ``.precisions`` (in percent),
  ``.bp``, ``.sys_len``, ``.ref_len`` and sacrebleu's ``format``, which the command line prints;
- ``bleu_settings`` and ``references_per_segment``: ``BLEU``'s fields and streams, checked, for faces.
"""

import json
import os
from collections.abc import Iterable, Mapping, Sequence, Sized
from collections.abc import Set as AbstractSet
from typing import Any, ClassVar, cast

from . import (
    PRESETS,
    SMOOTHING,
    TOKENIZERS,
    ReferenceCache,
    Scored,
    Settings,
    Sums,
    bootstrap,
    did_you_mean,
    resolve_settings,
    scored,
    statistics,
    tokenizer_for_language,
)
from . import Signature as ExactSignature

MAX_NGRAM_ORDER = 4
# The sacrebleu release whose numbers and signatures this reproduces.
SACREBLEU_VERSION = "2.6.0"
# sacrebleu's smoothing methods and the defaults of their values.
SMOOTH_DEFAULTS: dict[str, float | None] = {name: method.default for name, method in SMOOTHING.items()
                                               if method.arithmetic == SMOOTHING["exp"].arithmetic}
SACREBLEU = "sacrebleu"
DEFAULT_TOKENIZER = str(PRESETS[SACREBLEU].options["tokenizer"])


class BLEUScore:
    """A BLEU score as sacrebleu's ``BLEUScore`` holds it: the score and precisions in percent, the
    matched and total n-grams per order (with add-k's k added, as sacrebleu reports them), the
    brevity penalty and the lengths. ``ratio`` is the length ratio its arithmetic gives (by
    default sacrebleu's, ``sys_len / ref_len``)."""

    def __init__(self, score: float, counts: list[Any], totals: list[Any], precisions: list[float], bp: float,
                 sys_len: int, ref_len: int, *, ratio: float | None = None):
        self.name, self.score = "BLEU", score
        self.counts, self.totals, self.precisions = counts, totals, precisions
        self.bp, self.sys_len, self.ref_len = bp, sys_len, ref_len
        self.ratio = (sys_len / ref_len if ref_len else 0) if ratio is None else ratio
        self.prec_str = "/".join(f"{p:.1f}" for p in precisions)
        self._mean, self._ci = -1.0, -1.0  # a bootstrap estimate, when one is asked for
        self._verbose = (f"{self.prec_str} (BP = {bp:.3f} ratio = {self.ratio:.3f} hyp_len = {sys_len:d} "
                         f"ref_len = {ref_len:d})")

    def format(self, width: int = 2, score_only: bool = False, signature: str = "", is_json: bool = False) -> str:
        """The score as sacrebleu prints it: alone, on a line, or as JSON."""
        shown = f"{self.score:.{width}f}"
        fields: dict[str, object] = {"name": self.name, "score": float(shown), "signature": signature}
        if self._mean > 0:
            mean, half_width = f"{self._mean:.{width}f}", f"{self._ci:.{width}f}"
            shown += f" (μ = {mean} ± {half_width})"
            if is_json:
                fields.update(confidence_mean=float(mean), confidence_var=float(half_width),
                              confidence=f"μ = {mean} ± {half_width}")
        if score_only:
            return shown
        line = f"{self.name}|{signature} = {shown}" if signature else f"{self.name} = {shown}"
        fields["verbose_score"] = self._verbose
        if is_json:
            for field in signature.split("|") if signature else []:
                name, value = field.split(":", 1)
                fields[name] = value
            return json.dumps(fields, indent=1, ensure_ascii=False)
        return f"{line} {self._verbose}"

    def __repr__(self) -> str:
        return self.format()

    @classmethod
    def of(cls, sums: Sums, result: Scored) -> "BLEUScore":
        """The score of summed statistics, on sacrebleu's scale (100 times the score in the other
        arithmetics, as exactbleu's command line prints them)."""
        return cls(result.percent(), list(sums.matches), list(sums.totals), result.percent_precisions(),
                   result.brevity_penalty,
                   int(sums.prediction_length), int(sums.reference_length), ratio=result.length_ratio)


class Signature(ExactSignature):
    """A score's settings as sacrebleu's signature names them (``format(short=True)``: its short
    names): exactbleu's signature without the fields sacrebleu lacks, with sacrebleu's version."""

    FIELDS = ("nrefs", "bs", "ar", "seed", "case", "eff", "tok", "smooth", "version")

    def __init__(self, settings: Settings, nrefs: int | str, test: tuple[str, int] | None = None):
        super().__init__(settings, nrefs, test)
        self.fields = [(name, SACREBLEU_VERSION if name == "version" else value) for name, value in self.fields
                       if name in self.FIELDS]


class BLEU:
    """sacrebleu's ``BLEU`` metric: the same arguments, methods and numbers."""

    SMOOTH_DEFAULTS: ClassVar[dict[str, float | None]] = dict(SMOOTH_DEFAULTS)
    TOKENIZERS = TOKENIZERS.keys()
    TOKENIZER_DEFAULT = DEFAULT_TOKENIZER

    def __init__(self, lowercase: bool = False, force: bool = False, tokenize: str | None = None,
                 smooth_method: str = "exp", smooth_value: float | None = None,
                 max_ngram_order: int = MAX_NGRAM_ORDER, effective_order: bool = False, trg_lang: str = "",
                 references: Sequence[Sequence[str | None]] | None = None):
        self._options = _bleu_options(lowercase, tokenize, smooth_method, smooth_value, max_ngram_order,
                                      effective_order, trg_lang)
        self.lowercase, self.smooth_method, self.smooth_value = lowercase, smooth_method, smooth_value
        self.max_ngram_order, self.effective_order, self.trg_lang = max_ngram_order, effective_order, trg_lang
        self._force = force  # accepted: exactbleu never warns about tokenized input
        self._settings = resolve_settings(SACREBLEU, **self._options)  # as bleu_settings resolves them
        self._cache = ReferenceCache()
        self._references = None if references is None else references_per_segment(references, None)
        self.num_refs: int | None = None
        self.n_bootstrap: int | None = None
        self.seed: str | None = None

    @staticmethod
    def compute_bleu(correct: list[int], total: list[int], sys_len: int, ref_len: int, smooth_method: str = "none",
                     smooth_value: float | None = None, effective_order: bool = False,
                     max_ngram_order: int = MAX_NGRAM_ORDER) -> BLEUScore:
        """The score of given statistics: matched and total n-grams per order, and the lengths."""
        if len(correct) != max_ngram_order or len(total) != max_ngram_order:
            raise ValueError(f"correct and total must hold max_ngram_order={max_ngram_order} counts each, got "
                             f"{len(correct)} and {len(total)}")
        settings = resolve_settings(SACREBLEU, smooth_method=smooth_method,
                                    smooth_value=_value_of(smooth_method, smooth_value),
                                    effective_order=effective_order, max_order=max_ngram_order)
        return _score(Sums(sys_len, ref_len, list(correct), list(total), []), settings)

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str | None]] | None,
                     n_bootstrap: int = 1) -> BLEUScore:
        """Corpus BLEU of the hypotheses against reference streams (None: those given to ``BLEU``);
        with ``n_bootstrap`` > 1, sacrebleu's bootstrap mean and 95% interval too."""
        hypotheses = _listed(hypotheses, "hypotheses")
        if references is None:
            if self._references is None:
                raise ValueError("references is None and BLEU(references=...) was not given any: pass the "
                                 "reference streams")
            per_segment = self._references
            if len(per_segment) != len(hypotheses):
                raise ValueError(f"the references given to BLEU have {len(per_segment)} segments but hypotheses has "
                                 f"{len(hypotheses)}")
        else:
            per_segment = references_per_segment(references, len(hypotheses))
        counted = statistics(hypotheses, per_segment, self._settings, cache=self._cache)
        counts = set(map(len, per_segment))
        self.num_refs = counts.pop() if len(counts) == 1 else -1
        result = _score(counted.sums(), self._settings)
        if n_bootstrap > 1:
            seed = os.environ.get("SACREBLEU_SEED", "12345")
            self.n_bootstrap, self.seed = n_bootstrap, seed.lower()
            estimate = bootstrap(counted, SACREBLEU, **self._options, n_bootstrap=n_bootstrap,
                                 bootstrap_seed=None if seed.lower() == "none" else int(seed))
            result._mean, result._ci = estimate.percents()
        return result

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> BLEUScore:
        """BLEU of one hypothesis against its references (a sequence of strings)."""
        if not isinstance(hypothesis, str):
            raise TypeError(f"hypothesis must be a string, got {type(hypothesis).__name__}: {hypothesis!r:.80}")
        if isinstance(references, str):
            raise TypeError(f"references must be a sequence of reference strings, got a string: {references!r:.80}; "
                            f"put it in a list")
        references = _listed(references, "references")
        counted = statistics([hypothesis], [references], self._settings)
        self.num_refs = len(references)
        return _score(counted.sums(), self._settings)

    def get_signature(self) -> Signature:
        """The signature of the last score; sacrebleu's needs a score first, for the number of references."""
        if self.num_refs is None:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        nrefs: int | str = "var" if self.num_refs == -1 else self.num_refs
        if not self.n_bootstrap:
            return Signature(self._settings, nrefs)
        seed = None if self.seed == "none" else int(str(self.seed))
        settings = resolve_settings(SACREBLEU, **self._options, n_bootstrap=self.n_bootstrap, bootstrap_seed=seed)
        return Signature(settings, nrefs, ("bs", self.n_bootstrap))


def bleu_settings(lowercase: bool = False, tokenize: str | None = None, smooth_method: str = "exp",
                  smooth_value: float | None = None, max_ngram_order: int = MAX_NGRAM_ORDER,
                  effective_order: bool = False, trg_lang: str = "") -> Settings:
    """The ``Settings`` of sacrebleu's ``BLEU(...)`` fields, as ``BLEU`` here resolves them: for a
    face whose client configures sacrebleu's BLEU by these fields (mbrs's `MetricBLEU.Config`).

    Refuses what sacrebleu refuses (a ``smooth_method`` other than sacrebleu's four, NLTK's
    included) and ignores what it ignores: ``smooth_value`` with "exp" and "none", and
    ``trg_lang`` where ``tokenize`` is given. A ``tokenize`` of None is the target language's
    tokenizer (13a by default), as sacrebleu chooses it. Under these settings every score is
    sacrebleu's own number, on its 0..100 scale (``Scored.percent()`` is ``value``).

    Raises:
        ValueError or TypeError naming the field, its value and the valid choices.
    """
    return resolve_settings(SACREBLEU, **_bleu_options(lowercase, tokenize, smooth_method, smooth_value,
                                                        max_ngram_order, effective_order, trg_lang))


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str | None]], smooth_method: str = "exp",
                smooth_value: float | None = None, force: bool = False, lowercase: bool = False,
                tokenize: str = DEFAULT_TOKENIZER, use_effective_order: bool = False) -> BLEUScore:
    """sacrebleu's ``corpus_bleu``: ``references`` is a list of reference streams, one per
    reference set, each holding a reference (or None) for every hypothesis."""
    return BLEU(lowercase=lowercase, force=force, tokenize=tokenize, smooth_method=smooth_method,
                smooth_value=smooth_value, effective_order=use_effective_order).corpus_score(hypotheses, references)


def raw_corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str | None]],
                    smooth_value: float | None = SMOOTH_DEFAULTS["floor"]) -> BLEUScore:
    """sacrebleu's ``raw_corpus_bleu``: no tokenizing, ``floor`` smoothing, effective order."""
    return corpus_bleu(hypotheses, references, smooth_method="floor", smooth_value=smooth_value, force=True,
                       tokenize=str(PRESETS["nltk"].options["tokenizer"]), use_effective_order=True)


def sentence_bleu(hypothesis: str, references: Sequence[str], smooth_method: str = "exp",
                  smooth_value: float | None = None, lowercase: bool = False,
                  tokenize: str = DEFAULT_TOKENIZER, use_effective_order: bool = True) -> BLEUScore:
    """sacrebleu's ``sentence_bleu``: one hypothesis against its references, with effective order."""
    return BLEU(lowercase=lowercase, tokenize=tokenize, smooth_method=smooth_method, smooth_value=smooth_value,
                effective_order=use_effective_order).sentence_score(hypothesis, references)


def results_table(header: tuple[str, str], rows: Sequence[tuple[str, str]]) -> str:
    """sacrebleu's results table, as its command line prints several systems: a box-drawn table of
    two columns, the first right-aligned and the second centred, each cell one or more lines, as
    tabulate's "fancy_grid" draws it: a column is as wide as its
    widest cell or its header and two spaces, and one space more on each side."""
    lines = [[cell.split("\n") for cell in row] for row in [header, *rows]]
    widths = [max(len(header[column]) + 2, *(len(text) for row in lines[1:] for text in row[column])) + 2
              for column in range(2)]

    def rule(left: str, middle: str, right: str, fill: str) -> str:
        return left + middle.join(fill * width for width in widths) + right

    def body(row: list[list[str]]) -> list[str]:
        height = max(map(len, row))
        cells = [cell + [""] * (height - len(cell)) for cell in row]
        return ["│" + f" {first:>{widths[0] - 2}} " + "│" + f"{second:^{widths[1]}}" + "│"
                for first, second in zip(*cells)]

    out = [rule("╒", "╤", "╕", "═"), *body(lines[0]), rule("╞", "╪", "╡", "═")]
    for number, row in enumerate(lines[1:]):
        out += body(row)
        out.append(rule("╘", "╧", "╛", "═") if number == len(lines) - 2 else rule("├", "┼", "┤", "─"))
    return "\n".join(out)


def _bleu_options(lowercase: bool, tokenize: str | None, smooth_method: str, smooth_value: float | None,
                  max_ngram_order: int, effective_order: bool, trg_lang: str) -> dict[str, Any]:
    """sacrebleu's BLEU fields as exactbleu's options under the "sacrebleu" preset (the one
    resolver of ``BLEU`` and ``bleu_settings``). effective_order is given, so the preset's
    per-sentence rule never applies: as sacrebleu's."""
    if not isinstance(smooth_method, str) or smooth_method not in SMOOTH_DEFAULTS:
        # exactbleu's own options take NLTK's methods too, which score on 0..1: not sacrebleu's BLEU.
        raise ValueError(f"smooth_method must be one of {list(SMOOTH_DEFAULTS)} (sacrebleu's), got "
                         f"{smooth_method!r:.80}{did_you_mean(smooth_method, SMOOTH_DEFAULTS)}")
    if tokenize is None:  # sacrebleu's choice by target language
        tokenize = tokenizer_for_language(trg_lang)
    return {"tokenizer": tokenize, "lowercase": lowercase, "smooth_method": smooth_method,
            "smooth_value": _value_of(smooth_method, smooth_value), "max_order": max_ngram_order,
            "effective_order": effective_order}


def _value_of(smooth_method: str, smooth_value: float | None) -> float | None:
    """sacrebleu takes a smooth_value with any method and leaves it unused for "none" and "exp",
    which have no value; the drop-in does the same (exactbleu's own options refuse it there)."""
    return smooth_value if SMOOTH_DEFAULTS.get(smooth_method) is not None else None


def _listed(value: object, name: str) -> list[Any]:
    """A list, tuple or array as a list; a string, a dict or a set is an error, as they would
    iterate into something other than what sacrebleu means."""
    if isinstance(value, (str, bytes, Mapping, AbstractSet)) or not isinstance(value, (Sized, Iterable)):
        raise TypeError(f"{name} must be a list, got {type(value).__name__}: {value!r:.80}")
    return list(cast(Iterable[Any], value))


def references_per_segment(streams: object, hypotheses: int | None,
                           name: str = "references") -> list[list[str]]:
    """sacrebleu's reference streams (one list per reference set, each with a reference or None
    for every hypothesis), checked, as a list of references per segment, the Nones dropped, as
    sacrebleu drops them. A stream must hold an entry for every hypothesis (sacrebleu's zip would
    cut the corpus short; ``hypotheses`` None: as many as the first stream). Messages name the
    caller's argument (``name``) and its indices, ``name[stream][segment]``.

    Raises:
        TypeError for a stream that is not a list, or an entry neither a string nor None;
        ValueError for no stream, a stream of another length, or a segment with no reference.
    """
    listed = _listed(streams, name)
    if not listed:
        raise ValueError(f"{name} is empty: give at least one reference stream")
    for number, stream in enumerate(listed):
        if isinstance(stream, str):
            raise TypeError(f"{name} must be a list of reference streams (one list per reference set, as "
                            f"sacrebleu takes them), but {name}[{number}] is a string: {stream!r:.80}; for "
                            f"one reference set, write [references]")
        listed[number] = stream = _listed(stream, f"{name}[{number}]")
        expected = len(listed[0]) if hypotheses is None else hypotheses
        if len(stream) != expected:
            raise ValueError(f"{name}[{number}] holds {len(stream)} references but there are {expected} "
                             f"hypotheses: sacrebleu's layout is one stream per reference set, each with an entry "
                             f"(or None) for every hypothesis; for a list of references per hypothesis, use "
                             f"exactbleu.corpus_bleu")
        for index, reference in enumerate(stream):
            if reference is not None and not isinstance(reference, str):
                raise TypeError(f"{name}[{number}][{index}] must be a string or None, got "
                                f"{type(reference).__name__}: {reference!r:.80}")
    per_segment = [[reference for reference in segment if reference is not None] for segment in zip(*listed)]
    for index, segment in enumerate(per_segment):
        if not segment:
            raise ValueError(f"hypothesis {index} has no reference: every stream of {name} holds None there "
                             f"({name}[j][{index}])")
    return per_segment


def _score(sums: Sums, settings: Settings) -> BLEUScore:
    """A BLEUScore of summed statistics, by the one arithmetic (sacrebleu's, here)."""
    result = scored(sums, settings)
    score = BLEUScore.of(sums, result)
    value = settings.scoring.smooth_value
    if settings.scoring.smooth_method == "add-k" and any(score.counts) and value is not None:
        # sacrebleu adds k to the counts it reports from the second order on.
        score.counts[1:] = [count + value for count in score.counts[1:]]
        score.totals[1:] = [total + value for total in score.totals[1:]]
    return score
