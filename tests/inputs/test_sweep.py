"""Every public function that takes a corpus or texts, over every form it takes them in (lists, tuples,
arrays, padded arrays, tensors, lists of tensors), each with its degenerate shapes (zero rows, zero
width, one row, one token): each call gives the result of the equal plain lists, or raises an
exactbleu message, the same as the plain lists do. Then the malformed forms (wrong dtypes, wrong
dimensions, meta, sparse and nested tensors, ids outside int64, mismatched batches): each gets an
exactbleu message. A message is exactbleu's when its ``raise`` statement is exactbleu's: the frame
the error was raised in is checked, so an error from inside numpy or torch fails."""

import functools
import pathlib
import traceback
import warnings

import numpy as np
import pytest
import torch

import exactbleu

PACKAGE = pathlib.Path(exactbleu.__file__).parent
PAD = 0  # no id below is 0: the padded forms pad with it


def raised_by_exactbleu(error):
    """Whether an error was raised by a ``raise`` statement of exactbleu's own code."""
    frame = traceback.extract_tb(error.__traceback__)[-1]
    return pathlib.Path(frame.filename).is_relative_to(PACKAGE) and (frame.line or "").lstrip().startswith("raise")


def outcome(call):
    """("ok", the result made comparable) or ("error", the error)."""
    try:
        return "ok", comparable(call())
    except (TypeError, ValueError) as error:
        return "error", error


def comparable(value):
    if isinstance(value, torch.Tensor):
        return ("tensor", value.dtype, value.cpu().tolist())
    if isinstance(value, np.ndarray):
        return ("array", value.dtype, value.tolist())
    if isinstance(value, dict):
        return {key: comparable(one) for key, one in value.items()}
    if isinstance(value, list):
        return [comparable(one) for one in value]
    if isinstance(value, exactbleu.Statistics):
        return ("statistics", value.array.tolist(), list(value.references or []), value.counted_with)
    if isinstance(value, exactbleu.SelfBleuStatistics):
        return ("self", value.lengths, [[part.tolist() for part in order] for order in value.grams], value.counted_with)
    return value


def assert_exactbleus(error):
    assert raised_by_exactbleu(error), "".join(traceback.format_exception(error))


# The shapes: each a corpus of plain lists, every prediction with as many references (the padded
# forms cannot tell a missing reference from an empty one).
SHAPES = {
    "zero rows": ([], []),
    "zero width": ([[], []], [[[], []], [[], []]]),
    "one row": ([[5, 6, 7, 8]], [[[5, 6, 7, 9], [5, 6]]]),
    "one token": ([[5], [6]], [[[5], [7]], [[6], [6]]]),
    "a corpus": ([[5, 6, 7, 5, 6], [8, 9], [7]], [[[5, 6, 7, 5], [6, 5]], [[8, 9, 9], [9]], [[3], [7, 7]]]),
}


def padded(rows, width=None):
    width = max([0, *map(len, rows)]) if width is None else width
    array = np.full((len(rows), width), PAD, dtype=np.int64)
    for index, row in enumerate(rows):
        array[index, : len(row)] = row
    return array


def stacked(groups):
    """Each prediction's references as one padded 3-D array."""
    most = max([0, *(len(group) for group in groups)])
    width = max([0, *(len(row) for group in groups for row in group)])
    array = np.full((len(groups), most, width), PAD, dtype=np.int64)
    for index, group in enumerate(groups):
        array[index, : len(group)] = padded(group, width)
    return array


