"""The presets of tools: the evaluation frameworks that score an example at a time, each with its own
split and arithmetic, and the scripts MT papers printed BLEU with. Each names its ``script``:
"Which BLEU?" tries it as the tool runs (versions: docs/frameworks.md and docs/mt-scripts.md).
Registered after the library's own presets (``declared``), in this order.
"""

from ..tokenizers import TOKENIZERS
from .declared import PRESETS, Preset
from .smoothing import SMOOTHING

# Evaluation frameworks that score an example at a time, each with its own split and arithmetic
# (versions: docs/frameworks.md).
_CODEXGLUE = Preset(
    "codexglue", "CodeXGLUE's code-to-text evaluator (`evaluator.py`, the smoothed BLEU-4 of CodeBERT, GraphCodeBERT, "
    "CodeT5 and UniXcoder): its split, lowercased; the shortest reference length; add-one smoothing from the "
    "bigrams on; the mean of each example's score, times 100",
    {"tokenizer": "codexglue", "ref_length": "shortest", "smooth_method": "codexglue-smooth", "average": "macro"},
    script="CodeXGLUE evaluator.py", scale=100, lowercases=False)
PRESETS.register(_CODEXGLUE)
PRESETS.register(Preset(
    "ignite", "pytorch-ignite 0.5.5's `Bleu` on whitespace tokens: the mean of each example's score by default "
    "(`average=\"micro\"` is its corpus score), unsmoothed (`smooth_method`: `\"ignite-smooth1\"`, "
    "`\"ignite-nltk-smooth2\"`, `\"ignite-smooth2\"`), the closest reference length",
    {"tokenizer": "none", "ref_length": "closest", "smooth_method": "ignite-no-smooth", "average": "macro"},
    script="ignite Bleu", scale=1, lowercases=False))
# NLTK's sentence_bleu on word_tokenize's tokens with one order's weight (not cumulative weights),
# unsmoothed, the mean over examples: DeepEval passes all of an example's references to one call;
# HELM scores each reference alone and keeps the best.
_SINGLE_ORDERS = {1: (1, 0, 0, 0), 2: (0, 1, 0, 0), 3: (0, 0, 1, 0), 4: (0, 0, 0, 1)}
for _order, _weights in _SINGLE_ORDERS.items():
    _DEEPEVAL = Preset(
        f"deepeval-bleu{_order}", f"DeepEval 4.3's `bleu{_order}` (`Scorer.sentence_bleu_score`): NLTK's "
        f"`sentence_bleu` on `word_tokenize`'s tokens with the weights {_weights}, all of an example's references in "
        f"one call; the mean of each example's score",
        {"tokenizer": "nltk-words", "ref_length": "closest", "smooth_method": "method0", "weights": _weights,
         "average": "macro"},
        script=f"DeepEval bleu{_order}", scale=1, lowercases=False)
    PRESETS.register(_DEEPEVAL)
for _order in (1, 4):
    _HELM = Preset(
        f"helm-bleu-{_order}", f"HELM 0.5's `bleu_{_order}`: NLTK's `sentence_bleu` on `word_tokenize`'s tokens with "
        f"the weights {_SINGLE_ORDERS[_order]}, against each reference alone, the best kept; the mean of each "
        f"instance's score", {"tokenizer": "nltk-words", "ref_length": "closest", "smooth_method": "method0",
                              "weights": _SINGLE_ORDERS[_order], "keep_references": "best", "average": "macro"},
        script=f"HELM bleu_{_order}", scale=1, lowercases=False)
    PRESETS.register(_HELM)
_AZURE = Preset(
    "azure", "Azure AI Evaluation 1.18's `BleuScoreEvaluator`: NLTK's `sentence_bleu` with smoothing method 4 against "
    "one reference, each string split by `word_tokenize` if it is ASCII, else by NLTK's NIST tokenizer; the mean of "
    "each row's score", {"tokenizer": "azure", "ref_length": "closest", "smooth_method": "method4",
                         "keep_references": "one", "average": "macro"},
    script="Azure AI Evaluation BleuScoreEvaluator", scale=1, lowercases=False)
PRESETS.register(_AZURE)
# fairseq's --scoring bleu, which scores the dictionary's ids of a whole test set (fairseq-generate).
_FAIRSEQ = Preset(
    "fairseq", "fairseq's `--scoring bleu` (`fairseq.scoring.bleu.Scorer` over libbleu, 2025-09-30, 3d262bb) on token "
    "ids: padding trimmed from the start, end-of-sentence and padding from the end (never the first token), a "
    "reference's unknown word never matching, with fairseq's ids `pad=1`, `eos=2`, `unk=3` (options); one reference "
    "each, corpus BLEU times 100", {"tokenizer": "none", "ref_length": "closest", "smooth_method": "fairseq",
                                     "pad": 1, "eos": 2, "unk": 3, "keep_references": "one"},
    script="fairseq --scoring bleu", scale=100, lowercases=False, token_ids=True)
