"""sacrebleu's BLEU API, as a drop-in: ``from exactbleu import compat as sacrebleu``.

Its layouts and return types are sacrebleu's, and so are its numbers:

- ``corpus_bleu(hypotheses, [ref_stream, ...])``: references as *streams*, one list per
  reference set, each with a reference (or None) for every hypothesis. The rest of exactbleu takes
  a list of references per prediction instead.
- ``sentence_bleu(hypothesis, references)``: one hypothesis and its references. Effective order
  is on, as in sacrebleu's ``sentence_bleu``.
- ``BLEU(...)`` with ``corpus_score``, ``sentence_score`` (effective order off unless asked for,
  as sacrebleu's) and ``get_signature``, and ``BLEU.compute_bleu`` on given statistics.
- ``BLEUScore`` results with ``.score`` (0..100), ``.counts``, ``.totals``, ``.precisions`` (in
  percent), ``.bp``, ``.sys_len``, ``.ref_len`` and sacrebleu's ``format``.

Everything is counted and scored by exactbleu's one core, under the ``"sacrebleu"`` preset.
"""

import json
import os
from typing import List, Optional, Sequence

from . import api
from .inputs import as_list, check_inputs, check_segment
from .options import resolve_settings, signature
from .scoring import SMOOTH_DEFAULTS, scored
from .significance import paired_test_statistics
from .sufficient_statistics import Sums
from .tokenizers import TOKENIZER_OF_LANGUAGE, TOKENIZERS

MAX_NGRAM_ORDER = 4


class BLEUScore:
    """A BLEU score as sacrebleu's ``BLEUScore`` holds it: the score and precisions in percent, the
    matched and total n-grams per order (with add-k's k added, as sacrebleu reports them), the
    brevity penalty and the lengths."""

    def __init__(self, score: float, counts: List, totals: List, precisions: List[float], bp: float,
                 sys_len: int, ref_len: int):
        self.name, self.score = "BLEU", score
        self.counts, self.totals, self.precisions = counts, totals, precisions
        self.bp, self.sys_len, self.ref_len = bp, sys_len, ref_len
        self.ratio = sys_len / ref_len if ref_len else 0
        self.prec_str = "/".join(f"{p:.1f}" for p in precisions)
        self._mean, self._ci = -1.0, -1.0  # a bootstrap estimate, when corpus_score asks for one
        self._verbose = (f"{self.prec_str} (BP = {bp:.3f} ratio = {self.ratio:.3f} hyp_len = {sys_len:d} "
                         f"ref_len = {ref_len:d})")

    def format(self, width: int = 2, score_only: bool = False, signature: str = "", is_json: bool = False) -> str:
        """The score as sacrebleu prints it: alone, on a line, or as JSON."""
        shown = f"{self.score:.{width}f}"
        fields = {"name": self.name, "score": float(shown), "signature": signature}
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
            fields.update(field.split(":", 1) for field in signature.split("|") if signature)
            return json.dumps(fields, indent=1, ensure_ascii=False)
        return f"{line} {self._verbose}"

    def __repr__(self) -> str:
        return self.format()


class Signature:
    """A score's settings as sacrebleu's signature names them (``format(short=True)``: its short
    names); exactbleu adds a field wherever the settings depart from sacrebleu's conventions."""

    def __init__(self, settings, nrefs, test=None):
        self._settings, self._nrefs, self._test = settings, nrefs, test

    def format(self, short: bool = False) -> str:
        return signature(self._settings, self._nrefs, self._test, short=short)

    def __str__(self) -> str:
        return self.format()

    __repr__ = __str__


