"""The boundary, where every corpus is checked once: text (``text_inputs``), token ids
(``token_ids``), or token-id tensors on any device (``tensor_ids``). This is the one place that
tells them apart; everything past it trusts its inputs.
"""

from typing import NamedTuple

from .tensor_ids import TensorIds, TensorReferences, check_tensor_ids, check_tensor_texts
from .text_inputs import check_inputs, check_texts, reference_lists
from .token_ids import check_token_id_texts, check_token_ids, ignored_ids, is_tensor, is_token_ids
from .tokenizers.ids import TokenIds

Predictions = list[str] | TokenIds | TensorIds
References = list[list[str]] | TokenIds | TensorReferences


class Corpus(NamedTuple):
    """A corpus, checked: its predictions, and each prediction's references (a list of strings
    each, or token ids grouped by prediction); ``kind`` says which ("text", "ids" or "tensor"),
    and ``single_references`` whether each prediction's references were given as one string."""

    predictions: Predictions
    references: References
    kind: str
    single_references: bool = False


def checked_corpus(predictions: object, references: object, ignore_ids: object | None = None) -> Corpus:
    """Check predictions and their references as every function takes them: text (a list of
    references per prediction, or one reference string each), or token ids (lists of ints, arrays,
    or torch tensors on any device) with ``ignore_ids`` dropped. Raises a ValueError or TypeError
    that names the argument."""
    if _tensors(predictions):
        tensors = check_tensor_ids(predictions, references, ignore_ids)
        return Corpus(tensors[0], tensors[1], "tensor")
    if is_token_ids(predictions):
        ids = check_token_ids(predictions, references, ignore_ids)
        return Corpus(ids[0], ids[1], "ids")
    _no_ignore_ids(ignore_ids, "predictions")
    checked, referenced, single = check_inputs(predictions, references)
    return Corpus(checked, reference_lists(referenced), "text", single)


def checked_texts(texts: object, name: str, ignore_ids: object | None = None
                  ) -> list[str] | TokenIds | TensorIds:
    """Check a list of texts, as Self-BLEU and BLEU matrices take them: strings, or token ids."""
    if _tensors(texts):
        return check_tensor_texts(texts, name, ignore_ids)
    if is_token_ids(texts):
        return check_token_id_texts(texts, None if ignore_ids is None else ignored_ids(ignore_ids), name)
    _no_ignore_ids(ignore_ids, name)
    return check_texts(texts, name)


def _tensors(value: object) -> bool:
    """Whether token ids are torch tensors: one, or a list of them."""
    return is_tensor(value) or (isinstance(value, (list, tuple)) and bool(value) and is_tensor(value[0]))


def _no_ignore_ids(ignore_ids: object | None, name: str) -> None:
    if ignore_ids is not None:
        raise ValueError(f"ignore_ids applies to token ids, but the {name} are text")
