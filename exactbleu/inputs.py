"""The boundary: predictions and references are checked once, here, with messages that name the
argument, the bad value and what would be right. Everything past this trusts its inputs."""

import collections.abc
import itertools
from typing import List, Tuple

import numpy as np

from .tokenizers.ids import TokenIds

def as_list(value, name: str) -> list:
    """A column (list, tuple, numpy array, datasets Column) as a list. A string, bytes, a dict or
    a set is an error: each would iterate into something other than the texts meant."""
    if type(value) is list:  # the usual case, decided without the abstract base classes
        return value
    unordered = isinstance(value, (collections.abc.Mapping, collections.abc.Set))
    if isinstance(value, (str, bytes)) or unordered or not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list, got {type(value).__name__}: {value!r:.80}")
    return value if isinstance(value, list) else list(value)


def _check_unicode(texts, name):
    """Text with a lone surrogate (say, from decoding bytes with errors="surrogateescape") is
    not valid Unicode: it cannot be stored or compared with other tools' scores. ASCII text
    cannot hold one, so only the rest is encoded to find out. ``texts`` is called for an
    iterable of the texts, and ``name`` names the text at an index of it."""
    try:
        "".join(itertools.filterfalse(str.isascii, texts())).encode("utf-8")
    except UnicodeEncodeError:
        for index, text in enumerate(texts()):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as error:
                raise ValueError(
                    f"{name(index)} is not valid Unicode: it holds the lone surrogate "
                    f"{text[error.start]!r} at position {error.start}; decode its bytes with "
                    f"errors='replace' (or 'strict' to find the bad input)"
                ) from None


def check_inputs(predictions, references) -> Tuple[list, list, bool]:
    """Check one batch; return it as lists, and whether each prediction's references are one string.

    Every prediction's references must take the same shape, all strings or all lists: evaluate
    fixes the shape from the first example and would read a later string as a list of characters.
    """
    predictions = as_list(predictions, "predictions")
    references = as_list(references, "references")
    if len(predictions) == 0:
        raise ValueError("predictions is empty: BLEU needs at least one prediction and its references")
    if len(predictions) != len(references):
        raise ValueError(
            f"predictions and references must have the same length, got {len(predictions)} predictions "
            f"and {len(references)} references: references holds each prediction's references "
            f"(references[i] for predictions[i]); for sacrebleu's layout, one list per reference set, "
            f"use exactbleu.compat"
        )
    if set(map(type, predictions)) != {str}:
        for index, prediction in enumerate(predictions):
            if not isinstance(prediction, str):
                raise _not_a_string(f"predictions[{index}]", prediction)
    _check_unicode(lambda: predictions, "predictions[{}]".format)
    single_strings = isinstance(references[0], str)
    shapes = set(map(type, references))
    if shapes == {str} or (shapes == {list} and set(map(type, itertools.chain.from_iterable(references))) == {str}):
        if shapes == {list} and not all(references):
            index = next(index for index, segment_references in enumerate(references) if not segment_references)
            raise ValueError(f"references[{index}] is empty: every prediction needs at least one reference")
    else:  # find what is wrong, to name it; inner tuples (and arrays) become lists
        references = list(references)
        for index, segment_references in enumerate(references):
            if isinstance(segment_references, str) != single_strings:
                if single_strings and not isinstance(segment_references, (list, tuple)):
                    raise _not_a_string(f"references[{index}]", segment_references)
                raise ValueError(mixed_shapes_message(single_strings, index))
            if single_strings:
                continue
            segment_references = references[index] = as_list(segment_references, f"references[{index}]")
            if len(segment_references) == 0:
                raise ValueError(f"references[{index}] is empty: every prediction needs at least one reference")
            for position, reference in enumerate(segment_references):
                if not isinstance(reference, str):
                    raise _not_a_string(f"references[{index}][{position}]", reference)
    _check_references_unicode(references, single_strings)
    return predictions, references, single_strings


def check_texts(texts, name: str = "texts") -> list:
    """Check a list of texts: strings, valid Unicode."""
    texts = as_list(texts, name)
    if set(map(type, texts)) - {str}:
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise _not_a_string(f"{name}[{index}]", text)
    _check_unicode(lambda: texts, f"{name}[{{}}]".format)
    return texts


def check_token_id_texts(texts, ignore_ids=None, name: str = "texts") -> TokenIds:
    """Check texts given as token ids (as predictions take them) and return them as ``TokenIds``."""
    return _segments_of(texts, name, None if ignore_ids is None else _ignored_ids(ignore_ids))


