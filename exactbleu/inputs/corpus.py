"""What a checked input is: a ``Corpus`` (predictions and each one's references) or ``Texts`` (as
Self-BLEU, BLEU matrices and MBR take them), each knowing its ``kind``, which says how it is
counted; and the references a corpus keeps, cut as the option ``keep_references`` says (or, for
its "best", taken a column at a time: ``reference_columns``)."""

from typing import Any, Literal, NamedTuple, TypeVar

import numpy as np

from .groups import starts_of
from .ids import TokenIds
from .tensors import is_tensor

Kind = Literal["text", "ids", "tensor"]


class Corpus(NamedTuple):
    """A corpus, checked: its predictions, and each prediction's references (a list of strings
    each, or token ids grouped by prediction); ``kind`` says which ("text", "ids" or "tensor"),
    and ``single_references`` whether each prediction's references were given as one string.
    Tensors stand as they were given, with the ``ignore_ids`` to drop (references that are not
    tensors checked already, as ``TokenIds``), until their device checks them
    (``device.checked_tensors``), where they become the device's padded rows."""

    predictions: Any  # list[str], TokenIds, or tensors, as kind says
    references: Any
    kind: Kind
    single_references: bool = False
    ignore_ids: Any = None


class Texts(NamedTuple):
    """Texts, checked, as Self-BLEU and BLEU matrices take them: ``values`` (a list of strings,
    ``TokenIds``, or the device's tensors), their ``kind`` and how many there are."""

    values: Any
    kind: Kind
    size: int


Checked = TypeVar("Checked", Corpus, Texts)  # a checked input, either way


def with_references_kept(corpus: Corpus, rule: str) -> Corpus:
    """The corpus with each prediction's references cut as ``rule`` says: "all" of them, the
    "first", or as many as the prediction with the "fewest" has (the option ``keep_references``);
    of text or token ids (a tensor's references are refused where ``rule`` is not "all"). Under
    "one", a prediction with more than one reference is refused."""
    if rule == "one":
        return _one_reference_each(corpus)
    if rule == "all":
        return corpus
    if corpus.kind == "tensor":
        raise ValueError(f"keep_references={rule!r} applies to text and to token ids as lists or arrays; for "
                         f"tensors, pass them as lists (tensor.tolist()), or each prediction's references cut already "
                         f"with keep_references='all'")
    if rule == "best":  # every reference stays: each is scored alone (``reference_columns``)
        return corpus
    if corpus.kind == "text":
        keep = 1 if rule == "first" else min(len(group) for group in corpus.references)
        return corpus._replace(references=[group[:keep] for group in corpus.references])
    references: TokenIds = corpus.references
    assert references.groups is not None
    keep = 1 if rule == "first" else int(references.groups.min())
    groups = np.minimum(references.groups, keep)
    # Each reference's place in its prediction's group: the first ``keep`` of each group stay.
    starts = np.repeat(starts_of(references.groups), references.groups)
    kept = np.arange(len(references.lengths)) - starts < np.repeat(groups, references.groups)
    ids = references.ids[np.repeat(kept, references.lengths)]
    return corpus._replace(references=TokenIds(ids, references.lengths[kept], groups))


def reference_columns(corpus: Corpus) -> list[tuple[Corpus, np.ndarray]]:
    """The corpus a reference at a time, as ``keep_references="best"`` scores it: for each place
    j among a prediction's references, the predictions that have a j-th reference, each with that
    one alone, and where those predictions stand in the corpus (text or token ids as lists or
    arrays; ``with_references_kept`` refuses tensors before, the boundary a prediction without one)."""
    groups = np.array(reference_counts(corpus), dtype=np.int64)
    columns = []
    for place in range(int(groups.max()) if len(groups) else 0):
        standing = np.flatnonzero(groups > place)
        if corpus.kind == "text":
            column = Corpus([corpus.predictions[i] for i in standing.tolist()],
                            [[corpus.references[i][place]] for i in standing.tolist()], "text")
        else:
            references = corpus.references
            chosen = starts_of(groups)[standing] + place
            column = Corpus(_segments(corpus.predictions, standing),
                            TokenIds(_segments(references, chosen).ids, references.lengths[chosen],
                                     np.ones(len(standing), dtype=np.int64)), "ids")
        columns.append((column, standing))
    return columns


def _segments(texts: TokenIds, chosen: np.ndarray) -> TokenIds:
    """The segments of token ids at the places ``chosen`` (ascending), without groups."""
    kept = np.zeros(len(texts.lengths), dtype=bool)
    kept[chosen] = True
    return TokenIds(texts.ids[np.repeat(kept, texts.lengths)], texts.lengths[chosen])


def reference_counts(corpus: Corpus) -> list[int]:
    """How many references each prediction of a corpus has (tensors: as ``_tensor_reference_counts``
    reads them)."""
    if corpus.kind == "text":
        return [len(group) for group in corpus.references]
    if isinstance(corpus.references, TokenIds):
        groups = corpus.references.groups
        return [] if groups is None else groups.tolist()
    return _tensor_reference_counts(corpus.references)


def not_one_reference(corpus: Corpus) -> tuple[int, int] | None:
    """The first prediction that has other than one reference, and how many it has; None where each
    has one."""
    return next(((number, count) for number, count in enumerate(reference_counts(corpus)) if count != 1), None)


def _one_reference_each(corpus: Corpus) -> Corpus:
    """The corpus, where each prediction has one reference (else a ValueError)."""
    several = not_one_reference(corpus)
    if several is not None:
        raise ValueError(f"keep_references='one' takes one reference a prediction, as the tools that read one do "
                         f"(t2t-bleu's bleu_wrapper, Azure's evaluator, fairseq's scorer), but prediction {several[0]} "
                         f"has {several[1]}: give one each, or keep_references='first'")
    return corpus


def _tensor_reference_counts(references: Any) -> list[int]:
    """How many references each prediction has, where tensors hold them: a 2-D tensor holds one
    each and a 3-D one several (its second dimension); a list holds a tensor of one reference (1-D)
    or of several (2-D, a row each), or a list of tensors, each prediction's. A form the device's
    check refuses counts nothing here."""
    if is_tensor(references):
        shape = tuple(references.shape)
        return [1] * shape[0] if len(shape) == 2 else [shape[1]] * shape[0] if len(shape) == 3 else []
    counts = []
    for group in references:
        if is_tensor(group):
            counts.append(1 if group.dim() == 1 else int(group.size(0)) if group.dim() == 2 else 1)
        elif isinstance(group, (list, tuple)):
            counts.append(len(group))
    return counts
