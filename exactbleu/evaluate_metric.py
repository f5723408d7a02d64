"""The evaluate metric: its card, its features, and the ``Bleu`` class that ``bleu_metric.py``
hands to ``evaluate.load``. It checks inputs, keeps evaluate's batches, and delegates all of BLEU
to the functional API.

The class lives in the package, not in the script evaluate copies, so that a loaded metric
pickles by reference to ``exactbleu.evaluate_metric.Bleu``: a fresh Dask or Ray worker, which
has the package but not evaluate's copy of the script, can unpickle and use it. Only this module
imports evaluate and datasets; the functional API and the command line never do.
"""

import inspect
import os
import threading
import warnings

import datasets
import evaluate

from . import api, counting
from .inputs import check_inputs, mixed_shapes_message, reference_lists
from .options import OPTIONS, PRESETS, check_no_output_options, resolve_settings

_CITATION = """\
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

_DESCRIPTION = """\
BLEU (Bilingual Evaluation Understudy) scores machine-translated text against one or more
reference translations: the geometric mean of clipped n-gram precisions, times a brevity
penalty for output shorter than the references. By default this module returns exactly what
Hugging Face's `bleu` metric returns, handles empty segments, and loads offline.
"""

_KWARGS_DESCRIPTION = """
Computes corpus BLEU of predictions against one or more references per prediction.

