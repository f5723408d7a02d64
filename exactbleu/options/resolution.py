"""Resolution: options are checked once, at the boundary, over a preset's, into an immutable
``Settings``. Every message names the option, the bad value and the valid choices.

An explicit None means the default (a seed is the one exception: None draws from the OS). Options
set later override earlier ones; where options choose between alternatives, a later choice
replaces the earlier one as a whole (see ``_overlay``).
"""

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from ..limits import C_INT_MAX, MAX_ORDER, MAX_SAMPLES
from ..registry import did_you_mean, registry_changes
from ..tokenizers import TOKENIZERS, WORDS, rstripped_by_default, setting_options, takers, tokenizer_for_language
from .checks import check_bool, check_int, check_number, checked_weight_sets
from .combinations import check_combinations
from .declared import (
    AVERAGES,
    KEPT_REFERENCES,
    NONE_IS_A_CHOICE,
    OPTIONS,
    PRESETS,
    REF_LENGTHS,
    OutputSettings,
    Preset,
    ScoringSettings,
    Settings,
    StatisticsSettings,
    TokenizerChoice,
    TokenizeSettings,
    Weights,
)
from .smoothing import SMOOTHING

if TYPE_CHECKING:  # numpy and the counting layer load only when something is counted or scored
    from ..sufficient_statistics import CountedWith

Merged = dict[str, object]


def resolve_settings(preset: str | Settings = "default", defaults: Mapping[str, object] | None = None,
                     **options: object) -> Settings:
    """Check the options once, at the boundary, over the preset's and the defaults.

    Args:
        preset: a name in PRESETS (evaluate's config name), or ``Settings`` resolved (no options then).
        defaults: options that override the preset's and are overridden by ``options``: those
            given to ``evaluate.load``.
        **options: any of OPTIONS; None means the default (for ``bootstrap_seed``, an unseeded draw).
    Returns:
        the ``Settings``, every value checked and every derived default filled in.
    Raises:
        ValueError or TypeError naming the option, the bad value and the valid choices (and the
        nearest); MissingExtra (an ImportError) where the tokenizer's package is not installed.
    """
    if isinstance(preset, Settings):
        if options or defaults:
            given = sorted({*options, *(defaults or {})})
            raise ValueError(f"these settings are resolved already: give the options {given} to resolve_settings "
                             f"instead")
        return preset
    key = _resolved_key(preset, defaults or {}, options)
    if key is not None and (resolved := _RESOLVED.get(key)) is not None:
        return resolved  # the same call, checked before
    declared = PRESETS.choice(preset)
    given_defaults, given_options = _given(defaults or {}), _given(options)
    merged = _overlay(_overlay(dict(declared.options), given_defaults), given_options)
    weights = checked_weight_sets(merged["weights"]) if merged.get("weights") is not None else None
    settings = Settings(tokenize=_tokenize(merged), statistics=_statistics(merged, weights),
                        scoring=_scoring(merged, declared, weights), output=_output(merged, weights),
                        given=frozenset(given_options))
    check_combinations(settings)
    if key is not None and _cacheable(settings):
        if len(_RESOLVED) >= _RESOLVED_MOST:
            _RESOLVED.clear()
        _RESOLVED[key] = settings  # frozen, so callers may share it
    return settings


def resolve_settings_for_language(target_language: str | None, preset: str = "default",
                                  **options: object) -> Settings:
    """``resolve_settings``, with the tokenizer that sacrebleu chooses for the target language
    (``BLEU(trg_lang=)``: zh, ja and ko have their own), as the harnesses' faces take it.

    Args:
        target_language: a language code such as ``"de"`` or ``"zh"``; None leaves the tokenizer to
            the preset and the options.
        preset, **options: as ``resolve_settings`` takes them; not ``tokenizer`` with a language.
    """
    if target_language is not None:
        if not isinstance(target_language, str):
            raise TypeError(f"target_language must be a language code such as 'de' or 'zh', or None; "
                            f"got {target_language!r}")
        if options.get("tokenizer") is not None:
            raise ValueError(f"target_language={target_language!r} chooses the tokenizer: give it or "
                             f"tokenizer={options['tokenizer']!r}, not both")
        options = {**options, "tokenizer": tokenizer_for_language(target_language)}
    return resolve_settings(preset, None, **options)


