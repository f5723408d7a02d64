"""Which BLEU is this? Every convention's score on the same data at once, and the conventions that
reproduce a reported score.

The same outputs and references give numbers points apart by convention: the tokenizer and
lowercasing; the smoothing, and with it the arithmetic (HF's, sacrebleu's or NLTK's); which reference
length counts; which references are kept; corpus BLEU or the mean of sentence BLEUs; a 0-1 or a 0-100
scale. Each tokenization is counted once, through the most orders any smoothing reads; every other
dimension is arithmetic on those counts: fewer orders, the other reference length and the other
right-strip (where no text ends in a space) are the same counts, with the settings that name them.
Token ids are tokens already: every dimension but the tokenizer and the case.
"""

import contextlib
import dataclasses
import math
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np

from .api import scored, scored_rows
from .counting.corpus import count
from .counting.engine import reference_lengths
from .counting.ngrams import tokens_of_text
from .dispatch import corpus_statistics
from .inputs import (
    Corpus,
    FairseqUnreadableError,
    TokenIds,
    corpus_of,
    reference_counts,
    starts_of,
    with_references_kept,
)
from .options import (
    COCO,
    HF,
    NLTK,
    OPTIONS,
    PRESETS,
    REF_LENGTHS,
    SACREBLEU,
    SMOOTHING,
    Settings,
    TokenizeSettings,
    arithmetic_of,
    counted_orders,
    counted_with,
    for_token_ids,
    resolve_settings,
    signature,
    tools_for,
)
from .scoring import rows_scored_once
from .sufficient_statistics import CountedWith, Statistics
from .tokenizers import TOKENIZERS, tokenizer_for_language

AGGREGATES = ("corpus", "sentence mean")
# The arithmetics, each with the preset that states it and its scale (smoothing: ``_smoothings``).
ARITHMETICS = {HF: ("default", 1), SACREBLEU: ("sacrebleu", 100), NLTK: ("nltk", 1), COCO: ("coco", 1)}
Scoring = TypeVar("Scoring")
_ANY_TOKENIZING = TokenizeSettings()  # neither scoring nor counting token ids reads how they were tokenized


class Convention(NamedTuple):
    """One way of computing BLEU and its ``score`` on ``scale`` (1 or 100), as ``corpus_bleu(predictions,
    references, preset, **options)`` gives it, or with ``aggregate`` "sentence mean" the mean of
    ``sentence_scores(...)``; ``departures``: how far it is from its preset's own number (each option
    given, a mean of sentences, another scale), which ranks common conventions first; ``arithmetic``
    scores it; ``percent`` is its score on 0..100, whatever its ``scale``."""

    score: float
    preset: str
    options: dict[str, object]
    aggregate: str
    scale: int
    signature: str
    departures: int
    arithmetic: str
    percent: float


class Identified(NamedTuple):
    """What reproduces a reported score: ``matches``, the conventions whose score, written with
    ``decimals`` decimals as ``reported`` is, is ``reported``, the common ones first; ``nearest``,
    the closest conventions with how far each is off (on its own scale); and ``conventions``,
    every one compared."""

    reported: str
    decimals: int
    matches: list[Convention]
    nearest: list[tuple[Convention, float]]
    conventions: list[Convention]


