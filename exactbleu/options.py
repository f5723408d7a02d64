"""Options: every option is declared once, here, with its stage, default, help and command-line
flag. The settings classes, the presets, the signature, the reference cache key, the command
line's flags, the Space's choices and the README's options table all come from ``DECLARED``.

``resolve_settings`` checks options once, at the boundary, and returns an immutable ``Settings``
whose groups are the stages an option changes: ``tokenize`` (all that the references' statistics
depend on, with the order), ``statistics``, ``scoring`` and ``output``.
"""

import collections.abc
import dataclasses
import itertools
import math
import numbers
from typing import TYPE_CHECKING, Dict, Optional, Tuple

from .limits import MAX_SAMPLES
from .smoothing import NLTK_FIFTH_ORDER, NLTK_SMOOTHING, SMOOTHING
from .tokenizers import MECAB, SPM_MODELS, TOKENIZERS, mecab, rstripped_by_default, signature_name, spm
from .version import __version__

if TYPE_CHECKING:  # numpy and the counting layer load only when something is counted or scored
    from .sufficient_statistics import CountedWith

REF_LENGTHS = ("shortest", "closest")
# BLEU is used with orders 1 to 4, character BLEU with up to about 10; a bound keeps an absurd
# order (10**9) from allocating or looping without end.
MAX_ORDER = 20


@dataclasses.dataclass(frozen=True)
class Option:
    """One option: its name, the stage it changes, its default, what it chooses (the README's
    words), and its command-line flags with argparse's keywords (none: not on the command line)."""

    name: str
    stage: str
    default: object
    help: str
    flags: Tuple[str, ...] = ()
    cli: Dict[str, object] = dataclasses.field(default_factory=dict)
    shown_default: Optional[str] = None  # the README's default, where the value alone would mislead
    none_is_a_choice: bool = False  # an explicit None means something other than "the default"
    registry: Optional[Dict[str, object]] = None  # where the choices are declared, read when asked

    @property
    def choices(self) -> Optional[list]:
        """The choices, as they stand now: a registry's names, or the declared list."""
        return list(self.registry) if self.registry is not None else self.cli.get("choices")

    def argparse_keywords(self) -> Dict[str, object]:
        """argparse's keywords for the option's flag, with the choices as they stand now."""
        return {**self.cli, "choices": self.choices} if self.choices is not None else dict(self.cli)


