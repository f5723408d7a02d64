"""Every option, declared once, where the settings hold it: each field of a stage's settings is an
option, with its default, its help and its command-line flags. A tokenizer's own settings are
declared by the tokenizer (``tokenizers.registry``) and join the options wherever they are listed.
The presets are declared here too, each whole.

``Settings`` groups the options by the stage they change: ``tokenize`` (all that the references'
statistics depend on, with the order), ``statistics``, ``scoring`` and ``output``.
"""

import argparse
import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, cast

from ..limits import MAX_ORDER, MAX_SAMPLES
from ..registry import Option, Registry, markdown_table
from ..tokenizers import DEFAULT, TOKENIZERS, setting_options
from .smoothing import SMOOTHING

# The reference length of the brevity penalty: the shortest; the closest, a tie going to the shorter (the
# papers', sacrebleu's, NLTK's); or the closest, a tie going to the first given (torchmetrics').
REF_LENGTHS = ("shortest", "closest", "closest-first")
# Which of each prediction's references count (``inputs.with_references_kept`` cuts them): all; the
# first (LightEval's corpus BLEU); or as many as the prediction with the fewest has (lm-eval's, whose
# zip cuts every reference stream to the shortest), which depends on the whole corpus; or the "one"
# each prediction must have (t2t-bleu's), refusing more.
# Or "best": each reference scored alone with the prediction, the best kept (HELM's).
KEPT_REFERENCES = ("all", "first", "fewest", "one", "best")
AVERAGES = ("micro", "macro")
Weights = tuple[float, ...] | tuple[tuple[float, ...], ...]
TokenizerChoice = str | Callable[[str], Iterable[str]]


def option(default: Any, help: str, flags: tuple[str, ...] = (), cli: dict[str, object] | None = None,
           shown_default: str | None = None, registry: Mapping[str, object] | None = None) -> Any:
    """A settings field that is an option: its default, and its declaration (see ``Option``)."""
    return dataclasses.field(default=default, metadata={"help": help, "flags": flags, "cli": cli or {},
                                                         "shown_default": shown_default, "registry": registry})


@dataclasses.dataclass(frozen=True)
class TokenizeSettings:
    """How a segment becomes tokens: all that the references' statistics depend on, with the order.
    ``tokenizer_settings`` holds the chosen tokenizer's own settings, checked, by name; ``pad``,
    ``eos`` and ``unk``, how fairseq's scorer reads token ids (``inputs.read_as_fairseq``)."""

    tokenizer: TokenizerChoice = option(
        DEFAULT, "a tokenizer of the tokenizers table (`exactbleu.TOKENIZERS`): HF's and sacrebleu's, sacremoses', "
        "MeCab's for Korean and Japanese, SentencePiece's for spBLEU, each token for token; or any callable "
        "`str -> list[str]`", ("-tok", "--tokenize"), registry=TOKENIZERS)
    lowercase: bool = option(False, "lowercase before tokenizing, as sacrebleu does (a script's tokenizer lowercases "
                             "as its script does: the tokenizers table)", ("-lc", "--lowercase"),
                             {"action": argparse.BooleanOptionalAction})
    rstrip: bool | None = option(
        None, "right-strip each segment first: as the tokenizer's library does by default (the tokenizers table's "
        "right-strips column), and in the `\"sacrebleu\"` preset; off for callables", shown_default="by tokenizer")
    pad: int | None = option(None, "token ids: fairseq's padding id, trimmed from the start and the end of each "
                             "segment (never its first token); the `\"fairseq\"` preset's is 1")
    eos: int | None = option(None, "token ids: fairseq's end-of-sentence id, trimmed from the end of each segment "
                             "(never its first token); the `\"fairseq\"` preset's is 2")
    unk: int | None = option(None, "token ids: fairseq's unknown-word id, which never matches in a reference; the "
                             "`\"fairseq\"` preset's is 3")
    tokenizer_settings: tuple[tuple[str, object], ...] = ()

    @property
    def id_rules(self) -> tuple[tuple[str, int], ...]:
        """fairseq's rules for token ids that these settings set (``pad``, ``eos``, ``unk``), by name."""
        return tuple((name, value) for name, value in (("pad", self.pad), ("eos", self.eos), ("unk", self.unk))
                     if value is not None)

    def id_rules_named(self, separator: str = ", ") -> str:
        """The rules as ``pad=1, eos=2, unk=3`` (joined by ``separator``), as messages and signatures name them."""
        return separator.join(f"{name}={value}" for name, value in self.id_rules)