def conventions(predictions: Sequence[str], references: Sequence[Any], *, language: str | None = None,
                tokenizers: Sequence[str] | None = None) -> list[Convention]:
    """Every convention's score on this data, the common conventions first.

    Args:
        predictions, references: text or token ids (lists or arrays), as ``corpus_bleu`` takes them;
            token ids are tokens already: no tokenizer, case or script applies, every other choice does.
        language: the target language: it adds sacrebleu's tokenizer for it (zh, ja-mecab, ko-mecab).
        tokenizers: the tokenizers to try instead of those that apply (``"13a"``, ``"intl"``, ``"char"``,
            ``"none"``, the language's, each SentencePiece one whose model is here; ``"moses"`` if named).

    Returns one ``Convention`` per way of computing BLEU: a list to sort and filter.
    """
    corpus = corpus_of(predictions, references)
    if corpus.kind == "tensor":
        raise TypeError("conventions takes token ids as lists or arrays on the host, not tensors: pass tensor.tolist()")
    ids = corpus.kind == "ids"
    if ids and (language is not None or tokenizers is not None):
        raise ValueError("the predictions are token ids, which are tokens already: leave out language and tokenizers")
    chosen = [None] if ids else convention_tokenizers(language, tokenizers)
    counter = _Counter(corpus)
    groups = counter.counts
    keeps = ["all"] + (["first"] if max(groups) > 1 else []) + (["fewest"] if len(set(groups)) > 1 else [])
    rows = []
    with rows_scored_once():  # the conventions share most segments' rows
        for arithmetic in ARITHMETICS:
            preset, scale = ARITHMETICS[arithmetic]
            for smoothing in _smoothings(arithmetic):
                for tokenizer in chosen:
                    for lowercase in (False,) if ids else (False, True):
                        for ref_length in REF_LENGTHS[:2]:  # torchmetrics' tie rule: its presets
                            for keep in keeps:
                                tokens = {} if ids else {"tokenizer": tokenizer, "lowercase": lowercase}
                                options = {**tokens, "ref_length": ref_length, "keep_references": keep, **smoothing}
                                rows += _scored(counter, preset, scale, options)
        if tokenizers is None:  # each tool as it runs, with its -lc (or t2t's case_sensitive)
            for script, options in tools_for(language, max(groups), ids):
                for lowercase in (False, True) if script.lowercases else (False,):
                    given = {} if ids else {**options, "lowercase": lowercase}
                    with contextlib.suppress(FairseqUnreadableError):  # fairseq has none for an empty segment: no row
                        rows += _scored(counter, script.name, script.scale or 100, given)
    # The fewest departures first; among as many, what a named tool prints (a preset's own number, or a
    # script's with its flags) before a combination of options that no tool uses.
    return sorted(rows, key=lambda row: (row.departures, row.departures > 0 and not PRESETS[row.preset].script))


def identify(predictions: Sequence[str], references: Sequence[Any], reported: float | str, *,
             language: str | None = None, tokenizers: Sequence[str] | None = None, nearest: int = 5) -> Identified:
    """The conventions that reproduce a reported score on this data.

    Args:
        reported: the score as written: a string tells its own rounding ("27.3", "0.273", "27.30");
            a number is read as its shortest decimal form (27.3 as "27.3").
        nearest: how many of the closest conventions to give as well, matching or not.
        predictions, references, language, tokenizers: as ``conventions`` takes them.

    Returns ``Identified``: the conventions that round to the reported number, common ones first, and the nearest.
    """
    written, decimals = _written(reported)
    if not isinstance(nearest, int) or isinstance(nearest, bool) or nearest < 0:
        raise ValueError(f"nearest must be a number of conventions, 0 or more, got {nearest!r:.80}")
    table = conventions(predictions, references, language=language, tokenizers=tokenizers)
    matches = [row for row in table if f"{row.score:.{decimals}f}" == written]
    value = float(written)
    distance = sorted(table, key=lambda row: (abs(row.score - value), row.departures))
    return Identified(written, decimals, matches, [(row, row.score - value) for row in distance[:nearest]], table)


def _written(reported: float | str) -> tuple[str, int]:
    """The reported score as written, and its number of decimals."""
    if isinstance(reported, bool) or not isinstance(reported, (int, float, str)):
        raise TypeError(f"reported must be a score, as a number or as written (such as '27.3'), got {reported!r:.80}")
    text = reported.strip() if isinstance(reported, str) else repr(float(reported))
    try:
        number = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"reported must be a score such as '27.3' or '0.273', got {reported!r:.80}") from None
    if not number.is_finite() or number < 0 or "e" in text.lower():
        raise ValueError(f"reported must be a score of 0 or more in decimals, such as '27.3', got {reported!r:.80}")
    decimals = max(0, -int(number.as_tuple().exponent))
    return f"{number:.{decimals}f}", decimals


