"""The evaluate metric's card: its description, citation and argument description, the last made
from the declarations (every option, the registered tokenizers and smoothing methods, each
tokenizer's settings, the presets), so that it never goes stale. It imports no evaluate.
"""

import textwrap

from .. import OPTIONS, PRESETS

CITATION = """\
@inproceedings{papineni-etal-2002-bleu,
    title = "{B}leu: a Method for Automatic Evaluation of Machine Translation",
    author = "Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing",
    booktitle = "Proceedings of the 40th Annual Meeting of the Association for Computational Linguistics",
    year = "2002",
    pages = "311--318",
    url = "https://aclanthology.org/P02-1040",
}
@inproceedings{lin-och-2004-orange,
    title = "{ORANGE}: a Method for Evaluating Automatic Evaluation Metrics for Machine Translation",
    author = "Lin, Chin-Yew and Och, Franz Josef",
    booktitle = "COLING 2004",
    year = "2004",
    pages = "501--507",
    url = "https://aclanthology.org/C04-1072",
}
"""

DESCRIPTION = """\
BLEU (Bilingual Evaluation Understudy) scores machine-translated text against one or more
reference translations: the geometric mean of clipped n-gram precisions, times a brevity
penalty for output shorter than the references. By default this module returns exactly what
Hugging Face's `bleu` metric returns, handles empty segments, and loads offline.
"""

RETURNS = """
Every option may also be given to evaluate.load, where it is checked and becomes this metric's
default; arguments to compute override it. An explicit None means the default.

Presets (evaluate's config names): {presets}; explicit arguments override a preset's.

Returns:
    bleu (float): the score, between 0 and 1.
    precisions (list of float): the n-gram precision of each order, 1..max_order.
    brevity_penalty (float): the brevity penalty.
    length_ratio (float): translation_length / reference_length.
    translation_length (int): the number of prediction tokens.
    reference_length (int): the summed reference lengths: each segment's shortest reference, or
        its closest with ref_length="closest".
    sentence_bleu, bleu_ci, signature: only when asked for.

Examples:
    >>> import evaluate
    >>> bleu = evaluate.load("bleu_metric.py")
    >>> predictions = ["hello there general kenobi", "foo bar foobar"]
    >>> references = [["hello there general kenobi", "hello there!"], ["foo bar foobar"]]
    >>> bleu.compute(predictions=predictions, references=references)["bleu"]
    1.0
"""


def inputs_description() -> str:
    """The metric's arguments, made from the declarations as they stand now: every option with its
    choices (the registered tokenizers and smoothing methods, each tokenizer's settings), and the
    presets."""
    lines = ["", "Computes corpus BLEU of predictions against one or more references per prediction.", "", "Args:",
             "    predictions (list of str): the translations to score, one string per segment.",
             "    references (list of list of str, or list of str): the references of each prediction.",
             "        The number of references may differ from one prediction to the next."]
    for option in OPTIONS.values():
        text = option.help.replace("`", "")
        default = option.shown_default or repr(option.default)
        if option.choices is not None:
            text += f". Choices: {', '.join(map(str, option.choices))}"
        if option.name == "tokenizer":
            text += ", or a callable str -> list[str]"
        lines += textwrap.wrap(f"{option.name} (default {default}): {text}.", 96, initial_indent="    ",
                               subsequent_indent="        ")
    presets = ", ".join(f'"{name}" ({preset.describe.replace("`", "")})' for name, preset in PRESETS.items())
    return "\n".join(lines) + "\n" + RETURNS.format(presets=presets)