# Each form: (predictions, references) as the form gives them, from the plain lists, and whether it
# needs ignore_ids (a padded form names its padding).
CORPUS_FORMS = {
    "lists": lambda p, r: (p, r, False),
    "tuples": lambda p, r: ([tuple(row) for row in p], [[tuple(row) for row in group] for group in r], False),
    "arrays": lambda p, r: ([np.array(row, dtype=np.int32) for row in p],
                            [[np.array(row, dtype=np.uint16) for row in group] for group in r], False),
    "padded arrays": lambda p, r: (padded(p), stacked(r), True),
    "2-D arrays per prediction": lambda p, r: (padded(p), [padded(group) for group in r], True),
    "padded tensors": lambda p, r: (torch.tensor(padded(p)), torch.tensor(stacked(r)), True),
    "lists of tensors": lambda p, r: ([torch.tensor(row, dtype=torch.int64) for row in p],
                                      [[torch.tensor(row, dtype=torch.int32) for row in group] for group in r], False),
    "2-D tensors per prediction": lambda p, r: ([torch.tensor(row, dtype=torch.int64) for row in p],
                                                [torch.tensor(padded(group)) for group in r], True),
    "tensor with lists": lambda p, r: (torch.tensor(padded(p)), r, True),
}
TEXT_FORMS = {
    "lists": lambda texts: (texts, False),
    "tuples": lambda texts: ([tuple(row) for row in texts], False),
    "arrays": lambda texts: ([np.array(row, dtype=np.int64) for row in texts], False),
    "padded array": lambda texts: (padded(texts), True),
    "padded tensor": lambda texts: (torch.tensor(padded(texts)), True),
    "lists of tensors": lambda texts: ([torch.tensor(row, dtype=torch.int64) for row in texts], False),
}


def ignoring(needed):
    return {"ignore_ids": [PAD]} if needed else {}


# Every public function that takes a corpus, as (predictions, references, ignore_ids) -> result.
CORPUS_FUNCTIONS = {
    "corpus_bleu": lambda p, r, i: exactbleu.corpus_bleu(p, r, "sacrebleu", **i),
    "statistics": lambda p, r, i: exactbleu.statistics(p, r, "sacrebleu", **i),
    "sentence_scores": lambda p, r, i: exactbleu.sentence_scores(p, r, "sacrebleu", **i),
    "checked_corpus": lambda p, r, i: exactbleu.corpus_bleu(exactbleu.checked_corpus(p, r, **i), None, "sacrebleu"),
    "paired_test": lambda p, r, i: exactbleu.paired_test({"a": p, "b": p}, r, n_samples=5, preset="sacrebleu", **i),
    "explain": lambda p, r, i: list(exactbleu.explain(p, r, "sacrebleu", **i)),
}
# Every public function that takes texts (a matrix takes predictions and references alike).
TEXT_FUNCTIONS = {
    "self_bleu": lambda texts, i: exactbleu.self_bleu(texts, "sacrebleu", **i),
    "self_bleu_statistics": lambda texts, i: exactbleu.self_bleu_statistics(texts, "sacrebleu", **i),
    "bleu_matrix": lambda texts, i: exactbleu.bleu_matrix(texts, texts, "sacrebleu", **i),
    "count_tokens": lambda texts, i: exactbleu.count_tokens(texts, "sacrebleu", **i),
}
TEXT_ONLY = {"explain", "count_tokens"}  # their tokens are shown or counted as a tokenizer gives them


def plain_result(kind, function, result):
    """The plain lists' result as the form's result would show it: tensors in, tensors out."""
    if kind == "tensor" and isinstance(result, tuple) and result[0] == "array":
        return ("tensor", torch.float64, result[2])
    if kind == "tensor" and isinstance(result, dict):
        return {key: plain_result(kind, function, one) for key, one in result.items()}
    return result


def check(form_kind, expected, got, call):
    """The form gives the plain lists' result, or an exactbleu message where the plain lists raise
    one; ``call`` names the function, the form and the shape in a failure."""
    try:
        compare(form_kind, expected, got)
    except AssertionError as failure:
        raise AssertionError(f"{call}: {failure}") from None