# Settings resolved before, by the call that resolved them: a loop of sentence_bleu (or a trainer's
# reward) with the same preset and options resolves them once.
_RESOLVED: dict[tuple[object, ...], Settings] = {}
_RESOLVED_MOST = 256
_PLAIN = (str, int, float, bool, type(None))


def _resolved_key(preset: object, defaults: Mapping[str, object],
                  options: Mapping[str, object]) -> tuple[object, ...] | None:
    """The key of a call's settings among those resolved before, or None where they are not kept.
    Only plain values key it, each by its type and repr, so that 4 and 4.0, or 1 and True, are
    different calls (the second of each is refused); and the registries' changes so far, so that a
    name registered since is resolved anew."""
    if not isinstance(preset, str):
        return None
    if not (defaults or options):  # a preset alone, the most common call, keyed at no cost
        return (registry_changes(), preset)
    parts: list[object] = [registry_changes(), preset]
    for given in (defaults, options):
        if any(type(value) not in _PLAIN for value in given.values()):
            return None
        parts.append(tuple(sorted((name, type(value).__name__, repr(value)) for name, value in given.items())))
    return tuple(parts)


def _cacheable(settings: Settings) -> bool:
    """Settings that do not depend on what is installed (packages and model files can change)."""
    declared = TOKENIZERS.get(settings.tokenize.tokenizer) if isinstance(settings.tokenize.tokenizer, str) else None
    return declared is not None and declared.needs is None and declared.available is None