DECLARED = (
    Option("tokenizer", "tokenize", "13a", 'a tokenizer of the tokenizers table (`exactbleu.tokenizers.TOKENIZERS`): HF\'s and sacrebleu\'s, sacremoses\', MeCab\'s for Korean and Japanese, SentencePiece\'s for spBLEU, each token for token; or any callable `str -> list[str]`',
           ("-tok", "--tokenize"), registry=TOKENIZERS),
    Option("lang", "tokenize", "en", 'the language of the `"moses"` tokenizer', ("--lang",)),
    Option("spm_model", "tokenize", None, 'the model file of `"flores101"`/`"flores200"`: by default the file sacrebleu keeps in `$SACREBLEU/models` (else `~/.sacrebleu/models`), `sacrebleu_tokenizer_spm.model` or `flores200sacrebleuspm`; nothing is downloaded, and a missing file gets a message saying where to put it',
           ("--spm-model",), {"metavar": "FILE"}, shown_default="sacrebleu's"),
    Option("lowercase", "tokenize", False, 'lowercase before tokenizing, as sacrebleu does',
           ("-lc", "--lowercase"), {"action": "store_const", "const": True}),
    Option("rstrip", "tokenize", None, 'right-strip each segment first: on for sacrebleu\'s tokenizers (`intl`, `zh`, `char`, `none`) and in the `"sacrebleu"` preset, off for HF\'s `13a`, `moses` and callables', shown_default="by tokenizer"),
    Option("max_order", "statistics", 4, 'the largest n-gram order, from 1 to 20 (`MAX_ORDER`)', ("--max-order",), {"type": int}),
    Option("ref_length", "statistics", "shortest", '`"shortest"` (HF, tensorflow/nmt) or `"closest"` (Papineni et al., sacrebleu, NLTK; a tie goes to the shorter)',
           ("--ref-length",), {"choices": REF_LENGTHS}),
    Option("weights", "scoring", None, "n-gram weights as in NLTK (a list, a tuple, a 1-D numpy array); their number sets the order; finite, non-negative, not all 0. A list of up to 1000 weight sets, as NLTK's `corpus_bleu` takes, gives one score per set: `bleu` and `sentence_bleu` become lists",
           ("--weights",), {"type": float, "nargs": "+", "metavar": "W"}),
    Option("smooth", "scoring", False, "HF's add-one at every order (Lin & Och, 2004)", ("--smooth",), {"action": "store_const", "const": True}),
    Option("smooth_method", "scoring", None, '`None` (HF\'s arithmetic), or a method of the smoothing table (`exactbleu.scoring.SMOOTHING`), which chooses its arithmetic: sacrebleu\'s `"none"`, `"floor"`, `"add-k"`, `"exp"` (`bleu` = score / 100), or NLTK\'s `SmoothingFunction` `"method0"` (no smoothing, the `"nltk"` preset\'s) … `"method7"` (methods 5 and 7 smooth with the 5-gram precision at any order, so the statistics count through order 5 for them)',
           ("-s", "--smooth-method"), registry=SMOOTHING, none_is_a_choice=True),
    Option("smooth_value", "scoring", None, 'for `"floor"` (default 0.1), `"add-k"` (default 1) and `"method1"` (NLTK\'s epsilon, default 0.1)', ("-sv", "--smooth-value"), {"type": float}),
    Option("effective_order", "scoring", None, "sacrebleu's: average only the orders that have n-grams. Off for a corpus score; for a per-sentence score (`sentence_bleu`, `sentence_level`, `explain`, `-sl`) on in the `\"sacrebleu\"` preset, as sacrebleu's `sentence_bleu` has it, unless given",
           ("--effective-order",), {"action": "store_const", "const": True}, shown_default="by level"),
    Option("sentence_level", "output", False, 'adds `sentence_bleu`: one score per prediction, a per-sentence score under the same settings (see `effective_order`)'),
    Option("signature", "output", False, 'adds `signature`, naming every setting that can change the score'),
    Option("n_bootstrap", "output", 0, 'adds `bleu_ci`: the 95% bootstrap interval, resampled as sacrebleu does; at '
           'most 100,000 (`MAX_SAMPLES`)',
           ("--n-bootstrap",), {"type": int, "metavar": "N"}),
    Option("bootstrap_seed", "output", 12345, "the seed of `n_bootstrap`'s resampling, and of the paired tests",
           ("--bootstrap-seed",), {"type": int}, none_is_a_choice=True),
)
OPTION = {option.name: option for option in DECLARED}
OPTIONS = list(OPTION)
DEFAULTS = {option.name: option.default for option in DECLARED}
STAGE_OF = {option.name: option.stage for option in DECLARED}
_NONE_MEANS_SOMETHING = {option.name for option in DECLARED if option.none_is_a_choice}

_STAGE_DOCS = {
    "tokenize": "How a segment becomes tokens: all that the references' statistics depend on, with the order.",
    "statistics": "What each statistics row counts, given the tokens.",
    "scoring": "How summed statistics become a score; ``sentence_effective_order`` is the effective order of a "
               "per-sentence score (see ``resolve_settings``).",
    "output": "Which keys the result holds beyond HF's six.",
}


# Settings derived from the options, beside them in their stage.
_DERIVED = {"scoring": [("sentence_effective_order", object, dataclasses.field(default=False))]}


def _stage_class(stage):
    fields = [(option.name, object, dataclasses.field(default=option.default)) for option in DECLARED
              if option.stage == stage] + _DERIVED.get(stage, [])
    kind = dataclasses.make_dataclass(f"{stage.capitalize()}Settings", fields, frozen=True)
    kind.__module__, kind.__doc__ = __name__, _STAGE_DOCS[stage]  # so that settings pickle by reference
    return kind


TokenizeSettings = _stage_class("tokenize")
StatisticsSettings = _stage_class("statistics")
ScoringSettings = _stage_class("scoring")
OutputSettings = _stage_class("output")