def compare(form_kind, expected, got):
    if expected[0] == "error":
        assert_exactbleus(expected[1])
        assert got[0] == "error", f"the plain lists raise {expected[1]!r}, this form gives {got[1]!r:.200}"
    if got[0] == "error":
        assert_exactbleus(got[1])
        assert expected[0] == "error", f"the plain lists score, this form raises {got[1]!r}"
        return
    assert got[1] == plain_result(form_kind, None, expected[1])


@pytest.mark.parametrize("form", list(CORPUS_FORMS))
@pytest.mark.parametrize("function", list(CORPUS_FUNCTIONS))
def test_every_corpus_form_and_shape_gives_the_plain_lists_result_or_a_message(function, form):
    call = CORPUS_FUNCTIONS[function]
    for shape, (predictions, references) in SHAPES.items():
        expected = outcome(lambda: call(predictions, references, {}))
        assert (expected[0] == "error") == (shape == "zero rows" or function in TEXT_ONLY), (shape, expected)
        given_predictions, given_references, pads = CORPUS_FORMS[form](predictions, references)
        got = outcome(functools.partial(call, given_predictions, given_references, ignoring(pads)))
        kind = "tensor" if "tensor" in form else "ids"
        check(kind, expected, got, f"{function}, {form}, {shape}")


@pytest.mark.parametrize("form", list(TEXT_FORMS))
@pytest.mark.parametrize("function", list(TEXT_FUNCTIONS))
def test_every_text_form_and_shape_gives_the_plain_lists_result_or_a_message(function, form):
    call = TEXT_FUNCTIONS[function]
    for shape, (predictions, _) in SHAPES.items():
        expected = outcome(lambda: call(predictions, {}))
        too_few = (shape == "zero rows" and function in ("self_bleu", "bleu_matrix")) or (
            shape == "one row" and function == "self_bleu")
        text_only = function in TEXT_ONLY and shape != "zero rows"  # an empty list is text
        assert (expected[0] == "error") == (too_few or text_only), (shape, expected)
        given, pads = TEXT_FORMS[form](predictions)
        got = outcome(functools.partial(call, given, ignoring(pads)))
        if function in TEXT_ONLY and got != expected:  # ids have no text to count (an empty list is text)
            assert got[0] == "error", (shape, got)
            assert_exactbleus(got[1])
            continue
        if shape == "zero rows" and function == "self_bleu_statistics" and got[0] == "ok":
            # An empty list is text, whose statistics carry its tokenizer: all else is alike.
            expected, got = ("ok", expected[1][:3]), ("ok", got[1][:3])
        check("tensor" if "tensor" in form else "ids", expected, got, f"{function}, {form}, {shape}")


# The same shapes in text, and the forms text comes in: lists, tuples, numpy's strings.
TEXT_SHAPES = {
    "zero rows": ([], []),
    "zero width": (["", ""], [["", ""], ["", ""]]),
    "one row": (["the cat sat on"], [["the cat sat in", "the cat"]]),
    "one token": (["cat", "dog"], [["cat", "mat"], ["dog", "dog"]]),
    "a corpus": (["the cat sat on the mat", "a dog ran", "x"], [["the cat sat on a mat", "the cat"], ["a dog ran home",
                                                                                                     "dog"], ["y", "x"]]),
}
STRING_FORMS = {
    "tuples": lambda p, r: (tuple(p), tuple(tuple(group) for group in r)),
    "numpy strings": lambda p, r: (np.array(p, dtype=str), np.array(r, dtype=str) if r else np.zeros((0, 1), dtype=str)),
    "numpy strings listed": lambda p, r: (list(np.array(p, dtype=str)), [list(np.array(group)) for group in r]),
}


@pytest.mark.parametrize("form", list(STRING_FORMS))
@pytest.mark.parametrize("function", list(CORPUS_FUNCTIONS))
def test_every_form_of_text_gives_the_plain_lists_result_or_a_message(function, form):
    call = CORPUS_FUNCTIONS[function]
    for shape, (predictions, references) in TEXT_SHAPES.items():
        expected = outcome(lambda: call(predictions, references, {}))
        assert (expected[0] == "error") == (shape == "zero rows"), (shape, expected)
        got = outcome(functools.partial(call, *STRING_FORMS[form](predictions, references), {}))
        check("text", expected, got, f"{function}, {form}, {shape}")