PRESETS.register(_FAIRSEQ)
# torchmetrics' BLEUScore and SacreBLEUScore as torchmetrics computes them (exactbleu.torchmetrics
# gives the number it documents, NLTK's, in float64).
for _preset in (
    Preset("torchmetrics", "torchmetrics 1.9's `BLEUScore` as it computes it: whitespace tokens, the closest "
           "reference length (a tie goes to the first reference), float32 in torch; `smooth=True` is "
           "`smooth_method=\"torchmetrics-smooth\"`", {"tokenizer": "none", "ref_length": "closest-first",
                                                        "smooth_method": "torchmetrics"},
           script="torchmetrics BLEUScore", scale=1, lowercases=False),
    Preset("torchmetrics-sacrebleu", "torchmetrics 1.9's `SacreBLEUScore` as it computes it: its copy of sacrebleu's "
           "13a (its `tokenize` is `tokenizer`; its `lowercase=True`, which lowercases the tokens, is refused), then "
           "`BLEUScore`'s arithmetic", {"tokenizer": "13a", "rstrip": False, "ref_length": "closest-first",
                                        "smooth_method": "torchmetrics"},
           script="torchmetrics SacreBLEUScore", scale=1, lowercases=False),
):
    PRESETS.register(_preset)
# The scripts MT papers printed BLEU with (versions: docs/mt-scripts.md).
for _preset in (
    Preset("multi-bleu", "Moses's `multi-bleu.perl` (2018-09-16) on the text as given (tokenized already, as it "
           "expects): its ASCII whitespace split, no smoothing; `lowercase=True` is its `-lc` (A-Z only)",
           {"tokenizer": "ascii-whitespace", "ref_length": "closest", "smooth_method": "none"},
           script="multi-bleu.perl", scale=100, prints="multi-bleu", reads="lines"),
    Preset("multi-bleu-detok", "Moses's `multi-bleu-detok.perl` (2019-02-27): 13a as Perl reads it, no smoothing; "
           "`lowercase=True` is its `-lc` (Perl's `lc`)",
           {"tokenizer": "13a-perl", "ref_length": "closest", "smooth_method": "none"},
           script="multi-bleu-detok.perl", scale=100, prints="multi-bleu", reads="chop"),
    Preset("t2t-bleu", "tensor2tensor's `t2t-bleu` and `bleu_wrapper` (bleu_hook.py, 2018-08-09): its tokens, "
           "uncased as by default (`lowercase=False` is `case_sensitive=True`), always smoothed, a float32",
           {"tokenizer": "t2t", "lowercase": True, "keep_references": "one", "smooth_method": "tensor2tensor"},
           script="t2t-bleu", scale=1, prints="t2t-bleu", reads="split"),
    Preset("tokenized-bleu", "the tokenized BLEU of most NMT papers: Moses's `tokenizer.perl -l LANG` (give `lang`; "
           "`-a` is `aggressive_dash_splits`), then `multi-bleu.perl` (`-lc`: `lowercase=True`)",
           {"tokenizer": "moses-perl", "ref_length": "closest", "smooth_method": "none"},
           script="tokenizer.perl | multi-bleu.perl", scale=100, prints="multi-bleu",
           reads="lines"),
    Preset("t2t-ende", "tensor2tensor's `get_ende_bleu.sh` (the Transformer paper's WMT14 English-German BLEU): "
           "replace-unicode-punctuation.perl, tokenizer.perl -l de and its compound splitting on both sides, then "
           "`multi-bleu.perl`", {"tokenizer": "t2t-ende", "ref_length": "closest", "smooth_method": "none"},
           script="get_ende_bleu.sh", scale=100, prints="multi-bleu", reads="lines", lowercases=False,
           language="de"),
    Preset("mteval-v13a", "NIST's and Moses's `mteval-v13a.pl -b` (5bbd5ca1, 2018-06-23) on the segments' text: "
           "case-insensitive by A-Z (`-c` is `lowercase=False`), smoothed (`--no-smoothing`: `smooth_method="
           "\"mteval-no-smoothing\"`; `--international-tokenization`: `tokenizer=\"mteval-intl\"`)",
           {"tokenizer": "mteval-13a", "lowercase": True, "ref_length": "closest", "smooth_method": "mteval"},
           script="mteval-v13a.pl", scale=1, prints="mteval", reads="lines"),
    Preset("mteval-v14", "NIST's `mteval-v14.pl -b` (Moses's copy, 2ea75d91): mteval-v13a's numbers, and 0 where "
           "v13a stops (hypotheses without a word)",
           {"tokenizer": "mteval-13a", "lowercase": True, "ref_length": "closest", "smooth_method": "mteval"},
           script="mteval-v14.pl", scale=1, prints="mteval", reads="lines"),
):
    PRESETS.register(_preset)


def tools_for(language: str | None, most_references: int, ids: bool) -> list[tuple[Preset, dict[str, object]]]:
    """The tools' presets that run on a corpus (text, or token ids) whose target language is
    ``language`` (None: not known) and whose predictions have at most ``most_references`` each, here,
    with their options: tokenizer.perl's need the language (and sacremoses' prefixes),
    get_ende_bleu.sh's is German, t2t-bleu and fairseq take one reference, torchmetrics' need torch."""
    found = []
    for script in PRESETS.values():
        options = dict(script.options)
        if not script.script or script.token_ids != ids or (script.language and script.language != language) or (
                most_references > 1 and options.get("keep_references") == "one"):
            continue
        tokenizer = TOKENIZERS[str(options["tokenizer"])]
        method = options.get("smooth_method")
        needs = SMOOTHING[str(method)].needs if method is not None else None
        if tokenizer.missing() or (needs is not None and needs.missing()):
            continue
        if any(setting.name == "lang" for setting in tokenizer.settings):
            if language is None:
                continue
            options["lang"] = language
        found.append((script, options))
    return found