class BLEU:
    """sacrebleu's ``BLEU`` metric: the same arguments, methods and numbers."""

    SMOOTH_DEFAULTS = dict(SMOOTH_DEFAULTS)
    TOKENIZERS = TOKENIZERS.keys()
    TOKENIZER_DEFAULT = "13a"

    def __init__(self, lowercase: bool = False, force: bool = False, tokenize: Optional[str] = None,
                 smooth_method: str = "exp", smooth_value: Optional[float] = None,
                 max_ngram_order: int = MAX_NGRAM_ORDER, effective_order: bool = False, trg_lang: str = "",
                 references: Optional[Sequence[Sequence[Optional[str]]]] = None):
        if smooth_method not in SMOOTH_DEFAULTS:
            raise ValueError(f"smooth_method must be one of {list(SMOOTH_DEFAULTS)} (sacrebleu's), got "
                             f"{smooth_method!r:.80}")
        if tokenize is None:  # sacrebleu's choice by target language
            tokenize = TOKENIZER_OF_LANGUAGE.get(trg_lang, self.TOKENIZER_DEFAULT)
        self.lowercase, self.smooth_method, self.smooth_value = lowercase, smooth_method, smooth_value
        self.max_ngram_order, self.effective_order, self.trg_lang = max_ngram_order, effective_order, trg_lang
        self._force = force  # accepted: exactbleu never warns about tokenized input
        # effective_order is given, so the preset's per-sentence rule never applies: as sacrebleu's.
        self._settings = resolve_settings("sacrebleu", tokenizer=tokenize, lowercase=lowercase,
                                          smooth_method=smooth_method, smooth_value=_value_of(smooth_method, smooth_value),
                                          max_order=max_ngram_order, effective_order=effective_order)
        self._cache = api.ReferenceCache()
        self._references = None
        self.num_refs = None
        self.n_bootstrap = self.seed = None
        if references is not None:
            self._references = _per_segment(references, None)

    @staticmethod
    def compute_bleu(correct: List[int], total: List[int], sys_len: int, ref_len: int, smooth_method: str = "none",
                     smooth_value: Optional[float] = None, effective_order: bool = False,
                     max_ngram_order: int = MAX_NGRAM_ORDER) -> BLEUScore:
        """The score of given statistics: matched and total n-grams per order, and the lengths."""
        settings = resolve_settings("sacrebleu", smooth_method=smooth_method,
                                    smooth_value=_value_of(smooth_method, smooth_value),
                                    effective_order=effective_order, max_order=max_ngram_order)
        if len(correct) != max_ngram_order or len(total) != max_ngram_order:
            raise ValueError(f"correct and total must hold max_ngram_order={max_ngram_order} counts each, got "
                             f"{len(correct)} and {len(total)}")
        return _score(Sums(sys_len, ref_len, list(correct), list(total), []), settings)

    def corpus_score(self, hypotheses: Sequence[str], references: Optional[Sequence[Sequence[Optional[str]]]],
                     n_bootstrap: int = 1) -> BLEUScore:
        """Corpus BLEU of the hypotheses against reference streams (None: those given to ``BLEU``);
        with ``n_bootstrap`` > 1, sacrebleu's bootstrap mean and 95% interval too."""
        hypotheses = as_list(hypotheses, "hypotheses")
        if references is None:
            if self._references is None:
                raise ValueError("references is None and BLEU(references=...) was not given any: pass the "
                                 "reference streams")
            per_segment = self._references
            if len(per_segment) != len(hypotheses):
                raise ValueError(f"the references given to BLEU have {len(per_segment)} segments but hypotheses has "
                                 f"{len(hypotheses)}")
        else:
            per_segment = _per_segment(references, len(hypotheses))
        predictions, checked, _ = check_inputs(hypotheses, per_segment)
        counted = api.count_statistics(predictions, checked, self._settings, api.Counting(self._cache))
        counts = set(map(len, per_segment))
        self.num_refs = counts.pop() if len(counts) == 1 else -1
        result = _score(counted.sums(), self._settings)
        if n_bootstrap > 1:
            seed = os.environ.get("SACREBLEU_SEED", "12345")
            self.n_bootstrap, self.seed = n_bootstrap, None if seed.lower() == "none" else int(seed)
            estimate = paired_test_statistics({"system": counted}, "system", self._settings, "bootstrap", n_bootstrap,
                                              self.seed, percent=True, exact_mean=True)["system"]
            result._mean, result._ci = estimate["mean"], estimate["ci"]
            self.seed = seed.lower()
        return result

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> BLEUScore:
        """BLEU of one hypothesis against its references (a sequence of strings)."""
        if isinstance(references, str):
            raise TypeError(f"references must be a sequence of reference strings, got a string: {references!r:.80}; "
                            f"put it in a list")
        hypothesis, references = check_segment(hypothesis, references)
        counted = api.count_statistics([hypothesis], [references], self._settings, api.Counting())
        self.num_refs = len(references)
        return _score(counted.sums(), self._settings)

    def get_signature(self) -> Signature:
        """The signature of the last score; sacrebleu's needs a score first, for the number of references."""
        if self.num_refs is None:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        test = ("bs", self.n_bootstrap) if self.n_bootstrap else None
        nrefs = "var" if self.num_refs == -1 else self.num_refs
        return Signature(self._settings, nrefs, test)


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[Optional[str]]], smooth_method: str = "exp",
                smooth_value: Optional[float] = None, force: bool = False, lowercase: bool = False,
                tokenize: str = BLEU.TOKENIZER_DEFAULT, use_effective_order: bool = False) -> BLEUScore:
    """sacrebleu's ``corpus_bleu``: ``references`` is a list of reference streams, one per
    reference set, each holding a reference (or None) for every hypothesis."""
    return BLEU(lowercase=lowercase, force=force, tokenize=tokenize, smooth_method=smooth_method,
                smooth_value=smooth_value, effective_order=use_effective_order).corpus_score(hypotheses, references)