@dataclasses.dataclass(frozen=True)
class Settings:
    """Every option, checked (see ``resolve_settings``), in the stage it changes."""

    tokenize: TokenizeSettings = TokenizeSettings()
    statistics: StatisticsSettings = StatisticsSettings()
    scoring: ScoringSettings = ScoringSettings()
    output: OutputSettings = OutputSettings()


_STAGES = {"tokenize": TokenizeSettings, "statistics": StatisticsSettings, "scoring": ScoringSettings,
           "output": OutputSettings}
# evaluate config names: `evaluate.load(path, "sacrebleu")`. Explicit arguments override these.
PRESETS = {
    "default": {},
    "hf": {},  # the same as "default": Hugging Face's bleu, the command line's name for it
    # sacrebleu's BLEU().corpus_score defaults, right-strip included.
    "sacrebleu": {"tokenizer": "13a", "rstrip": True, "ref_length": "closest", "smooth_method": "exp"},
    # NLTK's corpus_bleu on whitespace-split tokens, unsmoothed, in NLTK's own arithmetic.
    "nltk": {"tokenizer": "none", "ref_length": "closest", "smooth_method": "method0"},
}


# The options that say how text becomes tokens: token ids are tokens already.
_TOKENIZING = ("tokenizer", "lang", "spm_model", "rstrip")


def for_token_ids(settings: Settings, options: Dict[str, object]) -> Settings:
    """The settings of token ids: those of the same ids written as words under ``tokenizer="none"``
    (a preset's tokenizer does not apply). A tokenizing option given for them is an error."""
    given = sorted(name for name in _TOKENIZING if options.get(name) is not None)
    if options.get("lowercase"):
        given.append("lowercase")
    if given:
        raise ValueError(f"{given} apply to text, but the predictions are token ids, which are tokens already: "
                         f"leave them out")
    return dataclasses.replace(settings, tokenize=TokenizeSettings(tokenizer="none", rstrip=True))


def check_no_output_options(options: Dict[str, object], function: str) -> None:
    """A ValueError when a function that returns no corpus result is given the options that shape
    one (``sentence_level``, ``signature``, ``n_bootstrap``, ``bootstrap_seed``): they would be
    ignored without a word."""
    given = sorted(name for name, value in options.items() if STAGE_OF.get(name) == "output" and value is not None)
    if given:
        raise ValueError(f"{function} does not take {given}: they shape corpus_bleu's result, and {function} "
                         f"returns none")


def counted_orders(settings: Settings) -> int:
    """How many n-gram orders the statistics count: max_order, or at least 5 for NLTK's method5
    and method7, which smooth with the 5-gram precision. The score uses max_order."""
    if settings.scoring.smooth_method in NLTK_FIFTH_ORDER:
        return max(settings.statistics.max_order, 5)
    return settings.statistics.max_order


def counted_with(settings: Settings) -> "CountedWith":
    """The settings that decide the statistics rows under these settings, as statistics carry them."""
    from . import counting

    return counting.counted_with(settings, counted_orders(settings))


def check_counted_with(counted: Optional["CountedWith"], settings: Settings) -> None:
    """A ValueError unless statistics counted with ``counted`` (None: made by hand) are what these
    settings count: scoring them under other settings would give a number that no corpus has."""
    if counted is None:
        return
    scoring = counted_with(settings)
    if counted != scoring:
        was, now = counted.difference(scoring)
        raise ValueError(f"these statistics were counted with {was}, and are scored with {now}: count and score "
                         f"with the same options (statistics(..., preset, **options), then score(..., preset, "
                         f"**options))")


def _is_bool(value) -> bool:
    """Python's bool or numpy's (numpy loads here, not when the command line starts)."""
    import numpy as np

    return isinstance(value, (bool, np.bool_))


def _check_bool(name, value):
    if not _is_bool(value):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _check_int(name, value, minimum, maximum=None):
    if (_is_bool(value) or not isinstance(value, numbers.Integral) or value < minimum
            or (maximum is not None and value > maximum)):
        kind = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        bound = f" of at most {maximum}" if maximum is not None else ""
        raise ValueError(f"{name} must be {kind}{bound}, got {value!r:.80}")
    return int(value)


def _check_number(name, value):
    if _is_bool(value) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def _is_sequence(value):
    return not isinstance(value, (str, bytes)) and hasattr(value, "__iter__") and hasattr(value, "__len__")


