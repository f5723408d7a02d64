"""The boundary for text: predictions and references are checked once, here, with messages that
name the argument, the bad value and what would be right. Everything past this trusts its inputs."""

import collections.abc
import itertools
from collections.abc import Callable, Iterable
from typing import Any


def as_list(value: object, name: str) -> list[Any]:
    """A column (list, tuple, numpy array, datasets Column) as a list. A string, bytes, a dict or
    a set is an error: each would iterate into something other than the texts meant."""
    if type(value) is list:  # the usual case, decided without the abstract base classes
        return value
    if isinstance(value, (str, bytes, collections.abc.Mapping, collections.abc.Set)):
        raise TypeError(f"{name} must be a list, got {type(value).__name__}: {value!r:.80}")
    if not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list, got {type(value).__name__}: {value!r:.80}{_stream_hint(value, name)}")
    return value if isinstance(value, list) else list(value)


def _stream_hint(value: object, name: str) -> str:
    """The way out for a stream (a generator, an iterator, ``map``), which can be read once: every
    function reads its values more than once (their number, their checks, their counting)."""
    if isinstance(value, collections.abc.Iterator):
        return (f"; a {type(value).__name__} can be read only once, and its values are read more than once: "
                f"pass list({name})")
    if isinstance(value, collections.abc.Iterable):
        return f"; its number of values is needed before they are read: pass list({name})"
    return ""


def _check_unicode(texts: Callable[[], Iterable[str]], name: Callable[[int], str]) -> None:
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


def check_inputs(predictions: object, references: object) -> tuple[list[str], list[Any], bool]:
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


def check_texts(texts: object, name: str = "texts") -> list[str]:
    """Check a list of texts: strings, valid Unicode."""
    texts = as_list(texts, name)
    if set(map(type, texts)) - {str}:
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise _not_a_string(f"{name}[{index}]", text)
    _check_unicode(lambda: texts, f"{name}[{{}}]".format)
    return texts


def check_segment(prediction: object, references: object) -> tuple[str, list[str]]:
    """Check one segment: a prediction string and its references (a list of strings, or one
    string), with messages that name ``prediction`` and ``references[j]``."""
    if not isinstance(prediction, str):
        raise _not_a_string("prediction", prediction)
    if isinstance(references, str):
        references = [references]
    else:
        references = as_list(references, "references")
        if not references:
            raise ValueError("references is empty: the prediction needs at least one reference")
        for position, reference in enumerate(references):
            if not isinstance(reference, str):
                raise _not_a_string(f"references[{position}]", reference)
    texts = [prediction, *references]
    _check_unicode(lambda: texts, lambda index: f"references[{index - 1}]" if index else "prediction")
    return prediction, texts[1:]


def _not_a_string(name: str, value: object) -> TypeError:
    """The TypeError for a value where a text belongs; a list of tokens, as NLTK takes, gets a hint."""
    message = f"{name} must be a string, got {type(value).__name__}: {value!r:.80}"
    if isinstance(value, (list, tuple)) and value and all(isinstance(token, str) for token in value):
        message += ("; this looks like a list of tokens, as NLTK takes them: join each one with spaces "
                    "(' '.join(tokens)) and score with tokenizer='none', or load the 'nltk' preset, "
                    "evaluate.load(path, 'nltk'), which splits on whitespace as NLTK's users do")
    return TypeError(message)


def _check_references_unicode(references: list[Any], single_strings: bool) -> None:
    if single_strings:
        return _check_unicode(lambda: references, "references[{}]".format)

    def name(number: int) -> str:  # the flat index of a reference, as references[i][j]
        for index, segment_references in enumerate(references):
            if number < len(segment_references):
                return f"references[{index}][{number}]"
            number -= len(segment_references)
        return "references"

    _check_unicode(lambda: itertools.chain.from_iterable(references), name)


def reference_lists(references: list[Any]) -> list[list[str]]:
    """Checked references as a list of references per prediction (a single string is one)."""
    return [[reference] for reference in references] if isinstance(references[0], str) else references


def mixed_shapes_message(first_is_string: bool, index: object) -> str:
    first, this = ("a string", "a list") if first_is_string else ("a list", "a string")
    return (
        f"references mixes shapes: the first prediction's references are {first} but references[{index}] "
        f"is {this}; give every prediction a list of reference strings (or every one a single string)"
    )
