"""The boundary, where every corpus is checked once and its kind told: text (``text``), token ids
(``ids``), or token-id tensors on any device (``tensors``), which ``device`` checks. Everything
past it trusts its inputs, and chooses by ``kind`` alone.
"""

from typing import Any, Literal, NamedTuple, TypeVar

import numpy as np

from .groups import Groups, group_sizes, located, starts_of
from .ids import TokenIds, check_token_id_texts, check_token_ids, ignored_ids, is_token_ids
from .tensors import holds_tensors
from .text import check_inputs, check_texts, reference_lists

Kind = Literal["text", "ids", "tensor"]


class Corpus(NamedTuple):
    """A corpus, checked: its predictions, and each prediction's references (a list of strings
    each, or token ids grouped by prediction); ``kind`` says which ("text", "ids" or "tensor"),
    and ``single_references`` whether each prediction's references were given as one string."""

    predictions: Any  # list[str], TokenIds, or the device's tensors, as kind says
    references: Any
    kind: Kind
    single_references: bool = False


class Texts(NamedTuple):
    """Texts, checked, as Self-BLEU and BLEU matrices take them: ``values`` (a list of strings,
    ``TokenIds``, or the device's tensors), their ``kind`` and how many there are."""

    values: Any
    kind: Kind
    size: int


Checked = TypeVar("Checked", Corpus, Texts)  # a checked input, either way


def kind_of(predictions: object) -> Kind:
    """The kind of a corpus or of texts, told from the predictions (or texts) alone, as every
    function tells them apart: "text", "ids" (lists of ints, arrays) or "tensor" (torch's)."""
    if holds_tensors(predictions):
        return "tensor"
    return "ids" if is_token_ids(predictions) else "text"


def checked_host_corpus(predictions: object, references: object, ignore_ids: object | None = None) -> Corpus:
    """Check text (a list of references per prediction, or one reference string each) or token
    ids (lists of ints or arrays) with ``ignore_ids`` dropped. Raises a ValueError or TypeError
    that names the argument."""
    if kind_of(predictions) == "ids":
        ids = check_token_ids(predictions, references, ignore_ids)
        return Corpus(ids[0], ids[1], "ids")
    _no_ignore_ids(ignore_ids, "predictions")
    checked, referenced, single = check_inputs(predictions, references)
    return Corpus(checked, reference_lists(referenced), "text", single)


def checked_host_texts(texts: object, name: str, ignore_ids: object | None = None) -> Texts:
    """Check a list of texts, strings or token ids, as Self-BLEU and BLEU matrices take them."""
    if kind_of(texts) == "ids":
        ids = check_token_id_texts(texts, None if ignore_ids is None else ignored_ids(ignore_ids), name)
        return Texts(ids, "ids", len(ids))
    _no_ignore_ids(ignore_ids, name)
    strings = check_texts(texts, name)
    return Texts(strings, "text", len(strings))


def checked_host_groups(value: object, name: str, ignore_ids: object | None = None) -> tuple[Texts, Any]:
    """Check texts in groups (a list of texts per source), strings or token ids: the texts end to
    end, checked as ``checked_host_texts`` checks them, and each group's size. A bad text's message
    names ``name[source][index]``."""
    texts, sizes = group_sizes(value, name)
    try:
        return checked_host_texts(texts, name, ignore_ids), sizes
    except (TypeError, ValueError) as error:
        raise located(error, name, sizes, lambda part, where: checked_host_texts(part, where, ignore_ids),
                      texts) from None


def with_references_kept(corpus: Corpus, rule: str) -> Corpus:
    """The corpus with each prediction's references cut as ``rule`` says: "all" of them, the
    "first", or as many as the prediction with the "fewest" has (the option ``keep_references``);
    of text or token ids (a tensor's references are refused where ``rule`` is not "all")."""
    if rule == "all":
        return corpus
    if corpus.kind == "tensor":
        raise ValueError(f"keep_references={rule!r} applies to text and to token ids as lists or arrays; for "
                         f"tensors, pass each prediction's references cut already, or keep_references='all'")
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


def _no_ignore_ids(ignore_ids: object | None, name: str) -> None:
    if ignore_ids is not None:
        raise ValueError(f"ignore_ids applies to token ids, but the {name} are text")


__all__ = ["Checked", "Corpus", "Groups", "Kind", "Texts", "TokenIds", "checked_host_corpus", "checked_host_groups",
           "checked_host_texts", "kind_of", "starts_of", "with_references_kept"]
