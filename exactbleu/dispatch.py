"""The one dispatch: where a checked input is counted. Text and token ids are counted on the host
(``counting``); token-id tensors on their own device (``device``, imported only when a tensor
arrives), but for tensors in the CPU's memory, which go to the host's numpy engine: it takes their
memory as it is and is several times faster there than torch's kernels (8192 x 256 ids: 0.22 s
against 1.6 s), unless ``cpu_tensor_kernels("torch")`` asks for the device's kernels. Either way
the numbers are the same, and scores of tensors come back as tensors on their device.
"""

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import counting
from .counting import ExpectedScorer, PairReducer, Run, Scorer, SelfBleuStatistics
from .inputs import (
    Checked,
    Corpus,
    Groups,
    Kind,
    Texts,
    checked_host_groups,
    checked_host_texts,
    corpus_of,
    host_corpus,
    ignored_ids,
    kind_of,
    read_as_fairseq,
    reference_columns,
    reference_counts,
)
from .options import Settings, counted_orders, counted_with, for_text, for_token_ids
from .registry import did_you_mean
from .scoring import scores_of_rows, several_weight_sets
from .sufficient_statistics import Statistics

CPU_TENSOR_KERNELS = ("numpy", "torch")
_cpu_tensor_kernels = contextvars.ContextVar("cpu_tensor_kernels", default=CPU_TENSOR_KERNELS[0])


@contextlib.contextmanager
def cpu_tensor_kernels(kernels: str) -> Iterator[None]:
    """Within the block (in this thread, or this asyncio task), token-id tensors in the CPU's memory
    are counted by ``kernels``: "numpy", the default (the host's numpy engine, in threads), or
    "torch" (the kernels a GPU runs, here on the CPU: how the tests hold the device's code to the
    numpy engine). The numbers are the same either way; only the time differs."""
    if kernels not in CPU_TENSOR_KERNELS:
        raise ValueError(f"kernels must be one of {list(CPU_TENSOR_KERNELS)}, got {kernels!r:.80}"
                         f"{did_you_mean(kernels, CPU_TENSOR_KERNELS)}")
    token = _cpu_tensor_kernels.set(kernels)
    try:
        yield
    finally:
        _cpu_tensor_kernels.reset(token)


def _on_device(checked: Checked) -> bool:
    """Whether a checked input is counted on its device: tensors, but for those in the CPU's memory
    under the "numpy" kernels, which the host counts as the same ids."""
    if checked.kind != "tensor":
        return False
    from . import device  # torch loads here, when the first tensor arrives

    return not (device.in_cpu_memory(checked) and _cpu_tensor_kernels.get() == "numpy")


def _on_host(checked: Checked) -> Checked:
    """The input where only the host counts it: tensors come as the same ids."""
    if checked.kind != "tensor":
        return checked
    from . import device

    return device.on_host(checked)


def checked_corpus(predictions: object, references: object, ignore_ids: object | None = None) -> Corpus:
    """Check predictions and their references as every function takes them: text (a list of
    references per prediction, or one reference string each), or token ids (lists of ints, arrays,
    or torch tensors on any device) with ``ignore_ids`` dropped: on the host (``inputs.corpus_of``),
    and tensors on their device too (``device.checked_tensors``), at once. Raises a ValueError or
    TypeError that names the argument."""
    corpus = corpus_of(predictions, references, ignore_ids)
    if corpus.kind != "tensor":
        return corpus
    from . import device

    return device.checked_tensors(corpus)


def checked_texts(texts: object, name: str, ignore_ids: object | None = None) -> Texts:
    """Check a list of texts, as Self-BLEU and BLEU matrices take them: strings, or token ids."""
    if kind_of(texts) == "tensor":
        from . import device

        return device.checked_texts(texts, name, None if ignore_ids is None else ignored_ids(ignore_ids))
    return checked_host_texts(texts, name, ignore_ids)


def checked_groups(texts: object, name: str, ignore_ids: object | None = None) -> tuple[Texts, NDArray[np.int64]]:
    """Check texts in groups, as MBR takes them: a list of texts per source (strings or token ids),
    or a (sources, texts, length) tensor. Returns the texts end to end and each group's size."""
    if kind_of(texts) == "tensor":
        from . import device

        return device.checked_groups(texts, name, None if ignore_ids is None else ignored_ids(ignore_ids))
    return checked_host_groups(texts, name, ignore_ids)


def settings_for(kind: Kind, settings: Settings) -> Settings:
    """The settings an input of this kind is counted under: token ids are tokens already."""
    return for_text(settings) if kind == "text" else for_token_ids(settings)