Args:
    predictions (list of str): the translations to score, one string per segment.
    references (list of list of str, or list of str): the references of each prediction.
        The number of references may differ from one prediction to the next.
    tokenizer (str or callable): "13a" (default: mteval-v13a, as in HF's bleu), sacrebleu's
        "intl", "zh", "char", "none", "ko-mecab" or "ja-mecab" (Korean, Japanese), "flores101"
        or "flores200" (SentencePiece, spBLEU), "moses" (sacremoses), or any function
        str -> list[str].
    spm_model (str): the model file of "flores101"/"flores200"; by default sacrebleu's, read
        from $SACREBLEU/models or ~/.sacrebleu/models (never downloaded).
    lang (str): the language of the "moses" tokenizer, "en" by default.
    lowercase (bool): lowercase before tokenizing, as sacrebleu does.
    rstrip (bool): right-strip each segment first; by default as the tokenizer's library does.
    max_order (int): the largest n-gram order, 4 by default, at most 20.
    ref_length (str): "shortest" (default, HF) or "closest" (Papineni et al., sacrebleu, NLTK).
    weights (list of float, or a list of such lists): n-gram weights as in NLTK; their number
        sets the order. Several weight sets make bleu and sentence_bleu lists, one entry each.
    smooth (bool): add one to matches and totals at every order (Lin & Och, 2004).
    smooth_method (str): None (HF's arithmetic), sacrebleu's "none", "floor", "add-k", "exp", or
        NLTK's SmoothingFunction "method0" (no smoothing) ... "method7".
    smooth_value (float): the value of "floor" (0.1), "add-k" (1) or "method1" (epsilon, 0.1).
    effective_order (bool): average only the orders that have n-grams, as sacrebleu does.
    sentence_level (bool): add "sentence_bleu", one score per prediction.
    signature (bool): add "signature", naming every setting that can change the score.
    n_bootstrap (int), bootstrap_seed (int): add "bleu_ci", sacrebleu's 95% bootstrap interval.

Every option may also be given to evaluate.load, where it is checked and becomes this metric's
default; arguments to compute override it.

Presets: evaluate.load(path, "sacrebleu") and evaluate.load(path, "nltk") reproduce those
libraries; explicit arguments override a preset's.

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

_FEATURES = [
    datasets.Features(
        {
            "predictions": datasets.Value("string", id="sequence"),
            "references": datasets.Sequence(datasets.Value("string", id="sequence"), id="references"),
        }
    ),
    datasets.Features(
        {
            "predictions": datasets.Value("string", id="sequence"),
            "references": datasets.Value("string", id="sequence"),
        }
    ),
]


class AddedBatches:
    """What ``add`` and ``add_batch`` gave an object, kept in memory until a ``compute`` that
    returns: evaluate's own store, an Arrow file, was emptied before scoring (an error in it lost
    every batch), was left on disk, and broke for good on a full disk. Distributed mode
    (``num_process`` > 1) still gathers through evaluate's files; then this keeps only the shape
    and the tokens."""

    def __init__(self):
        self.predictions, self.references = [], []
        self.single_strings = None  # whether each prediction's references are one string
        self.tokens = 0  # counted only under max_tokens
        self.size = 0

    def __len__(self):
        return self.size

    def check_shape(self, single_strings):
        """References added now must take the shape of those added before."""
        if self.single_strings is not None and self.single_strings != single_strings:
            raise ValueError(mixed_shapes_message(self.single_strings, 0).replace("references[0]", "this batch"))

    def add(self, predictions, references, single_strings, tokens, keep):
        if keep:
            self.predictions += predictions
            self.references += references
        self.single_strings = single_strings
        self.tokens += tokens
        self.size += len(predictions)


_PER_PROCESS_LOCK = threading.Lock()  # guards making an object's per-process state, once

# The keyword arguments evaluate.load passes to a module's __init__, and EvaluationModule's own.
_EVALUATE_INIT_ARGUMENTS = {name for name in inspect.signature(evaluate.EvaluationModule.__init__).parameters
                            if name not in ("self", "kwargs")}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Bleu(evaluate.Metric):
    def __init__(self, *args, threads=None, max_tokens=None, processes=None, **kwargs):
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
            raise ValueError(f"unknown option(s) {unknown} given to evaluate.load; the scoring options are {OPTIONS}, "
                             f"and the load-time ones threads and max_tokens")
        self._options = {name: kwargs.pop(name) for name in OPTIONS if name in kwargs}
        if processes is not None:
            warnings.warn("processes= is now threads=: the metric counts in threads, never in other processes",
                          FutureWarning, stacklevel=2)
            threads = processes if threads is None else threads
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be a positive int or None, got {threads!r}")
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
            raise ValueError(f"max_tokens must be a positive int or None, got {max_tokens!r}")
        self._threads, self._max_tokens = threads, max_tokens
        self._added = AddedBatches()
        super().__init__(*args, **kwargs)

    def _build_data_dir(self):
        # One process keeps its batches in memory (see AddedBatches), so it needs no cache folder:
        # an unusable one (read-only, a full disk) must not stop evaluate.load.
        if self.num_process == 1:
            return os.path.join(self._data_dir_root, self.name, self.config_name)
        return super()._build_data_dir()

    def _info(self):
        # An unknown config name or a bad load-time option fails at load time, with compute's message.
        if self.config_name not in PRESETS:
            raise ValueError(f"config_name must be one of {sorted(PRESETS)} (the presets), got {self.config_name!r:.80}")
        self._default_settings = resolve_settings(self.config_name, self._options)
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_FEATURES,
            codebase_urls=["https://github.com/tensorflow/nmt/blob/master/nmt/scripts/bleu.py"],
            reference_urls=["https://aclanthology.org/P02-1040", "https://en.wikipedia.org/wiki/BLEU"],
        )

    # evaluate appends the inputs description to the docstrings of compute, add_batch and add
    # at every load, so each override needs a docstring of its own.
    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions and their references, checked first."""
        if kwargs:
            raise ValueError(f"add_batch takes predictions and references, got also {sorted(kwargs)}")
        predictions, references, single_strings = check_inputs(predictions, references)
        with self._lock():
            self._added.check_shape(single_strings)
            tokens = self._within_max_tokens(predictions, references)
            if self.num_process > 1:
                super().add_batch(predictions=predictions, references=references)
            self._added.add(predictions, references, single_strings, tokens, keep=self.num_process == 1)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction and its references, checked first. evaluate's docs show both
        ``add(prediction=p, reference=r)`` and ``add(predictions=p, references=r)``: either names
        the one example."""
        if "predictions" in kwargs and prediction is None:
            prediction = kwargs.pop("predictions")
        if "references" in kwargs and reference is None:
            reference = kwargs.pop("references")
        if kwargs:
            raise ValueError(f"add takes prediction and reference (or evaluate's predictions and references), each "
                             f"once, got also {sorted(kwargs)}")
        self.add_batch(predictions=[prediction], references=[reference])

    def _within_max_tokens(self, predictions, references):
        """The tokens of a batch, by this metric's tokenizer, refused before it is stored when
        they would take what was added past ``max_tokens``: memory stays bounded batch by batch."""
        if self._max_tokens is None:
            return 0
        tokens = counting.corpus_tokens(predictions, reference_lists(references), self._default_settings)
        if self._added.tokens + tokens > self._max_tokens:
            raise ValueError(f"this batch holds {tokens:,} tokens, and with the {self._added.tokens:,} added before "
                             f"it would pass max_tokens={self._max_tokens:,}, the most this metric takes; the batch "
                             f"is not added, and what was added before is kept: compute() it, then add more")
        return tokens

    def _lock(self):
        """This process's lock of the object: add, add_batch and compute on one object take turns,
        so a compute scores every batch added before it and none twice. (evaluate's own store,
        still used in distributed mode, is not safe from threads either: from 8 threads at once,
        batches were lost or Arrow raised.)"""
        return self._of_this_process("_object_lock", threading.RLock)

    def __len__(self):
        return len(self._added)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score the predictions and references given here and any added before.

        What was added is dropped only once its score is returned: after any error, an
        interrupt included, a later ``compute`` (with a fixed option) scores all of it.
        """
        settings = self._settings(**kwargs)
        given = predictions is not None or references is not None
        if given:
            predictions, references, single_strings = check_inputs(predictions, references)
        with self._lock():
            added = self._added
            if given:
                added.check_shape(single_strings)
            if self.num_process > 1 and not added.predictions:
                return self._compute_distributed(predictions, references, settings)
            if not added and not given:
                raise ValueError("no predictions to score: pass predictions and references, or add() them first")
            if added:
                result = self._compute(added.predictions + (predictions or []),
                                       added.references + (references or []), settings)
                self._added = AddedBatches()
                return result
        # Nothing is stored: score directly, touching no state of the object, so threads computing
        # on one object run side by side.
        return self._compute(predictions, references, settings)

    def _compute_distributed(self, predictions, references, settings):
        """evaluate's distributed compute: every process writes its batches to a file, and process 0
        reads them all and scores. If scoring fails there, process 0 keeps the gathered data in
        memory for the next compute, and the files go."""
        if predictions is not None:
            super().add_batch(predictions=predictions, references=references)
        single_strings, self._added = self._added.single_strings, AddedBatches()
        try:
            return super().compute(settings=settings)
        except BaseException:
            if self.process_id == 0 and self.data is not None:
                gathered = self.data.with_format(None)
                kept = AddedBatches()
                kept.add(gathered["predictions"], gathered["references"], single_strings, 0, keep=True)
                self._added = kept
                self._remove_files()
            raise

    def _remove_files(self):
        """Delete evaluate's cache files of a failed distributed compute, as it does after one that
        succeeds, and release their locks."""
        self.data = self.writer = None
        for filelock, file_path in reversed(list(zip(self.filelocks or [], self.file_paths or []))):
            if os.path.exists(file_path):
                os.remove(file_path)
            filelock.release()
        self.filelocks = self.file_paths = None

    def _compute(self, predictions, references, settings):
        return api.result_of(predictions, reference_lists(references), settings, self._counting())

    def statistics(self, predictions, references, **options):
        """The per-segment sufficient statistics, as columns, for scoring later or elsewhere.

        Statistics add up: the rows of any split of a corpus (batches, ``datasets.map`` workers,
        machines) give, through ``score_statistics``, exactly the result of ``compute`` on the
        whole. Options that change the statistics (tokenizer, lang, lowercase, rstrip, max_order
        or weights, ref_length) must be the same here as there.

        Returns:
            dict of columns, one entry per segment: ``prediction_length``, ``reference_length``,
            ``matches`` and ``totals`` (lists of max_order ints) and ``references`` (how many).
        """
        settings = self._settings(**options)
        predictions, references, _ = check_inputs(predictions, references)
        return api.count_statistics(predictions, reference_lists(references), settings, self._counting()).as_dict()

    def explain(self, predictions, references, **options):
        """Why this score? Each segment's n-gram evidence (see ``exactbleu.explain``)."""
        check_no_output_options(options, "explain")
        return api.explain_with(predictions, references, self._settings(**options), self._counting())

    def paired_test(self, systems, references, *, baseline=None, test="bootstrap", n_samples=None, seed=12345,
                    **options):
        """Is a system really better than the baseline? sacrebleu's paired tests, on statistics
        (see ``exactbleu.paired_test``)."""
        check_no_output_options(options, "paired_test")
        return api.paired_test_with(systems, references, baseline, test, n_samples, seed, self._settings(**options),
                                    self._counting())

    def score_statistics(self, statistics, **options):
        """The result dict from columns of ``statistics`` (a dict, or a ``datasets.Dataset``)."""
        settings = self._settings(**options)
        return api.result_of_statistics(api.statistics_from_columns(statistics, settings), settings)

    def _settings(self, **options):
        """The settings of a call: its options over those given at load time, over the preset's."""
        if not options:
            return self._default_settings
        return resolve_settings(self.config_name, self._options, **options)

    def _counting(self):
        return api.Counting(self._reference_cache(), self._threads, self._max_tokens)

    def _reference_cache(self):
        """This process's reference cache."""
        return self._of_this_process("_cache", api.ReferenceCache)

    def _of_this_process(self, name, make):
        """What the object keeps for this process alone, made by ``make()`` at first use. A process
        forked from this one (a worker pool) makes its own: the copy it inherits may hold a lock
        that a thread of this one had taken."""
        with _PER_PROCESS_LOCK:
            kept = self.__dict__.get(name)
            if kept is None or kept[0] != os.getpid():
                kept = self.__dict__[name] = (os.getpid(), make())
        return kept[1]

    def __getstate__(self):
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