@pytest.mark.parametrize("form", list(STRING_FORMS))
@pytest.mark.parametrize("function", list(TEXT_FUNCTIONS))
def test_every_form_of_texts_gives_the_plain_lists_result_or_a_message(function, form):
    call = TEXT_FUNCTIONS[function]
    for shape, (predictions, references) in TEXT_SHAPES.items():
        expected = outcome(lambda: call(predictions, {}))
        got = outcome(functools.partial(call, STRING_FORMS[form](predictions, references)[0], {}))
        check("text", expected, got, f"{function}, {form}, {shape}")


@pytest.mark.parametrize("form", ["lists", "arrays", "tensors"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_sentence_bleu_takes_one_segment_in_every_form(form, shape):
    predictions, references = SHAPES[shape]
    if not predictions:
        predictions, references = [[]], [[]]  # no segment at all: no references either
    prediction, segment_references = predictions[0], references[0]
    expected = outcome(lambda: exactbleu.sentence_bleu(prediction, segment_references, "sacrebleu"))
    if form == "arrays":
        prediction, segment_references = np.array(prediction, dtype=np.int64), [np.array(row) for row in
                                                                               segment_references]
    elif form == "tensors":
        prediction, segment_references = torch.tensor(prediction, dtype=torch.int64), [
            torch.tensor(row, dtype=torch.int64) for row in segment_references]
    got = outcome(lambda: exactbleu.sentence_bleu(prediction, segment_references, "sacrebleu"))
    check("ids", expected, got, f"sentence_bleu, {form}, {shape}")


def meta(rows):
    return torch.tensor(padded(rows)).to("meta")


def sparse(rows):
    return torch.tensor(padded(rows)).to_sparse()


def nested(rows):
    with warnings.catch_warnings():  # torch's nested tensors are a prototype, and say so
        warnings.simplefilter("ignore", UserWarning)
        return torch.nested.nested_tensor([torch.tensor(row, dtype=torch.int64) for row in rows])


P, R = [[5, 6, 7], [8, 9]], [[[5, 6, 7]], [[8]]]
# Malformed corpora, each (predictions, references, ignore_ids): every function must refuse each
# with a message of its own.
MALFORMED = {
    "float ids": (np.array([[1.0, 2.0], [3.0, 4.0]]), padded([[1], [2]]), [PAD]),
    "bool tensor": (torch.tensor([[True, False], [True, True]]), torch.tensor([[1], [2]]), [PAD]),
    "complex tensor": (torch.tensor([[1j, 2j], [3j, 4j]]), torch.tensor([[1], [2]]), [PAD]),
    "float tensor references": (torch.tensor(padded(P)), torch.tensor([[1.5], [2.5]]), [PAD]),
    "strings in an array": (np.array([["a", "b"], ["c", "d"]]), padded([[1], [2]]), None),
    "text references for ids": (P, [["a b"], ["c"]], None),
    "ids references for text": (["a b", "c"], [[[1, 2]], [[3]]], None),
    "ragged object array": (np.array([np.array([1, 2]), np.array([3])], dtype=object), R, None),
    "1-D predictions array": (np.array([5, 6, 7]), R, [PAD]),
    "3-D predictions tensor": (torch.tensor(stacked(R)), torch.tensor(stacked(R)), [PAD]),
    "4-D references array": (padded(P), np.zeros((2, 1, 1, 3), dtype=np.int64) + 5, [PAD]),
    "3-D tensors in a list": ([torch.tensor(stacked(R))[0], torch.tensor(stacked(R))[1]], R, [PAD]),
    "meta tensor": (meta(P), padded([[5], [8]]), [PAD]),
    "meta references": (torch.tensor(padded(P)), meta([[5], [8]]), [PAD]),
    "sparse tensor": (sparse(P), torch.tensor(padded([[5], [8]])), [PAD]),
    "sparse references": (torch.tensor(padded(P)), sparse([[5], [8]]), [PAD]),
    "nested tensor": (nested(P), torch.tensor(padded([[5], [8]])), [PAD]),
    "nested references": (torch.tensor(padded(P)), nested([[5], [8]]), [PAD]),
    "an id of 2**63 in lists": ([[2**63, 5], [8]], R, None),
    "an id below -2**63 in lists": ([[-(2**63) - 1, 5], [8]], R, None),
    "an id past 2**64 in lists": ([[2**64 + 3, 5], [8]], R, None),
    "uint64 ids of 2**63 and more": (np.array([[2**63 + 5, 7], [8, 9]], dtype=np.uint64), padded([[7], [8]]), []),
    "uint64 tensor of 2**63 and more": (torch.tensor([[2**63 + 5, 7], [8, 9]], dtype=torch.uint64),
                                        torch.tensor([[7], [8]], dtype=torch.uint64), []),
    "uint64 tensor references of 2**63 and more": (torch.tensor([[5, 7], [8, 9]], dtype=torch.uint64),
                                                   torch.tensor([[2**63 + 7], [8]], dtype=torch.uint64), []),
    "an ignored id past int64": (P, R, [2**63 + 5]),
    "more references than predictions": (P, [*R, [[1]]], None),
    "more reference rows than predictions": (padded(P), padded([[5], [8], [9]]), [PAD]),
    "more reference rows than tensor predictions": (torch.tensor(padded(P)), torch.tensor(padded([[5], [8], [9]])),
                                                    [PAD]),
    "fewer references than predictions": (torch.tensor(padded(P)), [torch.tensor([5])], [PAD]),
    "a padded tensor without ignore_ids": (torch.tensor(padded(P)), torch.tensor(padded([[5], [8]])), None),
}


def assert_refused(function, malformed, got):
    """An exactbleu message; for an id no int64 holds, where ids are taken, one that names the id and
    gives no advice to ignore it (an id read as another would score a number that no corpus has)."""
    assert got[0] == "error", f"scored: {got[1]!r:.200}"
    assert_exactbleus(got[1])
    if function not in TEXT_ONLY and any(words in malformed for words in ("int64", "2**63", "2**64")):
        message = str(got[1])
        assert any(str(value) in message for value in (2**63, 2**63 + 5, 2**63 + 7, -(2**63) - 1, 2**64 + 3)), message
        assert "ignore_ids=[" not in message, message


@pytest.mark.parametrize("malformed", list(MALFORMED))
@pytest.mark.parametrize("function", list(CORPUS_FUNCTIONS))
def test_every_malformed_corpus_gets_an_exactbleu_message(function, malformed):
    predictions, references, ignore_ids = MALFORMED[malformed]
    got = outcome(lambda: CORPUS_FUNCTIONS[function](predictions, references, {} if ignore_ids is None else
                                                      {"ignore_ids": ignore_ids}))
    assert_refused(function, malformed, got)


MALFORMED_TEXTS = {name: (predictions, ignore_ids) for name, (predictions, _, ignore_ids) in MALFORMED.items()
                   if "reference" not in name}


@pytest.mark.parametrize("malformed", list(MALFORMED_TEXTS))
@pytest.mark.parametrize("function", list(TEXT_FUNCTIONS))
def test_every_malformed_text_gets_an_exactbleu_message(function, malformed):
    texts, ignore_ids = MALFORMED_TEXTS[malformed]
    got = outcome(lambda: TEXT_FUNCTIONS[function](texts, {} if ignore_ids is None else {"ignore_ids": ignore_ids}))
    assert_refused(function, malformed, got)
