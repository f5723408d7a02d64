"""A request: the page's inputs, checked once into one dataclass, and the job they make.

The page takes one segment per line, up to three reference sets, and the options that decide the
number. ``PageInputs.checked`` checks all of it before any work: sizes, the option choices (read
from exactbleu's registries, so a new tokenizer or smoothing method appears here by itself), and
the texts themselves, with exactbleu's own messages. A job is a function of exactbleu's API and its
arguments, priced (see ``pricing``), which the workers run.
"""

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from exactbleu import (
    OPTIONS,
    PAIRED_TESTS,
    SMOOTHING,
    TOKENIZERS,
    Convention,
    Corpus,
    Identified,
    MissingExtra,
    Settings,
    checked_corpus,
    convention_tokenizers,
    conventions,
    corpus_bleu,
    did_you_mean,
    explain,
    identify,
    paired_test,
    resolve_settings,
    tokenizer_for_language,
)

from .pricing import (
    COMMAND_LINE,
    MAX_TOKENS,
    Cost,
    InputError,
    checked_cost,
    conventions_cost,
    cost_of,
    explain_cost,
    paired_cost,
    script_work,
)

MAX_LINES = 100_000
MAX_BYTES = 10_000_000  # of text, all boxes together; also the largest upload
MAX_EXPLAIN_TOKENS = 1_000  # in the line the page explains, prediction and references together
MAX_ORDER = 8  # the page's slider; the library takes up to exactbleu.MAX_ORDER
MAX_COMPARE_LINES = 10_000  # the resamples are matrices of samples x lines
BOXES = ("Predictions", "References", "References (second set)", "References (third set)")
REF_LENGTHS: list[str] = [str(choice) for choice in OPTIONS["ref_length"].choices or []]

Declared = TypeVar("Declared")


def _declared_default(name: str, kind: type[Declared]) -> Declared:
    """The library's declared default of an option, which the page's type for it must be."""
    default = OPTIONS[name].default
    if not isinstance(default, kind):
        raise TypeError(f"exactbleu's default {name} is {default!r}, not {kind.__name__}")
    return default


# The library's defaults, as the page and the API endpoints offer them.
DEFAULT_TOKENIZER: str = _declared_default("tokenizer", str)
DEFAULT_MAX_ORDER: int = _declared_default("max_order", int)
DEFAULT_REF_LENGTH: str = _declared_default("ref_length", str)

# The page's prefilled example: HF's bleu card's, with a second reference set, and a second system
# to compare with the first.
EXAMPLE_PREDICTIONS = "\n".join([
    "Transformers Transformers are fast plus efficient",
    "Good Morning",
    "I am waiting for new Transformers",
])
EXAMPLE_REFERENCES = "\n".join([
    "HuggingFace Transformers are quick, efficient and awesome",
    "Good Morning Transformers",
    "People are eagerly waiting for new Transformer models",
])
EXAMPLE_REFERENCES_2 = "\n".join([
    "Transformers are awesome because they are fast to execute",
    "Morning Transformers",
    "People are very excited about new Transformers",
])
EXAMPLE_SYSTEM_B = "\n".join([
    "HuggingFace Transformers are fast and efficient",
    "Good Morning Transformers",
    "People are waiting for new Transformers",
])


def tokenizers() -> list[str]:
    """The tokenizers the page and its API offer: every registered one that is installed here, with
    its model where it needs one (nothing is downloaded)."""
    return [name for name, tokenizer in TOKENIZERS.items() if not tokenizer.missing()]


def smoothings() -> dict[str, dict[str, object]]:
    """The page's smoothing choices, and the options each one means: none, HF's add-one, and every
    registered method, labelled by its arithmetic."""
    return {"none": {}, "add-one (HF smooth=True)": {"smooth": True},
            **{f"{name} ({method.arithmetic})": {"smooth_method": name} for name, method in SMOOTHING.items()
               if name != "none"}}