@dataclasses.dataclass(frozen=True)
class StatisticsSettings:
    """What each statistics row counts, given the tokens."""

    max_order: int = option(4, f"the largest n-gram order, from 1 to {MAX_ORDER} (`MAX_ORDER`)", ("--max-order",),
                            {"type": int})
    ref_length: str = option("shortest", '`"shortest"` (HF, tensorflow/nmt), `"closest"` (Papineni et al., '
                             'sacrebleu, NLTK; a tie goes to the shorter) or `"closest-first"` (torchmetrics\'; a tie '
                             'goes to the first reference given)', ("--ref-length",), {"choices": REF_LENGTHS})
    keep_references: str = option(
        "all", '`"all"` of each prediction\'s references, its `"first"` (LightEval\'s corpus `bleu`), or as many as '
        'the prediction with the `"fewest"` has (lm-eval\'s `bleu`, which cuts every reference stream to the '
        'shortest). `"fewest"` depends on the whole corpus: its statistics, counted in one call, neither add up, '
        'cut nor sum as vectors, and per-sentence scores, resamples and paired tests refuse it. `"one"`: each '
        'prediction\'s one reference (t2t-bleu\'s), more refused. `"best"`: each reference scored alone with the '
        'prediction, and the row of the best kept (HELM\'s; the first of equals)', ("--keep-references",),
        {"choices": KEPT_REFERENCES})


@dataclasses.dataclass(frozen=True)
class ScoringSettings:
    """How summed statistics become a score; ``sentence_effective_order`` is the effective order of a
    per-sentence score (see ``resolve_settings``)."""

    weights: Weights | None = option(
        None, "n-gram weights as in NLTK (a list, a tuple, a 1-D numpy array); their number sets the order; finite, "
        "non-negative, not all 0. A list of up to 1000 weight sets, as NLTK's `corpus_bleu` takes, gives one score "
        "per set: `bleu` and `sentence_bleu` become lists", ("--weights",),
        {"type": float, "nargs": "+", "metavar": "W"})
    smooth: bool = option(False, "HF's add-one at every order (Lin & Och, 2004)", ("--smooth",),
                          {"action": "store_const", "const": True})
    smooth_method: str | None = option(
        None, "a method of the smoothing table (`exactbleu.SMOOTHING`), which chooses its arithmetic: sacrebleu's "
        "(`bleu` = min(1, score / 100)) or NLTK's `SmoothingFunction` methods (`\"method0\"`, no smoothing, is the "
        "`\"nltk\"` preset's); by default none, in HF's arithmetic. Methods that smooth with the 5-gram precision at "
        "any order make the statistics count through order 5", ("-s", "--smooth-method"), registry=SMOOTHING,
        shown_default="HF's")
    smooth_value: float | None = option(None, "the value of the smoothing methods that take one (the smoothing "
                                           "table's defaults)", ("-sv", "--smooth-value"), {"type": float})
    effective_order: bool | None = option(
        None, "sacrebleu's: average only the orders that have n-grams. Off for a corpus score; for a per-sentence "
        "score (`sentence_bleu`, `sentence_level`, `explain`, `-sl`) on in the `\"sacrebleu\"` preset, as "
        "sacrebleu's `sentence_bleu` has it, unless given", ("--effective-order",),
        {"action": "store_const", "const": True}, shown_default="by level")
    average: str = option(
        "micro", '`"micro"`: BLEU of the corpus, its summed statistics scored once; `"macro"`: the mean of each '
        'segment\'s per-sentence score, as frameworks that score one example at a time average them (the scores '
        'added in order, times the arithmetic\'s scale, over their number; ignite\'s names). A macro score needs '
        'each segment\'s statistics: summed vectors refuse it; a resample is the mean of its drawn segments\' '
        'scores', ("--average",), {"choices": AVERAGES})
    sentence_effective_order: bool = False

    @property
    def weight_set(self) -> tuple[float, ...] | None:
        """The one weight set an arithmetic scores, or None (uniform): several sets are scored each
        in settings of their own (``scoring.result_of_sums`` splits them)."""
        return cast("tuple[float, ...] | None", self.weights)