def raw_corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[Optional[str]]],
                    smooth_value: Optional[float] = SMOOTH_DEFAULTS["floor"]) -> BLEUScore:
    """sacrebleu's ``raw_corpus_bleu``: no tokenizing, ``floor`` smoothing, effective order."""
    return corpus_bleu(hypotheses, references, smooth_method="floor", smooth_value=smooth_value, force=True,
                       tokenize="none", use_effective_order=True)


def sentence_bleu(hypothesis: str, references: Sequence[str], smooth_method: str = "exp",
                  smooth_value: Optional[float] = None, lowercase: bool = False,
                  tokenize: str = BLEU.TOKENIZER_DEFAULT, use_effective_order: bool = True) -> BLEUScore:
    """sacrebleu's ``sentence_bleu``: one hypothesis against its references, with effective order."""
    return BLEU(lowercase=lowercase, tokenize=tokenize, smooth_method=smooth_method, smooth_value=smooth_value,
                effective_order=use_effective_order).sentence_score(hypothesis, references)


def _value_of(smooth_method: str, smooth_value: Optional[float]) -> Optional[float]:
    """sacrebleu takes a smooth_value with any method and leaves it unused for "none" and "exp",
    which have no value; the drop-in does the same (exactbleu's own options refuse it there)."""
    return smooth_value if SMOOTH_DEFAULTS.get(smooth_method) is not None else None


def _per_segment(streams, hypotheses: Optional[int]) -> List[List[str]]:
    """sacrebleu's reference streams as a list of references per segment, dropping the Nones; a
    stream must hold an entry for every hypothesis (sacrebleu's zip would cut the corpus short)."""
    streams = as_list(streams, "references")
    if not streams:
        raise ValueError("references is empty: give at least one reference stream")
    for number, stream in enumerate(streams):
        if isinstance(stream, str):
            raise TypeError(f"references must be a list of reference streams (one list per reference set, as "
                            f"sacrebleu takes them), but references[{number}] is a string: {stream!r:.80}; for "
                            f"one reference set, write [references]")
        streams[number] = stream = as_list(stream, f"references[{number}]")
        expected = len(streams[0]) if hypotheses is None else hypotheses
        if len(stream) != expected:
            raise ValueError(f"references[{number}] holds {len(stream)} references but there are {expected} "
                             f"hypotheses: sacrebleu's layout is one stream per reference set, each with an entry "
                             f"(or None) for every hypothesis; for a list of references per hypothesis, use "
                             f"exactbleu.corpus_bleu")
    per_segment = [[reference for reference in segment if reference is not None] for segment in zip(*streams)]
    for index, segment in enumerate(per_segment):
        if not segment:
            raise ValueError(f"hypothesis {index} has no reference: every stream holds None there")
    return per_segment


def _score(sums: Sums, settings) -> BLEUScore:
    """A BLEUScore of summed statistics, by the one arithmetic (sacrebleu's, here)."""
    result = scored(sums, settings)
    counts, totals = list(sums.matches), list(sums.totals)
    value = settings.scoring.smooth_value
    if settings.scoring.smooth_method == "add-k" and any(counts):
        # sacrebleu adds k to the counts it reports from the second order on.
        counts[1:] = [count + value for count in counts[1:]]
        totals[1:] = [total + value for total in totals[1:]]
    return BLEUScore(result.value, counts, totals, result.precisions, result.brevity_penalty,
                     int(sums.prediction_length), int(sums.reference_length))