def corpus_statistics(corpus: Corpus, settings: Settings, run: Run = Run()) -> Statistics:
    """The statistics of a checked corpus (``inputs.corpus_of``, which kept its references) under
    settings fit for its kind (``settings_for``), counted as ``run`` says (``Run``, checked where
    the public function took it). Tensors are checked on their device and counted there, but for
    those in the CPU's memory under the "numpy" kernels, which the host counts as the same ids, as
    it counts text and token ids. Under fairseq's rules for ids (``pad``, ``eos``, ``unk``), the
    host reads and counts them as fairseq's scorer does (``counting.fairseq_corpus_statistics``)."""
    tokenize = settings.tokenize
    if tokenize.id_rules:
        host = host_corpus(corpus, settings.statistics.keep_references)
        return counting.fairseq_corpus_statistics(read_as_fairseq(host, tokenize.pad, tokenize.eos, tokenize.unk),
                                                  settings)
    if settings.statistics.keep_references == "best" and corpus.kind != "tensor":
        return _best_references(corpus, settings, run)
    if corpus.kind == "tensor":
        from .device import checks, rows, transfer

        checked = checks.checked_tensors(corpus)
        if _on_device(checked):
            return rows.statistics_on_device(checked, settings, run)
        corpus = transfer.on_host(checked)
    counted = counting.corpus_statistics(corpus, settings, run)
    # Rows whose kept references the whole corpus decided carry its mark, so that they score only whole.
    return counted.sealed()


def _best_references(corpus: Corpus, settings: Settings, run: Run) -> Statistics:
    """Each prediction's row against the one reference whose sentence score with it is the best
    (the first of equals), each reference counted and scored alone: HELM's best over references.
    With one reference each, that one is the best, under any weights."""
    columns = reference_columns(corpus)
    if len(columns) == 1:
        return counting.corpus_statistics(corpus, settings, run)
    if several_weight_sets(settings):
        raise ValueError("keep_references='best' keeps the reference that scores best, which takes one weight set: "
                         "score each set alone")
    best: NDArray[np.float64] = np.full(len(corpus.predictions), -np.inf)
    chosen = np.zeros((len(best), 2 + 2 * counted_orders(settings)), dtype=np.int64)
    for place, (column, standing) in enumerate(columns):
        # A column's references are not the corpus's (no cache); the first column counts every prediction.
        counted = counting.corpus_statistics(column, settings, run._replace(
            cache=None, progress=run.progress if place == 0 else None))
        scores = scores_of_rows(counted, settings)
        better = scores > best[standing]
        chosen[standing[better]] = counted.array[better]
        best[standing[better]] = scores[better]
    return Statistics(chosen, counted_orders(settings), reference_counts(corpus), counted_with(settings))


def self_rows(texts: Texts, settings: Settings, threads: int | None = None) -> Statistics:
    """Each text's statistics row against all the other texts."""
    if _on_device(texts):
        from . import device

        return device.self_rows(texts, settings, threads)
    return counting.self_rows(_on_host(texts), settings, threads)


def shard_statistics(texts: Texts, settings: Settings, threads: int | None = None) -> SelfBleuStatistics:
    """What Self-BLEU needs of a shard of a corpus, counted on the host (it adds up across machines)."""
    return counting.shard_statistics(_on_host(texts), settings, threads)


def self_rows_against(texts: Texts, corpus: SelfBleuStatistics, settings: Settings) -> Statistics:
    """Each text's row against all the other texts of the corpus that ``corpus`` counts."""
    return counting.self_rows_against(_on_host(texts), corpus, settings)


def matrix(predictions: Texts, references: Texts, settings: Settings, score: Scorer, sets: int | None,
           threads: int | None = None) -> Any:
    """The BLEU matrix of predictions (rows) against references (columns), of one kind."""
    if _on_device(predictions):
        from . import device

        return device.matrix(predictions, references, settings, score, sets, threads)
    return counting.matrix(_on_host(predictions), _on_host(references), settings, score, sets, threads)


def pairwise_utilities(candidates: Texts, references: Texts | None, groups: Groups, settings: Settings,
                       reduce: PairReducer, threads: int | None = None) -> NDArray[np.float64]:
    """MBR's pairwise utilities, one per candidate end to end (see ``counting.by_source``): the
    pairs of tensors are counted on their device."""
    if _on_device(candidates):
        from . import device

        return device.pairwise_utilities(candidates, references, groups, settings, reduce, threads)
    return counting.pairwise_utilities(_on_host(candidates), None if references is None else _on_host(references),
                                       groups, settings, reduce, threads)


def aggregated_utilities(candidates: Texts, references: Texts | None, groups: Groups, settings: Settings,
                         probabilities: NDArray[np.float64], score: ExpectedScorer,
                         threads: int | None = None) -> NDArray[np.float64]:
    """MBR's aggregated utilities, one per candidate end to end: they sum floats, so they are
    counted on the host, in one order, wherever the tensors lie."""
    return counting.aggregated_utilities(_on_host(candidates), None if references is None else _on_host(references),
                                         groups, settings, probabilities, score, threads)


def returned(scores: Any, checked: Corpus | Texts) -> Any:
    """Scores as the input's kind takes them: a float64 array, or for tensors a float64 tensor on
    their device."""
    if checked.kind == "tensor":
        from . import device

        return device.returned(scores, checked)
    return scores


__all__ = [
    "CPU_TENSOR_KERNELS",
    "aggregated_utilities",
    "checked_corpus",
    "checked_groups",
    "checked_texts",
    "corpus_statistics",
    "cpu_tensor_kernels",
    "matrix",
    "pairwise_utilities",
    "returned",
    "self_rows",
    "self_rows_against",
    "settings_for",
    "shard_statistics",
]