def check_segment(prediction, references) -> Tuple[str, List[str]]:
    """Check one segment: a prediction string and its references (a list of strings, or one
    string), with messages that name ``prediction`` and ``references[j]``."""
    if not isinstance(prediction, str):
        raise _not_a_string("prediction", prediction)
    _check_unicode(lambda: [prediction], lambda index: "prediction")
    if isinstance(references, str):
        references = [references]
    else:
        references = as_list(references, "references")
        if not references:
            raise ValueError("references is empty: the prediction needs at least one reference")
        for position, reference in enumerate(references):
            if not isinstance(reference, str):
                raise _not_a_string(f"references[{position}]", reference)
    _check_unicode(lambda: references, "references[{}]".format)
    return prediction, list(references)


def _not_a_string(name, value):
    """The TypeError for a value where a text belongs; a list of tokens, as NLTK takes, gets a hint."""
    message = f"{name} must be a string, got {type(value).__name__}: {value!r:.80}"
    if isinstance(value, (list, tuple)) and value and all(isinstance(token, str) for token in value):
        message += ("; this looks like a list of tokens, as NLTK takes them: join each one with spaces "
                    "(' '.join(tokens)) and score with tokenizer='none', or load the 'nltk' preset, "
                    "evaluate.load(path, 'nltk'), which splits on whitespace as NLTK's users do")
    return TypeError(message)


def _check_references_unicode(references, single_strings):
    if single_strings:
        return _check_unicode(lambda: references, "references[{}]".format)

    def name(number):  # the flat index of a reference, as references[i][j]
        for index, segment_references in enumerate(references):
            if number < len(segment_references):
                return f"references[{index}][{number}]"
            number -= len(segment_references)

    _check_unicode(lambda: itertools.chain.from_iterable(references), name)


def reference_lists(references: list) -> List[List[str]]:
    """Checked references as a list of references per prediction (a single string is one)."""
    return [[reference] for reference in references] if isinstance(references[0], str) else references


def mixed_shapes_message(first_is_string: bool, index) -> str:
    first, this = ("a string", "a list") if first_is_string else ("a list", "a string")
    return (
        f"references mixes shapes: the first prediction's references are {first} but references[{index}] "
        f"is {this}; give every prediction a list of reference strings (or every one a single string)"
    )


# Token ids: segments as a model's tokenizer gives them (see ``tokenizers.ids``).


def is_token_ids(predictions) -> bool:
    """Whether predictions are token ids rather than text: an array or tensor (anything with
    ``__array__``), or a sequence whose first segment is a sequence of ints or a 1-D array."""
    if hasattr(predictions, "__array__") and not isinstance(predictions, (list, tuple)):
        return True
    if isinstance(predictions, (str, bytes)) or not hasattr(predictions, "__len__") or not len(predictions):
        return False
    first = predictions[0]
    if hasattr(first, "__array__"):
        return True
    if isinstance(first, (list, tuple)):
        return not first or not isinstance(first[0], str)
    return False


def check_token_ids(predictions, references, ignore_ids=None) -> Tuple[TokenIds, TokenIds]:
    """Check a corpus of token ids and return it as ``TokenIds``: predictions as a 2-D padded
    integer array (or tensor) or a sequence of segments (lists or tuples of ints, 1-D integer
    arrays); references as one such segment per prediction, a list of them per prediction, a 2-D
    array (one reference each) or a 3-D array (several each). ``ignore_ids`` are dropped
    everywhere, such as padding and end-of-sequence ids."""
    ignore = None if ignore_ids is None else _ignored_ids(ignore_ids)
    predicted = _segments_of(predictions, "predictions", ignore)
    if len(predicted) == 0:
        raise ValueError("predictions is empty: BLEU needs at least one prediction and its references")
    several = True
    if hasattr(references, "__array__") and not isinstance(references, (list, tuple)):
        array = _integer_array(references, "references")
        several = array.ndim == 3
        if array.ndim not in (2, 3):
            raise ValueError(f"references as an array must be 2-D (one reference per prediction) or 3-D (several), "
                             f"got shape {array.shape}")
        groups = [array[index] if array.ndim == 3 else array[index][None] for index in range(len(array))]
    else:
        groups = as_list(references, "references")
        first = groups[0] if groups else None
        several = hasattr(first, "__array__") and np.ndim(first) == 2 or isinstance(first, (list, tuple)) and (
            not first or hasattr(first[0], "__array__") or isinstance(first[0], (list, tuple)))
        if not several:  # one reference per prediction, named references[i]
            groups = [[segment] for segment in groups]
    if len(groups) != len(predicted):
        raise ValueError(f"predictions and references must have the same length, got {len(predicted)} predictions "
                         f"and {len(groups)} references")
    for index, group in enumerate(groups):
        if len(group) == 0:
            raise ValueError(f"references[{index}] is empty: every prediction needs at least one reference")
    sizes = [len(group) for group in groups]
    firsts = np.cumsum(sizes) - sizes

    single = not several

    def name(number):  # the flat index of a reference, as references[i][j]
        index = int(np.searchsorted(firsts, number, side="right")) - 1
        return f"references[{index}]" if single else f"references[{index}][{number - firsts[index]}]"

    referenced = _joined(list(itertools.chain.from_iterable(groups)), name, ignore)
    referenced.groups = np.array(sizes, dtype=np.int64)
    return predicted, referenced