def _given(options: Mapping[str, object]) -> Merged:
    """The options a caller set: unknown names are an error, and None means "not set"."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; the options are {list(OPTIONS)}"
                         f"{did_you_mean(unknown, OPTIONS, each=True)}")
    return {name: value for name, value in options.items() if value is not None or name in NONE_IS_A_CHOICE}


def _overlay(lower: Merged, upper: Merged) -> Merged:
    """Options set later (``upper``) over earlier ones. Where options choose between alternatives,
    the later choice replaces the earlier one as a whole: smooth=True or a smooth_method replaces
    the other (and a method's smooth_value), another tokenizer replaces the settings of the one
    before, and max_order or weights replaces the other."""
    merged = {**lower, **upper}
    if upper.get("smooth") and "smooth_method" not in upper:
        merged.pop("smooth_method", None)
    if upper.get("smooth_method") is not None and "smooth" not in upper:
        merged.pop("smooth", None)
    if ("smooth_method" in upper or upper.get("smooth")) and "smooth_value" not in upper:
        merged.pop("smooth_value", None)
    if "tokenizer" in upper and upper["tokenizer"] != lower.get("tokenizer"):
        for setting in setting_options():
            if setting not in upper:
                merged.pop(setting, None)
    if "max_order" in upper and "weights" not in upper:
        merged.pop("weights", None)
    if "weights" in upper and "max_order" not in upper:
        merged.pop("max_order", None)
    return merged


def _tokenize(merged: Merged) -> TokenizeSettings:
    """The tokenizing settings: a registered tokenizer that is installed here, with its own
    settings checked, or a callable."""
    tokenizer = merged.get("tokenizer", TokenizeSettings.tokenizer)
    if not callable(tokenizer):
        if not isinstance(tokenizer, str) or tokenizer not in TOKENIZERS:
            raise ValueError(f"tokenizer must be one of {list(TOKENIZERS)} or a callable str -> list[str], got "
                             f"{tokenizer!r:.80}{did_you_mean(tokenizer, TOKENIZERS)}")
        TOKENIZERS[tokenizer].check_installed()
    taken = {setting.name: setting for setting in TOKENIZERS[tokenizer].settings} if isinstance(tokenizer, str) else {}
    for name in setting_options():
        if name in merged and name not in taken:
            raise ValueError(f"{name} applies only to the tokenizers {takers(name)}, got tokenizer={tokenizer!r:.80}")
    values = []
    for name, setting in taken.items():
        check = setting.check or (lambda value, tokenizer: value)
        values.append((name, check(merged.get(name, setting.default), str(tokenizer))))
    rstrip = merged.get("rstrip")
    ids = {name: check_int(name, merged[name], 0, C_INT_MAX) for name in ("pad", "eos", "unk") if name in merged}
    return TokenizeSettings(tokenizer=cast(TokenizerChoice, tokenizer),  # a name or a callable, as checked
                            lowercase=check_bool("lowercase", merged.get("lowercase", False)),
                            rstrip=rstripped_by_default(tokenizer) if rstrip is None else check_bool("rstrip", rstrip),
                            tokenizer_settings=tuple(values), **ids)


def _statistics(merged: Merged, weights: tuple[Weights, bool] | None) -> StatisticsSettings:
    """The orders and the reference length; weights set the order too, and must agree with it."""
    max_order = merged.get("max_order")
    if weights is not None:
        checked, several = weights
        sets = cast(tuple[tuple[float, ...], ...], checked if several else (checked,))
        order = max(map(len, sets))
        if max_order is not None and check_int("max_order", max_order, 1, MAX_ORDER) != order:
            given = f"weight sets {[list(one) for one in sets]!r:.200}" if several \
                else f"{order} weights {list(sets[0])!r}"
            raise ValueError(f"max_order={max_order!r} disagrees with the {given}, which set {order} orders")
        max_order = order
    ref_length = merged.get("ref_length", StatisticsSettings.ref_length)
    if ref_length not in REF_LENGTHS:
        raise ValueError(f"ref_length must be one of {list(REF_LENGTHS)}, got {ref_length!r:.80}"
                         f"{did_you_mean(ref_length, REF_LENGTHS)}")
    keep = merged.get("keep_references", StatisticsSettings.keep_references)
    if keep not in KEPT_REFERENCES:
        raise ValueError(f"keep_references must be one of {list(KEPT_REFERENCES)}, got {keep!r:.80}"
                         f"{did_you_mean(keep, KEPT_REFERENCES)}")
    return StatisticsSettings(max_order=check_int("max_order", StatisticsSettings.max_order if max_order is None
                                                  else max_order, 1, MAX_ORDER), ref_length=str(ref_length),
                              keep_references=str(keep))


def _scoring(merged: Merged, preset: Preset, checked_weights: tuple[Weights, bool] | None) -> ScoringSettings:
    """The arithmetic: smoothing, its value, the weights and the effective order."""
    smooth = check_bool("smooth", merged.get("smooth", False))
    method = merged.get("smooth_method")
    if method is not None:
        needs = SMOOTHING.choice(method).needs
        if needs is not None and needs.missing():
            raise needs.error(f"smooth_method={method!r}")
        if smooth:
            raise ValueError(f"smooth=True (HF's add-one) conflicts with smooth_method={method!r}; choose one of the "
                             f"two")
    declared = SMOOTHING[str(method)] if method is not None else None
    given_value = merged.get("smooth_value")
    value: float | None = None
    if given_value is not None:
        valued = [name for name, one in SMOOTHING.items() if one.default is not None]
        if declared is None or declared.default is None:
            raise ValueError(f"smooth_value={given_value!r} applies only to the smooth_method that take a value, "
                             f"{valued}, got smooth_method={method!r}")
        value = check_number("smooth_value", given_value)
    elif declared is not None:
        value = declared.default
    weights = checked_weights[0] if checked_weights is not None else None
    given = merged.get("effective_order")  # None: not given, so each level's default
    effective_order = False if given is None else check_bool("effective_order", given)
    if effective_order and declared is not None and not declared.effective_order:
        raise ValueError(f"effective_order=True is sacrebleu's; it does not apply to {declared.arithmetic}'s {method}")
    if weights is not None and declared is not None and not declared.weights:  # its own n-th root of a product
        raise ValueError(f"weights do not apply to {declared.arithmetic}'s {method}: give max_order instead")
    if effective_order and weights is not None:
        raise ValueError("effective_order=True conflicts with weights: effective order re-weights the orders uniformly")
    # The per-sentence rule, stated once: sacrebleu's sentence_bleu averages only the orders that a
    # sentence has, so under its preset every per-sentence score does, unless effective_order is
    # given; where effective order does not apply (weights, NLTK's methods), it stays off.
    sentence = effective_order if given is not None else (
        preset.sentence_effective_order and weights is None and (declared is None or declared.effective_order))
    average = merged.get("average", ScoringSettings.average)
    if average not in AVERAGES:
        raise ValueError(f"average must be one of {list(AVERAGES)}, got {average!r:.80}"
                         f"{did_you_mean(average, AVERAGES)}")
    return ScoringSettings(weights=weights, smooth=smooth, smooth_method=None if method is None else str(method),
                           smooth_value=value, effective_order=effective_order, average=str(average),
                           sentence_effective_order=sentence)


def _output(merged: Merged, weights: tuple[Weights, bool] | None) -> OutputSettings:
    """The extra keys of the result, and the bootstrap's samples and seed."""
    n_bootstrap = check_int("n_bootstrap", merged.get("n_bootstrap", 0), 0, MAX_SAMPLES)
    if n_bootstrap and weights is not None and weights[1]:
        raise ValueError("n_bootstrap takes one weight set at a time, got several weights")
    seed = merged.get("bootstrap_seed", OutputSettings.bootstrap_seed)
    return OutputSettings(sentence_level=check_bool("sentence_level", merged.get("sentence_level", False)),
                          signature=check_bool("signature", merged.get("signature", False)), n_bootstrap=n_bootstrap,
                          bootstrap_seed=None if seed is None else check_int("bootstrap_seed", seed, 0))


# What the other layers ask of settings.


def for_token_ids(settings: Settings) -> Settings:
    """The settings of token ids: those of the same ids written as words under the whitespace
    tokenizer (a preset's tokenizer and lowercasing do not apply). A tokenizing option given for
    them is an error."""
    tokenizing = {"tokenizer", "rstrip", *setting_options()}
    asked = settings.tokenize.lowercase and "lowercase" in settings.given
    given = sorted(settings.given & tokenizing) + (["lowercase"] if asked else [])
    if given:
        raise ValueError(f"{given} apply to text, but the predictions are token ids, which are tokens already: "
                         f"leave them out")
    tokenize = settings.tokenize
    return dataclasses.replace(settings, tokenize=TokenizeSettings(tokenizer=WORDS, rstrip=True, pad=tokenize.pad,
                                                                   eos=tokenize.eos, unk=tokenize.unk))


def for_text(settings: Settings) -> Settings:
    """The settings of text: fairseq's rules for token ids (``pad``, ``eos``, ``unk``, the
    ``"fairseq"`` preset's) refuse it."""
    if settings.tokenize.id_rules:
        raise ValueError(f"{settings.tokenize.id_rules_named()} (fairseq's, as the \"fairseq\" preset sets them) "
                         f"read token ids, as fairseq's scorer reads its dictionary's ids, but the predictions are "
                         f"text: give token ids (lists of ints, arrays or tensors)")
    return settings


def counted_orders(settings: Settings) -> int:
    """How many n-gram orders the statistics count: max_order, or more where the smoothing method
    reads a higher order (NLTK's method5 and method7 smooth with the 5-gram precision). The score
    uses max_order."""
    method = settings.scoring.smooth_method
    through = SMOOTHING[method].counts_through if method is not None else 0
    return max(settings.statistics.max_order, through)


def counted_with(settings: Settings) -> "CountedWith":
    """The settings that decide the statistics rows under these settings, as statistics carry them."""
    cached = settings.memo.get("counted_with")
    if cached is None:
        from ..sufficient_statistics import CountedWith
        from ..tokenizers import signature_name

        tokenize = settings.tokenize
        rules = "+" + tokenize.id_rules_named("+") if tokenize.id_rules else ""
        cached = settings.memo["counted_with"] = CountedWith(
            signature_name(tokenize) + rules, tokenize.lowercase, bool(tokenize.rstrip), settings.statistics.ref_length,
            counted_orders(settings), _kept_by(settings))
    return cached  # type: ignore[return-value]  # what was stored under its name


def _kept_by(settings: Settings) -> str:
    """Which references the rows keep. The "best" reference is chosen by its sentence score, so
    rows kept so name the scoring that chose them: they score under that scoring alone."""
    keep = settings.statistics.keep_references
    if keep != "best":
        return keep
    scoring = settings.per_sentence().scoring
    chosen_by = ",".join(f"{name}={getattr(scoring, name)}" for name in
                         ("weights", "smooth", "smooth_method", "smooth_value", "effective_order"))
    return f"best:{chosen_by}"