def _lines(text: str, name: str) -> list[str]:
    """The segments of a text box: one per line; a final line break ends the last one."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if len(lines) > MAX_LINES:
        raise InputError(f"{name} has {len(lines):,} lines; the page takes at most {MAX_LINES:,}")
    return lines


def _sized(texts: Sequence[str | None], advice: str) -> list[str]:
    """The texts (None as ""), if they are at most MAX_BYTES together."""
    sized = [text or "" for text in texts]
    if sum(len(text.encode("utf-8", "surrogatepass")) for text in sized) > MAX_BYTES:  # bad Unicode: the library says
        raise InputError(f"the texts are larger than {MAX_BYTES // 1_000_000} MB together; {advice}")
    return sized


def _tokenizer(value: Any) -> str:
    """A tokenizer the page offers; for a registered one that is not installed here, the message
    also says what it needs, but never where on the server it would be."""
    offered = tokenizers()
    if isinstance(value, str) and value not in offered and value in TOKENIZERS:
        needs = TOKENIZERS[value].needs
        what = needs.what if needs is not None else "what it needs"
        raise InputError(f"tokenizer must be one of {offered}, got {value!r:.40}; {value!r:.40} is not installed on "
                         f"this Space: it needs {what}")
    chosen: str = _choice("tokenizer", value, offered)
    return chosen


def _choice(name: str, value: Any, choices: Any) -> Any:
    """The value, if it is one of the choices (a list or a dict's keys); else a message."""
    if isinstance(value, (list, dict, set)) or value not in choices:
        raise InputError(f"{name} must be one of {list(choices)}, got {value!r:.40}{did_you_mean(value, choices)}")
    return value


def _max_order(value: Any) -> int:
    """The page's max_order as an int: a whole number on the slider's range, or a message."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ORDER:
        raise InputError(f"max_order must be a whole number from 1 to {MAX_ORDER}, got {value!r:.40}")
    return value


def _library(function: Callable[..., Any], *arguments: Any, **keywords: Any) -> Any:
    """A library check, its message as the page's."""
    try:
        return function(*arguments, **keywords)
    except (ValueError, TypeError, MissingExtra) as error:
        raise InputError(str(error)) from None


@dataclasses.dataclass(frozen=True)
class PageInputs:
    """The page's inputs, checked (see ``checked``): each box's lines, the options as the
    library's settings."""

    boxes: tuple[tuple[str, list[str]], ...]  # (name, lines) of Predictions, References and each set in use
    tokenizer: str
    max_order: int
    options: dict[str, object]

    @classmethod
    def checked(cls, predictions: str | None, references: str | None, references_2: str | None = "",
                references_3: str | None = "", tokenizer: str = DEFAULT_TOKENIZER,
                max_order: int = DEFAULT_MAX_ORDER, smoothing: str = "none", ref_length: str = DEFAULT_REF_LENGTH,
                lowercase: bool = False, advice: str = COMMAND_LINE) -> "PageInputs":
        """Check the page's inputs, as the page and the API pass them, once."""
        max_order, tokenizer = _max_order(max_order), _tokenizer(tokenizer)
        smoothing = _choice("smoothing", smoothing, smoothings())
        texts = _sized((predictions, references, references_2, references_3), advice)
        # Further reference sets count when they hold more than spaces.
        boxes = tuple((name, _lines(text, name)) for name, text in zip(BOXES, texts)
                      if name in BOXES[:2] or text.strip())
        options = dict(tokenizer=tokenizer, max_order=max_order, ref_length=ref_length, lowercase=lowercase,
                       **smoothings()[smoothing])
        _library(resolve_settings, "default", **options)
        return cls(boxes, tokenizer, max_order, options)

    def settings(self, **output: Any) -> Settings:
        """The library's settings for these options, with output options such as sentence_level."""
        settings: Settings = _library(resolve_settings, "default", **self.options, **output)
        return settings

    def segments(self) -> Corpus:
        """Every line's prediction and references, as the library checks them."""
        (_, predictions), *reference_boxes = self.boxes
        if not predictions:
            raise InputError("Predictions is empty: give one prediction per line")
        for name, lines in reference_boxes:
            if len(lines) != len(predictions):
                raise InputError(f"{name} has {len(lines):,} lines but Predictions has {len(predictions):,}: give one "
                                 f"reference per prediction, line by line")
        references = [list(segment) for segment in zip(*(lines for _, lines in reference_boxes))]
        return _checked_segments(predictions, references)


def _checked_segments(predictions: list[str], references: list[list[str]] | list[str]) -> Corpus:
    """The library's corpus of these lines (references: a list per prediction, or one string
    each), its message as the page's."""
    corpus: Corpus = _library(checked_corpus, predictions, references)
    return corpus


class Job(NamedTuple):
    """A request's work, ``finish(function(*arguments, **keywords))``, and its cost. The functions
    are the library's or builtins, so a worker process finds them by name."""

    function: Callable[..., Any]
    arguments: tuple[Any, ...]
    cost: Cost
    finish: Callable[[Any], Any] | None = None  # for a result that is not plain data, such as explain's
    # Read-only, as every Job shares the default: a plain dict still, which pickles to a worker.
    keywords: Mapping[str, Any] = {}


# One thread: two workers run requests side by side already. MAX_TOKENS again: the library's own guard.
COUNTING: dict[str, int] = {"threads": 1, "max_tokens": MAX_TOKENS}


def score_job(inputs: PageInputs) -> Job:
    """Scoring the page's lines, as the metric's compute with per-sentence scores and the signature."""
    corpus = inputs.segments()
    settings = inputs.settings(sentence_level=True, signature=True)
    # The page's texts make a text corpus: lists of strings, never the token ids a Corpus may hold.
    cost = checked_cost(cost_of(corpus.predictions, corpus.references, inputs.tokenizer, inputs.max_order),
                        inputs.tokenizer)
    return Job(corpus_bleu, (corpus, None, settings), cost, keywords=COUNTING)


def explain_job(inputs: PageInputs, line: Any) -> Job:
    """The metric's explain() of one line (0-based): a line of at most MAX_EXPLAIN_TOKENS, so its
    page stays small."""
    lines = [these for _, these in inputs.boxes]
    if isinstance(line, bool) or not isinstance(line, int) or line < 0:
        raise InputError(f"the selected row must be a row of the table, got {line!r:.20}")
    if any(len(these) <= line for these in lines):
        raise InputError(f"there is no line {line + 1} in the texts now: compute again, then select a row")
    prediction, references = lines[0][line], [these[line] for these in lines[1:]]
    _checked_segments([prediction], [references])
    cost = explain_cost(cost_of([prediction], [references], inputs.tokenizer, inputs.max_order), inputs.max_order)
    checked_cost(cost, inputs.tokenizer, MAX_EXPLAIN_TOKENS, f"line {line + 1} (its prediction and references)",
                 "explain longer lines in Python, with exactbleu.explain")
    return Job(explain, ([prediction], [references], inputs.settings()), cost, list, {"max_tokens": MAX_TOKENS})


def compare_job(baseline: str, system: str, references: str, tokenizer: str, test: str) -> Job:
    """sacrebleu's paired test of the second system against the baseline, checked and priced."""
    tokenizer, test = _tokenizer(tokenizer), _choice("test", test, PAIRED_TESTS)
    texts = _sized((baseline, system, references), "compare big corpora with the command line (--paired-bs)")
    systems = {"baseline": _lines(texts[0], "Baseline system"), "system": _lines(texts[1], "Second system")}
    reference_lines = _lines(texts[2], "References for both")
    for name, lines in (("Baseline system", systems["baseline"]), ("Second system", systems["system"])):
        if not lines:
            raise InputError(f"{name} is empty: give one prediction per line")
        if len(lines) != len(reference_lines):
            raise InputError(f"{name} has {len(lines):,} lines but References for both has {len(reference_lines):,}: "
                             f"give one reference per prediction, line by line")
    if len(reference_lines) > MAX_COMPARE_LINES:
        raise InputError(f"the comparison takes at most {MAX_COMPARE_LINES:,} lines; use the command line for more")
    settings = _library(resolve_settings, "sacrebleu", tokenizer=tokenizer)
    for lines in systems.values():
        _checked_segments(lines, reference_lines)
    # Each system is counted against the references: they are tokenized twice.
    cost = cost_of(systems["baseline"] + systems["system"], [[reference] for reference in reference_lines] * 2,
                   tokenizer, settings.statistics.max_order)
    cost = checked_cost(paired_cost(cost, test, len(reference_lines)), tokenizer)
    return Job(paired_test, (systems, reference_lines), cost, keywords={"test": test, "preset": settings, **COUNTING})


def languages() -> list[str]:
    """The target languages whose own tokenizer the "Which BLEU?" view adds, where it is installed
    here ("": none)."""
    offered = tokenizers()
    declared = [language for tokenizer in TOKENIZERS.values() for language in tokenizer.languages]
    return ["", *sorted(language for language in set(declared) if tokenizer_for_language(language) in offered)]


def conventions_job(inputs: PageInputs, reported: str | None, language: str) -> Job:
    """Every convention's score on the page's lines, and with a reported score the conventions that
    give it: ``conventions_result``'s dict."""
    corpus = inputs.segments()
    language = _choice("language", language or "", languages())
    reported = (reported or "").strip() or None
    names: list[str] = _library(convention_tokenizers, language or None)
    costs = [cost_of(corpus.predictions, corpus.references, name, 5) for name in names]
    scripts = {name: cost_of(corpus.predictions, corpus.references, name, 5)
               for name in script_work(costs[0].references, language or None)}
    cost = checked_cost(conventions_cost(costs, scripts, len(corpus.predictions), language=language or None),
                        list(dict.fromkeys([*names, *scripts])),
                        what="every convention of the texts", advice="ask the command line, `exactbleu conventions`")
    keywords = {"language": language or None}
    if reported is None:
        return Job(conventions, (corpus.predictions, corpus.references), cost, conventions_result, keywords)
    return Job(identify, (corpus.predictions, corpus.references, reported), cost, conventions_result, keywords)


def conventions_result(found: list[Convention] | Identified) -> dict[str, Any]:
    """Every convention as a dict, and with a reported score, which of them give it (their places
    in the list) and the score as written."""
    if isinstance(found, list):
        return {"reported": None, "conventions": [row._asdict() for row in found], "matches": []}
    matched = {id(row) for row in found.matches}
    return {"reported": found.reported, "conventions": [row._asdict() for row in found.conventions],
            "matches": [number for number, row in enumerate(found.conventions) if id(row) in matched]}


def run_here(job: Job) -> Any:
    """The job's result, computed in this process; the library's message as the page's."""
    try:
        result = job.function(*job.arguments, **job.keywords)
        return job.finish(result) if job.finish else result
    except (ValueError, TypeError, MissingExtra) as error:
        raise InputError(str(error)) from None


def score(predictions: str, references: str, references_2: str = "", references_3: str = "",
          tokenizer: str = DEFAULT_TOKENIZER, max_order: int = DEFAULT_MAX_ORDER, smoothing: str = "none",
          ref_length: str = DEFAULT_REF_LENGTH, lowercase: bool = False) -> Any:
    """Score newline-separated predictions against one to three newline-separated reference sets,
    in this process: the result the API endpoint /compute answers."""
    return run_here(score_job(PageInputs.checked(predictions, references, references_2, references_3, tokenizer,
                                                 max_order, smoothing, ref_length, lowercase)))


def explain_line(predictions: str | None, references: str | None, references_2: str | None,
                 references_3: str | None, tokenizer: str, max_order: int, smoothing: str, ref_length: str,
                 lowercase: bool, line: Any) -> Any:
    """The metric's explain() of one line (0-based) of the page's texts, in this process."""
    inputs = PageInputs.checked(predictions, references, references_2, references_3, tokenizer, max_order, smoothing,
                                ref_length, lowercase, advice="explain a line in Python")
    return run_here(explain_job(inputs, line))[0]
