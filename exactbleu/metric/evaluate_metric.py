"""The ``Bleu`` class that ``bleu_metric.py`` hands to ``evaluate.load``, with its features. It
keeps evaluate's batches and delegates all of BLEU to the public API.

The class lives in the package, not in the script evaluate copies, so that a loaded metric
pickles by reference to ``exactbleu.metric.evaluate_metric.Bleu``: a fresh Dask or Ray worker,
which has the package but not evaluate's copy of the script, can unpickle and use it. Only this
module imports evaluate and datasets (the ``evaluate`` extra); nothing else of the package does.
"""

import inspect
import os
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar, cast

from .. import MissingExtra

try:
    import datasets
    import evaluate
except ImportError as error:
    raise MissingExtra("the evaluate metric", "evaluate and datasets", "evaluate", name=error.name) from None

from .. import (
    OPTIONS,
    PRESETS,
    Corpus,
    Explanations,
    ReferenceCache,
    Run,
    Settings,
    Statistics,
    checked_corpus,
    corpus_bleu,
    count_tokens,
    did_you_mean,
    explain,
    paired_test,
    resolve_settings,
    score,
    statistics,
)
from .card import CITATION, DESCRIPTION, inputs_description

_FEATURES = [
    datasets.Features({"predictions": datasets.Value("string", id="sequence"),
                       "references": datasets.Sequence(datasets.Value("string", id="sequence"), id="references")}),
    datasets.Features({"predictions": datasets.Value("string", id="sequence"),
                       "references": datasets.Value("string", id="sequence")}),
]


class AddedBatches:
    """What ``add`` and ``add_batch`` gave an object, kept in memory until a ``compute`` that
    returns: evaluate's own store, an Arrow file, was emptied before scoring (an error in it lost
    every batch), was left on disk, and broke for good on a full disk. Distributed mode
    (``num_process`` > 1) still gathers through evaluate's files; then this keeps only the shape
    and the tokens."""

    def __init__(self) -> None:
        self.predictions: list[str] = []
        self.references: list[list[str]] = []
        self.single_strings: bool | None = None  # whether each prediction's references are one string
        self.tokens = 0  # counted only under max_tokens
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def check_shape(self, single_strings: bool) -> None:
        """References added now must take the shape of those added before: evaluate fixes the
        shape from the first example, and would read a later string as a list of characters."""
        if self.single_strings is not None and self.single_strings != single_strings:
            first, this = ("a string", "a list") if self.single_strings else ("a list", "a string")
            raise ValueError(f"references mixes shapes: the first prediction's references are {first} but this "
                             f"batch's are {this}; give every prediction a list of reference strings (or every one "
                             f"a single string)")

    def add(self, corpus: Corpus, tokens: int, keep: bool) -> None:
        if keep:
            predictions, references = _text(corpus)
            self.predictions += predictions
            self.references += references
        self.single_strings = corpus.single_references
        self.tokens += tokens
        self.size += len(corpus.predictions)


_PER_PROCESS_LOCK = threading.Lock()  # guards making an object's per-process state, once
Kept = TypeVar("Kept")

# The keyword arguments evaluate.load passes to a module's __init__, and EvaluationModule's own.
_EVALUATE_INIT_ARGUMENTS = {name for name in inspect.signature(evaluate.EvaluationModule.__init__).parameters
                            if name not in ("self", "kwargs")}


