"""Options: every option declared once where the settings hold it, and the presets (``declared``);
the smoothing methods (``smoothing``); each value checked (``checks``), all of them resolved once
into ``Settings`` over a preset's (``resolution``), and named in a signature (``signature``).
``Settings`` are what every later stage reads."""

from .checks import check_bool, check_int, check_number, checked_weight_sets
from .declared import (
    DECLARED,
    NONE_IS_A_CHOICE,
    OPTIONS,
    PRESETS,
    REF_LENGTHS,
    STAGES,
    OutputSettings,
    Preset,
    PresetChoice,
    ScoringSettings,
    Settings,
    StatisticsSettings,
    TokenizeSettings,
    Weights,
    options_table,
    presets_table,
    stage_of,
)
from .resolution import (
    check_all_references,
    check_corpus_result,
    check_counted_with,
    check_no_output_options,
    check_whole_corpus,
    counted_orders,
    counted_with,
    for_token_ids,
    resolve_settings,
    resolve_settings_for_language,
)
from .signature import SHORT_NAMES, Signature, signature
from .smoothing import COCO, HF, MTEVAL, NLTK, SACREBLEU, SMOOTHING, T2T, Smoothing, arithmetic_of, smoothing_table

__all__ = ["COCO", "DECLARED", "HF", "MTEVAL", "NLTK", "NONE_IS_A_CHOICE", "OPTIONS", "PRESETS", "REF_LENGTHS",
           "SACREBLEU", "SHORT_NAMES", "SMOOTHING", "STAGES", "T2T",
           "OutputSettings", "Preset", "PresetChoice", "ScoringSettings", "Settings", "Signature",
           "Smoothing", "StatisticsSettings", "TokenizeSettings", "Weights", "arithmetic_of", "check_all_references",
           "check_bool", "check_corpus_result", "check_counted_with", "check_int",
           "check_no_output_options", "check_number", "check_whole_corpus", "checked_weight_sets",
           "counted_orders", "counted_with", "for_token_ids", "options_table", "presets_table",
           "resolve_settings", "resolve_settings_for_language", "signature", "smoothing_table", "stage_of"]