MAX_WEIGHT_SETS = 1000


def _weight_values(weights):
    """One weight set, or the list of weight sets, as it was given: a numpy array (float32 or
    float64) becomes the list of its values as Python floats, which is what NLTK computes with."""
    import numpy as np

    if isinstance(weights, np.ndarray):
        if weights.ndim != 1:
            raise ValueError(f"weights must be one weight set (a 1-D sequence of numbers) or a list of weight sets, "
                             f"got a {weights.ndim}-D array of shape {weights.shape}; pass several sets as a list "
                             f"of 1-D sequences, such as list(weights)")
        return weights.tolist()
    if not _is_sequence(weights) or isinstance(weights, (collections.abc.Mapping, collections.abc.Set)):
        raise ValueError(f"weights must be a sequence of numbers (or a list of weight sets), got "
                         f"{type(weights).__name__}: {weights!r:.80}")
    return weights


def _checked_weights(weights):
    """One weight set, checked, as a tuple of floats."""
    weights = _weight_values(weights)
    weights = tuple(float(_check_number("weights", w)) for w in itertools.islice(weights, MAX_ORDER + 1))
    if len(weights) > MAX_ORDER:
        raise ValueError(f"weights must hold at most {MAX_ORDER} numbers, one per order (max_order is at most {MAX_ORDER})")
    if not weights or sum(weights) == 0:
        raise ValueError(f"weights must hold at least one positive number, got {list(weights)!r}")
    return weights


def _checked_weight_sets(weights):
    """(weights, several): one weight set as a tuple of floats, or several as a tuple of them,
    as NLTK's corpus_bleu tells them apart: several when the first entry is itself a sequence."""
    import numpy as np

    weights = _weight_values(weights)
    several = len(weights) > 0 and (isinstance(weights[0], np.ndarray) or _is_sequence(weights[0]))
    if not several:
        return _checked_weights(weights), False
    if len(weights) > MAX_WEIGHT_SETS:
        raise ValueError(f"weights holds {len(weights)} weight sets; at most {MAX_WEIGHT_SETS} are scored at once")
    for number, one in enumerate(weights):
        if not (isinstance(one, np.ndarray) or _is_sequence(one)):
            raise ValueError(f"weights mixes numbers and weight sets: weights[0] is a sequence but weights[{number}] "
                             f"is {one!r:.80}; give one set of numbers, or a list of sets")
    return tuple(_checked_weights(one) for one in weights), True


