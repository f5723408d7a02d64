"""Options: every option declared once (``declared``), each value checked (``checks``), all of them
resolved once into ``Settings`` over a preset's (``resolution``), and named in a signature
(``signature``)."""

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
    ScoringSettings,
    Settings,
    StatisticsSettings,
    TokenizeSettings,
    Weights,
    markdown_table,
    presets_table,
    stage_of,
)
from .resolution import (
    check_counted_with,
    check_no_output_options,
    counted_orders,
    counted_with,
    for_token_ids,
    resolve_settings,
)
from .signature import SHORT_NAMES, Signature, signature

__all__ = ["DECLARED", "NONE_IS_A_CHOICE", "OPTIONS", "PRESETS", "REF_LENGTHS", "SHORT_NAMES", "STAGES",
           "OutputSettings", "Preset", "ScoringSettings", "Settings", "Signature", "StatisticsSettings",
           "TokenizeSettings", "Weights", "check_bool", "check_counted_with", "check_int", "check_no_output_options",
           "check_number", "checked_weight_sets", "counted_orders", "counted_with", "for_token_ids",
           "markdown_table", "presets_table", "resolve_settings", "signature", "stage_of"]