@dataclasses.dataclass(frozen=True)
class OutputSettings:
    """Which keys the result holds beyond HF's six."""

    sentence_level: bool = option(False, "adds `sentence_bleu`: one score per prediction, a per-sentence score "
                                  "under the same settings (see `effective_order`)")
    signature: bool = option(False, "adds `signature`, naming every setting that can change the score")
    n_bootstrap: int = option(0, f"adds `bleu_ci`: the 95% bootstrap interval, resampled as sacrebleu does; at most "
                              f"{MAX_SAMPLES:,} (`MAX_SAMPLES`)", ("--n-bootstrap",), {"type": int, "metavar": "N"})
    bootstrap_seed: int | None = option(12345, "the seed of `n_bootstrap`'s resampling, and of the paired tests "
                                           "(None: an unseeded draw)", ("--bootstrap-seed",), {"type": int})

    @property
    def adds_keys(self) -> bool:
        """Whether the result holds keys beyond HF's six (``sentence_bleu``, ``bleu_ci``, ``signature``)."""
        return self.sentence_level or bool(self.n_bootstrap) or self.signature


@dataclasses.dataclass(frozen=True)
class Settings:
    """Every option, checked (see ``resolve_settings``), in the stage it changes, and the names of
    the options given in the call that resolved them (not the preset's, nor the defaults')."""

    tokenize: TokenizeSettings = TokenizeSettings()
    statistics: StatisticsSettings = StatisticsSettings()
    scoring: ScoringSettings = ScoringSettings()
    output: OutputSettings = OutputSettings()
    given: frozenset[str] = dataclasses.field(default=frozenset(), compare=False)
    # What is worked out from these settings once and kept with them (the per-sentence settings, what
    # the statistics carry): small calls would otherwise pay for it on every call. Not copied by
    # ``dataclasses.replace``, whose settings are others.
    memo: dict[str, object] = dataclasses.field(default_factory=dict, init=False, compare=False, repr=False)

    def per_sentence(self) -> "Settings":
        """The settings of a per-sentence score: these, with the effective order that per-sentence
        scores take (``ScoringSettings.sentence_effective_order``: sacrebleu's ``sentence_bleu`` turns it
        on, so its preset does; ``resolve_settings`` states the rule)."""
        scoring = self.scoring
        if scoring.effective_order == scoring.sentence_effective_order:
            return self
        cached = self.memo.get("per_sentence")
        if cached is None:
            cached = self.memo["per_sentence"] = dataclasses.replace(
                self, scoring=dataclasses.replace(scoring, effective_order=scoring.sentence_effective_order))
        assert isinstance(cached, Settings)
        return cached

    def __getstate__(self) -> dict[str, object]:
        """The settings without their memo: a copy, a pickle or a fingerprint (that of datasets' map)
        is the same before and after a call fills it."""
        return {**self.__dict__, "memo": {}}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)


STAGES = {"tokenize": TokenizeSettings, "statistics": StatisticsSettings, "scoring": ScoringSettings,
          "output": OutputSettings}
# An explicit None means the default, except for these, where it is a choice of its own.
NONE_IS_A_CHOICE = frozenset({"bootstrap_seed"})

DECLARED: tuple[Option, ...] = tuple(
    Option(field.name, stage, field.default, **field.metadata)
    for stage, kind in STAGES.items() for field in dataclasses.fields(kind) if "help" in field.metadata)


class Options(Mapping[str, Option]):
    """Every option by name, as the registries stand now: the declared ones, with the registered
    tokenizers' settings after ``tokenizer``."""

    def _all(self) -> dict[str, Option]:
        declared = {option.name: option for option in DECLARED}
        first = list(declared)[: list(declared).index("tokenizer") + 1]
        return {**{name: declared[name] for name in first}, **setting_options(), **declared}

    def __getitem__(self, name: str) -> Option:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"Options({list(self)})"


OPTIONS = Options()


def stage_of(name: str) -> str:
    """The stage an option changes."""
    return OPTIONS[name].stage


@dataclasses.dataclass(frozen=True)
class Preset:
    """A preset: whose numbers it gives, the options it sets, and whether a per-sentence score
    under it takes sacrebleu's effective order (as ``sacrebleu.sentence_bleu`` does) unless told.
    A tool's preset (a script's, or a framework's that "Which BLEU?" tries as it runs) names the
    ``script`` (its ``-lc`` is ``lowercase=True``, which its tokenizer lowercases as the script
    does); ``scale``: the scale its number is reported on (None: its arithmetic's); ``prints``:
    the lines it prints, which the command line prints alike (``cli.printing.LINES``,
    ``cli.mteval``); ``reads``: how the command line reads a file's lines for it: right-stripped as sacrebleu does,
    or as the script does: whole (``"lines"``), each without its last character (``"chop"``, so
    that a last line without a line break loses one), or split at each line break, the empty
    text after the last one too (``"split"``). ``lowercases``: whether the script has a
    lowercasing flag; ``language``: the one target language it is for, if any (``conventions``
    tries each script as it runs, for its language); ``token_ids``: whether the tool scores token
    ids (fairseq's), where the others score text."""

    name: str
    describe: str
    options: Mapping[str, object]
    sentence_effective_order: bool = False
    script: str = ""
    scale: int | None = None
    prints: str = ""
    reads: str = "rstrip"
    lowercases: bool = True
    language: str = ""
    token_ids: bool = False


