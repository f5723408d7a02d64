"""A stream of texts (a generator, an iterator, ``map``) is refused with the way out: every
function reads its texts more than once (their number first), so the message names the argument
and the type it got, and says to pass a list of it."""

import pytest

import exactbleu

PREDICTIONS = ["the cat sat on the mat", "a dog ran"]
REFERENCES = [["the cat sat on a mat"], ["a dog ran home"]]
FUNCTIONS = [exactbleu.corpus_bleu, exactbleu.sentence_scores, exactbleu.statistics]


def generator(values):
    return (value for value in values)


# (predictions, references, the message's start and end around the value's repr), written out by hand.
STREAMS = [
    (lambda: generator(PREDICTIONS), lambda: REFERENCES, "predictions must be a list, got generator: <generator",
     "; a generator can be read only once, and its values are read more than once: pass list(predictions)"),
    (lambda: PREDICTIONS, lambda: generator(REFERENCES), "references must be a list, got generator: <generator",
     "; a generator can be read only once, and its values are read more than once: pass list(references)"),
    (lambda: iter(PREDICTIONS), lambda: REFERENCES, "predictions must be a list, got list_iterator: <list_iterator",
     "; a list_iterator can be read only once, and its values are read more than once: pass list(predictions)"),
    (lambda: map(str.lower, PREDICTIONS), lambda: REFERENCES, "predictions must be a list, got map: <map",
     "; a map can be read only once, and its values are read more than once: pass list(predictions)"),
    (lambda: PREDICTIONS, lambda: [generator(one) for one in REFERENCES],
     "references[0] must be a list, got generator: <generator",
     "; a generator can be read only once, and its values are read more than once: pass list(references[0])"),
]


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda function: function.__name__)
@pytest.mark.parametrize("predictions, references, start, end", STREAMS,
                         ids=["predictions", "references", "an iterator", "map", "a segment's references"])
def test_a_stream_of_texts_is_told_to_be_a_list(function, predictions, references, start, end):
    with pytest.raises(TypeError) as raised:
        function(predictions(), references())
    message = str(raised.value)
    assert message.startswith(start) and message.endswith(end), message


@pytest.mark.parametrize("call, start, end", [
    (lambda: exactbleu.self_bleu(generator(PREDICTIONS)), "texts must be a list, got generator",
     "pass list(texts)"),
    (lambda: exactbleu.bleu_matrix(PREDICTIONS, generator(PREDICTIONS)), "references must be a list, got generator",
     "pass list(references)"),
    (lambda: exactbleu.mbr(generator([PREDICTIONS])), "candidates must be a list, got generator",
     "pass list(candidates)"),
], ids=["self_bleu", "bleu_matrix", "mbr"])
def test_the_functions_of_texts_say_so_too(call, start, end):
    with pytest.raises(TypeError) as raised:
        call()
    assert str(raised.value).startswith(start) and str(raised.value).endswith(end), str(raised.value)


class Texts:
    """Iterable more than once, but with no length."""

    def __iter__(self):
        return iter(PREDICTIONS)


def test_an_iterable_with_no_length_is_told_to_be_a_list():
    with pytest.raises(TypeError) as raised:
        exactbleu.corpus_bleu(Texts(), REFERENCES)
    message = str(raised.value)
    assert message.startswith("predictions must be a list, got Texts: <") and \
        message.endswith("; its number of values is needed before they are read: pass list(predictions)"), message