def convention_tokenizers(language: str | None = None, tokenizers: Sequence[str] | None = None) -> list[str]:
    """The tokenizers that ``conventions`` tries for these arguments (see there), each checked."""
    if language is not None and not isinstance(language, str):
        raise TypeError(f"language must be a language code such as 'de' or 'zh', or None; got {language!r:.80}")
    if tokenizers is not None:
        if isinstance(tokenizers, str) or not tokenizers:
            raise TypeError(f"tokenizers must be a list of tokenizer names, got {tokenizers!r:.80}")
        chosen = [TOKENIZERS.choice(name).name for name in tokenizers]
        for name in chosen:  # a missing package is a MissingExtra; a model file, the error below
            TOKENIZERS[name].check_installed()
        unavailable = {name: TOKENIZERS[name].missing() for name in chosen if TOKENIZERS[name].missing()}
        if unavailable:
            raise ValueError(f"tokenizers {sorted(unavailable)} cannot run here: {unavailable}")
        return list(dict.fromkeys(chosen))
    # Those every text takes (no package, no language); the language's; those whose model file is here
    # (SentencePiece's). A script's own split is tried as its script runs, not in every combination.
    chosen = [name for name, tokenizer in TOKENIZERS.items()
              if tokenizer.needs is None and not tokenizer.languages and not tokenizer.script]
    if language:
        chosen.append(tokenizer_for_language(language))
    chosen += [name for name, tokenizer in TOKENIZERS.items() if tokenizer.available and not tokenizer.missing()]
    # One name per tokenization: an old name counts as the one it stands for.
    names: dict[str, str] = {}
    for name in chosen:
        names.setdefault(counted_with(resolve_settings("sacrebleu", tokenizer=name)).tokenizer, name)
    return list(names.values())


def _smoothings(arithmetic: str) -> list[dict[str, object]]:
    """The smoothing options of an arithmetic: HF's flag; the methods the registry declares for the others."""
    if arithmetic == HF:
        return [{"smooth": False}, {"smooth": True}]
    return [{"smooth_method": method.name} for method in SMOOTHING.values() if method.arithmetic == arithmetic]


class _Counter:
    """Each tokenization counted once, through the most orders; statistics under any settings read
    from those counts."""

    def __init__(self, corpus: Corpus):
        self.corpus = corpus
        ids = corpus.kind == "ids"  # tokens already: every tokenizing is this one
        self.texts = [] if ids else [*corpus.predictions, *(one for group in corpus.references for one in group)]
        self.strip_changes = any(text != text.rstrip() for text in self.texts)
        self.counts = reference_counts(corpus)
        self.tokens: dict[Any, Corpus] = {}
        self.counted: dict[Any, tuple[Statistics, TokenIds]] = {}
        self.statistics: dict[CountedWith, Statistics] = {}
        self.scored: dict[tuple[Any, ...], list[tuple[Any, Any]]] = {}
        # As many orders as any smoothing reads (declared: a method whose arithmetic needs a package
        # that is not here resolves to an error, and is not tried).
        self.orders = max(counted_orders(resolve_settings("nltk")), *(method.counts_through for method in
                                                                       SMOOTHING.values()))

    def __call__(self, settings: Settings) -> Statistics:
        named = counted_with(settings)
        found = self.statistics.get(named)
        if found is None:
            found = self.statistics[named] = self._relabelled(settings, named)
        return found

    def _relabelled(self, settings: Settings, named: CountedWith) -> Statistics:
        tokenize = settings.tokenize if self.strip_changes else dataclasses.replace(settings.tokenize, rstrip=True)
        if settings.statistics.keep_references == "best" or tokenize.id_rules:  # HELM's best; ids as fairseq reads
            alone = settings if tokenize.id_rules else dataclasses.replace(settings, tokenize=_ANY_TOKENIZING)
            counted = corpus_statistics(self._token_ids(tokenize), alone)  # fairseq's may refuse them: no row
            return Statistics(counted.array, counted.orders, counted.references, named)
        key = (tokenize, settings.statistics.keep_references)
        if key not in self.counted:
            whole = self._token_ids(tokenize)
            kept = with_references_kept(whole, settings.statistics.keep_references)
            most = dataclasses.replace(settings, statistics=dataclasses.replace(
                settings.statistics, max_order=self.orders, ref_length="closest"))
            self.counted[key] = count(kept.predictions, kept.references, most, counted_with(most)), kept.references
        counts, references = self.counted[key]
        length, reference, groups = counts.prediction_length, counts.reference_length, references.groups
        if named.ref_length != "closest":
            assert groups is not None  # references, grouped by prediction
            reference = reference_lengths(references.lengths, starts_of(groups),
                                          np.repeat(np.arange(len(groups)), groups), length, named.ref_length)
        return Statistics.of_lengths(length, reference, counts.matches[:, :named.orders], counts.references, named)

    def scores(self, function: Callable[[Statistics, Settings], Scoring], statistics: Statistics, settings: Settings,
               arithmetic: str) -> Scoring:
        """``function(statistics, settings)``, once for equal statistics scored alike: with one
        reference a line, the closest reference length is the shortest, and every arithmetic but
        HF's (which reads the rule) scores the same rows under both."""
        alike = dataclasses.replace(settings.statistics, keep_references="all",
                                    ref_length=settings.statistics.ref_length if arithmetic == HF else "closest")
        rows = statistics.array  # held by ``self.statistics`` already: keeping it here costs nothing
        key = (function, arithmetic, dataclasses.replace(settings, tokenize=_ANY_TOKENIZING, statistics=alike),
               rows.shape, hash(rows.tobytes()))
        for seen, result in self.scored.setdefault(key, []):
            if np.array_equal(seen, rows):
                return cast(Scoring, result)
        result = function(statistics, settings)
        self.scored[key].append((rows, result))
        return result

    def _token_ids(self, tokenize: Any) -> Corpus:
        """The corpus as token ids under these tokenizing settings, tokenized once."""
        if self.corpus.kind == "ids":
            return self.corpus
        if tokenize not in self.tokens:
            tokens = tokens_of_text(self.texts, tokenize)
            size = len(self.corpus.predictions)
            split = int(tokens.lengths[:size].sum())
            self.tokens[tokenize] = Corpus(TokenIds(tokens.ids[:split], tokens.lengths[:size]),
                                           TokenIds(tokens.ids[split:], tokens.lengths[size:],
                                                    np.asarray(self.counts, dtype=np.int64)), "ids")
        return self.tokens[tokenize]