def _ignored_ids(ignore_ids) -> np.ndarray:
    ignore = as_list(ignore_ids, "ignore_ids") if not isinstance(ignore_ids, int) else [ignore_ids]
    array = np.asarray(ignore)
    if array.size and (array.dtype.kind not in "iu" or array.ndim != 1):
        raise TypeError(f"ignore_ids must be a list of integer token ids, got {ignore_ids!r:.80}")
    return array.astype(np.int64)


def _integer_array(value, name) -> np.ndarray:
    """An array of token ids: integers, not negative."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as error:  # ragged rows
        raise ValueError(f"{name} must be a rectangular array of token ids (pad short rows and name the padding id "
                         f"in ignore_ids): {error}") from None
    if array.dtype == object:
        raise ValueError(f"{name} must be a rectangular array of token ids, got rows of different lengths (pad them "
                         f"and name the padding id in ignore_ids)")
    if array.dtype.kind in "US":
        raise TypeError(f"{name} mixes text with token ids: got {array.reshape(-1)[:3].tolist()!r:.80}; give text "
                        f"as strings, or ids as ints")
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer token ids, got {array.dtype} values such as "
                        f"{array.reshape(-1)[0].item()!r}")
    if array.size and array.dtype.kind == "i" and array.min() < 0:
        raise ValueError(f"{name} must hold token ids of at least 0, got {array.min()}")
    if array.size and array.dtype.kind == "u" and array.max() >= 2**63:
        raise ValueError(f"{name} holds a token id too large for int64: {array.max()}")
    return array.astype(np.int64, copy=False)


def _segment(value, name) -> np.ndarray:
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} is a string, but the predictions are token ids: give every segment as ids")
    if not hasattr(value, "__array__") and not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of token ids or a 1-D integer array, got {type(value).__name__}: "
                        f"{value!r:.80}")
    array = _integer_array(value, name)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one segment of token ids (1-D), got shape {array.shape}")
    return array


def _segments_of(value, name, ignore) -> TokenIds:
    """Segments of token ids from a 2-D array or a sequence of segments, ``ignore`` dropped."""
    if hasattr(value, "__array__") and not isinstance(value, (list, tuple)):
        array = _integer_array(value, name)
        if array.ndim != 2:
            raise ValueError(f"{name} as an array must be 2-D, a padded row of token ids per segment, got shape "
                             f"{array.shape}")
        return _joined(list(array), f"{name}[{{}}]".format, ignore)
    return _joined(as_list(value, name), f"{name}[{{}}]".format, ignore)


def _joined(segments: list, name, ignore) -> TokenIds:
    """Segments of token ids end to end, checked, with the ignored ids dropped (``name(i)`` names
    the i-th segment in a message). Lists of ints, the usual case, become one array at once."""
    if all(type(segment) is list or type(segment) is tuple for segment in segments):
        lengths = np.fromiter(map(len, segments), np.int64, len(segments))
        flat = list(itertools.chain.from_iterable(segments))
        try:
            ids = np.array(flat) if flat else np.zeros(0, dtype=np.int64)
        except (ValueError, TypeError):
            ids = None
        if ids is None or ids.ndim != 1 or ids.dtype.kind not in "iu" or (ids.dtype.kind == "i" and len(ids)
                                                                           and ids.min() < 0):
            for index, segment in enumerate(segments):  # find the bad segment, to name it
                _segment(segment, name(index))
        ids = _integer_array(ids, name(0))
    else:
        arrays = [_segment(segment, name(index)) for index, segment in enumerate(segments)]
        lengths = np.array([len(array) for array in arrays], dtype=np.int64)
        ids = np.concatenate(arrays).astype(np.int64, copy=False) if arrays else np.zeros(0, dtype=np.int64)
    if ignore is not None and len(ignore) and len(ids):
        kept = ~np.isin(ids, ignore)
        owner = np.repeat(np.arange(len(lengths)), lengths)
        lengths = np.bincount(owner[kept], minlength=len(lengths))
        ids = ids[kept]
    return TokenIds(ids, lengths.astype(np.int64))