@evaluate.utils.file_utils.add_start_docstrings(DESCRIPTION, inputs_description())
class Bleu(evaluate.Metric):  # type: ignore[misc]  # evaluate has no type information
    # evaluate's state, which its methods set (None between computes).
    data: Any
    writer: Any
    filelocks: Any
    file_paths: Any

    def __init__(self, *args: Any, threads: int | None = None, max_tokens: int | None = None,
                 processes: int | None = None, **kwargs: Any):
        """Load-time options. Every scoring option of ``compute`` may be given to ``evaluate.load``
        (``evaluate.load(path, max_order=2, tokenizer="char")``): it is checked here and becomes
        this metric's default, which ``compute`` arguments override. So ``evaluate.combine`` and
        ``evaluate.evaluator``, which call ``compute`` without options, use it.

        Two more change no score: ``threads``, how many threads may count one big corpus (by
        default two where two cores are free; ``processes`` is its old name); ``max_tokens``, the
        most tokens one call may count, predictions and references together (a server's guard; by
        default no limit)."""
        # evaluate's own __init__ swallows any keyword it does not know: a typo would be ignored.
        unknown = sorted(set(kwargs) - set(OPTIONS) - _EVALUATE_INIT_ARGUMENTS)
        if unknown:
            raise ValueError(f"unknown option(s) {unknown} given to evaluate.load; the scoring options are "
                             f"{list(OPTIONS)}, and the load-time ones threads and max_tokens"
                             f"{did_you_mean(unknown, [*OPTIONS, 'threads', 'max_tokens'], each=True)}")
        self._options = {name: kwargs.pop(name) for name in OPTIONS if name in kwargs}
        if processes is not None:
            warnings.warn("processes= is now threads=: the metric counts in threads, never in other processes",
                          FutureWarning, stacklevel=2)
            threads = processes if threads is None else threads
        run = Run(threads, max_tokens).checked()  # as every function that takes them checks them
        self._threads, self._max_tokens = run.threads, run.max_tokens
        self._added = AddedBatches()
        super().__init__(*args, **kwargs)

    def _build_data_dir(self) -> str:
        # One process keeps its batches in memory (see AddedBatches), so it needs no cache folder:
        # an unusable one (read-only, a full disk) must not stop evaluate.load.
        if self.num_process == 1:
            return str(os.path.join(self._data_dir_root, self.name, self.config_name))
        return str(super()._build_data_dir())

    def _info(self) -> "evaluate.MetricInfo":
        # An unknown config name or a bad load-time option fails at load time, with compute's message.
        if self.config_name not in PRESETS:
            raise ValueError(f"config_name must be one of {list(PRESETS)} (the presets), got {self.config_name!r:.80}"
                             f"{did_you_mean(self.config_name, PRESETS)}")
        self._default_settings = resolve_settings(self.config_name, self._options)
        return evaluate.MetricInfo(
            description=DESCRIPTION, citation=CITATION, inputs_description=inputs_description(), features=_FEATURES,
            codebase_urls=["https://github.com/tensorflow/nmt/blob/master/nmt/scripts/bleu.py"],
            reference_urls=["https://aclanthology.org/P02-1040", "https://en.wikipedia.org/wiki/BLEU"],
        )

    # evaluate appends the inputs description to the docstrings of compute, add_batch and add
    # at every load, so each override needs a docstring of its own.
    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add a batch of predictions and their references, checked first."""
        if kwargs:
            raise ValueError(f"add_batch takes predictions and references, got also {sorted(kwargs)}"
                             f"{did_you_mean(sorted(kwargs), ['predictions', 'references'], each=True)}")
        corpus = _checked_text(predictions, references)
        with self._lock():
            self._added.check_shape(corpus.single_references)
            tokens = self._within_max_tokens(corpus)
            if self.num_process > 1:
                super().add_batch(predictions=corpus.predictions, references=_as_given(corpus))
            self._added.add(corpus, tokens, keep=self.num_process == 1)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one prediction and its references, checked first. evaluate's docs show both
        ``add(prediction=p, reference=r)`` and ``add(predictions=p, references=r)``: either names
        the one example."""
        prediction = kwargs.pop("predictions") if "predictions" in kwargs and prediction is None else prediction
        reference = kwargs.pop("references") if "references" in kwargs and reference is None else reference
        if kwargs:
            names = ["prediction", "reference", "predictions", "references"]
            raise ValueError(f"add takes prediction and reference (or evaluate's predictions and references), each "
                             f"once, got also {sorted(kwargs)}{did_you_mean(sorted(kwargs), names, each=True)}")
        self.add_batch(predictions=[prediction], references=[reference])

    def _within_max_tokens(self, corpus: Corpus) -> int:
        """The tokens of a batch, by this metric's tokenizer, refused before it is stored when
        they would take what was added past ``max_tokens``: memory stays bounded batch by batch."""
        if self._max_tokens is None:
            return 0
        predictions, references = _text(corpus)
        texts = [*predictions, *(reference for segment in references for reference in segment)]
        tokens = count_tokens(texts, self._default_settings)
        if self._added.tokens + tokens > self._max_tokens:
            raise ValueError(f"this batch holds {tokens:,} tokens, and with the {self._added.tokens:,} added before "
                             f"it would pass max_tokens={self._max_tokens:,}, the most this metric takes; the batch "
                             f"is not added, and what was added before is kept: compute() it, then add more")
        return tokens

    def _lock(self) -> "threading.RLock":
        """This process's lock of the object: add, add_batch and compute on one object take turns,
        so a compute scores every batch added before it and none twice. (evaluate's own store,
        still used in distributed mode, is not safe from threads either: from 8 threads at once,
        batches were lost or Arrow raised.)"""
        return self._of_this_process("_object_lock", threading.RLock)

    def __len__(self) -> int:
        return len(self._added)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """Score the predictions and references given here and any added before.

        What was added is dropped only once its score is returned: after any error, an
        interrupt included, a later ``compute`` (with a fixed option) scores all of it.
        """
        settings = self._settings(**kwargs)
        given = _checked_text(predictions, references) if predictions is not None or references is not None else None
        with self._lock():
            added = self._added
            if given is not None:
                added.check_shape(given.single_references)
            if self.num_process > 1 and not added.predictions:
                return self._compute_distributed(given, settings)
            if not added and given is None:
                raise ValueError("no predictions to score: pass predictions and references, or add() them first")
            if added:
                more = _text(given) if given is not None else ([], [])
                corpus = Corpus(added.predictions + more[0], added.references + more[1], "text")
                result = self._compute(corpus, None, settings)
                self._added = AddedBatches()
                return result
        # Nothing is stored: score directly, touching no state of the object, so threads computing
        # on one object run side by side.
        assert given is not None
        return self._compute(given, None, settings)

    def _compute_distributed(self, given: Corpus | None, settings: Settings) -> dict[str, Any] | None:
        """evaluate's distributed compute: every process writes its batches to a file, and process 0
        reads them all and scores. If scoring fails there, process 0 keeps the gathered data in
        memory for the next compute, and the files go."""
        if given is not None:
            super().add_batch(predictions=given.predictions, references=_as_given(given))
        single_strings, self._added = self._added.single_strings, AddedBatches()
        try:
            result: dict[str, Any] | None = super().compute(settings=settings)
            return result
        except BaseException:
            if self.process_id == 0 and self.data is not None:
                gathered = self.data.with_format(None)
                kept = AddedBatches()
                kept.add(_checked_text(gathered["predictions"], gathered["references"]), 0, keep=True)
                kept.single_strings = single_strings
                self._added = kept
                self._remove_files()
            raise

    def _remove_files(self) -> None:
        """Delete evaluate's cache files of a failed distributed compute, as it does after one that
        succeeds, and release their locks."""
        self.data = self.writer = None
        for filelock, file_path in reversed(list(zip(self.filelocks or [], self.file_paths or []))):
            if os.path.exists(file_path):
                os.remove(file_path)
            filelock.release()
        self.filelocks = self.file_paths = None

    def _compute(self, predictions: Any, references: Any, settings: Settings) -> dict[str, Any]:
        """The result of a checked ``Corpus`` (``references`` None); or, as evaluate's distributed
        compute calls it, of the gathered predictions and references."""
        return corpus_bleu(predictions, references, settings, threads=self._threads, max_tokens=self._max_tokens,
                           cache=self._reference_cache())

    def statistics(self, predictions: Any, references: Any, **options: Any) -> dict[str, list[Any]]:
        """The per-segment sufficient statistics, as columns, for scoring later or elsewhere.

        Statistics add up: the rows of any split of a corpus (batches, the workers of
        ``datasets.Dataset.map``, machines) give, through ``score_statistics``, exactly the result
        of ``compute`` on the whole. Options that change the statistics (the tokenizer and its settings, lowercase,
        rstrip, max_order or weights, ref_length) must be the same here as there.

        Returns:
            dict of columns, one entry per segment: ``prediction_length``, ``reference_length``,
            ``matches`` and ``totals`` (lists of max_order ints) and ``references`` (how many).
        """
        return statistics(_checked_text(predictions, references), None, self._settings(**options),
                          threads=self._threads, max_tokens=self._max_tokens, cache=self._reference_cache()).as_dict()

    def explain(self, predictions: Any, references: Any, **options: Any) -> Explanations:
        """Why this score? Each segment's n-gram evidence (see ``exactbleu.explain``)."""
        return explain(predictions, references, self._settings(**options), max_tokens=self._max_tokens)

    def paired_test(self, systems: Any, references: Any, *, baseline: str | None = None, test: str = "bootstrap",
                    n_samples: int | None = None, seed: int | None = 12345,
                    **options: Any) -> dict[str, dict[str, float | None]]:
        """Is a system really better than the baseline? sacrebleu's paired tests, on statistics
        (see ``exactbleu.paired_test``)."""
        return paired_test(systems, references, baseline=baseline, test=test, n_samples=n_samples, seed=seed,
                           preset=self._settings(**options), threads=self._threads, max_tokens=self._max_tokens,
                           cache=self._reference_cache())

    def score_statistics(self, statistics: Any, **options: Any) -> dict[str, Any]:
        """The result dict from columns of ``statistics`` (a dict, or a ``datasets.Dataset``)."""
        return score(Statistics.from_dict(statistics), self._settings(**options))

    def _settings(self, **options: Any) -> Settings:
        """The settings of a call: its options over those given at load time, over the preset's."""
        return resolve_settings(self.config_name, self._options, **options) if options else self._default_settings

    def _reference_cache(self) -> ReferenceCache:
        """This process's reference cache."""
        return self._of_this_process("_cache", ReferenceCache)

    def _of_this_process(self, name: str, make: Callable[[], Kept]) -> Kept:
        """What the object keeps for this process alone, made by ``make()`` at first use. A process
        forked from this one (a worker pool) makes its own: the copy it inherits may hold a lock
        that a thread of this one had taken."""
        with _PER_PROCESS_LOCK:
            kept = self.__dict__.get(name)
            if kept is None or kept[0] != os.getpid():
                kept = self.__dict__[name] = (os.getpid(), make())
        value: Kept = kept[1]
        return value

    def __getstate__(self) -> dict[str, Any]:
        # Pickled (say, by datasets.map) without its reference cache and the file locks evaluate
        # keeps after a compute(): those belong to this process, and cannot pickle.
        state = self.__dict__.copy()
        state.pop("_cache", None)
        state.pop("_object_lock", None)
        for lock in ("filelock", "rendez_vous_lock"):
            if lock in state:
                state[lock] = None
        if "filelocks" in state:
            state["filelocks"] = []
        return state


def _checked_text(predictions: Any, references: Any) -> Corpus:
    """A batch of text, checked as every function checks it (the metric's features are strings)."""
    corpus = checked_corpus(predictions, references)
    if corpus.kind != "text":
        raise TypeError("the evaluate metric scores text: its features are strings; score token ids with "
                        "exactbleu.corpus_bleu")
    return corpus


def _text(corpus: Corpus) -> tuple[list[str], list[list[str]]]:
    """A checked batch of text: its predictions, and each prediction's references."""
    return cast(list[str], corpus.predictions), cast(list[list[str]], corpus.references)


def _as_given(corpus: Corpus) -> list[Any]:
    """A batch's references as evaluate's features hold them: one string each, or a list each."""
    references = _text(corpus)[1]
    return [segment[0] for segment in references] if corpus.single_references else list(references)