def _scored(counter: _Counter, preset: str, scale: int, options: dict[str, object]) -> list[Convention]:
    """A convention's rows under a preset on ``scale``: its corpus score and (where each sentence can
    be scored alone, and the preset is no script's) its mean of sentence scores, on both scales."""
    settings = resolve_settings(preset, None, **options)
    settings = for_token_ids(settings) if counter.corpus.kind == "ids" else settings
    arithmetic = arithmetic_of(settings.scoring.smooth_method)
    given = _options_over(preset, options)
    statistics = counter(settings)
    kept = list(statistics.references or ())  # the counter's statistics always say how many each has
    nrefs: int | str = kept[0] if len(set(kept)) == 1 else "var"
    corpus = counter.scores(scored, statistics, settings, arithmetic)
    rows = [(AGGREGATES[0], corpus.bleu, corpus.percent(), settings)]
    script = PRESETS[preset].script
    if settings.statistics.keep_references != "fewest" and not script:  # the whole corpus decides which count
        sentences = counter.scores(scored_rows, statistics, settings, arithmetic)
        rows.append((AGGREGATES[1], float(np.mean(sentences.bleu)), float(np.mean(sentences.percents())),
                     settings.per_sentence()))
    named, over = _named(preset, given)
    made = []
    for aggregate, bleu, percent, used in rows:
        for on, score in ((1, bleu), (100, percent)):
            name = _on_scale(named, on)
            own = PRESETS[name].scale or scale
            departures = len(over) + (aggregate != AGGREGATES[0]) + (on != own and not script)
            made.append(Convention(score, name, over, aggregate, on, signature(used, nrefs), departures, arithmetic,
                                   percent))
    return [row for row in made if math.isfinite(row.score)]


def _on_scale(preset: str, scale: int) -> str:
    """The preset of this one's options reported on ``scale`` (VLMEvalKit's, nlg-eval's), or this one."""
    return next((one.name for one in PRESETS.values() if one.options == PRESETS[preset].options and one.scale == scale),
                preset)


def _options_over(preset: str, options: dict[str, object]) -> dict[str, object]:
    """The options that depart from the preset's (and from the defaults, where it sets none)."""
    declared = PRESETS[preset].options
    return {name: value for name, value in options.items() if value != declared.get(name, OPTIONS[name].default)}


def _named(preset: str, given: dict[str, object]) -> tuple[str, dict[str, object]]:
    """The preset that states a convention with the fewest options over it (a harness's, for its reference rule)."""
    best = preset, given
    for other in PRESETS.values():
        extra = {name: value for name, value in other.options.items() if PRESETS[preset].options.get(name) != value}
        if other.name != preset and extra and all(given.get(name) == value for name, value in extra.items()):
            rest = {name: value for name, value in given.items() if name not in extra}
            if len(rest) < len(best[1]):
                best = other.name, rest
    return best
