"""The boundary, where every corpus is checked once and its kind told: text (``text``), token ids
(``ids``), or token-id tensors on any device (``tensors``), told apart without torch and checked on
their device by the device's counter. A checked corpus knows how it is counted: its kind, and the
references its rule keeps. Everything past it trusts its inputs, and chooses by ``kind`` alone.
"""

from typing import Any

from .corpus import Checked, Corpus, Kind, Texts, reference_columns, reference_counts, with_references_kept
from .fairseq_reading import FairseqUnreadableError, read_as_fairseq
from .groups import Groups, group_sizes, located, starts_of
from .ids import (
    TokenIds,
    check_token_id_references,
    check_token_id_texts,
    check_token_ids,
    ignored_ids,
    is_token_ids,
)
from .tensors import as_arrays, holds_tensor_references, holds_tensors, texts_in
from .text import check_inputs, check_texts, reference_lists


def kind_of(predictions: object) -> Kind:
    """The kind of a corpus or of texts, told from the predictions (or texts) alone, as every
    function tells them apart: "text", "ids" (lists of ints, arrays) or "tensor" (torch's)."""
    if not is_token_ids(predictions):
        return "text"
    return "tensor" if holds_tensors(predictions) else "ids"  # a tensor is token ids too


def corpus_of(predictions: object, references: object, ignore_ids: object | None = None, keep: str = "all") -> Corpus:
    """The corpus, checked once, its kind told once, keeping the references that ``keep`` (the
    option ``keep_references``) keeps: text (a list of references per prediction, or one reference
    string each) and token ids (lists of ints or arrays, ``ignore_ids`` dropped) are checked here;
    tensors are told apart here and checked on their device when counted (their references, where
    they are not tensors, here). A ``Corpus`` given before (``references`` None) is not checked
    again. Raises a ValueError or TypeError that names the argument."""
    if isinstance(predictions, Corpus):
        if references is not None or ignore_ids is not None:
            raise ValueError("a Corpus holds its references, checked already: pass references=None and no ignore_ids")
        corpus = predictions
    elif (kind := kind_of(predictions)) == "tensor":  # the ids to drop checked here; the tensors on their device
        ignore = None if ignore_ids is None else ignored_ids(ignore_ids)
        count = texts_in(predictions)
        if count is not None and not holds_tensor_references(references):  # lists of ints or arrays
            references = check_token_id_references(references, count, ignore)
        corpus = Corpus(predictions, references, "tensor", ignore_ids=ignore)
    elif kind == "ids":
        corpus = Corpus(*check_token_ids(predictions, references, ignore_ids), "ids")
    else:
        _no_ignore_ids(ignore_ids, "predictions")
        checked, referenced, single = check_inputs(predictions, references)
        corpus = Corpus(checked, reference_lists(referenced), "text", single)
    return with_references_kept(corpus, keep)


def host_corpus(corpus: Corpus, keep: str) -> Corpus:
    """A corpus of tensors as the same ids on the host, each row read whole, its padding kept (for
    fairseq's rules, whose ``pad`` trims it), the references that ``keep`` keeps; other corpora as
    they are."""
    if corpus.kind != "tensor":
        return corpus
    ignore = corpus.ignore_ids  # checked already, as corpus_of took them
    predictions = check_token_id_texts(as_arrays(corpus.predictions), ignore, "predictions")
    references = corpus.references
    if not isinstance(references, TokenIds):
        references = check_token_id_references(as_arrays(references), len(predictions), ignore)
    return with_references_kept(Corpus(predictions, references, "ids"), keep)


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


def _no_ignore_ids(ignore_ids: object | None, name: str) -> None:
    if ignore_ids is not None:
        raise ValueError(f"ignore_ids applies to token ids, but the {name} are text")


__all__ = [
    "Checked",
    "Corpus",
    "FairseqUnreadableError",
    "Groups",
    "Kind",
    "Texts",
    "TokenIds",
    "checked_host_groups",
    "checked_host_texts",
    "corpus_of",
    "host_corpus",
    "ignored_ids",
    "kind_of",
    "read_as_fairseq",
    "reference_columns",
    "reference_counts",
    "starts_of",
    "with_references_kept",
]