PRESETS: Registry[Preset] = Registry("preset", lambda preset: preset.name)
PresetChoice = str | Settings  # what a function's preset= takes: a preset's name, or Settings resolved already
for _preset in (
    Preset("default", "Hugging Face's `bleu`", {}),
    Preset("hf", "the same as \"default\": Hugging Face's `bleu`, the command line's name for it", {}),
    Preset("sacrebleu", "sacrebleu's `BLEU().corpus_score` defaults, right-strip included",
           {"tokenizer": "13a", "rstrip": True, "ref_length": "closest", "smooth_method": "exp"}, True),
    Preset("nltk", "NLTK's `corpus_bleu` on whitespace-split tokens, unsmoothed, in NLTK's own arithmetic",
           {"tokenizer": "none", "ref_length": "closest", "smooth_method": "method0"}),
):
    PRESETS.register(_preset)
# The harnesses call sacrebleu's BLEU with its defaults, each keeping some of the references.
for _preset in (
    Preset("lm-eval", "lm-evaluation-harness 0.4's `bleu` aggregation: sacrebleu's `corpus_bleu`, every prediction "
           "keeping as many references as the one with the fewest",
           {**PRESETS["sacrebleu"].options, "keep_references": "fewest"}, True),
    Preset("lighteval", "LightEval 0.13's corpus `bleu`: sacrebleu's `BLEU().corpus_score` on each prediction's first "
           "reference (give its `trg_lang` as the tokenizer: `tokenizer_for_language`)",
           {**PRESETS["sacrebleu"].options, "keep_references": "first"}, True),
):
    PRESETS.register(_preset)
# The COCO caption evaluation (pycocoevalcap's Bleu), on its PTB tokens.
_COCO = Preset("coco", "pycocoevalcap's `Bleu` (the COCO caption evaluation's `Bleu_4`, image captioning's BLEU): "
               "its PTB tokens, the closest reference length, its own arithmetic",
               {"tokenizer": "ptb", "ref_length": "closest", "smooth_method": "coco"})
PRESETS.register(_COCO)
# Harnesses that call pycocoevalcap's Bleu on the captions as given, with no PTB step (nlg-eval
# strips each line, which changes no word; VLMEvalKit reports Bleu_n times 100).
for _preset in (
    Preset("nlg-eval", "nlg-eval's Bleu_4 (Maluuba/nlg-eval, its copy of pycocoevalcap's `Bleu`): the captions as "
           "given, split at whitespace, with no PTB step; the closest reference length, COCO's arithmetic",
           {**_COCO.options, "tokenizer": "none"}, scale=1),
    Preset("vlmevalkit", "VLMEvalKit's caption `Bleu` (its `COCO_Caption_Scorer`): pycocoevalcap's `Bleu` on the "
           "captions as given, with no PTB step, reported times 100",
           {**_COCO.options, "tokenizer": "none"}, scale=100),
):
    PRESETS.register(_preset)
# The presets of tools (evaluation frameworks, MT scripts) are declared in ``tool_presets``.


def options_table() -> str:
    """The docs' options table, from the declarations (a tokenizer's settings included)."""
    rows = []
    for option in OPTIONS.values():
        if option.name == "bootstrap_seed":
            continue  # shown with n_bootstrap
        name, default = f"`{option.name}`", option.shown_default or f"`{option.default!r}`".replace("'", '"')
        if option.name == "n_bootstrap":
            name, default = "`n_bootstrap`, `bootstrap_seed`", "`0`, `12345`"
        rows.append([name, default, option.help, "score" if option.stage == "scoring" else option.stage])
    return markdown_table(["option", "default", "what it chooses", "stage"], rows)


def presets_table() -> str:
    """The docs' table of the presets, from their declarations."""
    rows = []
    for preset in PRESETS.values():
        set_options = ", ".join(f"`{name}={value!r}`".replace("'", '"') for name, value in preset.options.items())
        per_sentence = "with effective order, unless given" if preset.sentence_effective_order else "as the corpus's"
        if preset.options.get("keep_references") == "fewest":
            per_sentence = "refused: the references kept depend on the whole corpus"
        rows.append([f'`"{preset.name}"`', preset.describe, set_options or "-", per_sentence])
    return markdown_table(["preset", "whose numbers", "options it sets", "per-sentence scores"], rows)