def _given(options):
    """The options a caller set: unknown names are an error, and None means "not set" except
    where None is a choice."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; the options are {OPTIONS}")
    return {name: value for name, value in options.items() if value is not None or name in _NONE_MEANS_SOMETHING}


def _overlay(lower, upper):
    """Options set later (``upper``) over earlier ones. Where options choose between alternatives,
    the later choice replaces the earlier one as a whole: smooth=True or a smooth_method replaces
    the other (and a method's smooth_value), a tokenizer replaces a SentencePiece model, and
    max_order or weights replaces the other."""
    merged = {**lower, **upper}
    if upper.get("smooth") and "smooth_method" not in upper:
        merged["smooth_method"] = None
    if upper.get("smooth_method") is not None and "smooth" not in upper:
        merged.pop("smooth", None)
    if ("smooth_method" in upper or upper.get("smooth")) and "smooth_value" not in upper:
        merged.pop("smooth_value", None)
    if "tokenizer" in upper and "spm_model" not in upper:
        merged.pop("spm_model", None)
    if "max_order" in upper and "weights" not in upper:
        merged.pop("weights", None)
    if "weights" in upper and "max_order" not in upper:
        merged.pop("max_order", None)
    return merged


def resolve_settings(preset: str = "default", defaults: Optional[Dict[str, object]] = None, **options) -> Settings:
    """Check the options once, at the boundary, over the preset's and the defaults.

    Args:
        preset: a name in PRESETS (evaluate's config name).
        defaults: options that override the preset's and are overridden by ``options``: those
            given to ``evaluate.load``.
        **options: any of OPTIONS; None means the default, except where None is a choice.
    Returns:
        the ``Settings``, every value checked and every derived default filled in.
    Raises:
        ValueError or TypeError naming the option, the bad value and the valid choices.
    """
    if not options and not defaults and preset in _PRESET_SETTINGS:  # a preset's own settings, as checked before
        return _PRESET_SETTINGS[preset]
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {preset!r:.80}")
    merged = {}
    for layer in (PRESETS[preset], _given(defaults or {}), _given(options)):
        merged = _overlay(merged, layer)
    explicit_max_order = merged.get("max_order")  # checked against the weights, which also set it
    merged = {**DEFAULTS, **merged}

    tokenizer = merged["tokenizer"]
    if not callable(tokenizer) and not (isinstance(tokenizer, str) and tokenizer in TOKENIZERS):
        raise ValueError(f"tokenizer must be one of {sorted(TOKENIZERS)} or a callable str -> list[str], got {tokenizer!r}")
    if tokenizer in MECAB and mecab.missing_packages(tokenizer):
        raise ValueError(f"tokenizer={tokenizer!r} needs MeCab and its dictionary, which are not installed "
                         f"here: {mecab.missing_packages(tokenizer)}")
    if tokenizer in SPM_MODELS:
        merged["spm_model"] = spm.checked_model_path(tokenizer, merged["spm_model"])
    elif merged["spm_model"] is not None:
        raise ValueError(f"spm_model applies only to the SentencePiece tokenizers {sorted(SPM_MODELS)}, "
                         f"got tokenizer={tokenizer!r}")
    if not isinstance(merged["lang"], str) or not merged["lang"]:
        raise ValueError(f"lang must be a language code such as 'en', got {merged['lang']!r}")
    if merged["rstrip"] is None:
        merged["rstrip"] = rstripped_by_default(tokenizer)
    given_effective_order = merged["effective_order"]  # None: not given, so each level's default
    merged["effective_order"] = False if given_effective_order is None else given_effective_order
    for name in ("lowercase", "rstrip", "smooth", "effective_order", "sentence_level", "signature"):
        merged[name] = _check_bool(name, merged[name])

    weights = merged["weights"]
    if weights is not None:
        weights, several = _checked_weight_sets(weights)  # several: as NLTK's corpus_bleu, one score each
        order = max(map(len, weights)) if several else len(weights)
        if explicit_max_order is not None and _check_int("max_order", explicit_max_order, 1, MAX_ORDER) != order:
            given_weights = f"weight sets {[list(one) for one in weights]!r:.200}" if several \
                else f"{len(weights)} weights {list(weights)!r}"
            raise ValueError(f"max_order={explicit_max_order!r} disagrees with the {given_weights}, which set {order} orders")
        merged["weights"], merged["max_order"] = weights, order
        if merged["n_bootstrap"] and several:
            raise ValueError("n_bootstrap takes one weight set at a time, got several weights")
    merged["max_order"] = _check_int("max_order", merged["max_order"], 1, MAX_ORDER)
    if merged["ref_length"] not in REF_LENGTHS:
        raise ValueError(f"ref_length must be one of {list(REF_LENGTHS)}, got {merged['ref_length']!r}")

    smooth_method = merged["smooth_method"]
    if smooth_method is not None and smooth_method not in SMOOTHING:
        raise ValueError(f"smooth_method must be None or one of {list(SMOOTHING)} (sacrebleu's, then NLTK's), "
                         f"got {smooth_method!r}")
    if merged["smooth"] and smooth_method is not None:
        raise ValueError(
            f"smooth=True (HF's add-one) conflicts with smooth_method={smooth_method!r}; choose one of the two"
        )
    if merged["smooth_value"] is not None:
        valued = [name for name, method in SMOOTHING.items() if method.default is not None]
        if smooth_method not in valued:
            raise ValueError(f"smooth_value={merged['smooth_value']!r} applies only to the smooth_method that take a "
                             f"value, {valued}, got smooth_method={smooth_method!r}")
        _check_number("smooth_value", merged["smooth_value"])
    elif smooth_method is not None:
        merged["smooth_value"] = SMOOTHING[smooth_method].default  # floor 0.1, add-k 1, method1 0.1; else None
    if merged["effective_order"] and smooth_method in NLTK_SMOOTHING:
        raise ValueError(f"effective_order=True is sacrebleu's; it does not apply to NLTK's {smooth_method}")
    if merged["effective_order"] and weights is not None:
        raise ValueError("effective_order=True conflicts with weights: effective order re-weights the orders uniformly")
    # The per-sentence rule, stated once: sacrebleu's sentence_bleu averages only the orders that a
    # sentence has, so under its preset every per-sentence score does, unless effective_order is
    # given; where effective order does not apply (weights, NLTK's methods), it stays off.
    if given_effective_order is not None:
        merged["sentence_effective_order"] = merged["effective_order"]
    else:
        merged["sentence_effective_order"] = (preset == "sacrebleu" and weights is None
                                              and smooth_method not in NLTK_SMOOTHING)

    merged["n_bootstrap"] = _check_int("n_bootstrap", merged["n_bootstrap"], 0, MAX_SAMPLES)
    if merged["bootstrap_seed"] is not None:
        merged["bootstrap_seed"] = _check_int("bootstrap_seed", merged["bootstrap_seed"], 0)
    settings = Settings(**{stage: kind(**{field.name: merged[field.name] for field in dataclasses.fields(kind)})
                           for stage, kind in _STAGES.items()})
    if not options and not defaults and tokenizer not in _DEPENDS_ON_ENVIRONMENT:
        _PRESET_SETTINGS[preset] = settings  # frozen, so callers may share it
    return settings


_PRESET_SETTINGS = {}  # each preset's settings without options, resolved once
_DEPENDS_ON_ENVIRONMENT = {*MECAB, *SPM_MODELS}  # installed packages and model files can change


# sacrebleu's short names of signature fields (``-sh``); the fields sacrebleu lacks keep theirs.
_SHORT_NAMES = {"nrefs": "#", "seed": "rs", "case": "c", "eff": "e", "smooth": "s", "version": "v"}


def signature(settings: Settings, nrefs, test: Optional[Tuple[str, int]] = None, short: bool = False) -> str:
    """sacrebleu's signature, naming every setting that can change the score: sacrebleu's fields
    (``nrefs``, a test's ``bs`` or ``ar`` and its ``seed``, ``case``, ``eff``, ``tok``,
    ``smooth``), then each way the settings depart from sacrebleu's conventions (``reflen:shortest``,
    ``order`` other than 4 or ``weights``, ``rstrip:no``), then ``version``.

    ``test`` is ``("bs", n)`` or ``("ar", n)`` for a paired test; without it, ``n_bootstrap``
    gives ``bs``. ``short`` uses sacrebleu's short names (its ``--short``)."""
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
    fields = [("nrefs", nrefs)]
    if test is not None:
        seed = settings.output.bootstrap_seed
        fields += [test, ("seed", "none" if seed is None else seed)]
    fields += [("case", "lc" if settings.tokenize.lowercase else "mixed"),
               ("eff", "yes" if scoring.effective_order else "no"),
               ("tok", signature_name(settings.tokenize)), ("smooth", smooth)]
    if settings.statistics.ref_length == "shortest":
        fields.append(("reflen", "shortest"))
    if scoring.weights is not None:
        from .scoring import weight_sets

        fields.append(("weights", "/".join(",".join(f"{w:g}" for w in one) for one in weight_sets(settings))))
    elif settings.statistics.max_order != 4:
        fields.append(("order", settings.statistics.max_order))
    if not settings.tokenize.rstrip:
        fields.append(("rstrip", "no"))
    fields.append(("version", f"exactbleu-{__version__}"))
    return "|".join(f"{_SHORT_NAMES.get(name, name) if short else name}:{value}" for name, value in fields)


def markdown_table() -> str:
    """The README's options table, from the declarations."""
    lines = ["| option | default | what it chooses | stage |", "|---|---|---|---|"]
    for option in DECLARED:
        if option.name == "bootstrap_seed":
            continue  # shown with n_bootstrap
        name, default = f"`{option.name}`", option.shown_default or f"`{option.default!r}`".replace("'", '"')
        if option.name == "n_bootstrap":
            name, default = "`n_bootstrap`, `bootstrap_seed`", "`0`, `12345`"
        stage = "score" if option.stage == "scoring" else option.stage
        lines.append(f"| {name} | {default} | {option.help} | {stage} |")
    return "\n".join(lines)
